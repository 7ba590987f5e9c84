"""Summaries of a redistribution campaign's database: groups over the runs, tables, the figures of
[Aupy2017] §1.5.5 (Figs. 1.4-1.7).

A *group* is the set of cells that differ only by their run index: one point ``(n, p, MTBF,
c)`` and one variant. Its numbers are means over its runs with a 95 % confidence interval from
Student's t: ``mean ± t_{0.975, k-1} · s / √k`` (:func:`~coschedule.campaign.stats.student_ci`). The
normalised makespan is the mean of the per-run ratios ``makespan / faulty makespan``, each on the
same pack and failure trace (paired), which is the paper's "normalised by the makespan obtained
in a faulty context without any redistribution" with the pairing made explicit; the faulty
variant's ratio is 1 in every run.

**The gain and its baseline.** A *gain* is ``1 - makespan / the baseline's makespan`` of the
same run, averaged over the runs. The baseline is :data:`BASELINE`, the faulty run without
redistribution, because that is the one [Aupy2017] §1.5.5 measures against: "We normalize the
results by the makespan obtained in a faulty context without any redistribution, which is
expected to be the worst case", and its gains are read off those normalised figures ("With
n = 1000, we obtain a gain of more than 40% due to redistributions", Fig. 1.5). The other
baseline of :data:`BASELINES`, the fault-free run without redistribution of the same pack, is
given beside it (``vs_free``) where the database has it; ``summarize_redistrib(rows,
baseline="fault-free-none")`` computes the gains against it instead.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from coschedule.campaign.report import render_tables
from coschedule.campaign.simulators.redistrib.adapter import AXES, VARIANTS
from coschedule.campaign.sources import CampaignError
from coschedule.campaign.stats import student_ci

__all__ = ["BASELINE", "BASELINES", "LABELS", "ORDERINGS", "STATS", "RedistribGroup", "format_redistrib_markdown",
           "format_redistrib_tables", "orderings_figure", "redistrib_figure", "summarize_redistrib"]

#: the row columns a group averages
STATS = ("ratio", "makespan", "faulty_makespan", "failures", "failures_hit", "redistributions", "changes", "seconds")

#: the variants a gain can be measured against: the faulty and the fault-free run without
#: redistribution, on the same pack (and, for the faulty one, the same failures)
BASELINES = ("faulty", "fault-free-none")
#: the baseline of every gain the report gives: the paper's (module docstring, [Aupy2017] §1.5.5)
BASELINE = "faulty"

#: the paper's orderings of two variants, as paired differences ``ratio(a) - ratio(b)`` of the same
#: run (negative: ``a`` is better): (name, a, b, what [Aupy2017] §1.5.5 says of the sign)
ORDERINGS: tuple[tuple[str, str, str, str], ...] = (
    ("EndLocal: IG - SAF", "local+iterated", "local+saf",
     ("< 0 (Fig. 1.5: 'as expected, ITERATEDGREEDY is better'), > 0 at an MTBF of about 10 years or less "
      "(Summary)")),
    ("EndGreedy: IG - SAF", "greedy+iterated", "greedy+saf", "as EndLocal"),
    ("SAF: EndGreedy - EndLocal", "greedy+saf", "local+saf",
     "< 0 ('ENDGREEDY is useful with SHORTESTAPPLICATIONSFIRST', Fig. 1.5)"),
    ("IG: EndGreedy - EndLocal", "greedy+iterated", "local+iterated",
     ">= 0 ('Using ENDGREEDY with ITERATEDGREEDY does not improve the performance', Fig. 1.5)"),
    ("EndLocal + IG - none", "local+iterated", "faulty",
     "> 0 at a small MTBF ('it becomes even worse than without redistribution!', Fig. 1.6)"),
    ("EndGreedy + IG - none", "greedy+iterated", "faulty", "as EndLocal + IG"),
)

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
#: each baseline as the gain table's title names it
_AGAINST = {"faulty": "the faulty makespan without redistribution of the same pack and failures",
            "fault-free-none": "the fault-free makespan without redistribution of the same pack"}


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
    #: what ``stats["gain"]`` is measured against (:data:`BASELINES`)
    baseline: str = BASELINE

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


def _run_key(r: dict[str, Any]) -> tuple[Any, ...]:
    """What fixes a run's pack and failures: its point and run index."""
    return (r["n"], r["p"], r["mtbf_years"], r["c"], r["run"])


def summarize_redistrib(rows: Iterable[dict[str, Any]], baseline: str = BASELINE) -> list[RedistribGroup]:
    """Groups of cells over their runs, sorted by point and variant (:data:`VARIANTS` order).

    Each group has ``gain``: the mean over its runs of ``1 - makespan / the baseline's makespan``
    of the same run (paired), ``baseline`` one of :data:`BASELINES` (the faulty run without
    redistribution by default: the module docstring says why); a run whose baseline is not among
    ``rows`` has no gain. Where the database has ``fault-free-none`` runs, each group also has
    ``vs_free``: the mean of ``makespan / the fault-free makespan without redistribution`` of the
    same run, the gain of redistribution alone for a fault-free variant, the cost of the failures
    for ``faulty``. An unknown ``baseline`` raises :class:`CampaignError` naming the valid ones."""
    if baseline not in BASELINES:
        raise CampaignError(f"unknown baseline {baseline!r}: choose {' or '.join(BASELINES)}")
    rows = list(rows)
    free = {_run_key(r): r["makespan"] for r in rows if r["variant"] == "fault-free-none"}
    base = {_run_key(r): r["faulty_makespan"] for r in rows} if baseline == "faulty" else free
    acc: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        acc[(r["n"], r["p"], r["mtbf_years"], r["c"], r["variant"])].append(r)
    out = []
    for (n, p, mtbf, c, variant), rs in acc.items():
        stats = {s: student_ci([r[s] for r in rs]) for s in STATS}
        gains = [1.0 - r["makespan"] / base[_run_key(r)] for r in rs if _run_key(r) in base]
        if gains:
            stats["gain"] = student_ci(gains)
        paired = [r["makespan"] / free[_run_key(r)] for r in rs if _run_key(r) in free]
        if paired:
            stats["vs_free"] = student_ci(paired)
        for _, a, b, _ in ORDERINGS:
            if variant == a:
                other = {_run_key(r): r["ratio"] for r in rows if r["variant"] == b}
                diffs = [r["ratio"] - other[_run_key(r)] for r in rs if _run_key(r) in other]
                if diffs:
                    stats[f"minus {b}"] = student_ci(diffs)
        out.append(RedistribGroup(n, p, mtbf, c, variant, runs=len(rs), stats=stats, baseline=baseline))
    out.sort(key=lambda g: (*g.point, _ORDER.get(g.variant, 99), g.variant))
    return out


def varying_axes(groups: Sequence[RedistribGroup]) -> list[str]:
    """The axes with more than one value among ``groups``, in :data:`AXES` order."""
    return [a for a in AXES if len({getattr(g, a) for g in groups}) > 1]


def _fmt_axis(axis: str, v: float) -> str:
    return f"{int(v):,}" if axis in ("n", "p") else f"{v:g}"


def _point_label(point: Sequence[Any], axes: Sequence[str]) -> str:
    return ", ".join(f"{_SHORT[a]} = {_fmt_axis(a, point[AXES.index(a)])}" + (" years" if a == "mtbf_years" else "")
                     for a in axes)


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
                if g is None or stat not in g.stats:
                    line.append("-")
                    continue
                half = math.nan if bare else g.ci(stat) * scale
                line.append(_pm(g.mean(stat) * scale, half, fmt))
            out.append(line)
        return out

    header = ["point", *variants]
    day = 1.0 / 86400.0
    extra = []
    if any("gain" in g.stats for g in groups):
        against = _AGAINST[groups[0].baseline]
        extra.append((f"gain (%): 1 - makespan / {against} (paired; the baseline of every gain)", header,
                      table("gain", ".1f", 100.0)))
    if any("vs_free" in g.stats for g in groups):
        extra.append((("makespan / the fault-free makespan without redistribution of the same pack (paired): the "
                       "gain of redistribution alone for a fault-free variant, the cost of the failures for the others"),
                      header, table("vs_free", ".3f")))
    orders = [(name, a, b) for name, a, b, _ in ORDERINGS
              if any(f"minus {b}" in g.stats for g in groups if g.variant == a)]
    if orders:
        lines = []
        for pt in points:
            line = [_point_label(pt, shown)]
            for _, a, b in orders:
                g = cell.get((pt, a))
                stat = f"minus {b}"
                if g is None or stat not in g.stats:
                    line.append("-")
                    continue
                mu = 100 * g.mean(stat) + 0.0  # + 0.0: no "-0.0"
                line.append(f"{mu if round(mu, 1) else 0.0:+.1f} ± {100 * g.ci(stat):.1f}")
            lines.append(line)
        extra.append((("the paper's orderings: ratio(a) - ratio(b) of the same run, in points of normalised makespan "
                       "(negative: a is better; IG: IteratedGreedy, SAF: ShortestApplicationsFirst, none: the faulty "
                       "run without redistribution)"), ["point", *(name for name, _, _ in orders)], lines))
    return [
        ((f"{head}\nnormalised makespan: makespan / the faulty makespan without redistribution on the same "
          "pack and failures (paired; lower is better)"), header, table("ratio", ".3f")),
        *extra,
        ("makespan (days)", header, table("makespan", ",.1f", day)),
        ("failures during the run / those that struck a computing application (means)", header,
         [[a[0], *(f"{x} / {y}" for x, y in zip(a[1:], b[1:]))]
          for a, b in zip(table("failures", ".1f", bare=True), table("failures_hit", ".1f", bare=True))]),
        ("redistributions per run", header, table("redistributions", ",.1f")),
        ("seconds per run (the simulation, one core)", header, table("seconds", ".3f")),
    ]


def _render(groups: Sequence[RedistribGroup], markdown: bool) -> str:
    if not groups:
        return "(no completed cell)"
    return render_tables(_tables(groups), markdown)


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


def _log_axis(xs: Sequence[float]) -> bool:
    """Whether an axis reads better on a log scale: positive values spanning more than a factor 10
    (``c`` from 0.1 to 4, the MTBF from 5 to 125 years; not ``n`` from 100 to 1,000)."""
    return min(xs) > 0 and max(xs) / min(xs) > 10


def redistrib_figure(rows: Sequence[dict[str, Any]], title: str | None = None, **_: Any) -> Any:
    """``coschedule report --plot`` of a redistribution campaign: the normalised makespan
    against each axis that varies (one panel per axis, and per value of the other varying
    axes), a line per variant with its 95 % confidence interval as error bars; the faulty run
    without redistribution is the line at 1. Where the database has ``fault-free-none`` runs,
    as many panels again give each variant's makespan over that run's (``vs_free``: the gain
    of redistribution alone; ``faulty`` left out). An axis whose values span more than a factor
    of 10 (``c`` from 0.1 to 4, say) is drawn on a log scale."""
    import textwrap

    from coschedule.plot.figure import new_figure

    groups = summarize_redistrib(rows)
    if not groups:
        raise CampaignError("no completed cell: nothing to plot")
    measures = ["ratio"] + (["vs_free"] if any("vs_free" in g.stats for g in groups) else [])
    panels = [(m, axis, combo) for m in measures for axis, combo in _panels(groups)]
    if not panels:
        raise CampaignError("the database has one point (n, p, MTBF, c): a figure needs an axis with two values "
                            "or more; its tables say it all")
    ncols = min(2, len(panels))
    nrows = -(-len(panels) // ncols)
    width = 7.2 * ncols
    fig = new_figure(figsize=(width, 4.3 * nrows + 1.6))  # 1.6 in: the title and the legend
    variants = sorted({g.variant for g in groups}, key=lambda v: _ORDER.get(v, 99))
    fixed = [a for a in AXES if a not in varying_axes(groups)]
    handles: dict[str, Any] = {}
    for k, (measure, axis, combo) in enumerate(panels):
        base = "faulty" if measure == "ratio" else "fault-free-none"
        ax = fig.add_subplot(nrows, ncols, k + 1)
        mine = [g for g in groups if all(getattr(g, a) == v for a, v in combo)]
        xs_all = sorted({float(getattr(g, axis)) for g in mine})
        log = _log_axis(xs_all)
        if log:
            ax.set_xscale("log")
        span = (xs_all[-1] - xs_all[0]) or 1.0
        moving = [v for v in variants if v not in ("faulty", base)]
        for v in variants:
            gs = sorted((g for g in mine if g.variant == v and measure in g.stats), key=lambda g: getattr(g, axis))
            if not gs or (measure == "vs_free" and v == "faulty"):
                continue
            colour, ls, marker = _STYLE.get(v, ("k", "-", "o"))
            xs = [float(getattr(g, axis)) for g in gs]
            if v == base:
                line = ax.plot(xs, [g.mean(measure) for g in gs], color=colour, ls=ls, lw=1.2, label=LABELS[v])[0]
                handles.setdefault(v, line)
                continue
            # a small horizontal offset per variant, so that the error bars do not hide each other
            off = (moving.index(v) - (len(moving) - 1) / 2) * 0.007
            shifted = [x * (1 + 2 * off) if log else x + off * span for x in xs]
            halves = [g.ci(measure) if math.isfinite(g.ci(measure)) else 0.0 for g in gs]
            bars = ax.errorbar(shifted, [g.mean(measure) for g in gs], yerr=halves, color=colour, ls=ls,
                               marker=marker, ms=4, lw=1.3, capsize=2.5, elinewidth=0.9, label=LABELS.get(v, v))
            handles.setdefault(v, bars)
        ax.set_xlabel(AXIS_NAMES[axis] + (" (log scale)" if log else ""))
        ax.set_ylabel("makespan / faulty makespan\n(no redistribution, same failures)" if measure == "ratio"
                      else "makespan / fault-free makespan\n(no redistribution, same pack)")
        if log or axis in ("n", "p"):
            ax.set_xticks(xs_all)
            ax.set_xticklabels([_fmt_axis(axis, x) for x in xs_all])
            ax.minorticks_off()
        where = _point_label([dict(combo).get(a, 0) for a in AXES], [a for a, _ in combo])
        what = "normalised by the faulty run" if measure == "ratio" else "normalised by the fault-free run"
        ax.set_title(f"{what}, against {_SHORT[axis]}" + (f", {where}" if where else ""), fontsize=10)
        ax.grid(alpha=0.3)
    runs = sorted({g.runs for g in groups})
    setting = _point_label(groups[0].point, fixed)
    note = (f"{setting}; " if setting else "") + (
        f"means over {'/'.join(map(str, runs))} runs (a pack and a failure trace each) per point; "
        "error bars: 95 % confidence intervals (Student t) of the paired ratios")
    head = title or "Normalised makespan with redistribution ([Aupy2017] Figs. 1.4-1.7)"
    chars = int(width * 72 / 6.2)  # characters of about 6 points at 10 points a line
    fig.suptitle("\n".join([head, *textwrap.wrap(note, chars)]), fontsize=10)
    fig.legend([handles[v] for v in variants if v in handles], [LABELS.get(v, v) for v in variants if v in handles],
               loc="lower center", ncol=min(3, len(handles)), fontsize=8, frameon=False)
    height = 4.3 * nrows + 1.6
    fig.tight_layout(rect=(0, (0.25 * math.ceil(len(handles) / 3) + 0.15) / height, 1, 1))
    return fig


def orderings_figure(rows: Sequence[dict[str, Any]], axis: str = "c", title: str | None = None) -> Any:
    """The paper's orderings (:data:`ORDERINGS`) against ``axis``: a panel per ordering whose two
    variants are among ``rows``, the paired difference ``ratio(a) - ratio(b)`` in points of
    normalised makespan with its 95 % interval, a line per value of the other axes that vary (the
    MTBF of a c sweep, say), and the line at 0 (below it, ``a`` is better). Where a line stays on
    the side the paper says (the panel's title), the paper's ordering holds there."""
    import textwrap

    from coschedule.plot.figure import new_figure

    groups = summarize_redistrib(rows)
    if axis not in AXES:
        raise CampaignError(f"unknown axis {axis!r}: choose one of {', '.join(AXES)}")
    if len({getattr(g, axis) for g in groups}) < 2:
        raise CampaignError(f"the rows have one value of {axis}: the orderings figure needs two or more")
    orders = [o for o in ORDERINGS if any(f"minus {o[2]}" in g.stats for g in groups if g.variant == o[1])]
    others = [a for a in varying_axes(groups) if a != axis]
    combos = sorted({tuple(getattr(g, a) for a in others) for g in groups})
    ncols = min(3, len(orders))
    nrows = -(-len(orders) // ncols)
    fig = new_figure(figsize=(5.2 * ncols, 3.9 * nrows + 1.3))
    cmap = __import__("matplotlib").colormaps["viridis"]
    xs_all = sorted({float(getattr(g, axis)) for g in groups})
    log = _log_axis(xs_all)
    handles = {}
    for k, (name, a, b, says) in enumerate(orders):
        ax = fig.add_subplot(nrows, ncols, k + 1)
        stat = f"minus {b}"
        for j, combo in enumerate(combos):
            gs = sorted((g for g in groups if g.variant == a and stat in g.stats
                         and tuple(getattr(g, o) for o in others) == combo), key=lambda g: getattr(g, axis))
            if not gs:
                continue
            label = _point_label([dict(zip(others, combo)).get(o, 0) for o in AXES], others) if others else None
            colour = cmap(j / max(1, len(combos) - 1) * 0.9)
            xs = [float(getattr(g, axis)) * (1 + 0.03 * (j - (len(combos) - 1) / 2) if log else 1) for g in gs]
            bars = ax.errorbar(xs, [100 * g.mean(stat) for g in gs],
                               yerr=[100 * g.ci(stat) if math.isfinite(g.ci(stat)) else 0.0 for g in gs],
                               color=colour, marker="o", ms=3.5, lw=1.2, capsize=2, elinewidth=0.8, label=label)
            if label:
                handles.setdefault(label, bars)
        ax.axhline(0.0, color="0.3", lw=0.8)
        if log:
            ax.set_xscale("log")
            ax.set_xticks(xs_all)
            ax.set_xticklabels([_fmt_axis(axis, x) for x in xs_all])
            ax.minorticks_off()
        ax.set_xlabel(AXIS_NAMES[axis] + (" (log scale)" if log else ""))
        ax.set_ylabel("points of normalised makespan")
        ax.set_title("\n".join([name, *textwrap.wrap(f"paper: {says}", 62)]), fontsize=8)
        ax.grid(alpha=0.3)
    runs = sorted({g.runs for g in groups})
    fixed = [x for x in AXES if x not in varying_axes(groups)]
    note = (f"{_point_label(groups[0].point, fixed)}; " if fixed else "") + \
        f"{'/'.join(map(str, runs))} runs a point; paired differences with 95 % intervals (Student t)"
    head = title or f"The orderings of [Aupy2017] §1.5.5 against {_SHORT[axis]}: ratio(a) - ratio(b) of the same run"
    fig.suptitle(f"{head}\n{note}", fontsize=10)
    if len(handles) > 1:
        fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=min(6, len(handles)), fontsize=8,
                   frameon=False)
    height = 3.9 * nrows + 1.3
    fig.tight_layout(rect=(0, (0.35 if len(handles) > 1 else 0.0) / height, 1, 1))
    return fig
