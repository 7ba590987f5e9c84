"""[Du2024] §6.3: the synthetic workload of Table 6, fully specified by the paper (Table 7,
Figs. 12-13)."""

from __future__ import annotations

from collections.abc import Callable

from coschedule.reproduce.claims import AtLeast, Claim, Holds, Measured, Near
from coschedule.reproduce.results import Results

from .common import (
    BASE,
    CAMPAIGNS,
    HOUR,
    NODES,
    PRUNE,
    SFSJ,
    SYNTH,
    WHOLE_RUN,
    _classes,
    _fail,
    _free,
    _holds,
    _largest,
    _mean,
    _of,
    _pct,
    _pm,
    _smallest,
    _stat,
    _util,
    _versus,
    _workload,
)

# ------------------------------------------------------------------ §6.3: the synthetic workload (Table 7; Figs. 12-13)

def _synth_stress(r: Results) -> Measured:
    """Eq. (3) with the drawn workload's job sizes, the generator's mean inter-arrival time and the
    expected length (60 min: uniform in 1-119 min); the stress the draw realises beside it."""
    from coschedule.reproduce.run import campaign_spec
    from coschedule.sim.synthetic import TABLE6_INTERARRIVAL

    (src,) = campaign_spec(CAMPAIGNS[SYNTH], r.quick).sources
    gap = float(dict(src.params).get("mean_interarrival", TABLE6_INTERARRIVAL))
    w = _workload(r, SYNTH, src.name)
    eq3 = float(w.nodes.sum()) * HOUR / (w.n_nodes * w.n) / gap
    drawn = float(w.submit[-1] - w.submit[0]) / (w.n - 1)
    real = float((w.length * w.nodes).sum()) / (w.n_nodes * w.n * drawn)
    return Measured(f"{_pct(eq3)} by eq. (3) (mean inter-arrival {gap:g} s); the draw realises {_pct(real)} (mean "
                    f"inter-arrival {drawn:.0f} s, mean length {w.length.mean() / 60:.1f} min)", value=eq3)


def _table7(policy: str) -> Callable[[Results], Measured]:
    def compute(r: Results) -> Measured:
        mu, half = _of(r, SYNTH, "Table6", policy, _util)
        return Measured(_pm(mu, half), value=mu, half=half)

    return compute


def _table7_gain(r: Results) -> Measured:
    mu, half = _versus(r, SYNTH, "Table6", _util, how="diff")
    return Measured(f"{100 * mu:+.2f} ± {100 * half:.2f} points", value=mu, half=half)


def _synth_ratio(which: str, small: bool) -> Callable[[Results], Measured]:
    def compute(r: Results) -> Measured:
        ff = _free(r, SYNTH, "Table6")
        label = _smallest(ff) if small else _largest(ff)
        mu, half = _versus(r, SYNTH, "Table6", lambda x: _stat(x, label, which))
        return Measured(f"x{mu:.3f} ± {half:.3f} ({label}, {which} flow, SFSJ / Baseline)", value=mu, half=half)

    return compute


def _synth_small_lower(r: Results) -> Measured:
    ff = _free(r, SYNTH, "Table6")
    small, large = _smallest(ff), _largest(ff)
    runs = _fail(r, SYNTH, "Table6", BASE)
    q = {w: _mean(_stat(x, large, w) for x in runs) / _mean(_stat(x, small, w) for x in runs) for w in ("mean", "max")}
    return Measured(f"Baseline with failures, {large} over {small}: mean flow x{q['mean']:.1f}, maximum flow "
                    f"x{q['max']:.2f}", holds=_holds(min(q.values()) >= 2, max(q.values()) >= 2))


def _synth_hurt(r: Results) -> Measured:
    ff = _free(r, SYNTH, "Table6")
    runs = _fail(r, SYNTH, "Table6", BASE)
    f = {c["label"]: (c, _mean(_stat(x, c["label"], "mean") for x in runs) / c["mean"]) for c in _classes(ff)}
    large = [v for c, v in f.values() if c["low"] >= 32]
    small = [v for c, v in f.values() if c["high"] <= 8]
    return Measured("Baseline's mean flow with failures over failure-free: " + ", ".join(
        f"{k} x{v:.2f}" for k, (_, v) in f.items()), holds=_holds(min(large) > max(small), large[-1] > small[0]))


CLAIMS = (
    # §6.3: the synthetic workload (the paper's own, Table 6)
    Claim("s6-3-stress", "§6.3, eq. (3)", "a mean inter-arrival time of 174 s makes the stress 95 % (eq. (3))", "95 %",
          _synth_stress, Near(0.95, match=0.02, close=0.05), (SYNTH,),
          ("eq. (3) with the drawn jobs' sizes and the expected length, 60 min",),
          stable=True),
    Claim("table7-baseline", "§6.3, Table 7", "utilization of Baseline on the synthetic trace", "70 %",
          _table7(BASE), Near(0.70, match=0.02, close=0.05), (SYNTH,), (NODES, WHOLE_RUN), stable=True),
    Claim("table7-sfsj", "§6.3, Table 7", "utilization of SFSJ on the synthetic trace", "72 %", _table7(SFSJ),
          Near(0.72, match=0.02, close=0.05), (SYNTH,), (NODES, WHOLE_RUN)),
    Claim("table7-gain", "§6.3, Table 7", "SFSJ's utilization above Baseline's", "+2 points (70 -> 72 %)",
          _table7_gain, Near(0.02, match=0.01, close=0.02), (SYNTH,),
          (NODES, WHOLE_RUN, "the paper's values are rounded to the point: +1 to +3 points match")),
    Claim("fig13-large-max", "§6.3, Fig. 13", "SFSJ improves the large jobs' maximum flow by 10-15 %",
          "x0.85-0.90", _synth_ratio("max", small=False), Near(0.875, match=0.025, close=0.075), (SYNTH,),
          (NODES, PRUNE, "large jobs: the 64-node class"), figure="fig13"),
    Claim("fig13-large-mean", "§6.3, Fig. 13", "and their mean flow by 10-15 %", "x0.85-0.90",
          _synth_ratio("mean", small=False), Near(0.875, match=0.025, close=0.075), (SYNTH,),
          (NODES, PRUNE, "large jobs: the 64-node class"), figure="fig13"),
    Claim("fig13-small-max", "§6.3, Fig. 13", 'in exchange the smallest jobs\' maximum flow grows "by a large factor"',
          "large factor", _synth_ratio("max", small=True), AtLeast(1.5, close=0.3), (SYNTH,),
          (NODES, PRUNE, "a large factor: x1.5 or more; the smallest: the 1-node jobs"), figure="fig13"),
    Claim("fig12-small-lower", "§6.3, Fig. 12", "the small jobs' flows are, in absolute value, much below the largest "
          "jobs'", "much lower", _synth_small_lower,
          Holds("the 64-node jobs' mean and maximum flow at least twice the 1-node jobs' (Baseline, with failures)"),
          (SYNTH,), (NODES, PRUNE), figure="fig12"),
    Claim("fig12-large-hurt", "§6.3, Fig. 12", "as in the previous sections, failures hurt the large jobs most",
          "largest jobs hurt most", _synth_hurt,
          Holds("Baseline's mean flow with failures over failure-free larger for every class of 32 nodes and more "
                "than for every class below 8"), (SYNTH,),
          (NODES, PRUNE), figure="fig12"),
)
