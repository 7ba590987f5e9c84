"""``coschedule bench campaign``: the wall time of a whole rigid-jobs campaign (by default
``campaigns/fig5-tenth.toml``, a tenth of [Benoit2021]'s Fig. 5) run into a fresh database; given
the authors' simulator (:mod:`.baseline`), that simulator on the campaign's cells it can run, timed
and checked against our makespans."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from coschedule.bench.common import NOT_MEASURED

__all__ = ["CampaignBaseline", "CampaignBench", "bench_campaign"]



@dataclass(frozen=True)
class CampaignBaseline:
    """The baseline binary on the cells of a campaign it can run (:mod:`coschedule.bench.baseline`):
    ``cells`` of them, ``scenarios`` simulations, its CPU and wall seconds (one process per
    cell, run one after the other), our compute seconds for the same cells (the ``seconds``
    column: the cell's scenarios sampled, simulated and bounded, on one core), and the cells
    whose mean makespan agrees with ours (``compared`` of them: RANDOM is timed, not compared)."""

    binary: str
    cells: int
    scenarios: int
    cpu_s: float
    wall_s: float
    ours_s: float
    compared: int
    agree: int
    skipped: str

    @property
    def ratio(self) -> float | None:
        """Baseline CPU seconds / our compute seconds on the same cells."""
        return self.cpu_s / self.ours_s if self.ours_s > 0 else None

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ratio": self.ratio}


@dataclass(frozen=True)
class CampaignBench:
    """A campaign run from scratch: wall time, rate, memory, our compute seconds summed over the
    cells, and the baseline (``None``: not measured)."""

    spec: str
    cells: int
    simulations: int
    workers: int
    seconds: float
    compute_seconds: float
    peak_rss_mb: float | None
    worker_peak_rss_mb: float | None
    baseline: CampaignBaseline | None = None

    @property
    def per_second(self) -> float:
        return self.simulations / self.seconds if self.seconds > 0 else float("inf")

    def to_dict(self) -> dict:
        d = {k: v for k, v in asdict(self).items() if k != "baseline"}
        return {**d, "per_second": self.per_second,
                "baseline": self.baseline.to_dict() if self.baseline else NOT_MEASURED}


def bench_campaign(spec_path: str, *, workers: int | None = None, db: str | None = None,
                   baseline: str | None = None, progress: bool = False, reserves: str = "zero") -> CampaignBench:
    """Run the campaign ``spec_path`` from scratch (into ``db``, or a temporary file that is
    deleted afterwards, also on SIGTERM when the CLI runs it) and time it. Its numbers are those
    of ``coschedule simulate``. With ``baseline`` (the path of the authors' simulator or a
    program with its interface), that program then runs every cell it can (R-List-0 and R-Shelf
    in the stored version of ``main.cpp``; with ``reserves``, the ``m`` an edited ``main`` passes,
    those of :data:`coschedule.bench.baseline.RESERVES`) on the same scenarios, and the row says
    how long it took and whether its mean makespans agree with ours."""
    import os
    import tempfile

    from coschedule.campaign import ResultStore, load_spec, run_campaign

    spec = load_spec(spec_path).normalized()
    with tempfile.TemporaryDirectory(prefix="coschedule-bench-") as tmp:
        path = db or os.path.join(tmp, "bench.sqlite")
        if db and os.path.exists(db):
            raise ValueError(f"{db} exists: the benchmark needs a fresh database")
        summary = run_campaign(spec, path, workers=workers, progress=progress)
        with ResultStore.open(path) as store:
            rows = {r["id"]: r for r in store.rows()}
        base = _campaign_baseline(baseline, spec, rows, reserves) if baseline else None
    compute = float(sum(r["seconds"] for r in rows.values()))
    return CampaignBench(spec_path, summary.cells, summary.computed * spec.scenarios, summary.workers,
                         summary.seconds, compute, summary.peak_rss_mb, summary.worker_peak_rss_mb, base)


def _campaign_baseline(binary: str, spec: Any, rows: dict[str, dict[str, Any]],
                       reserves: str = "zero") -> CampaignBaseline:
    from coschedule.bench.baseline import MAKESPAN_RTOL, RESERVES, run_baseline, supported
    from coschedule.campaign.simulators.rigid import cell_inputs

    cells = sims = compared = agree = 0
    cpu = wall = ours = 0.0
    skipped: set[str] = set()
    for cell in spec.cells():
        why = supported(cell.heuristic, cell.priority, reserves)
        if why is not None:
            skipped.add(cell.heuristic if cell.heuristic not in RESERVES.get(reserves, {}) else cell.priority)
            continue
        inst, failures, _ = cell_inputs(cell)
        run = run_baseline(binary, inst, failures, cell.heuristic, cell.priority, reserves=reserves)
        row = rows[cell.id]
        cells += 1
        sims += run.scenarios
        cpu += run.cpu_s
        wall += run.wall_s
        ours += row["seconds"]
        if cell.priority != "RANDOM":
            compared += 1
            agree += bool(np.isclose(np.mean(run.makespans), row["mean_makespan"], rtol=MAKESPAN_RTOL, atol=0))
    return CampaignBaseline(binary, cells, sims, cpu, wall, ours, compared, agree,
                            ", ".join(sorted(skipped)))
