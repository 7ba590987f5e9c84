"""Pictures of schedules (matplotlib, optional extra ``coschedule[plot]``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .errors import SolverUnavailable
from .model import CoSchedule, MoldableInstance
from .rigid import RigidInstance
from .schedule import Execution, Outcome, Schedule

__all__ = ["plot_coschedule", "plot_rigid_schedule", "processor_rows"]


def plot_coschedule(
    instance: MoldableInstance, coschedule: CoSchedule, path: str | Path, *, title: str | None = None
) -> None:
    """Draw packs as a Gantt chart: time on x, processors on y, one rectangle per task.

    The file type follows the suffix (``.png``, ``.svg``, ``.pdf``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Rectangle
    except ImportError as e:
        raise SolverUnavailable(
            f"plots need matplotlib ({e}); install it with: pip install 'coschedule[plot]'"
        ) from None
    fig, ax = plt.subplots(figsize=(10, 4))
    cmap = plt.get_cmap("tab20")
    start = 0.0
    for pack in coschedule.packs:
        cost = pack.cost(instance)
        row = 0
        for a in pack.allocations:
            t = instance.time(a.task, a.procs)
            ax.add_patch(
                Rectangle((start, row), t, a.procs, facecolor=cmap(a.task % 20), edgecolor="black", lw=0.5)
            )
            label = instance.tasks[a.task].name or str(a.task)
            ax.text(start + t / 2, row + a.procs / 2, f"{label}\n{a.procs}p", ha="center", va="center", fontsize=7)
            row += a.procs
        ax.axvline(start + cost, color="grey", lw=0.8, ls="--")
        start += cost
    ax.set_xlim(0, start * 1.01)
    ax.set_ylim(0, instance.p)
    ax.set_xlabel("time")
    ax.set_ylabel("processors")
    ax.set_title(title or f"{len(coschedule.packs)} packs, cost {start:.6g}")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _runs(nodes: Sequence[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive indices as ``(first, count)``."""
    out: list[tuple[int, int]] = []
    for x in sorted(nodes):
        if out and x == out[-1][0] + out[-1][1]:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((x, 1))
    return out


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


def plot_rigid_schedule(
    instance: RigidInstance, schedule: Schedule, path: str | Path, *, title: str | None = None
) -> None:
    """Gantt chart of a rigid-job schedule: time on x, processors on y.

    Each attempt is a rectangle in its job's colour: successful attempts solid, failed
    attempts hatched with a red edge and labelled with their attempt number (when the
    rectangle is large enough for text). Executions with ``nodes`` are drawn on those
    processors; otherwise processor rows come from :func:`processor_rows`, a first-fit drawing
    that is **not** a contiguous schedule (the model only bounds the number of processors in
    use). A dashed line marks the makespan. The file type follows the suffix (``.png``,
    ``.svg``, ``.pdf``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import to_rgba
        from matplotlib.patches import Patch, Rectangle
        from matplotlib.ticker import MaxNLocator
    except ImportError as e:
        raise SolverUnavailable(
            f"plots need matplotlib ({e}); install it with: pip install 'coschedule[plot]'"
        ) from None
    P = instance.P
    rows = processor_rows(schedule, P)
    makespan = schedule.makespan
    execs = schedule.executions
    drawn_from_nodes = bool(execs) and all(x.nodes is not None for x in execs)
    fig, ax = plt.subplots(figsize=(10, 4))
    cmap = plt.get_cmap("tab20")
    failed_edge = "#d62728"
    for ex, nodes in zip(schedule.executions, rows):
        colour = cmap(ex.job % 20)
        failed = ex.outcome is Outcome.FAILURE
        for first, count in _runs(nodes):
            ax.add_patch(
                Rectangle(
                    (ex.start, first),
                    ex.duration,
                    count,
                    facecolor=to_rgba(colour, 0.4) if failed else colour,
                    hatch="///" if failed else None,
                    edgecolor=failed_edge if failed else "black",
                    lw=1.0 if failed else 0.5,
                )
            )
            if makespan > 0 and ex.duration >= makespan / 40 and count >= P / 25:
                _label(ax, instance, ex, first, count, failed)
    if makespan > 0:
        ax.axvline(makespan, color="grey", lw=0.8, ls="--")
    ax.set_xlim(0, max(makespan, 1e-12) * 1.01)
    ax.set_ylim(0, P)
    ax.set_xlabel("time")
    ax.set_ylabel("processors" if drawn_from_nodes else "processors (first-fit drawing)")
    n_failed = sum(x.outcome is Outcome.FAILURE for x in execs)
    default = f"{instance.n} jobs, {len(execs)} attempts ({n_failed} failed), makespan {makespan:.6g}"
    ax.set_title(title or default)
    ax.legend(
        handles=[
            Patch(facecolor="lightgrey", edgecolor="black", label="successful attempt"),
            Patch(
                facecolor=to_rgba("lightgrey", 0.4), hatch="///", edgecolor=failed_edge, label="failed attempt"
            ),
        ],
        loc="upper left",
        bbox_to_anchor=(1.005, 1.0),
        fontsize=7,
    )
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _label(ax: object, instance: RigidInstance, e: Execution, first: int, count: int, failed: bool) -> None:
    name = instance.jobs[e.job].name if 0 <= e.job < instance.n else None
    label = name if name is not None else str(e.job)
    text = f"{label}\n#{e.attempt} failed" if failed else label
    ax.text(  # type: ignore[attr-defined]
        e.start + e.duration / 2, first + count / 2, text, ha="center", va="center", fontsize=6
    )
