"""[Oliner2004] §6-§7: the shared pieces: the campaigns, logs and notes, the quick grids' slices
(§6.2's failure counts scaled to them), the helpers reading and merging the rows."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from coschedule.reproduce.claims import NotComparable
from coschedule.reproduce.results import Results

FAIL, CONF, ACC = "oliner2004-failures", "oliner2004-confidence", "oliner2004-accuracy"
NASA, KTH, LUBLIN = "NASA", "KTH-SP2", "lublin_256"
LOGS = (KTH, NASA, LUBLIN)  # the paper's order: SDSC, NASA, LLNL
PAPER_LOG = {KTH: "SDSC", NASA: "NASA", LUBLIN: "LLNL"}
PATHS = {KTH: "KTH-SP2-1996-2.1-cln.swf.gz", NASA: "NASA-iPSC-1993-3.1-cln.swf.gz", LUBLIN: "lublin_256.swf.gz"}
#: each log's period in days (docs/reproduce-oliner2004.md), over which a failure count is spread
LOG_DAYS = {KTH: 333, NASA: 92, LUBLIN: 89}
#: the quick run's slice of each log: (first day, days)
QUICK_SLICE = {KTH: (100, 15), NASA: (0, 20), LUBLIN: (0, 20)}
#: the paper's failure counts on each log (§6.2) and the counts of Figs. 3-5
PAPER_COUNT = {KTH: 4000, NASA: 4000, LUBLIN: 1000}
FIG3_COUNTS = (0, 1000, 2000, 4000)
C0, C1 = 1.0, 1.2
UNIT = 128  # torus units (supernodes), §6.1

SDSC_MISSING = "the SDSC SP2 log (128 nodes, 1998-2000)"
LLNL_MISSING = "the LLNL T3D log (256 nodes, 1996)"
KTH_STAND_IN = "KTH-SP2 (an IBM SP2 of 100 nodes, 333 days), 1 node per unit"
LUBLIN_STAND_IN = "lublin_256 (a 256-node model workload), 2 nodes per unit"
MIGRATION = "migration on: the paper's system (§5.2.1)"
BSLD_RUN = "bounded slowdown over the run time (§3.4)"
FAILURES = "clustered transient failures (the paper's trace is not public)"
THREE_LOGS = "judged on NASA, KTH-SP2 and lublin_256"
ON_NASA = "judged on NASA (the stand-ins shown)"
OTHER_TRACES = "c = 1.0 and 1.2 on different failure traces"
MEDIAN = "the median over the parameters run"

#: the campaigns the predictors' claims and figures read (:func:`_conf_rows`, :func:`_acc_rows`)
PRED, ACCS = (CONF, FAIL), (ACC, CONF, FAIL)
SYSTEM = (MIGRATION, BSLD_RUN, FAILURES)
ON_THREE = (*SYSTEM, THREE_LOGS)


# ------------------------------------------------------------------ the grids

def scaled_count(log: str, count: int, quick: bool) -> int:
    """``count`` failures over ``log``'s period, on the run's slice of it: the count itself in the
    full run, in the quick run the same number of failures per day over its slice."""
    return round(count * QUICK_SLICE[log][1] / LOG_DAYS[log]) if quick else count


def _quick_source(log: str) -> dict[str, Any]:
    first, days = QUICK_SLICE[log]
    return {"kind": "swf", "name": log, "path": PATHS[log], "first_day": first, "days": days}


def _quick_predictors(logs: Sequence[str], **changes: Any) -> dict[str, Any]:
    """The quick grid of Figs. 6-10 on ``logs``: sliced, their failure counts scaled, one trace."""
    return {"seeds": 1, "source": [_quick_source(log) for log in logs],
            "failure_count": {log: scaled_count(log, PAPER_COUNT[log], True) for log in logs}, **changes}


# ------------------------------------------------------------------ reading the groups

def _summarize(rows: list[dict[str, Any]]) -> list[Any]:
    from coschedule.campaign.simulators.torus.report import summarize_torus

    return summarize_torus(rows)


def _conf_rows(r: Results) -> list[dict[str, Any]]:
    """The balancing runs with their FCFS runs. The quick grid does not run KTH-SP2's: they are the
    cells of ``oliner2004-failures`` at 4,000 failures, trace 0 (the same slice, count, seed,
    schedulers and ids), read from there."""
    rows = r.rows(CONF)
    if any(x["source"] == KTH for x in rows):
        return rows
    K = scaled_count(KTH, PAPER_COUNT[KTH], r.quick)
    return rows + [x for x in r.rows(FAIL) if x["source"] == KTH and x["failure_count"] == K and x["seed_index"] == 0]


def _acc_rows(r: Results) -> list[dict[str, Any]]:
    """The tie-breaking runs with FCFS's of the balancing runs (the same failure traces: the same
    seeds, logs and counts), so that the quick grid runs FCFS once for both predictors."""
    return [x for x in r.rows(ACC) if x["policy"] != "fcfs"] + [x for x in _conf_rows(r) if x["policy"] == "fcfs"]


def _groups(r: Results, campaign: str) -> list[Any]:
    """The summary groups of ``campaign`` with migration (the paper's system); the predictors'
    through :func:`_conf_rows` and :func:`_acc_rows`."""
    if campaign == ACC:
        gs = _summarize(_acc_rows(r))
    elif campaign == CONF:
        gs = _summarize(_conf_rows(r))
    else:
        gs = r.groups(campaign)
    return [g for g in gs if g.migration]


def _find(gs: Iterable[Any], log: str, c: float, policy: str, a: float | None = None,
          K: int | None = None) -> Any:
    """The group of ``policy`` (at ``a``) on ``log`` at load ``c`` (and ``K`` failures)."""
    for g in gs:
        if (g.source == log and math.isclose(g.load_scale, c) and g.policy == policy
                and (a is None or (g.parameter is not None and math.isclose(g.parameter, a)))
                and (K is None or g.failure_count == K)):
            return g
    raise KeyError(f"no {policy}{'' if a is None else f' a = {a:g}'} group on {log} at c = {c:.1f}"
                   + ("" if K is None else f", K = {K}"))


def _params(gs: Iterable[Any], log: str, c: float, policy: str) -> list[float]:
    """The confidences (or accuracies) of ``policy`` on ``log`` at ``c``, ascending."""
    return sorted({g.parameter for g in gs if g.source == log and math.isclose(g.load_scale, c)
                   and g.policy == policy})


def _half(x: float) -> float:
    """A half-width, 0 where there is none (one run)."""
    return x if math.isfinite(x) else 0.0


def _slow(g: Any) -> float:
    return g.mean("mean_bounded_slowdown")


def _change(g: Any) -> tuple[float, float]:
    """``(change against FCFS on the same traces, half-width)`` of the mean bounded slowdown."""
    ratio = g.vs_fcfs
    if ratio is None:
        raise KeyError(f"{g.label} on {g.source} has no FCFS run on its traces")
    return ratio[0] - 1.0, _half(ratio[1])


def _pct(x: float) -> str:
    return f"{100 * x:+.0f} %"


def _pm(mu: float, half: float) -> str:
    return _pct(mu) + (f" ± {100 * half:.0f}" if half > 0 else "")


def _num(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def _holds(flags: Sequence[bool]) -> bool | None:
    """True when every case holds, None (in part) when some do, False when none."""
    return True if all(flags) else None if any(flags) else False


# ------------------------------------------------------------------ the improvements over a parameter

def _improvements(gs: list[Any], log: str, c: float, policy: str) -> list[tuple[float, float, float]]:
    """``(a, improvement, half-width)`` of ``policy`` against FCFS at each of its parameters."""
    out = []
    for a in _params(gs, log, c, policy):
        mu, half = _change(_find(gs, log, c, policy, a))
        out.append((a, -mu, half))
    return out


def _median(xs: Sequence[tuple[float, float, float]]) -> tuple[float, float]:
    """The median improvement over the parameters and the median half-width."""
    return statistics.median(x[1] for x in xs), statistics.median(x[2] for x in xs)


def _median_text(mu: float, half: float) -> str:
    """The median improvement and the interval a verdict counts (:func:`_median`)."""
    return f"median improvement {100 * mu:.0f} % ± {100 * half:.0f} (the median half-width)"


def _curve_text(xs: Sequence[tuple[float, float, float]]) -> str:
    return ", ".join(f"{_pct(-imp)} (a = {a:g})" for a, imp, _ in xs)


# ------------------------------------------------------------------ the stand-ins

def _sdsc(what: str = "") -> NotComparable:
    return NotComparable(SDSC_MISSING + what, KTH_STAND_IN)


def _llnl(what: str = "") -> NotComparable:
    return NotComparable(LLNL_MISSING + what, LUBLIN_STAND_IN)
