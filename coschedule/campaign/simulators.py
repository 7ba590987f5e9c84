"""The simulators a campaign can run, by the name of the spec's ``simulator`` key.

One :class:`Simulator` per name: how its spec is read from a TOML table, how one cell is
simulated into one row, the table its rows go to, and the estimated cost of its cells (for the
progress bar's ETA). The engine (:mod:`.run`, :mod:`.store`) only goes through this registry, so
every simulator gets the same guarantees: seeds from the cells' values, rows committed as cells
complete, resume, and the same numbers on 1 or N workers or on Dask.

* ``rigid`` (the default, and what a spec without the key means): the resilient rigid-job
  heuristics of [Benoit2021] over failure scenarios (:mod:`.spec`);
* ``batch``: the online batch scheduler with node failures and checkpointing, one run of
  :func:`coschedule.batch.run_batch` per cell (:mod:`.batch`);
* ``torus``: fault-aware scheduling on a BlueGene/L-style torus ([Oliner2004]), one run of
  :func:`coschedule.torus.run.run_torus` per cell, validated (:mod:`.torus`, :mod:`.torus_report`);
* ``redistrib``: a pack of malleable applications under failures, with processor redistribution
  ([Aupy2017] §1.5), one run of :func:`coschedule.heuristics.redistribution.run_pack` per cell,
  normalised by the faulty run on the same pack and failures (:mod:`.redistrib`,
  :mod:`.redistrib_report`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coschedule.errors import unknown_name

from .sources import CampaignError
from .store import RIGID_SCHEMA, ResultSchema

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


def _rigid() -> Simulator:
    from .progress import campaign_costs
    from .report import format_markdown, format_tables, summarize
    from .run import simulate_rigid_cell
    from .spec import rigid_spec_from_dict

    return Simulator("rigid", "resilient rigid jobs under silent errors ([Benoit2021] §5)", RIGID_SCHEMA,
                     rigid_spec_from_dict, simulate_rigid_cell, lambda spec, numba: campaign_costs(spec, numba=numba),
                     summarize, format_tables, format_markdown, lambda spec: f"{spec.get('scenarios')} scenarios each",
                     plots=True)


def _batch() -> Simulator:
    from . import batch, batch_report

    return Simulator("batch", "online batch scheduling with node failures and checkpointing (run_batch)",
                     batch.BATCH_SCHEMA, batch.batch_spec_from_dict, batch.simulate_batch_cell,
                     lambda spec, numba: batch.batch_costs(spec), batch_report.summarize_batch,
                     batch_report.format_batch_tables, batch_report.format_batch_markdown,
                     lambda spec: "one simulation each", figure=batch_report.batch_figure)


def _torus() -> Simulator:
    from . import torus, torus_report

    return Simulator("torus", "fault-aware scheduling on a BlueGene/L torus with failures (run_torus)",
                     torus.TORUS_SCHEMA, torus.torus_spec_from_dict, torus.simulate_torus_cell,
                     lambda spec, numba: torus.torus_costs(spec), torus_report.summarize_torus,
                     torus_report.format_torus_tables, torus_report.format_torus_markdown,
                     lambda spec: "one simulation each", figure=torus_report.torus_figure)


def _redistrib() -> Simulator:
    from . import redistrib, redistrib_report

    return Simulator("redistrib", "malleable applications under failures with processor redistribution (run_pack)",
                     redistrib.REDISTRIB_SCHEMA, redistrib.redistrib_spec_from_dict,
                     redistrib.simulate_redistrib_cell, lambda spec, numba: redistrib.redistrib_costs(spec),
                     redistrib_report.summarize_redistrib, redistrib_report.format_redistrib_tables,
                     redistrib_report.format_redistrib_markdown,
                     lambda spec: "one simulation each (and its faulty baseline)",
                     figure=redistrib_report.redistrib_figure)


#: simulator name -> how to build it (imported when first used)
SIMULATORS: dict[str, Callable[[], Simulator]] = {"rigid": _rigid, "batch": _batch, "torus": _torus,
                                                  "redistrib": _redistrib}
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
