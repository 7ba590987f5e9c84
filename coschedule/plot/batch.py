"""Online batch runs on nodes that fail ([Du2024]): nodes against time with the failures and
downtimes (:func:`plot_batch_run`), and the figures of the node-stealing experiments (flows per size
class, their ratios, the utilization decomposed, a sweep)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from coschedule.plot.figure import (
    _BATCH_COLOURS,
    _DOWN_COLOUR,
    _FAILED_EDGE,
    _STOLEN_EDGE,
    _finish,
    _hours,
    _integer_locator,
    _runs,
    _tab10,
    _time_label,
    new_figure,
    save_figure,
    seconds_axis,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from coschedule.sim.result import SimulationResult


__all__ = ["BATCH_DETAIL_ATTEMPTS", "BATCH_DETAIL_NODES", "plot_batch_run", "plot_flow_classes", "plot_flow_classes_rows", "plot_flow_ratios", "plot_sweep", "plot_utilization_parts"]


#: above this many nodes or attempts a batch run is drawn coarse: no edges, no labels
BATCH_DETAIL_NODES, BATCH_DETAIL_ATTEMPTS = 2000, 5000


def plot_batch_run(
    result: SimulationResult,
    path: str | Path | None = None,
    *,
    title: str | None = None,
    time_unit: str | None = "s",
) -> Figure:
    """Gantt chart of an online batch run (:class:`coschedule.sim.engine.SimulationResult`):
    time on x, nodes on y (node ``k`` is the band ``[k, k + 1)``).

    Each attempt is drawn on its own nodes in its job's colour, one rectangle per maximal run of
    consecutive node indices: completed attempts solid, failed or interrupted ones hatched with
    a red edge; a rectangle is labelled with the job's id (``failed`` below it for a failed
    attempt) when that fits. A failure is a red ``x`` at (time, node), a downtime a grey bar
    ``[t, t + D)`` on the node. Beyond :data:`BATCH_DETAIL_NODES` nodes or
    :data:`BATCH_DETAIL_ATTEMPTS` attempts the rectangles lose their edges and labels (and are
    rasterized in vector formats). Returns the figure; saves it too when ``path`` is given
    (:func:`save_figure`). Running time ``O(attempts x runs + failures)``.
    """
    from matplotlib import colormaps
    from matplotlib.collections import PolyCollection
    from matplotlib.colors import to_rgba
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    w = result.workload
    N = w.n_nodes
    attempts = result.attempts
    detail = N <= BATCH_DETAIL_NODES and len(attempts) <= BATCH_DETAIL_ATTEMPTS
    fig = new_figure(figsize=(10, min(2.2 + 0.3 * N, 7.5)))
    ax = fig.add_subplot()
    cmap = colormaps["tab20"]
    # completed, failed, stopped by node stealing (interrupted or checkpointed)
    polys: dict[str, tuple[list[Any], list[Any]]] = {k: ([], []) for k in ("completed", "failed", "stopped")}
    labels: list[tuple[float, float, float, float, list[str]]] = []
    word = {"failed": "failed", "interrupted": "stolen", "checkpointed": "checkpointed", "migrated": "migrated"}
    for a in attempts:
        kind = a.outcome if a.outcome in ("completed", "failed") else "stopped"
        colour = to_rgba(cmap(_BATCH_COLOURS[a.job % len(_BATCH_COLOURS)]), 1.0 if kind == "completed" else 0.45)
        verts, colours = polys[kind]
        jid = w.ids[a.job]
        for first, count in _runs(a.nodes):
            top = first + count
            verts.append(((a.start, first), (a.end, first), (a.end, top), (a.start, top)))
            colours.append(colour)
            if detail:
                labels.append((a.start, first, a.end - a.start, count,
                               [f"{jid}\n{word[a.outcome]}", jid] if kind != "completed" else [jid]))
    held = [((h.start, first), (h.end, first), (h.end, first + count), (h.start, first + count))
            for h in result.holds for first, count in _runs(h.nodes)]
    styles = {"completed": ("black", 0.5, None), "failed": (_FAILED_EDGE, 1.0, "///"),
              "stopped": (_STOLEN_EDGE, 1.0, "\\\\\\")}
    for kind, (verts, colours) in polys.items():
        edge, lw, hatch = styles[kind]
        if verts:
            ax.add_collection(PolyCollection(
                verts, facecolors=colours, edgecolors=edge, linewidths=lw if detail else 0.0, hatch=hatch,
                rasterized=not detail, zorder=2,
            ))
    if held:
        ax.add_collection(PolyCollection(held, facecolors="none", edgecolors=_STOLEN_EDGE, hatch="..",
                                         linewidths=0.8 if detail else 0.0, rasterized=not detail, zorder=2))
    downs = [((f.time, f.node), (f.up, f.node), (f.up, f.node + 1), (f.time, f.node + 1))
             for f in result.failures if f.up > f.time]
    if downs:
        ax.add_collection(PolyCollection(downs, facecolors=_DOWN_COLOUR, edgecolors="none", alpha=0.6,
                                         rasterized=not detail, zorder=1))
    if result.failures:
        ax.scatter([f.time for f in result.failures], [f.node + 0.5 for f in result.failures], marker="x",
                   color=_FAILED_EDGE, s=40 if detail else 12, linewidths=1.5 if detail else 0.8, zorder=4)
    end = max([a.end for a in attempts] + [f.up for f in result.failures] + [1e-12])
    ax.set_xlim(0, end * 1.01)
    ax.set_ylim(0, N)
    if N <= 32:
        ax.set_yticks([k + 0.5 for k in range(N)], [str(k) for k in range(N)])
        ax.set_yticks(range(N + 1), minor=True)
        ax.tick_params(axis="y", which="both", length=0)
        ax.grid(axis="y", which="minor", color="0.85", lw=0.5, zorder=0)
    else:
        ax.yaxis.set_major_locator(_integer_locator())
    ax.set_axisbelow(True)
    ax.set_ylabel("node")
    if time_unit == "s":  # seconds: read in days, hours or minutes (no 1e6 offset)
        seconds_axis(ax, 0.0, end * 1.01)
    else:
        ax.set_xlabel(_time_label(time_unit))
    ax.set_title(title or _default_batch_title(result, time_unit), fontsize=10)
    ax.legend(
        handles=[
            Patch(facecolor="lightgrey", edgecolor="black", label="completed attempt"),
            Patch(facecolor=to_rgba("lightgrey", 0.45), hatch="///", edgecolor=_FAILED_EDGE,
                  label="failed attempt"),
            Line2D([], [], ls="none", marker="x", color=_FAILED_EDGE, markeredgewidth=1.5, label="failure"),
            Patch(facecolor=_DOWN_COLOUR, alpha=0.6, label="node down"),
        ] + ([
            Patch(facecolor=to_rgba("lightgrey", 0.45), hatch="\\\\\\", edgecolor=_STOLEN_EDGE,
                  label="attempt stopped by\nnode stealing"),
            Patch(facecolor="none", hatch="..", edgecolor=_STOLEN_EDGE, label="nodes kept for\na stolen one"),
        ] if result.steals else []),
        loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=7,
    )
    return _finish(fig, [(ax, labels)], path)


def _default_batch_title(result: SimulationResult, time_unit: str | None) -> str:
    w = result.workload
    failed = sum(a.outcome == "failed" for a in result.attempts)
    stopped = sum(a.outcome in ("interrupted", "checkpointed") for a in result.attempts)
    unit = f" {time_unit}" if time_unit else ""
    mean = float(result.flow.mean()) if w.n else 0.0
    name = f" on {w.name}" if w.name else ""
    failures = len(result.failures)
    if time_unit == "s":
        from coschedule.units import format_duration

        flow = format_duration(mean)
    else:
        flow = f"{mean:.6g}{unit}"
    return (f"{result.policy}{name}: {w.n:,} jobs, {w.n_nodes:,} nodes, {len(result.attempts):,} attempts "
            f"({failed:,} failed{f', {stopped:,} stopped by node stealing' if stopped else ''}), {failures:,} "
            f"failure{'' if failures == 1 else 's'}; mean flow {flow}")


def _flow_labels(s: Any) -> list[str]:
    if isinstance(s, dict):
        return [c["label"] for c in s["classes"]]
    return [c.label for c in s.classes]


def _flow_values(s: Any, which: str, unit: float) -> list[float]:
    """Per class, then "all" (and "weighted" for the mean), of a Summary or its ``to_dict()``;
    NaN where a class has no job."""
    if isinstance(s, dict):
        raw = [c.get(which) for c in s["classes"]] + [s["flow"].get(which)]
        if which == "mean":
            raw.append(s["flow"].get("weighted_mean"))
    else:
        raw = [getattr(c.flow, which) for c in s.classes] + [getattr(s.flow, which)]
        if which == "mean":
            raw.append(s.flow.weighted_mean)
    return [float("nan") if v is None else float(v) / unit for v in raw]


def _draw_flow_classes(axes: Sequence[Axes], failure_free: Any, with_failures: Sequence[Any], hours: bool,
                       heading: str = "") -> None:
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    ref = failure_free if failure_free is not None else with_failures[0]
    labels = _flow_labels(ref) + ["all", "weighted"]
    unit = 3600.0 if hours else 1.0
    for ax, (which, name) in zip(axes, (("max", "maximum flow"), ("mean", "mean flow"))):
        cols = list(zip(*(_flow_values(s, which, unit) for s in with_failures))) if with_failures else []
        data = [[v for v in col if np.isfinite(v)] for col in cols]
        xs = [x for x, col in enumerate(data, start=1) if col]
        if xs:
            ax.boxplot([data[x - 1] for x in xs], positions=xs, widths=0.6, whis=1.5,
                       medianprops={"color": "black"}, flierprops={"marker": "o", "markersize": 3})
        if failure_free is not None:
            pts = [(x, v) for x, v in enumerate(_flow_values(failure_free, which, unit), start=1)
                   if np.isfinite(v) and v > 0]
            if pts:
                ax.scatter(*zip(*pts), color="red", zorder=3, s=18, label="failure-free")
                ax.legend(loc="upper left", fontsize=8)
        names = labels if which == "mean" else labels[:-1]  # no weighted maximum
        ax.set_xticks(range(1, len(names) + 1))
        ax.set_xticklabels(names, rotation=45, ha="right", fontsize=8)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(ScalarFormatter())
        lo, hi = ax.get_ylim()
        # minor labels only when the axis spans less than a decade and a half (else they crowd)
        ax.yaxis.set_minor_formatter(ScalarFormatter() if hi < 30 * lo else NullFormatter())
        ax.tick_params(axis="y", which="minor", labelsize=7)
        ax.set_xlim(0.4, len(names) + 0.6)
        ax.set_xlabel("job size (nodes)")
        ax.set_ylabel(f"{name} ({'hours' if hours else 's'})")
        sub = name + (" (weighted: by job size)" if which == "mean" else "")
        ax.set_title(f"{heading}: {sub}" if heading else sub, fontsize=10)
        ax.grid(axis="y", alpha=0.3)


def plot_flow_classes(
    failure_free: Any,
    with_failures: Sequence[Any],
    path: str | Path | None = None,
    *,
    title: str | None = None,
    hours: bool = True,
) -> Figure:
    """Maximum and mean flow per job-size class, as Figs. 1, 4 and 5 of [Du2024]: for each
    class (then "all" and "weighted", the size-weighted mean), a box plot of the values over
    the runs with failures (one :class:`coschedule.sim.metrics.Summary`, or its ``to_dict()``,
    per failure seed) and a red dot for the failure-free run (``failure_free``, or ``None``).
    Boxes follow the paper: median, quartiles, whiskers at 1.5 IQR, outliers as points. Empty
    classes are left empty. Log scale on y; flows in hours (``hours=False``: seconds). Returns
    the figure; saves it when ``path`` is given."""
    return plot_flow_classes_rows([("", failure_free, with_failures)], path, title=title, hours=hours)


def plot_flow_classes_rows(
    rows: Sequence[tuple[str, Any, Sequence[Any]]],
    path: str | Path | None = None,
    *,
    title: str | None = None,
    hours: bool = True,
) -> Figure:
    """:func:`plot_flow_classes` for several workloads, one row of two panels each:
    ``rows`` = ``(heading, failure_free, with_failures)``."""
    if not rows or any(ff is None and not fails for _, ff, fails in rows):
        raise ValueError("nothing to plot: a row has no summary")
    height = 4.2 * len(rows)
    fig = new_figure(figsize=(11, height))
    for k, (heading, ff, fails) in enumerate(rows):
        axes = [fig.add_subplot(len(rows), 2, 2 * k + 1), fig.add_subplot(len(rows), 2, 2 * k + 2)]
        _draw_flow_classes(axes, ff, fails, hours, heading)
    runs = sorted({len(fails) for _, _, fails in rows})
    runs_text = "/".join(str(r) for r in runs)
    ref = rows[0][1] if rows[0][1] is not None else rows[0][2][0]
    policy = ref["policy"] if isinstance(ref, dict) else ref.policy
    fig.suptitle(title or f"{policy}: flows per job size, {runs_text} failure scenario(s) (boxes)"
                 + " and failure-free (red)", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.4 / height))  # room for the title above the panels
    if path is not None:
        save_figure(fig, path)
    return fig


def plot_flow_ratios(
    rows: Sequence[tuple[str, Sequence[str], dict[str, list[list[float]]], dict[str, list[list[float]]]]],
    path: str | Path | None = None,
    *,
    baseline: str = "conservative",
    title: str | None = None,
) -> Figure:
    """Ratios of flows, a policy over ``baseline``, per job-size class, as [Du2024] Figs. 6-7,
    13 and 19-21: one row of two panels (maximum flow, mean flow) per workload; ``rows`` =
    ``(heading, labels, max_ratios, mean_ratios)`` with ``labels`` the classes (then "all", and
    "weighted" for the mean), ``max_ratios[policy]`` / ``mean_ratios[policy]`` one list of ratios
    per label (one ratio per failure seed, the two runs of a seed sharing its failures). Several
    policies: grouped boxes side by side. A dashed line at 1: below it the policy does better.
    Returns the figure; saves it when ``path`` is given."""
    if not rows:
        raise ValueError("nothing to plot: no ratio")
    height = 3.9 * len(rows) + 0.4
    fig = new_figure(figsize=(11, height))
    cmap = _tab10()
    handles: dict[str, Any] = {}  # one legend for all panels, below them: it covers no box
    for k, (heading, labels, max_r, mean_r) in enumerate(rows):
        for col, (which, data) in enumerate((("maximum flow", max_r), ("mean flow", mean_r))):
            ax = fig.add_subplot(len(rows), 2, 2 * k + col + 1)
            names = list(labels) + (["all", "weighted"] if col else ["all"])
            policies = list(data)
            width = 0.8 / max(len(policies), 1)
            for i, pol in enumerate(policies):
                cols = data[pol]
                xs = [x + 1 + (i - (len(policies) - 1) / 2) * width for x in range(len(names))]
                pts = [([v for v in c if np.isfinite(v)], x) for c, x in zip(cols, xs)]
                pts = [(c, x) for c, x in pts if c]
                if not pts:
                    continue
                bp = ax.boxplot([c for c, _ in pts], positions=[x for _, x in pts], widths=width * 0.85,
                                whis=1.5, patch_artist=True, medianprops={"color": "black"},
                                flierprops={"marker": "o", "markersize": 3})
                for box in bp["boxes"]:
                    box.set_facecolor(cmap(i % 10))
                    box.set_alpha(0.7)
                handles.setdefault(pol, ax.plot([], [], "s", color=cmap(i % 10), alpha=0.7, label=pol)[0])
            ax.axhline(1.0, color="0.3", ls="--", lw=0.8)
            ax.set_xticks(range(1, len(names) + 1))
            ax.set_xticklabels(names, rotation=45, ha="right", fontsize=8)
            ax.set_xlim(0.4, len(names) + 0.6)
            ax.set_xlabel("job size (nodes)")
            ax.set_ylabel(f"{which}: policy / {baseline}")
            ax.set_title(f"{heading}: {which}" + (" (weighted: by job size)" if col else ""), fontsize=10)
            ax.grid(axis="y", alpha=0.3)
    fig.legend(handles=list(handles.values()), loc="lower center", ncol=max(1, len(handles)), fontsize=8,
               frameon=False)
    fig.suptitle(title or f"flows relative to {baseline}, per job size (boxes: failure seeds; below 1: better)",
                 fontsize=11)
    fig.tight_layout(rect=(0, 0.4 / height, 1, 1 - 0.4 / height))
    if path is not None:
        save_figure(fig, path)
    return fig


def plot_utilization_parts(
    bars: Sequence[tuple[str, dict[str, float]]],
    path: str | Path | None = None,
    *,
    title: str | None = None,
) -> Figure:
    """The platform's time split into parts ([Du2024] Fig. 3 and Tables 4, 8): one horizontal
    stacked bar per ``(label, {part: fraction})`` (the parts of
    :class:`coschedule.sim.metrics.Utilization`, in their order), the useful fraction written
    on it. Returns the figure; saves it when ``path`` is given."""
    if not bars:
        raise ValueError("nothing to plot: no utilization")
    fig = new_figure(figsize=(11, 1.2 + 0.42 * len(bars)))
    ax = fig.add_subplot()
    parts = list(dict.fromkeys(k for _, d in bars for k in d))
    colours = {"useful": "#4c9a2a", "checkpoint": "#1f77b4", "recovery": "#6baed6", "lost": "#d62728",
               "stealing": _STOLEN_EDGE, "held": "#c2a5cf", "downtime": _DOWN_COLOUR, "idle": "#f0e442"}
    y = np.arange(len(bars))[::-1]
    left = np.zeros(len(bars))
    for part in parts:
        vals = np.array([d.get(part, 0.0) or 0.0 for _, d in bars])
        ax.barh(y, vals, left=left, color=colours.get(part, "0.5"), edgecolor="white", lw=0.5, label=part)
        left += vals
    for yy, (_, d) in zip(y, bars):
        u = d.get("useful")
        if u is not None:
            ax.text(0.01, yy, f"useful {100 * u:.2f} %", va="center", fontsize=8, color="white")
    ax.set_yticks(y, [label for label, _ in bars], fontsize=8)
    ax.set_xlim(0, 1)
    ax.set_xlabel("fraction of the window's node-seconds")
    ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=8)
    ax.set_title(title or "where the platform's time goes (means over the failure seeds)", fontsize=10)
    fig.tight_layout()
    if path is not None:
        save_figure(fig, path)
    return fig


def plot_sweep(
    rows: Sequence[tuple[str, dict[float, list[tuple[float, float, float, float]]]]],
    path: str | Path | None = None,
    *,
    baseline: str = "conservative",
    policy: str = "sfsj",
    title: str | None = None,
) -> Figure:
    """Ratios of ``policy`` over ``baseline`` as the platform MTBF varies, one line per downtime
    ([Du2024] Figs. 9-11): per workload (``rows`` = ``(heading, {downtime: [(platform MTBF,
    useful utilization ratio, maximum flow of the largest size class ratio, weighted mean flow
    ratio), ...]})``), three panels; MTBF and downtime in seconds, drawn in hours. Returns the
    figure; saves it when ``path`` is given."""
    if not rows:
        raise ValueError("nothing to plot: no sweep")
    from matplotlib.ticker import FixedLocator, NullLocator

    from coschedule.units import format_duration

    height = 3.6 * len(rows) + 0.5
    fig = new_figure(figsize=(13, height))
    names = ("useful utilization", "maximum flow, largest jobs", "weighted mean flow")
    handles: list[Any] = []
    for k, (heading, lines) in enumerate(rows):
        mtbfs = sorted({p[0] for pts in lines.values() for p in pts})
        for col, name in enumerate(names):
            ax = fig.add_subplot(len(rows), 3, 3 * k + col + 1)
            for D, pts in sorted(lines.items()):
                pts = sorted(pts)
                line = ax.plot([p[0] / 3600 for p in pts], [p[col + 1] for p in pts], marker="o", ms=4,
                               label=f"downtime {_hours(D)}")[0]
                if k == 0 and col == 0:
                    handles.append(line)
            ax.axhline(1.0, color="0.3", ls="--", lw=0.8)
            ax.set_xscale("log")
            # the MTBFs of the sweep as ticks, read as durations (20 min, 1 h, 10 h), not 10^0
            ax.xaxis.set_major_locator(FixedLocator([m / 3600 for m in mtbfs]))
            ax.xaxis.set_minor_locator(NullLocator())
            ax.set_xticks([m / 3600 for m in mtbfs], [format_duration(m) for m in mtbfs], fontsize=8)
            ax.set_xlabel("platform MTBF")
            ax.set_ylabel(f"{policy} / {baseline}")
            ax.set_title(f"{heading}: {name}" + (" (higher: better)" if col == 0 else " (lower: better)"), fontsize=9)
            ax.grid(alpha=0.3)
    # one legend for all panels, below them: it covers no data
    fig.legend(handles=handles, loc="lower center", ncol=max(1, len(handles)), fontsize=8, frameon=False)
    fig.suptitle(title or f"{policy} relative to {baseline} as failures get rarer", fontsize=11)
    fig.tight_layout(rect=(0, 0.45 / height, 1, 1 - 0.4 / height))
    if path is not None:
        save_figure(fig, path)
    return fig
