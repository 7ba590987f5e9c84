"""Pictures of a torus run at a chosen instant: the occupancy of the torus and a Gantt chart of
the jobs around it (matplotlib: the ``plot`` extra).

:func:`plot_torus_run` draws, for instant ``at``:

* **the torus**, one panel per slice along its longest dimension (a ``4×4×8`` torus: eight
  ``4×4`` slices ``k = 0 .. 7``), each node coloured by the job running on it at ``at`` and
  labelled with its id when the slices are small; down nodes grey; a red ``x`` on every node
  that fails within the Gantt's window. Beyond :data:`MAX_SLICES` slices, three projections
  instead: the share of busy nodes along each axis;
* **a Gantt chart by job**: one row per job with an attempt in the window ``[at - span, at +
  span]`` (at most :data:`MAX_GANTT_JOBS`: those running at ``at``, then the nearest), its
  attempts as bars (failed ones hatched red), its partition's label at the right,
  failures as red ticks at their time, and the instant as a vertical line.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from coschedule.plot.figure import (
    _BATCH_COLOURS,
    _DOWN_COLOUR,
    _FAILED_EDGE,
    _finish,
    new_figure,
    seconds_axis,
)
from coschedule.torus.geometry import box_from_nodes, format_dims
from coschedule.torus.result import TorusRun

__all__ = ["MAX_GANTT_JOBS", "MAX_SLICES", "default_instant", "plot_torus_run"]

#: slices drawn one panel each; more: three projections
MAX_SLICES = 16
#: the Gantt chart's rows at most: the jobs running at the instant first, then the nearest
MAX_GANTT_JOBS = 60
_DOWN = _DOWN_COLOUR


def default_instant(run: TorusRun) -> float:
    """An instant with the most jobs running at once (then the most busy nodes; the first such
    attempt start, probing at most ~400 of them): a crowded picture."""
    atts = run.result.attempts
    starts = sorted({a.start for a in atts})
    if not starts:
        return 0.0
    s = np.array([a.start for a in atts])
    e = np.array([a.end for a in atts])
    p = np.array([len(a.nodes) for a in atts])
    best, best_t = (-1, -1), starts[0]
    for t in starts[:: max(1, len(starts) // 400)]:
        on = (s <= t) & (t < e)
        key = (int(on.sum()), int(p[on].sum()))
        if key > best:
            best, best_t = key, t
    return float(best_t)


def _state(run: TorusRun, at: float) -> tuple[np.ndarray, np.ndarray]:
    """Per node: the job index running at ``at`` (-1 idle), and whether it is down."""
    N = run.result.workload.n_nodes
    job = np.full(N, -1, dtype=np.int64)
    for a in run.result.attempts:
        if a.start <= at < a.end:
            job[list(a.nodes)] = a.job
    down = np.zeros(N, dtype=bool)
    for f in run.result.failures:
        if f.time <= at < f.up:
            down[f.node] = True
    return job, down


def plot_torus_run(run: TorusRun, path: str | Path | None = None, *, at: float | None = None,
                   span: float | None = None, title: str | None = None) -> Any:
    """The occupancy at ``at`` (default :func:`default_instant`) and the Gantt chart of the
    jobs within ``span`` seconds of it (default: a tenth of the run's span, at least the
    longest attempt running at ``at``); saved to ``path`` when given. Returns the figure."""
    from matplotlib import colormaps
    from matplotlib.colors import to_rgba
    from matplotlib.patches import Patch, Rectangle

    res = run.result
    w = res.workload
    dims = run.dims
    at = default_instant(run) if at is None else float(at)
    job, down = _state(run, at)
    horizon = max([a.end for a in res.attempts] + [1.0])
    if span is None:  # the attempts running at `at`, whole, and a margin
        running = [max(at - a.start, a.end - at) for a in res.attempts if a.start <= at < a.end]
        span = 1.2 * max(running + [min(horizon, 60.0)])
    lo, hi = max(at - span, float(w.submit.min()) if w.n else 0.0), at + span
    cmap = colormaps["tab20"]

    def colour(j: int) -> Any:
        return cmap(_BATCH_COLOURS[j % len(_BATCH_COLOURS)])

    long_axis = int(np.argmax(dims))
    slices = dims[long_axis]
    use_slices = slices <= MAX_SLICES
    ncols = min(slices, 8) if use_slices else 3
    nrows = math.ceil(slices / ncols) if use_slices else 1
    near: dict[int, float] = {}  # job -> how far its nearest attempt is from `at` (0: running)
    for a in res.attempts:
        if a.end >= lo and a.start <= hi:
            d = 0.0 if a.start <= at < a.end else min(abs(a.start - at), abs(a.end - at))
            near[a.job] = min(d, near.get(a.job, math.inf))
    kept = sorted(near, key=lambda j: (near[j], j))[:MAX_GANTT_JOBS]
    gantt_jobs = sorted(kept, key=lambda j: (float(w.submit[j]), j))
    gantt_rows = max(1, len(gantt_jobs))
    fig = new_figure(figsize=(11, 2.0 * nrows + min(0.25 * gantt_rows + 1.5, 8.0)))
    grid = fig.add_gridspec(nrows + 1, ncols, height_ratios=[1.0] * nrows + [max(1.2, min(0.12 * gantt_rows, 4.0)) * nrows])
    failed_here = {f.node for f in res.failures if lo <= f.time <= hi}
    occ = job.reshape(dims)
    dn = down.reshape(dims)
    if use_slices:
        other = [d for d in range(3) if d != long_axis]
        for s in range(slices):
            ax = fig.add_subplot(grid[s // ncols, s % ncols])
            sl = [slice(None)] * 3
            sl[long_axis] = s  # type: ignore[call-overload]
            jobs2, down2 = occ[tuple(sl)], dn[tuple(sl)]
            img = np.ones(jobs2.shape + (4,))
            for (u, v), j in np.ndenumerate(jobs2):
                img[u, v] = to_rgba(colour(int(j))) if j >= 0 else (to_rgba(_DOWN) if down2[u, v] else (1, 1, 1, 1))
            ax.imshow(img, origin="lower", interpolation="nearest", aspect="equal")
            small = jobs2.size <= 64
            for (u, v), j in np.ndenumerate(jobs2):
                node = np.ravel_multi_index(tuple(
                    s if d == long_axis else (u if d == other[0] else v) for d in range(3)), dims)
                if small and j >= 0:
                    jid = w.ids[int(j)]
                    ax.text(v, u, jid, ha="center", va="center", fontsize=6 if len(jid) <= 3 else 4.5)
                if int(node) in failed_here:
                    ax.plot(v, u, marker="x", color=_FAILED_EDGE, ms=7, mew=1.6)
            ax.set_xticks(np.arange(jobs2.shape[1] + 1) - 0.5, minor=True)
            ax.set_yticks(np.arange(jobs2.shape[0] + 1) - 0.5, minor=True)
            ax.grid(which="minor", color="0.75", lw=0.5)
            ax.tick_params(which="both", length=0, labelsize=6)
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_title(f"{'xyz'[long_axis]} = {s}", fontsize=8)
            ax.set_xlabel("xyz"[other[1]], fontsize=7)
            ax.set_ylabel("xyz"[other[0]], fontsize=7)
    else:
        busy = (occ >= 0)
        for d in range(3):
            ax = fig.add_subplot(grid[0, d])
            im = ax.imshow(busy.mean(axis=d), origin="lower", vmin=0, vmax=1, cmap="Greys", aspect="auto")
            ax.set_title(f"busy share along {'xyz'[d]}", fontsize=8)
            fig.colorbar(im, ax=ax, fraction=0.046)
    # the Gantt chart by job
    ax = fig.add_subplot(grid[nrows, :])
    row = {j: k for k, j in enumerate(gantt_jobs)}
    for a in res.attempts:
        if a.job not in row or a.end < lo or a.start > hi:
            continue
        y = row[a.job]
        failed = a.outcome == "failed"
        ax.add_patch(Rectangle((a.start, y - 0.4), a.end - a.start, 0.8, facecolor=colour(a.job),
                               alpha=0.45 if failed else 1.0, edgecolor=_FAILED_EDGE if failed else "black",
                               hatch="///" if failed else ("..." if a.outcome == "migrated" else None),
                               lw=0.8 if failed else 0.4))
        if a.start <= at < a.end or (a.outcome == "completed" and len(gantt_jobs) <= 40):
            box = box_from_nodes(a.nodes, dims)
            ax.text(min(a.end, hi), y, f" {box.label() if box else '?'}", va="center", fontsize=6, clip_on=True)
    fails = [(f.time, row[f.job]) for f in res.failures if f.job in row and lo <= f.time <= hi]
    if fails:
        ax.scatter([t for t, _ in fails], [y for _, y in fails], marker="x", color=_FAILED_EDGE, s=30, zorder=4)
    ax.axvline(at, color="black", lw=1.0, ls="--")
    ax.set_xlim(lo, hi)
    seconds_axis(ax, lo, hi, origin=0.0 if lo <= 0 else lo)
    ax.set_ylim(-0.6, gantt_rows - 0.4)
    ax.set_yticks(range(len(gantt_jobs)), [w.ids[j] for j in gantt_jobs], fontsize=6 if len(gantt_jobs) <= 40 else 4.5)
    ax.set_ylabel("job")
    ax.legend(handles=[Patch(facecolor="lightgrey", edgecolor="black", label="completed attempt"),
                       Patch(facecolor=to_rgba("lightgrey", 0.45), hatch="///", edgecolor=_FAILED_EDGE,
                             label="failed attempt"),
                       Patch(facecolor="lightgrey", hatch="...", edgecolor="black", label="attempt moved\n(migration)"),
                       Patch(facecolor=_DOWN, label="node down")],
              loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7)
    busy_now = int(np.count_nonzero(job >= 0))
    fig.suptitle(title or (f"{run.policy} on {w.name or 'a workload'}, torus {format_dims(dims)}: "
                           f"t = {at:,.0f} s, {busy_now} of {w.n_nodes} nodes busy, "
                           f"{int(down.sum())} down; x = a failure within ±{span:,.0f} s"), fontsize=9)
    return _finish(fig, [], path)
