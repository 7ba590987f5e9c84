"""The simulators a campaign can run, by the name of the spec's ``simulator`` key.

One :class:`Simulator` per name: how its spec is read from a TOML table, how one cell is
simulated into one row, the table its rows go to, and the estimated cost of its cells (for the
progress bar's ETA). The engine (:mod:`.run`, :mod:`.store`, :mod:`.spec`) only goes through this
registry, so every simulator gets the same guarantees: seeds from the cells' values, rows
committed as cells complete, resume, and the same numbers on 1 or N workers or on Dask.

The simulators are discovered, not listed: each module or package ``NAME`` of
:mod:`coschedule.campaign.simulators` is the simulator ``NAME`` and holds its :class:`Simulator`
as ``SIMULATOR`` (imported the first time the name is asked for). A new simulator kind adds its
folder there and edits nothing here (docs/design.md, "A fifth simulator"). Those of the toolkit:

* ``rigid`` (the default, and what a spec without the key means): the resilient rigid-job
  heuristics of [Benoit2021] over failure scenarios;
* ``batch``: the online batch scheduler with node failures and checkpointing, one run of
  :func:`~coschedule.heuristics.batch.run.run_batch` per cell;
* ``torus``: fault-aware scheduling on a BlueGene/L-style torus ([Oliner2004]), one validated
  run of :func:`~coschedule.heuristics.torus.run.run_torus` per cell;
* ``redistrib``: a pack of malleable applications under failures, with processor redistribution
  ([Aupy2017] §1.5), one run of :func:`~coschedule.heuristics.redistribution.run_pack` per cell,
  normalised by the faulty run on the same pack and failures.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coschedule.errors import CampaignError, unknown_name

if TYPE_CHECKING:
    from .schema import ResultSchema

__all__ = ["DEFAULT_SIMULATOR", "SIMULATORS", "Simulator", "get_simulator"]

DEFAULT_SIMULATOR = "rigid"


@dataclass(frozen=True)
class Simulator:
    """One kind of campaign.

    ``spec_from_dict(data, where, base, traces_dir)`` builds its spec from the TOML table;
    ``simulate(cell, backend)`` returns the row of one cell (the keys of ``schema``);
    ``costs(spec, numba)`` the estimated cost of each cell id (any unit), or ``None`` to count
    cells. For ``coschedule report``: ``summarize(rows)`` makes the groups of stored rows (each
    with ``to_dict()``), ``tables(groups)`` and ``markdown(groups)`` print them, ``per_cell(spec)``
    says what one cell is (``"1000 scenarios each"``), and ``plots`` whether
    :func:`~coschedule.campaign.plot_groups` draws its groups.
    """

    name: str
    description: str
    schema: ResultSchema
    spec_from_dict: Callable[..., Any]
    simulate: Callable[[Any, str], dict[str, Any]]
    costs: Callable[[Any, bool], dict[str, float] | None]
    summarize: Callable[[Any], list[Any]]
    tables: Callable[[Any], str]
    markdown: Callable[[Any], str]
    per_cell: Callable[[dict[str, Any]], str]
    plots: bool = False
    #: ``figure(rows, title)``: the simulator's own ``--plot`` from the selected rows (instead of
    #: :func:`~coschedule.campaign.plot_groups`)
    figure: Callable[..., Any] | None = None



#: the package whose modules are the simulators
SIMULATORS_PACKAGE = "coschedule.campaign.simulators"


def _discover() -> dict[str, Callable[[], Simulator]]:
    folder = Path(__file__).with_name("simulators")
    names = sorted(m.name for m in pkgutil.iter_modules([str(folder)]) if not m.name.startswith("_"))
    return {name: (lambda name=name: importlib.import_module(f"{SIMULATORS_PACKAGE}.{name}").SIMULATOR)
            for name in names}


#: simulator name -> how to get it (its module is imported when first used)
SIMULATORS: dict[str, Callable[[], Simulator]] = _discover()
_BUILT: dict[str, Simulator] = {}


def get_simulator(name: str) -> Simulator:
    """The simulator called ``name``; an unknown name raises :class:`CampaignError` listing the
    valid ones."""
    if not isinstance(name, str) or name not in SIMULATORS:
        raise CampaignError(str(unknown_name("simulator", str(name), list(SIMULATORS))))
    if name not in _BUILT:
        _BUILT[name] = SIMULATORS[name]()
    return _BUILT[name]


def spec_from_table(data: Any, where: str = "spec", base: str | Path = ".", *,
                    traces_dir: str | None = None) -> Any:
    """The spec of a TOML table, read by the simulator its ``simulator`` key names."""
    if not isinstance(data, dict):
        raise CampaignError(f"{where}: expected a table")
    name = data.get("simulator", DEFAULT_SIMULATOR)
    try:
        sim = get_simulator(name)
    except CampaignError as e:
        raise CampaignError(f"{where}: {e}") from None
    return sim.spec_from_dict(data, where, base, traces_dir=traces_dir)
