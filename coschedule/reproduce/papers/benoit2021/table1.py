"""[Benoit2021] §5.4: Table 1 and Figs. 7-8 on two traces of the Parallel Workloads Archive (stand-ins
for the Mira logs), and the closing summary on R-List-0 over every experiment of §5."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from coschedule.reproduce.claims import AtMost, Claim, Measured, NotComparable
from coschedule.reproduce.results import Results

from .common import (
    ALG3,
    BEST,
    DAY_STATS,
    FIG5,
    FIG6,
    FIVE,
    FRESH,
    KEPT_READING,
    KTH,
    LANL,
    LANL_KEPT,
    LISTS,
    MIRA,
    SHELVES,
    STAND_IN,
    TRACE_NAMES,
    TRACES,
    _at,
    _axis,
    _best,
    _curve,
    _name,
    _per_set,
    _ranked,
    _tally,
    _x,
    _xs,
)


def _trace_groups(r: Results, campaign: str) -> dict[tuple[str, float, str], Any]:
    """A Table 1 campaign's LPT groups by ``(heuristic, qbar, source)``."""
    return {(g.heuristic, g.qbar, g.source): g for g in r.groups(campaign) if g.priority == "LPT"}


def _settings_mira(r: Results) -> Measured:
    words = []
    for campaign in (KTH, LANL):
        rows = [row for row in r.rows(campaign) if row["heuristic"] == "r-list-0" and row["qbar"] == 0.0]
        ns = [row["n"] for row in rows]
        words.append(f"{rows[0]['source']}: {len(ns)} days, {sum(ns) / len(ns):.1f} jobs per day "
                     f"({min(ns)}-{max(ns)}), P = {rows[0]['P']:,}")
    return Measured("; ".join(words))


def _failures(r: Results) -> Measured:
    words = []
    for campaign in (KTH, LANL):
        gs = _trace_groups(r, campaign)
        src = next(iter(gs))[2]
        words.append(f"{src}: " + ", ".join(f"{g.failures:.1f} at q̄ = {q:g}" for (h, q, _), g in gs.items()
                                             if h == "r-list-0" and q > 0))
    return Measured("; ".join(words))


def _table1_row(q: float) -> Callable[[Results], Measured]:
    def compute(r: Results) -> Measured:
        words = []
        for campaign in (KTH, LANL):
            gs = _trace_groups(r, campaign)
            src = next(iter(gs))[2]
            words.append(f"{TRACE_NAMES.get(src, src)}: " + " ".join(f"{gs[(h, q, src)].mean:.3f}" for h in FIVE))
        return Measured("averages (R-List-0, -1, -Q, R-ShelfFill-B, -NB): " + "; ".join(words))

    return compute


def _trace_stat(stat: str, heuristics: tuple[str, ...], pick: Callable[[Iterable[float]], float],
                label: str) -> Callable[[Results], Measured]:
    """``pick`` (max or min) of ``stat`` of ``heuristics`` over each trace's q̄ values."""

    def compute(r: Results) -> Measured:
        words, every = [], []
        for campaign in (KTH, LANL):
            gs = _trace_groups(r, campaign)
            vals = [getattr(g, stat) for (h, _, _), g in gs.items() if h in heuristics]
            every += vals
            src = next(iter(gs))[2]
            words.append(f"{TRACE_NAMES.get(src, src)} {min(vals):.3f}-{max(vals):.3f}")
        return Measured(f"{label}: " + ", ".join(words), value=pick(every))

    return compute


def _shelf_worse(r: Results) -> Measured:
    good, seen, words = 0, 0, []
    for campaign in (KTH, LANL):
        gs = _trace_groups(r, campaign)
        src = next(iter(gs))[2]
        for q in sorted({k[1] for k in gs}):
            lists = max(gs[(h, q, src)].mean for h in LISTS)
            shelves = min(gs[(h, q, src)].mean for h in SHELVES)
            seen += 1
            good += shelves > lists
            if q == 0:
                words.append(f"{TRACE_NAMES.get(src, src)} at q̄ = 0: lists {lists:.3f} at most, shelves {shelves:.3f} "
                             "at least")
    return Measured("; ".join(words) + f"; shelves worse at {good} of {seen} rows", holds=_tally(good, seen))


def _r0_best_traces(campaign: str, rivals: tuple[str, ...]) -> Callable[[Results], Measured]:
    """R-List-0 below each list rival (LPT) when q̄ > 0: by the days' mean, and day by day."""

    def compute(r: Results) -> Measured:
        words, good, seen = [], 0, 0
        for src in dict.fromkeys(g.source for g in r.groups(campaign)):
            for q in sorted({g.qbar for g in r.groups(campaign) if g.qbar > 0}):
                r0 = _per_set(r, campaign, "r-list-0", "LPT", q, src)
                others = {h: _per_set(r, campaign, h, "LPT", q, src) for h in rivals}
                mean0 = math.fsum(r0.values()) / len(r0)
                best = min(others, key=lambda h: math.fsum(others[h].values()))
                meanb = math.fsum(others[best].values()) / len(others[best])
                days = sum(all(r0[d] < o[d] - 1e-12 for o in others.values()) for d in r0)
                seen += 1
                good += mean0 < meanb
                words.append(f"{TRACE_NAMES.get(src, src)} q̄ = {q:g}: R-List-0 {mean0:.3f}, {_name(best)} {meanb:.3f}; "
                             f"R-List-0 best on {days} of {len(r0)} days")
        return Measured("; ".join(words), holds=_tally(good, seen))

    return compute


def _traces_lpt_la(r: Results) -> Measured:
    words, good, seen = [], 0, 0
    for src in dict.fromkeys(g.source for g in r.groups(TRACES)):
        for q in sorted({g.qbar for g in r.groups(TRACES)}):
            tops = [_ranked(r, TRACES, h, q, src)[0] for h in FIVE]
            seen += len(tops)
            good += sum(p in ("LPT", "LA") for p in tops)
            below = ties = total = 0
            for h in FIVE:
                la = _per_set(r, TRACES, h, "LA", q, src)
                for d, v in _per_set(r, TRACES, h, "LPT", q, src).items():
                    total += 1
                    below += v < la[d] - 1e-12
                    ties += abs(v - la[d]) <= 1e-12
            words.append(f"{TRACE_NAMES.get(src, src)} q̄ = {q:g}: best {', '.join(tops)}; LPT below LA on {below}, "
                         f"equal on {ties} of {total} heuristic-days")
    return Measured("; ".join(words), holds=_tally(good, seen))


def _traces_similar(r: Results) -> Measured:
    words, good, seen = [], 0, 0
    for src in dict.fromkeys(g.source for g in r.groups(TRACES)):
        qs = sorted({g.qbar for g in r.groups(TRACES)})
        spreads = []
        for q in (qs[0], qs[-1]):
            at = _at(r, TRACES, q, src)
            spreads.append(max(max(at[(h, p)].mean for p in ("LPT", "LA", "HPA"))
                               - min(at[(h, p)].mean for p in ("LPT", "LA", "HPA")) for h in FIVE))
        seen += 1
        good += spreads[1] < spreads[0]
        words.append(f"{TRACE_NAMES.get(src, src)}: LPT/LA/HPA spread {spreads[0]:.3f} at q̄ = {qs[0]:g}, "
                     f"{spreads[1]:.3f} at q̄ = {qs[-1]:g}")
    return Measured("; ".join(words), holds=_tally(good, seen))


def _traces_r0_best_shelfb_worst(r: Results) -> Measured:
    words, good, seen = [], 0, 0
    for src in dict.fromkeys(g.source for g in r.groups(TRACES)):
        q = max(g.qbar for g in r.groups(TRACES))
        means = {h: _best(r, TRACES, h, q, src).mean for h in FIVE}
        best, worst = min(means, key=means.__getitem__), max(means, key=means.__getitem__)
        seen += 2
        good += (best == "r-list-0") + (worst == "r-shelffill-b")
        words.append(f"{TRACE_NAMES.get(src, src)} q̄ = {q:g} (best priorities): best {_name(best)} {means[best]:.3f}, "
                     f"worst {_name(worst)} {means[worst]:.3f}")
    return Measured("; ".join(words), holds=_tally(good, seen))


def _r0_overall(stat: str) -> Callable[[Results], Measured]:
    """R-List-0 with LPT or LA over every experiment: the mean of its means on the synthetic
    figures (``mean``), or its worst case (``max``: the largest mean of one job set, Table 1's
    "maximum makespan ratio"; the worst single scenario is shown beside it)."""

    def compute(r: Results) -> Measured:
        if stat == "mean":
            ms = [_curve(r, c, "r-list-0", "LA")[x].mean for c in (FIG5, FIG6) for x in _xs(r, c)]
            traces = [g.mean for c in (KTH, LANL) for g in r.groups(c) if g.heuristic == "r-list-0"]
            mu = math.fsum(ms) / len(ms)
            return Measured(f"R-List-0 with LA: {mu:.3f} on average over Figs. 5 and 6 ({min(ms):.3f}-{max(ms):.3f}); "
                            f"LPT on the traces {min(traces):.3f}-{max(traces):.3f}", value=mu)
        gs = [(c, g) for c in (FIG5, FIG6, KTH, LANL) for g in r.groups(c)
              if g.heuristic == "r-list-0" and g.priority in ("LPT", "LA")]
        c, g = max(gs, key=lambda t: t[1].max)
        cw, w = max(gs, key=lambda t: t[1].worst)
        return Measured(f"largest mean of one job set: {g.max:.3f} ({g.priority}, {c}, {_where(c, g)}); worst single "
                        f"scenario {w.worst:.3f} ({w.priority}, {cw}, {_where(cw, w)})", value=g.max)

    return compute


def _where(campaign: str, g: Any) -> str:
    return _x(campaign, g.P if _axis(campaign) == "P" else g.qbar)


CLAIMS = (
    # §5.4, Table 1 and Figs. 7-8 (the Mira logs are not available)
    Claim("table1-days", "§5.1, §5.4", "Mira, June 2019: 4699 jobs in 30 day-sets, 66 to 277 jobs a day, 157.63 on "
          "average", "157.63 jobs a day", _settings_mira, NotComparable(MIRA, STAND_IN), (KTH, LANL)),
    Claim("table1-failures", "§5.4, Table 1", "the average number of failures rises to around 15 and 254 at q̄ = 0.05 "
          "and 0.1", "15.29, 254.45", _failures, NotComparable(MIRA, STAND_IN), (KTH, LANL)),
    Claim("table1-row-0", "§5.4, Table 1", "average makespan ratio at q̄ = 0 (R-List-0, -1, -Q, R-ShelfFill-B, -NB)",
          "1.067 1.051 1.051 1.407 1.441", _table1_row(0.0), NotComparable(MIRA, STAND_IN), (KTH, LANL),
          (FRESH, ALG3)),
    Claim("table1-row-0.05", "§5.4, Table 1", "average makespan ratio at q̄ = 0.05", "1.031 1.049 1.061 1.105 1.117",
          _table1_row(0.05), NotComparable(MIRA, STAND_IN), (KTH, LANL), (FRESH, ALG3)),
    Claim("table1-row-0.1", "§5.4, Table 1", "average makespan ratio at q̄ = 0.1", "1.016 1.025 1.028 1.052 1.054",
          _table1_row(0.1), NotComparable(MIRA, STAND_IN), (KTH, LANL), (FRESH, ALG3)),
    Claim("table1-list-near-1", "§5.4, Table 1", "all list-based heuristics have good average makespan ratios very "
          "close to 1", "1.016-1.067", _trace_stat("mean", LISTS, max, "list averages"),
          NotComparable(MIRA, STAND_IN), (KTH, LANL), (FRESH,)),
    Claim("table1-list-std-low", "§5.4, Table 1", "with low standard deviations", "0.045-0.088",
          _trace_stat("std", LISTS, max, "list standard deviations over the days"), NotComparable(MIRA, STAND_IN),
          (KTH, LANL), (FRESH, DAY_STATS)),
    Claim("table1-list-max-1.5", "§5.4, Table 1", "good maximum makespan ratios lower than 1.5",
          "< 1.5 (1.425 at most)",
          _trace_stat("max", LISTS, max, "list maxima over the days"), NotComparable(MIRA, STAND_IN), (KTH, LANL),
          (FRESH, DAY_STATS)),
    Claim("table1-shelf-worse", "§5.4, Table 1", "the two shelf-based heuristics have worse performance, even when "
          "failures are not present", "shelves worse", _shelf_worse, NotComparable(MIRA, STAND_IN), (KTH, LANL),
          (FRESH, ALG3)),
    Claim("table1-max-80", "§5.4, Table 1", "the maximum makespans are never more than 80 % above the lower bound",
          "<= 1.8 (1.760 at most)", _trace_stat("max", FIVE, max, "maxima over the days"),
          NotComparable(MIRA, STAND_IN), (KTH, LANL), (FRESH, ALG3, DAY_STATS)),
    Claim("table1-r0-best", "§5.4, Table 1", "R-List-0 again performs the best (q̄ > 0)", "R-List-0 best",
          _r0_best_traces(LANL, ("r-list-1", "r-list-q")), NotComparable(MIRA, "LANL-CM5 (KTH-SP2: the three lists "
                                                                                  "tie within 0.001)"),
          (LANL,), (FRESH,)),
    Claim("table1-kept-r0-best", "§5.4, Table 1", "R-List-0 again performs the best (q̄ > 0), with the authors' kept "
          "reservations", "R-List-0 best", _r0_best_traces(LANL_KEPT, ("r-list-1-kept", "r-list-q-kept")),
          NotComparable(MIRA, "LANL-CM5"), (LANL_KEPT,), (KEPT_READING,)),
    Claim("fig7-8-lpt-la", "§5.4, Figs. 7-8", "the LPT and LA priorities again offer the best performance, with LPT "
          "better for most job sets, for every heuristic on average", "LPT, then LA", _traces_lpt_la,
          NotComparable(MIRA, STAND_IN), (TRACES,), (FRESH, ALG3), figure="fig7-8-kth"),
    Claim("fig7-8-similar", "§5.4, Figs. 7-8", "as the failure probability increases, LPT and LA (and even HPA) give "
          "similar performance", "similar at q̄ = 0.1", _traces_similar, NotComparable(MIRA, STAND_IN), (TRACES,),
          (FRESH, ALG3), figure="fig7-8-lanl"),
    Claim("fig7-8-r0-best-shelfb-worst", "§5.4, Figs. 7-8", "R-List-0 again performs the best and R-ShelfFill-B the "
          "worst, especially at q̄ = 0.1", "R-List-0 best, R-ShelfFill-B worst", _traces_r0_best_shelfb_worst,
          NotComparable(MIRA, STAND_IN), (TRACES,), (FRESH, ALG3, BEST), figure="fig7-8-lanl"),
    # §5.4, last paragraph: R-List-0 over every experiment
    Claim("summary-r0-average", "§5.4, last paragraph", "R-List-0 achieves a makespan within a few percent of the "
          "lower bound on average", "a few percent", _r0_overall("mean"), AtMost(1.10, close=0.05),
          (FIG5, FIG6, KTH, LANL), ("LA on the synthetic sets, LPT on the traces",), figure="fig5", stable=True),
    Claim("summary-r0-worst", "§5.4, last paragraph", "R-List-0 is never more than 50 % above the lower bound in the "
          "worst case", "<= 1.5", _r0_overall("worst"), AtMost(1.50, close=0.10), (FIG5, FIG6, KTH, LANL),
          ("the worst case = the largest mean of one job set (Table 1's maximum, our reading)",), figure="fig5",
          stable=True),
)
