"""[Benoit2021] §5.3, Fig. 6: the five heuristics and seven priorities against P, with 6(f) (each
heuristic's best priority), its claims under kept reservations, and the 40 % bound of Figs. 5-6."""

from __future__ import annotations

from collections.abc import Callable

from coschedule.reproduce.claims import AtMost, Claim, Holds, Measured, Near
from coschedule.reproduce.results import Results

from .common import (
    ALG3,
    BEST,
    FIG5,
    FIG6,
    FIVE,
    FRESH,
    KEPT6,
    KEPT_READING,
    X_VALUES,
    _best,
    _curve,
    _every,
    _name,
    _pct,
    _ranked,
    _runs,
    _tally,
    _xs,
)
from .compare import _above, _best_everywhere, _rise_fall, _shelves_from, _within, _worst_at


def _two_best(r: Results) -> Measured:
    good, seen, words = 0, 0, []
    for h in FIVE:
        want = {"LPT", "SPT"} if h == "r-shelffill-nb" else {"LPT", "LA"}
        pairs = [(x, "+".join(_ranked(r, FIG6, h, x)[:2])) for x in _xs(r, FIG6)]
        seen += len(pairs)
        hits = [x for x, p in pairs if set(p.split("+")) == want]
        good += len(hits)
        words.append(f"{_name(h)}: " + _runs(FIG6, pairs))
    return Measured("the two best priorities: " + "; ".join(words), holds=_tally(good, seen))


def _la_r0_r1(r: Results) -> Measured:
    good, seen, words = 0, 0, []
    for h in FIVE:
        want = "LA" if h in ("r-list-0", "r-list-1") else "LPT"
        bests = [(x, _best(r, FIG6, h, x).priority) for x in _xs(r, FIG6)]
        seen += len(bests)
        good += sum(p == want for _, p in bests)
        words.append(f"{_name(h)}: " + _runs(FIG6, bests))
    return Measured("best priority: " + "; ".join(words), holds=_tally(good, seen))


def _variation(r: Results, campaign: str, h: str, prio: str | None = None) -> tuple[float, float, float]:
    """``(max - min) / min`` of ``h``'s means over the axis (``prio``, or its best priority at
    each point), with the min and max."""
    xs = _xs(r, campaign)
    ys = [(_curve(r, campaign, h, prio)[x] if prio else _best(r, campaign, h, x)).mean for x in xs]
    return max(ys) / min(ys) - 1.0, min(ys), max(ys)


def _r0_la_variation(campaign: str) -> Callable[[Results], Measured]:
    def compute(r: Results) -> Measured:
        v, lo, hi = _variation(r, campaign, "r-list-0", "LA")
        return Measured(f"R-List-0 with LA varies {_pct(v)} over P ({lo:.3f} to {hi:.3f})", value=v)

    return compute


def _r0_la_least(r: Results) -> Measured:
    vs = {h: _variation(r, FIG6, h)[0] for h in FIVE}
    vs["r-list-0"] = _variation(r, FIG6, "r-list-0", "LA")[0]
    least = min(vs, key=vs.__getitem__)
    return Measured("variation over P (best priority; R-List-0 with LA): "
                    + ", ".join(f"{_name(h)} {_pct(v)}" for h, v in vs.items()), holds=least == "r-list-0")


def _listq_variation(campaign: str, h: str, rivals: tuple[str, ...]) -> Callable[[Results], Measured]:
    def compute(r: Results) -> Measured:
        vs = {k: _variation(r, campaign, k)[0] for k in dict.fromkeys((h, *rivals))}
        v, lo, hi = _variation(r, campaign, h)
        top = max(vs, key=vs.__getitem__)
        return Measured(f"{_name(h)} varies {_pct(v)} ({lo:.3f} to {hi:.3f}); the largest variation: {_name(top)} "
                        f"{_pct(vs[top])}", value=v)

    return compute


CLAIMS = (
    # §5.3, Fig. 6
    Claim("fig6-two-best", "§5.3, Fig. 6(a)-(e)", "LA and LPT are the two best priority rules for all heuristics, "
          "except R-ShelfFill-NB where SPT is the second best", "LPT and LA (NB: LPT, SPT)", _two_best,
          Holds("the two best priorities are {LPT, LA} at every P ({LPT, SPT} for R-ShelfFill-NB)"), (FIG6,),
          (FRESH, ALG3, X_VALUES), figure="fig6"),
    Claim("fig6-la-r0-r1", "§5.3, Fig. 6(a)-(e)", "LA better for R-List-0 and R-List-1, LPT for the other heuristics, "
          "under all P", "LA: R-List-0, -1; LPT: others", _la_r0_r1,
          Holds("LA the best priority of R-List-0 and R-List-1, LPT of the other three, at every P"), (FIG6,),
          (FRESH, ALG3, X_VALUES), figure="fig6"),
    Claim("fig6-rise-fall", "§5.3, Fig. 6", "the normalized makespans first increase with the number of processors "
          "and then tend to decrease", "rise, then fall", _rise_fall(FIG6, FIVE),
          Holds("every curve (each heuristic and priority) peaks strictly inside the P range"), (FIG6,), (X_VALUES,),
          figure="fig6"),
    Claim("fig6-r0-la-best", "§5.3, Fig. 6(f)", "the best heuristic is R-List-0 with the LA priority",
          "R-List-0 LA best", _best_everywhere(FIG6, "r-list-0", FIVE[1:], _every, prio="LA"),
          Holds("R-List-0 with LA below every other heuristic (each its best priority) at every P"), (FIG6,),
          (FRESH, BEST, X_VALUES), figure="fig6"),
    Claim("fig6-r0-la-under-10", "§5.3, Fig. 6(f)", "R-List-0 with LA is the least impacted by the total number of "
          "processors, with < 10 % variations", "< 10 %", _r0_la_variation(FIG6), AtMost(0.10, close=0.05), (FIG6,),
          ("variation = (max - min) / min over P", X_VALUES), figure="fig6", stable=True),
    Claim("fig6-r0-la-least", "§5.3, Fig. 6(f)", "R-List-0 with LA is the least impacted by P", "least varying",
          _r0_la_least, Holds("R-List-0 with LA varies less over P than each other heuristic with its best priority"),
          (FIG6,), (FRESH, BEST, X_VALUES), figure="fig6"),
    Claim("fig6-listq-worst", "§5.3, Fig. 6(f)", "R-List-Q gives the worst performance", "R-List-Q worst",
          _worst_at(FIG6, "r-list-q", _every), Holds("R-List-Q (best priority) the highest of the five at every P"),
          (FIG6,), (FRESH, BEST, X_VALUES), figure="fig6"),
    Claim("fig6-listq-23", "§5.3, Fig. 6(f)", "R-List-Q: a 23 % increase in makespan compared to R-List-0 with LA "
          "when P = 15000", "23 %", _above(FIG6, "r-list-q", 15000, base_prio="LA"), Near(0.23, match=0.05, close=0.10),
          (FIG6,), (FRESH, BEST), figure="fig6"),
    Claim("fig6-listq-variation", "§5.3, Fig. 6(f)", "R-List-Q has the largest variation (~20 %) in normalized "
          "makespan as the number of processors changes", "~20 %", _listq_variation(FIG6, "r-list-q", FIVE),
          Near(0.20, match=0.05, close=0.10), (FIG6,), (FRESH, BEST, X_VALUES), figure="fig6"),
    Claim("fig6-kept-r0-best", "§5.3, Fig. 6(f)", "the best heuristic is R-List-0 with LA (with the authors' kept "
          "reservations)", "R-List-0 LA best",
          _best_everywhere(KEPT6, "r-list-0", ("r-list-1-kept", "r-list-q-kept"), _every, prio="LA"),
          Holds("R-List-0 with LA below R-List-1 (kept) and R-List-Q (kept), each its best of LPT and LA, at every P"),
          (KEPT6,), (KEPT_READING, "LPT and LA only", X_VALUES), figure="fig6-kept"),
    Claim("fig6-kept-listq-worst", "§5.3, Fig. 6(f)", "R-List-Q gives the worst performance (with kept reservations)",
          "R-List-Q worst", _worst_at(KEPT6, "r-list-q-kept", _every, _shelves_from(FIG6, KEPT6),
                                      ("r-list-0", "r-list-1-kept", "r-list-q-kept")),
          Holds("R-List-Q (kept) above R-List-0, R-List-1 (kept) and both shelf heuristics (Fig. 6, same sets) at "
                "every P"), (KEPT6, FIG6), (KEPT_READING, ALG3, BEST, X_VALUES), figure="fig6-kept"),
    Claim("fig6-kept-listq-23", "§5.3, Fig. 6(f)", "R-List-Q 23 % above R-List-0 with LA when P = 15000 (with kept "
          "reservations)", "23 %", _above(KEPT6, "r-list-q-kept", 15000, base_prio="LA"),
          Near(0.23, match=0.05, close=0.10), (KEPT6,), (KEPT_READING, "LPT and LA only"), figure="fig6-kept"),
    Claim("fig6-kept-listq-variation", "§5.3, Fig. 6(f)", "R-List-Q's variation of ~20 % over P (with kept "
          "reservations)", "~20 %", _listq_variation(KEPT6, "r-list-q-kept", ("r-list-0", "r-list-1-kept")),
          Near(0.20, match=0.05, close=0.10), (KEPT6,), (KEPT_READING, "LPT and LA only", X_VALUES),
          figure="fig6-kept"),
    Claim("fig5-6-within-40", "§5.3, Figs. 5-6", "the makespans of all the heuristics (with good priorities) are "
          "never more than 40 % worse than the theoretical lower bound", "<= 1.4", _within((FIG5, FIG6)),
          AtMost(1.40, close=0.10), (FIG5, FIG6), (BEST,), figure="fig5", stable=True),
)
