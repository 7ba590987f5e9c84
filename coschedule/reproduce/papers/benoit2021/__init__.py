"""[Benoit2021] §5: resilient scheduling heuristics for rigid parallel jobs, Figs. 4-8 and Table 1.

Every sentence of §5 that says something measurable is a claim; the reproduction page
(docs/reproduce.md) explains the settings, our choices and the differences. The metric is the
paper's: a scenario's makespan over its lower bound ``L(f)``, averaged over the scenarios of a
job set, then over the sets (the campaigns' summary groups, ``coschedule report``'s tables). A
claim comparing two heuristics on the same sets also computes the per-set ratio of their means,
whose 95 % Student-t interval over the sets is the half-width shown.

Two modelling choices move verdicts, and each has its own claims beside the default's:
R-List-1 and R-List-Q make a fresh reservation round at every completion (the §4.1 analysis), where
the authors' simulator keeps the old reservations (``kept``, ``benoit2021-fig6-kept`` and
``table1-lanl-kept``); R-ShelfFill re-runs only the job that just failed (Alg. 3), where a looser
reading lets any queued job fill a shelf (``refill = "queue"``, in ``fig4b-refill``). The Mira
logs of §5.4 are not available: Table 1 and Figs. 7-8 are computed on two SWF traces of the
Parallel Workloads Archive with the same protocol, and are not comparable.

The package has one module per concept: :mod:`.common` (the campaigns, the notes and the helpers
reading the groups), :mod:`.compare` (the computations Figs. 5 and 6 share), :mod:`.fig4`,
:mod:`.fig5`, :mod:`.fig6` and :mod:`.table1` (the claims of §5.2, §5.3 and §5.4, in that order),
:mod:`.figures`; this module assembles ``CLAIMS`` and ``FIGURES`` and defines ``PAPER``.
"""

from __future__ import annotations

from typing import Any

from coschedule.reproduce.paper import Campaign, Paper

from . import fig4, fig5, fig6, table1
from .common import FIG4A, FIG4B, FIG5, FIG6, KEPT, KEPT6, KTH, LANL, LANL_KEPT, TRACES
from .figures import FIGURES

__all__ = ["CLAIMS", "FIGURES", "PAPER"]

#: the claims of §5.2 (Fig. 4), §5.3 (Figs. 5 and 6) and §5.4 (Table 1, Figs. 7-8, the summary)
CLAIMS = fig4.CLAIMS + fig5.CLAIMS + fig6.CLAIMS + table1.CLAIMS


def _synthetic(sets: int) -> list[dict[str, Any]]:
    """The first ``sets`` of the 30 synthetic job sets of §5.1 (the same sets: same name and seed)."""
    return [{"kind": "synthetic", "sets": sets, "n": 100, "procs": [50, 2000], "times": [100, 20000], "P": 10000}]


def _days(days: int, *traces: str) -> list[dict[str, Any]]:
    """The first ``days`` day-sets of each bundled trace named."""
    files = {"KTH-SP2": "KTH-SP2-1996-2.1-cln.swf.gz", "LANL-CM5": "LANL-CM5-1994-4.1-cln.swf.gz"}
    return [{"kind": "swf", "name": t, "path": files[t], "days": days} for t in traces]


PAPER = Paper(
    key="benoit2021",
    cite="[Benoit2021]",
    title="Resilient Scheduling Heuristics for Rigid Parallel Jobs",
    section="§5",
    doc="reproduce",
    campaigns=(
        Campaign(FIG4A, {"scenarios": 50, "source": _synthetic(10)}),
        Campaign(FIG4B, {"scenarios": 50, "source": _synthetic(10)}),
        Campaign(FIG5, {"scenarios": 10, "qbar": [0.0, 0.1, 0.3, 0.5, 0.7, 0.8], "source": _synthetic(10)}),
        Campaign(KEPT, {"scenarios": 10, "qbar": [0.0, 0.3, 0.5], "source": _synthetic(6)}),
        Campaign(FIG6, {"scenarios": 10, "source": _synthetic(10)}),
        Campaign(KEPT6, {"scenarios": 5, "P": [5000, 10000, 15000, 20000], "source": _synthetic(4)}),
        Campaign(KTH, {"scenarios": 20}),
        Campaign(LANL, {"scenarios": 20}),
        Campaign(LANL_KEPT, {"scenarios": 5, "qbar": [0.1], "source": _days(8, "LANL-CM5")}),
        Campaign(TRACES, {"scenarios": 5, "source": _days(15, "KTH-SP2", "LANL-CM5")}),
    ),
    figures=FIGURES,
    claims=CLAIMS,
    full_wall="about 1 h 10 min (measured: 1 h 09 min)",
    quick_note="10 of the 30 synthetic sets (4 to 6 with kept reservations) and 5 to 50 scenarios per point instead of "
               "1000 (100 for the kept and Figs. 7-8 campaigns); Fig. 5 at 6 values of q̄, the kept campaigns at 1 to 4 "
               "points; on the traces, Table 1 with 20 scenarios and Figs. 7-8 on 15 days",
)
