"""The picture of a pack run (:class:`coschedule.redistribution.simulation.PackResult`; matplotlib, the ``plot``
extra): who computed on how many processors when, where the failures struck, what the
redistributions did.

:func:`plot_pack_run` draws, on one time axis in days:

* **a Gantt chart by application** (up to :data:`MAX_GANTT_ROWS` of them), sorted by end time,
  the application that sets the makespan at the top. Each phase is a bar coloured by its kind
  (compute, checkpoint after a redistribution, redistribution, downtime, recovery), its
  *height* proportional to its processor count, labelled with the count where that fits: an
  application that gains processors when others end grows thicker. A failure that struck the
  application is a red ``x`` (a grey ``+`` when the model ignored it: downtime, recovery or
  redistribution). Transitions shorter than :data:`MIN_WIDTH` of the run are widened to it, so
  that they show.
* **for a larger pack**, above it, a map of every application's processor count over time
  (rows sorted by end time as well; white once it has ended), failures as red dots; the Gantt
  chart then shows the :data:`LARGE_GANTT_ROWS` applications that end last (those that decide
  the makespan).
* **the processors in use** below: computing, and in a transition (downtime, recovery,
  redistribution, checkpoint), out of ``p``; every failure of the run (idle processors' too) as
  a tick at the bottom.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from coschedule.plot.figure import _FAILED_EDGE, _finish, new_figure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from coschedule.redistribution.simulation import PackResult

__all__ = ["KIND_COLOURS", "LARGE_GANTT_ROWS", "MAX_GANTT_ROWS", "MIN_WIDTH", "plot_pack_run"]

#: one Gantt row per application up to this many applications; beyond, the processor map
MAX_GANTT_ROWS = 60
#: the applications that end last shown in the Gantt chart of a larger pack
LARGE_GANTT_ROWS = 30
#: transitions are drawn at least this fraction of the run wide
MIN_WIDTH = 0.002
#: the colour of each phase kind (:data:`coschedule.redistribution.simulation.PHASE_KINDS`)
KIND_COLOURS = {
    "compute": "#6baed6",
    "checkpoint": "#fd8d3c",
    "redistribution": "#756bb1",
    "downtime": "#252525",
    "recovery": "#a6761d",
}
_LABELS = {
    "compute": "compute",
    "checkpoint": "checkpoint after a\nredistribution",
    "redistribution": "redistribution",
    "downtime": "downtime",
    "recovery": "recovery",
}
_DAY = 86400.0
_HIT = ("rollback", "redistributed", "restart")


def _order(result: PackResult) -> np.ndarray:
    """Applications by end time, then index (the last to end last)."""
    ends = np.asarray(result.ends, dtype=float)
    return np.lexsort((np.arange(ends.size), ends))


def _gantt(ax: Any, result: PackResult, apps: np.ndarray, horizon: float) -> list[tuple[float, float, float, float,
                                                                                      list[str]]]:
    """Draw the phases of ``apps`` (bottom to top) on ``ax``; return the label boxes."""
    from matplotlib.collections import PolyCollection

    row = {int(a): y for y, a in enumerate(apps)}
    pmax = max((len(ph.procs) for ph in result.phases), default=1) or 1
    verts: dict[str, list[Any]] = {k: [] for k in KIND_COLOURS}
    labels: list[tuple[float, float, float, float, list[str]]] = []
    wmin = MIN_WIDTH * horizon
    for ph in result.phases:
        y = row.get(ph.app)
        if y is None:
            continue
        k = len(ph.procs)
        h = 0.25 + 0.6 * k / pmax
        x0, x1 = ph.start / _DAY, ph.end / _DAY
        if ph.kind != "compute" and x1 - x0 < wmin:
            x1 = x0 + wmin
        verts.setdefault(ph.kind, []).append(((x0, y - h / 2), (x1, y - h / 2), (x1, y + h / 2), (x0, y + h / 2)))
        if ph.kind == "compute":
            labels.append((x0, y - h / 2, x1 - x0, h, [f"{k}"]))
    for kind, vs in verts.items():
        if vs:
            ax.add_collection(PolyCollection(vs, facecolors=KIND_COLOURS.get(kind, "0.5"), edgecolors="none",
                                             zorder=3 if kind == "compute" else 4))
    hit = [(f.time / _DAY, row[f.app]) for f in result.failures if f.app in row and f.effect in _HIT]
    ignored = [(f.time / _DAY, row[f.app]) for f in result.failures if f.app in row and f.effect == "ignored"]
    if hit:
        ax.scatter(*zip(*hit), marker="x", color=_FAILED_EDGE, s=36, linewidths=1.6, zorder=6)
    if ignored:
        ax.scatter(*zip(*ignored), marker="+", color="0.35", s=30, linewidths=1.2, zorder=6)
    names = result.pack.names
    ax.set_ylim(-0.6, len(apps) - 0.4)
    size = 7 if len(apps) <= 30 else 5.5
    ax.set_yticks(range(len(apps)), [names[int(a)] for a in apps], fontsize=size)
    ax.tick_params(axis="y", length=0)
    ax.grid(axis="x", color="0.9", lw=0.6, zorder=0)
    ax.set_axisbelow(True)
    return labels


def _processor_map(fig: Any, ax: Any, result: PackResult, horizon: float) -> None:
    """Every application's processor count over time, rows sorted by end time."""
    apps = _order(result)
    row = np.empty(apps.size, dtype=np.int64)
    row[apps] = np.arange(apps.size)
    bins = 800
    dt = horizon * _DAY / bins
    grid = np.full((apps.size, bins), np.nan)
    for ph in result.phases:
        b0 = int(ph.start // dt)
        b1 = max(b0 + 1, math.ceil(ph.end / dt))
        grid[row[ph.app], b0:min(b1, bins)] = len(ph.procs)
    from matplotlib import colormaps
    from matplotlib.colors import LogNorm

    cmap = colormaps["viridis"].with_extremes(bad="white")
    top = float(np.nanmax(grid)) if np.isfinite(grid).any() else 2.0
    # a log scale: most applications hold a few processors, some many more after redistributions
    norm = LogNorm(vmin=2.0, vmax=max(top, 4.0))
    im = ax.imshow(grid, aspect="auto", origin="lower", interpolation="nearest", cmap=cmap, norm=norm,
                   extent=(0.0, horizon, -0.5, apps.size - 0.5))
    cax = ax.inset_axes((1.01, 0.0, 0.015, 1.0))  # outside, right, like the other panels' legends
    cb = fig.colorbar(im, cax=cax)
    ticks = [2**e for e in range(1, 15) if 2**e <= norm.vmax]
    cb.set_ticks(ticks, labels=[str(t) for t in ticks])
    cb.ax.minorticks_off()
    cb.set_label("processors (log scale)", fontsize=8)
    cb.ax.tick_params(labelsize=7)
    hit = [(f.time / _DAY, row[f.app]) for f in result.failures if f.app >= 0 and f.effect in _HIT]
    if hit:
        ax.scatter(*zip(*hit), marker="o", color=_FAILED_EDGE, s=7, linewidths=0, zorder=5)
    ax.set_ylabel(f"all {apps.size} applications\n(rank by end time)", fontsize=8)
    ax.tick_params(labelsize=7)


def _usage(ax: Any, result: PackResult, horizon: float) -> None:
    """Processors computing and in transition over time, out of ``p``."""
    ev_c: list[tuple[float, int]] = []
    ev_t: list[tuple[float, int]] = []
    for ph in result.phases:
        ev = ev_c if ph.kind == "compute" else ev_t
        ev.append((ph.start / _DAY, len(ph.procs)))
        ev.append((ph.end / _DAY, -len(ph.procs)))
    times = np.unique(np.array([0.0, horizon] + [t for t, _ in ev_c + ev_t]))

    def level(ev: list[tuple[float, int]]) -> np.ndarray:
        d = np.zeros(times.size)
        if ev:
            t, k = np.array(ev).T
            np.add.at(d, np.searchsorted(times, t), k)
        return np.cumsum(d)

    comp, trans = level(ev_c), level(ev_t)
    ax.fill_between(times, 0, comp, step="post", color=KIND_COLOURS["compute"], lw=0, label="computing")
    ax.fill_between(times, comp, comp + trans, step="post", color=KIND_COLOURS["redistribution"], lw=0,
                    alpha=0.8, label="in a transition")
    p = result.pack.p
    ax.axhline(p, color="black", lw=0.8, ls=":")
    if result.failures:
        ft = [f.time / _DAY for f in result.failures]
        ax.plot(ft, np.full(len(ft), 0.03 * p), ls="none", marker="|", color=_FAILED_EDGE, ms=6, mew=1.0,
                label="failure (any processor)")
    ax.set_ylim(0, p * 1.08)
    ax.set_ylabel(f"processors\n(p = {p})", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=7)


def _title(result: PackResult) -> str:
    pk = result.pack
    name = f" on {pk.name}" if pk.name else ""
    return (f"{result.policy or 'a policy'}{name}: {pk.n} applications, {pk.p} processors; makespan "
            f"{result.makespan / _DAY:,.1f} days; failures {result.failures_hit} hit / {len(result.failures)}; "
            f"{result.redistributions} redistributions")


def plot_pack_run(result: PackResult, path: str | Path | None = None, *, title: str | None = None,
                  max_rows: int = MAX_GANTT_ROWS) -> Figure:
    """Draw a pack run (module docstring); saved to ``path`` when given (the suffix picks the
    format, :func:`coschedule.plot.save_figure`). A pack of more than ``max_rows`` applications
    gets the processor map and the Gantt chart of the :data:`LARGE_GANTT_ROWS` (at most
    ``max_rows``) that end last.
    Returns the figure. Running time ``O(phases + n x 800)``."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    n = result.pack.n
    horizon = max(result.makespan, 1e-9) / _DAY
    large = n > max_rows
    order = _order(result)
    apps = order[-min(LARGE_GANTT_ROWS, max_rows):] if large else order
    rows = len(apps)
    gantt_h = min(0.3 * rows + 0.8, 9.0)
    heights = ([3.2] if large else []) + [gantt_h, 1.3]
    fig = new_figure(figsize=(11, sum(heights) + 1.0))
    axes = fig.subplots(len(heights), 1, sharex=True, gridspec_kw={"height_ratios": heights})
    k = 0
    if large:
        _processor_map(fig, axes[0], result, horizon)
        k = 1
    ax = axes[k]
    labels = _gantt(ax, result, apps, horizon)
    ax.axvline(horizon, color="black", lw=0.9, ls="--", zorder=5)
    ax.set_ylabel("application" + (f"\n(the {rows} that end last)" if large else "\n(by end time)"), fontsize=8)
    kinds = sorted({ph.kind for ph in result.phases}, key=list(KIND_COLOURS).index)
    handles: list[Any] = [Patch(facecolor=KIND_COLOURS[kd], label=_LABELS[kd]) for kd in kinds]
    handles.append(Patch(facecolor="none", edgecolor="none", label="bar height:\nprocessor count"))
    effects = {f.effect for f in result.failures}
    if effects & set(_HIT):
        handles.append(Line2D([], [], ls="none", marker="x", color=_FAILED_EDGE, mew=1.6, label="failure"))
    if "ignored" in effects:
        handles.append(Line2D([], [], ls="none", marker="+", color="0.35", mew=1.2,
                              label="failure ignored\n(in a transition)"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=7)
    _usage(axes[k + 1], result, horizon)
    axes[-1].set_xlim(0, horizon * 1.01)
    axes[-1].set_xlabel("time (days)")
    fig.suptitle(title or _title(result), fontsize=9)
    return _finish(fig, [(ax, labels)], path)
