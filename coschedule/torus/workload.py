"""A job log on the torus ([Oliner2004] §6.1-6.2): sizes in the torus's units, load scaling.

:func:`torus_workload` turns an online :class:`~coschedule.sim.workload.Workload` (an SWF log, a
Batsim workload) into the jobs a torus of ``N = X·Y·Z`` units runs:

* **Units.** A job of ``p`` of the log's nodes asks for ``ceil(p / unit)`` units. ``unit``
  defaults to ``ceil(P / N)`` for a log machine of ``P`` nodes: 1 when the log's machine is no
  larger than the torus (NASA iPSC/860: 128 nodes on 128 units; KTH SP2: 100), 2 for a 256-node
  log on 128 units (lublin_256 in place of the paper's LLNL T3D), so that the log's widest job
  still fits. The paper's units are supernodes of 512 BlueGene/L nodes (§3.1); a log's node
  counts are taken as units.
* **Wider than the torus** (more units than ``N``, possible with an explicit ``unit``): reported
  (:attr:`TorusJobs.wide`) and dropped (NOTES.md 17).
* **Sizes with no box** (a prime above every dimension, say 11 on 4×4×8): rounded up to the
  smallest size that has one (:func:`~coschedule.torus.geometry.box_size_at_least`; Krevat's
  approach), counted in :attr:`TorusJobs.rounded`; the job occupies (and its work counts on) the
  rounded size.
* **Load scale** ``c`` (§6.2) multiplies every run time and every estimate: ``t_j = c · run``;
  the estimate ``t^e_j`` is ``c`` times the log's requested time when it has one (at least the
  run time, the rule of :func:`~coschedule.sim.workload.workload_from_swf`), else ``t_j`` (the
  shipped NASA log has no requested times: its estimates are exact).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidInstance
from ..sim.workload import Workload
from .geometry import Dims, box_size_at_least, check_dims

__all__ = ["TorusJobs", "torus_workload"]


@dataclass(frozen=True)
class TorusJobs:
    """The jobs of a log ready for the torus: ``workload`` (units, scaled times, ``n_nodes =
    N``), what was dropped or rounded, and how."""

    workload: Workload
    dims: Dims
    unit: int
    load_scale: float
    requested_units: np.ndarray  # per kept job, before rounding to a box size
    wide: tuple[str, ...]  # ids of the jobs wider than the torus, dropped
    rounded: int  # kept jobs whose size was rounded up to one with a box shape

    @property
    def n(self) -> int:
        return self.workload.n


def torus_workload(workload: Workload, dims: Sequence[int], *, load_scale: float = 1.0,
                   unit: int | None = None) -> TorusJobs:
    """The jobs of ``workload`` on the torus ``dims`` (module docstring)."""
    dims = check_dims(dims)
    N = math.prod(dims)
    if isinstance(load_scale, bool) or not isinstance(load_scale, (int, float)) or not (
            load_scale > 0 and math.isfinite(load_scale)):
        raise InvalidInstance(f"load scale must be a positive number, got {load_scale!r}")
    if unit is None:
        unit = max(1, math.ceil(workload.n_nodes / N))
    if isinstance(unit, bool) or not isinstance(unit, (int, np.integer)) or unit < 1:
        raise InvalidInstance(f"unit (log nodes per torus unit) must be a positive integer, got {unit!r}")
    units = -(-workload.nodes // int(unit))
    wide = units > N
    keep = np.flatnonzero(~wide)
    need = units[keep]
    table = {int(s): box_size_at_least(int(s), dims) for s in np.unique(need)}
    size = np.array([table[int(s)] for s in need.tolist()], dtype=np.int64)
    c = float(load_scale)
    w = Workload(
        ids=tuple(workload.ids[k] for k in keep.tolist()), submit=workload.submit[keep], nodes=size,
        walltime=workload.walltime[keep] * c, length=workload.length[keep] * c, n_nodes=N,
        name=workload.name, dropped=workload.dropped + int(wide.sum()),
    )
    return TorusJobs(w, dims, int(unit), c, need, tuple(workload.ids[k] for k in np.flatnonzero(wide).tolist()),
                     int(np.count_nonzero(size != need)))
