"""Summaries of a torus campaign's database: groups over the replicates, tables, the paper's
figures ([Oliner2004] Figs. 3-10).

A *group* is the set of cells that differ only by their seed index (and, for a synthetic source
of several sets, their workload): one source, torus shape, load scale ``c``, scheduler (``fcfs``,
``balancing`` at one confidence, ``tiebreak`` at one accuracy), with or without migration,
failure count, failure model and downtime. Each of its numbers is the mean over its runs with a 95 % confidence interval from
Student's t over the runs: ``mean ± t_{0.975, n-1} · s / √n`` (``s`` the sample standard
deviation; no interval for one run). Since every scheduler of a point runs on the same failure
traces, the report also gives each scheduler's mean bounded slowdown and mean response time
relative to ``fcfs``'s (with the same migration setting) on the same trace, paired replicate by
replicate (the mean of the per-seed ratios, with its interval). Which bounded slowdown the
tables show (its rule and its ``t^e``: run time or request) is in their titles.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from coschedule.campaign.report import render_tables
from coschedule.campaign.sources import CampaignError
from coschedule.campaign.stats import student_ci, t975  # noqa: F401 (t975: the first layout exported it here)

from .figures import FIGURES

__all__ = ["FIGURES", "STATS", "TorusGroup", "bsld_title", "format_torus_markdown", "format_torus_tables", "student_ci",
           "summarize_torus", "torus_figure"]

#: the row columns a group averages
STATS = ("mean_bounded_slowdown", "max_bounded_slowdown", "mean_wait", "mean_response", "utilized", "unused",
         "lost", "failures", "job_failures", "span")

@dataclass(frozen=True)
class TorusGroup:
    """The runs of one point and scheduler (module docstring). ``parameter``: the confidence of
    ``balancing``, the accuracy of ``tiebreak``, ``None`` for ``fcfs``; ``migration``: with or
    without; ``stats``: column of :data:`STATS` -> ``(mean, CI half-width)``; ``vs_fcfs``: the
    mean bounded slowdown over ``fcfs``'s (same migration) on the same traces, ``(mean ratio, CI
    half-width)``, ``None`` without fcfs runs; ``response_vs_fcfs``: the same for the mean
    response time."""

    source: str
    shape: str
    load_scale: float
    policy: str
    parameter: float | None
    failure_count: int
    failure_model: str | None
    downtime: float
    runs: int
    jobs: float
    stats: dict[str, tuple[float, float]] = field(default_factory=dict)
    vs_fcfs: tuple[float, float] | None = None
    migration: bool = True
    response_vs_fcfs: tuple[float, float] | None = None
    bsld: str = ""  # the bounded slowdown's definition (bsld_title), "" when the rows do not say

    @property
    def label(self) -> str:
        """``fcfs``, ``balancing a=0.1``, ``tiebreak a=0.9``; ``, no migration`` after a run
        without it."""
        name = self.policy if self.parameter is None else f"{self.policy} a={self.parameter:g}"
        return name if self.migration else f"{name}, no migration"

    def mean(self, stat: str) -> float:
        return self.stats[stat][0]

    def ci(self, stat: str) -> float:
        return self.stats[stat][1]

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in self.__dict__.items() if k not in ("stats", "vs_fcfs", "response_vs_fcfs")}
        for stat, (mu, half) in self.stats.items():
            d[stat] = _json(mu)
            d[stat + "_ci95"] = _json(half)
        for key in ("vs_fcfs", "response_vs_fcfs"):
            value = getattr(self, key)
            d[key] = None if value is None else [_json(x) for x in value]
        return d


def _json(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _parameter(r: dict[str, Any]) -> float | None:
    return r["confidence"] if r["policy"] == "balancing" else r["accuracy"] if r["policy"] == "tiebreak" else None


def _definition(r: dict[str, Any]) -> str:
    """The bounded slowdown a row holds, from the metrics in its details (:func:`bsld_title`)."""
    details = r.get("details")
    m = details.get("metrics", {}) if isinstance(details, dict) else {}
    if "bounded_slowdown_time" not in m:
        return ""
    return bsld_title(m.get("bounded_slowdown_rule", "max"), m["bounded_slowdown_time"], m.get("gamma", 10.0))


def _trace(r: dict[str, Any]) -> tuple[Any, ...]:
    """What fixes a run's failure trace, and the migration setting: the pairing of schedulers."""
    return (r["workload"], r["shape"], r["load_scale"], r["failure_count"], r["failure_model"], r["downtime"],
            r["seed_index"], bool(r.get("migration", True)))


def summarize_torus(rows: Iterable[dict[str, Any]]) -> list[TorusGroup]:
    """Groups of cells over their replicates (module docstring), sorted by source, shape, load
    scale, downtime, failure count and scheduler (fcfs, balancing, tiebreak; by parameter)."""
    rows = list(rows)
    fcfs = {_trace(r): r for r in rows if r["policy"] == "fcfs"}
    acc: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        acc[(r["source"], r["shape"], r["load_scale"], r["policy"], _parameter(r), r["failure_count"],
             r["failure_model"], r["downtime"], bool(r.get("migration", True)))].append(r)

    def paired(rs: list[dict[str, Any]], stat: str) -> tuple[float, float] | None:
        ratios = [r[stat] / fcfs[_trace(r)][stat] for r in rs
                  if _trace(r) in fcfs and fcfs[_trace(r)][stat] and r[stat] is not None]
        return student_ci(ratios) if ratios else None

    out = []
    for key, rs in acc.items():
        stats = {s: student_ci([r[s] for r in rs]) for s in STATS}
        vs = resp = None
        if fcfs and key[3] != "fcfs":
            vs, resp = paired(rs, "mean_bounded_slowdown"), paired(rs, "mean_response")
        src, shape, c, policy, a, K, model, D, mig = key
        out.append(TorusGroup(src, shape, c, policy, a, K, model, D, runs=len(rs),
                              jobs=math.fsum(r["jobs"] for r in rs) / len(rs), stats=stats, vs_fcfs=vs,
                              migration=mig, response_vs_fcfs=resp,
                              bsld="; ".join(sorted({_definition(r) for r in rs} - {""}))))
    order = {p: k for k, p in enumerate(("fcfs", "balancing", "tiebreak"))}
    out.sort(key=lambda g: (g.source, g.shape, g.load_scale, g.downtime, g.failure_count, not g.migration,
                            order.get(g.policy, 9), g.policy, -1.0 if g.parameter is None else g.parameter))
    return out


# ------------------------------------------------------------------------------------- tables


def _blocks(groups: Sequence[TorusGroup]) -> list[tuple[tuple[Any, ...], list[TorusGroup]]]:
    """The groups by ``(source, shape, load scale, downtime)``; a failure-free group belongs to
    every downtime of its source and load scale (a downtime changes nothing without failures)."""
    keys = list(dict.fromkeys((g.source, g.shape, g.load_scale, g.downtime) for g in groups if g.failure_count))
    keys += [k for k in dict.fromkeys((g.source, g.shape, g.load_scale, g.downtime) for g in groups)
             if not any(k[:3] == j[:3] for j in keys)]  # a source and load scale without failures
    return [(key, [g for g in groups if (g.source, g.shape, g.load_scale) == key[:3]
                   and (g.downtime == key[3] or not g.failure_count)]) for key in keys]


def _pm(mu: float, half: float, fmt: str) -> str:
    """``mu ± half`` (``mu`` alone without an interval, ``-`` without a number)."""
    if not math.isfinite(mu):
        return "-"
    return format(mu, fmt) + ("" if not math.isfinite(half) else " ± " + format(half, fmt.lstrip("+")))


def _by_count(gs: Sequence[TorusGroup], value: Callable[[TorusGroup], str]) -> tuple[list[str], list[list[str]]]:
    """One row per scheduler, one column per failure count."""
    counts = sorted({g.failure_count for g in gs})
    labels = list(dict.fromkeys(g.label for g in gs))
    cell = {(g.label, g.failure_count): g for g in gs}
    rows = [[lab] + ["-" if (lab, k) not in cell else value(cell[(lab, k)]) for k in counts] for lab in labels]
    return ["scheduler", *(f"K={k}" for k in counts)], rows


def _shown(stat: str, fmt: str) -> Callable[[TorusGroup], str]:
    """A group's ``stat`` as ``mean ± half-width``."""
    return lambda g: _pm(g.mean(stat), g.ci(stat), fmt)


def _pct(ratio: tuple[float, float] | None) -> str:
    """A paired ratio ``(mean, half-width)`` as a change in %."""
    mu, half = ratio or (math.nan, math.nan)
    return _pm(100 * (mu - 1), 100 * half, "+.1f")


def _tables(groups: Sequence[TorusGroup], bsld: str = "") -> list[tuple[str, list[str], list[list[str]]]]:
    """``(title, header, rows)`` of every table, block by block; ``bsld`` names the bounded
    slowdown's definition in the titles."""
    out: list[tuple[str, list[str], list[list[str]]]] = []
    several_d = len({g.downtime for g in groups if g.failure_count}) > 1
    for (src, shape, c, D), gs in _blocks(groups):
        runs = sorted({g.runs for g in gs if g.failure_count})
        jobs = sorted({g.jobs for g in gs})
        models = sorted({g.failure_model for g in gs if g.failure_model})
        head = (f"{src} on the torus {shape}, load scale c = {c:g}"
                + (f", downtime {D:g} s" if several_d or D else "")
                + f" ({'/'.join(f'{j:g}' for j in jobs)} jobs; K {'/'.join(models) or 'no'} failures; "
                + (f"{'/'.join(map(str, runs))} seeds; " if runs else "")
                + "mean ± 95 % CI half-width over the seeds, Student t)")
        out.append((f"{head}\nmean bounded slowdown{bsld}",
                    *_by_count(gs, _shown("mean_bounded_slowdown", ",.2f"))))
        paired = [g for g in gs if g.vs_fcfs is not None]
        if paired:
            out.append((("mean bounded slowdown vs fcfs (same migration) on the same failure traces (%, paired per "
                         "seed; negative: better)"), *_by_count(paired, lambda g: _pct(g.vs_fcfs))))
        out.append(("mean response time (s)", *_by_count(gs, _shown("mean_response", ",.0f"))))
        if paired:
            out.append((("mean response time vs fcfs (same migration) on the same failure traces (%, paired per "
                         "seed; negative: better)"), *_by_count(paired, lambda g: _pct(g.response_vs_fcfs))))
        for stat, title, fmt in (("mean_wait", "mean wait (s)", ",.0f"),
                                 ("max_bounded_slowdown", "max bounded slowdown", ",.1f")):
            out.append((title, *_by_count(gs, _shown(stat, fmt))))
        rows = [[g.label, str(g.failure_count), str(g.runs)]
                + [_pm(g.mean(s), g.ci(s), ".4f") for s in ("utilized", "unused", "lost")]
                + [_pm(g.mean(s), math.nan, ",.1f") for s in ("failures", "job_failures")] for g in gs]
        rows.sort(key=lambda r: int(r[1]))
        out.append(("capacity utilized / unused / lost (fractions of T·N), failures applied and hitting a job per run",
                    ["scheduler", "K", "runs", "utilized", "unused", "lost", "failures", "hit a job"], rows))
    return out


def bsld_title(rule: str = "max", time: str = "run", gamma: float = 10.0) -> str:
    """The bounded slowdown's definition, as the tables' titles name it:
    ``max(t^r, 10 s) / max(run time, 10 s)``."""
    t = "run time" if time == "run" else "request"
    return f"max(t^r, {gamma:g} s) / {rule}({t}, {gamma:g} s)"


def _render(groups: Sequence[TorusGroup], markdown: bool) -> str:
    if not groups:
        return "(no completed cell)"
    bsld = "; ".join(sorted({g.bsld for g in groups if g.bsld}))
    return render_tables(_tables(groups, f", {bsld}" if bsld else ""), markdown)


def format_torus_tables(groups: Sequence[TorusGroup]) -> str:
    """The summary tables as text: per source, shape, load scale (and downtime), each scheduler's
    (rows) mean bounded slowdown at each failure count (columns) and its change against fcfs's on
    the same traces, the mean response time and its change, the mean wait and the maximum bounded
    slowdown, then the capacity utilized, unused and lost with the failures per run. The first
    title of a block names the bounded slowdown's definition (:func:`bsld_title`)."""
    return _render(groups, markdown=False)


def format_torus_markdown(groups: Sequence[TorusGroup]) -> str:
    """The same tables as :func:`format_torus_tables`, as Markdown."""
    return _render(groups, markdown=True)


# ------------------------------------------------------------------------------------ figures

#: ``coschedule report --figure`` of a torus campaign: name -> (what it draws, the paper's figures)
_PARTS = (("utilized", "#4c9a2a"), ("unused", "#e6b800"), ("lost", "#d62728"))
_STYLES = ("-", "--", ":", "-.")


def default_figure(groups: Sequence[TorusGroup]) -> str:
    """The figure a campaign's grid calls for: bounded slowdown vs the failure count when there
    are several, else vs the confidence or the accuracy that has several values."""
    if len({g.failure_count for g in groups}) > 1:
        return "slowdown-failures"
    for policy, name in (("balancing", "slowdown-confidence"), ("tiebreak", "slowdown-accuracy")):
        if len({g.parameter for g in groups if g.policy == policy}) > 1:
            return name
    return "slowdown-failures"


def torus_figure(rows: Sequence[dict[str, Any]], title: str | None = None, *, kind: str | None = None,
                 **_: Any) -> Any:
    """``coschedule report --plot`` of a torus campaign: the figure ``kind`` of :data:`FIGURES`
    (default: :func:`default_figure`), means over the seeds with their 95 % confidence intervals
    as bands."""
    groups = summarize_torus(rows)
    kind = kind or default_figure(groups)
    if kind not in FIGURES:
        raise CampaignError(f"unknown figure {kind!r} for a torus campaign; valid: {', '.join(FIGURES)}")
    what, x = kind.split("-")
    if x == "failures":
        if len({g.failure_count for g in groups}) < 2:
            raise CampaignError(f"--figure {kind} needs two failure counts or more; the database has "
                                f"{sorted({g.failure_count for g in groups})}")
        return _failures_figure(groups, what, title)
    policy = "balancing" if x == "confidence" else "tiebreak"
    if not any(g.policy == policy for g in groups):
        raise CampaignError(f"--figure {kind} draws {policy} runs; the database has "
                            f"{', '.join(sorted({g.policy for g in groups}))}")
    return _parameter_figure(groups, policy, x, what, title)


def _grid(n: int, cols: int) -> tuple[int, int]:
    cols = max(1, min(cols, n))
    return -(-n // cols), cols


def _band(ax: Any, xs: Sequence[float], mus: Sequence[float], halves: Sequence[float], *,
          low: float = 0.0, high: float = math.inf, **style: Any) -> None:
    """A line with markers and, where the interval is known, its band (clipped to ``[low,
    high]``, the values the quantity can take)."""
    line = ax.plot(xs, mus, marker="o", ms=3.5, **style)[0]
    ok = [k for k, h in enumerate(halves) if math.isfinite(h) and math.isfinite(mus[k])]
    if ok:
        ax.fill_between([xs[k] for k in ok], [max(low, mus[k] - halves[k]) for k in ok],
                        [min(high, mus[k] + halves[k]) for k in ok], color=line.get_color(), alpha=0.12, lw=0)


def _slowdowns(groups: Sequence[TorusGroup]) -> list[float]:
    return [m for g in groups if math.isfinite(m := g.mean("mean_bounded_slowdown")) and m > 0]


def _floor(groups: Sequence[TorusGroup]) -> float:
    """Where a slowdown band is clipped below: 1 (a bounded slowdown is at least 1), or a tenth
    of the least mean on a log axis if that is lower."""
    ms = _slowdowns(groups)
    return min(1.0, min(ms) / 10) if ms and max(ms) > 100 * min(ms) else 1.0


def _log_if_wide(ax: Any, groups: Sequence[TorusGroup]) -> None:
    """A log scale when the mean slowdowns span more than two decades (saturated queues next to
    failure-free runs), so that the small values stay readable."""
    ms = _slowdowns(groups)
    if ms and max(ms) > 100 * min(ms):
        ax.set_yscale("log")
        ax.set_ylim(bottom=_floor(groups) * 5)


def _seeds_note(groups: Sequence[TorusGroup]) -> str:
    runs = sorted({g.runs for g in groups if g.failure_count})
    if not runs:
        return "one run per point"
    return (f"means over {'/'.join(map(str, runs))} failure seeds; bands: 95 % confidence intervals (Student t)"
            if max(runs) > 1 else "one failure seed per point")


def _scheduler_colour(label: str, labels: Sequence[str]) -> Any:
    from matplotlib import colormaps

    moved = not label.endswith("no migration")  # the paper's system: the darker, warmer families
    if label.startswith("fcfs"):
        return "0.15" if moved else "0.6"
    policy = label.split()[0]
    family = [lab for lab in labels if lab.split()[0] == policy and lab.endswith("no migration") != moved]
    families = {("balancing", True): "Blues", ("balancing", False): "Greens", ("tiebreak", True): "Oranges",
                ("tiebreak", False): "Purples"}
    if (policy, moved) not in families:  # a user's policy: a colour of its own among the other hues
        users = sorted({lab for lab in labels if lab.split()[0] not in ("fcfs", "balancing", "tiebreak")})
        return colormaps["tab10"]((3 + users.index(label)) % 10)
    cmap = colormaps[families[(policy, moved)]]
    k = family.index(label)
    return cmap(0.45 + 0.5 * (k / max(1, len(family) - 1)))


def _failures_figure(groups: Sequence[TorusGroup], what: str, title: str | None) -> Any:
    from coschedule.plot.figure import new_figure

    points = list(dict.fromkeys((g.source, g.shape, g.downtime) for g in groups if g.failure_count))
    scales = sorted({g.load_scale for g in groups})
    labels = list(dict.fromkeys(g.label for g in groups))

    def series(src: str, shape: str, D: float, c: float, label: str) -> list[TorusGroup]:
        return sorted((g for g in groups if (g.source, g.shape, g.load_scale, g.label) == (src, shape, c, label)
                       and (g.downtime == D or not g.failure_count)), key=lambda g: g.failure_count)

    if what == "slowdown":
        nrows, ncols = _grid(len(points), 2)
        fig = new_figure(figsize=(6.4 * ncols, 4.2 * nrows))
        for k, (src, shape, D) in enumerate(points):
            ax = fig.add_subplot(nrows, ncols, k + 1)
            for label in labels:
                for j, c in enumerate(scales):
                    gs = series(src, shape, D, c, label)
                    if not gs:
                        continue
                    name = "fcfs (a = 0)" if label == "fcfs" else label.replace("a=", "a = ")
                    _band(ax, [g.failure_count for g in gs], [g.mean("mean_bounded_slowdown") for g in gs],
                          [g.ci("mean_bounded_slowdown") for g in gs], color=_scheduler_colour(label, labels),
                          ls=_STYLES[j % len(_STYLES)], label=name + (f", c = {c:g}" if len(scales) > 1 else ""),
                          low=_floor(groups))
            _log_if_wide(ax, groups)
            ax.set_xlabel("failures over the log's period")
            ax.set_ylabel("mean bounded slowdown")
            ax.set_title(f"{src} on {shape}" + (f", downtime {D:g} s" if D else ""), fontsize=9)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
        default = "Bounded slowdown vs failures ([Oliner2004] Figs. 3-4)"
    else:
        panels = [(src, shape, D, label, c) for src, shape, D in points for label in labels for c in scales
                  if series(src, shape, D, c, label)]
        nrows, ncols = _grid(len(panels), len(scales) if len(scales) > 1 else 3)
        fig = new_figure(figsize=(5.2 * ncols, 3.4 * nrows))
        for k, (src, shape, D, label, c) in enumerate(panels):
            ax = fig.add_subplot(nrows, ncols, k + 1)
            gs = series(src, shape, D, c, label)
            for part, colour in _PARTS:
                _band(ax, [g.failure_count for g in gs], [g.mean(part) for g in gs], [g.ci(part) for g in gs],
                      high=1.0, color=colour, label=part)
            ax.set_ylim(0, 1)
            ax.set_xlabel("failures over the log's period")
            ax.set_ylabel("fraction of capacity")
            ax.set_title(f"{src}, {label}, c = {c:g}" + (f", D {D:g} s" if D else ""), fontsize=9)
            ax.grid(alpha=0.3)
            if k == 0:
                ax.legend(fontsize=7)
        default = "Capacity utilized / unused / lost vs failures ([Oliner2004] Fig. 5)"
    return _finish(fig, title or default, groups)


def _parameter_figure(groups: Sequence[TorusGroup], policy: str, x: str, what: str, title: str | None) -> Any:
    """``what`` (slowdown or utilization) of ``policy`` vs its parameter; fcfs runs stand for
    ``a = 0`` where the policy has none (at ``a = 0`` both predictors change nothing)."""
    from coschedule.plot.figure import new_figure

    points = list(dict.fromkeys((g.source, g.shape, g.failure_count, g.downtime) for g in groups
                                if g.policy == policy))
    moves = sorted({g.migration for g in groups if g.policy == policy}, reverse=True)
    scales = [(c, m) for c in sorted({g.load_scale for g in groups if g.policy == policy}) for m in moves]

    def line(c: float, m: bool) -> str:
        return f"c = {c:g}" + ("" if len(moves) == 1 else ", migration" if m else ", no migration")

    def series(point: tuple[Any, ...], cm: tuple[float, bool]) -> list[tuple[float, TorusGroup]]:
        key = (*point, *cm)
        own = {g.parameter: g for g in groups if g.policy == policy
               and (g.source, g.shape, g.failure_count, g.downtime, g.load_scale, g.migration) == key}
        fcfs = [g for g in groups if g.policy == "fcfs"
                and (g.source, g.shape, g.failure_count, g.downtime, g.load_scale, g.migration) == key]
        if fcfs and 0.0 not in own:
            own[0.0] = fcfs[0]
        return sorted((float(a), g) for a, g in own.items() if a is not None)

    def heading(point: tuple[Any, ...]) -> str:
        src, shape, K, D = point
        return f"{src} on {shape}, {K} failures" + (f", D {D:g} s" if D else "")

    name = "balancing" if policy == "balancing" else "tie-breaking"
    if what == "slowdown":
        nrows, ncols = _grid(len(points), 3)
        fig = new_figure(figsize=(5.2 * ncols, 3.8 * nrows))
        for k, point in enumerate(points):
            ax = fig.add_subplot(nrows, ncols, k + 1)
            for j, (c, m) in enumerate(scales):
                s = series(point, (c, m))
                _band(ax, [a for a, _ in s], [g.mean("mean_bounded_slowdown") for _, g in s],
                      [g.ci("mean_bounded_slowdown") for _, g in s], color=f"C{j}",
                      ls=_STYLES[j % len(moves)], label=line(c, m), low=1.0)
            ax.set_xlabel(f"{x} a" + (" (a = 0: fcfs)" if any(g.policy == "fcfs" for g in groups) else ""))
            ax.set_ylabel("mean bounded slowdown")
            ax.set_title(heading(point), fontsize=9)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7)
        default = f"{name.capitalize()}: bounded slowdown vs {x} ([Oliner2004] Fig. {6 if x == 'confidence' else 9})"
    else:
        panels = [(p, c) for p in points for c in scales if series(p, c)]
        nrows, ncols = _grid(len(panels), len(scales))
        fig = new_figure(figsize=(5.2 * ncols, 3.4 * nrows))
        for k, (point, c) in enumerate(panels):
            ax = fig.add_subplot(nrows, ncols, k + 1)
            s = series(point, c)
            for part, colour in _PARTS:
                _band(ax, [a for a, _ in s], [g.mean(part) for _, g in s], [g.ci(part) for _, g in s],
                      high=1.0, color=colour, label=part)
            ax.set_ylim(0, 1)
            ax.set_xlabel(f"{x} a")
            ax.set_ylabel("fraction of capacity")
            ax.set_title(f"{heading(point)}, {line(*c)}", fontsize=9)
            ax.grid(alpha=0.3)
            if k == 0:
                ax.legend(fontsize=7)
        figs = "Figs. 7-8" if x == "confidence" else "Fig. 10"
        default = f"{name.capitalize()}: capacity utilized / unused / lost vs {x} ([Oliner2004] {figs})"
    return _finish(fig, title or default, groups)


def _finish(fig: Any, title: str, groups: Sequence[TorusGroup]) -> Any:
    bsld = "; ".join(sorted({g.bsld for g in groups if g.bsld}))
    note = _seeds_note(groups) + (f"\nbounded slowdown {bsld}" if bsld and "slowdown" in title.lower() else "")
    fig.suptitle(f"{title}\n{note}", fontsize=10)
    fig.tight_layout()
    # room for the suptitle's lines and the first row's titles, in inches (tight_layout alone
    # lets a tall figure's first titles run into it)
    fig.subplots_adjust(top=1 - (0.2 * (2 + note.count("\n")) + 0.4) / fig.get_figheight())
    return fig
