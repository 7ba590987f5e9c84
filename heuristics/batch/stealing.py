"""Node stealing for failed jobs ([Du2024]: §4.2 SFSJ, §7 the 18 variants Hxyz, Algorithm 1),
on top of conservative backfilling (the paper's Baseline, :class:`~.batch.Conservative`).

When a failure hits a running job and a node that is up and idle can replace the failed one,
the job restarts at once, as with Baseline. Otherwise the policy picks *one* running job, the
victim (choice ``y``), tests one criterion on it (choice ``z``); if the criterion holds, it
takes a node of the victim for the failed job, at a time given by choice ``x``:

* **Victim** ``y`` (§4.2, §7.1). V1: among the running jobs with the fewest nodes, the one
  released latest; V2: the one released latest, then the fewest nodes. Between jobs equal on
  both keys, the one later in queue order (higher workload index): the §3 toy example needs
  J2, not J1. A job's release is read as the queue reads it (the ``release`` option of
  :mod:`.backfilling`): by default the instant of its latest resubmission, after a failure or
  a steal; with ``release="first"`` its first submission. ``victim_tiebreak="runtime"`` breaks V1's ties by the shortest running time
  instead (the latest start of the current attempt; the introduction's "has been running for
  the shortest time"). Never a victim: a job already chosen as one, or suspended for its
  proactive checkpoint.
* **Criterion** ``z`` (§7.1), on that one victim (no second candidate when it fails). K1: the
  victim has strictly fewer nodes than the failed job; K2: it was released strictly later;
  K3: the maximum of the two jobs' estimated flows is strictly smaller when stealing than when
  waiting (:meth:`NodeStealing.estimate`; ties: no stealing).
* **Timing** ``x`` (§7.1, §7.2.2; :meth:`~coschedule.sim.checkpointing.Checkpointing.stop_point`).
  T1: interrupt the victim now; T2: a proactive checkpoint of the victim first; T3: wait for
  the end of its next regular checkpoint. When the victim can stop at once (T1, or it is in its
  recovery, or has nothing unsaved) the failed job restarts at once. Otherwise the failed job
  keeps its surviving nodes (the paper's fictitious job: :meth:`~coschedule.sim.engine.Simulation.hold`)
  until the victim stops, then restarts on them plus the victim's lowest-index node; a failed
  job with no surviving node cannot wait so: no stealing, as Baseline. A victim that completes
  before it would stop hands its node over at its end.

The victim is interrupted and goes back to the queue with priority 2 (the failed job having
priority 3, the others 1), its other nodes freed. After a steal, or at any instant where a
stolen node changes hands, the whole plan is recomputed, as at a failure (§7.2.1).

Consecutive failures (§7.2.3) while a failed job waits for its stolen node, one failure at a
time in the engine's order (a failure on the victim first cancels, then is handled as any
failure):

* a failure on the victim (during its work, its proactive or its regular checkpoint) cancels
  the steal: the failed job goes back to the queue (priority 3) from its last checkpoint; the
  victim's failure is then handled by Algorithm 1 like any other;
* a failure on a node the failed job keeps: it has lost one more node. If the victim has fewer
  nodes than the failed job has lost, or the failed job has no node left, the steal is
  cancelled: the failed job goes back to the queue, the victim runs on (after its proactive
  checkpoint, if it was taking one: it goes on at once, on the same nodes, without recovery);
  otherwise the steal goes on with the same victim, which gives as many nodes as were lost.
"""

from __future__ import annotations

from dataclasses import dataclass

from coschedule.sim.checkpointing import StopPoint
from coschedule.sim.engine import PRIORITY_FAILED, Instant, Simulation
from coschedule.sim.result import INTERRUPTED

from .backfilling import Conservative

__all__ = ["STEALING_POLICIES", "NodeStealing", "stealing_policy"]

TIEBREAKS = ("release", "runtime")


@dataclass
class _Pending:
    """A steal decided at ``decided`` that waits for the victim to stop."""

    failed: int
    victim: int
    decided: float
    stop: StopPoint
    until: float
    lost: int = 1  # nodes the failed job has lost since the first failure


class NodeStealing(Conservative):
    """Conservative backfilling with node stealing Hxyz ([Du2024] §7; module docstring).

    ``timing`` x, ``victim`` y, ``criterion`` z as in the paper's names: ``NodeStealing(1, 1, 1)``
    is H111, SFSJ.
    """

    def __init__(self, timing: int = 1, victim: int = 1, criterion: int = 1, *, knows_downtime: bool = False,
                 victim_tiebreak: str = "release", release: str = "resubmission", reservations: str | None = None) -> None:
        super().__init__(knows_downtime=knows_downtime, release=release, reservations=reservations)
        for what, v, top in (("timing", timing, 3), ("victim", victim, 2), ("criterion", criterion, 3)):
            if v not in range(1, top + 1):
                raise ValueError(f"node stealing: {what} must be 1..{top}, got {v!r}")
        if victim_tiebreak not in TIEBREAKS:
            raise ValueError(f"node stealing: victim_tiebreak must be one of {', '.join(TIEBREAKS)}, "
                             f"got {victim_tiebreak!r}")
        self.timing, self.victim, self.criterion = int(timing), int(victim), int(criterion)
        self.victim_tiebreak = victim_tiebreak
        self.name = f"h{self.timing}{self.victim}{self.criterion}"

    def __repr__(self) -> str:
        return (f"NodeStealing(timing={self.timing}, victim={self.victim}, criterion={self.criterion}, "
                f"knows_downtime={self.knows_downtime}, victim_tiebreak={self.victim_tiebreak!r}, "
                f"release={self.release!r}, reservations={self.reservations!r})")

    def reset(self, sim: Simulation) -> None:
        super().reset(sim)
        self.pending: dict[int, _Pending] = {}  # failed job -> its steal
        self.victims: dict[int, _Pending] = {}  # victim -> the steal
        self._replan = False

    # ------------------------------------------------------------------ Algorithm 1
    def job_failed(self, sim: Simulation, job: int, node: int) -> None:
        pend = self.pending.get(job)
        if pend is not None:  # a node it kept failed (§7.2.3, second case)
            pend.lost += 1
            if sim.procs[pend.victim] < pend.lost:
                self._cancel(sim, pend, "the failed job lost more nodes than the victim has")
            elif not sim.held[job]:
                self._cancel(sim, pend, "the failed job has no node left")
            else:
                sim.hold(job, pend.until)
            return
        pend = self.victims.get(job)
        if pend is not None:  # the victim failed (§7.2.3, first case)
            self._cancel(sim, pend, "the victim failed")
        spare = sim.lowest_free(1)
        if spare:
            sim.start(job, list(sim.held[job]) + spare)
            return
        v = self.choose_victim(sim, job)
        if v < 0:
            return self._wait(sim, job)
        t_run, rec, saved = sim.progress(v)
        ck = sim.checkpointing
        stop = ck.stop_point(self.timing, t_run=t_run, recovery=rec, saved=saved,
                             work=float(sim.workload.length[v]), nodes=sim.procs[v], checkpoints=sim.checkpoints[v])
        if not self.accepts(sim, job, v, stop):
            return self._wait(sim, job)
        now = sim.now
        if stop.wait <= 0 and not stop.completes:
            sim.interrupt(v, INTERRUPTED)
            sim.steal(job, v, 1, decided=now, timing=self.timing)
            self._enqueue(sim, v)
            return
        if not sim.held[job]:  # no node to keep while waiting (§7.2.1)
            sim.cancel_steal(job, v, decided=now, timing=self.timing, reason="the failed job has no node left")
            return self._wait(sim, job)
        pend = _Pending(job, v, now, stop, now + stop.wait)
        sim.hold(job, pend.until)
        if stop.proactive:
            sim.suspend(v)
        self.pending[job] = pend
        self.victims[v] = pend
        if not stop.completes:
            sim.wake(pend.until, pend)

    def _wait(self, sim: Simulation, job: int) -> None:
        sim.requeue(job, PRIORITY_FAILED)
        self._enqueue(sim, job)

    def _cancel(self, sim: Simulation, pend: _Pending, reason: str) -> None:
        """The failed job goes back to the queue; the victim runs on (a suspended one goes on
        when its proactive checkpoint is done: :meth:`wake`)."""
        del self.pending[pend.failed]
        del self.victims[pend.victim]
        sim.cancel_steal(pend.failed, pend.victim, decided=pend.decided, timing=self.timing, reason=reason)
        self._wait(sim, pend.failed)

    def wake(self, sim: Simulation, pend: _Pending, instant: Instant) -> None:
        """The victim's checkpoint is done: the node changes hands (or, the steal cancelled, a
        suspended victim goes on)."""
        self._replan = True
        if self.pending.get(pend.failed) is not pend:  # cancelled
            if sim.paused.get(pend.victim) == pend.decided:  # still in that proactive checkpoint
                sim.resume(pend.victim)
            return
        self._transfer(sim, pend)

    def _transfer(self, sim: Simulation, pend: _Pending) -> None:
        f, v = pend.failed, pend.victim
        del self.pending[f]
        del self.victims[v]
        if sim.is_running(v):
            if pend.stop.proactive:
                sim.interrupt(v, INTERRUPTED, proactive=True)
            else:
                sim.interrupt(v, INTERRUPTED, saved=pend.stop.saved)
            sim.steal(f, v, pend.lost, decided=pend.decided, timing=self.timing)
            self._enqueue(sim, v)
            return
        # the victim completed now: its nodes that are still up and idle
        free = [x for x in sim.last_nodes[v] if sim.up[x] and sim.node_job[x] < 0]
        if len(free) < pend.lost:
            sim.cancel_steal(f, v, decided=pend.decided, timing=self.timing,
                             reason="the victim's nodes failed as it completed")
            self._wait(sim, f)
            return
        sim.steal(f, v, pend.lost, decided=pend.decided, timing=self.timing)

    def decide(self, sim: Simulation, instant: Instant) -> None:
        for v in instant.ended:  # a victim that completed before it would stop hands over
            pend = self.victims.get(v)
            if pend is not None:
                self._replan = True
                self._transfer(sim, pend)
        super().decide(sim, instant)
        self._replan = False

    def _must_replan(self, instant: Instant) -> bool:
        return self._replan or super()._must_replan(instant)

    # ------------------------------------------------------------------ choices
    def choose_victim(self, sim: Simulation, failed: int) -> int:
        """The victim by choice V1 or V2 (module docstring); -1 when no job can be one."""
        procs, release = sim.procs, self.released
        best, key = -1, None
        for v in sim.running:
            if v in self.victims or v in sim.paused:
                continue
            if self.victim == 1:
                second = sim.start_time[v] if self.victim_tiebreak == "runtime" else release[v]
                k = (-procs[v], second, v)
            else:
                k = (release[v], -procs[v], v)
            if key is None or k > key:
                best, key = v, k
        return best

    def accepts(self, sim: Simulation, failed: int, victim: int, stop: StopPoint) -> bool:
        """The criterion K1, K2 or K3 on ``victim`` (module docstring)."""
        if self.criterion == 1:
            return sim.procs[victim] < sim.procs[failed]
        if self.criterion == 2:
            return self.released[victim] > self.released[failed]
        steal, wait = self.estimate(sim, failed, victim, stop)
        return max(steal) < max(wait)

    def estimate(self, sim: Simulation, failed: int, victim: int, stop: StopPoint) -> tuple[tuple[float, float],
                                                                                           tuple[float, float]]:
        """K3's flows ``((failed, victim) if stealing, (failed, victim) if waiting)``, from wall
        times on the plan of the running jobs, the nodes down and the nodes failed jobs keep
        (the two jobs' priorities, 3 and 2, put them before every waiting job):

        * waiting: the victim ends at its start plus its wall time; the failed job (its wall
          time from its last checkpoint) starts at its earliest fit, its surviving nodes freed;
        * stealing: the failed job restarts when the victim stops (``stop.wait`` from now) and
          runs its wall time; the victim, stopped then with what it saved, restarts at its
          earliest fit from that instant on, its other nodes freed.

        On counts under either ``reservations``: every occupation of this plan starts at the
        instant searched from, so the free nodes only grow over time and a count fit is a
        node-set fit at the same instant.
        """
        now = sim.now
        prof = self._occupied(sim)
        pf, pv = sim.procs[failed], sim.procs[victim]
        wf, wv = sim.wall[failed], sim.wall[victim]
        sf, sv = self.released[failed], self.released[victim]
        end_v = sim.start_time[victim] + wv
        at = prof.earliest_fit(pf, wf)
        wait = (at + wf - sf, end_v - sv)
        ts = now + stop.wait
        prof.remove(now, end_v, pv)
        if ts > now:
            prof.add(now, ts, pv + len(sim.held[failed]))
        prof.add(ts, ts + wf, pf)
        prof.advance(ts)
        wv2 = sim.checkpointing.R + sim.wall_full[victim] - stop.saved
        back = prof.earliest_fit(pv, wv2)
        steal = (ts + wf - sf, back + wv2 - sv)
        return steal, wait


def _make(name: str) -> type[NodeStealing]:
    x, y, z = (int(c) for c in name[1:])

    class Variant(NodeStealing):
        __doc__ = f"Node stealing {name.upper()}: timing T{x}, victim V{y}, criterion K{z} ([Du2024] §7)."

        def __init__(self, *, knows_downtime: bool = False, victim_tiebreak: str = "release",
                     release: str = "resubmission", reservations: str | None = None) -> None:
            super().__init__(x, y, z, knows_downtime=knows_downtime, victim_tiebreak=victim_tiebreak,
                             release=release, reservations=reservations)

    Variant.__name__ = Variant.__qualname__ = name.upper()
    return Variant


#: ``h111`` ... ``h323`` and ``sfsj`` (= ``h111``, [Du2024] §7: "SFSJ ... is denoted by H111")
STEALING_POLICIES: dict[str, type[NodeStealing]] = {
    f"h{x}{y}{z}": _make(f"h{x}{y}{z}") for x in (1, 2, 3) for y in (1, 2) for z in (1, 2, 3)
}
STEALING_POLICIES["sfsj"] = STEALING_POLICIES["h111"]


def stealing_policy(name: str, **options: object) -> NodeStealing:
    """A node-stealing policy by name (``sfsj``, ``h111`` ... ``h323``); it reports that name."""
    policy = STEALING_POLICIES[name.lower()](**options)  # type: ignore[arg-type]
    policy.name = name.lower()
    return policy
