"""Summaries of a campaign database: tables, CSV/JSON export, figures.

A *group* is the set of cells that differ only by their instance: one source, one platform
size, one ``qbar``, one heuristic, one priority. Its statistics are over the instances (the
30 job sets of §5.1, or the day-sets of a trace), each instance contributing the mean of its
normalized makespans over the scenarios:

* ``mean``: the average normalized makespan (the curves of Figs. 4 to 6, the "average makespan
  ratio" of Table 1);
* ``std`` and ``max``: the standard deviation (population, ddof = 0) and the maximum over the
  instances of those per-instance means (Table 1's "standard deviation" and "maximum makespan
  ratio", our reading of it; see docs/reproduce.md);
* ``worst``: the largest ratio of any single scenario of any instance;
* ``failures``: the average number of failures per scenario.
"""

from __future__ import annotations

import csv
import json
import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from .store import COLUMNS, ResultStore

__all__ = ["Group", "export_csv", "export_json", "format_tables", "plot_groups", "pretty_heuristic", "summarize"]

#: the paper's names of the heuristics
PRETTY = {
    "r-list-0": "R-List-0", "r-list-1": "R-List-1", "r-list-1-kept": "R-List-1 (kept)",
    "r-list-q": "R-List-Q", "r-list-q-kept": "R-List-Q (kept)",
    "r-shelf-b": "R-Shelf-B", "r-shelf-nb": "R-Shelf-NB",
    "r-shelffill-b": "R-ShelfFill-B", "r-shelffill-nb": "R-ShelfFill-NB",
}
#: order of the heuristics in tables and figures (the paper's)
ORDER = tuple(PRETTY)
PRIORITY_ORDER = ("LPT", "SPT", "HPA", "LPA", "LA", "SA", "RANDOM", "LJF")


def pretty_heuristic(h: str) -> str:
    return PRETTY.get(h, h)


@dataclass(frozen=True)
class Group:
    source: str
    P: int | None  # the grid's P, None for each instance's own
    qbar: float
    heuristic: str
    priority: str
    sets: int
    mean: float
    std: float
    max: float
    worst: float
    failures: float

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def summarize(rows: Iterable[dict[str, Any]], *, pool_sources: bool = False) -> list[Group]:
    """Groups of cells over their instances (``pool_sources``: all sources as one)."""
    acc: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        src = "all" if pool_sources else r["source"]
        acc[(src, r["P_grid"], r["qbar"], r["heuristic"], r["priority"])].append(r)
    out = []
    for (src, P, q, h, prio), rs in acc.items():
        means = [r["mean_ratio"] for r in rs]
        mu = math.fsum(means) / len(means)
        sd = math.sqrt(math.fsum((m - mu) ** 2 for m in means) / len(means))
        out.append(Group(src, P, q, h, prio, len(rs), mu, sd, max(means), max(r["max_ratio"] for r in rs),
                         math.fsum(r["mean_failures"] for r in rs) / len(rs)))
    out.sort(key=_group_key)
    return out


def _group_key(g: Group) -> tuple[Any, ...]:
    h = ORDER.index(g.heuristic) if g.heuristic in ORDER else len(ORDER)
    p = PRIORITY_ORDER.index(g.priority) if g.priority in PRIORITY_ORDER else len(PRIORITY_ORDER)
    return (g.source, -1 if g.P is None else g.P, g.qbar, h, p)


@dataclass(frozen=True)
class _Layout:
    """The rows and columns of a set of groups: heuristics and priorities in the paper's order,
    the values of the varying parameter, and the group of each (heuristic, priority, value)."""

    heurs: list[str]
    prios: list[str]
    xs: list[Any]
    cell: dict[tuple[str, str, Any], Group]


def _layout(gs: Sequence[Group], axis: str) -> _Layout:
    return _Layout(
        heurs=sorted({g.heuristic for g in gs}, key=lambda h: ORDER.index(h) if h in ORDER else 99),
        prios=sorted({g.priority for g in gs},
                     key=lambda p: PRIORITY_ORDER.index(p) if p in PRIORITY_ORDER else 99),
        xs=list(dict.fromkeys(getattr(g, axis) for g in gs)),
        cell={(g.heuristic, g.priority, getattr(g, axis)): g for g in gs},
    )


def _axis(groups: Sequence[Group]) -> str:
    """The varying parameter: ``qbar`` unless only ``P`` varies."""
    qs = {g.qbar for g in groups}
    Ps = {g.P for g in groups}
    return "P" if len(qs) == 1 and len(Ps) > 1 else "qbar"


def _xlabel(axis: str, value: Any) -> str:
    if axis == "qbar":
        return f"{value:g}"
    return "own" if value is None else str(value)


def format_tables(groups: Sequence[Group]) -> str:
    """The summary tables, as text: per source, the mean normalized makespan of every
    heuristic and priority against the varying parameter (best priority of a row starred),
    then the Table 1 layout (failures; mean, std and max per heuristic)."""
    if not groups:
        return "(no completed cell)"
    out: list[str] = []
    for src, label, sub, axis in _sections(groups):
        out.append(f"== {src}: {label}; mean of T / L(f) ==")
        out.extend(_by_heuristic(sub, axis))
        out.extend(_table1(sub, axis))
    return "\n".join(out)


def _sections(groups: Sequence[Group]) -> Iterator[tuple[str, str, list[Group], str]]:
    """``(source, label, groups, axis)`` per source and per value of the fixed parameter: the
    groups of one table, and the parameter that varies along its rows."""
    for src in dict.fromkeys(g.source for g in groups):
        gs = [g for g in groups if g.source == src]
        axis = _axis(gs)
        other = "P" if axis == "qbar" else "qbar"
        for fixed in dict.fromkeys(getattr(g, other) for g in gs):
            sub = [g for g in gs if getattr(g, other) == fixed]
            sets = max(g.sets for g in sub)
            yield src, f"{other} = {_xlabel(other, fixed)}, {sets} instances", sub, axis


def _by_heuristic(gs: Sequence[Group], axis: str) -> list[str]:
    out: list[str] = []
    lay = _layout(gs, axis)
    heurs, prios, xs, cell = lay.heurs, lay.prios, lay.xs, lay.cell
    if len(prios) < 2:
        return out
    for h in heurs:
        out.append("")
        out.append(f"{pretty_heuristic(h)}")
        out.append(f"{axis:>6} " + " ".join(f"{p:>8}" for p in prios))
        for x in xs:
            vals = [cell.get((h, p, x)) for p in prios]
            best = min((v.mean for v in vals if v is not None), default=None)
            parts = []
            for v in vals:
                if v is None:
                    parts.append(f"{'-':>8}")
                else:
                    mark = "*" if best is not None and v.mean == best else " "
                    parts.append(f"{v.mean:7.4f}{mark}")
            out.append(f"{_xlabel(axis, x):>6} " + " ".join(parts))
    out.append("")
    return out


def _table1(gs: Sequence[Group], axis: str) -> list[str]:
    """Per priority: failures, then mean / std / max of every heuristic (Table 1's layout)."""
    out: list[str] = []
    lay = _layout(gs, axis)
    heurs, prios, xs, cell = lay.heurs, lay.prios, lay.xs, lay.cell
    names = [pretty_heuristic(h) for h in heurs]
    width = max(9, *(len(n) for n in names))
    for p in prios:
        out.append(f"{p}: T / L(f) over the instances (each instance: its mean over the scenarios)")
        out.append(f"{'':>6} {'':>10}   " + " ".join(f"{n:>{width}}" for n in names))
        for stat, label in (("mean", "average"), ("std", "std dev"), ("max", "maximum")):
            out.append(f"{axis:>6} {'failures':>10}   {label}")
            for x in xs:
                row = [cell.get((h, p, x)) for h in heurs]
                fails = next((g.failures for g in row if g is not None), float("nan"))
                vals = " ".join(f"{'-':>{width}}" if g is None else f"{getattr(g, stat):>{width}.4f}" for g in row)
                out.append(f"{_xlabel(axis, x):>6} {fails:>10.2f}   {vals}")
        out.append("")
    return out


def format_markdown(groups: Sequence[Group]) -> str:
    """The same tables as :func:`format_tables`, as Markdown (for docs and papers): per heuristic
    the mean of every priority (best in bold), then per priority the paper's Table 1 layout (one
    row per value: failures, then average, standard deviation and maximum of every heuristic)."""
    if not groups:
        return "(no completed cell)"
    out: list[str] = []
    for src, label, sub, axis in _sections(groups):
        lay = _layout(sub, axis)
        heurs, prios, xs, cell = lay.heurs, lay.prios, lay.xs, lay.cell
        out.append(f"**{src}**, {label}: mean of T / L(f)")
        out.append("")
        if len(prios) > 1:
            for h in heurs:
                out.append(f"| {pretty_heuristic(h)}, {axis} | " + " | ".join(prios) + " |")
                out.append("|---" * (len(prios) + 1) + "|")
                for x in xs:
                    vals = [cell.get((h, p, x)) for p in prios]
                    best = min((v.mean for v in vals if v is not None), default=None)
                    txt = ["-" if v is None else (f"**{v.mean:.3f}**" if v.mean == best else f"{v.mean:.3f}")
                           for v in vals]
                    out.append(f"| {_xlabel(axis, x)} | " + " | ".join(txt) + " |")
                out.append("")
        for p in prios:
            names = [pretty_heuristic(h) for h in heurs]
            out.append(f"| {p}: {axis} | failures | " + " | ".join(f"avg {n}" for n in names) + " | "
                       + " | ".join(f"std {n}" for n in names) + " | "
                       + " | ".join(f"max {n}" for n in names) + " |")
            out.append("|---" * (2 + 3 * len(names)) + "|")
            for x in xs:
                row = [cell.get((h, p, x)) for h in heurs]
                fails = next((g.failures for g in row if g is not None), float("nan"))
                parts = []
                for stat, fmt in (("mean", "{:.3f}"), ("std", "{:.2e}"), ("max", "{:.3f}")):
                    parts += ["-" if g is None else fmt.format(getattr(g, stat)) for g in row]
                out.append(f"| {_xlabel(axis, x)} | {fails:.2f} | " + " | ".join(parts) + " |")
            out.append("")
    return "\n".join(out)


# ----------------------------------------------------------------------------------- export


def export_csv(store: ResultStore, out: TextIO) -> int:
    """Every cell's row (no arrays) as CSV with a header; returns the number of rows."""
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    k = 0
    for row in store.rows():
        w.writerow([_csv_value(row[c]) for c in COLUMNS])
        k += 1
    return k


def _csv_value(v: Any) -> Any:
    if isinstance(v, float):
        return repr(v)  # shortest round-tripping text
    return "" if v is None else v


def export_json(store: ResultStore, out: TextIO, groups: Sequence[Group] | None = None, *,
                extra: dict[str, Any] | None = None) -> int:
    """``{"spec": ..., <extra keys>, "cells": [...], "groups": [...]}``, written row by row
    (``coschedule report --json`` adds ``grid_cells``, ``done_cells``, ``missing_cells``)."""
    out.write('{"spec": ')
    json.dump(store.spec_dict, out, sort_keys=True)
    for key, value in (extra or {}).items():
        out.write(f", {json.dumps(key)}: ")
        json.dump(value, out)
    out.write(', "cells": [')
    k = 0
    for row in store.rows():
        out.write(",\n" if k else "\n")
        json.dump(row, out, allow_nan=False)
        k += 1
    out.write('\n], "groups": ')
    json.dump([g.to_dict() for g in (groups or [])], out)
    out.write("}\n")
    return k


# ----------------------------------------------------------------------------------- figures


def plot_groups(groups: Sequence[Group], path: str | Path, *, title: str | None = None) -> list[Path]:
    """The paper's panels, as PNG and SVG (``path`` with both suffixes).

    Several priorities: one panel per heuristic (a line per priority, Figs. 5 and 6 (a)-(e)) and
    a last panel with every heuristic under its best priority (lowest mean over the x values;
    Figs. 5 (f) and 6 (f)). One priority: one panel, a line per heuristic (Fig. 4). The x axis is
    ``qbar``, or ``P`` when only ``P`` varies.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not groups:
        raise ValueError("nothing to plot: the database has no completed cell")
    axis = _axis(groups)
    heurs = sorted({g.heuristic for g in groups}, key=lambda h: ORDER.index(h) if h in ORDER else 99)
    prios = sorted({g.priority for g in groups}, key=lambda p: PRIORITY_ORDER.index(p) if p in PRIORITY_ORDER else 99)
    cell = {(g.heuristic, g.priority): [] for g in groups}  # type: dict[tuple[str, str], list[Group]]
    for g in groups:
        cell[(g.heuristic, g.priority)].append(g)
    xlabel = r"$\bar q$" if axis == "qbar" else "P (processors)"
    ylabel = "normalized makespan T / L(f)"

    def series(h: str, p: str) -> tuple[list[float], list[float]]:
        gs = sorted(cell.get((h, p), []), key=lambda g: getattr(g, axis) or 0)
        return [float(getattr(g, axis) or 0) for g in gs], [g.mean for g in gs]

    markers = "osv^D<>xP"
    if len(prios) == 1:
        fig, ax = plt.subplots(figsize=(5.5, 4))
        for i, h in enumerate(heurs):
            xs, ys = series(h, prios[0])
            ax.plot(xs, ys, marker=markers[i % len(markers)], label=pretty_heuristic(h))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title or f"priority {prios[0]}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    else:
        npanels = len(heurs) + 1
        cols = 3
        rows = math.ceil(npanels / cols)
        fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.3 * rows), sharey=True, squeeze=False)
        flat = axes.ravel()
        best = {}
        for i, h in enumerate(heurs):
            ax = flat[i]
            for k, p in enumerate(prios):
                xs, ys = series(h, p)
                ax.plot(xs, ys, marker=markers[k % len(markers)], ms=4, label=p)
            means = {p: math.fsum(series(h, p)[1]) / max(len(series(h, p)[1]), 1) for p in prios}
            best[h] = min(means, key=lambda p: means[p])
            ax.set_title(f"({chr(97 + i)}) {pretty_heuristic(h)}")
            ax.grid(alpha=0.3)
            ax.set_xlabel(xlabel)
            if i % cols == 0:
                ax.set_ylabel(ylabel)
            if i == 0:
                ax.legend(fontsize=7, ncol=2)
        ax = flat[len(heurs)]
        for i, h in enumerate(heurs):
            xs, ys = series(h, best[h])
            ax.plot(xs, ys, marker=markers[i % len(markers)], ms=4, label=f"{pretty_heuristic(h)} ({best[h]})")
        ax.set_title(f"({chr(97 + len(heurs))}) best priority of each")
        ax.grid(alpha=0.3)
        ax.set_xlabel(xlabel)
        ax.legend(fontsize=7)
        for extra in flat[npanels:]:
            extra.set_visible(False)
        if title:
            fig.suptitle(title)
    fig.tight_layout()
    base = Path(path)
    stem = base.with_suffix("") if base.suffix.lower() in (".png", ".svg") else base
    outs = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    for o in outs:
        o.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(o, dpi=130)
    plt.close(fig)
    return outs
