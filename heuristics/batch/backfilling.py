"""Batch scheduling policies under node failures ([Du2024] §4.1, §5): strict FCFS, EASY
backfilling and conservative backfilling (the paper's Baseline), all on the simulation core's
event loop (:mod:`coschedule.sim.engine`) and availability profile
(:mod:`coschedule.sim.profile`).

Shared rules
------------
* **Queue order.** Waiting jobs by restart priority first (3: failed, 2: node-stealing victim,
  1: regular; [Du2024] §4.2), then by release, then by workload order. ``release`` says what a
  restarted job's release is. ``"resubmission"`` (default): the instant it was last submitted
  again, at its failure or when it was stolen from (``Simulation.release``). [Du2024] Algorithm 1
  "submit[s] the remaining part" of the job, and in Batsim/batsched, where the paper's
  simulations ran (§5.1), that part is a new job submitted then; §4.1 sorts failed jobs "by
  non-decreasing arrival time". ``"first"``: its first submission, as if it kept its place. The
  same release orders node stealing's victims and decides K2 and K3 (:mod:`.stealing`).
* **Nodes.** A starting job takes the lowest-index nodes that are up and idle.
* **A failed job** ([Du2024] §4.1, §2): when a node that is up and idle can replace the failed
  one, the job restarts at once on its surviving nodes plus the lowest-index such node (it keeps
  its nodes); otherwise it releases its surviving nodes and waits with priority 3.
* **Plans use wall times** (extended by checkpoints, eq. (2)); jobs end at their real lengths.
* **Down nodes.** By default (``knows_downtime=False``) a down node is out of the platform until
  it is back, as in the paper's simulations (§5.1: batsched removes a failed node from its
  machines and adds it back at its rejuvenation, recomputing the plan; this is also why §5.2 caps
  the largest jobs below the platform's size). With ``knows_downtime=True`` the scheduler plans
  with the instant a down node comes back. The §3 toy example gives the same flows either way
  (tests).

Policies
--------
* :class:`FCFS`: start jobs in queue order while the head fits; nothing overtakes the head.
* :class:`EASY`: start jobs in queue order while they fit; the first that does not (the head)
  gets a reservation at its earliest fit (the *shadow time*); a later job starts now only if it
  fits now without delaying that reservation (it ends by the shadow time, or it uses only nodes
  the head leaves free: the *extra* nodes). Recomputed at every instant.
* :class:`Conservative` (Baseline): every waiting job holds a reservation at its earliest fit
  behind all those before it in the queue. At an instant where jobs end, the plan is compressed
  as batsched does (Mu'alem-Feitelson): in queue order, each waiting job is taken out and put
  back at its earliest fit among all the others (never later); jobs submitted at that instant
  join the end of the queue and are placed after it. At an instant with a failure, or (with
  ``knows_downtime=False``) a node coming back, the whole plan is recomputed: every waiting
  job placed afresh, in queue order ([Du2024] §4.1, §5.1). With ``knows_downtime=True`` a node
  that comes back brings no news (the plan already holds that instant), so it changes nothing:
  recomputing there could move a reservation later, even one falling due at that very instant,
  with no failure. Jobs whose reservation falls now start.

Reservations
------------
``reservations`` (conservative backfilling and node stealing) says what a reservation holds.
``"nodes"`` (their default, the paper's system): particular nodes, as batsched does ([Du2024]
§5.1: the paper's simulations ran Batsim with the Batsched scheduler, which "take[s] decisions
on when and where (which nodes) to schedule a job"): the plan is a node-set profile
(:mod:`coschedule.sim.nodeset_profile`), each reservation is the lowest-index nodes of the
intersection of the free sets over its window (batsched's ``add_job_first_fit`` with its basic
resource selector), the compression takes each waiting job out and adds it again first fit,
perhaps on other nodes, and a job whose reservation falls due starts on its reserved nodes
(free by construction: anything that frees or takes a node outside the plan -- a failure, a
node back, a steal -- recomputes the plan). Free nodes can then stay idle that a count plan
would fill (fragmentation). A failed job's restart on a spare node keeps its rule (the
lowest-index node up and idle), as does node stealing's. ``"count"``: a number of nodes on the
count profile (:mod:`coschedule.sim.profile`); a job whose reservation falls due starts on the
lowest-index nodes up and idle, so a plan that fits by counts is always realised. FCFS and EASY
reserve counts only (:func:`default_reservations`).
"""

from __future__ import annotations

import bisect
import math

from coschedule.sim.engine import PRIORITY_FAILED, Instant, Simulation
from coschedule.sim.nodeset_profile import NodeSetProfile, nodes_of
from coschedule.sim.profile import AvailabilityProfile

__all__ = ["BACKFILLING_POLICIES", "EASY", "FCFS", "RELEASES", "RESERVATIONS", "Conservative", "QueuePolicy",
           "default_reservations"]

#: values of the policies' ``release`` option (module docstring); the first is the default
RELEASES = ("resubmission", "first")
#: values of the ``reservations`` option (module docstring, "Reservations"); the default depends on
#: the policy (:func:`default_reservations`)
RESERVATIONS = ("nodes", "count")


def default_reservations(policy: str) -> str:
    """``reservations`` when none is given to the policy named ``policy``: ``"count"`` for FCFS
    and EASY (the only one they take), ``"nodes"`` for conservative backfilling and node
    stealing (the paper's system, module docstring)."""
    return "count" if policy.lower() in ("fcfs", "easy") else "nodes"


class QueuePolicy:
    """The queue and the failure rule every batch policy shares (module docstring)."""

    name = "queue"

    def __init__(self, *, knows_downtime: bool = False, release: str = RELEASES[0],
                 reservations: str | None = None) -> None:
        if release not in RELEASES:
            raise ValueError(f"release must be one of {', '.join(RELEASES)}, got {release!r}")
        if reservations is None:
            reservations = "nodes" if isinstance(self, Conservative) else "count"
        if reservations not in RESERVATIONS:
            raise ValueError(f"reservations must be one of {', '.join(RESERVATIONS)}, got {reservations!r}")
        if reservations != "count" and not isinstance(self, Conservative):
            raise ValueError(f"reservations={reservations!r} is an option of conservative backfilling and node "
                             f"stealing, not of {self.name}")
        self.knows_downtime = bool(knows_downtime)
        self.release = release
        self.reservations = reservations
        self.queue: list[tuple[int, float, int]] = []  # (-priority, release, job), sorted

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(knows_downtime={self.knows_downtime}, release={self.release!r}, "
                f"reservations={self.reservations!r})")

    def reset(self, sim: Simulation) -> None:
        self.queue = []
        #: each job's release as this policy reads it (module docstring)
        self.released: list[float] = sim.release if self.release == "resubmission" else sim.submit

    def _enqueue(self, sim: Simulation, j: int) -> None:
        bisect.insort(self.queue, (-sim.priority[j], self.released[j], j))

    def job_failed(self, sim: Simulation, job: int, node: int) -> None:
        spare = sim.lowest_free(1)
        if spare:
            sim.start(job, list(sim.held[job]) + spare)
        else:
            sim.requeue(job, PRIORITY_FAILED)
            self._enqueue(sim, job)

    def decide(self, sim: Simulation, instant: Instant) -> None:
        for j in instant.submitted:
            self._enqueue(sim, j)
        if self.queue:
            self.schedule(sim, instant)

    def schedule(self, sim: Simulation, instant: Instant) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _start(self, sim: Simulation, j: int) -> None:
        sim.start(j, sim.lowest_free(sim.procs[j]))

    def _occupied(self, sim: Simulation, nodes: bool = False) -> AvailabilityProfile | NodeSetProfile:
        """A profile of what is running (until start + wall time) and of the down nodes: of
        counts, or with ``nodes`` of node sets (each on its nodes)."""
        now = sim.now
        hint = 2 * (len(sim.running) + len(self.queue)) + 8
        if nodes:
            occupations = [(sim.start_time[j] + sim.wall[j], sim.held[j]) for j in sim.running]
            occupations += [(back if self.knows_downtime else math.inf, (x,)) for x, back in sim.down_nodes()]
            occupations += [(until, sim.held[j]) for j, until in sim.holds.items()]
            return NodeSetProfile.of_occupations(sim.n_nodes, now, occupations)
        prof = AvailabilityProfile(sim.n_nodes, now, size_hint=hint)
        for j in sim.running:
            prof.add(now, sim.start_time[j] + sim.wall[j], sim.procs[j])
        downs: dict[float, int] = {}
        for _, back in sim.down_nodes():
            t = back if self.knows_downtime else math.inf
            downs[t] = downs.get(t, 0) + 1
        for t, c in downs.items():
            prof.add(now, t, c)
        for j, until in sim.holds.items():  # failed jobs keeping their nodes (node stealing)
            prof.add(now, until, len(sim.held[j]))
        return prof


class FCFS(QueuePolicy):
    """Strict first come, first served: the head starts when it fits, nothing overtakes it."""

    name = "fcfs"

    def schedule(self, sim: Simulation, instant: Instant) -> None:
        free = sim.free_count()
        q = self.queue
        while q and sim.procs[q[0][2]] <= free:
            j = q.pop(0)[2]
            free -= sim.procs[j]
            self._start(sim, j)


class EASY(QueuePolicy):
    """EASY backfilling: one reservation, for the head (module docstring)."""

    name = "easy"

    def schedule(self, sim: Simulation, instant: Instant) -> None:
        q = self.queue
        free = sim.free_count()
        while q and sim.procs[q[0][2]] <= free:
            j = q.pop(0)[2]
            free -= sim.procs[j]
            self._start(sim, j)
        if not q or free == 0:
            return
        prof = self._occupied(sim)
        head = q[0][2]
        shadow = prof.earliest_fit(sim.procs[head], sim.wall[head])
        if shadow < math.inf:
            prof.add(shadow, shadow + sim.wall[head], sim.procs[head])
        now = sim.now
        keep = [q[0]]
        for item in q[1:]:
            j = item[2]
            p = sim.procs[j]
            if p <= free and prof.fits(now, p, sim.wall[j]):
                prof.add(now, now + sim.wall[j], p)
                free -= p
                self._start(sim, j)
            else:
                keep.append(item)
        self.queue = keep


class Conservative(QueuePolicy):
    """Conservative backfilling, the Baseline of [Du2024] §4.1 (module docstring)."""

    name = "conservative"

    def reset(self, sim: Simulation) -> None:
        super().reset(sim)
        self.profile: AvailabilityProfile | NodeSetProfile = (
            NodeSetProfile(sim.n_nodes, sim.now) if self.reservations == "nodes" else AvailabilityProfile(sim.n_nodes, sim.now))
        self.reserved: dict[int, float] = {}
        self.nodes: dict[int, tuple[tuple[int, int], ...]] = {}  # with reservations="nodes": each one's nodes

    def _place(self, jobs: list[int], procs: list[int], wall: list[float]) -> None:
        """Reserve ``jobs`` in order at their earliest fits (on nodes, with node sets)."""
        out = self.profile.place([procs[j] for j in jobs], [wall[j] for j in jobs])
        if isinstance(out, tuple):
            starts, sets = out
            self.nodes.update(zip(jobs, sets))
        else:
            starts = out
        self.reserved.update(zip(jobs, starts.tolist()))

    def decide(self, sim: Simulation, instant: Instant) -> None:
        old = [item[2] for item in self.queue] if instant.ended else []  # compress needs them
        for j in instant.submitted:
            self._enqueue(sim, j)
        procs, wall = sim.procs, sim.wall
        by_nodes = self.reservations == "nodes"
        if self._must_replan(instant):
            self.profile = self._occupied(sim, by_nodes)
            self.reserved, self.nodes = {}, {}
            self._place([item[2] for item in self.queue], procs, wall)
        else:
            prof = self.profile
            prof.advance(sim.now)
            for j in instant.ended:
                s = sim.start_time[j]
                if isinstance(prof, NodeSetProfile):
                    prof.remove(s, s + wall[j], sim.last_nodes[j])
                else:
                    prof.remove(s, s + wall[j], procs[j])
            if instant.ended and old:
                p, w, s0 = [procs[j] for j in old], [wall[j] for j in old], [self.reserved[j] for j in old]
                if isinstance(prof, NodeSetProfile):
                    starts, sets = prof.compress(p, w, s0, [self.nodes[j] for j in old])
                    self.nodes.update(zip(old, sets))
                else:
                    starts = prof.compress(p, w, s0)
                self.reserved.update(zip(old, starts.tolist()))
            if instant.submitted:
                self._place(instant.submitted, procs, wall)
        now = sim.now
        if not self.reserved or min(self.reserved.values()) > now:
            return  # no reservation falls now (a C-speed scan before the Python one)
        keep = []
        for item in self.queue:
            j = item[2]
            if self.reserved[j] <= now:
                del self.reserved[j]
                if by_nodes:  # on its reserved nodes, free by construction
                    sim.start(j, nodes_of(self.nodes.pop(j)))
                else:
                    self._start(sim, j)
            else:
                keep.append(item)
        self.queue = keep

    def _must_replan(self, instant: Instant) -> bool:
        """A failure, a job put back in the queue, or (nodes down being out of the platform) a
        node back: the whole plan is recomputed."""
        return bool(instant.failed_nodes or instant.requeued or (instant.recovered and not self.knows_downtime))

    def schedule(self, sim: Simulation, instant: Instant) -> None:  # decide does it all
        raise AssertionError("unreachable")


#: the backfilling policies by name; ``baseline`` is the paper's name for conservative backfilling
#: (:data:`coschedule.heuristics.batch.BATCH_POLICIES` adds node stealing's)
BACKFILLING_POLICIES: dict[str, type[QueuePolicy]] = {
    "fcfs": FCFS,
    "easy": EASY,
    "conservative": Conservative,
    "baseline": Conservative,
}
