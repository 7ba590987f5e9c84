"""Pictures of schedules (matplotlib, optional extra ``coschedule[plot]``)."""

from __future__ import annotations

from pathlib import Path

from .errors import SolverUnavailable
from .model import CoSchedule, MoldableInstance

__all__ = ["plot_coschedule"]


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
