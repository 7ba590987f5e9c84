"""What an exact solver proved.

Every exact call returns an :class:`ExactResult`. ``status`` says what was *proved*:

* ``OPTIMAL``    the objective is optimal (within ``tolerance``, absolute);
* ``FEASIBLE``   a solution was found but optimality was not proved (time limit, gap): see
  ``bound`` and ``gap``;
* ``INFEASIBLE`` proved that no solution exists;
* ``UNKNOWN``    nothing proved (time limit before any solution).

A time limit never turns a feasible answer into a claimed optimum: backends report
``OPTIMAL`` only when the underlying solver proved it (for PuLP, ``sol_status == 1``, not
``LpStatus``), and the objective is always recomputed from the decoded solution.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Status", "ExactResult"]


class Status(enum.Enum):
    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class ExactResult:
    """Outcome of an exact method.

    Attributes
    ----------
    status
        What was proved (see module docstring).
    objective
        Cost of ``solution``, recomputed from the model (``None`` without a solution).
    bound
        A proved lower bound on the optimum (``None`` if none is known).
    solution
        The best solution found (e.g. a ``CoSchedule``), or ``None``.
    method, solver
        The formulation (``"setcover"``, ``"ilp"``, ...) and backend (``"highs"``, ...).
    time
        Wall-clock seconds spent.
    tolerance
        Absolute tolerance of an optimality claim (float solver tolerances or the integer time
        unit of an integer backend).
    info
        Extra numbers (model size, nodes, ...).
    """

    status: Status
    objective: float | None
    bound: float | None
    solution: Any
    method: str
    solver: str
    time: float
    tolerance: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def proved_optimal(self) -> bool:
        return self.status is Status.OPTIMAL

    @property
    def gap(self) -> float | None:
        """Relative gap ``(objective - bound) / objective``; 0 for a proved optimum."""
        if self.status is Status.OPTIMAL:
            return 0.0
        if self.objective is None or self.bound is None:
            return None
        if self.objective == 0:
            return 0.0 if self.bound >= 0 else math.inf
        return max(0.0, (self.objective - self.bound) / abs(self.objective))

    def describe(self) -> str:
        """One line stating what was proved, e.g. ``optimal: 12.5`` or ``feasible: 13 (gap 4%)``."""
        if self.status is Status.OPTIMAL:
            tol = ""
            if self.objective and self.tolerance > 1e-9 * abs(self.objective):
                tol = f" within {self.tolerance:.3g}"
            return f"optimal{tol}: {self.objective:.6g} (proved by {self.method}/{self.solver})"
        if self.status is Status.FEASIBLE:
            gap = self.gap
            g = f", gap {100 * gap:.3g}%" if gap is not None else ", no bound"
            b = f", bound {self.bound:.6g}" if self.bound is not None else ""
            return f"feasible, NOT proved optimal: {self.objective:.6g}{b}{g} ({self.method}/{self.solver})"
        if self.status is Status.INFEASIBLE:
            return f"infeasible (proved by {self.method}/{self.solver})"
        b = f"; bound {self.bound:.6g}" if self.bound is not None else ""
        return f"unknown: no solution within the limit{b} ({self.method}/{self.solver})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "objective": self.objective,
            "bound": self.bound,
            "gap": self.gap,
            "method": self.method,
            "solver": self.solver,
            "time": self.time,
            "tolerance": self.tolerance,
            "info": self.info,
        }
