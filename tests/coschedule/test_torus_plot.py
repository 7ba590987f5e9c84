"""The picture of a torus run (:mod:`coschedule.torus.plot`): the instant it picks, its panels,
the Gantt chart's rows."""

from __future__ import annotations

import numpy as np
import pytest

from coschedule.sim.workload import Workload
from coschedule.torus.plot import MAX_GANTT_JOBS, default_instant, plot_torus_run
from coschedule.torus.run import run_torus
from coschedule.torus.workload import torus_workload

pytest.importorskip("matplotlib")


def small_run(dims, n=30, seed=1, failures=10):
    rng = np.random.default_rng(seed)
    N = int(np.prod(dims))
    length = rng.uniform(10, 200, n)
    w = Workload(tuple(f"j{k}" for k in range(n)), np.sort(rng.uniform(0, 500, n)), rng.choice([1, 2, 4], n),
                 length, length, N, name="w")
    return run_torus(torus_workload(w, dims), "fcfs", failure_count=failures, seed=seed)


def test_default_instant_has_the_most_jobs_running():
    run = small_run((2, 2, 4))
    atts = run.result.attempts
    at = default_instant(run)

    def running(t):
        return sum(a.start <= t < a.end for a in atts)

    assert at in {a.start for a in atts}
    assert running(at) == max(running(a.start) for a in atts)


def test_panels_slices_or_projections(tmp_path):
    fig = plot_torus_run(small_run((2, 2, 4)), tmp_path / "a.png")
    titles = [ax.get_title() for ax in fig.axes]
    assert [t for t in titles if t.startswith("z = ")] == [f"z = {k}" for k in range(4)]  # the longest axis
    assert (tmp_path / "a.png").stat().st_size > 5000
    fig = plot_torus_run(small_run((1, 1, 20), n=12), at=100.0)  # 20 slices: projections instead
    assert sum(ax.get_title().startswith("busy share along") for ax in fig.axes) == 3


def test_gantt_rows_are_capped_and_keep_the_running_jobs():
    run = small_run((4, 4, 8), n=150, failures=0)
    at = default_instant(run)
    fig = plot_torus_run(run, at=at, span=1e6)
    gantt = fig.axes[-2] if fig.axes[-1].get_title() else fig.axes[-1]
    labels = [t.get_text() for t in gantt.get_yticklabels()]
    assert len(labels) == MAX_GANTT_JOBS
    ids = run.result.workload.ids
    running = {ids[a.job] for a in run.result.attempts if a.start <= at < a.end}
    assert running <= set(labels)
