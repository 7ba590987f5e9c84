"""[Benoit2021] §5.3, Fig. 5: the five heuristics and seven priorities against q̄, with 5(f) (each
heuristic's best priority) and its claims under the authors' kept reservations."""

from __future__ import annotations

from collections.abc import Callable

from coschedule.reproduce.claims import AtMost, Claim, Holds, Measured, Near
from coschedule.reproduce.results import Results

from .common import (
    ALG3,
    BEST,
    FIG5,
    FIVE,
    FRESH,
    KEPT,
    KEPT_READING,
    LISTS,
    SHELVES,
    _best,
    _best_means,
    _curve,
    _low,
    _medium_high,
    _name,
    _pct,
    _positive,
    _priorities,
    _runs,
    _tally,
    _xs,
)
from .compare import _above, _best_everywhere, _rise_fall, _shelves_from, _worst_at


def _shelf_decrease(r: Results) -> Measured:
    exceptions, seen, good, lpt = [], 0, 0, []
    for h in SHELVES:
        for prio in _priorities(r, FIG5):
            curve = _curve(r, FIG5, h, prio)
            xs = sorted(curve)
            ys = [curve[x].mean for x in xs]
            top = xs[max(range(len(ys)), key=ys.__getitem__)]
            if prio == "LPT":
                lpt.append(f"{_name(h)} peaks at q̄ = {top:g}")
                continue
            seen += 1
            if top == xs[0] and ys[-1] < ys[0]:
                good += 1
            else:
                exceptions.append(f"{_name(h)} {prio} (peak at q̄ = {top:g})")
    text = (f"{good} of {seen} non-LPT curves highest at q̄ = 0 and falling; exceptions: "
            + (", ".join(exceptions) or "none") + "; with LPT " + ", ".join(lpt))
    return Measured(text, holds=_tally(good, seen))


def _best_in(campaign: str, heuristics: tuple[str, ...], allowed: tuple[str, ...]) -> Callable[[Results], Measured]:
    """At every point, the best priority of each of ``heuristics`` is one of ``allowed``."""

    def compute(r: Results) -> Measured:
        good, seen, words = 0, 0, []
        for h in heuristics:
            bests = [(x, _best(r, campaign, h, x).priority) for x in _xs(r, campaign)]
            seen += len(bests)
            good += sum(p in allowed for _, p in bests)
            words.append(f"{_name(h)}: " + _runs(campaign, bests))
        return Measured("best priority: " + "; ".join(words), holds=_tally(good, seen))

    return compute


def _lpt_low_la_r0(r: Results) -> Measured:
    xs = _xs(r, FIG5)
    low = min(x for x in xs if x > 0)
    checks, words = [], []
    r0 = [x for x in xs if _curve(r, FIG5, "r-list-0", "LA")[x].mean < _curve(r, FIG5, "r-list-0", "LPT")[x].mean]
    checks.append(len(r0) == len(xs))
    words.append(f"R-List-0: LA below LPT at {len(r0)} of {len(xs)} q̄")
    for h in ("r-list-1", "r-list-q"):
        lpt, la = _curve(r, FIG5, h, "LPT"), _curve(r, FIG5, h, "LA")
        checks.append(lpt[low].mean < la[low].mean)
        words.append(f"{_name(h)}: " + _runs(FIG5, [(x, "LPT" if lpt[x].mean < la[x].mean else "LA") for x in xs]))
    return Measured("; ".join(words) + f" (low q̄ checked: {low:g})", holds=_tally(sum(checks), len(checks)))


def _no_failure_similar(r: Results) -> Measured:
    g = _best_means(r, FIG5, 0.0, LISTS)
    spread = max(v.mean for v in g.values()) - min(v.mean for v in g.values())
    return Measured("at q̄ = 0: " + ", ".join(f"{_name(h)} {v.mean:.3f} ({v.priority})" for h, v in g.items())
                    + f"; spread {spread:.3f}", value=spread)


def _increase(r: Results, campaign: str, h: str) -> tuple[float, float]:
    """``h``'s largest rise over q̄ = 0 (its best priority at each q̄), and where."""
    xs = _xs(r, campaign)
    base = _best(r, campaign, h, xs[0]).mean
    x = max(xs, key=lambda v: _best(r, campaign, h, v).mean)
    return _best(r, campaign, h, x).mean / base - 1.0, x


def _r0_under_10(r: Results) -> Measured:
    rise, x = _increase(r, FIG5, "r-list-0")
    return Measured(f"R-List-0 rises {_pct(rise)} at most (q̄ = {x:g}, against q̄ = 0)", value=rise)


def _r0_least_affected(r: Results) -> Measured:
    rises = {h: _increase(r, FIG5, h)[0] for h in FIVE}
    least = min(rises, key=rises.__getitem__)
    return Measured("largest rise over q̄ = 0: " + ", ".join(f"{_name(h)} {_pct(v)}" for h, v in rises.items()),
                    holds=least == "r-list-0")


def _others_rise(campaign: str, heuristics: tuple[str, ...], target: float) -> Callable[[Results], Measured]:
    """The rises of ``heuristics`` over q̄ = 0; the value is the one farthest from ``target``."""

    def compute(r: Results) -> Measured:
        rises = {h: _increase(r, campaign, h) for h in heuristics}
        far = max(rises, key=lambda h: abs(rises[h][0] - target))
        return Measured("largest rise over q̄ = 0: " + ", ".join(f"{_name(h)} {_pct(v)} (q̄ = {x:g})"
                                                                  for h, (v, x) in rises.items()),
                        value=rises[far][0])

    return compute


CLAIMS = (
    # §5.3, Fig. 5
    Claim("fig5-list-rise-fall", "§5.3, Fig. 5(a)-(c)", "for all list-based heuristics, the normalized makespans "
          "first increase with q̄ and then decrease", "rise, then fall", _rise_fall(FIG5, LISTS),
          Holds("every list heuristic's curve, each priority, peaks strictly inside the q̄ range"), (FIG5,), (FRESH,),
          figure="fig5"),
    Claim("fig5-shelf-decrease", "§5.3, Fig. 5(d)-(e)", "for the shelf-based heuristics, the normalized makespans "
          "decrease with q̄ (except with LPT)", "decrease, but LPT", _shelf_decrease,
          Holds("every non-LPT curve of both shelf heuristics highest at q̄ = 0 and lower at the largest q̄"), (FIG5,),
          (ALG3,), figure="fig5"),
    Claim("fig5-list-lpt-la", "§5.3, Fig. 5(a)-(c)", "LPT and LA lead to the best performance for all list-based "
          "heuristics", "LPT or LA best", _best_in(FIG5, LISTS, ("LPT", "LA")),
          Holds("each list heuristic's best priority is LPT or LA at every q̄"), (FIG5,), (FRESH,), figure="fig5",
          stable=True),
    Claim("fig5-lpt-low-la-r0", "§5.3, Fig. 5(a)-(c)", "LPT better when q̄ is low for R-List-1 and R-List-Q, LA "
          "better for R-List-0 under any q̄", "LPT low (R-List-1, -Q); LA (R-List-0)", _lpt_low_la_r0,
          Holds("R-List-0: LA below LPT at every q̄; R-List-1 and R-List-Q: LPT below LA at the lowest q̄ > 0"),
          (FIG5,), (FRESH,), figure="fig5", stable=True),
    Claim("fig5-shelf-lpt", "§5.3, Fig. 5(d)-(e)", "for the shelf-based heuristics, LPT is the best priority",
          "LPT best", _best_in(FIG5, SHELVES, ("LPT",)),
          Holds("LPT the best priority of both shelf heuristics at every q̄"), (FIG5,), (ALG3,), figure="fig5"),
    Claim("fig5f-no-failure-similar", "§5.3, Fig. 5(f)", "most list-based heuristics behave similarly when there is "
          "no failure (q̄ = 0)", "similar", _no_failure_similar, AtMost(0.02, close=0.05), (FIG5,), (BEST,),
          figure="fig5", stable=True),
    Claim("fig5f-r0-best", "§5.3, Fig. 5(f)", "R-List-0 clearly outperforms the rest when jobs can fail",
          "R-List-0 best for q̄ > 0", _best_everywhere(FIG5, "r-list-0", FIVE[1:], _positive),
          Holds("R-List-0 (best priority) below the four others (each its best) at every q̄ > 0"), (FIG5,),
          (FRESH, BEST), figure="fig5"),
    Claim("fig5f-r0-under-10", "§5.3, Fig. 5(f)", "R-List-0's normalized makespan increases by less than 10 % compared "
          "to q̄ = 0", "< 10 %", _r0_under_10, AtMost(0.10, close=0.05), (FIG5,), (BEST,), figure="fig5", stable=True),
    Claim("fig5f-r0-least-affected", "§5.3, Fig. 5(f)", "R-List-0 is the heuristic least affected by job failures",
          "least affected", _r0_least_affected, Holds("R-List-0's largest rise over q̄ = 0 the smallest of the five"),
          (FIG5,), (FRESH, BEST), figure="fig5"),
    Claim("fig5f-others-20-30", "§5.3, Fig. 5(f)", "the other heuristics experience a 20-30 % increase in normalized "
          "makespan", "20-30 %", _others_rise(FIG5, FIVE[1:], 0.25), Near(0.25, match=0.05, close=0.10), (FIG5,),
          (FRESH, ALG3, BEST), figure="fig5"),
    Claim("fig5f-nb-worst-small", "§5.3, Fig. 5(f)", "R-ShelfFill-NB appears to be the worst heuristic for small "
          "failure probabilities", "worst for small q̄", _worst_at(FIG5, "r-shelffill-nb", _low),
          Holds("R-ShelfFill-NB (best priority) the highest of the five at every 0 < q̄ <= 0.3"), (FIG5,), (ALG3, BEST),
          figure="fig5", stable=True),
    Claim("fig5f-nb-18", "§5.3, Fig. 5(f)", "R-ShelfFill-NB's makespan up to 18 % higher than R-List-0's when "
          "q̄ = 0.3", "18 %", _above(FIG5, "r-shelffill-nb", 0.3), Near(0.18, match=0.02, close=0.05), (FIG5,),
          (ALG3, BEST), figure="fig5", stable=True),
    Claim("fig5f-listq-worst", "§5.3, Fig. 5(f)", "R-List-Q is the worst for medium and high probabilities",
          "worst for q̄ >= 0.4", _worst_at(FIG5, "r-list-q", _medium_high),
          Holds("R-List-Q (best priority) the highest of the five at every q̄ >= 0.4"), (FIG5,), (FRESH, BEST),
          figure="fig5"),
    Claim("fig5f-listq-26", "§5.3, Fig. 5(f)", "R-List-Q's makespan up to 26 % higher than R-List-0's when q̄ = 0.5",
          "26 %", _above(FIG5, "r-list-q", 0.5), Near(0.26, match=0.05, close=0.10), (FIG5,), (FRESH, BEST),
          figure="fig5"),
    Claim("fig5f-kept-r0-best", "§5.3, Fig. 5(f)", "R-List-0 clearly outperforms the rest when jobs can fail (with "
          "the authors' kept reservations)", "R-List-0 best for q̄ > 0",
          _best_everywhere(KEPT, "r-list-0", ("r-list-1-kept", "r-list-q-kept"), _positive),
          Holds("R-List-0 below R-List-1 (kept) and R-List-Q (kept), each its best of LPT and LA, at every q̄ > 0"),
          (KEPT,), (KEPT_READING, "LPT and LA only"), figure="fig5-kept", stable=True),
    Claim("fig5f-kept-others-20-30", "§5.3, Fig. 5(f)", "the other heuristics experience a 20-30 % increase (R-List-1 "
          "and R-List-Q with kept reservations)", "20-30 %",
          _others_rise(KEPT, ("r-list-1-kept", "r-list-q-kept"), 0.25), Near(0.25, match=0.05, close=0.10), (KEPT,),
          (KEPT_READING, "LPT and LA only"), figure="fig5-kept"),
    Claim("fig5f-kept-listq-26", "§5.3, Fig. 5(f)", "R-List-Q up to 26 % higher than R-List-0 when q̄ = 0.5 (with "
          "kept reservations)", "26 %", _above(KEPT, "r-list-q-kept", 0.5), Near(0.26, match=0.05, close=0.10),
          (KEPT,), (KEPT_READING, "LPT and LA only"), figure="fig5-kept"),
    Claim("fig5f-kept-listq-worst", "§5.3, Fig. 5(f)", "R-List-Q is the worst for medium and high probabilities "
          "(with kept reservations)", "worst for q̄ >= 0.4",
          _worst_at(KEPT, "r-list-q-kept", _medium_high, _shelves_from(FIG5, KEPT),
                    ("r-list-0", "r-list-1-kept", "r-list-q-kept")),
          Holds("R-List-Q (kept) above R-List-0, R-List-1 (kept) and both shelf heuristics (Fig. 5, same sets) at "
                "every q̄ >= 0.4"), (KEPT, FIG5), (KEPT_READING, ALG3, BEST), figure="fig5-kept"),
)
