"""The ``rigid`` campaign simulator (the default): the resilient rigid-job heuristics of
[Benoit2021] §5 over failure scenarios. Its spec is :class:`~coschedule.campaign.spec.CampaignSpec`
(with the sources of :mod:`coschedule.campaign.sources`), its costs and report those of the engine
(:func:`~coschedule.campaign.progress.campaign_costs`, :mod:`coschedule.campaign.report`): the
campaigns began with it, and its database layout is the first one
(:data:`~coschedule.campaign.store.RIGID_SCHEMA`).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from coschedule.campaign.progress import campaign_costs
from coschedule.campaign.registry import Simulator
from coschedule.campaign.report import format_markdown, format_tables, summarize
from coschedule.campaign.spec import Cell, rigid_spec_from_dict
from coschedule.campaign.store import RIGID_SCHEMA

__all__ = ["SIMULATOR", "cell_inputs", "simulate_rigid_cell"]


def cell_inputs(cell: Cell) -> tuple[Any, np.ndarray, np.random.Generator]:
    """The cell's instance, its ``(N, n)`` failure scenarios and the generator of its RANDOM
    priority, all from the cell's seeds (what :func:`simulate_cell` simulates)."""
    from coschedule.rigid import SilentErrors

    inst = cell.instance()
    model = SilentErrors.from_qbar(inst, cell.qbar)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(list(cell.scenario_seed))))
    failures = model.sample(inst, size=cell.scenarios, seed=rng)
    prio_rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(list(cell.priority_seed))))
    return inst, failures, prio_rng


def simulate_rigid_cell(cell: Cell, backend: str = "auto") -> dict[str, Any]:
    """Simulate one rigid cell on its ``N`` scenarios; the row the store keeps."""
    from coschedule.heuristics.fast import makespans
    from coschedule.rigid import lower_bounds

    t0 = time.perf_counter()
    inst, failures, prio_rng = cell_inputs(cell)
    T = makespans(inst, failures, cell.heuristic, priority=cell.priority_source or cell.priority, seed=prio_rng,
                  backend=backend)
    L = lower_bounds(inst, failures)
    ratio = T / L
    row: dict[str, Any] = {
        "id": cell.id,
        "source": cell.source,
        "instance": cell.instance_key,
        "n": inst.n,
        "P": inst.P,
        "P_grid": cell.P_grid,
        "qbar": cell.qbar,
        "heuristic": cell.heuristic,
        "priority": cell.priority,
        "scenarios": cell.scenarios,
        "seed": "[" + ",".join(str(s) for s in cell.scenario_seed) + "]",
        "mean_ratio": float(np.mean(ratio)),
        "std_ratio": float(np.std(ratio)),
        "min_ratio": float(np.min(ratio)),
        "max_ratio": float(np.max(ratio)),
        "mean_makespan": float(np.mean(T)),
        "mean_lb": float(np.mean(L)),
        "mean_failures": float(np.mean(failures.sum(axis=1))),
        "seconds": time.perf_counter() - t0,
    }
    if cell.keep:
        row["makespans"] = T
        row["lower_bounds"] = L
    return row


SIMULATOR = Simulator(
    "rigid", "resilient rigid jobs under silent errors ([Benoit2021] §5)", RIGID_SCHEMA,
    rigid_spec_from_dict, simulate_rigid_cell, lambda spec, numba: campaign_costs(spec, numba=numba),
    summarize, format_tables, format_markdown, lambda spec: f"{spec.get('scenarios')} scenarios each",
    plots=True,
)
