"""The event loop of the online simulators of rigid jobs on nodes that fail (ARCHITECTURE.md,
"Online simulation"): the batch scheduler (FCFS, EASY, conservative backfilling, node stealing)
and the torus scheduler run on it; a *policy* takes the decisions through :class:`Policy`.

Model
-----
* ``n_nodes`` nodes ``0 .. N-1``. A job of the :class:`~coschedule.sim.workload.Workload` runs on
  ``nodes[j]`` of them, for its length extended by its checkpoints
  (:mod:`~coschedule.sim.checkpointing`); the scheduler plans with its wall time, extended the
  same way.
* A failure (:class:`~coschedule.sim.failures.FailureTrace`) makes its node *down* for the
  downtime ``D``, then the node is back (a ``RECOVERY`` event). A failure on a node already down
  is ignored: the node cannot fail twice (:func:`~coschedule.sim.failures.poisson_failures`
  never draws one; a trace read from a file may hold one). With ``D = 0`` a failure is
  transient: it interrupts the job but the node stays up. A failure on an idle node only takes
  the node down. A failure on a node running job ``j`` ends ``j``'s attempt: what ``j`` saved
  by its last checkpoint is kept, the rest is lost; ``j`` still holds its other nodes and the
  policy decides at once (:meth:`Policy.job_failed`): restart ``j`` now
  (:meth:`Simulation.start`) or put it back in the queue (:meth:`Simulation.requeue`).
* A restarted job runs ``R + E - U`` with the wall time ``R + W - U`` (eq. (4) of §7.2 with
  the job's saved time ``U``; :mod:`~coschedule.sim.checkpointing`).

One instant
-----------
Events come from one :class:`~coschedule.sim.events.EventQueue` (ties: ends, then recoveries,
then failures, then submissions; each kind in push order; failures of one instant in the
trace's order, nodes by index). Every event of an instant is applied, failures one at a time
(each one's :meth:`Policy.job_failed` before the next), and only then the policy decides once
(:meth:`Policy.decide`), seeing what changed in an :class:`Instant`. A job that ends at the
very instant one of its nodes fails has completed. A job never starts before its submission:
the engine refuses it.

Records
-------
Every attempt is an :class:`~.result.Attempt` (start, end, nodes, recovery time, saved time before
and after, outcome), every applied failure a :class:`~.result.FailureRecord`;
:class:`~.result.SimulationResult` holds them with the parameters, for the validator
(:mod:`coschedule.sim.validate`), the metrics (:mod:`coschedule.sim.metrics`) and ``jobs.csv``.
The records are defined in :mod:`.result` and importable from here too.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

import numpy as np

from coschedule.errors import PolicyError

from .checkpointing import NO_CHECKPOINTING, Checkpointing
from .events import EventKind, EventQueue
from .failures import FailureTrace
from .policy import Instant, Policy
from .result import (
    CHECKPOINTED,
    COMPLETED,
    FAILED,
    INTERRUPTED,
    MIGRATED,
    REACTIONS,
    Attempt,
    FailureRecord,
    HoldRecord,
    LazyAttempts,
    SimulationResult,
    StealRecord,
)
from .workload import Workload

__all__ = [
    "CHECKPOINTED",
    "COMPLETED",
    "FAILED",
    "INTERRUPTED",
    "MIGRATED",
    "PRIORITY_FAILED",
    "PRIORITY_REGULAR",
    "PRIORITY_VICTIM",
    "REACTIONS",
    "Attempt",
    "FailureRecord",
    "HoldRecord",
    "Instant",
    "LazyAttempts",
    "Policy",
    "Simulation",
    "SimulationResult",
    "StealRecord",
    "simulate",
]

#: restart priorities of [Du2024] §4.2: a failed job, a node-stealing victim, a regular job
PRIORITY_FAILED, PRIORITY_VICTIM, PRIORITY_REGULAR = 3, 2, 1

# job states
WAITING, RUNNING, DONE, UNSUBMITTED, HELD = 0, 1, 2, 3, 4


class Simulation:
    """One run: the state a policy reads, and the two actions it takes (:meth:`start`,
    :meth:`requeue`). Build it, then :meth:`run`."""

    def __init__(
        self,
        workload: Workload,
        policy: Policy,
        *,
        failures: FailureTrace | None = None,
        downtime: float = 0.0,
        checkpointing: Checkpointing = NO_CHECKPOINTING,
        n_nodes: int | None = None,
        migration_cost: float = 0.0,
    ) -> None:
        N = workload.n_nodes if n_nodes is None else int(n_nodes)
        if N < 1:
            raise ValueError(f"the platform needs at least one node, got {N}")
        wide = np.flatnonzero(workload.nodes > N)
        if wide.size:
            k = int(wide[0])
            raise ValueError(f"job {workload.ids[k]}: {workload.nodes[k]} nodes, wider than the platform ({N})")
        if N != workload.n_nodes:  # the result's workload says on how many nodes it ran
            workload = dataclasses.replace(workload, n_nodes=N)
        if not (isinstance(downtime, (int, float)) and math.isfinite(downtime) and downtime >= 0):
            raise ValueError(f"downtime must be a finite number >= 0, got {downtime!r}")
        if not (isinstance(migration_cost, (int, float)) and math.isfinite(migration_cost) and migration_cost >= 0):
            raise ValueError(f"migration cost must be a finite number >= 0, got {migration_cost!r}")
        self.migration_cost = float(migration_cost)
        if failures is not None and failures.n_nodes != N:
            raise ValueError(f"the failure trace is for {failures.n_nodes} nodes, the platform has {N}")
        self.workload = workload
        self.policy = policy
        self.failures = failures if failures is not None else FailureTrace.none(N)
        self.downtime = float(downtime)
        self.checkpointing = checkpointing
        self.n_nodes = N
        n = workload.n
        self.n = n
        # per job (Python lists: read and written one element at a time)
        self.submit: list[float] = workload.submit.tolist()
        # the instant of the job's latest (re)submission ([Du2024] Algorithm 1 "submits the
        # remaining part" of a failed or stolen-from job again): its first submission until it
        # is put back in the queue (:meth:`requeue`) or restarted at once after a failure or a
        # steal (:meth:`start` of a failed job holding nodes); a proactive checkpoint's resume
        # and a migration continue the same submission. Policies read it or ``submit``.
        self.release: list[float] = list(self.submit)
        self.procs: list[int] = workload.nodes.tolist()
        K, E, W, block = checkpointing.per_job(workload.length, workload.walltime, workload.nodes)
        self.checkpoints: list[int] = K.tolist()
        self.length: list[float] = E.tolist()
        self.wall_full: list[float] = W.tolist()
        self.block: list[float] = block.tolist()
        self.state: list[int] = [UNSUBMITTED] * n
        self.priority: list[int] = [PRIORITY_REGULAR] * n
        self.saved: list[float] = [0.0] * n  # U
        self.saved_count: list[int] = [0] * n  # checkpoints completed
        self.attempt: list[int] = [0] * n
        self.exec: list[float] = list(self.length)  # the current (or next) attempt's length
        self.wall: list[float] = list(self.wall_full)  # ... and wall time
        self.recovery: list[float] = [0.0] * n
        self.start_time: list[float] = [math.nan] * n
        self.held: list[tuple[int, ...]] = [()] * n
        self.completion = np.full(n, math.nan)
        self.first_start = np.full(n, math.nan)
        # per node
        self.node_job = np.full(N, -1, dtype=np.int64)  # -1: idle
        self.up = np.ones(N, dtype=bool)
        self.up_at = np.zeros(N)  # when a down node is back
        self.n_down = 0  # nodes down now
        self._node_ints = np.array(range(N), dtype=object)  # node numbers as shared int objects
        self.running: dict[int, float] = {}  # job -> planned end of its attempt
        self._end_event: dict[int, object] = {}
        self.events = EventQueue()
        self.now = 0.0
        self._attempts: list[Attempt] = []
        self._failures: list[FailureRecord] = []
        self._instant: Instant | None = None
        # node stealing ([Du2024] §7): proactive checkpoints, placeholders, steals
        self.paused: dict[int, float] = {}  # job -> when its work stopped for a proactive checkpoint
        self.holds: dict[int, float] = {}  # failed job keeping its nodes -> until when (planned)
        self._hold_since: dict[int, float] = {}
        self._holds: list[HoldRecord] = []
        self._steals: list[StealRecord] = []
        self.last_nodes: dict[int, tuple[int, ...]] = {}  # a completed job -> its nodes
        self._stole = False  # a steal was decided during the current job_failed

    # ------------------------------------------------------------------ queries
    def free_mask(self) -> np.ndarray:
        """Nodes up and idle."""
        return self.up & (self.node_job < 0)

    def free_count(self) -> int:
        return int(np.count_nonzero(self.free_mask()))

    def lowest_free(self, count: int, exclude: Sequence[int] = ()) -> list[int]:
        """The ``count`` lowest-index nodes up and idle (fewer if there are not enough)."""
        mask = self.free_mask()
        if len(exclude):
            mask[np.asarray(exclude, dtype=np.int64)] = False
        return np.flatnonzero(mask)[:count].tolist()

    def down_nodes(self) -> list[tuple[int, float]]:
        """``(node, back at)`` of every node down now."""
        if not self.n_down:
            return []
        return [(int(x), float(self.up_at[x])) for x in np.flatnonzero(~self.up)]

    def is_waiting(self, j: int) -> bool:
        return self.state[j] == WAITING

    def is_running(self, j: int) -> bool:
        return self.state[j] == RUNNING

    def is_done(self, j: int) -> bool:
        return self.state[j] == DONE

    def progress(self, j: int) -> tuple[float, float, float]:
        """``(t_run, recovery, saved)`` of running job ``j``: the time since its attempt
        started (up to now, or to when it stopped for a proactive checkpoint), the attempt's
        recovery and what it had saved when it started; its position in its extended
        execution is ``saved + t_run - recovery`` once ``t_run > recovery``."""
        if self.state[j] != RUNNING:
            raise self._broke(j, "is not running")
        stop = self.paused.get(j, self.now)
        return stop - self.start_time[j], self.recovery[j], self.saved[j]

    def _broke(self, j: int | None, rule: str) -> PolicyError:
        """The one-line error of a policy that broke ``rule`` (about job ``j``) now."""
        name = getattr(self.policy, "name", type(self.policy).__name__)
        job = "" if j is None else f"job {self.workload.ids[j]}: "
        return PolicyError(f"policy {name!r} at t = {self.now:g} s: {job}{rule}")

    # ------------------------------------------------------------------ actions
    def start(self, j: int, nodes: Sequence[int]) -> None:
        """Start job ``j`` (waiting, or failed and holding nodes) now on ``nodes``; a failed job
        restarted so is resubmitted now (:attr:`release`)."""
        self._start(j, nodes, resubmit=True)

    def _start(self, j: int, nodes: Sequence[int], *, resubmit: bool) -> None:
        st = self.state[j]
        if st not in (WAITING, HELD) and st != UNSUBMITTED:
            raise self._broke(j, "cannot start: it is not waiting")
        if st == UNSUBMITTED or self.now < self.submit[j]:
            raise self._broke(j, f"cannot start before its submission (at {self.submit[j]:g} s)")
        idx, held, own = self._check_nodes(j, nodes)
        if j in self.holds:
            self._close_hold(j)
        if own:  # held nodes it does not use go back
            kept = np.array(own, dtype=np.int64)
            self.node_job[kept[~np.isin(kept, idx)]] = -1
        self.node_job[idx] = j
        self.held[j] = held
        if st == HELD and resubmit:
            self.release[j] = self.now
        self.state[j] = RUNNING
        self.start_time[j] = self.now
        if math.isnan(self.first_start[j]):
            self.first_start[j] = self.now
        end = self.now + self.exec[j]
        self.running[j] = end
        self._end_event[j] = self.events.push(end, EventKind.END, j)

    def _check_nodes(self, j: int, nodes: Sequence[int]) -> tuple[np.ndarray, tuple[int, ...], tuple[int, ...]]:
        """``nodes`` as an array and as a sorted tuple, and the nodes ``j`` held, once checked:
        ``procs[j]`` distinct nodes, each up and idle or held by ``j``. A few nodes are checked
        in Python, many in numpy (jobs of 10^4 nodes), with the same outcome and messages; the
        tuple of many nodes is made of the platform's shared node numbers (:attr:`_node_ints`),
        so that the attempts of large jobs do not each keep their own integer objects."""
        own = self.held[j]
        held: tuple[int, ...] = ()
        if len(nodes) <= 32:
            listed = [int(x) for x in nodes]
            distinct = len(set(listed)) == len(listed)
        else:
            listed = np.array(nodes, dtype=np.int64).reshape(-1)
            ordered = np.sort(listed)
            distinct = not bool((ordered[1:] == ordered[:-1]).any())
        if len(listed) != self.procs[j] or not distinct:
            raise self._broke(j, f"needs {self.procs[j]} distinct nodes, got "
                              f"{listed if isinstance(listed, list) else listed.tolist()}")
        ends = listed if isinstance(listed, list) else (ordered[0], ordered[-1])
        outside = [x for x in ends if not 0 <= x < self.n_nodes]
        if outside:
            raise self._broke(j, f"node {int(outside[0])} does not exist (the nodes are 0..{self.n_nodes - 1})")
        if isinstance(listed, list):
            up, node_job, mine = self.up, self.node_job, set(own)
            busy = [x for x in listed if not up[x] or (node_job[x] >= 0 and x not in mine)]
            idx = np.asarray(listed, dtype=np.int64)
            held = tuple(sorted(listed))
        else:
            idx = listed
            taken = self.node_job[idx] >= 0
            if own:
                taken &= ~np.isin(idx, own)
            busy = idx[~self.up[idx] | taken].tolist()
            if not busy:
                held = tuple(self._node_ints[ordered].tolist())
        if busy:
            raise self._broke(j, f"nodes {busy} are down or busy")
        return idx, held, own

    def requeue(self, j: int, priority: int = PRIORITY_FAILED) -> None:
        """Put failed job ``j`` back in the queue with ``priority``; it releases its nodes and is
        resubmitted now (:attr:`release`)."""
        if self.state[j] != HELD:
            raise self._broke(j, "is not a failed job holding nodes")
        if j in self.holds:
            self._close_hold(j)
        held = np.array(self.held[j], dtype=np.int64)
        self.node_job[held[self.node_job[held] == j]] = -1
        self.held[j] = ()
        self.state[j] = WAITING
        self.priority[j] = int(priority)
        self.release[j] = self.now
        if self._instant is not None and self.now == self._instant.now:
            self._instant.requeued.append(j)

    def migrate(self, moves: Mapping[int, Sequence[int]]) -> None:
        """Move running jobs to other nodes now ([Oliner2004] §3.2: checkpoint, move, restart;
        Krevat's migration): each job of ``moves`` ends its attempt ``migrated``, saving where
        its work stopped, and goes on at once on its new nodes, after a recovery of the run's
        ``migration_cost``. All jobs leave their nodes before any takes its new ones, so jobs
        may swap nodes."""
        for j in moves:
            if self.state[j] != RUNNING or j in self.paused:
                raise self._broke(j, "cannot migrate: it is not running")
        for j in moves:
            elapsed = self.now - self.start_time[j] - self.recovery[j]
            self.interrupt(j, MIGRATED, saved=self.saved[j] + max(elapsed, 0.0))
            held = np.array(self.held[j], dtype=np.int64)
            self.node_job[held] = -1
            self.held[j] = ()
            self.recovery[j] = self.migration_cost
            self.exec[j] = self.migration_cost + self.length[j] - self.saved[j]
            self.wall[j] = self.migration_cost + self.wall_full[j] - self.saved[j]
        for j, nodes in moves.items():
            self._start(j, nodes, resubmit=False)

    # ------------------------------------------------------------------ node stealing
    def hold(self, j: int, until: float) -> None:
        """Failed job ``j`` keeps its surviving nodes idle (a placeholder, [Du2024] §7.2.1)
        until it gets a stolen node, planned at ``until``; it ends with :meth:`steal`,
        :meth:`start` or :meth:`requeue`."""
        if self.state[j] != HELD or j in self.holds:
            raise self._broke(j, "is not a failed job holding nodes")
        if not self.held[j]:
            raise self._broke(j, "holds no node to keep")
        self.holds[j] = float(until)
        self._hold_since[j] = self.now
        self._stole = True

    def _close_hold(self, j: int, *, keep_empty: bool = False) -> None:
        since = self._hold_since.pop(j)
        del self.holds[j]
        if self.now > since or keep_empty:
            self._holds.append(HoldRecord(j, since, self.now, self.held[j]))

    def suspend(self, j: int) -> None:
        """Running job ``j`` stops its work now to take a proactive checkpoint (timing T2 of
        [Du2024] §7.1): it will not complete; :meth:`interrupt` with ``proactive=True`` ends it
        once the checkpoint is done, :meth:`resume` lets it go on."""
        if self.state[j] != RUNNING or j in self.paused:
            raise self._broke(j, "is not running")
        self.paused[j] = self.now
        self.events.cancel(self._end_event.pop(j))
        self.running[j] = math.inf

    def resume(self, j: int) -> None:
        """Suspended job ``j`` has taken its proactive checkpoint and goes on now, on the same
        nodes, without recovery (its steal was cancelled): the attempt ends ``checkpointed``
        and the next one starts at once."""
        if j not in self.paused:
            raise self._broke(j, "is not suspended")
        nodes = self.held[j]
        self.interrupt(j, CHECKPOINTED, proactive=True)
        self.recovery[j] = 0.0
        self.exec[j] = self.length[j] - self.saved[j]
        self.wall[j] = self.wall_full[j] - self.saved[j]
        self._start(j, nodes, resubmit=False)

    def steal(self, failed: int, victim: int, count: int, *, decided: float, timing: int) -> tuple[int, ...]:
        """Give ``count`` nodes of ``victim`` to ``failed`` now ([Du2024] Algorithm 1): the
        victim was just interrupted (it holds its nodes) or has just completed; the failed job
        (holding its surviving nodes) starts on them plus the victim's ``count`` lowest-index
        nodes (of a completed victim, among those still up and idle); the victim, if
        interrupted, goes back to the queue with priority 2 and frees its other nodes. Returns
        the stolen nodes."""
        if self.state[failed] != HELD:
            raise self._broke(failed, "is not a failed job holding nodes")
        if self.state[victim] == HELD:
            pool = self.held[victim]
        elif self.state[victim] == DONE and self.completion[victim] == self.now:
            pool = tuple(x for x in self.last_nodes[victim] if self.up[x] and self.node_job[x] < 0)  # still free
        else:
            raise self._broke(victim, "was neither interrupted nor completed now")
        if not 0 < count <= len(pool):
            raise self._broke(victim, f"cannot steal {count} of its {len(pool)} nodes")
        stolen = tuple(sorted(pool)[:count])
        if self.state[victim] == HELD:
            self.requeue(victim, PRIORITY_VICTIM)
        self.start(failed, list(self.held[failed]) + list(stolen))
        self._steals.append(StealRecord(float(decided), self.now, failed, victim, stolen, int(timing)))
        self._stole = True
        return stolen

    def cancel_steal(self, failed: int, victim: int, *, decided: float, timing: int, reason: str) -> None:
        """Record a steal that will not happen (``reason``); the policy requeues or restarts
        the failed job itself."""
        self._steals.append(StealRecord(float(decided), self.now, failed, victim, (), int(timing), reason))

    def wake(self, t: float, data: object) -> None:
        """Call the policy's ``wake(sim, data, instant)`` at ``t`` (a CHECKPOINT event: after
        the jobs that end at ``t``, before the failures)."""
        if t < self.now:
            raise self._broke(None, f"cannot wake at {t:g} s, before now")
        self.events.push(t, EventKind.CHECKPOINT, data)

    # ------------------------------------------------------------------ the loop
    def run(self) -> SimulationResult:
        """Simulate until every job has completed; the executed schedule."""
        ev = self.events
        for j in range(self.n):
            ev.push(self.submit[j], EventKind.SUBMIT, j)
        tr = self.failures
        for t, x in zip(tr.times.tolist(), tr.nodes.tolist()):
            ev.push(t, EventKind.FAILURE, x)
        self.policy.reset(self)
        done = 0
        while done < self.n:
            batch = ev.pop_instant()
            if not batch:
                left = next(j for j in range(self.n) if self.state[j] == WAITING)
                raise self._broke(left, "still waits, and nothing is running: the policy never started it")
            self.now = now = batch[0].time
            self._instant = inst = Instant(now)
            useful = False
            for e in batch:
                kind = e.kind
                if kind == EventKind.END:
                    self._end(e.data, inst)
                    done += 1
                    useful = True
                elif kind == EventKind.SUBMIT:
                    self.state[e.data] = WAITING
                    inst.submitted.append(e.data)
                    useful = True
                elif kind == EventKind.FAILURE:
                    useful |= self._fail(e.data, inst)
                elif kind == EventKind.CHECKPOINT:
                    self.policy.wake(self, e.data, inst)  # type: ignore[attr-defined]
                    useful = True
                elif kind == EventKind.RECOVERY:
                    x = e.data
                    self.up[x] = True
                    self.n_down -= 1
                    inst.recovered.append(x)
                    useful = True
            if useful:
                self.policy.decide(self, inst)
        return self._result()

    def _end(self, j: int, inst: Instant) -> None:
        start = self.start_time[j]
        self._attempts.append(Attempt(j, self.attempt[j], start, self.now, self.held[j], self.recovery[j],
                                      self.saved[j], self.saved[j], COMPLETED))
        self.node_job[np.array(self.held[j], dtype=np.int64)] = -1
        self.last_nodes[j] = self.held[j]
        self.held[j] = ()
        self.state[j] = DONE
        del self.running[j]
        del self._end_event[j]
        self.completion[j] = self.now
        inst.ended.append(j)

    def _fail(self, x: int, inst: Instant) -> bool:
        """Apply a failure of node ``x`` now; False when it changes nothing (already down)."""
        if not self.up[x]:
            return False
        now = self.now
        back = now + self.downtime
        if back > now:  # a downtime of 0 is a transient failure: the node stays up
            self.up[x] = False
            self.n_down += 1
            self.up_at[x] = back
            self.events.push(back, EventKind.RECOVERY, x)
        j = int(self.node_job[x])
        inst.failed_nodes.append(x)
        if j < 0:
            self._failures.append(FailureRecord(now, x, back, j, self.free_count(), "idle"))
            return True
        self.node_job[x] = -1
        idle = self.free_count()
        inst.failed_jobs.append(j)
        self._stole = False
        if self.state[j] == HELD:  # a node a failed job keeps while it waits for a stolen one
            held = self.held[j]
            k = held.index(x)
            self._close_hold(j, keep_empty=True)  # its record shows the node it kept failed
            self.held[j] = held[:k] + held[k + 1:]
            self.policy.job_failed(self, j, x)  # it holds again (hold), restarts or requeues j
            if self.state[j] == HELD and j not in self.holds:
                raise self._broke(j, "failed, and the policy neither held, restarted nor requeued it")
            self._failures.append(FailureRecord(now, x, back, j, idle, "held"))
            return True
        self.interrupt(j, FAILED, failed_node=x)
        self.policy.job_failed(self, j, x)
        st = self.state[j]
        if st == HELD and j not in self.holds:
            raise self._broke(j, "failed, and the policy neither restarted nor requeued it")
        reaction = "steal" if self._stole else ("spare" if st == RUNNING else "wait")
        self._failures.append(FailureRecord(now, x, back, j, idle, reaction))
        return True

    def interrupt(self, j: int, outcome: str = INTERRUPTED, *, failed_node: int = -1,
                  saved: float | None = None, proactive: bool = False) -> None:
        """End ``j``'s running attempt now (a failure, or a policy's decision): it keeps what its
        completed checkpoints saved and holds its nodes (but ``failed_node``) until the policy
        restarts or requeues it.

        Node stealing ([Du2024] §7.2.2): ``saved`` is the position it saved when a policy stops
        it at the end of one of its regular checkpoints (timings T2, T3); ``proactive=True``
        ends a job suspended by :meth:`suspend` once its proactive checkpoint is done: it saved
        the position where its work stopped. A suspended job that fails keeps only what its
        regular checkpoints saved."""
        if self.state[j] != RUNNING:
            raise self._broke(j, "is not running")
        now = self.now
        start = self.start_time[j]
        stop = self.paused.pop(j, now)  # where its work stopped
        before = self.saved[j]
        ck = self.checkpointing
        count = self.saved_count[j]
        if proactive or saved is not None:
            if proactive:
                if stop == now and outcome != CHECKPOINTED:
                    raise self._broke(j, "took no proactive checkpoint")
                saved = before + max(stop - start - self.recovery[j], 0.0)
            self.saved[j] = float(saved)
            self.saved_count[j] = ck.saved(self.saved[j], self.procs[j], self.checkpoints[j]) if ck.enabled else 0
        else:
            elapsed = stop - start - self.recovery[j]
            if elapsed > 0:
                # the work since the last regular checkpoint end: 0 unless a proactive
                # checkpoint saved a position inside a block
                offset = before - count * self.block[j] if count else before
                k = ck.saved(elapsed + offset, self.procs[j], self.checkpoints[j] - count)
                if k:
                    self.saved_count[j] = count + k
                    self.saved[j] = self.saved_count[j] * self.block[j]
        self._attempts.append(Attempt(j, self.attempt[j], start, now, self.held[j], self.recovery[j],
                                      before, self.saved[j], outcome, now - stop))
        end_event = self._end_event.pop(j, None)
        if end_event is not None:
            self.events.cancel(end_event)
        del self.running[j]
        self.attempt[j] += 1
        R = ck.R
        self.recovery[j] = R
        self.exec[j] = R + self.length[j] - self.saved[j]
        self.wall[j] = R + self.wall_full[j] - self.saved[j]
        held = self.held[j]
        if failed_node in held:  # held nodes are distinct: drop the one that failed
            k = held.index(failed_node)
            held = held[:k] + held[k + 1:]
        self.held[j] = held
        self.state[j] = HELD

    def _result(self) -> SimulationResult:
        attempts = tuple(sorted(self._attempts, key=lambda a: (a.start, a.job, a.index)))
        if self.holds:  # pragma: no cover - every job completed, so none is held
            raise RuntimeError("a failed job still holds nodes at the end of the run")
        return SimulationResult(
            workload=self.workload, policy=self.policy.name, attempts=attempts,
            failures=tuple(self._failures), downtime=self.downtime, checkpointing=self.checkpointing,
            length=np.array(self.length), walltime=np.array(self.wall_full),
            checkpoints=np.array(self.checkpoints, dtype=np.int64), completion=self.completion.copy(),
            first_start=self.first_start.copy(), horizon=self.now,
            steals=tuple(self._steals), holds=tuple(self._holds), migration_cost=self.migration_cost,
        )


def simulate(
    workload: Workload,
    policy: Policy,
    *,
    failures: FailureTrace | None = None,
    downtime: float = 0.0,
    checkpointing: Checkpointing = NO_CHECKPOINTING,
) -> SimulationResult:
    """Run ``policy`` on ``workload`` (module docstring); the executed schedule."""
    return Simulation(workload, policy, failures=failures, downtime=downtime, checkpointing=checkpointing).run()
