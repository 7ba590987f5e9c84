"""``coschedule reproduce benoit2021``: the claims' computations on small hand-made rows (the
quick reproduction itself runs in tests/coschedule/test_reproduce.py)."""

from __future__ import annotations

import pytest

from coschedule.reproduce.papers.benoit2021 import PAPER
from coschedule.reproduce.papers.benoit2021.common import (
    FIG4B,
    FIG5,
    FIG6,
    FIVE,
    KEPT6,
    LANL,
    LANL_KEPT,
    TRACES,
    _axis,
    _low,
    _medium_high,
    _peaks_inside,
)
from coschedule.reproduce.papers.benoit2021.compare import _above, _rise_fall, _worst_at
from coschedule.reproduce.papers.benoit2021.fig4 import _gain_4b, _p10000_special
from coschedule.reproduce.papers.benoit2021.fig5 import _best_in
from coschedule.reproduce.results import Results
from coschedule.reproduce.run import campaign_spec


def _row(campaign: str, h: str, prio: str, x: float, inst: str, mean: float, source: str = "synthetic") -> dict:
    """One cell's row: ``x`` is P for the campaigns against P, else q̄."""
    by_p = _axis(campaign) == "P"
    return {"id": f"{inst}/{h}/{prio}/{x}", "source": source, "instance": inst, "n": 100,
            "P": int(x) if by_p else 10000, "P_grid": int(x) if by_p else None, "qbar": 0.3 if by_p else x,
            "heuristic": h, "priority": prio, "scenarios": 10, "mean_ratio": mean, "std_ratio": 0.0,
            "min_ratio": mean, "max_ratio": mean, "mean_failures": 1.0}


def _results(**rows: list[dict]) -> Results:
    """Results holding the rows given, by campaign (underscores for dashes), as a rigid database would."""
    named = {name.replace("_", "-"): rs for name, rs in rows.items()}
    return Results.of_rows(named, dict.fromkeys(named, "rigid"))


def test_gain_excludes_p_10000_and_names_the_failed_reading():
    rows = []
    for inst in ("s0", "s1"):
        for P, shelf, fill in ((9000, 1.20, 1.14), (10000, 1.20, 1.20), (11000, 1.30, 1.17)):
            rows += [_row(FIG4B, "r-shelf-nb", "LPT", P, inst, shelf),
                     _row(FIG4B, "r-shelffill-nb", "LPT", P, inst, fill),
                     _row(FIG4B, "r-shelffill-nb-failed", "LPT", P, inst, fill)]
    m = _gain_4b("NB")(_results(fig4b_refill=rows))
    assert m.value == pytest.approx((0.05 + 0.10) / 2) and m.half == pytest.approx(0.0)
    assert "over 2 values of P" in m.text and "refill = failed): 7.5 %" in m.text
    dip = _p10000_special(_results(fig4b_refill=rows + [
        _row(FIG4B, h, "LPT", P, i, 1.0) for i in ("s0", "s1") for P in (9000, 10000, 11000)
        for h in ("r-shelf-b", "r-shelffill-b")]))
    assert dip.holds is None  # NB dips at 10,000, B does not


def test_excess_is_the_ratio_of_means_with_the_per_set_interval():
    rows = [_row(FIG5, "r-list-q", "LPT", 0.5, "s0", 1.2), _row(FIG5, "r-list-q", "LPT", 0.5, "s1", 1.1),
            _row(FIG5, "r-list-0", "LA", 0.5, "s0", 1.0), _row(FIG5, "r-list-0", "LA", 0.5, "s1", 1.0),
            _row(FIG5, "r-list-0", "LPT", 0.5, "s0", 1.5), _row(FIG5, "r-list-0", "LPT", 0.5, "s1", 1.5)]
    m = _above(FIG5, "r-list-q", 0.5)(_results(fig5=rows))
    assert m.value == pytest.approx(0.15)
    assert m.half == pytest.approx(12.7062 * 0.1 / 2 ** 0.5 / 2 ** 0.5)  # t(1) * s / sqrt(2), s = 0.1 / sqrt(2)
    assert "R-List-Q LPT 1.150, R-List-0 LA 1.000" in m.text


def test_best_priorities_read_as_runs_and_a_verdict():
    rows = [_row(FIG5, "r-list-1", p, q, "s0", v) for q, lpt, la in ((0.0, 1.0, 1.1), (0.1, 1.0, 1.1),
                                                                        (0.3, 1.2, 1.1), (0.5, 1.2, 1.1))
            for p, v in (("LPT", lpt), ("LA", la), ("SPT", 1.5))]
    m = _best_in(FIG5, ("r-list-1",), ("LPT", "LA"))(_results(fig5=rows))
    assert m.holds is True and m.text == "best priority: R-List-1: LPT 0-0.1, LA 0.3-0.5"
    assert _best_in(FIG5, ("r-list-1",), ("LPT",))(_results(fig5=rows)).holds is None
    assert _best_in(FIG5, ("r-list-1",), ("SPT",))(_results(fig5=rows)).holds is False


def test_rise_then_fall_needs_a_peak_inside():
    assert _peaks_inside([1.0, 1.2, 1.1]) and not _peaks_inside([1.2, 1.1, 1.0])
    assert not _peaks_inside([1.0, 1.1, 1.2])
    rows = [_row(FIG6, "r-list-0", p, P, "s0", v) for P, up, down in ((5000, 1.0, 1.3), (10000, 1.2, 1.2),
                                                                         (15000, 1.1, 1.1))
            for p, v in (("LPT", up), ("LA", down))]
    m = _rise_fall(FIG6, ("r-list-0",))(_results(fig6=rows))
    assert m.holds is None and m.text.startswith("1 of 2 curves peak inside")


def test_worst_heuristic_per_point():
    rows = [_row(FIG5, h, "LPT", q, "s0", v) for q, vals in ((0.1, (1.0, 1.1, 1.2, 1.3, 1.4)),
                                                                (0.5, (1.0, 1.1, 1.5, 1.3, 1.4)))
            for h, v in zip(FIVE, vals, strict=True)]
    m = _worst_at(FIG5, "r-list-q", _medium_high)(_results(fig5=rows))
    assert m.holds is True and m.text == "R-List-Q the worst at 1 of 1 points: q̄ = 0.5: worst R-List-Q 1.500"
    assert _worst_at(FIG5, "r-shelffill-nb", _low)(_results(fig5=rows)).holds is True


@pytest.mark.parametrize("campaign", [c for c in PAPER.campaigns if c.name not in (LANL, LANL_KEPT, TRACES)],
                         ids=lambda c: c.name)
def test_quick_grids_are_smaller_and_keep_the_points_the_claims_read(campaign):
    full, quick = campaign_spec(campaign, False), campaign_spec(campaign, True)
    assert quick.n_cells() * quick.scenarios < full.n_cells() * full.scenarios
    assert quick.name == f"{full.name}-quick"
    if campaign.name == FIG5:
        assert {0.0, 0.1, 0.3, 0.5} <= set(quick.qbar) and max(quick.qbar) > 0.5
    if campaign.name in (FIG6, KEPT6):
        assert 15000 in quick.P
    if campaign.name == FIG4B:
        assert {9000, 10000, 11000} <= set(quick.P)
