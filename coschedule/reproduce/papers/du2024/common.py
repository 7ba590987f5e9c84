"""[Du2024] §5-7: the shared pieces of the reproduction: the campaigns, months and notes, the helpers
reading the rows (per seed, paired SFSJ / Baseline, with 95 % intervals) and formatting them."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from coschedule.reproduce.claims import Measured, NotComparable
from coschedule.reproduce.paper import Campaign
from coschedule.reproduce.results import Results

STEAL, SYNTH = "du2024-stealing", "du2024-stealing-synthetic"
SWEEP, VARIANTS = "du2024-stealing-sweep", "du2024-stealing-variants"
BASE, SFSJ = "conservative", "sfsj"
JUNE, MARCH, INTREPID = "Mira-like-2017-06", "Mira-like-2018-03", "Intrepid-like-2013-06"
MIRA, MONTHS = (JUNE, MARCH), (JUNE, MARCH, INTREPID)
SHORT = {JUNE: "June 2017", MARCH: "March 2018", INTREPID: "Intrepid"}
#: the days of each month (the stress of §5.2 is over the whole month)
DAYS = {JUNE: 30, MARCH: 31, INTREPID: 30}
HOUR, DAY, YEAR = 3600.0, 86400.0, 365 * 86400.0

MIRA_LOG = NotComparable("the Mira log (June 2017, March 2018)", "Mira-like synthetic months matched to Tables 2-3")
JUNE_LOG = NotComparable("the Mira log of June 2017", "a Mira-like synthetic June 2017 matched to Tables 2-3")
MARCH_LOG = NotComparable("the Mira log of March 2018", "a Mira-like synthetic March 2018 matched to Tables 2-3")
INTREPID_LOG = NotComparable("the Intrepid log of June 2013", "an Intrepid-like synthetic June 2013 matched to "
                             "Tables 2-3")
ALL_LOGS = NotComparable("the Mira (June 2017, March 2018) and Intrepid (June 2013) logs",
                         "synthetic months matched to Tables 2-3")
LOG_RULE = {JUNE: JUNE_LOG, MARCH: MARCH_LOG, INTREPID: INTREPID_LOG}

NODES = "reservations on machines, as batsched (modelling choice 2)"
RELEASE = "a restarted job's release is its resubmission (modelling choice 1)"
T5A = "Table 5a read as the share of the time with a node idle (modelling choice 4)"
WINDOW = "utilization over days 11 to 30 (§5.3.3)"
PRUNE = "flows without the first and last 20 % of the jobs (§5.3.3)"
NO_FINAL = "ceil(L / P) - 1 checkpoints: none at a job's very end (§6.1)"
WHOLE_RUN = "utilization over the whole run (§6.3 names no window)"

CAMPAIGNS = {c.name: c for c in (
    Campaign(STEAL, {"seeds": 2}),
    Campaign(SYNTH),
    Campaign(SWEEP, {"seeds": 1, "platform_mtbf": [3600, 7200, 36000], "downtime": [600, 86400],
                     "source": [{"kind": "synthetic", "generator": "mira-like", "name": JUNE,
                                 "params": {"month": "2017-06"}}]}),
    Campaign(VARIANTS, {"seeds": 2, "policies": [BASE, "h111", "h112", "h113", "h121", "h211", "h311"],
                        "source": [{"kind": "synthetic", "generator": "mira-like", "name": JUNE,
                                    "params": {"month": "2017-06"}}]}),
)}


# ------------------------------------------------------------------ reading the rows

def _fail(r: Results, campaign: str, source: str, policy: str, *, mtbf: float | None = None,
          downtime: float | None = None) -> list[dict[str, Any]]:
    """The runs with failures of ``policy`` on ``source`` (one per seed, in seed order), at the
    platform MTBF ``mtbf`` and the downtime ``downtime`` (seconds) when given."""
    rows = [x for x in r.rows(campaign) if x["source"] == source and x["policy"] == policy
            and x["node_mtbf"] is not None
            and (mtbf is None or math.isclose(x["node_mtbf"], mtbf * x["nodes"], rel_tol=1e-9))
            and (downtime is None or math.isclose(x["downtime"], downtime))]
    if not rows:
        raise KeyError(f"{campaign} has no run with failures of {policy} on {source}")
    return sorted(rows, key=lambda x: x["seed_index"])


def _free(r: Results, campaign: str, source: str, policy: str = BASE) -> dict[str, Any]:
    """The failure-free run of ``policy`` on ``source``."""
    for x in r.rows(campaign):
        if x["source"] == source and x["policy"] == policy and x["node_mtbf"] is None:
            return x
    raise KeyError(f"{campaign} has no failure-free run of {policy} on {source}")


def _sources(r: Results, campaign: str, among: Sequence[str] = MONTHS) -> list[str]:
    """The sources of ``among`` that ``campaign`` ran, in that order (a quick grid runs fewer)."""
    ran = {x["source"] for x in r.rows(campaign)}
    out = [s for s in among if s in ran]
    if not out:
        raise KeyError(f"{campaign} ran none of {', '.join(among)}")
    return out


def _policies(r: Results, campaign: str) -> list[str]:
    return list(dict.fromkeys(x["policy"] for x in r.rows(campaign)))


def _settings(r: Results, campaign: str, source: str) -> list[tuple[float, float]]:
    """``(platform MTBF, downtime)`` of every failure setting of ``source``, sorted."""
    return sorted({(x["node_mtbf"] / x["nodes"], x["downtime"]) for x in r.rows(campaign)
                   if x["source"] == source and x["node_mtbf"] is not None})


def _util(x: dict[str, Any], part: str = "useful") -> float:
    """The fraction of the run's window spent in ``part`` (useful, idle, stealing, ...)."""
    return float(x["metrics"]["utilization"]["fractions"].get(part) or 0.0)


def _count(x: dict[str, Any], key: str) -> float:
    """A count or share of how failures were met (``steals``, ``replaced``, ``idle_time_share``, ...)."""
    return float(x["metrics"]["utilization"][key])


def _classes(x: dict[str, Any]) -> list[dict[str, Any]]:
    """The run's size classes that hold jobs, smallest first."""
    return [c for c in x["metrics"]["classes"] if c["count"]]


def _stat(x: dict[str, Any], label: str, which: str) -> float:
    """``which`` (``mean``, ``max``) flow of the class ``label`` of run ``x`` (``all``: every kept
    job; ``weighted``: the size-weighted mean)."""
    if label == "all":
        return float(x["metrics"]["flow"][which])
    if label == "weighted":
        return float(x["metrics"]["flow"]["weighted_mean"])
    for c in x["metrics"]["classes"]:
        if c["label"] == label and c["count"]:
            return float(c[which])
    raise KeyError(f"no job in the class {label}")


def _largest(x: dict[str, Any]) -> str:
    return _classes(x)[-1]["label"]


def _smallest(x: dict[str, Any]) -> str:
    return _classes(x)[0]["label"]


def _ci(xs: Iterable[float]) -> tuple[float, float]:
    """Mean and half-width of its 95 % Student-t interval (0 for one value)."""
    from coschedule.campaign.stats import student_ci

    mu, half = student_ci(list(xs))
    if math.isnan(mu):
        raise ValueError("no value to average")
    return mu, 0.0 if math.isnan(half) else half


def _mean(xs: Iterable[float]) -> float:
    return _ci(xs)[0]


def _paired(a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]], f: Callable[[dict[str, Any]], float],
            how: str = "ratio") -> list[float]:
    """``f`` of the runs of ``a`` over (``how = "ratio"``) or minus (``"diff"``) that of the
    runs of ``b`` with the same seed."""
    by = {x["seed_index"]: x for x in b}
    out = [f(x) / f(by[x["seed_index"]]) if how == "ratio" else f(x) - f(by[x["seed_index"]])
           for x in a if x["seed_index"] in by]
    if not out:
        raise ValueError("no seed in common")
    return out


def _versus(r: Results, campaign: str, source: str, f: Callable[[dict[str, Any]], float], policy: str = SFSJ,
            baseline: str = BASE, how: str = "ratio", **setting: float) -> tuple[float, float]:
    """``policy`` against ``baseline`` on ``source`` seed by seed (:func:`_paired`): mean and
    half-width."""
    return _ci(_paired(_fail(r, campaign, source, policy, **setting), _fail(r, campaign, source, baseline, **setting),
                       f, how))


def _of(r: Results, campaign: str, source: str, policy: str, f: Callable[[dict[str, Any]], float],
        **setting: float) -> tuple[float, float]:
    """``f`` over the seeds of ``policy`` on ``source``: mean and half-width."""
    return _ci(f(x) for x in _fail(r, campaign, source, policy, **setting))


def _workload(r: Results, campaign: str, source: str) -> Any:
    """The jobs of ``source`` as ``campaign`` ran them (drawn again from the spec's seed)."""
    from coschedule.reproduce.run import campaign_spec

    spec = campaign_spec(CAMPAIGNS[campaign], r.quick)
    for ref in spec.workloads():
        if ref.source == source:
            return ref.workload
    raise KeyError(f"{campaign} has no source {source}")


# ------------------------------------------------------------------ formatting

def _pct(x: float, digits: int = 2) -> str:
    return f"{100 * x:.{digits}f} %"


def _pm(mu: float, half: float, digits: int = 2) -> str:
    return f"{100 * mu:.{digits}f} ± {100 * half:.{digits}f} %" if half else _pct(mu, digits)


def _change(ratio: float) -> str:
    """A ratio as a change: ``0.83`` is ``-17 %``."""
    return f"{100 * (ratio - 1):+.1f} %"


def _days(s: float) -> str:
    return f"{s / DAY:.2f} d"


def _hours(s: float) -> str:
    return f"{s / HOUR:.1f} h"


def _duration(s: float) -> str:
    from coschedule.units import format_duration

    return format_duration(s)


def _holds(all_: bool, some: bool) -> bool | None:
    """``True`` when it holds everywhere, ``None`` in part, ``False`` nowhere."""
    return True if all_ else None if some else False


def _on_stand_in(text: str, holds: bool | None, **number: float) -> Measured:
    """What a claim on a log measures on its stand-in: ``text``, then whether the paper's
    statement holds there."""
    word = {True: "holds", None: "holds in part", False: "does not hold"}[holds]
    return Measured(f"{text} ({word} on the stand-in)", holds=holds, **number)
