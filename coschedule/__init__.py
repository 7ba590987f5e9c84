"""coschedule: scheduling parallel jobs on failure-prone HPC platforms.

The hub package: the problem model, validation, I/O, generators and the CLI. Exact solvers
live in :mod:`coschedule.exact`, heuristics in :mod:`coschedule.heuristics`.
"""

from typing import TYPE_CHECKING

from . import _moved
from ._lazy import attach
from .errors import (
    CoscheduleError,
    FormatError,
    InvalidInstance,
    InvalidSchedule,
    SolverUnavailable,
    UnknownName,
)

if TYPE_CHECKING:  # imported when first read (_lazy): numpy only when the model is used
    from .model import Allocation, CoSchedule, MoldableInstance, MoldableTask, Pack
    from .results import ExactResult, Status
    from .schedule import Execution, Outcome, Schedule
    from .validate import check_capacity, validate_coschedule

__version__ = "0.1.0"

_moved.install()  # the module paths of the first layout stay importable (docs/design.md)

__getattr__, __dir__ = attach(__name__, {
    ".model": ("Allocation", "CoSchedule", "MoldableInstance", "MoldableTask", "Pack"),
    ".results": ("ExactResult", "Status"),
    ".schedule": ("Execution", "Outcome", "Schedule"),
    ".validate": ("check_capacity", "validate_coschedule"),
})

__all__ = [
    "CoscheduleError",
    "FormatError",
    "InvalidInstance",
    "InvalidSchedule",
    "SolverUnavailable",
    "UnknownName",
    "Allocation",
    "CoSchedule",
    "MoldableInstance",
    "MoldableTask",
    "Pack",
    "ExactResult",
    "Status",
    "Execution",
    "Outcome",
    "Schedule",
    "check_capacity",
    "validate_coschedule",
]
