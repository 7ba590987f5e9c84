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
* ``failures``: the average number of failures per scenario;
* ``pooled_std``: the standard deviation of the normalized makespan over every scenario of every
  instance (pooled from the cells' ``mean_ratio`` and ``std_ratio``): the spread of one run, drawn
  as the band around each curve of the figures;
* ``platform``: the platform size all the cells used (the grid's ``P``, or the instances' own
  when they share one), ``None`` when it differs between instances.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .store import require_pandas

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "Group",
    "format_markdown",
    "format_tables",
    "groups_to_dataframe",
    "plot_groups",
    "plot_side_by_side",
    "pretty_heuristic",
    "summarize",
]

#: the paper's names of the heuristics
PRETTY = {
    "r-list-0": "R-List-0", "r-list-1": "R-List-1", "r-list-1-kept": "R-List-1 (kept)",
    "r-list-q": "R-List-Q", "r-list-q-kept": "R-List-Q (kept)",
    "r-shelf-b": "R-Shelf-B", "r-shelf-nb": "R-Shelf-NB",
    "r-shelffill-b": "R-ShelfFill-B", "r-shelffill-nb": "R-ShelfFill-NB",
    # R-ShelfFill's looser fillings (``refill``, docs/rigid.md); "queue" is not the paper's
    "r-shelffill-b-failed": "R-ShelfFill-B (failed)", "r-shelffill-nb-failed": "R-ShelfFill-NB (failed)",
    "r-shelffill-b-queue": "R-ShelfFill-B (queue)", "r-shelffill-nb-queue": "R-ShelfFill-NB (queue)",
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
    pooled_std: float = math.nan
    platform: int | None = None

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
        platforms = {r["P"] for r in rs}
        out.append(Group(src, P, q, h, prio, len(rs), mu, sd, max(means), max(r["max_ratio"] for r in rs),
                         math.fsum(r["mean_failures"] for r in rs) / len(rs), _pooled_std(rs),
                         platforms.pop() if len(platforms) == 1 else None))
    out.sort(key=_group_key)
    return out


def _pooled_std(rows: Sequence[dict[str, Any]]) -> float:
    """Population standard deviation of T / L(f) over all the scenarios of ``rows`` (each row: its
    scenarios' mean and population std): ``E[x^2] - E[x]^2``, each cell weighted by its scenarios."""
    n = math.fsum(r["scenarios"] for r in rows)
    mean = math.fsum(r["scenarios"] * r["mean_ratio"] for r in rows) / n
    second = math.fsum(r["scenarios"] * (r["std_ratio"] ** 2 + (r["mean_ratio"] - mean) ** 2) for r in rows) / n
    return math.sqrt(max(second, 0.0))


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
        for stat, label in (("mean", "average"), ("std", "std dev"), ("max", "maximum")):
            out.append(f"  {label}")
            out.append(f"{axis:>6} {'failures':>10}   " + " ".join(f"{n:>{width}}" for n in names))
            for x in xs:
                row = [cell.get((h, p, x)) for h in heurs]
                fails = next((g.failures for g in row if g is not None), float("nan"))
                vals = " ".join(f"{'-':>{width}}" if g is None else f"{getattr(g, stat):>{width}.4f}" for g in row)
                out.append(f"{_xlabel(axis, x):>6} {fails:>10.2f}   {vals}")
        out.append("")
    return out


#: one number format for every table: ratios T / L(f) and their spread, and failure counts
RATIO_FORMAT = "{:.4f}"
FAILURES_FORMAT = "{:.2f}"


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A plain-text table: the first column left-aligned, the others right-aligned."""
    widths = [max(len(c) for c in col) for col in zip(header, *rows)]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths)))
            for line in (header, *rows)]


def render_tables(tables: Sequence[tuple[str, Sequence[str], Sequence[Sequence[str]]]], markdown: bool) -> str:
    """``(title, header, rows)`` tables as text or Markdown: a title's lines but the last are
    headings, its last line the table's caption (the torus and redistribution reports)."""
    out: list[str] = []
    for title, header, rows in tables:
        *head, caption = title.split("\n")
        for line in head:
            out += [f"**{line}**", ""] if markdown else [f"== {line} =="]
        out += [caption, ""] if markdown else ["", caption]
        out += [*_md_table(header, rows), ""] if markdown else text_table(header, rows)
    return "\n".join(out).rstrip("\n")


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A Markdown table whose columns line up in the source too: the first column left-aligned,
    the others (numbers) right-aligned, each padded to its widest cell."""
    widths = [max(len(c) for c in col) for col in zip(header, *rows)]
    widths = [max(w, 3) for w in widths]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.ljust(w) if i == 0 else c.rjust(w)
                                 for i, (c, w) in enumerate(zip(cells, widths))) + " |"

    rule = "|" + "|".join(("-" * (w + 2)) if i == 0 else ("-" * (w + 1) + ":")
                          for i, w in enumerate(widths)) + "|"
    return [line(header), rule, *(line(r) for r in rows)]


def format_markdown(groups: Sequence[Group]) -> str:
    """The same tables as :func:`format_tables`, as Markdown (for docs and papers): per heuristic
    the mean of every priority (best in bold), then per priority the paper's Table 1 layout (one
    row per value: failures, then average, standard deviation and maximum of every heuristic).
    Every ratio has four decimals, failure counts two; columns line up in the source."""
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
                rows = []
                for x in xs:
                    vals = [cell.get((h, p, x)) for p in prios]
                    best = min((v.mean for v in vals if v is not None), default=None)
                    rows.append([_xlabel(axis, x)] + [
                        "-" if v is None else (f"**{RATIO_FORMAT.format(v.mean)}**" if v.mean == best
                                               else RATIO_FORMAT.format(v.mean))
                        for v in vals])
                out.extend(_md_table([f"{pretty_heuristic(h)}, {axis}", *prios], rows))
                out.append("")
        for p in prios:
            names = [pretty_heuristic(h) for h in heurs]
            header = [f"{p}: {axis}", "failures", *(f"{stat} {n}" for stat in ("avg", "std", "max")
                                                    for n in names)]
            rows = []
            for x in xs:
                row = [cell.get((h, p, x)) for h in heurs]
                fails = next((g.failures for g in row if g is not None), float("nan"))
                parts = [_xlabel(axis, x), FAILURES_FORMAT.format(fails)]
                for stat in ("mean", "std", "max"):
                    parts += ["-" if g is None else RATIO_FORMAT.format(getattr(g, stat)) for g in row]
                rows.append(parts)
            out.extend(_md_table(header, rows))
            out.append("")
    return "\n".join(out)


# ----------------------------------------------------------------------------------- export


def groups_to_dataframe(groups: Sequence[Group]) -> Any:
    """The groups as a :class:`pandas.DataFrame`, one row per group in the order given, one
    column per :class:`Group` field (``P`` and ``platform`` as nullable integers).

    Needs pandas (the extra ``pandas``); raises :class:`~coschedule.errors.SolverUnavailable`
    without it.
    """
    pd = require_pandas()
    fields = list(Group.__dataclass_fields__)
    df = pd.DataFrame.from_records([g.to_dict() for g in groups], columns=fields)
    for col in ("P", "platform"):
        df[col] = df[col].astype("Int64")
    return df


# ----------------------------------------------------------------------------------- figures

#: colour and marker of each heuristic when heuristics are the lines (one priority: Fig. 4), the
#: same in every panel and every figure; R-ShelfFill's ``refill`` variants keep their family's
#: hue (B red, NB purple), lighter for ``failed`` and darker for ``queue`` (tab20's light red and
#: light purple, a dark red and indigo: no other heuristic's colour, nor the fallback's C7/C8)
HEURISTIC_STYLE: dict[str, tuple[str, str]] = {
    "r-list-0": ("C0", "o"), "r-list-1": ("C1", "s"), "r-list-q": ("C2", "v"),
    "r-shelffill-b": ("C3", "^"), "r-shelffill-nb": ("C4", "D"),
    "r-shelf-b": ("C9", "<"), "r-shelf-nb": ("C8", ">"),
    "r-list-1-kept": ("C5", "P"), "r-list-q-kept": ("C6", "X"),
    "r-shelffill-b-failed": ("#ff9896", "p"), "r-shelffill-b-queue": ("#8c1c13", "h"),
    "r-shelffill-nb-failed": ("#c5b0d5", "d"), "r-shelffill-nb-queue": ("#4b0082", "*"),
}
#: colour and marker of each priority when priorities are the lines (Figs. 5 and 6)
PRIORITY_STYLE: dict[str, tuple[str, str]] = {
    "LPT": ("C0", "o"), "SPT": ("C1", "s"), "HPA": ("C2", "v"), "LPA": ("C3", "^"),
    "LA": ("C4", "D"), "SA": ("C5", "<"), "RANDOM": ("C6", ">"), "LJF": ("C7", "P"),
}
#: line style of each heuristic when priorities are the colours (Figs. 5 and 6, all panels);
#: R-ShelfFill's ``refill`` variants vary their family's dashes (B: short dashes, paired for
#: ``failed``, sparse for ``queue``; NB: a long dash with three dots, or two long dashes and a dot)
HEURISTIC_LINESTYLE: dict[str, Any] = {
    "r-list-0": "-", "r-list-1": (0, (6, 2)), "r-list-q": (0, (6, 2, 1, 2)),
    "r-shelffill-b": (0, (2, 1.5)), "r-shelffill-nb": (0, (8, 2, 1, 2, 1, 2)),
    "r-shelf-b": (0, (4, 1, 4, 4)), "r-shelf-nb": (0, (1, 1)),
    "r-list-1-kept": (0, (3, 1, 1, 1, 1, 1)), "r-list-q-kept": (0, (10, 3)),
    "r-shelffill-b-failed": (0, (2, 1.5, 2, 4)), "r-shelffill-b-queue": (0, (2, 4)),
    "r-shelffill-nb-failed": (0, (8, 2, 1, 2, 1, 2, 1, 2)), "r-shelffill-nb-queue": (0, (8, 2, 8, 2, 1, 2)),
}
_EXTRA_MARKERS = "ph*Xd"
YLABEL = r"normalized makespan $T\,/\,L(f)$"


def _math(axis: str) -> str:
    """The parameter's name as the axes and titles write it."""
    return r"$\bar{q}$" if axis == "qbar" else r"$P$"


def _xlabel_of(axis: str) -> str:
    return r"$\bar{q}$ (mean failure probability of a job)" if axis == "qbar" else r"$P$ (processors)"


def _heuristic_style(h: str, k: int) -> tuple[str, str]:
    return HEURISTIC_STYLE.get(h, (f"C{7 if k % 2 else 8}", _EXTRA_MARKERS[k % len(_EXTRA_MARKERS)]))


def _priority_style(p: str, k: int) -> tuple[str, str]:
    return PRIORITY_STYLE.get(p, ("C9", _EXTRA_MARKERS[k % len(_EXTRA_MARKERS)]))


def _x(g: Group, axis: str) -> float:
    v = getattr(g, axis)
    return float(v) if v is not None else 0.0


def _series(gs: Iterable[Group], axis: str) -> tuple[list[float], list[float], list[float]]:
    """x values, means and pooled standard deviations, in increasing x."""
    ordered = sorted(gs, key=lambda g: _x(g, axis))
    return [_x(g, axis) for g in ordered], [g.mean for g in ordered], [g.pooled_std for g in ordered]


def _fixed(groups: Sequence[Group], axis: str) -> str:
    """What the panel holds fixed, as its title writes it: ``LPT, $P$ = 10000``."""
    parts = []
    prios = sorted({g.priority for g in groups})
    if len(prios) == 1:
        parts.append(prios[0])
    if axis == "qbar":
        Ps = {g.P if g.P is not None else g.platform for g in groups}
        if len(Ps) == 1 and None not in Ps:
            parts.append(f"$P$ = {Ps.pop()}")
    else:
        qs = {g.qbar for g in groups}
        if len(qs) == 1:
            parts.append(rf"$\bar{{q}}$ = {qs.pop():g}")
    return ", ".join(parts)


def _draw(ax: Any, xs: list[float], ys: list[float], sds: list[float], *, colour: str, marker: str,
          linestyle: Any = "-", label: str | None = None, bands: str | None = "band", dodge: float = 0.0,
          zorder: float = 2.0) -> None:
    """One curve, with its mean +- pooled standard deviation as a shaded band or error bars."""
    if bands == "errorbar":
        ax.plot(xs, ys, color=colour, marker=marker, ms=4, ls=linestyle, lw=1.4, label=label)
        # the bars of the curves of one panel side by side (dodged), lighter than the curves
        # clipped at 1 as the bands are: T / L(f) is never below it
        below = [max(0.0, min(d, y - 1.0)) for y, d in zip(ys, sds)]
        ax.errorbar([x + dodge for x in xs], ys, yerr=[below, sds], fmt="none", ecolor=colour, elinewidth=0.9,
                    capsize=2, alpha=0.45)
        return
    ax.plot(xs, ys, color=colour, marker=marker, ms=4, ls=linestyle, lw=1.3, label=label, zorder=zorder)
    if bands == "band":  # clipped at 1: T / L(f) is never below it
        lo = [max(1.0, y - d) for y, d in zip(ys, sds)]
        hi = [y + d for y, d in zip(ys, sds)]
        ax.fill_between(xs, lo, hi, color=colour, alpha=0.08, lw=0)


def _band_note(bands: str | None) -> str:
    if bands is None:
        return ""
    what = "bars" if bands == "errorbar" else "bands"
    return what + r": mean $\pm$ one standard deviation of $T\,/\,L(f)$ over every scenario of every instance"


def plot_groups(
    groups: Sequence[Group],
    path: str | Path | None = None,
    *,
    title: str | None = None,
    bands: bool = True,
) -> Figure:
    """The paper's panels of one campaign; returns the figure (and saves it when ``path`` is
    given: the suffix picks the format, a name without one gets PNG and SVG; see
    :func:`coschedule.plot.save_figure`).

    Several priorities: one panel per heuristic (a line per priority, Figs. 5 and 6 (a)-(e)) and
    a last panel with every heuristic under its best priority (lowest mean over the x values;
    Figs. 5 (f) and 6 (f)). Colour and marker say the priority in every panel, the line style
    says the heuristic (in its own panel and in the last one); one legend. The heuristics' panels
    share their y axis; the last one has its own, to separate its close curves. One priority: one
    panel, a line per heuristic (Fig. 4; several campaigns side by side:
    :func:`plot_side_by_side`). The x axis is ``qbar``, or ``P`` when only ``P`` varies. With
    ``bands``, each curve carries its mean +- the pooled standard deviation of ``T / L(f)`` over
    every scenario (``Group.pooled_std``): a shaded band, or error bars on one-priority panels.
    """
    if not groups:
        raise ValueError("nothing to plot: the database has no completed cell")
    if len({g.priority for g in groups}) == 1:
        return plot_side_by_side([(None, groups)], path, title=title, bands=bands)
    from coschedule.plot.figure import new_figure, save_figure

    axis = _axis(groups)
    heurs = sorted({g.heuristic for g in groups}, key=lambda h: ORDER.index(h) if h in ORDER else 99)
    prios = sorted({g.priority for g in groups}, key=lambda p: PRIORITY_ORDER.index(p) if p in PRIORITY_ORDER else 99)
    cell: dict[tuple[str, str], list[Group]] = defaultdict(list)
    for g in groups:
        cell[(g.heuristic, g.priority)].append(g)
    pstyle = {p: _priority_style(p, k) for k, p in enumerate(prios)}
    hstyle = {h: HEURISTIC_LINESTYLE.get(h, "-") for h in heurs}
    band = "band" if bands else None

    npanels = len(heurs) + 1
    cols = 3
    rows = math.ceil(npanels / cols)
    fig = new_figure(figsize=(4.0 * cols + 2.4, 3.2 * rows + 0.7))
    flat = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in flat[1:len(heurs)]:  # the heuristics' panels share y; the last one zooms on its curves
        ax.sharey(flat[0])
    best: dict[str, str] = {}
    for i, h in enumerate(heurs):
        ax = flat[i]
        means = {}
        for p in prios:
            xs, ys, sds = _series(cell.get((h, p), []), axis)
            if xs:
                _draw(ax, xs, ys, sds, colour=pstyle[p][0], marker=pstyle[p][1], linestyle=hstyle[h], bands=band)
                means[p] = math.fsum(ys) / len(ys)
        best[h] = min(means, key=lambda p: means[p])
        ax.set_title(f"({chr(97 + i)}) {pretty_heuristic(h)}")
    ax = flat[len(heurs)]
    for k, h in enumerate(heurs):
        xs, ys, sds = _series(cell.get((h, best[h]), []), axis)
        p = best[h]
        # no bands here: each curve has its band in its heuristic's panel; the first heuristics on top
        _draw(ax, xs, ys, sds, colour=pstyle[p][0], marker=pstyle[p][1], linestyle=hstyle[h], bands=None,
              zorder=3 + len(heurs) - k)
    ax.set_title(f"({chr(97 + len(heurs))}) each heuristic, its best priority")
    for k, ax in enumerate(flat[:npanels]):
        ax.grid(alpha=0.3)
        ax.set_xlabel(_xlabel_of(axis) if k >= npanels - cols else _math(axis))
        if k % cols == 0:
            ax.set_ylabel(YLABEL)
        ax.tick_params(labelleft=True)
    for extra in flat[npanels:]:
        extra.set_visible(False)
    # one legend: colour and marker = priority; line style = heuristic (with its best priority)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], ls="none", label="priority (colour, marker)")]
    handles += [Line2D([], [], color=pstyle[p][0], marker=pstyle[p][1], ms=5, lw=1.3, label=p) for p in prios]
    handles += [Line2D([], [], ls="none", label=" "), Line2D([], [], ls="none", label="heuristic (line; best priority)")]
    handles += [Line2D([], [], color="black", ls=hstyle[h], lw=1.3, label=f"{pretty_heuristic(h)}; {best[h]}")
                for h in heurs]
    note = _band_note(band)
    fixed = _fixed(groups, axis)
    head = title or (f"normalized makespan against {_math(axis)}" + (f", {fixed}" if fixed else ""))
    fig.suptitle(head + (f"\n{note}" if note else ""), fontsize=11)
    fig.tight_layout(rect=(0, 0, 1 - 2.5 / fig.get_figwidth(), 1))
    leg = fig.legend(handles=handles, loc="center left", bbox_to_anchor=(1 - 2.45 / fig.get_figwidth(), 0.5),
                     fontsize=8, handlelength=3.2, frameon=False)
    for text in leg.get_texts():
        if text.get_text().startswith(("priority (", "heuristic (")):
            text.set_fontweight("bold")
    if path is not None:
        save_figure(fig, path)
    return fig


def plot_side_by_side(
    panels: Sequence[tuple[str | None, Sequence[Group]]],
    path: str | Path | None = None,
    *,
    title: str | None = None,
    bands: bool = True,
) -> Figure:
    """One panel per campaign, side by side with a shared y axis, a line per heuristic: the
    paper's Fig. 4 (``[("(a)", fig4a_groups), ("(b)", fig4b_groups)]``, against ``qbar`` then
    ``P``). Each set of groups must have one priority (filter the others out). A heuristic has
    the same colour and marker in every panel (:data:`HEURISTIC_STYLE`); one legend; with
    ``bands``, error bars of +- the pooled standard deviation. A panel's title is the given one,
    or its letter and what it holds fixed. Returns the figure (saved when ``path`` is given)."""
    if not panels:
        raise ValueError("nothing to plot: no panel given")
    for k, (_, gs) in enumerate(panels):
        if not gs:
            raise ValueError(f"panel {k + 1}: nothing to plot (no completed cell)")
        prios = sorted({g.priority for g in gs})
        if len(prios) != 1:
            raise ValueError(f"panel {k + 1}: side-by-side panels need one priority each, got "
                             f"{', '.join(prios)}; keep one (report --priority)")
    from coschedule.plot.figure import new_figure, save_figure

    every = [g for _, gs in panels for g in gs]
    heurs = sorted({g.heuristic for g in every}, key=lambda h: ORDER.index(h) if h in ORDER else 99)
    style = {h: _heuristic_style(h, k) for k, h in enumerate(heurs)}
    band = "errorbar" if bands else None
    n = len(panels)
    fig = new_figure(figsize=(4.6 * n + 0.4, 4.3))
    axes = fig.subplots(1, n, sharey=True, squeeze=False)[0]
    for k, (ax, (sub, gs)) in enumerate(zip(axes, panels)):
        axis = _axis(gs)
        xs_all = sorted({_x(g, axis) for g in gs})
        span = (xs_all[-1] - xs_all[0]) if len(xs_all) > 1 else 1.0
        present = [h for h in heurs if any(g.heuristic == h for g in gs)]
        for i, h in enumerate(present):
            xs, ys, sds = _series([g for g in gs if g.heuristic == h], axis)
            dodge = span * 0.014 * (i - (len(present) - 1) / 2)  # bars side by side, not on top
            _draw(ax, xs, ys, sds, colour=style[h][0], marker=style[h][1], label=pretty_heuristic(h),
                  bands=band, dodge=dodge)
        fixed = _fixed(gs, axis)
        letter = f"({chr(97 + k)})" if n > 1 else ""
        ax.set_title(sub or " ".join(x for x in (letter, fixed) if x))
        ax.set_xlabel(_xlabel_of(axis))
        ax.grid(alpha=0.3)
        ax.tick_params(labelleft=True)
    axes[0].set_ylabel(YLABEL)
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=style[h][0], marker=style[h][1], ms=5, lw=1.3, label=pretty_heuristic(h))
               for h in heurs]
    note = _band_note(band)
    if title or note:
        fig.suptitle("\n".join(x for x in (title, note) if x), fontsize=11 if title else 9)
    fig.tight_layout(rect=(0, 0.07 if n > 1 else 0.1, 1, 1))
    fig.legend(handles=handles, loc="lower center", ncol=min(len(heurs), 5 if n > 1 else 2), fontsize=8,
               frameon=False)
    if path is not None:
        save_figure(fig, path)
    return fig
