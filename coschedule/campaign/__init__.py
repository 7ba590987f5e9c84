"""Experiment campaigns: grids of simulations, run in parallel, stored as they complete.

``coschedule simulate`` and ``coschedule report`` are thin layers over this package:

The shared engine:

* :mod:`.spec` -- what every spec has (TOML tables, value lists, cell ids and seeds) and
  :class:`CampaignSpec`, the rigid simulator's grid with its lazily generated cells;
* :mod:`.sources` -- where the rigid instances come from (synthetic job sets of §5.1, instance
  files, day-sets of SWF traces); :mod:`.workloads` -- the online simulators' workloads (SWF,
  Batsim JSON, registered synthetic generators);
* :mod:`.registry` -- the simulators by the name of a spec's ``simulator`` key, discovered in
  :mod:`.simulators`; the engine reaches each through it;
* :mod:`.store` -- the SQLite results file, one committed row per cell, resumable;
* :mod:`.progress` -- the cells' estimated costs and the progress bar;
* :mod:`.run` -- :func:`run_campaign` on local processes or a Dask cluster;
* :mod:`.report` -- summary tables, CSV/JSON export and figures; :mod:`.stats` -- Student-t
  intervals.

The simulators, one folder each in :mod:`.simulators` (adapter and report together): ``rigid``
(the default: [Benoit2021]'s heuristics over failure scenarios), ``batch`` (:class:`BatchSpec`,
one :func:`~coschedule.heuristics.batch.run.run_batch` per cell), ``torus`` (:class:`TorusSpec`,
one validated :func:`~coschedule.heuristics.torus.run.run_torus` per cell) and ``redistrib``
(one :func:`~coschedule.heuristics.redistribution.run_pack` per cell and its faulty baseline).

>>> from coschedule.campaign import CampaignSpec, SyntheticSource
>>> spec = CampaignSpec(sources=(SyntheticSource(sets=2, n=10),), heuristics=("r-list-0",),
...                     priorities=("LPT", "LA"), qbar=(0.0, 0.3), scenarios=50).normalized()
>>> spec.n_cells()
8
"""

from typing import TYPE_CHECKING

from coschedule._lazy import attach

if TYPE_CHECKING:  # imported when first read (coschedule._lazy): `coschedule --help` needs none of it
    from coschedule.campaign.registry import SIMULATORS, Simulator, get_simulator
    from coschedule.campaign.simulators.batch.adapter import BatchCell, BatchSpec, batch_metrics
    from coschedule.campaign.simulators.batch.report import (
        BatchGroup,
        format_batch_markdown,
        format_batch_tables,
        summarize_batch,
    )
    from coschedule.campaign.simulators.torus.adapter import TorusCell, TorusSpec
    from coschedule.campaign.simulators.torus.report import (
        TorusGroup,
        format_torus_markdown,
        format_torus_tables,
        summarize_torus,
    )

    from .export import export_csv, export_json
    from .report import (
        Group,
        format_markdown,
        format_tables,
        groups_to_dataframe,
        plot_groups,
        plot_side_by_side,
        summarize,
    )
    from .run import Progress, RunSummary, run_campaign, simulate_cell
    from .spec import (
        CampaignError,
        CampaignSpec,
        Cell,
        FilesSource,
        InstanceRef,
        SyntheticSource,
        TraceSource,
        load_spec,
        parse_values,
        spec_from_dict,
    )
    from .store import ResultStore
    from .workloads import (
        WORKLOAD_GENERATORS,
        BatsimWorkload,
        SwfWorkload,
        SyntheticWorkload,
        register_workload_generator,
    )

__all__ = [
    "SIMULATORS",
    "WORKLOAD_GENERATORS",
    "BatchCell",
    "BatchGroup",
    "BatchSpec",
    "BatsimWorkload",
    "CampaignError",
    "CampaignSpec",
    "Cell",
    "FilesSource",
    "Group",
    "InstanceRef",
    "Progress",
    "ResultStore",
    "RunSummary",
    "Simulator",
    "SwfWorkload",
    "SyntheticSource",
    "SyntheticWorkload",
    "TorusCell",
    "TorusGroup",
    "TorusSpec",
    "TraceSource",
    "batch_metrics",
    "export_csv",
    "export_json",
    "format_batch_markdown",
    "format_batch_tables",
    "format_markdown",
    "format_tables",
    "format_torus_markdown",
    "format_torus_tables",
    "get_simulator",
    "groups_to_dataframe",
    "load_spec",
    "parse_values",
    "plot_groups",
    "plot_side_by_side",
    "register_workload_generator",
    "run_campaign",
    "simulate_cell",
    "spec_from_dict",
    "summarize",
    "summarize_batch",
    "summarize_torus",
]

__getattr__, __dir__ = attach(__name__, {
    ".registry": ("SIMULATORS", "Simulator", "get_simulator"),
    ".simulators.batch.adapter": ("BatchCell", "BatchSpec", "batch_metrics"),
    ".simulators.batch.report": ("BatchGroup", "format_batch_markdown", "format_batch_tables", "summarize_batch"),
    ".simulators.torus.adapter": ("TorusCell", "TorusSpec"),
    ".simulators.torus.report": ("TorusGroup", "format_torus_markdown", "format_torus_tables", "summarize_torus"),
    ".export": ("export_csv", "export_json"),
    ".report": ("Group", "format_markdown", "format_tables", "groups_to_dataframe", "plot_groups",
                "plot_side_by_side", "summarize"),
    ".run": ("Progress", "RunSummary", "run_campaign", "simulate_cell"),
    ".spec": ("CampaignError", "CampaignSpec", "Cell", "FilesSource", "InstanceRef", "SyntheticSource",
              "TraceSource", "load_spec", "parse_values", "spec_from_dict"),
    ".store": ("ResultStore",),
    ".workloads": ("WORKLOAD_GENERATORS", "BatsimWorkload", "SwfWorkload", "SyntheticWorkload",
                   "register_workload_generator"),
})
