"""Experiment campaigns: grids of simulations, run in parallel, stored as they complete.

``coschedule simulate`` and ``coschedule report`` are thin layers over this package:

* :mod:`.spec` -- :class:`CampaignSpec` (TOML or flags), its lazily generated cells and their
  seeds;
* :mod:`.sources` -- where the instances come from (synthetic job sets of §5.1, instance files,
  day-sets of SWF traces);
* :mod:`.store` -- the SQLite results file, one committed row per cell, resumable;
* :mod:`.run` -- :func:`run_campaign` on local processes or a Dask cluster, with a progress bar;
* :mod:`.report` -- summary tables, CSV/JSON export and the paper's figures.

>>> from coschedule.campaign import CampaignSpec, SyntheticSource
>>> spec = CampaignSpec(sources=(SyntheticSource(sets=2, n=10),), heuristics=("r-list-0",),
...                     priorities=("LPT", "LA"), qbar=(0.0, 0.3), scenarios=50).normalized()
>>> spec.n_cells()
8
"""

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

__all__ = [
    "CampaignError",
    "CampaignSpec",
    "Cell",
    "FilesSource",
    "Group",
    "InstanceRef",
    "Progress",
    "ResultStore",
    "RunSummary",
    "SyntheticSource",
    "TraceSource",
    "export_csv",
    "export_json",
    "format_markdown",
    "format_tables",
    "groups_to_dataframe",
    "load_spec",
    "parse_values",
    "plot_groups",
    "plot_side_by_side",
    "run_campaign",
    "simulate_cell",
    "spec_from_dict",
    "summarize",
]
