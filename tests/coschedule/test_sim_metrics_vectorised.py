"""The utilization's per-attempt parts (coschedule.sim.metrics._attempt_parts), computed over all
attempts at once, are the very floats of the per-attempt loop they replaced (kept below,
verbatim): on random runs with failures, checkpoints and node stealing, from the kernel and from
the reference loop, over random windows; and on the Mira-like month's first days."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from test_sim_validate_vs_reference import runs  # random runs with failures and node stealing

from coschedule.heuristics.batch.run import run_batch
from coschedule.sim.metrics import _attempt_parts, _checkpoint_time, utilization
from coschedule.sim.result import SimulationResult
from coschedule.sim.synthetic import mira_like
from coschedule.sim.workload import Workload


def reference_parts(result: SimulationResult, lo: float, hi: float) -> dict[str, float]:
    """coschedule.sim.metrics._attempt_parts before issue 22, one attempt at a time."""
    ck = result.checkpointing
    wl = result.workload
    acc = dict.fromkeys(("useful", "checkpoint", "recovery", "lost", "stealing"), 0.0)
    stopped = {(a.job, a.index + 1) for a in result.attempts if a.outcome == "interrupted"} if result.steals else set()
    for a in result.attempts:
        s, e = a.start, a.end
        if e <= lo or s >= hi or e <= s:
            continue
        j = a.job
        p = float(wl.nodes[j])
        rec_end = min(s + a.recovery, e)
        acc["stealing" if (j, a.index) in stopped else "recovery"] += p * max(0.0, min(rec_end, hi) - max(s, lo))
        saved_end = e if a.outcome == "completed" else min(e, rec_end + (a.saved_after - a.saved_before))
        waste = "stealing" if a.outcome in ("interrupted", "checkpointed") else "lost"
        acc[waste] += p * max(0.0, min(e, hi) - max(saved_end, lo))
        t0, t1 = max(rec_end, lo), min(saved_end, hi)
        if t1 <= t0:
            continue
        u0 = a.saved_before + (t0 - rec_end)
        u1 = a.saved_before + (t1 - rec_end)
        L, K = float(wl.length[j]), int(result.checkpoints[j])
        T = ck.period(int(wl.nodes[j])) if K else math.inf
        ckpt = float(_checkpoint_time(u1, T, ck.cost, L, K, ck.final_checkpoint)
                     - _checkpoint_time(u0, T, ck.cost, L, K, ck.final_checkpoint))
        ckpt = min(max(ckpt, 0.0), t1 - t0)
        acc["checkpoint"] += p * ckpt
        acc["useful"] += p * ((t1 - t0) - ckpt)
    return acc


def same(result: SimulationResult, lo: float, hi: float) -> None:
    new, old = _attempt_parts(result, lo, hi), reference_parts(result, lo, hi)
    assert new == old  # the same floats, not close ones
    assert all(math.copysign(1.0, new[k]) == math.copysign(1.0, old[k]) for k in old)


@given(runs(), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_the_same_floats_as_one_attempt_at_a_time(run, a, b):
    result, _ = run
    same(result, 0.0, float(result.horizon))
    lo, hi = sorted((a * result.horizon, b * result.horizon))
    same(result, lo, hi)


def test_the_same_floats_on_the_mira_like_month():
    w = mira_like("2018-03", 0)
    k = 600
    head = Workload(w.ids[:k], w.submit[:k], w.nodes[:k], w.walltime[:k], w.length[:k], w.n_nodes)
    for policy in ("conservative", "sfsj"):
        r = run_batch(head, policy, node_mtbf=head.n_nodes * 3600.0, downtime=3600.0, checkpoint_cost=300.0, seed=1)
        same(r, 0.0, float(r.horizon))
        same(r, 2 * 86400.0, 5 * 86400.0)
        u = utilization(r)
        assert np.isclose(sum(u.parts().values()), u.capacity, rtol=1e-9)
