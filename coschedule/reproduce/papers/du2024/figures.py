"""[Du2024] §2, §6-7: the figures of the reproduction, Figs. 1, 3-13 and 19-21, from the batch report's
figures."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from coschedule.reproduce.paper import Figure
from coschedule.reproduce.results import Results

from .common import BASE, INTREPID, JUNE, MARCH, MIRA, STEAL, SWEEP, SYNTH, VARIANTS


def _rows(r: Results, campaign: str, *, sources: Sequence[str] | None = None, policies: Sequence[str] | None = None,
          failing: bool | None = None) -> list[dict[str, Any]]:
    """The rows of ``campaign`` of ``sources``, ``policies`` and with (``failing``) or without
    failures (all when ``None``)."""
    return [x for x in r.rows(campaign) if (sources is None or x["source"] in sources)
            and (policies is None or x["policy"] in policies)
            and (failing is None or (x["node_mtbf"] is not None) == failing)]


def _batch(campaign: str, kind: str, title: str, **select: Any) -> Callable[[Results], Any]:
    """A figure of the batch report (:func:`~coschedule.campaign.simulators.batch.report.batch_figure`)
    of the rows ``select`` keeps."""

    def draw(r: Results) -> Any:
        from coschedule.campaign.simulators.batch.report import batch_figure

        return batch_figure(_rows(r, campaign, **select), title=title, kind=kind)

    return draw


def _figure(key: str, title: str, campaign: str, kind: str, **select: Any) -> Figure:
    return Figure(key, title, (campaign,), _batch(campaign, kind, title, **select))


FIGURES = (
    _figure("fig1", "Fig. 1: Baseline's maximum and mean flow per job size, without (red) and with failures, Mira June "
            "2017 (ours: Mira-like)", STEAL, "flows", sources=(JUNE,), policies=(BASE,)),
    _figure("fig3", "Fig. 3: decomposition of platform usage with Baseline and SFSJ (MTBF = downtime = 1 h)", STEAL,
            "utilization", failing=True),
    _figure("fig4", "Fig. 4: Baseline's flows per job size, without (red) and with failures, Mira March 2018 (ours: "
            "Mira-like)", STEAL, "flows", sources=(MARCH,), policies=(BASE,)),
    _figure("fig5", "Fig. 5: Baseline's flows per job size, without (red) and with failures, Intrepid June 2013 "
            "(ours: Intrepid-like)", STEAL, "flows", sources=(INTREPID,), policies=(BASE,)),
    _figure("fig6", "Fig. 6: maximum and mean flow, SFSJ over Baseline per job size, Mira (ours: Mira-like)", STEAL,
            "ratios", sources=MIRA, failing=True),
    _figure("fig7", "Fig. 7: maximum and mean flow, SFSJ over Baseline per job size, Intrepid (ours: Intrepid-like)",
            STEAL, "ratios", sources=(INTREPID,), failing=True),
    _figure("fig8", "Fig. 8: maximum and mean flow per job size with failures, Baseline and SFSJ", STEAL, "flows"),
    _figure("fig9-11", "Figs. 9-11: SFSJ over Baseline as the MTBF and the downtime vary: useful utilization "
            "(Fig. 9), maximum flow of the largest jobs and weighted mean flow (Figs. 10-11)", SWEEP, "sweep",
            failing=True),
    _figure("fig12", "Fig. 12: Baseline's flows per job size, without (red) and with failures, synthetic workload "
            "(Table 6)", SYNTH, "flows", policies=(BASE,)),
    _figure("fig13", "Fig. 13: maximum and mean flow, SFSJ over Baseline per job size, synthetic workload (Table 6)",
            SYNTH, "ratios", failing=True),
    _figure("fig19", "Fig. 19: timing decisions (111 immediately, 211 proactive checkpoint, 311 next checkpoint) "
            "relative to Baseline, MTBF = downtime = 1 h", VARIANTS, "ratios", policies=(BASE, "h111", "h211", "h311"),
            failing=True),
    _figure("fig20", "Fig. 20: victim choices (111 fewest nodes, 121 latest release) relative to Baseline",
            VARIANTS, "ratios", policies=(BASE, "h111", "h121"), failing=True),
    _figure("fig21", "Fig. 21: interrupting criteria (111 fewer nodes, 112 later release, 113 estimated maximum "
            "flow) relative to Baseline", VARIANTS, "ratios", policies=(BASE, "h111", "h112", "h113"), failing=True),
)
