"""Packs of moldable tasks as Gantt charts (k-in-p co-schedules, [Aupy2017] §1.3-1.4)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from coschedule.model import CoSchedule, MoldableInstance
from coschedule.plot.figure import (
    _colour,
    _finish,
    _integer_locator,
    _time_label,
    new_figure,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure


__all__ = ["plot_coschedule", "plot_coschedules"]


def plot_coschedule(
    instance: MoldableInstance,
    coschedule: CoSchedule,
    path: str | Path | None = None,
    *,
    title: str | None = None,
    time_unit: str | None = "s",
) -> Figure:
    """Draw packs as a Gantt chart: time on x, processors on y, one rectangle per task.

    Packs run one after the other (dashed lines at their ends); a task's rectangle is labelled
    with its name and processor count when that fits. Returns the figure; saves it too when
    ``path`` is given (:func:`save_figure`).
    """
    return plot_coschedules(instance, [(title, coschedule)], path, time_unit=time_unit)


def plot_coschedules(
    instance: MoldableInstance,
    coschedules: Sequence[tuple[str | None, CoSchedule]],
    path: str | Path | None = None,
    *,
    title: str | None = None,
    time_unit: str | None = "s",
) -> Figure:
    """Several co-schedules of one instance stacked on a shared time axis (e.g. a heuristic
    above the optimum); ``coschedules`` is ``[(title or None, coschedule), ...]``."""
    if not coschedules:
        raise ValueError("nothing to plot: no co-schedule given")
    fig = new_figure(figsize=(10, 0.9 + 3.1 * len(coschedules)))
    axes = fig.subplots(len(coschedules), 1, sharex=True, squeeze=False)[:, 0]
    from matplotlib import colormaps
    from matplotlib.patches import Rectangle

    cmap = colormaps["tab20"]
    costs = [cs.cost(instance) for _, cs in coschedules]
    horizon = max(max(costs), 1e-12)
    boxes: list[list[tuple[float, float, float, float, list[str]]]] = []
    for ax, (sub, cs), cost in zip(axes, coschedules, costs):
        start = 0.0
        mine: list[tuple[float, float, float, float, list[str]]] = []
        for pack in cs.packs:
            row = 0
            for a in pack.allocations:
                t = instance.time(a.task, a.procs)
                ax.add_patch(Rectangle((start, row), t, a.procs, facecolor=_colour(cmap, a.task),
                                       edgecolor="black", lw=0.5, gid=f"task {a.task}"))
                name = instance.tasks[a.task].name or str(a.task)
                mine.append((start, row, t, a.procs, [f"{name}\n{a.procs}p", name]))
                row += a.procs
            start += pack.cost(instance)
            ax.axvline(start, color="grey", lw=0.8, ls="--")
        boxes.append(mine)
        ax.set_ylim(0, instance.p)
        ax.set_ylabel("processors")
        unit = f" {time_unit}" if time_unit else ""
        ax.set_title(sub or f"{len(cs.packs)} packs, cost {cost:.6g}{unit}")
        ax.yaxis.set_major_locator(_integer_locator())
    axes[0].set_xlim(0, horizon * 1.01)
    axes[-1].set_xlabel(_time_label(time_unit))
    if title:
        fig.suptitle(title)
    return _finish(fig, list(zip(axes, boxes)), path)
