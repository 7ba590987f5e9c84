"""[Du2024] §2, §5.2 and §6.1 at MTBF = downtime = 1 h: Baseline with and without failures (Fig. 1,
Table 3), who checkpoints, and the utilization of SFSJ and Baseline (Tables 4-5, Fig. 3)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coschedule.reproduce.claims import Claim, Measured, Near
from coschedule.reproduce.results import Results

from .common import (
    ALL_LOGS,
    BASE,
    DAY,
    DAYS,
    HOUR,
    INTREPID,
    JUNE,
    JUNE_LOG,
    LOG_RULE,
    MARCH,
    MIRA,
    MONTHS,
    NO_FINAL,
    NODES,
    PRUNE,
    SFSJ,
    SHORT,
    STEAL,
    T5A,
    WINDOW,
    YEAR,
    _change,
    _classes,
    _count,
    _duration,
    _fail,
    _free,
    _holds,
    _hours,
    _mean,
    _of,
    _on_stand_in,
    _pct,
    _pm,
    _smallest,
    _sources,
    _stat,
    _util,
    _versus,
    _workload,
)

# ------------------------------------------------------------------ §2 and §5.2 (Baseline, Figs. 1, 4, 5; Table 3)

def _node_mtbf(r: Results) -> Measured:
    x = _fail(r, STEAL, JUNE, BASE)[0]
    years = x["node_mtbf"] / YEAR
    return Measured(f"{years:.3f} years (platform MTBF 1 h x {x['nodes']:,} nodes)", value=years)


def _ff_larger(source: str) -> Callable[[Results], Measured]:
    def compute(r: Results) -> Measured:
        ff = _free(r, STEAL, source)
        means = [(c["label"], c["mean"]) for c in _classes(ff)]
        rises = sum(b[1] > a[1] for a, b in zip(means, means[1:]))
        return _on_stand_in("failure-free mean flow per class: " + ", ".join(f"{k} {_hours(v)}" for k, v in means),
                            _holds(rises == len(means) - 1, means[-1][1] > means[0][1]))

    return compute


def _factors(r: Results, source: str) -> dict[str, tuple[dict[str, Any], float]]:
    """Per class of Baseline's runs on ``source``: the class and its mean flow with failures (mean
    over the seeds) over the failure-free one."""
    ff = _free(r, STEAL, source)
    runs = _fail(r, STEAL, source, BASE)
    return {c["label"]: (c, _mean(_stat(x, c["label"], "mean") for x in runs) / c["mean"]) for c in _classes(ff)}


def _hurt(source: str, small_below: int) -> Callable[[Results], Measured]:
    """Failures raise the mean flow of the classes of 2,048 nodes and more by a larger factor
    than that of every class below ``small_below`` nodes."""

    def compute(r: Results) -> Measured:
        f = _factors(r, source)
        large = {k: v for k, (c, v) in f.items() if c["low"] >= 2048}
        small = {k: v for k, (c, v) in f.items() if c["high"] <= small_below}
        top = max(small.values())
        text = ("mean flow with failures over failure-free: " + ", ".join(f"{k} x{v:.2f}" for k, (_, v) in f.items()))
        largest = list(large.values())[-1]
        return _on_stand_in(text, _holds(min(large.values()) > top, largest > top), value=largest)

    return compute


def _short_gain(source: str) -> Callable[[Results], Measured]:
    def compute(r: Results) -> Measured:
        ff, runs = _free(r, STEAL, source), _fail(r, STEAL, source, BASE)
        gains = []
        for c in _classes(ff):
            if c["high"] > 512:
                continue
            for which in ("mean", "max"):
                with_f = _mean(_stat(x, c["label"], which) for x in runs)
                gains.append((f"{c['label']} {which} {_hours(c[which])} -> {_hours(with_f)}", with_f < c[which]))
        return _on_stand_in("classes below 512 nodes, failure-free -> with failures: "
                            + ", ".join(t for t, _ in gains), any(g for _, g in gains) or False)

    return compute


def _small_max_improves(r: Results) -> Measured:
    words, better = [], []
    for s in _sources(r, STEAL, MIRA):
        ff, runs = _free(r, STEAL, s), _fail(r, STEAL, s, BASE)
        label = _smallest(ff)
        with_f = _mean(_stat(x, label, "max") for x in runs)
        better.append(with_f < _stat(ff, label, "max"))
        words.append(f"{SHORT[s]} {label} {_hours(_stat(ff, label, 'max'))} -> {_hours(with_f)}")
    return _on_stand_in("maximum flow of the smallest class, failure-free -> with failures: " + ", ".join(words),
                        _holds(all(better), any(better)))


def _ff_small_lower(r: Results) -> Measured:
    ff = _free(r, STEAL, MARCH)
    cs = _classes(ff)
    small, rest = cs[0], [c for c in cs if c["low"] >= 128]
    least = min(c["mean"] for c in rest) / small["mean"]
    return _on_stand_in(f"failure-free mean flow of {small['label']} {_hours(small['mean'])}, of the larger classes "
                        f"{_hours(min(c['mean'] for c in rest))} to {_hours(max(c['mean'] for c in rest))} "
                        f"(at least x{least:.1f})", _holds(least >= 2, least > 1), value=least)


def _ff_utilization(source: str) -> Callable[[Results], Measured]:
    def compute(r: Results) -> Measured:
        u = _util(_free(r, STEAL, source))
        return Measured(f"{_pct(u)} (failure-free, Baseline, days 11-30)", value=u)

    return compute


def _below_stress(r: Results) -> Measured:
    from coschedule.sim.synthetic import stress

    words, gaps = [], {}
    for s in _sources(r, STEAL):
        st = stress(_workload(r, STEAL, s), DAYS[s] * DAY)
        u = _util(_free(r, STEAL, s))
        gaps[s] = st - u
        words.append(f"{SHORT[s]} {_pct(u)} against a stress of {_pct(st)}")
    mira = [s for s in MIRA if s in gaps]
    below = all(g > 0 for g in gaps.values())
    return _on_stand_in("failure-free utilization: " + ", ".join(words),
                        _holds(below and max(mira, key=gaps.__getitem__) == MARCH, below))


# ------------------------------------------------------------------ §6.1, before 6.1.1: checkpoints

def _yd_128(r: Results) -> Measured:
    from coschedule.sim.checkpointing import Checkpointing

    x = _fail(r, STEAL, JUNE, BASE)[0]
    hours = Checkpointing(cost=x["checkpoint_cost"], node_mtbf=x["node_mtbf"]).period(128) / HOUR
    return Measured(f"{hours:.2f} h (C = {_duration(x['checkpoint_cost'])}, node MTBF {_duration(x['node_mtbf'])})",
                    value=hours)


def _who_checkpoints(r: Results) -> Measured:
    from coschedule.sim.checkpointing import Checkpointing

    small = small_ck = mid = mid_ck = 0
    for s in _sources(r, STEAL):
        x = _fail(r, STEAL, s, BASE)[0]
        ck = Checkpointing(cost=x["checkpoint_cost"], node_mtbf=x["node_mtbf"])
        w = _workload(r, STEAL, s)
        for length, p in zip(w.length.tolist(), w.nodes.tolist()):
            k = ck.checkpoints(length, p)
            if p < 128:
                small, small_ck = small + 1, small_ck + (k > 0)
            elif p < 512:
                mid, mid_ck = mid + 1, mid_ck + (k > 0)
    share = mid_ck / mid
    return _on_stand_in(f"{small_ck} of the {small} jobs under 128 nodes and {_pct(share, 1)} of the {mid} jobs of "
                        "[128, 512) take a checkpoint (the three months)", small_ck == 0 and share < 0.05,
                        value=share)


# ------------------------------------------------------------------ §6.1.1: utilization (Tables 4, 5; Fig. 3)

def _table4(source: str) -> Callable[[Results], Measured]:
    def compute(r: Results) -> Measured:
        b = _of(r, STEAL, source, BASE, _util)
        s = _of(r, STEAL, source, SFSJ, _util)
        return Measured(f"Baseline {_pm(*b)}, SFSJ {_pm(*s)}", value=b[0], half=b[1])

    return compute


def _gains(r: Results) -> Measured:
    gains = {s: _versus(r, STEAL, s, _util) for s in _sources(r, STEAL)}
    return _on_stand_in("SFSJ's useful utilization over Baseline's: " + ", ".join(
        f"{SHORT[s]} {_change(mu)} ± {100 * h:.1f} %" for s, (mu, h) in gains.items()),
        _holds(all(mu > 1 for mu, _ in gains.values()), any(mu > 1 for mu, _ in gains.values())))


def _idle_baseline(r: Results) -> Measured:
    idle = {s: _of(r, STEAL, s, BASE, lambda x: _util(x, "idle")) for s in _sources(r, STEAL)}
    return Measured("Baseline's idle time: " + ", ".join(f"{SHORT[s]} {_pm(*v)}" for s, v in idle.items()),
                    value=next(iter(idle.values()))[0])


def _idle_reduction(r: Results) -> Measured:
    cut = {s: 1 - _versus(r, STEAL, s, lambda x: _util(x, "idle"))[0] for s in _sources(r, STEAL)}
    return _on_stand_in("SFSJ cuts Baseline's idle time by " + ", ".join(
        f"{_pct(v, 0)} ({SHORT[s]})" for s, v in cut.items()), _holds(all(v > 0 for v in cut.values()),
                                                                       any(v > 0 for v in cut.values())))


def _stealing_waste(r: Results) -> Measured:
    waste = {s: _of(r, STEAL, s, SFSJ, lambda x: _util(x, "stealing")) for s in _sources(r, STEAL)}
    worst = max(mu for mu, _ in waste.values())
    return _on_stand_in("work lost to node stealing: " + ", ".join(f"{SHORT[s]} {_pm(*v)}" for s, v in waste.items()),
                        _holds(worst <= 0.003, worst <= 0.005), value=worst)


def _steal_share(x: dict[str, Any]) -> float:
    return _count(x, "steals") / max(_count(x, "steals") + _count(x, "replaced"), 1.0)


def _idle_explained(r: Results) -> Measured:
    srcs = _sources(r, STEAL)
    share = {s: _of(r, STEAL, s, SFSJ, _steal_share)[0] for s in srcs}
    cut = {s: 1 - _versus(r, STEAL, s, lambda x: _util(x, "idle"))[0] for s in srcs}
    same = sorted(srcs, key=share.__getitem__) == sorted(srcs, key=cut.__getitem__)
    return _on_stand_in("failures met by a steal / idle time cut: " + ", ".join(
        f"{SHORT[s]} {_pct(share[s], 1)} / {_pct(cut[s], 0)}" for s in srcs), same)


def _table5a(source: str) -> Callable[[Results], Measured]:
    def compute(r: Results) -> Measured:
        b = _of(r, STEAL, source, BASE, lambda x: _count(x, "idle_time_share"))
        s = _of(r, STEAL, source, SFSJ, lambda x: _count(x, "idle_time_share"))
        return Measured(f"Baseline {_pm(*b)}, SFSJ {_pm(*s)} of the time with a node idle", value=b[0], half=b[1])

    return compute


def _table5b(source: str) -> Callable[[Results], Measured]:
    def compute(r: Results) -> Measured:
        runs = _fail(r, STEAL, source, SFSJ)
        steals, free = _mean(_count(x, "steals") for x in runs), _mean(_count(x, "replaced") for x in runs)
        waited = _mean(_count(x, "waited") for x in runs)
        return Measured(f"{steals:.1f} steals / {free:.1f} free node / {steals + free:.1f} total ({waited:.1f} more "
                        "waited in the queue)", value=steals + free)

    return compute


def _free_node_share(r: Results) -> Measured:
    share = {s: _of(r, STEAL, s, SFSJ, lambda x: _count(x, "spare_at_failure_share")) for s in _sources(r, STEAL)}
    least = min(mu for mu, _ in share.values())
    return _on_stand_in("a node idle when the failure struck (SFSJ): " + ", ".join(
        f"{SHORT[s]} {_pm(*v, digits=1)}" for s, v in share.items()), least >= 0.75, value=least)


# ------------------------------------------------------------------ the claims

KEY = {JUNE: "jun17", MARCH: "mar18", INTREPID: "int13"}
#: the tables of one number per month: where, what (``{month}`` replaced), the paper's values,
#: ours, the options and the figure
PER_MONTH: dict[str, tuple[str, str, dict[str, str], Callable[[str], Callable[[Results], Measured]],
                           tuple[str, ...], str | None]] = {
    "table3": ("§5.2, Table 3", "failure-free utilization with Baseline, {month}",
               {JUNE: "88.51 %", MARCH: "92.88 %", INTREPID: "89.90 %"}, _ff_utilization, (NODES, WINDOW), None),
    "table4": ("§6.1.1, Table 4", "platform useful utilization, {month}, MTBF = downtime = 1 h",
               {JUNE: "Baseline 79.32 %, SFSJ 80.69 %", MARCH: "Baseline 77.39 %, SFSJ 78.50 %",
                INTREPID: "Baseline 76.71 %, SFSJ 77.26 %"}, _table4, (NODES, WINDOW), "fig3"),
    "table5a": ("§6.1.1, Table 5a", "percentage of time at least one node is available right after a failure, "
                "{month}", {JUNE: "Baseline 92.09 %, SFSJ 90.67 %", MARCH: "Baseline 93.36 %, SFSJ 92.48 %",
                            INTREPID: "Baseline 93.83 %, SFSJ 93.70 %"}, _table5a, (NODES, T5A, WINDOW), None),
    "table5b": ("§6.1.1, Table 5b", "SFSJ's node stealing / empty node / total failures per month, {month}",
                {JUNE: "63.4 / 404.4 / 467.8", MARCH: "46.6 / 416.2 / 462.8", INTREPID: "45.8 / 410.8 / 456.6"},
                _table5b, (NODES, "ours counts every failure that hit a job; the paper's total is the sum of its "
                           "two columns"), None),
}


def _per_month(table: str) -> tuple[Claim, ...]:
    """The claims of ``table`` of :data:`PER_MONTH`, one per month."""
    where, what, paper, compute, options, figure = PER_MONTH[table]
    return tuple(Claim(f"{table}-{KEY[s]}", where, what.format(month=SHORT[s]), paper[s], compute(s), LOG_RULE[s],
                       (STEAL,), options, figure=figure) for s in MONTHS)


CLAIMS = (
    # §2 and §5.2: Baseline, Fig. 1, Table 3
    Claim("s2-node-mtbf", "§2", "with a platform MTBF of 1 h on 49,152 nodes, each node's MTBF is 5.61 years",
          "5.61 years", _node_mtbf, Near(5.61, match=0.01, close=0.05), (STEAL,),
          ("a platform MTBF mu and N nodes give the node MTBF N mu (§5.2)",), stable=True),
    Claim("fig1-ff-larger", "§2, Fig. 1", "without failures (red dots), the larger the jobs, the larger their flows",
          "flow grows with size", _ff_larger(JUNE), JUNE_LOG, (STEAL,), (NODES, PRUNE), figure="fig1"),
    Claim("fig1-large-hurt", "§2, Fig. 1 (observation 1)", "failures raise the flow of the jobs above 2,048 nodes "
          'much more than that of the jobs below 512 nodes ("dramatically higher")', "large jobs hurt most",
          _hurt(JUNE, 512), JUNE_LOG, (STEAL,), (NODES, PRUNE), figure="fig1"),
    Claim("fig1-short-gain", "§2, Fig. 1 (observation 2)", "failures may shorten the flow of short jobs (backfilled "
          "into the holes failures leave)", "small jobs may gain", _short_gain(JUNE), JUNE_LOG, (STEAL,),
          (NODES, PRUNE), figure="fig1"),
    *_per_month("table3"),
    Claim("table3-below-stress", "§5.2, Table 3", 'the failure-free utilization is below the stress, "notably for '
          'March 2018"', "below the stress; March the most", _below_stress, ALL_LOGS,
          (STEAL,), (NODES, WINDOW, "the stress of our months: the generator's, within 0.01 % of §5.2's")),
    # §6.1: checkpoints
    Claim("s6-1-yd-128", "§6.1", "at a platform MTBF of 1 h and C = 5 min, a 128-node job's Young/Daly period is 8 h",
          "8 h", _yd_128, Near(8.0, match=0.05, close=0.5), (STEAL,),
          ("P_YD = sqrt(2 (mu_ind / p) C) (§5.2)",), stable=True),
    Claim("s6-1-who-checkpoints", "§6.1", "no job under 128 nodes takes a checkpoint, and under 5 % of the jobs of "
          "[128, 512) nodes take one", "none; < 5 %", _who_checkpoints, ALL_LOGS,
          (STEAL,), (NO_FINAL,)),
    # §6.1.1: utilization
    *_per_month("table4"),
    Claim("table4-gain", "§6.1.1, Table 4", "SFSJ's utilization is 1.4 to 1.7 % above Baseline's",
          "+1.4 to +1.7 % (0.7 % on Intrepid)", _gains, ALL_LOGS, (STEAL,), (NODES, WINDOW),
          figure="fig3"),
    Claim("fig3-idle-baseline", "§6.1.1, Fig. 3", "Baseline's idle time is 5.2 % of the platform (June 2017), 5.8 % "
          "(March 2018), 7.3 % (Intrepid)", "5.2 / 5.8 / 7.3 %", _idle_baseline,
          ALL_LOGS, (STEAL,), (NODES, WINDOW), figure="fig3"),
    Claim("fig3-idle-reduction", "§6.1.1, Fig. 3", "SFSJ's small utilization gains are large cuts of the idle time: "
          "40 % (June 2017), 20 % (March 2018), 10 % (Intrepid)", "-40 / -20 / -10 %",
          _idle_reduction, ALL_LOGS, (STEAL,), (NODES, WINDOW), figure="fig3"),
    Claim("fig3-stealing-waste", "§6.1.1, Fig. 3", "the work node stealing wastes (interrupted work, extra "
          'recoveries) is "negligible"', "around 0.1 % for all months",
          _stealing_waste, ALL_LOGS, (STEAL,), (NODES, WINDOW, "negligible: at most 0.3 %"), figure="fig3"),
    Claim("fig3-idle-explained", "§6.1.1, Fig. 3 and Table 5b", "the months' different idle-time cuts follow from how "
          "often SFSJ has to interrupt a job", "same order", _idle_explained, ALL_LOGS, (STEAL,), (NODES, WINDOW),
          figure="fig3"),
    *_per_month("table5a"),
    *_per_month("table5b"),
    Claim("table5b-free-node", "§6.1.1, Table 5b", "a free node is there right after 84 % (June 2017), 89 % (March "
          "2018) and 90 % (Intrepid) of the failures, so node stealing is mostly not used", "84 / 89 / 90 %",
          _free_node_share, ALL_LOGS, (STEAL,),
          (NODES, "a vast majority: at least 75 %")),
)
