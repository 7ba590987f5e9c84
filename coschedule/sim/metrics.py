"""Metrics of an executed online schedule (:class:`~coschedule.sim.engine.SimulationResult`),
as [Du2024] §5.3 defines them, and its per-attempt rows of Batsim's ``jobs.csv``.

Per job ([Du2024] §5.3.1)
-------------------------
* **flow** = completion of the successful attempt - (first) submission: every wait and every
  failed attempt counts;
* **wait** = first start - submission;
* **bounded slowdown** = ``max(1, flow / max(L, Γ))`` with ``L`` the job's *failure-free length
  from the workload* (without its checkpoints) and ``Γ = 10 s`` (:data:`GAMMA`). The paper
  reports flows only; the bounded slowdown is our addition, with the usual bound of the
  batch-scheduling literature so that very short jobs do not dominate it.

Flows are summarised by their maximum, mean and mean weighted by the job's node count (§3:
the toy example's 25, 11.2 and 256/15), over all jobs and per *size class* (node count). The
default classes are those of Fig. 1, 4 and 5: ``[1, 2^7)``, ``[2^7, 2^9)``, ``[2^9, 2^11)``,
``[2^11, 2^13)``, ``[2^13, 2^15)``, ``[2^15, N]`` (:data:`SIZE_BOUNDARIES`); any increasing
inner boundaries can replace them; a boundary at or above the platform's ``N`` nodes is dropped
(the last class ends with ``N``, included: no job is wider). A class without jobs is reported as empty (count 0, statistics NaN, ``null``
in JSON), never as 0.

Pruning ([Du2024] §5.3.3)
-------------------------
* **Flows**: jobs ordered by submission (the workload's order), the first and the last
  ``prune`` fraction of them (``floor(prune n)`` jobs each side; the paper: 20 %) are dropped.
* **Utilization**: measured over a time window ``[start, end)`` (the paper: from the 11th to the
  30th day of the month, ``(10 * 86400, 30 * 86400)`` from the trace's start); by default the
  whole run, ``[0, horizon)``.

Utilization ([Du2024] §5.3.2, §6.1.1, Fig. 3)
---------------------------------------------
The capacity ``N × (end - start)`` node-seconds of the window is split into eight parts that
add up to it: an attempt of job ``j`` on ``p`` nodes over ``[s, e)`` first recovers for ``R_a``
(0 for a first attempt), then runs its extended execution (work and checkpoints, blocks of ``T``
work + ``C`` checkpoint, :mod:`~coschedule.sim.checkpointing`) from its saved time ``U_a``.

* **useful**: work that counts toward completion: the work of the completed attempt and the
  work a failed attempt saved by its completed checkpoints; checkpoints excluded. Over a whole
  run it sums to ``Σ L_j p_j``;
* **checkpoint**: the completed checkpoints of the saved blocks and of the completed attempt;
* **recovery**: the ``R`` at the start of restarts (all of it, or what ran of it when a failure
  cut the recovery short);
* **lost**: work and partial checkpoint after the last completed checkpoint of a failed
  attempt;
* **stealing** (node stealing, [Du2024] Fig. 3's "waste due to node stealing"): the unsaved
  work of a victim's interrupted attempt, its proactive checkpoint (timing T2), and the
  recovery of its restart;
* **held**: nodes a failed job keeps idle while it waits for a stolen node (timings T2, T3;
  the paper's fictitious job);
* **downtime**: nodes down, ``[failure, failure + D)`` for each applied failure;
* **idle**: nodes up and not allocated to any attempt.

Each is given in node-seconds and as a fraction of the capacity. The ``useful`` fraction is the
paper's "useful utilization" (Table 4). Beside them: the share of the window's *time* during
which at least one node is idle (up and not allocated), and the share of the window's failures
right after which at least one node is idle -- "right after" the failure's instant, once
everything at that instant is done (jobs ended, failures applied, jobs started) -- and the share
of failures *before* which at least one node was idle (up and not allocated just before the
failure's instant, before any of its events). [Du2024] Table 5a, "percentage of time at least
one node is available right after a failure", can be read three ways; its Baseline row (92.09 %,
93.36 %) is the "idle perc." of Table 8, whose caption reads "percentage of time at least one node
is available": the time share. All three are reported (docs/reproduce-node-stealing.md compares
them). Counts
in the window: failures applied, failures that hit a job, restarts (attempts ended by a failure
or interrupted); with node stealing ([Du2024] Tables 5b and 9) the steals done and cancelled,
and how the failures that hit a running job were met: a free node replaced the failed one at
once (``replaced``, the paper's "empty node"), a steal, or a wait in the queue (``waited``).

``jobs.csv``, one row per attempt
---------------------------------
:func:`job_records` follows Batsim's convention for resubmitted jobs: the first attempt of job
``J`` is the row ``J``, its ``k``-th resubmission the row ``J#k``. ``submission_time`` is the
job's submission for the first attempt and, for a resubmission, the instant it was put back
(the previous attempt's end); ``requested_time`` is the attempt's wall time (``R_a + W - U_a``,
``W`` the wall time extended by its checkpoints, eq. (2)); ``final_state`` is
``COMPLETED_SUCCESSFULLY`` for the completed attempt and ``COMPLETED_KILLED`` for an attempt
ended by a failure, interrupted or migrated; ``metadata`` is the attempt's outcome
(``completed``, ``failed``, ``interrupted``, ``checkpointed`` or ``migrated``). evalys reads the
file (tests).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .jobs_csv import JobRecords, records_of
from .result import OUTCOMES, AttemptTable, SimulationResult

__all__ = [
    "GAMMA",
    "SIZE_BOUNDARIES",
    "ClassStats",
    "FlowStats",
    "Summary",
    "Utilization",
    "bounded_slowdown",
    "flow_stats",
    "job_records",
    "pruned_jobs",
    "size_classes",
    "summarize",
    "utilization",
    "waits",
]

#: the names of the node-stealing policies ([Du2024] §7)
_STEALING_NAME = re.compile(r"sfsj|h[123][12][123]")
#: Γ of the bounded slowdown, seconds
GAMMA = 10.0
#: inner boundaries of the default size classes ([Du2024] Fig. 1, 4, 5)
SIZE_BOUNDARIES: tuple[int, ...] = (2**7, 2**9, 2**11, 2**13, 2**15)
#: the parts of the capacity, in the order of :meth:`Utilization.parts`
PARTS: tuple[str, ...] = ("useful", "checkpoint", "recovery", "lost", "stealing", "held", "downtime", "idle")


# ---------------------------------------------------------------------------- per job
def waits(result: SimulationResult) -> np.ndarray:
    """First start - submission, per job."""
    return np.asarray(result.first_start - result.workload.submit, dtype=np.float64)


def bounded_slowdown(result: SimulationResult, gamma: float = GAMMA) -> np.ndarray:
    """``max(1, flow / max(L, gamma))`` per job, ``L`` the failure-free length (module docstring)."""
    if not (math.isfinite(gamma) and gamma > 0):
        raise ValueError(f"gamma must be a finite number > 0, got {gamma!r}")
    return np.maximum(1.0, result.flow / np.maximum(result.workload.length, gamma))


@dataclass(frozen=True)
class FlowStats:
    """Maximum, mean and node-weighted mean of the flows of ``count`` jobs (NaN when 0)."""

    count: int
    max: float
    mean: float
    weighted_mean: float


def flow_stats(flows: np.ndarray, weights: np.ndarray) -> FlowStats:
    """The :class:`FlowStats` of ``flows`` with ``weights`` (node counts) -- [Du2024] §5.3.1.

    >>> flow_stats(np.array([8.0, 5, 15, 25, 3]), np.array([1, 1, 6, 6, 1]))
    FlowStats(count=5, max=25.0, mean=11.2, weighted_mean=17.066666666666666)
    """
    f = np.asarray(flows, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    if f.size == 0:
        return FlowStats(0, math.nan, math.nan, math.nan)
    return FlowStats(int(f.size), float(f.max()), float(f.mean()), float((f * w).sum() / w.sum()))


@dataclass(frozen=True)
class ClassStats:
    """The flows of the jobs whose node count is in ``[low, high)`` (``[low, high]`` when
    ``closed``)."""

    low: int
    high: int
    closed: bool
    flow: FlowStats

    @property
    def label(self) -> str:
        return f"[{self.low}, {self.high}{']' if self.closed else ')'}"


def size_classes(n_nodes: int, boundaries: Sequence[int] | None = None) -> list[tuple[int, int, bool]]:
    """``(low, high, closed)`` of each size class on ``n_nodes`` nodes: ``[1, b1)``, ...,
    ``[bk, N]`` for the inner ``boundaries`` (default :data:`SIZE_BOUNDARIES`; those from ``N``
    on dropped: the last class always ends with ``N``, included).

    >>> size_classes(1000)
    [(1, 128, False), (128, 512, False), (512, 1000, True)]
    """
    bounds = SIZE_BOUNDARIES if boundaries is None else tuple(boundaries)
    for k, b in enumerate(bounds):
        if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or b < 2:
            raise ValueError(f"size class boundary {b!r} is not an integer >= 2")
        if k and b <= bounds[k - 1]:
            raise ValueError(f"size class boundaries must increase, got {bounds[k - 1]} then {b}")
    edges = [1] + [int(b) for b in bounds if b < n_nodes]
    out = [(lo, hi, False) for lo, hi in itertools.pairwise(edges)]
    out.append((edges[-1], int(n_nodes), True))
    return out


def pruned_jobs(n: int, prune: float) -> np.ndarray:
    """Indices (in submission order) of the jobs kept when the first and the last ``prune``
    fraction of ``n`` jobs are dropped ([Du2024] §5.3.3): ``floor(prune n)`` each side.

    >>> pruned_jobs(10, 0.2).tolist()
    [2, 3, 4, 5, 6, 7]
    """
    if not (isinstance(prune, (int, float)) and 0 <= prune < 0.5):
        raise ValueError(f"prune must be a fraction in [0, 0.5), got {prune!r}")
    k = math.floor(prune * n + 1e-9)
    return np.arange(k, n - k)


# ---------------------------------------------------------------------------- utilization
@dataclass(frozen=True)
class Utilization:
    """The capacity of the window ``[start, end)`` split in six parts (node-seconds) and the
    idleness and failure statistics of [Du2024] §6.1.1 (module docstring)."""

    start: float
    end: float
    n_nodes: int
    useful: float
    checkpoint: float
    recovery: float
    lost: float
    downtime: float
    idle: float
    idle_time_share: float  # of the window's time, at least one node up and not allocated
    failures: int  # applied in the window
    failures_hit: int  # ... that hit a job
    failures_idle_after: int  # ... right after which at least one node is idle
    restarts: int  # attempts ended (by a failure or an interruption) in the window
    failures_spare: int = 0  # failures that struck while a node was up and idle ([Du2024] Table 5b)
    failures_idle_before: int = 0  # ... before whose instant at least one node was idle
    stealing: float = 0.0  # node-seconds lost to node stealing (Fig. 3's thin line)
    held: float = 0.0  # node-seconds failed jobs kept idle waiting for a stolen node
    steals: int = 0  # nodes changed hands (steals done) in the window ([Du2024] Tables 5b, 9)
    steals_cancelled: int = 0  # steals decided then cancelled (§7.2.3)
    replaced: int = 0  # failures after which the job restarted at once on a free node ("empty node")
    waited: int = 0  # failures after which the job went back to the queue
    @property
    def capacity(self) -> float:
        """``N × (end - start)`` node-seconds."""
        return self.n_nodes * (self.end - self.start)

    def parts(self) -> dict[str, float]:
        """The parts in node-seconds, in the order of :data:`PARTS`."""
        return {name: getattr(self, name) for name in PARTS}

    def fractions(self) -> dict[str, float]:
        """The parts as fractions of the capacity (NaN for an empty window)."""
        cap = self.capacity
        return {name: (v / cap if cap > 0 else math.nan) for name, v in self.parts().items()}

    @property
    def idle_after_failure_share(self) -> float:
        """Share of the window's failures right after which at least one node is idle (Table 5a
        of [Du2024]); NaN without failures."""
        return self.failures_idle_after / self.failures if self.failures else math.nan

    @property
    def idle_before_failure_share(self) -> float:
        """Share of the window's failures before whose instant at least one node was idle (a
        reading of Table 5a of [Du2024], module docstring); NaN without failures."""
        return self.failures_idle_before / self.failures if self.failures else math.nan

    @property
    def spare_at_failure_share(self) -> float:
        """The share of the window's failures that struck while a node was up and idle, before
        any decision (the "empty node" column of [Du2024] Table 5b); NaN without failures."""
        return self.failures_spare / self.failures if self.failures else math.nan


def _checkpoint_time(x: np.ndarray | float, T: float, C: float, L: float, K: int, final: bool) -> Any:
    """Checkpoint time in the positions ``[0, x)`` of a job's extended execution (length
    ``L`` of work, ``K`` checkpoints; checkpoint ``i`` on ``[min((i+1)T, L) + iC, ... + C)``)."""
    if K == 0 or C == 0:
        return 0.0 * x
    regular = K - 1 if final else K  # checkpoints i < regular sit at [iB + T, (i+1)B)
    B = T + C
    q = np.floor(np.asarray(x, dtype=np.float64) / B)
    full = np.minimum(q, regular) * C
    partial = np.where(q < regular, np.clip(x - q * B - T, 0.0, C), 0.0)
    out = full + partial
    if final:
        out = out + np.clip(x - (L + (K - 1) * C), 0.0, C)
    return out


def _attempt_parts(result: SimulationResult, lo: float, hi: float) -> dict[str, float]:
    """Useful, checkpoint, recovery, lost and stealing node-seconds of every attempt within
    ``[lo, hi)``: each attempt's share computed over all attempts at once, summed in the
    attempts' order (a running sum: the same float as adding them one by one)."""
    ck = result.checkpointing
    wl = result.workload
    t = AttemptTable.of(result.attempts)
    s, e, sb, sa = t.start, t.end, t.saved_before, t.saved_after
    j = t.job
    counted = ~((e <= lo) | (s >= hi) | (e <= s))
    p = wl.nodes.astype(np.float64)[j]
    done = t.outcome == OUTCOMES.index("completed")
    stolen = (t.outcome == OUTCOMES.index("interrupted")) | (t.outcome == OUTCOMES.index("checkpointed"))
    stopped = np.zeros(len(t), dtype=bool)  # the restart of a victim: its recovery is lost to node stealing
    if result.steals:
        victims = {(int(x), int(k) + 1) for x, k, o in zip(j.tolist(), t.index.tolist(), t.outcome.tolist())
                   if o == OUTCOMES.index("interrupted")}
        stopped = np.array([(x, int(k)) in victims for x, k in zip(j.tolist(), t.index.tolist())], dtype=bool)
    rec_end = np.minimum(s + t.recovery, e)
    recovery = np.where(counted, p * np.maximum(0.0, np.minimum(rec_end, hi) - np.maximum(s, lo)), 0.0)
    # the extended execution: position u runs at time rec_end + (u - saved_before)
    saved_end = np.where(done, e, np.minimum(e, rec_end + (sa - sb)))
    # after it: the unsaved work and any proactive checkpoint; a victim's, lost to stealing
    waste = np.where(counted, p * np.maximum(0.0, np.minimum(e, hi) - np.maximum(saved_end, lo)), 0.0)
    t0, t1 = np.maximum(rec_end, lo), np.minimum(saved_end, hi)
    inner = counted & (t1 > t0)
    u0, u1 = sb + (t0 - rec_end), sb + (t1 - rec_end)
    L, K = wl.length.astype(np.float64)[j], result.checkpoints.astype(np.int64)[j]
    periods = {q: ck.period(q) for q in np.unique(wl.nodes[j[K > 0]]).tolist()}
    T = np.array([periods[q] if k else math.inf for q, k in zip(wl.nodes[j].tolist(), K.tolist())], dtype=np.float64)
    ckpt = (_checkpoints_up_to(u1, T, ck.cost, L, K, ck.final_checkpoint)
            - _checkpoints_up_to(u0, T, ck.cost, L, K, ck.final_checkpoint))
    ckpt = np.minimum(np.maximum(ckpt, 0.0), t1 - t0)
    checkpoint = np.where(inner, p * ckpt, 0.0)
    useful = np.where(inner, p * ((t1 - t0) - ckpt), 0.0)
    # per attempt, its recovery then its waste: interleaved, in the order they were added
    stealing = np.zeros(2 * len(t))
    stealing[0::2] = np.where(stopped, recovery, 0.0)
    stealing[1::2] = np.where(stolen, waste, 0.0)

    def total(v: np.ndarray) -> float:
        return float(np.cumsum(np.r_[0.0, v])[-1])  # 0.0 + v0 + v1 + ...

    return {"useful": total(useful), "checkpoint": total(checkpoint),
            "recovery": total(np.where(stopped, 0.0, recovery)), "lost": total(np.where(stolen, 0.0, waste)),
            "stealing": total(stealing)}


def _checkpoints_up_to(x: np.ndarray, T: np.ndarray, C: float, L: np.ndarray, K: np.ndarray,
                       final: bool) -> np.ndarray:
    """:func:`_checkpoint_time` of each attempt (its job's ``T``, ``L``, ``K``) at once."""
    with np.errstate(invalid="ignore"):
        regular = K - 1 if final else K  # checkpoints i < regular sit at [iB + T, (i+1)B)
        B = T + C
        q = np.floor(x / B)
        full = np.minimum(q, regular) * C
        partial = np.where(q < regular, np.clip(x - q * B - T, 0.0, C), 0.0)
        out = full + partial
        if final:
            out = out + np.clip(x - (L + (K - 1) * C), 0.0, C)
    return np.where((K == 0) | (C == 0), 0.0 * x, out)


def _occupancy(result: SimulationResult) -> tuple[np.ndarray, np.ndarray]:
    """Distinct instants and the number of nodes allocated or down from each one on."""
    wl = result.workload
    t = AttemptTable.of(result.attempts)
    p = wl.nodes.astype(np.float64)[t.job]
    times: list[float] = np.column_stack([t.start, t.end]).reshape(-1).tolist()  # start, end of each
    deltas: list[float] = np.column_stack([p, -p]).reshape(-1).tolist()
    for f in result.failures:
        times += [f.time, f.up]
        deltas += [1.0, -1.0]
    for h in result.holds:
        times += [h.start, h.end]
        deltas += [float(len(h.nodes)), -float(len(h.nodes))]
    t = np.asarray(times, dtype=np.float64)
    d = np.asarray(deltas, dtype=np.float64)
    if t.size == 0:
        return np.zeros(1), np.zeros(1)
    order = np.argsort(t, kind="stable")
    t, d = t[order], d[order]
    uniq, first = np.unique(t, return_index=True)
    level = np.cumsum(d)[np.r_[first[1:], t.size] - 1]
    return uniq, level


def utilization(result: SimulationResult, window: tuple[float, float] | None = None) -> Utilization:
    """The platform usage of ``result`` over ``window`` (default ``[0, horizon)``), module
    docstring; ``N`` is the workload's platform. Running time ``O(A log A + F log F)`` for
    ``A`` attempts and ``F`` failures (plus the attempts' checkpoint count).
    """
    lo, hi = (0.0, float(result.horizon)) if window is None else (float(window[0]), float(window[1]))
    if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
        raise ValueError(f"window must be finite with start <= end, got {window!r}")
    N = int(result.workload.n_nodes)
    parts = _attempt_parts(result, lo, hi)
    down = sum(max(0.0, min(f.up, hi) - max(f.time, lo)) for f in result.failures)
    # idle: a sweep of the allocated-or-down count over the window
    instants, level = _occupancy(result)
    seg_start = np.maximum(instants, lo)
    seg_end = np.minimum(np.r_[instants[1:], max(hi, instants[-1])], hi)
    seg = np.maximum(seg_end - seg_start, 0.0)
    # before the first instant nothing runs: all nodes idle
    head = max(0.0, min(float(instants[0]), hi) - lo)
    idle = float(((N - level) * seg).sum()) + N * head
    idle_time = float(seg[level < N].sum()) + head
    in_window = [f for f in result.failures if lo <= f.time < hi]
    times = np.array([f.time for f in in_window], dtype=np.float64)
    at = np.searchsorted(instants, times, side="right") - 1
    after = level[at] if in_window else np.empty(0)
    # just before the instant: the level of the segment that ends there (none: nothing ran yet)
    left = np.searchsorted(instants, times, side="left") - 1
    before = np.where(left >= 0, level[np.maximum(left, 0)], 0) if in_window else np.empty(0)
    t = AttemptTable.of(result.attempts)
    stopped = (t.outcome == OUTCOMES.index("failed")) | (t.outcome == OUTCOMES.index("interrupted"))
    restarts = int(np.count_nonzero(stopped & (lo <= t.end) & (t.end < hi)))
    held = sum(len(h.nodes) * max(0.0, min(h.end, hi) - max(h.start, lo)) for h in result.holds)
    done = [s for s in result.steals if lo <= s.time < hi]
    return Utilization(
        start=lo, end=hi, n_nodes=N, downtime=float(down), idle=idle,
        idle_time_share=idle_time / (hi - lo) if hi > lo else math.nan,
        failures=len(in_window), failures_hit=sum(1 for f in in_window if f.job >= 0),
        failures_idle_after=int(np.count_nonzero(after < N)), restarts=restarts,
        failures_spare=sum(1 for f in in_window if f.idle > 0),
        failures_idle_before=int(np.count_nonzero(before < N)),
        held=float(held), steals=sum(1 for s in done if not s.cancelled),
        steals_cancelled=sum(1 for s in done if s.cancelled),
        replaced=sum(1 for f in in_window if f.reaction == "spare"),
        waited=sum(1 for f in in_window if f.reaction == "wait"),
        **{k: float(v) for k, v in parts.items()},
    )


# ---------------------------------------------------------------------------- summary
def _json_number(x: float) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _fmt(x: float, spec: str = ".2f") -> str:
    """``x`` with thousands separators (``2,936,362,600.00``); ``-`` if not finite."""
    return "-" if not math.isfinite(x) else format(x, "," + spec)


@dataclass(frozen=True)
class Summary:
    """The metrics of one run (:func:`summarize`): flows (pruned), waits, bounded slowdowns, per
    size class, and the utilization of the window."""

    policy: str
    n_nodes: int
    jobs: int
    jobs_kept: int
    prune: float
    gamma: float
    flow: FlowStats
    wait_mean: float
    wait_max: float
    slowdown_mean: float
    slowdown_max: float
    classes: tuple[ClassStats, ...]
    utilization: Utilization
    flows: np.ndarray = field(repr=False, compare=False)  # per kept job, submission order
    stealing: bool = False  # a node-stealing policy: the table shows its parts and counts

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (Python numbers, ``None`` for NaN and infinities)."""
        def stats(fs: FlowStats) -> dict[str, Any]:
            return {"count": fs.count, "max": _json_number(fs.max), "mean": _json_number(fs.mean),
                    "weighted_mean": _json_number(fs.weighted_mean)}

        u = self.utilization
        return {
            "policy": self.policy,
            "n_nodes": self.n_nodes,
            "jobs": self.jobs,
            "jobs_kept": self.jobs_kept,
            "prune": float(self.prune),
            "gamma": float(self.gamma),
            "flow": stats(self.flow),
            "wait": {"mean": _json_number(self.wait_mean), "max": _json_number(self.wait_max)},
            "bounded_slowdown": {"mean": _json_number(self.slowdown_mean),
                                 "max": _json_number(self.slowdown_max)},
            "classes": [{"label": c.label, "low": c.low, "high": c.high, "closed": c.closed,
                         **stats(c.flow)} for c in self.classes],
            "utilization": {
                "window": [_json_number(u.start), _json_number(u.end)],
                "capacity": _json_number(u.capacity),
                "node_seconds": {k: _json_number(v) for k, v in u.parts().items()},
                "fractions": {k: _json_number(v) for k, v in u.fractions().items()},
                "idle_time_share": _json_number(u.idle_time_share),
                "failures": u.failures,
                "failures_hit": u.failures_hit,
                "failures_idle_after": u.failures_idle_after,
                "idle_after_failure_share": _json_number(u.idle_after_failure_share),
                "failures_spare": u.failures_spare,
                "spare_at_failure_share": _json_number(u.spare_at_failure_share),
                "failures_idle_before": u.failures_idle_before,
                "idle_before_failure_share": _json_number(u.idle_before_failure_share),
                "restarts": u.restarts,
                "steals": u.steals,
                "steals_cancelled": u.steals_cancelled,
                "replaced": u.replaced,
                "waited": u.waited,
            },
        }

    def table(self) -> str:
        """An aligned text report (what the CLI prints)."""
        kept = (f"first and last {100 * self.prune:g} % dropped" if self.prune > 0 else "no pruning")
        head = (f"policy {self.policy}, {self.n_nodes} nodes, {self.jobs} jobs, "
                f"{self.jobs_kept} kept ({kept}), Γ = {self.gamma:g} s")
        lines = [head]
        rows = [("flow (s)", "jobs", "max", "mean", "weighted")]
        for label, fs in [("all", self.flow)] + [(c.label, c.flow) for c in self.classes]:
            rows.append((label, str(fs.count), _fmt(fs.max), _fmt(fs.mean), _fmt(fs.weighted_mean)))
        width = [max(len(r[k]) for r in rows) for k in range(5)]
        for r in rows:
            lines.append("  ".join([r[0].ljust(width[0])] + [r[k].rjust(width[k]) for k in range(1, 5)]))
        lines.append(f"wait (s): mean {_fmt(self.wait_mean)}, max {_fmt(self.wait_max)}")
        lines.append(f"bounded slowdown: mean {_fmt(self.slowdown_mean, '.3f')}, "
                     f"max {_fmt(self.slowdown_max, '.3f')}")
        u = self.utilization
        from coschedule.units import format_duration

        span = f" ({format_duration(u.end - u.start)})" if u.end - u.start >= 120 else ""
        lines.append(f"utilization over [{u.start:,.10g}, {u.end:,.10g}) s{span}: "
                     f"{u.n_nodes:,} nodes, {_fmt(u.capacity)} node-s")
        fr = u.fractions()
        parts = [(k, _fmt(v), _fmt(100 * fr[k]) + " %") for k, v in u.parts().items()
                 if self.stealing or k not in ("stealing", "held")]
        width = [max(len(r[k]) for r in parts) for k in range(3)]
        for name, value, share in parts:
            lines.append(f"  {name.ljust(width[0])}  {value.rjust(width[1])}  {share.rjust(width[2])}")
        lines.append(f"at least one node idle: {_fmt(100 * u.idle_time_share)} % of the time")
        lines.append(f"failures: {u.failures} applied, {u.failures_hit} hit a job, {u.restarts} restarts; "
                     f"at least one node idle right after {u.failures_idle_after} of them "
                     f"({_fmt(100 * u.idle_after_failure_share)} %), just before "
                     f"{u.failures_idle_before} ({_fmt(100 * u.idle_before_failure_share)} %); a node idle when "
                     f"{u.failures_spare} struck ({_fmt(100 * u.spare_at_failure_share)} %)")
        if self.stealing:
            lines.append(f"node stealing: {u.steals} steals ({u.steals_cancelled} cancelled); of the failures "
                         f"that hit a running job, {u.replaced} met a free node, {u.waited} waited")
        return "\n".join(lines)


def summarize(
    result: SimulationResult,
    *,
    classes: Sequence[int] | None = None,
    prune: float = 0.2,
    window: tuple[float, float] | None = None,
    gamma: float = GAMMA,
) -> Summary:
    """The metrics of ``result`` ([Du2024] §5.3; module docstring).

    Parameters
    ----------
    classes : sequence of int, optional
        Inner boundaries of the size classes (default :data:`SIZE_BOUNDARIES`).
    prune : float
        Fraction of the jobs dropped at each end, by submission, before the flow, wait and
        slowdown statistics (0: none).
    window : (start, end), optional
        The utilization window in seconds (default the whole run, ``[0, horizon)``).
    gamma : float
        Γ of the bounded slowdown, seconds.
    """
    wl = result.workload
    keep = pruned_jobs(wl.n, prune)
    flows = np.asarray(result.flow, dtype=np.float64)[keep]
    nodes = wl.nodes[keep]
    w = waits(result)[keep]
    bsd = bounded_slowdown(result, gamma)[keep]
    per_class = []
    for lo, hi, closed in size_classes(wl.n_nodes, classes):
        inside = (nodes >= lo) & ((nodes <= hi) if closed else (nodes < hi))
        per_class.append(ClassStats(lo, hi, closed, flow_stats(flows[inside], nodes[inside])))
    return Summary(
        policy=result.policy, n_nodes=int(wl.n_nodes), jobs=int(wl.n), jobs_kept=int(keep.size),
        prune=float(prune), gamma=float(gamma), flow=flow_stats(flows, nodes),
        wait_mean=float(w.mean()) if w.size else math.nan, wait_max=float(w.max()) if w.size else math.nan,
        slowdown_mean=float(bsd.mean()) if bsd.size else math.nan,
        slowdown_max=float(bsd.max()) if bsd.size else math.nan,
        classes=tuple(per_class), utilization=utilization(result, window), flows=flows,
        stealing=bool(result.steals) or _STEALING_NAME.fullmatch(result.policy) is not None,
    )


# ---------------------------------------------------------------------------- jobs.csv
def job_records(result: SimulationResult) -> JobRecords:
    """One :class:`~coschedule.sim.jobs_csv.JobRecord` per attempt (module docstring), by job
    in submission order, then by attempt, made on first use
    (:func:`~coschedule.sim.jobs_csv.records_of`); write them with
    :func:`~coschedule.sim.jobs_csv.write_jobs_csv`, which writes the rows from the run's
    columns."""
    return records_of(result)
