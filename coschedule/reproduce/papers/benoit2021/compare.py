"""[Benoit2021] §5.3: the claims' computations shared by Figs. 5 and 6, comparing the heuristics
point by point along the axis (peaks, the best and the worst heuristic, the excess over R-List-0)."""

from __future__ import annotations

import math
from collections.abc import Callable

from coschedule.reproduce.claims import Measured
from coschedule.reproduce.results import Results

from .common import (
    FIVE,
    SHELVES,
    _best,
    _best_means,
    _curve,
    _excess,
    _name,
    _overall_best,
    _peaks_inside,
    _per_set,
    _pm,
    _priorities,
    _tally,
    _x,
    _xs,
)


def _rise_fall(campaign: str, heuristics: tuple[str, ...]) -> Callable[[Results], Measured]:
    """Every curve of ``heuristics`` (each priority) peaks strictly inside the axis's range; the
    text names the peak of each heuristic's best priority and of every curve that does not."""

    def compute(r: Results) -> Measured:
        words, good, seen = [], 0, 0
        for h in heuristics:
            peaks, best = [], _overall_best(r, campaign, h)
            for prio in _priorities(r, campaign):
                curve = _curve(r, campaign, h, prio)
                xs = sorted(curve)
                ys = [curve[x].mean for x in xs]
                seen += 1
                good += _peaks_inside(ys)
                if prio == best or not _peaks_inside(ys):
                    peaks.append(f"{prio} {_x(campaign, xs[max(range(len(ys)), key=ys.__getitem__)])}")
            words.append(f"{_name(h)}: " + ", ".join(peaks))
        return Measured(f"{good} of {seen} curves peak inside the range (peaks: " + "; ".join(words) + ")",
                        holds=_tally(good, seen))

    return compute


def _best_everywhere(campaign: str, winner: str, rivals: tuple[str, ...], keep: Callable[[float], bool],
                     prio: str | None = None) -> Callable[[Results], Measured]:
    """``winner`` (with ``prio``, or its best priority) below every rival (each with its best
    priority) at every point kept."""

    def compute(r: Results) -> Measured:
        wins, xs, words = 0, [x for x in _xs(r, campaign) if keep(x)], []
        for x in xs:
            w = _curve(r, campaign, winner, prio)[x] if prio else _best(r, campaign, winner, x)
            others = {h: _best(r, campaign, h, x) for h in rivals}
            first = min(others, key=lambda h: others[h].mean)
            won = w.mean < others[first].mean
            wins += won
            words.append(f"{_x(campaign, x)}: {w.mean:.3f}" + (" best" if won else
                         f" vs {_name(first)} {others[first].mean:.3f} ({others[first].priority})"))
        return Measured(f"{_name(winner)}{' ' + prio if prio else ''} best at {wins} of {len(xs)} points: "
                        + "; ".join(words), holds=_tally(wins, len(xs)))

    return compute


def _worst_at(campaign: str, loser: str, keep: Callable[[float], bool],
              extra: Callable[[Results, float], dict[str, float]] | None = None,
              heuristics: tuple[str, ...] = FIVE) -> Callable[[Results], Measured]:
    """``loser`` (its best priority) has the highest mean of ``heuristics`` (each its best) at
    every point kept; ``extra`` adds rivals' means from another campaign."""

    def compute(r: Results) -> Measured:
        xs = [x for x in _xs(r, campaign) if keep(x)]
        hits, words = 0, []
        for x in xs:
            means = {h: g.mean for h, g in _best_means(r, campaign, x, heuristics).items()}
            if extra is not None:
                means.update(extra(r, x))
            worst = max(means, key=means.__getitem__)
            hits += worst == loser
            words.append(f"{_x(campaign, x)}: worst {_name(worst)} {means[worst]:.3f}"
                         + ("" if worst == loser else f" ({_name(loser)} {means[loser]:.3f})"))
        return Measured(f"{_name(loser)} the worst at {hits} of {len(xs)} points: " + "; ".join(words),
                        holds=_tally(hits, len(xs)))

    return compute


def _above(campaign: str, h: str, x: float, base: str = "r-list-0", base_prio: str | None = None,
           base_campaign: str | None = None) -> Callable[[Results], Measured]:
    """How much ``h`` (its best priority at ``x``) is above ``base`` (``base_prio`` or its best),
    per set on the same sets."""

    def compute(r: Results) -> Measured:
        bc = base_campaign or campaign
        g = _best(r, campaign, h, x)
        b = _curve(r, bc, base, base_prio)[x] if base_prio else _best(r, bc, base, x)
        ratio, half = _excess(r, (campaign, h, g.priority, x), (bc, base, b.priority, x))
        return Measured(f"{_pm(ratio, half)} at {_x(campaign, x)} ({_name(h)} {g.priority} {g.mean:.3f}, "
                        f"{_name(base)} {b.priority} {b.mean:.3f})", value=ratio, half=half)

    return compute


def _shelves_from(campaign: str, sets_of: str) -> Callable[[Results, float], dict[str, float]]:
    """The shelf heuristics' best means in ``campaign`` (Fig. 5 or 6) at a point, over the job
    sets of campaign ``sets_of`` (a kept campaign, which may run fewer sets)."""

    def extra(r: Results, x: float) -> dict[str, float]:
        keep = set(_per_set(r, sets_of, "r-list-0", "LPT", x))
        out = {}
        for h in SHELVES:
            means = []
            for prio in _priorities(r, campaign):
                s = _per_set(r, campaign, h, prio, x)
                means.append(math.fsum(s[k] for k in keep) / len(keep))
            out[h] = min(means)
        return out

    return extra


def _within(campaigns: tuple[str, ...]) -> Callable[[Results], Measured]:
    """The largest mean of any heuristic with its best priority, over every point."""

    def compute(r: Results) -> Measured:
        top = max(((_best(r, c, h, x), c, x) for c in campaigns for x in _xs(r, c) for h in FIVE),
                  key=lambda t: t[0].mean)
        g, c, x = top
        return Measured(f"largest mean {g.mean:.3f} ({_name(g.heuristic)} {g.priority}, {c}, {_x(c, x)})",
                        value=g.mean)

    return compute
