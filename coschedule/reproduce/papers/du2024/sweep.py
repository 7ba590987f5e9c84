"""[Du2024] §6.2: SFSJ against Baseline as the platform MTBF and the downtime vary (Figs. 9-11)."""

from __future__ import annotations

from collections.abc import Callable

from coschedule.reproduce.claims import Claim, Measured
from coschedule.reproduce.results import Results

from .common import (
    BASE,
    DAY,
    HOUR,
    JUNE,
    JUNE_LOG,
    MIRA,
    MIRA_LOG,
    NODES,
    PRUNE,
    SFSJ,
    SHORT,
    SWEEP,
    WINDOW,
    _change,
    _duration,
    _fail,
    _free,
    _holds,
    _largest,
    _mean,
    _on_stand_in,
    _settings,
    _sources,
    _stat,
    _util,
)

# ------------------------------------------------------------------ §6.2: the sweep (Figs. 9-11)

def _sweep(r: Results) -> dict[tuple[str, float, float], tuple[float, float, float]]:
    """Per ``(source, platform MTBF, downtime)``: SFSJ over Baseline of the useful utilization,
    the maximum flow of the largest class and the weighted mean flow (ratios of the means over
    the seeds, as Figs. 9-11 draw them)."""
    out = {}
    for s in _sources(r, SWEEP, MIRA):
        label = _largest(_free(r, SWEEP, s))
        for m, d in _settings(r, SWEEP, s):
            b, p = _fail(r, SWEEP, s, BASE, mtbf=m, downtime=d), _fail(r, SWEEP, s, SFSJ, mtbf=m, downtime=d)
            out[(s, m, d)] = tuple(_mean(f(x) for x in p) / _mean(f(x) for x in b) for f in (
                _util, lambda x, k=label: _stat(x, k, "max"), lambda x: _stat(x, "weighted", "mean")))
    return out


def _point(s: str, m: float, d: float) -> str:
    return f"{SHORT[s]}, MTBF {_duration(m)}, D {_duration(d)}"


def _per_mtbf(values: dict[tuple[str, float], float]) -> str:
    """``{(month, MTBF): ratio}`` as ``June 2017: 1 h +2.0 %, 2 h +2.6 %; March 2018: ...``."""
    months = dict.fromkeys(s for s, _ in values)
    return "; ".join(f"{SHORT[s]}: " + ", ".join(f"{_duration(m)} {_change(v)}" for (s2, m), v in values.items()
                                                 if s2 == s) for s in months)


def _sweep_mtbf(r: Results) -> Measured:
    sw = _sweep(r)
    words, mono, up = [], [], []
    for s, d in dict.fromkeys((s, d) for s, _, d in sw):
        gains = [(m, sw[(s, m, d)][0]) for s2, m, d2 in sw if (s2, d2) == (s, d)]
        mono.append(all(a[1] >= b[1] for a, b in zip(gains, gains[1:])))
        up.append(gains[0][1] > gains[-1][1])
        words.append(f"{SHORT[s]}, D {_duration(d)}: " + " ".join(f"{_duration(m)} {_change(g)}" for m, g in gains))
    return _on_stand_in("utilization gain as the MTBF grows: " + "; ".join(words), _holds(all(mono), any(up)))


def _sweep_downtime(r: Results) -> Measured:
    sw = _sweep(r)
    ok, n = 0, 0
    for s, m in dict.fromkeys((s, m) for s, m, _ in sw):
        gains = [sw[(s2, m2, d)][0] for s2, m2, d in sw if (s2, m2) == (s, m)]
        n += 1
        ok += all(a >= b for a, b in zip(gains, gains[1:]))
    return _on_stand_in(f"the gain falls as the downtime grows at {ok} of {n} (month, MTBF) points",
                        _holds(ok == n, ok > 0))


def _sweep_gains(downtime: float, lo: float, hi: float) -> Callable[[Results], Measured]:
    """The utilization gains at ``downtime``: holds when all lie in ``[lo, hi]`` (ratios)."""

    def compute(r: Results) -> Measured:
        gains = {(s, m): v[0] for (s, m, d), v in _sweep(r).items() if d == downtime}
        if not gains:
            raise KeyError(f"no sweep point at a downtime of {_duration(downtime)}")
        inside = [lo <= g <= hi for g in gains.values()]
        return _on_stand_in(f"utilization gain at D {_duration(downtime)}: {_per_mtbf(gains)}",
                            _holds(all(inside), any(inside)), value=max(gains.values()))

    return compute


def _sweep_loss(r: Results) -> Measured:
    sw = _sweep(r)
    top = max(m for s, m, _ in sw if s == JUNE)
    low = min(d for s, _, d in sw if s == JUNE)
    g = sw[(JUNE, top, low)][0]
    return _on_stand_in(f"{_point(JUNE, top, low)}: utilization {_change(g)}", g < 1, value=g - 1)


def _sweep_flows(r: Results) -> Measured:
    sw = _sweep(r)
    big = sum(v[1] < 1 for v in sw.values())
    weighted = sum(v[2] < 1 for v in sw.values())
    return _on_stand_in(f"SFSJ lowers the largest jobs' maximum flow at {big} and the weighted mean flow at "
                        f"{weighted} of {len(sw)} (month, MTBF, downtime) points",
                        _holds(big == weighted == len(sw), big + weighted > 0))


def _sweep_short_d(r: Results) -> Measured:
    sw = _sweep(r)
    pts = {(s, m): v[1] for (s, m, d), v in sw.items() if d <= 600 and m < 5 * HOUR}
    if not pts:
        raise KeyError("no sweep point with D = 10 min and an MTBF below 5 h")
    better = [v < 1 for v in pts.values()]
    return _on_stand_in(f"largest jobs' maximum flow, D 10 min: {_per_mtbf(pts)}", _holds(all(better), any(better)),
                        value=min(pts.values()))


def _sweep_long_d(r: Results) -> Measured:
    sw = _sweep(r)
    short = [abs(v[1] - 1) for (_, _, d), v in sw.items() if d <= 600]
    day = [abs(v[1] - 1) for (_, _, d), v in sw.items() if d >= DAY]
    if not short or not day:
        raise KeyError("the sweep needs D = 10 min and D = 1 day")
    return _on_stand_in(f"largest jobs' maximum flow moves by {100 * _mean(short):.1f} % on average with D = 10 min, "
                        f"{100 * _mean(day):.1f} % with D = 1 day (at most {100 * max(day):.1f} %)",
                        _holds(_mean(day) < _mean(short) and max(day) <= 0.05, _mean(day) < _mean(short)),
                        value=max(day))


CLAIMS = (
    # §6.2: the sweep
    Claim("fig9-mtbf", "§6.2.1, Fig. 9", "the more frequent the failures (the smaller the MTBF), the more SFSJ gains "
          "in utilization over Baseline", "gain grows as the MTBF shrinks", _sweep_mtbf, MIRA_LOG,
          (SWEEP,), (NODES, WINDOW), figure="fig9-11"),
    Claim("fig9-downtime", "§6.2.1, Fig. 9", "the shorter the downtime, the larger SFSJ's utilization gain",
          "gain shrinks with D", _sweep_downtime, MIRA_LOG, (SWEEP,), (NODES, WINDOW), figure="fig9-11"),
    Claim("fig9-short-downtime", "§6.2.1, Fig. 9", "with a 10-min downtime SFSJ gains 2 to 4 % of utilization",
          "+2 to +4 %", _sweep_gains(600.0, 1.02, 1.04), MIRA_LOG, (SWEEP,), (NODES, WINDOW),
          figure="fig9-11"),
    Claim("fig9-long-downtime", "§6.2.1, Fig. 9", 'with a 1-day downtime the gain is "negligible"',
          "negligible", _sweep_gains(DAY, 0.995, 1.005), MIRA_LOG, (SWEEP,),
          (NODES, WINDOW, "negligible: within 0.5 %"), figure="fig9-11"),
    Claim("fig9-loss", "§6.2.1, Fig. 9", "one point loses 1 % of utilization: June 2017 at an MTBF of 10 h and a "
          "10-min downtime", "-1 %", _sweep_loss, JUNE_LOG, (SWEEP,), (NODES, WINDOW),
          figure="fig9-11"),
    Claim("fig10-positive", "§6.2.2, Figs. 10-11", "in every scenario SFSJ lowers both the largest jobs' maximum flow "
          "and the weighted mean flow", "lower everywhere", _sweep_flows, MIRA_LOG,
          (SWEEP,), (NODES, PRUNE), figure="fig9-11"),
    Claim("fig10-short-downtime", "§6.2.2, Figs. 10-11", "with a 10-min downtime and an MTBF under 5 h, the largest "
          "jobs' maximum flow drops by up to 10-20 %", "-10 to -20 %", _sweep_short_d, MIRA_LOG, (SWEEP,),
          (NODES, PRUNE), figure="fig9-11"),
    Claim("fig10-long-downtime", "§6.2.2, Figs. 10-11", "that gain shrinks as the downtime grows, to about nothing at "
          "1 day", "about 0 at D = 1 day",
          _sweep_long_d, MIRA_LOG, (SWEEP,), (NODES, PRUNE, "close to zero: within 5 %"), figure="fig9-11"),
)
