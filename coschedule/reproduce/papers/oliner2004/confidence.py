"""[Oliner2004] §7.2, Figs. 6-8: Balancing against the prediction confidence at two loads, on NASA
and the stand-ins for SDSC and LLNL."""

from __future__ import annotations

import math
from collections.abc import Iterable
from itertools import pairwise
from typing import Any

from coschedule.reproduce.claims import Claim, Holds, Measured, Near
from coschedule.reproduce.results import Results

from .common import (
    C0,
    C1,
    CONF,
    KTH,
    LOGS,
    LUBLIN,
    MEDIAN,
    NASA,
    ON_NASA,
    ON_THREE,
    OTHER_TRACES,
    PAPER_LOG,
    PRED,
    SYSTEM,
    _change,
    _curve_text,
    _find,
    _groups,
    _holds,
    _improvements,
    _median,
    _median_text,
    _num,
    _params,
    _pct,
    _pm,
    _slow,
)


def _first_10(r: Results) -> Measured:
    gs = _groups(r, CONF)
    words, flags = [], []
    for log in LOGS:
        imps = _improvements(gs, log, C0, "balancing")
        first = next(imp for a, imp, _ in imps if math.isclose(a, 0.1))
        best = max(imp for _, imp, _ in imps)
        share = first / best if best > 0 else math.nan
        flags.append(best > 0 and share >= 0.8)
        words.append(f"{log} {_pct(-first)} at a = 0.1, best {_pct(-best)}"
                     + (f" ({100 * share:.0f} % of it)" if best > 0 else " (no gain)"))
    return Measured("c = 1.0: " + "; ".join(words), holds=_holds(flags))


def _load_70_80(r: Results) -> Measured:
    gs = _groups(r, CONF)
    curves = {log: _improvements(gs, log, C1, "balancing") for log in LOGS}
    mu, half = _median(curves[NASA])
    text = (f"c = 1.2, Balancing vs FCFS: NASA {_curve_text(curves[NASA])} ({_median_text(mu, half)}); "
            + "; ".join(f"{log} (for {PAPER_LOG[log]}) {_curve_text(curves[log])}" for log in (KTH, LUBLIN)))
    return Measured(text, value=mu, half=half)


def _load_compare(r: Results) -> tuple[list[str], list[bool]]:
    """Balancing's median improvement on each log at c = 1.0 and 1.2, and whether it is smaller at 1.2."""
    gs = _groups(r, CONF)
    words, smaller = [], []
    for log in LOGS:
        lo, hi = (_median(_improvements(gs, log, c, "balancing"))[0] for c in (C0, C1))
        smaller.append(hi < lo)
        words.append(f"{log} {_pct(-lo)} -> {_pct(-hi)}")
    return words, smaller


def _load_far_more(r: Results) -> Measured:
    words, smaller = _load_compare(r)
    return Measured("Balancing's median change vs FCFS, c = 1.0 -> 1.2 (other traces): " + ", ".join(words),
                    holds=_holds([not s for s in smaller]))


def _load_reduces(r: Results) -> Measured:
    words, smaller = _load_compare(r)
    return Measured("Balancing's median change vs FCFS, c = 1.0 -> 1.2 (other traces): " + ", ".join(words),
                    holds=_holds(smaller))


def _panels(r: Results, campaign: str, policy: str) -> Iterable[tuple[str, float, list[tuple[float, Any]]]]:
    """Each log and load's curve ``[(a, group)]``, FCFS at ``a = 0``."""
    gs = _groups(r, campaign)
    for log in LOGS:
        for c in (C0, C1):
            yield log, c, [(0.0, _find(gs, log, c, "fcfs"))] + [(a, _find(gs, log, c, policy, a))
                                                                  for a in _params(gs, log, c, policy)]


def _not_continuous(r: Results) -> Measured:
    rises = []
    for log, c, curve in _panels(r, CONF, "balancing"):
        for (a, g), (b, h) in pairwise(curve):
            if _slow(h) > 1.05 * _slow(g):
                rises.append(f"{log} c = {c:.1f}: {_num(_slow(g))} -> {_num(_slow(h))} from a = {a:g} to {b:g}")
    return Measured("slowdown rises with the confidence: " + ("; ".join(rises) if rises else "nowhere (by > 5 %)"),
                    holds=bool(rises))


def _small_helps(r: Results) -> Measured:
    gs = _groups(r, CONF)
    words, flags = [], []
    for log in LOGS:
        for c in (C0, C1):
            mu, half = _change(_find(gs, log, c, "balancing", 0.1))
            flags.append(mu <= -0.10 and mu + half < 0)
            words.append(f"{log} c = {c:.1f} {_pm(mu, half)}")
    return Measured("Balancing a = 0.1 vs FCFS: " + ", ".join(words), holds=_holds(flags))


def _waits(r: Results) -> Measured:
    gs = _groups(r, CONF)
    words, flags = [], []
    for log in LOGS:
        for c in (C0, C1):
            top = _params(gs, log, c, "balancing")[-1]
            lo, hi = _find(gs, log, c, "balancing", 0.1), _find(gs, log, c, "balancing", top)
            flags.append(hi.mean("mean_wait") > lo.mean("mean_wait"))
            words.append(f"{log} c = {c:.1f} {_num(lo.mean('mean_wait'))} -> {_num(hi.mean('mean_wait'))} s")
    return Measured("Balancing's mean wait, a = 0.1 -> the largest a: " + ", ".join(words), holds=_holds(flags))


def _more_useful(r: Results) -> Measured:
    words, flags, partial = [], [], []
    for log, c, curve in _panels(r, CONF, "balancing"):
        if c != C1 or log == KTH:  # Figs. 7 (b) and 8 (b): NASA and LLNL at high load
            continue
        util = [g.mean("utilized") for _, g in curve]
        first = next(g.mean("utilized") for a, g in curve if math.isclose(a, 0.1))
        flags.append(util[-1] - util[0] > 0.005 and util[-1] - first > 0.005)
        partial.append(util[-1] - util[0] > 0.005)
        words.append(f"{log} " + " -> ".join(f"{u:.3f}" for u in util))
    holds = True if all(flags) else None if any(partial) else False
    return Measured("c = 1.2, utilized share from FCFS over the confidences: " + "; ".join(words), holds=holds)


#: §7.2: Balancing, Figs. 6-8
CLAIMS = (
    Claim("fig6-first-10", "§7.2, Fig. 6", "\"maximum improvement for standard load would happen within the first "
          "10 % of prediction confidence\"", "most of the gain at a = 0.1", _first_10,
          Holds("on each log at c = 1.0, a = 0.1 reaches at least 80 % of the best improvement over the confidences"),
          PRED, ON_THREE, figure="fig6"),
    Claim("fig6-load-70-80", "§7.2, Fig. 6", "at c = 1.2 \"20 % increase in load would result in 70 – 80 % "
          "improvement\" for similar confidence levels", "70-80 %", _load_70_80, Near(0.75, match=0.05, close=0.20),
          PRED, (*SYSTEM, ON_NASA, MEDIAN), figure="fig6"),
    Claim("fig6-load-far-more", "§7.2, Fig. 6", "for higher loads (c = 1.2) \"the improvements are far more "
          "significant\"", "larger at c = 1.2", _load_far_more,
          Holds("Balancing's median improvement larger at c = 1.2 than at c = 1.0 on each log"), PRED,
          (*ON_THREE, MEDIAN, OTHER_TRACES), figure="fig6"),
    Claim("fig6-not-continuous", "§7.2, Fig. 6", "\"the performance of the job scheduler does not necessarily show a "
          "continuous improvement as the predictor confidence increases\"", "not monotone", _not_continuous,
          Holds("on some log and load, the slowdown rises by more than 5 % from one confidence to the next"),
          PRED, ON_THREE, figure="fig6", stable=True),
    Claim("fig6-small-confidence", "§7.2, Fig. 6", "\"little correlation between the value of the confidence and the "
          "overall performance\": \"even a small confidence prediction level can significantly improve\" it",
          "a = 0.1 improves", _small_helps,
          Holds("Balancing a = 0.1 at least 10 % better than FCFS (its interval below 0) on each log and load"),
          PRED, ON_THREE, figure="fig6"),
    Claim("fig6-high-confidence-waits", "§7.2, Fig. 6", "\"when the prediction confidence level is very high, the "
          "algorithm would make the jobs wait longer in order to select stable partitions\"", "longer waits",
          _waits, Holds("Balancing's mean wait longer at the largest confidence than at a = 0.1, on each log and "
                        "load"), PRED, ON_THREE, figure="fig6"),
    Claim("fig78-more-useful", "§7.2, Figs. 7 (b), 8 (b)", "\"for systems with high load, as the confidence of the "
          "balancing scheduler increases, more and more wasted work is converted to useful work\"",
          "utilized share rises with a", _more_useful,
          Holds("at c = 1.2 the utilized share rises by more than 0.005 from FCFS to the largest confidence, and "
                "from a = 0.1 to it, on NASA and lublin_256 (in part: from FCFS only)"), PRED,
          (*SYSTEM, "judged on NASA (Fig. 7) and lublin_256 (for LLNL, Fig. 8)"), figure="fig7"),
    Claim("fig78-load-reduces", "§7.2, Figs. 7-8", "\"as we introduce high load (c = 1.2), the benefit of prediction "
          "to scheduling gets reduced\" (fewer free partitions)", "smaller gains at c = 1.2", _load_reduces,
          Holds("Balancing's median improvement smaller at c = 1.2 than at c = 1.0 on each log"), PRED,
          (*ON_THREE, MEDIAN, OTHER_TRACES), figure="fig6"),
)
