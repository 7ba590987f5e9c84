"""Summaries of a redistribution campaign's database: groups over the runs, tables, the figures of
[Aupy2017] §1.5.5 (Figs. 1.4-1.7).

A *group* is the set of cells that differ only by their run index: one point ``(n, p, MTBF,
c)`` and one variant. Its numbers are means over its runs with a 95 % confidence interval from
Student's t: ``mean ± t_{0.975, k-1} · s / √k`` (:func:`~.torus_report.student_ci`). The
normalised makespan is the mean of the per-run ratios ``makespan / faulty makespan``, each on the
same pack and failure trace (paired), which is the paper's "normalised by the makespan obtained
in a faulty context without any redistribution" with the pairing made explicit; the faulty
variant's ratio is 1 in every run.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .redistrib import AXES, VARIANTS
from .report import _md_table
from .sources import CampaignError
from .torus_report import student_ci

__all__ = ["LABELS", "STATS", "RedistribGroup", "format_redistrib_markdown", "format_redistrib_tables",
           "redistrib_figure", "summarize_redistrib"]

#: the row columns a group averages
STATS = ("ratio", "makespan", "faulty_makespan", "failures", "failures_hit", "redistributions", "changes", "seconds")

#: each variant as the paper names it (ENDLOCAL is the results' ENDMETHOD)
LABELS = {
    "faulty": "faulty, no redistribution",
    "fault-free-none": "fault-free, no redistribution",
    "fault-free-local": "fault-free, EndLocal",
    "fault-free-greedy": "fault-free, EndGreedy",
    "local+saf": "EndLocal + ShortestApplicationsFirst",
    "local+iterated": "EndLocal + IteratedGreedy",
    "greedy+saf": "EndGreedy + ShortestApplicationsFirst",
    "greedy+iterated": "EndGreedy + IteratedGreedy",
}
#: each axis as the tables and figures write it
AXIS_NAMES = {"n": "n (applications)", "p": "p (processors)", "mtbf_years": "processor MTBF (years)",
              "c": "checkpoint cost factor c"}
_SHORT = {"n": "n", "p": "p", "mtbf_years": "MTBF", "c": "c"}
#: colour, line style and marker of each variant, the same in every figure
_STYLE = {
    "faulty": ("0.25", ":", ""),
    "fault-free-none": ("0.55", "--", "x"),
    "fault-free-local": ("#2ca02c", "--", "s"),
    "fault-free-greedy": ("#17becf", "--", "D"),
    "local+saf": ("#ff7f0e", "-", "v"),
    "local+iterated": ("#d62728", "-", "^"),
    "greedy+saf": ("#1f77b4", "-", "o"),
    "greedy+iterated": ("#9467bd", "-", "P"),
}
_ORDER = {v: k for k, v in enumerate(VARIANTS)}


@dataclass(frozen=True)
class RedistribGroup:
    """The runs of one point and variant (module docstring). ``stats``: column of :data:`STATS`
    -> ``(mean, CI half-width)``."""

    n: int
    p: int
    mtbf_years: float
    c: float
    variant: str
    runs: int
    stats: dict[str, tuple[float, float]] = field(default_factory=dict)

    @property
    def point(self) -> tuple[int, int, float, float]:
        return (self.n, self.p, self.mtbf_years, self.c)

    @property
    def label(self) -> str:
        return LABELS.get(self.variant, self.variant)

    def mean(self, stat: str) -> float:
        return self.stats[stat][0]

    def ci(self, stat: str) -> float:
        return self.stats[stat][1]

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {k: v for k, v in self.__dict__.items() if k != "stats"}
        for stat, (mu, half) in self.stats.items():
            d[stat] = _json(mu)
            d[stat + "_ci95"] = _json(half)
        return d


def _json(x: float) -> float | None:
    return x if math.isfinite(x) else None


def summarize_redistrib(rows: Iterable[dict[str, Any]]) -> list[RedistribGroup]:
    """Groups of cells over their runs, sorted by point and variant (:data:`VARIANTS` order)."""
    acc: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        acc[(r["n"], r["p"], r["mtbf_years"], r["c"], r["variant"])].append(r)
    out = [RedistribGroup(n, p, mtbf, c, variant, runs=len(rs), stats={s: student_ci([r[s] for r in rs])
                                                                        for s in STATS})
           for (n, p, mtbf, c, variant), rs in acc.items()]
    out.sort(key=lambda g: (*g.point, _ORDER.get(g.variant, 99), g.variant))
    return out


def varying_axes(groups: Sequence[RedistribGroup]) -> list[str]:
    """The axes with more than one value among ``groups``, in :data:`AXES` order."""
    return [a for a in AXES if len({getattr(g, a) for g in groups}) > 1]


def _fmt_axis(axis: str, v: float) -> str:
    return f"{int(v):,}" if axis in ("n", "p") else f"{v:g}"


def _point_label(point: Sequence[Any], axes: Sequence[str]) -> str:
    return ", ".join(f"{_SHORT[a]} = {_fmt_axis(a, point[AXES.index(a)])}" for a in axes)


# ------------------------------------------------------------------------------------- tables


def _pm(mu: float, half: float, fmt: str) -> str:
    if not math.isfinite(mu):
        return "-"
    return format(mu, fmt) + ("" if not math.isfinite(half) else " ± " + format(half, fmt))


def _tables(groups: Sequence[RedistribGroup]) -> list[tuple[str, list[str], list[list[str]]]]:
    """``(title, header, rows)`` of every table: one row per point, one column per variant."""
    if not groups:
        return []
    vary = varying_axes(groups)
    fixed = [a for a in AXES if a not in vary]
    shown = vary or ["n"]
    points = list(dict.fromkeys(g.point for g in groups))
    variants = sorted({g.variant for g in groups}, key=lambda v: _ORDER.get(v, 99))
    cell = {(g.point, g.variant): g for g in groups}
    runs = sorted({g.runs for g in groups})
    head = (f"{_point_label(groups[0].point, fixed)}; " if fixed else "") + \
        f"{'/'.join(map(str, runs))} runs a point; mean ± 95 % CI half-width over the runs (Student t)"

    def table(stat: str, fmt: str, scale: float = 1.0, bare: bool = False) -> list[list[str]]:
        out = []
        for pt in points:
            line = [_point_label(pt, shown)]
            for v in variants:
                g = cell.get((pt, v))
                half = math.nan if bare or g is None else g.ci(stat) * scale
                line.append("-" if g is None else _pm(g.mean(stat) * scale, half, fmt))
            out.append(line)
        return out

    header = ["point", *variants]
    day = 1.0 / 86400.0
    return [
        ((f"{head}\nnormalised makespan: makespan / the faulty makespan without redistribution on the same "
          "pack and failures (paired; lower is better)"), header, table("ratio", ".3f")),
        ("makespan (days)", header, table("makespan", ",.1f", day)),
        ("failures during the run / those that struck a computing application (means)", header,
         [[a[0], *(f"{x} / {y}" for x, y in zip(a[1:], b[1:]))]
          for a, b in zip(table("failures", ".1f", bare=True), table("failures_hit", ".1f", bare=True))]),
        ("redistributions per run", header, table("redistributions", ",.1f")),
        ("seconds per run (the simulation, one core)", header, table("seconds", ".3f")),
    ]


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(c) for c in col) for col in zip(header, *rows)]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths)))
            for line in (header, *rows)]


def _render(groups: Sequence[RedistribGroup], markdown: bool) -> str:
    if not groups:
        return "(no completed cell)"
    out: list[str] = []
    for title, header, rows in _tables(groups):
        *head, caption = title.split("\n")
        for line in head:
            out += [f"**{line}**", ""] if markdown else [f"== {line} =="]
        out += [caption, ""] if markdown else ["", caption]
        out += [*_md_table(header, rows), ""] if markdown else _text_table(header, rows)
    return "\n".join(out).rstrip("\n")


def format_redistrib_tables(groups: Sequence[RedistribGroup]) -> str:
    """The summary tables as text: per point (rows) and variant (columns), the normalised
    makespan, the makespan in days, the failures, the redistributions and the seconds per run."""
    return _render(groups, markdown=False)


def format_redistrib_markdown(groups: Sequence[RedistribGroup]) -> str:
    """The same tables as :func:`format_redistrib_tables`, as Markdown."""
    return _render(groups, markdown=True)


# ------------------------------------------------------------------------------------ figures


def _panels(groups: Sequence[RedistribGroup]) -> list[tuple[str, tuple[tuple[str, Any], ...]]]:
    """``(x axis, the other varying axes' values)`` of every panel: one per varying axis and
    combination of the other varying axes (one panel when one axis varies)."""
    vary = varying_axes(groups)
    out = []
    for axis in vary:
        others = [a for a in vary if a != axis]
        combos = sorted({tuple((a, getattr(g, a)) for a in others) for g in groups})
        out += [(axis, combo) for combo in combos]
    return out


def redistrib_figure(rows: Sequence[dict[str, Any]], title: str | None = None, **_: Any) -> Any:
    """``coschedule report --plot`` of a redistribution campaign: the normalised makespan
    against each axis that varies (one panel per axis, and per value of the other varying
    axes), a line per variant with its 95 % confidence interval as error bars; the faulty run
    without redistribution is the line at 1."""
    from coschedule.plot import new_figure

    groups = summarize_redistrib(rows)
    if not groups:
        raise CampaignError("no completed cell: nothing to plot")
    panels = _panels(groups)
    if not panels:
        raise CampaignError("the database has one point (n, p, MTBF, c): a figure needs an axis with two values "
                            "or more; its tables say it all")
    ncols = min(2, len(panels))
    nrows = -(-len(panels) // ncols)
    fig = new_figure(figsize=(6.6 * ncols, 4.4 * nrows + 0.9))
    variants = sorted({g.variant for g in groups}, key=lambda v: _ORDER.get(v, 99))
    fixed = [a for a in AXES if a not in varying_axes(groups)]
    for k, (axis, combo) in enumerate(panels):
        ax = fig.add_subplot(nrows, ncols, k + 1)
        mine = [g for g in groups if all(getattr(g, a) == v for a, v in combo)]
        xs_all = sorted({getattr(g, axis) for g in mine})
        span = (xs_all[-1] - xs_all[0]) or 1.0
        nv = len([v for v in variants if v != "faulty"])
        shift = 0
        for v in variants:
            gs = sorted((g for g in mine if g.variant == v), key=lambda g: getattr(g, axis))
            if not gs:
                continue
            colour, ls, marker = _STYLE.get(v, ("k", "-", "o"))
            xs = [float(getattr(g, axis)) for g in gs]
            if v == "faulty":
                ax.plot(xs, [g.mean("ratio") for g in gs], color=colour, ls=ls, lw=1.2, label=LABELS[v])
                continue
            # a small horizontal offset per variant, so that the error bars do not hide each other
            off = (shift - (nv - 1) / 2) * 0.006 * span
            shift += 1
            halves = [g.ci("ratio") if math.isfinite(g.ci("ratio")) else 0.0 for g in gs]
            ax.errorbar([x + off for x in xs], [g.mean("ratio") for g in gs], yerr=halves, color=colour, ls=ls,
                        marker=marker, ms=4, lw=1.3, capsize=2.5, elinewidth=0.9, label=LABELS.get(v, v))
        ax.set_xlabel(AXIS_NAMES[axis])
        ax.set_ylabel("makespan / faulty makespan, no redistribution")
        where = _point_label([dict(combo).get(a, 0) for a in AXES], [a for a, _ in combo])
        ax.set_title(f"against {_SHORT[axis]}" + (f", {where}" if where else ""), fontsize=10)
        ax.grid(alpha=0.3)
        if axis in ("n", "p"):
            ax.xaxis.set_major_formatter(_thousands())
        if k == 0:
            ax.legend(fontsize=7.5, loc="best")
    runs = sorted({g.runs for g in groups})
    setting = _point_label(groups[0].point, fixed)
    note = (f"{setting}; " if setting else "") + (
        f"means over {'/'.join(map(str, runs))} runs (pack and failure trace) per point; "
        "error bars: 95 % confidence intervals (Student t) of the paired ratios")
    fig.suptitle(f"{title or 'Normalised makespan with redistribution ([Aupy2017] Figs. 1.4-1.7)'}\n{note}",
                 fontsize=10)
    fig.tight_layout()
    return fig


def _thousands() -> Any:
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda x, _: f"{x:,.0f}")
