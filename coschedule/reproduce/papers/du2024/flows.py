"""[Du2024] §6.1.2 and §9: the flows of SFSJ and Baseline at MTBF = downtime = 1 h, per job size
(Figs. 4-8)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from coschedule.reproduce.claims import Claim, Measured
from coschedule.reproduce.results import Results

from .baseline import _ff_small_lower, _hurt, _small_max_improves
from .common import (
    ALL_LOGS,
    BASE,
    DAY,
    INTREPID,
    INTREPID_LOG,
    JUNE,
    JUNE_LOG,
    MARCH,
    MARCH_LOG,
    MIRA,
    MIRA_LOG,
    NODES,
    PRUNE,
    SFSJ,
    SHORT,
    STEAL,
    _change,
    _ci,
    _days,
    _fail,
    _free,
    _holds,
    _hours,
    _largest,
    _mean,
    _of,
    _on_stand_in,
    _paired,
    _smallest,
    _sources,
    _stat,
    _versus,
)

# ------------------------------------------------------------------ §6.1.2: flows (Figs. 6-8; §9)

def _large_max(sources: Sequence[str]) -> Callable[[Results], Measured]:
    """SFSJ's maximum flow of the largest class over Baseline's, per month."""

    def compute(r: Results) -> Measured:
        ratios = {}
        for s in _sources(r, STEAL, sources):
            label = _largest(_free(r, STEAL, s))
            ratios[s] = (label, *_versus(r, STEAL, s, lambda x, k=label: _stat(x, k, "max")))
        return _on_stand_in("SFSJ / Baseline, maximum flow of the largest class: " + ", ".join(
            f"{SHORT[s]} {k} {_change(mu)} ± {100 * h:.0f} %" for s, (k, mu, h) in ratios.items()),
            _holds(all(v[1] < 1 for v in ratios.values()), any(v[1] < 1 for v in ratios.values())),
            value=next(iter(ratios.values()))[1])

    return compute


def _small_overhead(r: Results) -> Measured:
    words, up = [], []
    for s in _sources(r, STEAL, MIRA):
        label = _smallest(_free(r, STEAL, s))
        ratios = {w: _versus(r, STEAL, s, lambda x, k=label, w=w: _stat(x, k, w))[0] for w in ("max", "mean")}
        up += [mu > 1 for mu in ratios.values()]
        words.append(f"{SHORT[s]} {label} maximum {_change(ratios['max'])}, mean {_change(ratios['mean'])}")
    return _on_stand_in("SFSJ / Baseline, the smallest class: " + "; ".join(words), _holds(all(up), any(up)))


def _small_factor(r: Results) -> Measured:
    label = _smallest(_free(r, STEAL, MARCH))
    ratios = _paired(_fail(r, STEAL, MARCH, SFSJ), _fail(r, STEAL, MARCH, BASE), lambda x: _stat(x, label, "max"))
    mu, half = _ci(ratios)
    return _on_stand_in(f"SFSJ / Baseline, maximum flow of {label} in March: x{mu:.2f} ± {half:.2f} (largest seed "
                        f"x{max(ratios):.2f})", max(ratios) >= 2, value=mu, half=half)


def _orders(r: Results) -> Measured:
    words, ratios = [], []
    for s in _sources(r, STEAL, MIRA):
        ff = _free(r, STEAL, s)
        small, large = _smallest(ff), _largest(ff)
        for pol in (BASE, SFSJ):
            runs = _fail(r, STEAL, s, pol)
            q = _mean(_stat(x, large, "max") for x in runs) / _mean(_stat(x, small, "max") for x in runs)
            ratios.append(q)
            words.append(f"{SHORT[s]} {pol} x{q:.0f}")
    least = min(ratios)
    return _on_stand_in("the largest class's maximum flow over the smallest class's: " + ", ".join(words),
                        _holds(least >= 100, least >= 10), value=least)


def _intrepid_medium(r: Results) -> Measured:
    ff = _free(r, STEAL, INTREPID)
    medium, large = _smallest(ff), _largest(ff)
    rise, half = _versus(r, STEAL, INTREPID, lambda x: _stat(x, medium, "mean"))
    m = _mean(_stat(x, medium, "mean") for x in _fail(r, STEAL, INTREPID, SFSJ))
    big = _mean(_stat(x, large, "mean") for x in _fail(r, STEAL, INTREPID, SFSJ))
    return _on_stand_in(f"SFSJ / Baseline, mean flow of {medium}: {_change(rise)} ± {100 * half:.0f} %; under SFSJ "
                        f"{_hours(m)} against {_hours(big)} for {large}", _holds(rise > 1.2 and 2 * m <= big,
                                                                                  rise > 1 and 2 * m <= big),
                        value=rise, half=half)


def _overall(label: str, want_up: bool) -> Callable[[Results], Measured]:
    """SFSJ's ``label`` flow (``all``: mean, ``weighted``) over Baseline's per month; holds when
    it rises (``want_up``) or falls in every month."""

    def compute(r: Results) -> Measured:
        ratios = {s: _versus(r, STEAL, s, lambda x: _stat(x, label, "mean")) for s in _sources(r, STEAL)}
        ok = [(mu > 1) == want_up for mu, _ in ratios.values()]
        name = "weighted mean flow" if label == "weighted" else "mean flow"
        return _on_stand_in(f"SFSJ / Baseline, {name}: " + ", ".join(
            f"{SHORT[s]} {_change(mu)} ± {100 * h:.0f} %" for s, (mu, h) in ratios.items()), _holds(all(ok), any(ok)))

    return compute


def _june_flows(small: bool) -> Callable[[Results], Measured]:
    """§9's numbers: the maximum flow of the largest (or smallest) class in June, Baseline -> SFSJ."""

    def compute(r: Results) -> Measured:
        ff = _free(r, STEAL, JUNE)
        label = _smallest(ff) if small else _largest(ff)
        b = _of(r, STEAL, JUNE, BASE, lambda x: _stat(x, label, "max"))
        s = _of(r, STEAL, JUNE, SFSJ, lambda x: _stat(x, label, "max"))
        return _on_stand_in(f"{label}: {_days(b[0])} -> {_days(s[0])}", s[0] > b[0] if small else s[0] < b[0],
                            value=s[0] / DAY, half=s[1] / DAY)

    return compute


CLAIMS = (
    # §6.1.2: flows
    Claim("fig4-ff-small", "§6.1.2, Fig. 4", 'without failures, the jobs under 128 nodes "typically have a much lower '
          'flow" than larger ones', "much lower", _ff_small_lower, MARCH_LOG, (STEAL,), (NODES, PRUNE),
          figure="fig4"),
    Claim("fig4-large-hurt", "§6.1.2, Fig. 4", "with failures, the flows grow far more, relatively, for the larger "
          "jobs (March 2018)", "larger jobs hurt most", _hurt(MARCH, 2048), MARCH_LOG, (STEAL,),
          (NODES, PRUNE, "larger: 2,048 nodes and more, against every class below"), figure="fig4"),
    Claim("fig5-large-hurt", "§6.1.2, Fig. 5", "the same on Intrepid (June 2013): failures hurt the larger jobs most",
          "larger jobs hurt most", _hurt(INTREPID, 2048), INTREPID_LOG, (STEAL,),
          (NODES, PRUNE, "larger: 2,048 nodes and more, against every class below"), figure="fig5"),
    Claim("fig4-small-max", "§6.1.2, Figs. 1 and 4", "failures lower the maximum flow of the jobs under 128 nodes "
          "(more holes to backfill)", "lower with failures", _small_max_improves, MIRA_LOG, (STEAL,), (NODES, PRUNE),
          figure="fig4"),
    Claim("fig6-large-max", "§6.1.2, Figs. 6-8", 'SFSJ lowers the maximum flow of the large jobs, "up to 10 % in some '
          'scenarios"', "lower, up to -10 %", _large_max(MIRA), MIRA_LOG, (STEAL,), (NODES, PRUNE),
          figure="fig6"),
    Claim("fig6-small-overhead", "§6.1.2, Figs. 6-8", "in exchange, the small jobs' flows rise slightly",
          "small jobs slightly worse", _small_overhead, MIRA_LOG, (STEAL,), (NODES, PRUNE), figure="fig6"),
    Claim("fig6-small-factor-2", "§6.1.2, Fig. 6", "at worst (March 2018), the small jobs' maximum flow doubles",
          "x2 (an outlier at x7.99)", _small_factor, MARCH_LOG, (STEAL,),
          (NODES, PRUNE), figure="fig6"),
    Claim("fig8-orders", "§6.1.2, Fig. 8", 'the small jobs\' maximum flow is "several orders of magnitude" below the '
          "large jobs' flows", "several orders", _orders, MIRA_LOG, (STEAL,),
          (NODES, PRUNE, "several orders: x100 or more; in part: x10"), figure="fig8"),
    Claim("fig7-intrepid-large", "§6.1.2, Fig. 7", "on Intrepid, with no very small job, SFSJ still lowers the "
          "maximum flow of the largest jobs", "lower",
          _large_max((INTREPID,)), INTREPID_LOG, (STEAL,), (NODES, PRUNE), figure="fig7"),
    Claim("fig7-intrepid-medium", "§6.1.2, Fig. 7", "there the medium jobs pay a rise of more than 20 % of their "
          "flow, which stays at most half the large jobs'", "> +20 %; half",
          _intrepid_medium, INTREPID_LOG, (STEAL,), (NODES, PRUNE, "medium: the smallest class, [512, 2048)"),
          figure="fig7"),
    Claim("fig8-mean-flow", "§6.1.2, Figs. 6-8", 'SFSJ "may slightly increase" the mean flow over all jobs',
          "slightly higher", _overall("all", True), ALL_LOGS, (STEAL,), (NODES, PRUNE), figure="fig8"),
    Claim("fig8-weighted", "§6.1.2, Figs. 6-8", "the size-weighted mean flow decreases with SFSJ", "lower",
          _overall("weighted", False), ALL_LOGS, (STEAL,), (NODES, PRUNE),
          figure="fig8"),
    Claim("s9-large-june", "§9", "June 2017: node stealing cuts the largest jobs' ([32K, 64K] nodes) maximum flow "
          "from 7.20 to 3.72 days", "7.20 -> 3.72 days", _june_flows(False), JUNE_LOG, (STEAL,), (NODES, PRUNE),
          figure="fig8"),
    Claim("s9-small-june", "§9", "while the smallest jobs' ([1, 128] nodes) maximum flow rises from 0.19 to 0.54 days",
          "0.19 -> 0.54 days", _june_flows(True), JUNE_LOG, (STEAL,), (NODES, PRUNE), figure="fig8"),
)
