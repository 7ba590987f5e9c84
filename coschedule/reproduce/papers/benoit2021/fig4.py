"""[Benoit2021] §5.2, Fig. 4: the shelf heuristics, R-ShelfFill's gain over R-Shelf (LPT) against
q̄ and against P."""

from __future__ import annotations

import math
from collections.abc import Callable

from coschedule.reproduce.claims import AtMost, Claim, Holds, Measured, Near
from coschedule.reproduce.results import Results

from .common import (
    ALG3,
    FIG4A,
    FIG4B,
    GAIN,
    PAIRS,
    QUEUE,
    X_VALUES,
    _curve,
    _pct,
    _per_set,
    _pm,
    _tally,
    _x,
    _xs,
)


def _gains(r: Results, campaign: str, shelf: str, fill: str) -> dict[float, float]:
    """The relative gain of ``fill`` over ``shelf`` (LPT) at each point."""
    a, b = _curve(r, campaign, shelf, "LPT"), _curve(r, campaign, fill, "LPT")
    return {x: (a[x].mean - b[x].mean) / a[x].mean for x in sorted(a)}


def _fill_better(r: Results) -> Measured:
    seen = better = worse = 0
    for campaign in (FIG4A, FIG4B):
        for shelf, fill in PAIRS.values():
            for g in _gains(r, campaign, shelf, fill).values():
                seen += 1
                better += g > 1e-9
                worse += g < -1e-3
    return Measured(f"R-ShelfFill's mean below R-Shelf's at {better} of {seen} points of Fig. 4 (B and NB), equal "
                    f"at {seen - better - worse}, more than 0.1 % above at {worse}",
                    holds=True if not worse and better else None if better else False)


def _gain_small_4a(r: Results) -> Measured:
    words, top = [], 0.0
    for flag, (shelf, fill) in PAIRS.items():
        gains = _gains(r, FIG4A, shelf, fill)
        q = max(gains, key=gains.__getitem__)
        top = max(top, gains[q])
        words.append(f"{flag}: {_pct(min(gains.values()))} to {_pct(gains[q])} (largest at q̄ = {q:g})")
    return Measured("gain at P = 10,000 over q̄: " + "; ".join(words), value=top)


def _p10000_special(r: Results) -> Measured:
    words, dips = [], 0
    for flag, (shelf, fill) in PAIRS.items():
        gains = _gains(r, FIG4B, shelf, fill)
        xs = sorted(gains)
        k = xs.index(10000)
        lo, mid, hi = gains[xs[k - 1]], gains[10000], gains[xs[k + 1]]
        dips += mid < lo and mid < hi
        words.append(f"{flag}: {_pct(lo)} / {_pct(mid)} / {_pct(hi)}")
    return Measured(f"gain at P = {xs[k - 1]:,.0f} / 10,000 / {xs[k + 1]:,.0f}: " + "; ".join(words)
                    + "; it grows steadily with P" * (dips == 0), holds=_tally(dips, len(PAIRS)))


def _gain_off_10000(r: Results, flag: str, refill: str = "") -> tuple[float, float, str]:
    """The gain of R-ShelfFill-``flag`` (``refill``: its ``-failed`` or ``-queue`` reading) over
    R-Shelf-``flag``, averaged over the P values but 10,000 (§5.2), with its per-set interval."""
    from coschedule.campaign.stats import student_ci

    shelf, fill = PAIRS[flag]
    fill += refill
    gains = {x: g for x, g in _gains(r, FIG4B, shelf, fill).items() if x != 10000}
    mu = math.fsum(gains.values()) / len(gains)
    sets: dict[str, list[float]] = {}
    for x in gains:
        a, b = _per_set(r, FIG4B, shelf, "LPT", x), _per_set(r, FIG4B, fill, "LPT", x)
        for k in a:
            sets.setdefault(k, []).append((a[k] - b[k]) / a[k])
    _, half = student_ci([math.fsum(v) / len(v) for v in sets.values()])
    span = f"{_pct(gains[min(gains)])} at P = {min(gains):,.0f} to {_pct(gains[max(gains)])} at {max(gains):,.0f}"
    return mu, half, span


def _gain_4b(flag: str, refill: str = "") -> Callable[[Results], Measured]:
    def compute(r: Results) -> Measured:
        mu, half, span = _gain_off_10000(r, flag, refill)
        text = f"{_pm(mu, half)} on average over {len(_xs(r, FIG4B)) - 1} values of P ({span})"
        if not refill:
            failed, _, _ = _gain_off_10000(r, flag, "-failed")
            text += f"; §4.4's looser reading (refill = failed): {_pct(failed)}"
        return Measured(text, value=mu, half=half)

    return compute


def _best_shelf_max(r: Results) -> Measured:
    words, top = [], 0.0
    for campaign, panel in ((FIG4A, "(a)"), (FIG4B, "(b)")):
        curve = _curve(r, campaign, "r-shelffill-b", "LPT")
        x = max(curve, key=lambda v: curve[v].mean)
        top = max(top, curve[x].mean)
        words.append(f"{panel} {curve[x].mean:.3f} at {_x(campaign, x)}")
    return Measured("R-ShelfFill-B's largest mean: " + ", ".join(words), value=top)


CLAIMS = (
    # §5.2, Fig. 4
    Claim("fig4-fill-better", "§5.1-5.2, Fig. 4", "by construction R-ShelfFill-B (-NB) should be more efficient than "
          "R-Shelf-B (-NB), which §5.2 confirms", "R-ShelfFill better", _fill_better,
          Holds("R-ShelfFill's mean never more than 0.1 % above R-Shelf's, and below it somewhere"), (FIG4A, FIG4B),
          (ALG3,), figure="fig4", stable=True),
    Claim("fig4a-gain-small", "§5.2, Fig. 4(a)", "at P = 10000 the improvement of R-ShelfFill over R-Shelf "
          "\"seems small\"", "small", _gain_small_4a, AtMost(0.01, close=0.02), (FIG4A,), (ALG3,), figure="fig4",
          stable=True),
    Claim("fig4b-p10000-special", "§5.2, Fig. 4(b)", "P = 10000 is \"a particular value\" where R-ShelfFill and "
          "R-Shelf perform similarly", "a dip at P = 10,000", _p10000_special,
          Holds("the gain at P = 10,000 below the gains at its two neighbours, for B and NB"), (FIG4B,),
          (ALG3, X_VALUES), figure="fig4"),
    Claim("fig4b-nb-gain", "§5.2, Fig. 4(b)", "excluding P = 10000, R-ShelfFill-NB improves upon R-Shelf-NB by 4.9 % "
          "on average", "4.9 %", _gain_4b("NB"), Near(0.049, match=0.01, close=0.02), (FIG4B,), (ALG3, GAIN, X_VALUES),
          figure="fig4"),
    Claim("fig4b-b-gain", "§5.2, Fig. 4(b)", "excluding P = 10000, R-ShelfFill-B improves upon R-Shelf-B by 4.8 % on "
          "average", "4.8 %", _gain_4b("B"), Near(0.048, match=0.01, close=0.02), (FIG4B,), (ALG3, GAIN, X_VALUES),
          figure="fig4"),
    Claim("fig4b-nb-gain-queue", "§5.2, Fig. 4(b)", "the same 4.9 % (NB), with R-ShelfFill filling its shelves with "
          "any queued job", "4.9 %", _gain_4b("NB", "-queue"), Near(0.049, match=0.01, close=0.02), (FIG4B,),
          (QUEUE, GAIN, X_VALUES), figure="fig4b-refill"),
    Claim("fig4b-b-gain-queue", "§5.2, Fig. 4(b)", "the same 4.8 % (B), with R-ShelfFill filling its shelves with any "
          "queued job", "4.8 %", _gain_4b("B", "-queue"), Near(0.048, match=0.01, close=0.02), (FIG4B,),
          (QUEUE, GAIN, X_VALUES), figure="fig4b-refill"),
    Claim("fig4-best-max", "§5.2, Fig. 4", "the best shelf-based algorithm, R-ShelfFill-B, has a maximum normalized "
          "makespan of 1.2 in this set of experiments", "1.2", _best_shelf_max, Near(1.2, match=0.02, close=0.1),
          (FIG4A, FIG4B), (ALG3, X_VALUES), figure="fig4"),
)
