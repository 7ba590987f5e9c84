"""The module paths of the first layout, kept as aliases of the modules that now hold their code.

The package was regrouped by concept (docs/design.md): the benchmarks in :mod:`coschedule.bench`,
the pictures in :mod:`coschedule.plot`, each simulator kind's parts in one folder per layer. Code
written against the first layout keeps working: ``import coschedule.bench_batch`` or ``from
coschedule.sim.pack import PackSimulation`` gives the module that now holds that code (the same
object, so an attribute set on one is seen through the other). New code imports the new names; a
test checks that nothing in the package imports an old one.

:data:`MOVED` is the whole table: old module -> new module. :func:`install` puts a finder for it
on :data:`sys.meta_path` (``coschedule/__init__.py`` calls it once); the finder answers only for
the names of the table, so every other import is untouched.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType

__all__ = ["MOVED", "install"]

#: old module name -> the module that holds its code now
MOVED: dict[str, str] = {
    # the online batch scheduler: the run from names and numbers, the policies and their kernel
    "coschedule.batch": "coschedule.heuristics.batch.run",
    "coschedule.heuristics.stealing": "coschedule.heuristics.batch.stealing",
    "coschedule.heuristics.fast.batch_engine": "coschedule.heuristics.batch.engine",
    "coschedule.heuristics.fast.batch_kernel": "coschedule.heuristics.batch.kernel",
    "coschedule.heuristics.fast.stealing_kernel": "coschedule.heuristics.batch.stealing_kernel",
    # the torus: the run from names and numbers, its picture
    "coschedule.torus.run": "coschedule.heuristics.torus.run",
    "coschedule.torus.plot": "coschedule.plot.torus",
    # malleable packs with redistribution: model, simulator, validator, file format, picture
    "coschedule.sim.pack": "coschedule.redistribution.simulation",
    "coschedule.sim.validate_pack": "coschedule.redistribution.validate",
    "coschedule.io.pack": "coschedule.redistribution.io",
    "coschedule.redistribution_plot": "coschedule.plot.redistribution",
    # the benchmarks
    "coschedule.bench_batch": "coschedule.bench.batch",
    "coschedule.bench_torus": "coschedule.bench.torus",
    "coschedule.bench_redistrib": "coschedule.bench.redistrib",
    "coschedule.baseline": "coschedule.bench.baseline",
    # the campaign simulators: adapter and report together
    "coschedule.campaign.batch": "coschedule.campaign.simulators.batch.adapter",
    "coschedule.campaign.batch_report": "coschedule.campaign.simulators.batch.report",
    "coschedule.campaign.torus": "coschedule.campaign.simulators.torus.adapter",
    "coschedule.campaign.torus_report": "coschedule.campaign.simulators.torus.report",
    "coschedule.campaign.redistrib": "coschedule.campaign.simulators.redistrib.adapter",
    "coschedule.campaign.redistrib_report": "coschedule.campaign.simulators.redistrib.report",
    # the command line: one package per command family
    "coschedule.cli.torus_simulate": "coschedule.cli.torus.simulate",
}


class _Alias(importlib.abc.Loader):
    """Loads an old name as the new module itself (no second copy of its code)."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.target)
        self._spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # the import system has just given the module the old name's spec: give it back its own
        module.__spec__ = self._spec


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: object = None, target: object = None):  # noqa: ANN201
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias(new))


_FINDER = _MovedFinder()


def install() -> None:
    """Put the finder of :data:`MOVED` on :data:`sys.meta_path` (once)."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_FINDER)
