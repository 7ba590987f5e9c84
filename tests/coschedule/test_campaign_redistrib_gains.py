"""Redistribution campaigns, issue 21 points 8-9: the gain's baseline (the faulty run without
redistribution, [Aupy2017] §1.5.5, or the fault-free run), the paper's orderings as paired
differences, and the c sweeps (c in seconds per data unit over three orders of magnitude)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coschedule.campaign import CampaignError, load_spec
from coschedule.campaign.simulators.redistrib.report import (
    BASELINE,
    BASELINES,
    format_redistrib_tables,
    orderings_figure,
    summarize_redistrib,
)
from coschedule.campaign.stats import student_ci

ROOT = Path(__file__).resolve().parents[2]

#: makespans of two runs (a pack and a failure trace each) at one point, by variant
MAKESPANS = {
    "faulty": (100.0, 200.0),
    "fault-free-none": (80.0, 120.0),
    "local+saf": (90.0, 150.0),
    "local+iterated": (95.0, 140.0),
    "greedy+saf": (85.0, 160.0),
}


def hand_made_rows() -> list[dict]:
    rows = []
    for variant, spans in MAKESPANS.items():
        for run, m in enumerate(spans):
            faulty = MAKESPANS["faulty"][run]
            rows.append({"n": 10, "p": 40, "mtbf_years": 5.0, "c": 1.0, "run": run, "variant": variant,
                         "makespan": m, "faulty_makespan": faulty, "ratio": m / faulty, "failures": 3,
                         "failures_hit": 2, "redistributions": 1, "changes": 2, "seconds": 0.01})
    return rows


def by_variant(groups):
    return {g.variant: g for g in groups}


def test_the_gain_is_measured_against_the_faulty_run_by_default():
    assert BASELINE == "faulty" and BASELINES == ("faulty", "fault-free-none")
    groups = by_variant(summarize_redistrib(hand_made_rows()))
    # local+saf: 1 - 90/100 = 0.10 and 1 - 150/200 = 0.25
    assert groups["local+saf"].stats["gain"] == pytest.approx(student_ci([0.10, 0.25]), abs=1e-12)
    assert groups["local+saf"].mean("gain") == pytest.approx(0.175, abs=1e-12)
    assert groups["faulty"].stats["gain"] == pytest.approx((0.0, 0.0), abs=1e-12)
    assert groups["fault-free-none"].mean("gain") == pytest.approx((0.2 + 0.4) / 2, abs=1e-12)
    assert all(g.baseline == "faulty" for g in groups.values())
    # the other baseline beside it: makespan / the fault-free run of the same pack
    assert groups["local+saf"].mean("vs_free") == pytest.approx((90 / 80 + 150 / 120) / 2, abs=1e-12)
    text = format_redistrib_tables(list(groups.values()))
    assert "gain (%): 1 - makespan / the faulty makespan without redistribution" in text
    assert "17.5 ±" in text  # the gain of local+saf, in percent


def test_the_gain_against_the_fault_free_run_when_chosen():
    groups = by_variant(summarize_redistrib(hand_made_rows(), baseline="fault-free-none"))
    # local+saf: 1 - 90/80 = -0.125 and 1 - 150/120 = -0.25: slower than the fault-free run
    assert groups["local+saf"].stats["gain"] == pytest.approx(student_ci([1 - 90 / 80, 1 - 150 / 120]), abs=1e-12)
    assert groups["fault-free-none"].stats["gain"] == pytest.approx((0.0, 0.0), abs=1e-12)
    assert groups["faulty"].mean("gain") == pytest.approx(((1 - 100 / 80) + (1 - 200 / 120)) / 2, abs=1e-12)
    assert all(g.baseline == "fault-free-none" for g in groups.values())
    assert "gain (%): 1 - makespan / the fault-free makespan without redistribution" in \
        format_redistrib_tables(list(groups.values()))
    # a database without the fault-free run has no gain against it
    rows = [r for r in hand_made_rows() if r["variant"] != "fault-free-none"]
    assert all("gain" not in g.stats for g in summarize_redistrib(rows, baseline="fault-free-none"))
    with pytest.raises(CampaignError, match="unknown baseline 'best': choose faulty or fault-free-none"):
        summarize_redistrib(hand_made_rows(), baseline="best")


def test_the_orderings_are_paired_differences_of_the_same_run():
    groups = by_variant(summarize_redistrib(hand_made_rows()))
    # EndLocal: IG - SAF = 95/100 - 90/100 and 140/200 - 150/200
    assert groups["local+iterated"].stats["minus local+saf"] == pytest.approx(student_ci([0.95 - 0.90, 0.70 - 0.75]), abs=1e-12)
    # SAF: EndGreedy - EndLocal
    assert groups["greedy+saf"].stats["minus local+saf"] == pytest.approx(student_ci([0.85 - 0.90, 0.80 - 0.75]), abs=1e-12)
    # EndLocal + IG - none: the ratio less 1
    assert groups["local+iterated"].mean("minus faulty") == pytest.approx((0.95 - 1 + 0.70 - 1) / 2, abs=1e-12)
    assert "minus greedy+saf" not in groups["local+iterated"].stats  # greedy+iterated is not among the rows
    text = format_redistrib_tables(list(groups.values()))
    assert "the paper's orderings" in text and "EndLocal: IG - SAF" in text and "+0.0 ± " in text


def test_orderings_figure_a_panel_per_ordering():
    pytest.importorskip("matplotlib")
    rows = hand_made_rows()
    more = [{**r, "c": 0.1, "ratio": r["ratio"] * 0.5} for r in rows]
    fig = orderings_figure(rows + more, axis="c")
    assert len([ax for ax in fig.axes if ax.has_data()]) == 3  # the orderings these variants allow
    with pytest.raises(CampaignError, match="one value of c"):
        orderings_figure(rows, axis="c")


def test_c_sweep_specs_span_three_orders_of_magnitude():
    """The c key (seconds to checkpoint or move one data unit) takes the sweep's values; both
    baselines are among the variants."""
    for fig, (lo, hi) in {"fig15": (0.01, 1.0), "fig16": (0.01, 10.0), "fig17": (0.01, 10.0)}.items():
        spec = load_spec(ROOT / "campaigns" / f"redistribution-c-sweep-{fig}.toml")
        assert (spec.c[0], spec.c[-1]) == (lo, hi) and spec.simulator == "redistrib"
        assert {"faulty", "fault-free-none"} <= set(spec.variants)
    assert load_spec(ROOT / "campaigns" / "redistribution-c-sweep-fig16.toml").mtbf_years == (5.0, 10.0, 25.0, 125.0)
    # the reproduction keeps c = 1 s per data unit (docs/reproduce-redistribution.md#the-unit-of-c)
    for fig in ("fig14", "fig15", "fig16", "fig15-baselines"):
        assert load_spec(ROOT / "campaigns" / f"redistribution-{fig}.toml").c == (1.0,), fig
    # Fig. 1.5's gain against both baselines, on the packs and traces of redistribution-fig15
    both = load_spec(ROOT / "campaigns" / "redistribution-fig15-baselines.toml")
    fig15 = load_spec(ROOT / "campaigns" / "redistribution-fig15.toml")
    assert {"faulty", "fault-free-none"} <= set(both.variants) and set(both.n) <= set(fig15.n)
    assert (both.seed, both.p, both.mtbf_years, both.runs) == (fig15.seed, fig15.p, fig15.mtbf_years, fig15.runs)
    same = {c.id: (c.pack_seed, c.failure_seed) for c in fig15.cells()}
    assert all(same[c.id] == (c.pack_seed, c.failure_seed) for c in both.cells() if c.id in same)
    assert sum(c.id in same for c in both.cells()) == 2 * 50 * 5  # every variant but fault-free-none


@pytest.mark.parametrize("value, message", [("-0.05", "c must be a finite number >= 0, got -0.05"),
                                            ('"1 s"', "c must be a finite number >= 0, got '1 s'")])
def test_a_bad_c_is_a_one_line_error(tmp_path, capsys, value, message):
    from coschedule.cli import main

    spec = tmp_path / "bad.toml"
    spec.write_text(f'simulator = "redistrib"\nn = [4]\np = [20]\nc = [0.1, {value}]\nvariants = ["faulty"]\n')
    assert main(["simulate", str(spec), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
