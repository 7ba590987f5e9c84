"""[Oliner2004] §7: the figures of the reproduction, Figs. 3-5 (KTH-SP2 for SDSC), Figs. 6-8
(Balancing) and Figs. 9-10 (Tie-breaking), from the torus report's figures."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coschedule.reproduce.paper import Figure
from coschedule.reproduce.results import Results

from .common import ACCS, C0, FAIL, LUBLIN, NASA, PRED, _acc_rows, _conf_rows


def _figure(rows: Callable[[Results], list[dict[str, Any]]], kind: str, title: str,
            keep: Callable[[dict[str, Any]], bool] = lambda _: True) -> Callable[[Results], Any]:
    def draw(r: Results) -> Any:
        from coschedule.campaign.simulators.torus.report import torus_figure

        note = " (quick: slices of the logs, failures scaled to them)" if r.quick else ""
        return torus_figure([x for x in rows(r) if x.get("migration", True) and keep(x)], title=title + note,
                            kind=kind)

    return draw


def _rows(campaign: str) -> Callable[[Results], list[dict[str, Any]]]:
    return lambda r: r.rows(campaign)


def _is(**want: Any) -> Callable[[dict[str, Any]], bool]:
    """Keeps the rows whose columns have the values ``want``."""
    return lambda x: all(x[k] == v for k, v in want.items())


STAND_INS = "KTH-SP2 for SDSC, NASA, lublin_256 for LLNL"

FIGURES = (
    Figure("fig3", "Fig. 3: bounded slowdown vs failures, with and without prediction (c = 1.0; KTH-SP2 for SDSC)",
           (FAIL,), _figure(_rows(FAIL), "slowdown-failures", "Fig. 3: bounded slowdown vs failures, FCFS (a = 0) and "
                            "Balancing, c = 1.0, KTH-SP2 for SDSC", _is(load_scale=C0))),
    Figure("fig4", "Fig. 4: bounded slowdown vs failures, Balancing at two loads (KTH-SP2 for SDSC)", (FAIL,),
           _figure(_rows(FAIL), "slowdown-failures", "Fig. 4: Balancing's bounded slowdown vs failures at c = 1.0 and "
                   "1.2, KTH-SP2 for SDSC", _is(policy="balancing"))),
    Figure("fig5", "Fig. 5: capacity utilized / unused / lost vs failures, Balancing, (a) c = 1.0, (b) c = 1.2",
           (FAIL,), _figure(_rows(FAIL), "utilization-failures", "Fig. 5: capacity vs failures, Balancing, KTH-SP2 "
                            "for SDSC", _is(policy="balancing"))),
    Figure("fig6", f"Fig. 6: bounded slowdown vs confidence, Balancing ({STAND_INS})", PRED,
           _figure(_conf_rows, "slowdown-confidence",
                   f"Fig. 6: Balancing's bounded slowdown vs confidence ({STAND_INS})")),
    Figure("fig7", "Fig. 7: capacity vs confidence on NASA, Balancing, (a) c = 1.0, (b) c = 1.2", PRED,
           _figure(_conf_rows, "utilization-confidence", "Fig. 7: capacity vs confidence, Balancing on NASA",
                   _is(source=NASA))),
    Figure("fig8", "Fig. 8: capacity vs confidence on lublin_256 (for LLNL), Balancing, (a) c = 1.0, (b) c = 1.2",
           PRED, _figure(_conf_rows, "utilization-confidence",
                         "Fig. 8: capacity vs confidence, Balancing on lublin_256 (for LLNL)", _is(source=LUBLIN))),
    Figure("fig9", f"Fig. 9: bounded slowdown vs accuracy, Tie-breaking ({STAND_INS})", ACCS,
           _figure(_acc_rows, "slowdown-accuracy",
                   f"Fig. 9: Tie-breaking's bounded slowdown vs accuracy ({STAND_INS})")),
    Figure("fig10", "Fig. 10: capacity vs accuracy on lublin_256 (for LLNL), Tie-breaking, (a) c = 1.0, (b) c = 1.2",
           ACCS, _figure(_acc_rows, "utilization-accuracy",
                         "Fig. 10: capacity vs accuracy, Tie-breaking on lublin_256 (for LLNL)", _is(source=LUBLIN))),
)

