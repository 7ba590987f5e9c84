"""Gantt charts of rigid schedules (``coschedule.plot.plot_rigid_schedule``)."""

from __future__ import annotations

import dataclasses

import pytest

from coschedule.families import (
    prop3_instance,
    prop3_witness_schedule,
    prop4_instance,
    prop4_witness_schedule,
)
from coschedule.plot import processor_rows
from coschedule.rigid import rigid_instance
from coschedule.schedule import Execution, Outcome, Schedule

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _strip_nodes(schedule: Schedule) -> Schedule:
    return Schedule(tuple(dataclasses.replace(e, nodes=None) for e in schedule.executions))


def _no_processor_shared(schedule: Schedule, rows: list[tuple[int, ...]], P: int) -> None:
    for e, nodes in zip(schedule.executions, rows):
        assert len(nodes) == e.procs and len(set(nodes)) == e.procs
        assert all(0 <= x < P for x in nodes)
    items = list(zip(schedule.executions, rows))
    for i, (e1, n1) in enumerate(items):
        for e2, n2 in items[i + 1 :]:
            if e1.start < e2.end and e2.start < e1.end:
                assert not set(n1) & set(n2), (e1, e2)


def _mixed_schedule() -> tuple:
    # P = 5: wide and narrow jobs, one failure, no nodes
    inst = rigid_instance([(3, 2.0), (2, 1.0), (4, 1.5), (1, 3.0)], 5)
    sched = Schedule(
        (
            Execution(0, 0, 0.0, 2.0, 3, Outcome.FAILURE),
            Execution(1, 0, 0.0, 1.0, 2, Outcome.SUCCESS),
            Execution(3, 0, 1.0, 4.0, 1, Outcome.SUCCESS),
            Execution(0, 1, 2.0, 4.0, 3, Outcome.SUCCESS),
            Execution(2, 0, 4.0, 5.5, 4, Outcome.SUCCESS),
        )
    )
    return inst, sched


def test_processor_rows_keep_nodes():
    sched = prop3_witness_schedule(4)
    assert processor_rows(sched, 4) == [e.nodes for e in sched.executions]


@pytest.mark.parametrize("P", [3, 4])
def test_processor_rows_first_fit_is_a_drawing_without_conflicts(P):
    for sched in (_strip_nodes(prop3_witness_schedule(P)), _strip_nodes(prop4_witness_schedule(P))):
        rows = processor_rows(sched, P)
        _no_processor_shared(sched, rows, P)
    inst, sched = _mixed_schedule()
    rows = processor_rows(sched, inst.P)
    _no_processor_shared(sched, rows, inst.P)


def test_processor_rows_rejects_overload():
    sched = Schedule((Execution(0, 0, 0.0, 2.0, 3), Execution(1, 0, 1.0, 2.0, 3)))
    with pytest.raises(ValueError, match=r"job 1, attempt 0: fewer than 3 processors free at 1"):
        processor_rows(sched, 5)


def test_plot_rigid_schedule_png(tmp_path):
    pytest.importorskip("matplotlib")
    from coschedule.plot import plot_rigid_schedule

    cases = [
        (prop3_instance(4)[0], prop3_witness_schedule(4)),
        (prop4_instance(3)[0], prop4_witness_schedule(3)),
        (prop3_instance(4)[0], _strip_nodes(prop3_witness_schedule(4))),
        _mixed_schedule(),
    ]
    for k, (inst, sched) in enumerate(cases):
        path = tmp_path / f"gantt{k}.png"
        plot_rigid_schedule(inst, sched, path, title="test" if k else None)
        data = path.read_bytes()
        assert data.startswith(PNG_MAGIC) and len(data) > 1000


def test_plot_rigid_schedule_svg(tmp_path):
    pytest.importorskip("matplotlib")
    from coschedule.plot import plot_rigid_schedule

    inst, sched = _mixed_schedule()
    path = tmp_path / "gantt.svg"
    plot_rigid_schedule(inst, sched, path)
    assert b"<svg" in path.read_bytes()[:2000]
