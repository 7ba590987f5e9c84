"""[Benoit2021] §5: the shared pieces of the reproduction: the campaigns' names, the notes of the
claims, and the helpers reading the rows and summary groups along an axis (§5.1's metric)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from coschedule.reproduce.results import Results

FIG4A, FIG4B, FIG5, FIG6 = "fig4a", "fig4b-refill", "fig5", "fig6"
KEPT, KEPT6 = "kept", "benoit2021-fig6-kept"
KTH, LANL, LANL_KEPT, TRACES = "table1-kth", "table1-lanl", "table1-lanl-kept", "benoit2021-fig7-8"
LISTS = ("r-list-0", "r-list-1", "r-list-q")
SHELVES = ("r-shelffill-b", "r-shelffill-nb")
FIVE = LISTS + SHELVES
#: R-Shelf and R-ShelfFill of each backfilling flag (Fig. 4)
PAIRS = {"B": ("r-shelf-b", "r-shelffill-b"), "NB": ("r-shelf-nb", "r-shelffill-nb")}
SHELF4 = ("r-shelf-b", "r-shelf-nb", "r-shelffill-b", "r-shelffill-nb")
TRACE_NAMES = {"KTH-SP2": "KTH", "LANL-CM5": "LANL"}

FRESH = "R-List-1 and R-List-Q: a fresh reservation round at every completion (§4.1; NOTE 1)"
KEPT_READING = "R-List-1 and R-List-Q with kept reservations (the authors' simulator; NOTE 1)"
ALG3 = "R-ShelfFill re-runs only the job that just failed (Alg. 3, refill = own; modelling choice 10)"
QUEUE = "R-ShelfFill with refill = queue: any queued job fills a shelf (not the paper's)"
GAIN = "gain = (R-Shelf - R-ShelfFill) / R-Shelf of the means over the sets, averaged over P"
BEST = "each heuristic with its best priority at each point"
X_VALUES = "P values not given by the paper"
DAY_STATS = "std and max over the days of the per-day means (our reading of Table 1)"
MIRA = "the Mira logs of June 2019 (30 day-sets, P = 49,152)"
STAND_IN = "the first 30 days of KTH-SP2 (P = 100) and LANL-CM5 (P = 1,024), the same protocol"


# ------------------------------------------------------------------ reading the groups

def _name(h: str) -> str:
    """The paper's name of a heuristic (``R-List-Q (kept)``)."""
    from coschedule.campaign.report import pretty_heuristic

    return pretty_heuristic(h)


def _axis(campaign: str) -> str:
    """The axis a campaign varies: ``P`` for Figs. 4(b) and 6, else ``qbar``."""
    return "P" if campaign in (FIG4B, FIG6, KEPT6) else "qbar"


def _curve(r: Results, campaign: str, h: str, prio: str, source: str | None = None) -> dict[float, Any]:
    """The groups of ``h`` with ``prio`` along the campaign's axis (of one ``source`` of a trace
    campaign)."""
    axis = _axis(campaign)
    return {getattr(g, axis): g for g in r.groups(campaign)
            if g.heuristic == h and g.priority == prio and (source is None or g.source == source)}


def _xs(r: Results, campaign: str) -> list[float]:
    axis = _axis(campaign)
    return sorted({getattr(g, axis) for g in r.groups(campaign)})


def _priorities(r: Results, campaign: str) -> list[str]:
    from coschedule.campaign.report import PRIORITY_ORDER

    return sorted({g.priority for g in r.groups(campaign)}, key=PRIORITY_ORDER.index)


def _at(r: Results, campaign: str, x: float, source: str | None = None) -> dict[tuple[str, str], Any]:
    """Every group at ``x`` on the campaign's axis, by ``(heuristic, priority)``."""
    axis = _axis(campaign)
    return {(g.heuristic, g.priority): g for g in r.groups(campaign)
            if getattr(g, axis) == x and (source is None or g.source == source)}


def _best(r: Results, campaign: str, h: str, x: float, source: str | None = None) -> Any:
    """``h``'s group of lowest mean at ``x`` over the campaign's priorities."""
    return min((g for (hh, _), g in _at(r, campaign, x, source).items() if hh == h), key=lambda g: g.mean)


def _overall_best(r: Results, campaign: str, h: str) -> str:
    """``h``'s priority of lowest mean over the axis (the one of Figs. 5(f) and 6(f))."""
    means = {p: math.fsum(g.mean for g in _curve(r, campaign, h, p).values()) for p in _priorities(r, campaign)}
    return min(means, key=means.__getitem__)


def _ranked(r: Results, campaign: str, h: str, x: float, source: str | None = None) -> list[str]:
    """``h``'s priorities at ``x``, best first."""
    gs = [g for (hh, _), g in _at(r, campaign, x, source).items() if hh == h]
    return [g.priority for g in sorted(gs, key=lambda g: g.mean)]


def _per_set(r: Results, campaign: str, h: str, prio: str, x: float, source: str | None = None) -> dict[str, float]:
    """Each instance's mean normalised makespan for ``h`` with ``prio`` at ``x``."""
    axis = "P_grid" if _axis(campaign) == "P" else "qbar"
    return {row["instance"]: row["mean_ratio"] for row in r.rows(campaign)
            if row["heuristic"] == h and row["priority"] == prio and row[axis] == x
            and (source is None or row["source"] == source)}


def _excess(r: Results, a: tuple[str, str, str, float], b: tuple[str, str, str, float]) -> tuple[float, float]:
    """How much ``a`` is above ``b`` (each ``(campaign, heuristic, priority, x)``): the ratio of
    their means over the sets minus 1, and the 95 % half-width of the per-set ratios over the
    sets they share."""
    from coschedule.campaign.stats import student_ci

    sa, sb = _per_set(r, *a), _per_set(r, *b)
    common = sorted(set(sa) & set(sb))
    if not common:
        raise ValueError(f"{a[0]} and {b[0]} share no job set")
    ratio = math.fsum(sa[k] for k in common) / math.fsum(sb[k] for k in common) - 1.0
    _, half = student_ci([sa[k] / sb[k] - 1.0 for k in common])
    return ratio, 0.0 if math.isnan(half) else half


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _pm(mu: float, half: float) -> str:
    return f"{100 * mu:.1f} ± {100 * half:.1f} %"


def _x(campaign: str, x: float) -> str:
    return f"P = {x:,.0f}" if _axis(campaign) == "P" else f"q̄ = {x:g}"


def _tally(good: int, seen: int) -> bool | None:
    """``True`` when every case holds, ``None`` (in part) when some do, ``False`` when none."""
    return True if good == seen else None if good else False


def _peaks_inside(ys: Sequence[float]) -> bool:
    """The curve rises to a maximum strictly inside its range, then falls."""
    k = max(range(len(ys)), key=ys.__getitem__)
    return 0 < k < len(ys) - 1


def _runs(campaign: str, labelled: Sequence[tuple[float, str]]) -> str:
    """``LPT up to q̄ = 0.3, LA from 0.4``: a label per run of consecutive points."""
    out: list[list[Any]] = []
    for x, label in labelled:
        if out and out[-1][0] == label:
            out[-1][2] = x
        else:
            out.append([label, x, x])
    if len(out) == 1:
        return f"{out[0][0]} everywhere"
    fmt = (lambda v: f"{v:,.0f}") if _axis(campaign) == "P" else (lambda v: f"{v:g}")
    return ", ".join(f"{label} at {fmt(a)}" if a == b else f"{label} {fmt(a)}-{fmt(b)}" for label, a, b in out)


def _best_means(r: Results, campaign: str, x: float, heuristics: Iterable[str] = FIVE) -> dict[str, Any]:
    return {h: _best(r, campaign, h, x) for h in heuristics}


# ------------------------------------------------------------------ the points a claim reads

def _low(q: float) -> bool:
    return 0 < q <= 0.3


def _medium_high(q: float) -> bool:
    return q >= 0.4


def _positive(q: float) -> bool:
    return q > 0


def _every(_: float) -> bool:
    return True
