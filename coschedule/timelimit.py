"""Time limits that hold: a deadline checked between the steps of an exact solve.

A time limit is a promise about the whole call: building the model, solving it and decoding the
answer. Every exact solver of the toolkit (``coschedule.exact``) returns within ``time_limit +
TIME_LIMIT_MARGIN`` seconds of wall-clock time, counted from the moment it is called:

* the steps it runs in Python (model building, translation to a backend, the subset DP, the
  exhaustive search) look at the clock every few milliseconds of work and stop when the
  deadline has passed (:meth:`Deadline.check` raises :class:`TimeLimitReached`);
* the solvers get what is left of the limit as their own limit, and are stopped from outside
  at the deadline when they overrun it (CBC's process is killed, HiGHS and CP-SAT are asked to
  stop, a matching runs in a child process that is killed);
* an answer cut short this way is reported honestly: ``UNKNOWN`` (or ``FEASIBLE`` with the best
  schedule found so far), with ``info["time_limit_reached"]`` naming the step ("time limit
  reached while building the model"), never ``OPTIMAL``.

``TIME_LIMIT_MARGIN`` covers what happens after the deadline: stopping a solver, reading its
last solution, decoding and validating it. Starting the interpreter and importing the solvers
(about a second for ``coschedule solve``) happens before the call and is not counted.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import Any

__all__ = ["TIME_LIMIT_MARGIN", "Deadline", "TimeLimitReached", "cpsat_solve", "stop_reserve"]

#: seconds an exact solve may run past its time limit (stopping, decoding, validating)
TIME_LIMIT_MARGIN = 1.0


class TimeLimitReached(Exception):
    """Raised inside a solver when its deadline has passed; ``step`` says during what.

    Internal: the solvers catch it and return an ``UNKNOWN`` or ``FEASIBLE`` result.
    """

    def __init__(self, step: str) -> None:
        super().__init__(f"time limit reached while {step}")
        self.step = step


@dataclass(frozen=True)
class Deadline:
    """An instant on the ``time.perf_counter`` clock (``None``: no limit)."""

    at: float | None

    @classmethod
    def after(cls, seconds: float | None, start: float | None = None) -> Deadline:
        """The deadline ``seconds`` after ``start`` (default: now); ``None`` for no limit."""
        if seconds is None:
            return cls(None)
        if not seconds >= 0:
            raise ValueError(f"time limit must be >= 0 seconds, got {seconds!r}")
        return cls((time.perf_counter() if start is None else start) + float(seconds))

    @classmethod
    def none(cls) -> Deadline:
        return cls(None)

    @property
    def limited(self) -> bool:
        return self.at is not None

    def remaining(self) -> float:
        """Seconds left (``inf`` without a limit, never negative)."""
        if self.at is None:
            return math.inf
        return max(0.0, self.at - time.perf_counter())

    def remaining_or_none(self) -> float | None:
        """Seconds left, or ``None`` without a limit (what the backends take)."""
        return None if self.at is None else self.remaining()

    def expired(self) -> bool:
        return self.at is not None and time.perf_counter() >= self.at

    def check(self, step: str) -> None:
        """Raise :class:`TimeLimitReached` (naming ``step``) if the deadline has passed."""
        if self.expired():
            raise TimeLimitReached(step)


def stop_reserve(deadline: Deadline, nonzeros: int, per_nonzero: float = 5e-7) -> float:
    """Seconds before ``deadline`` at which a MIP solver is asked to stop, so that it has
    stopped and handed its answer over by then: 0.3 s and ``per_nonzero`` s a nonzero of the
    model (HiGHS took about a second to stop on 1.6 million nonzeros; CP-SAT's eight workers on
    two cores up to two, hence its 1e-6), at most a quarter of what is left."""
    return min(0.25 * deadline.remaining(), 0.3 + per_nonzero * nonzeros)


def cpsat_solve(solver: Any, model: Any, deadline: Deadline, reserve: float = 0.0) -> Any:
    """``solver.solve(model)`` within ``deadline``: CP-SAT's own limit is what is left but
    ``reserve`` seconds (:func:`stop_reserve`), and the search is stopped from a timer then
    should CP-SAT overrun it."""
    if not deadline.limited:
        return solver.solve(model)
    left = max(1e-3, deadline.remaining() - reserve)
    solver.parameters.max_time_in_seconds = max(1e-3, left)
    timer = threading.Timer(left + 0.05, solver.stop_search)
    timer.daemon = True
    timer.start()
    try:
        return solver.solve(model)
    finally:
        timer.cancel()
