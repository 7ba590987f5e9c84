"""The validator of torus runs ([Oliner2004] §3.3): the rules of every online run, then the
torus's.

:func:`validate_torus_run` first applies :func:`coschedule.sim.validate.validate_run` (attempts
in order, one job per node at a time -- so partitions are disjoint while they run --, a job on
a failed node ends at the failure instant, every failure of the trace applied, work adds up),
then checks that every attempt ran on a **partition**: its node set is one contiguous,
rectangular box of the torus, wrapping allowed, of the job's size
(:func:`~coschedule.torus.geometry.box_from_nodes`, which goes from nodes to a box: the
schedulers only ever go from a box to its nodes). It raises
:class:`~coschedule.errors.InvalidSchedule` with one line naming the job and the attempt.
"""

from __future__ import annotations

from coschedule.torus.result import TorusRun

from ..errors import InvalidSchedule
from ..sim.failures import FailureTrace
from ..sim.validate import validate_run
from .geometry import box_from_nodes, format_dims

__all__ = ["validate_torus_run"]


def validate_torus_run(run: TorusRun, *, failures: FailureTrace | None = None) -> None:
    """Check ``run`` (module docstring); ``failures`` defaults to the trace it ran on."""
    result = run.result
    validate_run(result, failures=run.trace if failures is None else failures)
    dims = run.dims
    w = result.workload
    if w.n_nodes != dims[0] * dims[1] * dims[2]:
        raise InvalidSchedule(f"the run has {w.n_nodes} nodes, the torus {format_dims(dims)} has "
                              f"{dims[0] * dims[1] * dims[2]}")
    for a in result.attempts:
        box = box_from_nodes(a.nodes, dims)
        if box is None:
            raise InvalidSchedule(f"job {w.ids[a.job]} attempt {a.index}: nodes {list(a.nodes)[:12]}"
                                  f"{'...' if len(a.nodes) > 12 else ''} are not a contiguous rectangular "
                                  f"partition of the torus {format_dims(dims)}")
        if box.size != int(w.nodes[a.job]):
            raise InvalidSchedule(f"job {w.ids[a.job]} attempt {a.index}: partition {box.label()} has "
                                  f"{box.size} nodes, the job {int(w.nodes[a.job])}")
