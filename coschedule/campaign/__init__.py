"""Experiment campaigns: grids of simulations, run in parallel, stored as they complete.

``coschedule simulate`` and ``coschedule report`` are thin layers over this package:

* :mod:`.simulators` -- the simulators a spec's ``simulator`` key names: ``rigid`` (the default),
  ``batch`` and ``torus``; the engine reaches each through this registry;
* :mod:`.spec` -- :class:`CampaignSpec` (TOML or flags), the rigid simulator's grid, its lazily
  generated cells and their seeds;
* :mod:`.sources` -- where the rigid instances come from (synthetic job sets of §5.1, instance
  files, day-sets of SWF traces);
* :mod:`.batch` -- :class:`BatchSpec`, the batch simulator's grid (workloads x policies x
  failure settings x seeds, one :func:`~coschedule.batch.run_batch` per cell), its seeds and
  result columns; :mod:`.workloads` its workload sources (SWF, Batsim JSON, registered synthetic
  generators); :mod:`.batch_report` its summaries;
* :mod:`.torus` -- :class:`TorusSpec`, the torus simulator's grid (workloads x load scales x
  failure counts x seeds x schedulers, one validated :func:`~coschedule.torus.run.run_torus` per
  cell, every scheduler of a point on the same failure trace); :mod:`.torus_report` its summaries
  (means with Student-t intervals) and the figures of [Oliner2004];
* :mod:`.store` -- the SQLite results file, one committed row per cell, resumable;
* :mod:`.run` -- :func:`run_campaign` on local processes or a Dask cluster, with a progress bar;
* :mod:`.report` -- summary tables, CSV/JSON export and the paper's figures.

>>> from coschedule.campaign import CampaignSpec, SyntheticSource
>>> spec = CampaignSpec(sources=(SyntheticSource(sets=2, n=10),), heuristics=("r-list-0",),
...                     priorities=("LPT", "LA"), qbar=(0.0, 0.3), scenarios=50).normalized()
>>> spec.n_cells()
8
"""

from .batch import BatchCell, BatchSpec, batch_metrics
from .batch_report import BatchGroup, format_batch_markdown, format_batch_tables, summarize_batch
from .report import (
    Group,
    export_csv,
    export_json,
    format_markdown,
    format_tables,
    groups_to_dataframe,
    plot_groups,
    plot_side_by_side,
    summarize,
)
from .run import Progress, RunSummary, run_campaign, simulate_cell
from .simulators import SIMULATORS, Simulator, get_simulator
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
from .torus import TorusCell, TorusSpec
from .torus_report import TorusGroup, format_torus_markdown, format_torus_tables, summarize_torus
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
