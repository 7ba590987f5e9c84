"""Summaries of a batch campaign's database: groups over the runs, text and Markdown tables.

A *group* is the set of cells that differ only by their seed index (and, for a synthetic source
of several sets, their workload): one source, one policy, one failure setting ``(node_mtbf,
downtime, checkpoint_cost, recovery_cost)``. Its numbers are means over its runs (and the
population standard deviation of the flows), from the cells' result columns and their
``metrics`` (:func:`coschedule.campaign.simulators.batch.adapter.batch_metrics`, the summary of
:mod:`coschedule.sim.metrics`): the flows (pruned as the campaign says), failures and restarts
per run, the flows per size class, and the utilization breakdown of the window.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from coschedule.campaign.report import _md_table
from coschedule.units import format_duration

from .figures import FIGURES

__all__ = ["BatchGroup", "batch_figure", "format_batch_markdown", "format_batch_tables", "summarize_batch"]


@dataclass(frozen=True)
class BatchGroup:
    """The runs of one source, policy and failure setting (``node_mtbf`` ``None``: failure-free)."""

    source: str
    policy: str
    node_mtbf: float | None
    downtime: float
    checkpoint_cost: float
    recovery_cost: float
    runs: int
    jobs: float
    jobs_kept: float  # after pruning: the jobs of the flow statistics
    prune: float | None  # the fraction dropped at each end (None: the runs differ)
    nodes: int | None
    mean_flow: float
    mean_flow_std: float
    weighted_flow: float
    weighted_flow_std: float
    max_flow: float
    max_flow_std: float
    mean_wait: float
    mean_slowdown: float
    failures: float
    restarts: float
    #: per size class: ``{"label", "jobs", "mean_flow", "weighted_flow", "max_flow"}``, means
    #: over the runs in which the class has jobs (``None``: in none)
    classes: tuple[dict[str, Any], ...] = ()
    #: part -> mean fraction of the window over the runs (useful, checkpoint, recovery, lost,
    #: downtime, idle), when the metrics have a utilization breakdown
    utilization: dict[str, float] | None = None
    #: means over the runs of how failures were met ([Du2024] Tables 5 and 9): ``failures_hit``,
    #: ``replaced`` (a free node), ``steals``, ``steals_cancelled``, ``waited``, and the shares
    #: ``idle_after`` (a node idle right after a failure), ``idle_before`` (just before its
    #: instant), ``idle_time`` (the share of time with a node idle: Table 5a's three readings)
    #: and ``spare`` (a node idle when it struck, Table 5b); ``None`` when the metrics do not
    #: have them
    reactions: dict[str, float] | None = None

    @property
    def setting(self) -> tuple[float | None, float, float, float]:
        return (self.node_mtbf, self.downtime, self.checkpoint_cost, self.recovery_cost)

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["classes"] = list(self.classes)
        return d


def _mean(xs: Sequence[float | None]) -> float:
    """The mean of the numbers of ``xs`` (``None``: a statistic the run does not have); NaN when
    there is none."""
    got = [x for x in xs if x is not None]
    return math.fsum(got) / len(got) if got else math.nan


def _std(xs: Sequence[float]) -> float:
    mu = _mean(xs)
    return math.sqrt(math.fsum((x - mu) ** 2 for x in xs) / len(xs))


def _classes(rows: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    acc: dict[tuple[int, int, bool, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        for c in r["metrics"].get("classes") or ():
            acc[(c["low"], c["high"], c["closed"], c["label"])].append(c)
    return tuple({"label": k[3], "jobs": _mean([c["count"] for c in cs]), "mean_flow": _mean([c["mean"] for c in cs]),
                  "weighted_flow": _mean([c["weighted_mean"] for c in cs]), "max_flow": _mean([c["max"] for c in cs])}
                 for k, cs in sorted(acc.items()))


def _utilization(rows: Sequence[dict[str, Any]]) -> dict[str, float] | None:
    tables = [(r["metrics"].get("utilization") or {}).get("fractions") for r in rows]
    if not tables or not all(isinstance(t, dict) for t in tables):
        return None
    return {k: _mean([t.get(k) for t in tables]) for k in tables[0]} or None  # type: ignore[union-attr]


_REACTIONS = (("failures_hit", "failures_hit"), ("replaced", "replaced"), ("steals", "steals"),
              ("steals_cancelled", "steals_cancelled"), ("waited", "waited"),
              ("idle_after", "idle_after_failure_share"), ("idle_before", "idle_before_failure_share"),
              ("idle_time", "idle_time_share"), ("spare", "spare_at_failure_share"))


def _reactions(rows: Sequence[dict[str, Any]]) -> dict[str, float] | None:
    us = [r["metrics"].get("utilization") or {} for r in rows]
    if not us or not all("steals" in u for u in us):
        return None
    return {name: _mean([u.get(key) for u in us]) for name, key in _REACTIONS}


def summarize_batch(rows: Iterable[dict[str, Any]]) -> list[BatchGroup]:
    """Groups of cells over their runs (module docstring), sorted by source, failure setting
    (failure-free first) and policy."""
    acc: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        acc[(r["source"], r["policy"], r["node_mtbf"], r["downtime"], r["checkpoint_cost"], r["recovery_cost"])].append(r)
    out = []
    for (src, pol, m, D, C, R), rs in acc.items():
        nodes = {r["nodes"] for r in rs}
        prune = {r["metrics"].get("prune") for r in rs}
        stats = {}
        for col in ("mean_flow", "weighted_flow", "max_flow"):
            xs = [r[col] for r in rs if r[col] is not None]
            stats[col], stats[col + "_std"] = (_mean(xs), _std(xs)) if xs else (math.nan, math.nan)
        out.append(BatchGroup(src, pol, m, D, C, R, len(rs), _mean([r["jobs"] for r in rs]),
                              _mean([r["metrics"].get("jobs_kept") for r in rs]),
                              prune.pop() if len(prune) == 1 else None, nodes.pop() if len(nodes) == 1 else None,
                              **stats,
                              mean_wait=_mean([r["mean_wait"] for r in rs]),
                              mean_slowdown=_mean([r["mean_slowdown"] for r in rs]),
                              failures=_mean([r["failures"] for r in rs]), restarts=_mean([r["restarts"] for r in rs]),
                              classes=_classes(rs),
                              utilization=_utilization(rs), reactions=_reactions(rs)))
    out.sort(key=lambda g: (g.source, -1.0 if g.node_mtbf is None else g.node_mtbf, g.downtime, g.checkpoint_cost,
                            g.recovery_cost, g.policy))
    return out


# ------------------------------------------------------------------------------------- tables

SETTING_HEADER = ("node_mtbf", "downtime", "C", "R", "runs")


def _setting_cells(g: BatchGroup) -> list[str]:
    """The failure setting as a person reads it: durations in their unit (``5.61 y``, ``1 h``)."""
    if g.node_mtbf is None:
        return ["none", "-", "-", "-", str(g.runs)]
    return [format_duration(g.node_mtbf), format_duration(g.downtime), format_duration(g.checkpoint_cost),
            format_duration(g.recovery_cost), str(g.runs)]


def _flow(x: float) -> str:
    return f"{x:,.0f}" if math.isfinite(x) else "-"


def _by_setting(settings: Sequence[Any], policies: Sequence[str], cell: dict[tuple[Any, str], BatchGroup],
                value: Callable[[BatchGroup], str]) -> list[list[str]]:
    """One row per failure setting: the setting, then ``value`` of each policy's group."""
    rows = []
    for s in settings:
        row = [cell.get((s, p)) for p in policies]
        first = next(g for g in row if g is not None)
        rows.append(_setting_cells(first) + ["-" if g is None else value(g) for g in row])
    return rows


def _tables(groups: Sequence[BatchGroup]) -> list[tuple[str, list[str], list[list[str]]]]:
    """``(title, header, rows)`` of every table, source by source."""
    out: list[tuple[str, list[str], list[list[str]]]] = []
    for src in dict.fromkeys(g.source for g in groups):
        gs = [g for g in groups if g.source == src]
        policies = list(dict.fromkeys(g.policy for g in gs))
        settings = list(dict.fromkeys(g.setting for g in gs))
        cell = {(g.setting, g.policy): g for g in gs}
        jobs = {(g.jobs, g.jobs_kept) for g in gs}
        nodes = {g.nodes for g in gs}
        prunes = {g.prune for g in gs}
        size = f"{next(iter(jobs))[0]:g} jobs" if len(jobs) == 1 else "jobs vary"
        size += f" on {nodes.pop()} nodes" if len(nodes) == 1 and None not in nodes else ""
        prune = prunes.pop() if len(prunes) == 1 else None
        if len(jobs) == 1 and prune:
            size += f"; flows of the {next(iter(jobs))[1]:g} kept, the first and last {100 * prune:g} % dropped"
        head = f"{src} ({size}): each number is a mean over the runs (seeds)"

        for title, value in (
            (f"{head}\nmean flow (s), ± std over the runs", lambda g: f"{_flow(g.mean_flow)} ± {_flow(g.mean_flow_std)}"),
            ("weighted mean flow (s; weights: the jobs' nodes), ± std over the runs",
             lambda g: f"{_flow(g.weighted_flow)} ± {_flow(g.weighted_flow_std)}"),
            ("max flow (s), ± std over the runs", lambda g: f"{_flow(g.max_flow)} ± {_flow(g.max_flow_std)}"),
            ("mean wait (s) / mean bounded slowdown", lambda g: f"{_flow(g.mean_wait)} / {g.mean_slowdown:.2f}"),
            ("failures / restarts per run", lambda g: f"{g.failures:.1f} / {g.restarts:.1f}"),
        ):
            out.append((title, [*SETTING_HEADER, *policies], _by_setting(settings, policies, cell, value)))
        for s in settings:
            row = [cell.get((s, p)) for p in policies]
            present = [g for g in row if g is not None]
            if not any(g.classes for g in present):
                continue
            first = present[0]
            label = "failure-free" if first.node_mtbf is None else (
                f"node_mtbf {format_duration(first.node_mtbf)}, downtime {format_duration(first.downtime)}, "
                f"C {format_duration(first.checkpoint_cost)}, R {format_duration(first.recovery_cost)}")
            labels = list(dict.fromkeys(c["label"] for g in present for c in g.classes))
            by = {(g.policy, c["label"]): c for g in present for c in g.classes}
            rows = []
            for label_ in labels:
                jobs_ = next(by[(g.policy, label_)]["jobs"] for g in present if (g.policy, label_) in by)
                vals = []
                for stat in ("mean_flow", "max_flow"):
                    vals += ["-" if (p, label_) not in by else _flow(by[(p, label_)][stat]) for p in policies]
                rows.append([label_, f"{jobs_:g}", *vals])
            out.append((f"flow per size class (nodes), {label}",
                        ["nodes", "jobs", *(f"mean {p}" for p in policies), *(f"max {p}" for p in policies)], rows))
        met = [g for g in gs if g.reactions and g.node_mtbf is not None]
        if any((g.reactions or {}).get("steals") for g in met):
            rows = [_setting_cells(g)[:4] + [g.policy] + [
                f"{(g.reactions or {})[k]:.1f}" for k in ("failures_hit", "replaced", "steals", "steals_cancelled",
                                                            "waited")] + [
                f"{100 * (g.reactions or {})[k]:.2f}" for k in ("idle_time", "idle_before", "idle_after", "spare")]
                for g in met]
            out.append(("how failures were met, per run (Tables 5, 9): failures that hit a job; a free node "
                        "replaced the failed one; node stealing (done, cancelled); waited in the queue; % of "
                        "the time with a node idle (5a, read as Table 8's 'idle perc.'), % of failures with a "
                        "node idle just before and right after their instant (5a's other readings) and when "
                        "they struck (5b)",
                        [*SETTING_HEADER[:4], "policy", "hit", "free node", "steals", "cancelled", "waited",
                         "idle time %", "idle before %", "idle after %", "idle at %"], rows))
        util = [g for g in gs if g.utilization]
        if util:
            keys = list(dict.fromkeys(k for g in util for k in g.utilization or {}))
            # node stealing's parts only when some policy has them
            keys = [k for k in keys if k not in ("stealing", "held")
                    or any((g.utilization or {}).get(k) for g in util)]
            rows = [_setting_cells(g)[:4] + [g.policy] + [f"{100 * (g.utilization or {}).get(k, math.nan):.2f}"
                                                          for k in keys]
                    for g in util]
            out.append(("utilization: % of the window's node-seconds",
                        [*SETTING_HEADER[:4], "policy", *keys], rows))
    return out


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(c) for c in col) for col in zip(header, *rows)]
    return ["  ".join(c.rjust(w) for c, w in zip(line, widths)) for line in (header, *rows)]


def _render(groups: Sequence[BatchGroup], markdown: bool) -> str:
    if not groups:
        return "(no completed cell)"
    out: list[str] = []
    for title, header, rows in _tables(groups):
        *head, caption = title.split("\n")
        for line in head:  # a source's first table: its heading
            out += [f"**{line}**", ""] if markdown else [f"== {line} =="]
        out += [caption, ""] if markdown else ["", caption]
        out += [*_md_table(header, rows), ""] if markdown else _text_table(header, rows)
    return "\n".join(out)


def format_batch_tables(groups: Sequence[BatchGroup]) -> str:
    """The summary tables as text: per source, the mean, weighted mean and maximum flow of every
    policy (columns) under every failure setting (rows), failures and restarts, the flows per
    size class, and the utilization breakdown when the metrics have one."""
    return _render(groups, markdown=False)


def format_batch_markdown(groups: Sequence[BatchGroup]) -> str:
    """The same tables as :func:`format_batch_tables`, as Markdown."""
    return _render(groups, markdown=True)


def batch_figure(rows: Sequence[dict[str, Any]], title: str | None = None, *, kind: str = "flows",
                 baseline: str = "conservative") -> Any:
    """``coschedule report --plot`` of a batch campaign, by ``kind``:

    * ``flows``: per source and policy, the flows per size class over the failure seeds (box
      plots) with the failure-free run (red dots), as [Du2024] Figs. 1, 4 and 5
      (:func:`coschedule.plot.plot_flow_classes_rows`). Each source needs one failure setting
      (filter with ``--node-mtbf``, or run one per spec).
    * ``ratios``: per source, each policy's flows over ``baseline``'s per size class, one ratio
      per failure seed (the two runs of a seed share its failures), as Figs. 6-7, 13, 19-21
      (:func:`coschedule.plot.plot_flow_ratios`); one failure setting per source.
    * ``utilization``: the utilization breakdown of every source, policy and failure setting
      (means over the seeds), as Fig. 3 (:func:`coschedule.plot.plot_utilization_parts`).
    * ``sweep``: per source, one policy over ``baseline`` as the platform MTBF varies, one line
      per downtime: useful utilization, maximum flow of the largest size class, weighted mean
      flow (means over the seeds), as Figs. 9-11 (:func:`coschedule.plot.plot_sweep`).
    """
    from coschedule.campaign.sources import CampaignError

    if kind not in FIGURES:
        raise CampaignError(f"unknown figure {kind!r}; valid: {', '.join(FIGURES)}")
    if kind == "flows":
        return _flows_figure(rows, title)
    failing = [r for r in rows if r["node_mtbf"] is not None]
    if not failing:
        raise CampaignError(f"--figure {kind} needs runs with failures")
    if kind == "utilization":
        from coschedule.plot.batch import plot_utilization_parts

        groups = [g for g in summarize_batch(failing) if g.utilization]
        many = len({g.setting for g in groups}) > 1
        bars = [(f"{g.source}, {g.policy}" + (f" (node MTBF {format_duration(g.node_mtbf)}, D "
                                              f"{format_duration(g.downtime)})" if many else ""),
                 g.utilization or {}) for g in groups]
        return plot_utilization_parts(bars, title=title)
    policies = list(dict.fromkeys(r["policy"] for r in failing))
    if baseline not in policies:
        raise CampaignError(f"--figure {kind} compares with --baseline {baseline}, which has no run here "
                            f"(policies: {', '.join(policies)})")
    others = [p for p in policies if p != baseline]
    if not others:
        raise CampaignError(f"--figure {kind} needs a policy besides {baseline}")
    if kind == "ratios":
        return _ratios_figure(failing, baseline, others, title)
    if len(others) > 1:
        raise CampaignError(f"--figure sweep draws one policy against {baseline}; choose one with --policy "
                            f"(here: {', '.join(others)})")
    return _sweep_figure(failing, baseline, others[0], title)


def _flows_figure(rows: Sequence[dict[str, Any]], title: str | None) -> Any:
    from coschedule.campaign.sources import CampaignError
    from coschedule.plot.batch import plot_flow_classes_rows

    acc: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        acc[(r["source"], r["policy"])].append(r)
    panels = []
    for (src, pol), rs in sorted(acc.items()):
        free = [r for r in rs if r["node_mtbf"] is None]
        failing = [r for r in rs if r["node_mtbf"] is not None]
        settings = {(r["node_mtbf"], r["downtime"], r["checkpoint_cost"], r["recovery_cost"]) for r in failing}
        if len(settings) > 1:
            raise CampaignError(f"--plot draws one failure setting per source; {src} has {len(settings)}: "
                                "choose one with --node-mtbf")
        heading = f"{src}, {pol}"
        panels.append((heading, free[0]["metrics"] if free else None,
                       [r["metrics"] for r in sorted(failing, key=lambda r: r["id"])]))
    return plot_flow_classes_rows(panels, title=title)


def _class_values(m: dict[str, Any], which: str) -> dict[str, float | None]:
    """Per class label, then ``all`` (and ``weighted`` for the mean), a run's flow statistic."""
    out: dict[str, float | None] = {c["label"]: c.get(which) for c in m["classes"]}
    out["all"] = m["flow"].get(which)
    if which == "mean":
        out["weighted"] = m["flow"].get("weighted_mean")
    return out


def _ratio(a: float | None, b: float | None) -> float:
    return a / b if a is not None and b is not None and b > 0 else math.nan


def _ratios_figure(failing: Sequence[dict[str, Any]], baseline: str, others: Sequence[str], title: str | None) -> Any:
    from coschedule.campaign.sources import CampaignError
    from coschedule.plot.batch import plot_flow_ratios

    panels = []
    for src in dict.fromkeys(r["source"] for r in failing):
        rs = [r for r in failing if r["source"] == src]
        settings = {(r["node_mtbf"], r["downtime"], r["checkpoint_cost"], r["recovery_cost"]) for r in rs}
        if len(settings) > 1:
            raise CampaignError(f"--figure ratios draws one failure setting per source; {src} has {len(settings)}: "
                                "choose one with --node-mtbf")
        by = {(r["policy"], r["seed_index"]): r["metrics"] for r in rs}
        base = {k[1]: m for k, m in by.items() if k[0] == baseline}
        labels = [c["label"] for c in next(iter(base.values()))["classes"]]
        max_r: dict[str, list[list[float]]] = {}
        mean_r: dict[str, list[list[float]]] = {}
        for pol in others:
            seeds = sorted(k[1] for k in by if k[0] == pol and k[1] in base)
            for which, out, names in (("max", max_r, labels + ["all"]), ("mean", mean_r, labels + ["all", "weighted"])):
                cols = []
                for name in names:
                    cols.append([_ratio(_class_values(by[(pol, k)], which).get(name),
                                        _class_values(base[k], which).get(name)) for k in seeds])
                out[pol] = cols
        panels.append((src, labels, max_r, mean_r))
    return plot_flow_ratios(panels, baseline=baseline, title=title)


def _sweep_figure(failing: Sequence[dict[str, Any]], baseline: str, policy: str, title: str | None) -> Any:
    from coschedule.plot.batch import plot_sweep

    groups = summarize_batch(failing)
    panels = []
    for src in dict.fromkeys(g.source for g in groups):
        cell = {(g.setting, g.policy): g for g in groups if g.source == src}
        lines: dict[float, list[tuple[float, float, float, float]]] = defaultdict(list)
        for setting in dict.fromkeys(s for s, _ in cell):
            b, p = cell.get((setting, baseline)), cell.get((setting, policy))
            if b is None or p is None or not b.nodes:
                continue
            largest = [c for c in b.classes if c["max_flow"] is not None and math.isfinite(c["max_flow"])]
            top = largest[-1]["label"] if largest else None
            pmax = next((c["max_flow"] for c in p.classes if c["label"] == top), None)
            util = _ratio((p.utilization or {}).get("useful"), (b.utilization or {}).get("useful"))
            lines[setting[1]].append((float(setting[0]) / b.nodes, util,
                                      _ratio(pmax, largest[-1]["max_flow"] if largest else None),
                                      _ratio(p.weighted_flow, b.weighted_flow)))
        if lines:
            panels.append((src, dict(lines)))
    return plot_sweep(panels, baseline=baseline, policy=policy, title=title)
