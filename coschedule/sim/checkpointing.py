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

import numpy as np

__all__ = ["Checkpointing", "NO_CHECKPOINTING"]


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


#: no checkpointing, no recovery cost: a failed job restarts from scratch at once
NO_CHECKPOINTING = Checkpointing()
