"""Periodic checkpointing of rigid jobs under fail-stop failures ([Du2024] §5.2).

A job of ``p`` nodes whose failure-free length is ``L`` (its *work*) checkpoints every
``T = P_YD`` units of work, the Young/Daly period ``P_YD = sqrt(2 mu_job C)`` with
``mu_job = mu_ind / p`` (``mu_ind`` the MTBF of one node, ``C`` the checkpoint cost). Its
execution is a sequence of *blocks*: ``T`` of work then a checkpoint of ``C``; the last block is
what work remains, with no checkpoint after it.

**Number of checkpoints (choice).** Eq. (1) of §5.2 extends the length to
``L + ceil(L / T) C``: one checkpoint per started period, the last one at the very end of the
job, where it protects nothing; §6.1 says instead that a job shorter than its period "never
checkpoints". We follow §6.1 by default: ``ceil(L / T) - 1`` checkpoints, one after each full
period that more work follows (``final_checkpoint=True`` gives eq. (1) as printed). Eq. (2)
extends the wall time ``W`` the same way, with ``W``'s own count.

**After a failure** a job restarts from its last completed checkpoint: it has *saved* ``U``
(time units of its extended length, checkpoints included: ``U = m (T + C)`` after ``m``
checkpoints), and its next attempt runs ``R + E - U`` (``R`` the recovery cost, ``E`` the
extended length) with the wall time ``R + W_ckpt - U``: eq. (4) of §7.2 with ``t_useful = U``
counted from the job's start, so a recovery is never counted twice (NOTES.md 21).

A failure exactly at the end of a checkpoint finds it complete (at one instant a checkpoint
completes before a failure strikes, :mod:`coschedule.sim.events`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .workload import Workload

__all__ = ["MAX_EXPECTED_RESTARTS", "NO_CHECKPOINTING", "Checkpointing", "StopPoint", "chance_up_at_once", "failure_horizon", "why_endless",
           "worst_expected_restarts"]


@dataclass(frozen=True)
class StopPoint:
    """When and how a running job can be stopped for node stealing ([Du2024] §7.2.2,
    :meth:`Checkpointing.stop_point`): ``wait`` from now (the paper's ``t_checkpoint``) until it
    stops, having then saved the position ``saved`` of its extended execution (the paper's
    ``t_useful`` is ``saved`` minus what it had saved when its attempt started); ``proactive``:
    it takes a proactive checkpoint of ``C`` to get there; ``completes``: it completes first
    (``wait`` is then the rest of its run), and hands its nodes over at its end."""

    wait: float
    saved: float
    proactive: bool = False
    completes: bool = False


@dataclass(frozen=True)
class Checkpointing:
    """Checkpoint cost ``cost`` (C), recovery cost ``recovery`` (R; ``None``: R = C) and the
    node MTBF ``node_mtbf`` (mu_ind) that sets each job's Young/Daly period.

    ``cost = 0`` (the default) means no checkpointing: a failed job restarts from scratch, after
    ``recovery`` (default 0).

    >>> ck = Checkpointing(cost=300.0, node_mtbf=5.61 * 365 * 86400)
    >>> round(ck.period(128) / 3600, 2)  # §6.1: about 8 hours for a 128-node job
    8.0
    >>> ck.checkpoints(7 * 3600.0, 128), ck.extended(7 * 3600.0, 128) == 7 * 3600.0
    (0, True)
    """

    cost: float = 0.0
    recovery: float | None = None
    node_mtbf: float = math.inf
    final_checkpoint: bool = False

    def __post_init__(self) -> None:
        for name in ("cost", "recovery", "node_mtbf"):
            v = getattr(self, name)
            if v is None and name == "recovery":
                continue
            if not isinstance(v, (int, float)) or math.isnan(v) or v < 0 or (name != "node_mtbf" and math.isinf(v)):
                raise ValueError(f"checkpointing: {name.replace('_', ' ')} must be a number >= 0, got {v!r}")
        if self.node_mtbf == 0:
            raise ValueError("checkpointing: node mtbf must be > 0")
        if self.cost > 0 and math.isinf(self.node_mtbf):
            raise ValueError("checkpointing: a checkpoint cost needs the node MTBF (the Young/Daly period)")

    @property
    def enabled(self) -> bool:
        return self.cost > 0

    @property
    def R(self) -> float:
        """The recovery cost: ``recovery``, or ``cost`` when not given."""
        return float(self.cost if self.recovery is None else self.recovery)

    def period(self, nodes: int) -> float:
        """``P_YD = sqrt(2 (mu_ind / nodes) C)`` of work between checkpoints (``inf`` without
        checkpointing)."""
        if not self.enabled:
            return math.inf
        return math.sqrt(2.0 * (self.node_mtbf / nodes) * self.cost)

    def checkpoints(self, work: float, nodes: int) -> int:
        """How many checkpoints a job of ``work`` on ``nodes`` takes (module docstring)."""
        T = self.period(nodes)
        if math.isinf(T):
            return 0
        k = math.ceil(work / T)
        return int(k if self.final_checkpoint else max(k - 1, 0))

    def extended(self, work: float, nodes: int) -> float:
        """``work`` plus its checkpoints: eq. (1) for a length, eq. (2) for a wall time."""
        return float(work) + self.checkpoints(work, nodes) * self.cost

    def per_job(self, work: np.ndarray, walltime: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, ...]:
        """For arrays of jobs: ``(K, E, W_ckpt, T + C)``, the checkpoints of a whole run, the
        extended length (eq. (1)), the extended wall time (eq. (2)) and the block length -- the
        same numbers as :meth:`checkpoints`, :meth:`extended` and :meth:`period`, element by
        element (the same IEEE operations, vectorised)."""
        work = np.asarray(work, dtype=np.float64)
        walltime = np.asarray(walltime, dtype=np.float64)
        nodes = np.asarray(nodes, dtype=np.int64)
        if not self.enabled:
            zero = np.zeros(work.shape, dtype=np.int64)
            return zero, work.copy(), walltime.copy(), np.full(work.shape, math.inf)
        T = np.sqrt(2.0 * (self.node_mtbf / nodes) * self.cost)
        shift = 0 if self.final_checkpoint else 1

        def count(x: np.ndarray) -> np.ndarray:
            return np.maximum(np.ceil(x / T).astype(np.int64) - shift, 0)

        K = count(work)
        return K, work + K * self.cost, walltime + count(walltime) * self.cost, T + self.cost

    def saved(self, elapsed: float, nodes: int, checkpoints: int) -> int:
        """How many of the next ``checkpoints`` checkpoints an attempt completes in ``elapsed``
        time after its recovery (blocks of ``T + C``; a checkpoint ending exactly at
        ``elapsed`` is complete)."""
        if checkpoints <= 0 or elapsed <= 0:
            return 0
        block = self.period(nodes) + self.cost
        m = int(math.floor(elapsed / block))
        if (m + 1) * block <= elapsed:  # guard against a quotient rounded down
            m += 1
        return min(m, checkpoints)


    def stop_point(self, timing: int, *, t_run: float, recovery: float, saved: float, work: float,
                   nodes: int, checkpoints: int) -> StopPoint:
        """When a running job can give its nodes away, by node-stealing timing ``timing``
        ([Du2024] §7.1): 1, at once; 2, after a proactive checkpoint; 3, at the end of its next
        regular checkpoint. ``t_run`` is the time since its attempt started, ``recovery`` that
        attempt's recovery, ``saved`` what it had saved then (``U``), ``work`` its length ``L``,
        ``checkpoints`` its ``K``.

        Derived from the layout of the extended execution (module docstring), not from the
        printed Figs. 15-16 (docs/stealing.md lists the departures): the job is at position
        ``p = U + t_run - recovery``.

        * In its recovery (``t_run <= recovery``), or with nothing unsaved (``p`` is where its
          last checkpoint, regular or proactive, ended): it stops at once, nothing lost (Fig. 15
          case 1).
        * Inside a regular checkpoint (one that starts at ``p`` included): it stops when that
          checkpoint ends (cases 3 and 5; T3 alike).
        * In its work: T1 stops at once (it keeps its last checkpoint); T2 takes a proactive
          checkpoint of ``C`` and saves ``p`` (cases 2 and 4) -- unless it would complete first;
          T3 waits for the end of its next regular checkpoint, or completes first when none is
          left.

        Without checkpointing (``C = 0``) a job cannot checkpoint: T2 stops at once as T1, T3
        waits for the job's end.
        """
        if timing not in (1, 2, 3):
            raise ValueError(f"node-stealing timing must be 1, 2 or 3, got {timing!r}")
        K = int(checkpoints)
        E = float(work) + K * self.cost
        U = float(saved)
        if t_run <= recovery:
            return StopPoint(0.0, U)
        p = U + (t_run - recovery)
        B = self.period(nodes) + self.cost if self.enabled else math.inf
        m = self.saved(p, nodes, K) if self.enabled else 0  # regular checkpoints ended by p
        done = max(U, m * B) if m else U  # what stopping now keeps
        if timing == 1 or (timing == 2 and not self.enabled):
            return StopPoint(0.0, done)
        if m < K:
            final = self.final_checkpoint and m + 1 == K
            end = E if final else (m + 1) * B
            if p >= end - self.cost:  # inside that checkpoint
                return StopPoint(end - p, end, completes=final)
        if p <= done:
            return StopPoint(0.0, done)
        if timing == 2:
            if E - p <= self.cost:
                return StopPoint(E - p, E, completes=True)
            return StopPoint(self.cost, p, proactive=True)
        if m < K and not (self.final_checkpoint and m + 1 == K):
            end = (m + 1) * B
            return StopPoint(end - p, end)
        return StopPoint(E - p, E, completes=True)


#: no checkpointing, no recovery cost: a failed job restarts from scratch at once
NO_CHECKPOINTING = Checkpointing()


#: a run where some job expects more restarts than this per checkpoint period (per run without
#: checkpoints) is refused before it starts: it would not end (the campaigns' ``max_restarts``)
MAX_EXPECTED_RESTARTS = 1e4


def worst_expected_restarts(workload: Workload, checkpointing: Checkpointing, node_mtbf: float) -> tuple[float, int]:
    """The largest expected number of restarts of a job's segment, and that job's index.

    A segment is what a job must run without a failure on any of its ``q`` nodes: its checkpoint
    period (its length without checkpointing), plus the checkpoint and the recovery. Node
    failures being Poisson of rate ``1 / node_mtbf``, it succeeds with probability ``exp(-q
    seg / node_mtbf)`` and is restarted ``exp(q seg / node_mtbf) - 1`` times on average
    (``inf`` past the floats). Used by ``coschedule batch`` and the batch campaigns to refuse,
    up front, a run that would not end."""
    nodes = np.asarray(workload.nodes, dtype=np.float64)
    if not len(nodes) or not math.isfinite(node_mtbf):
        return 0.0, 0
    period = {p: checkpointing.period(p) for p in set(workload.nodes.tolist())}
    seg = np.minimum(workload.length, [period[p] for p in workload.nodes.tolist()]) + checkpointing.cost + \
        checkpointing.R
    x = nodes * seg / node_mtbf
    j = int(np.argmax(x))
    with np.errstate(over="ignore"):
        return float(np.expm1(x[j])), j



def chance_up_at_once(n_nodes: int, width: int, node_mtbf: float, downtime: float) -> float:
    """The long-run chance that ``width`` of ``n_nodes`` nodes are up at once, when each node
    fails at rate ``1 / node_mtbf`` while up and stays down ``downtime`` seconds after each
    failure: each is up ``a = mu / (mu + D)`` of the time, independently, and the chance is the
    binomial tail ``P(B(n_nodes, a) >= width)``. A job of that width waits about the inverse of it
    (in turns of the nodes' states) for a start, while the failures drawn for the wait grow
    without end: ``coschedule batch KTH-SP2 --node-mtbf 1e7 --downtime 1e13`` ran until stopped.
    Used with :func:`worst_expected_restarts` to refuse such a run up front."""
    if width <= 0 or downtime <= 0 or not math.isfinite(node_mtbf):
        return 1.0
    if width > n_nodes:
        return 0.0
    a = node_mtbf / (node_mtbf + downtime)
    if a <= 0.0:
        return 0.0
    if a >= 1.0:
        return 1.0
    # log P(B = k) for k = n, n-1, ..., width: from P(B = n) = a^n by P(k-1) / P(k) = k (1-a) / ((n-k+1) a)
    k = np.arange(n_nodes, width, -1, dtype=np.float64)
    steps = np.log(k) - np.log(n_nodes - k + 1) + math.log1p(-a) - math.log(a)
    logp = n_nodes * math.log(a) + np.concatenate(([0.0], np.cumsum(steps)))
    top = float(logp.max())
    return math.exp(top + math.log(float(np.exp(logp - top).sum()))) if math.isfinite(top) else 0.0


def failure_horizon(workload: Workload, checkpointing: Checkpointing) -> float:
    """How long a drawn failure trace first lasts: the last submission plus twice the time the
    whole work would take on the full platform, plus twice the longest wall time (a run that
    outlives it is run again on a trace twice as long, which extends the first)."""
    work = float((workload.length * workload.nodes).sum()) / workload.n_nodes
    longest = float(workload.walltime.max()) if workload.n else 0.0
    scale = 1.0
    if checkpointing.enabled:
        scale = 1.0 + checkpointing.cost / max(checkpointing.period(1), 1.0)
    return float(workload.submit.max() if workload.n else 0.0) + 2.0 * scale * work + 2.0 * longest + 86400.0


def why_endless(workload: Workload, checkpointing: Checkpointing, node_mtbf: float, downtime: float, *,
                limit: float = MAX_EXPECTED_RESTARTS, options: bool = True) -> str | None:
    """Why a run of ``workload`` under drawn failures would not end, or ``None`` when it would:
    some job expects more than ``limit`` restarts of a segment (:func:`worst_expected_restarts`),
    or the widest job waits for more nodes up at once than ``downtime`` leaves a chance of
    (:func:`chance_up_at_once`, past ``1 / limit``). The one check of ``coschedule batch``
    (``options``: the settings named as its options, ``--node-mtbf 50 s``) and of the batch
    campaigns (``node_mtbf = 50 s``, and their ``max_restarts``). Also refused: a first failure
    trace (:func:`failure_horizon`) that :func:`~coschedule.sim.failures.poisson_failures` would
    not draw (:func:`~coschedule.sim.failures.too_long_to_draw`)."""
    from coschedule.units import format_seconds

    from .failures import MAX_HORIZON, too_long_to_draw

    def setting(name: str, value: float) -> str:
        return f"--{name.replace('_', '-')} {format_seconds(value)}" if options else f"{name} = {format_seconds(value)}"

    def named(name: str) -> str:
        return f"--{name.replace('_', '-')}" if options else name

    def remedies(*ways: str) -> str:
        ways = ways if options else (*ways, "raise max_restarts")
        return ", ".join(ways[:-1]) + " or " + ways[-1] if len(ways) > 1 else ways[0]

    bound = f"the limit is {limit:g}" if options else f"max_restarts = {limit:.3g}"
    expected, j = worst_expected_restarts(workload, checkpointing, node_mtbf)
    if expected > limit:
        ck = checkpointing.enabled
        job = f"job {workload.ids[j]} ({int(workload.nodes[j])} nodes, {float(workload.length[j]):g} s)"
        return (f"{job} expects {expected:.3g} restarts per {'checkpoint period' if ck else 'run'} at "
                f"{setting('node_mtbf', node_mtbf)} ({bound}): the run would not end; "
                + remedies(f"raise {named('node_mtbf')}", f"{'lower' if ck else 'give'} {named('checkpoint_cost')}"))
    if not workload.n:
        return None
    horizon = failure_horizon(workload, checkpointing)
    problem = too_long_to_draw(workload.n_nodes, node_mtbf, horizon)
    if problem:
        return f"{problem}: the run would not end; " + (
            "shorten its jobs or give it more nodes" if horizon > MAX_HORIZON else f"raise {named('node_mtbf')}")
    j = int(workload.nodes.argmax())
    width = int(workload.nodes[j])
    chance = chance_up_at_once(workload.n_nodes, width, node_mtbf, downtime)
    if chance * limit < 1:
        return (f"job {workload.ids[j]} waits for {width:,} of the {workload.n_nodes:,} nodes up at once, a chance "
                f"of {chance:.3g} with {setting('downtime', downtime)} after each failure at "
                f"{setting('node_mtbf', node_mtbf)} ({bound}): the run would not end; "
                + remedies(f"lower {named('downtime')}", f"raise {named('node_mtbf')}"))
    return None
