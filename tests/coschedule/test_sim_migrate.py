"""The engine's migration primitive (:meth:`coschedule.sim.engine.Simulation.migrate`): jobs
keep their work, go on at once after the migration cost, and may swap nodes."""

from __future__ import annotations

import numpy as np
import pytest

from coschedule.sim.engine import Instant, Simulation
from coschedule.sim.metrics import job_records, utilization
from coschedule.sim.validate import validate_run
from coschedule.sim.workload import Workload


class SwapAt:
    """Starts A on {0, 1} and B on {2, 3} at 0, swaps them at ``t``."""

    name = "swap"

    def __init__(self, t: float) -> None:
        self.t = t

    def reset(self, sim: Simulation) -> None:
        sim.wake(self.t, "swap")

    def job_failed(self, sim: Simulation, job: int, node: int) -> None:  # pragma: no cover - no failure
        raise AssertionError

    def decide(self, sim: Simulation, instant: Instant) -> None:
        for j in instant.submitted:
            sim.start(j, [2 * j, 2 * j + 1])

    def wake(self, sim: Simulation, data: object, instant: Instant) -> None:
        sim.migrate({0: [2, 3], 1: [0, 1]})


@pytest.mark.parametrize("cost", [0.0, 2.5])
def test_two_jobs_swap_nodes(cost: float) -> None:
    w = Workload(("A", "B"), np.zeros(2), np.array([2, 2]), np.array([10.0, 20.0]), np.array([10.0, 20.0]), 4)
    res = Simulation(w, SwapAt(4.0), migration_cost=cost).run()
    validate_run(res)
    got = [(a.job, a.start, a.end, a.nodes, a.outcome, a.recovery, a.saved_before, a.saved_after)
           for a in sorted(res.attempts, key=lambda a: (a.job, a.index))]
    assert got == [(0, 0, 4, (0, 1), "migrated", 0.0, 0.0, 4.0), (0, 4, 10 + cost, (2, 3), "completed", cost, 4.0, 4.0),
                   (1, 0, 4, (2, 3), "migrated", 0.0, 0.0, 4.0), (1, 4, 20 + cost, (0, 1), "completed", cost, 4.0, 4.0)]
    u = utilization(res)
    assert u.parts()["useful"] == pytest.approx(2 * 10 + 2 * 20)  # no work lost
    assert u.parts()["recovery"] == pytest.approx(2 * 2 * cost)  # the moves' cost
    assert [r.final_state for r in job_records(res)].count("COMPLETED_KILLED") == 2


def test_migrate_refuses_a_job_not_running() -> None:
    w = Workload(("A",), np.array([5.0]), np.array([1]), np.array([1.0]), np.array([1.0]), 2)
    sim = Simulation(w, SwapAt(1.0))
    with pytest.raises(RuntimeError, match="job A: cannot migrate: it is not running"):
        sim.migrate({0: [1]})
    with pytest.raises(ValueError, match="migration cost must be a finite number >= 0"):
        Simulation(w, SwapAt(1.0), migration_cost=-1.0)
