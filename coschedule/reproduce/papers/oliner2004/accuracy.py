"""[Oliner2004] §7.3, Figs. 9-10: Tie-breaking against the prediction accuracy, and against
Balancing at the same parameter."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

from coschedule.reproduce.claims import Claim, Holds, Measured, Near
from coschedule.reproduce.results import Results

from .common import (
    ACC,
    ACCS,
    C0,
    C1,
    CONF,
    KTH,
    LOGS,
    LUBLIN,
    MEDIAN,
    NASA,
    ON_THREE,
    OTHER_TRACES,
    SYSTEM,
    _change,
    _curve_text,
    _find,
    _groups,
    _holds,
    _improvements,
    _llnl,
    _median,
    _median_text,
    _num,
    _params,
    _pm,
    _sdsc,
    _slow,
)


def _tiebreak_gain(log: str) -> Callable[[Results], Measured]:
    def compute(r: Results) -> Measured:
        imps = _improvements(_groups(r, ACC), log, C0, "tiebreak")
        mu, half = _median(imps)
        return Measured(f"{log}, c = 1.0, Tie-breaking vs FCFS: {_curve_text(imps)}; {_median_text(mu, half)}",
                        value=mu, half=half)

    return compute


def _degradation(r: Results) -> Measured:
    gs = _groups(r, ACC)
    words, flags = [], []
    for log in (NASA, LUBLIN):
        low = [a for a in _params(gs, log, C1, "tiebreak") if a <= 0.2 + 1e-9]
        for a in low:
            mu, half = _change(_find(gs, log, C1, "tiebreak", a))
            if log == NASA:
                flags.append(mu > 0)
            words.append(f"{log} a = {a:g}: {_pm(mu, half)}")
    if not flags:
        raise KeyError("no Tie-breaking run on NASA at c = 1.2 with an accuracy of 0.2 or less")
    return Measured("c = 1.2, Tie-breaking vs FCFS at low accuracy: " + ", ".join(words), holds=_holds(flags))


def _tiebreak_load_shift(r: Results) -> Measured:
    gs = _groups(r, ACC)
    words, flags = [], []
    for log in LOGS:
        for a in _params(gs, log, C0, "tiebreak"):
            lo, hi = _find(gs, log, C0, "tiebreak", a), _find(gs, log, C1, "tiebreak", a)
            flags.append(hi.mean("utilized") > lo.mean("utilized"))
        top = _params(gs, log, C0, "tiebreak")[-1]
        lo, hi = _find(gs, log, C0, "tiebreak", top), _find(gs, log, C1, "tiebreak", top)
        words.append(f"{log} {lo.mean('utilized'):.3f} -> {hi.mean('utilized'):.3f} (a = {top:g})")
    return Measured("Tie-breaking's utilized share, c = 1.0 -> 1.2 (other traces): " + ", ".join(words),
                    holds=_holds(flags))


def _pairs(r: Results) -> Iterable[tuple[str, float, float, Any, Any]]:
    """``(log, c, a, balancing group, tie-breaking group)`` at every parameter both ran."""
    conf, acc = _groups(r, CONF), _groups(r, ACC)
    for log in LOGS:
        for c in (C0, C1):
            for a in sorted(set(_params(conf, log, c, "balancing")) & set(_params(acc, log, c, "tiebreak"))):
                yield log, c, a, _find(conf, log, c, "balancing", a), _find(acc, log, c, "tiebreak", a)


def _less_useful(r: Results) -> Measured:
    flags, words = [], []
    for log, c, a, bal, tb in _pairs(r):
        flags.append(tb.mean("lost") >= bal.mean("lost") - 0.002)
        if math.isclose(a, 0.9):
            words.append(f"{log} c = {c:.1f}: {tb.mean('lost'):.3f} vs {bal.mean('lost'):.3f}")
    return Measured(f"lost share, Tie-breaking vs Balancing at the same a: at least Balancing's in {sum(flags)} of "
                    f"{len(flags)} cases (a = 0.9: " + "; ".join(words) + ")", holds=_holds(flags))


def _worst_case(r: Results) -> Measured:
    flags, better = [], []
    for log, c, a, bal, tb in _pairs(r):
        flags.append(_slow(tb) >= _slow(bal))
        if not flags[-1]:
            better.append(f"{log} c = {c:.1f} a = {a:g} ({_num(_slow(tb))} vs {_num(_slow(bal))})")
    return Measured(f"Tie-breaking's slowdown at least Balancing's at the same a in {sum(flags)} of {len(flags)} "
                    "cases" + (f"; below it: {', '.join(better)}" if better else ""), holds=_holds(flags))


#: §7.3: Tie-breaking, Figs. 9-10
CLAIMS = (
    Claim("fig9-sdsc-60-70", "§7.3, Fig. 9 (a)", "at c = 1.0 Tie-breaking improves SDSC's bounded slowdown by 60 to "
          "70 %", "60-70 %", _tiebreak_gain(KTH), _sdsc(), ACCS, (*SYSTEM, MEDIAN), figure="fig9"),
    Claim("fig9-nasa-20", "§7.3, Fig. 9 (b)", "at c = 1.0 Tie-breaking improves NASA's bounded slowdown by 20 %",
          "20 %", _tiebreak_gain(NASA), Near(0.20, match=0.10, close=0.25), ACCS, (*SYSTEM, MEDIAN), figure="fig9"),
    Claim("fig9-llnl-50", "§7.3, Fig. 9 (c)", "at c = 1.0 Tie-breaking improves LLNL's bounded slowdown by 50 %",
          "50 %", _tiebreak_gain(LUBLIN), _llnl(), ACCS, (*SYSTEM, MEDIAN), figure="fig9"),
    Claim("fig9-load-degradation", "§7.3, Fig. 9", "at c = 1.2 \"the NASA and LLNL job logs show initial degradation "
          "(within accuracy levels of 10 to 20 %)\"", "worse than FCFS at a ≤ 0.2", _degradation,
          Holds("on NASA at c = 1.2, Tie-breaking's slowdown above FCFS's at every accuracy ≤ 0.2 run"), ACCS,
          (*SYSTEM, "judged on NASA (lublin_256 for LLNL shown)"), figure="fig9"),
    Claim("fig9-worst-case", "§7.3, Fig. 9", "using false negatives only, Tie-breaking represents the \"overall "
          "worst-possible scenario in terms of performance improvement\"", "below Balancing", _worst_case,
          Holds("Tie-breaking's slowdown at least Balancing's at the same parameter, on every log and load"),
          ACCS, ON_THREE, figure="fig9"),
    Claim("fig10-load-shift", "§7.3, Fig. 10", "with Tie-breaking as with Balancing, a higher load shifts \"the system "
          "utilization for higher useful work\"", "more used at c = 1.2", _tiebreak_load_shift,
          Holds("Tie-breaking's utilized share higher at c = 1.2 than at c = 1.0 at every accuracy, on each log"),
          ACCS, (*ON_THREE, OTHER_TRACES), figure="fig10"),
    Claim("fig10-less-than-balancing", "§7.3, Figs. 7, 8, 10", "\"the improvements in useful work through the use of "
          "tie-breaking algorithm are not as significant as\" Balancing's", "smaller than Balancing's", _less_useful,
          Holds("Tie-breaking loses at least as much capacity as Balancing (within 0.002) on every log, load and "
                "parameter"), ACCS, ON_THREE, figure="fig10"),
)
