"""Rigid-job schedules with their failed attempts ([Benoit2021]), several stacked on one time axis
(a heuristic above the optimum, as the paper's Figs. 1 and 2 draw them)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from coschedule.plot.figure import (
    _FAILED_EDGE,
    _colour,
    _finish,
    _integer_locator,
    _runs,
    _time_label,
    new_figure,
)
from coschedule.rigid import RigidInstance
from coschedule.schedule import Execution, Outcome, Schedule

if TYPE_CHECKING:
    from matplotlib.figure import Figure


__all__ = ["plot_rigid_schedule", "plot_rigid_schedules", "processor_rows"]


def processor_rows(schedule: Schedule, P: int) -> list[tuple[int, ...]]:
    """Processor indices for drawing each execution of ``schedule`` (in its order).

    Executions that all carry ``nodes`` keep them. Otherwise rows are assigned greedily in
    order of start time: the lowest block of ``procs`` consecutive processors free at the
    start (first fit), or, when no block is free, the lowest free processors. This is a
    *drawing* of a schedule that only guarantees at most ``P`` processors at once; it is not a
    contiguous schedule, and an execution may be drawn in several bands. Needs ``O(n P)``.

    Raises
    ------
    ValueError
        if more than ``P`` processors are busy at some start time (an infeasible schedule).
    """
    execs = schedule.executions
    if execs and all(e.nodes is not None for e in execs):
        return [tuple(e.nodes) for e in execs]  # type: ignore[arg-type]
    free_at = np.full(P, -np.inf)
    rows: list[tuple[int, ...]] = [()] * len(execs)
    order = sorted(range(len(execs)), key=lambda i: (execs[i].start, -execs[i].procs, i))
    for i in order:
        e = execs[i]
        if e.procs == 0 or e.end <= e.start:
            continue
        free = free_at <= e.start
        if int(free.sum()) < e.procs:
            raise ValueError(
                f"job {e.job}, attempt {e.attempt}: fewer than {e.procs} processors free at {e.start:g}"
            )
        # first block of e.procs consecutive free processors: window sums of the free mask
        csum = np.concatenate(([0], np.cumsum(free)))
        blocks = np.flatnonzero(csum[e.procs :] - csum[: P - e.procs + 1] == e.procs)
        if blocks.size:
            chosen = np.arange(blocks[0], blocks[0] + e.procs)
        else:
            chosen = np.flatnonzero(free)[: e.procs]
        free_at[chosen] = e.end
        rows[i] = tuple(int(x) for x in chosen)
    return rows


def _default_rigid_title(instance: RigidInstance, schedule: Schedule, time_unit: str | None) -> str:
    execs = schedule.executions
    n_failed = sum(x.outcome is Outcome.FAILURE for x in execs)
    unit = f" {time_unit}" if time_unit else ""
    return (f"{instance.n} jobs, {len(execs)} attempts ({n_failed} failed), "
            f"makespan {schedule.makespan:.6g}{unit}")


def plot_rigid_schedule(
    instance: RigidInstance,
    schedule: Schedule,
    path: str | Path | None = None,
    *,
    title: str | None = None,
    time_unit: str | None = "s",
) -> Figure:
    """Gantt chart of a rigid-job schedule: time on x, processors on y.

    Each attempt is a rectangle in its job's colour: successful attempts solid, failed
    attempts hatched with a red edge; a rectangle is labelled with its job's name (and
    ``#k failed`` for a failed attempt k) only when the text fits in it. Executions with
    ``nodes`` are drawn on those processors; otherwise processor rows come from
    :func:`processor_rows`, a first-fit drawing that is **not** a contiguous schedule (the model
    only bounds the number of processors in use). A dashed line marks the makespan. Returns the
    figure; saves it too when ``path`` is given (:func:`save_figure`).
    """
    return plot_rigid_schedules(instance, [(title, schedule)], path, time_unit=time_unit)


def plot_rigid_schedules(
    instance: RigidInstance,
    schedules: Sequence[tuple[str | None, Schedule]],
    path: str | Path | None = None,
    *,
    title: str | None = None,
    time_unit: str | None = "s",
) -> Figure:
    """Several schedules of one instance stacked on a shared time axis, one panel each, top to
    bottom in the order given: ``[("R-ShelfFill (LPT)", heuristic), ("optimum", best)]``, as the
    paper draws a heuristic above the optimum ([Benoit2021] Figs. 1 and 2). A job has the same colour in
    every panel; one legend; each panel's dashed line is its makespan. ``title`` goes above all
    panels. Returns the figure; saves it too when ``path`` is given."""
    if not schedules:
        raise ValueError("nothing to plot: no schedule given")
    from matplotlib import colormaps
    from matplotlib.colors import to_rgba
    from matplotlib.patches import Patch, Rectangle

    P = instance.P
    fig = new_figure(figsize=(10, 0.9 + 3.1 * len(schedules)))
    axes = fig.subplots(len(schedules), 1, sharex=True, squeeze=False)[:, 0]
    cmap = colormaps["tab20"]
    horizon = max(max(s.makespan for _, s in schedules), 1e-12)
    boxes: list[list[tuple[float, float, float, float, list[str]]]] = []
    for ax, (sub, schedule) in zip(axes, schedules):
        rows = processor_rows(schedule, P)
        execs = schedule.executions
        drawn_from_nodes = bool(execs) and all(x.nodes is not None for x in execs)
        mine: list[tuple[float, float, float, float, list[str]]] = []
        for ex, nodes in zip(execs, rows):
            colour = _colour(cmap, ex.job)
            failed = ex.outcome is Outcome.FAILURE
            runs = _runs(nodes)
            for first, count in runs:
                ax.add_patch(Rectangle(
                    (ex.start, first), ex.duration, count,
                    facecolor=to_rgba(colour, 0.4) if failed else colour, hatch="///" if failed else None,
                    edgecolor=_FAILED_EDGE if failed else "black", lw=1.0 if failed else 0.5,
                    gid=f"job {ex.job} attempt {ex.attempt}",
                ))
            if runs:  # label the widest band of the execution
                first, count = max(runs, key=lambda r: (r[1], -r[0]))
                mine.append((ex.start, first, ex.duration, count, _rigid_labels(instance, ex, failed)))
        boxes.append(mine)
        if schedule.makespan > 0:
            ax.axvline(schedule.makespan, color="grey", lw=0.8, ls="--")
        ax.set_ylim(0, P)
        ax.set_ylabel("processors" if drawn_from_nodes else "processors\n(first-fit drawing)")
        ax.set_title(sub or _default_rigid_title(instance, schedule, time_unit), fontsize=10)
        ax.yaxis.set_major_locator(_integer_locator())
    axes[0].set_xlim(0, horizon * 1.01)
    axes[-1].set_xlabel(_time_label(time_unit))
    axes[0].legend(
        handles=[
            Patch(facecolor="lightgrey", edgecolor="black", label="successful attempt"),
            Patch(facecolor=to_rgba("lightgrey", 0.4), hatch="///", edgecolor=_FAILED_EDGE,
                  label="failed attempt"),
        ],
        loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=7,
    )
    if title:
        fig.suptitle(title)
    return _finish(fig, list(zip(axes, boxes)), path)


def _rigid_labels(instance: RigidInstance, e: Execution, failed: bool) -> list[str]:
    """The labels to try for an execution, longest first."""
    name = instance.jobs[e.job].name if 0 <= e.job < instance.n else None
    label = name if name is not None else str(e.job)
    return [f"{label}\n#{e.attempt} failed", label] if failed else [label]
