"""[Benoit2021] §5: the figures of the reproduction, Figs. 4-6 (with the kept-reservation and refill
variants) and the Figs. 7-8 protocol on the two stand-in traces of §5.4."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coschedule.reproduce.paper import Figure
from coschedule.reproduce.results import Results

from .common import FIG4A, FIG4B, FIG5, FIG6, KEPT, KEPT6, SHELF4, TRACES


def _fig4(r: Results) -> Any:
    from coschedule.campaign.report import plot_side_by_side

    return plot_side_by_side([(None, r.groups(FIG4A)), (None, [g for g in r.groups(FIG4B) if g.heuristic in SHELF4])],
                             title="Fig. 4: shelf heuristics with LPT")


def _fig4_refill(r: Results) -> Any:
    from coschedule.campaign.report import plot_side_by_side

    keep = ("r-shelf-b", "r-shelffill-b", "r-shelffill-b-queue", "r-shelf-nb", "r-shelffill-nb",
            "r-shelffill-nb-queue")
    return plot_side_by_side([(None, [g for g in r.groups(FIG4B) if g.heuristic in keep])],
                             title="Fig. 4(b) with R-ShelfFill's refill = queue (not the paper's)")


def _panels(campaign: str, title: str, source: str | None = None, bands: bool = True) -> Callable[[Results], Any]:
    """Figs. 5 and 6's layout (a panel per heuristic, a line per priority, (f) the best
    priorities) of ``campaign`` (one ``source`` of a trace campaign)."""

    def draw(r: Results) -> Any:
        from coschedule.campaign.report import plot_groups

        return plot_groups([g for g in r.groups(campaign) if source is None or g.source == source], title=title,
                           bands=bands)

    return draw


FIGURES = (
    Figure("fig4", "Fig. 4: the shelf heuristics with LPT, (a) against q̄ (P = 10,000), (b) against P (q̄ = 0.3)",
           (FIG4A, FIG4B), _fig4),
    Figure("fig4b-refill", "Fig. 4(b) with R-ShelfFill's looser filling (refill = queue, not the paper's)", (FIG4B,),
           _fig4_refill),
    Figure("fig5", "Fig. 5: five heuristics and seven priorities against q̄ (P = 10,000)", (FIG5,),
           _panels(FIG5, "Fig. 5: against q̄, P = 10000")),
    Figure("fig5-kept", "Fig. 5 with the authors' kept reservations: R-List-1 and R-List-Q (kept) beside ours "
           "(LPT and LA)", (KEPT,), _panels(KEPT, "Fig. 5, fresh and kept reservations (LPT, LA), P = 10000")),
    Figure("fig6", "Fig. 6: five heuristics and seven priorities against P (q̄ = 0.3)", (FIG6,),
           _panels(FIG6, "Fig. 6: against P, q̄ = 0.3")),
    Figure("fig6-kept", "Fig. 6 with the authors' kept reservations: R-List-0, R-List-1 (kept), R-List-Q (kept)",
           (KEPT6,), _panels(KEPT6, "Fig. 6, kept reservations (LPT, LA), q̄ = 0.3")),
    Figure("fig7-8-kth", "Figs. 7-8 protocol on KTH-SP2 (stand-in for Mira): every heuristic and priority, the mean "
           "over the days", (TRACES,),
           _panels(TRACES, "Figs. 7-8 protocol on KTH-SP2 (Mira stand-in), mean over the days", "KTH-SP2",
                   bands=False)),
    Figure("fig7-8-lanl", "Figs. 7-8 protocol on LANL-CM5 (stand-in for Mira): every heuristic and priority, the mean "
           "over the days", (TRACES,),
           _panels(TRACES, "Figs. 7-8 protocol on LANL-CM5 (Mira stand-in), mean over the days", "LANL-CM5",
                   bands=False)),
)
