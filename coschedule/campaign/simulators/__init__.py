"""The campaign simulators, one module or package per kind, named as a spec's ``simulator`` key
names it: ``rigid``, ``batch``, ``torus``, ``redistrib``. Each holds its
:class:`~coschedule.campaign.registry.Simulator` as ``SIMULATOR`` -- its adapter (the spec's grid,
one cell simulated into one row, the result table) and its report (groups, tables, figures) --
and is found by :mod:`coschedule.campaign.registry`, which the engine goes through. Nothing here
is imported by the engine; a new kind is a new folder here.
"""

from ..registry import _BUILT, SIMULATORS, Simulator, get_simulator  # noqa: F401 (_BUILT: the cache, as the first layout had it here)

__all__ = ["SIMULATORS", "Simulator", "get_simulator"]
