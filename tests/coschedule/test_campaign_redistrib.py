"""Redistribution campaigns (``simulator = "redistrib"``): the spec and its errors, the grid and
its seeds, paired runs (the same pack and failures for every variant of a run), the demo into
SQLite with resume, the normalisation, the report's tables and figure."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from coschedule.heuristics.redistribution import run_pack

from coschedule.campaign import CampaignError, ResultStore, load_spec, run_campaign
from coschedule.campaign.redistrib import (
    VARIANTS,
    RedistribSpec,
    failure_seed,
    pack_seed,
    redistrib_cell_id,
    redistrib_costs,
    run_variant,
)
from coschedule.campaign.redistrib_report import (
    format_redistrib_markdown,
    format_redistrib_tables,
    redistrib_figure,
    summarize_redistrib,
)
from coschedule.campaign.simulators import get_simulator
from coschedule.campaign.spec import spec_from_dict
from coschedule.campaign.torus_report import student_ci

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "campaigns" / "redistribution-demo.toml"

#: two pack sizes, two MTBFs (short: failures in every run), 2 runs, four variants: milliseconds a run
TINY = {"simulator": "redistrib", "seed": 3, "runs": 2, "n": [6, 10], "p": [40], "mtbf_years": [1, 5],
        "variants": ["faulty", "fault-free-local", "local+saf", "greedy+iterated"]}
CELLS = 2 * 2 * 2 * 4


def tiny(**changes) -> RedistribSpec:
    return spec_from_dict({**TINY, **changes}, where="tiny.toml")


def numbers(db: Path) -> dict[str, dict]:
    """Every row without its timings."""
    with ResultStore.open(db) as store:
        return {r["id"]: {k: v for k, v in r.items() if k not in ("seconds", "details")} for r in store.rows()}


def rows_of(db: Path) -> list[dict]:
    with ResultStore.open(db) as store:
        return list(store.rows())


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("redistrib") / "demo.sqlite"
    spec = load_spec(DEMO)
    summary = run_campaign(spec, str(db), workers=1)
    assert summary.computed == summary.cells == spec.n_cells() == 96
    return db


# ---------------------------------------------------------------------------------- the spec


@pytest.mark.parametrize("change, message", [
    ({"variants": ["greedy+sa"]}, "variants: unknown variant 'greedy+sa' (did you mean 'greedy+saf'?)"),
    ({"variants": []}, "variants must list at least one of faulty"),
    ({"n": [30]}, "n = 30 applications need p >= 60 processors (two each), but p has 40"),
    ({"n": [0]}, "n must be an integer >= 1, got 0"),
    ({"p": [1.5]}, "p must be an integer >= 2, got 1.5"),
    ({"mtbf_years": [0]}, "mtbf_years must be a finite number > 0, got 0"),
    ({"c": [-1]}, "c must be a finite number >= 0, got -1"),
    ({"c": []}, "c needs at least one value"),
    ({"runs": 0}, "runs must be an integer >= 1, got 0"),
    ({"m_inf": 3e6}, "m_sup (2.5e+06) must be >= m_inf (3e+06)"),
    ({"f": 1.5}, "f (the sequential fraction) must be in [0, 1], got 1.5"),
    ({"downtime": -1}, "downtime must be a finite number >= 0, got -1"),
    ({"failure_model": "weibull"}, "failure_model must be one of simulation, eq1.6, got 'weibull'"),
    ({"runs": "ten"}, "runs must be an integer, got 'ten'"),
    ({"seeds": 3}, "unknown key 'seeds' for a redistrib campaign"),
    ({"source": [{"kind": "swf"}]}, "unknown key 'source' for a redistrib campaign"),
])
def test_spec_errors_name_the_file_and_the_key(change, message):
    with pytest.raises(CampaignError) as e:
        tiny(**change)
    assert str(e.value).startswith("tiny.toml: ") and message in str(e.value)


def test_values_are_canonical_and_the_digest_ignores_the_name():
    spec = tiny(variants=["Local+SAF", "faulty", "local+saf"], n=[10, 6, 10], mtbf_years=[5, 1.0])
    assert spec.variants == ("local+saf", "faulty") and spec.n == (6, 10) and spec.mtbf_years == (1.0, 5.0)
    assert (spec.m_inf, spec.m_sup, spec.f, spec.c, spec.downtime) == (1.5e6, 2.5e6, 0.08, (1.0,), 60.0)
    assert replace(spec, name="other").digest() == spec.digest() != replace(spec, runs=3).digest()


def test_bundled_specs():
    """The paper's four figures (50 runs a point unless the page says otherwise) and the demo."""
    expect = {"fig14": ("p", 2000, 10000, 4), "fig15": ("n", 100, 1000, 6), "fig16": ("mtbf_years", 5, 125, 6),
              "fig17": ("c", 0.1, 4, 6)}
    for name, (axis, lo, hi, variants) in expect.items():
        spec = load_spec(ROOT / "campaigns" / f"redistribution-{name}.toml")
        assert spec.simulator == "redistrib" and spec.name == f"redistribution-{name}"
        values = getattr(spec, axis)
        assert (values[0], values[-1]) == (lo, hi) and len(values) >= 6, name
        assert len(spec.variants) == variants and "faulty" in spec.variants
        assert [a for a in ("n", "p", "mtbf_years", "c") if len(getattr(spec, a)) > 1] == [axis]
        assert (spec.m_inf, spec.m_sup, spec.f) == (1.5e6, 2.5e6, 0.08)
    fig14 = load_spec(ROOT / "campaigns" / "redistribution-fig14.toml")
    assert fig14.n == (1000,) and set(fig14.variants) == {"faulty", "fault-free-none", "fault-free-local",
                                                          "fault-free-greedy"}
    assert load_spec(ROOT / "campaigns" / "redistribution-fig16.toml").p == (5000,)
    assert load_spec(ROOT / "campaigns" / "redistribution-fig17.toml").p == (1000,)


# ---------------------------------------------------------------------------- grid and seeds


def test_cells_ids_and_seeds_come_from_the_values():
    spec = tiny()
    cells = list(spec.cells())
    assert len(cells) == spec.n_cells() == CELLS and len({c.id for c in cells}) == CELLS
    assert cells[0].variant == "faulty" and cells[0].id == redistrib_cell_id(6, 40, 1.0, 1.0, 0, "faulty") == \
        "n=6|p=40|mtbf=1.0|c=1.0|r=0|faulty"
    for c in cells:
        assert c.pack_seed == pack_seed(3, c.n, c.run) and c.failure_seed == failure_seed(3, c.p, c.run)
    # the pack depends on n and the run only; the failures on p and the run only
    assert len({c.pack_seed for c in cells}) == 2 * 2 and len({c.failure_seed for c in cells}) == 2
    more = tiny(runs=3, variants=[*TINY["variants"], "greedy+saf"], c=[1, 2])
    old = {c.id: (c.pack_seed, c.failure_seed) for c in cells}
    assert {c.id: (c.pack_seed, c.failure_seed) for c in more.cells() if c.id in old} == old
    assert spec.grid_line() == ("grid: 2 n x 1 p x 2 mtbf_years x 1 c x 2 runs x 4 variants (faulty, "
                                "fault-free-local, local+saf, greedy+iterated) = 32 cells, one simulation each "
                                "(and its faulty baseline)")
    costs = redistrib_costs(spec)
    assert set(costs) == {c.id for c in cells} and all(v > 0 for v in costs.values())


def test_every_variant_of_a_run_sees_the_same_pack_and_failures():
    spec = tiny(n=[10], mtbf_years=[1], variants=list(VARIANTS))
    cells = [c for c in spec.cells() if c.run == 1]
    assert len(cells) == len(VARIANTS)
    packs = [c.pack() for c in cells]
    assert all(np.array_equal(pk.memory, packs[0].memory) and np.array_equal(pk.seq, packs[0].seq) for pk in packs)
    res = cells[0].resilience()
    runs = {c.variant: run_variant(c.pack(), res, c.variant, c.failure_seed) for c in cells}
    faulty, trace = runs["faulty"]
    assert trace is not None and faulty.failures_hit > 0
    for variant, (result, tr) in runs.items():
        if VARIANTS[variant][2]:  # fault-free: no trace, no failure
            assert tr is None and not result.failures
            continue
        short, long_ = sorted((trace, tr), key=len)
        k = len(short)
        assert np.array_equal(long_.times[:k], short.times) and np.array_equal(long_.nodes[:k], short.nodes)
        upto = min(result.makespan, faulty.makespan)
        seen = [(f.time, f.proc) for f in result.failures if f.time < upto]
        base = [(f.time, f.proc) for f in faulty.failures if f.time < upto]
        assert seen == base and seen, variant
        # the numbers of run_pack drawing the trace itself from the same root
        again = run_pack(cells[0].pack(), res, at_end=VARIANTS[variant][0], at_failure=VARIANTS[variant][1],
                         seed=cells[0].failure_seed)
        assert again.makespan == result.makespan, variant
    assert runs["greedy+iterated"][0].redistributions > 0


# ---------------------------------------------------------------------------- running


def test_demo_rows_validate_and_normalise_by_the_faulty_run(demo_db):
    from coschedule.campaign.redistrib import _validator

    validating = _validator() is not None
    rows = rows_of(demo_db)
    with ResultStore.open(demo_db) as store:
        assert store.simulator == "redistrib" and store.count() == 96
    faulty = {(r["n"], r["p"], r["mtbf_years"], r["c"], r["run"]): r["makespan"] for r in rows
              if r["variant"] == "faulty"}
    assert len(faulty) == 96 // 6
    for r in rows:
        point = (r["n"], r["p"], r["mtbf_years"], r["c"], r["run"])
        assert r["faulty_makespan"] == faulty[point] and r["ratio"] == r["makespan"] / r["faulty_makespan"]
        assert (r["at_end"], r["at_failure"], bool(r["fault_free"])) == VARIANTS[r["variant"]]
        assert r["details"]["validated"] is validating  # every run, once coschedule.sim.validate_pack exists
        took = r["details"]["validate_seconds"]
        assert took >= 0 if validating else took is None
        assert r["seconds"] > 0 and r["makespan"] > 0
        if r["variant"] == "faulty":
            assert r["ratio"] == 1.0 and r["redistributions"] == 0 and r["failures"] > 0
        if r["fault_free"]:
            assert r["failures"] == 0 and r["details"]["trace_failures"] is None
    # the cell's numbers are run_pack's, the trace drawn from the cell's root
    r = next(r for r in rows if r["variant"] == "greedy+saf" and r["n"] == 20 and r["mtbf_years"] == 2.0)
    cell = next(c for c in load_spec(DEMO).cells() if c.id == r["id"])
    again = run_pack(cell.pack(), cell.resilience(), at_end="greedy", at_failure="saf", seed=r["failure_seed"])
    assert (again.makespan, len(again.failures), again.redistributions) == \
        (r["makespan"], r["failures"], r["redistributions"])


def test_a_run_the_validator_rejects_writes_nothing(tmp_path, monkeypatch):
    from coschedule.campaign import redistrib
    from coschedule.errors import InvalidSchedule

    def reject(result, failures=None):
        raise InvalidSchedule("application 3: work adds up to 0.9")

    monkeypatch.setattr(redistrib, "_validator", lambda: reject)
    db = tmp_path / "bad.sqlite"
    with pytest.raises(InvalidSchedule, match=r"cell n=6\|p=40\|mtbf=1.0\|c=1.0\|r=0\|faulty: application 3"):
        run_campaign(tiny(), str(db), workers=1)
    with ResultStore.open(db) as store:
        assert store.count() == 0


def test_resume_after_interruption_gives_the_uninterrupted_numbers(tmp_path):
    ref = tmp_path / "ref.sqlite"
    assert run_campaign(tiny(), str(ref), workers=1).computed == CELLS
    db = tmp_path / "resumed.sqlite"
    first = run_campaign(tiny(), str(db), workers=1, max_cells=5)
    assert first.computed == 5
    second = run_campaign(tiny(), str(db), workers=2)
    assert second.skipped == 5 and second.computed == CELLS - 5
    assert numbers(db) == numbers(ref)
    assert run_campaign(tiny(), str(db), workers=1).computed == 0
    with pytest.raises(CampaignError, match="different campaign spec"):
        run_campaign(tiny(runs=3), str(db), workers=1)


def test_a_variant_without_faulty_still_divides_by_the_faulty_run(tmp_path):
    db = tmp_path / "nofaulty.sqlite"
    run_campaign(tiny(variants=["local+saf"], n=[6], mtbf_years=[1]), str(db), workers=1)
    ref = tmp_path / "ref.sqlite"
    run_campaign(tiny(n=[6], mtbf_years=[1]), str(ref), workers=1)
    a = {r["id"]: r for r in rows_of(db)}
    b = {r["id"]: r for r in rows_of(ref)}
    assert set(a) < set(b)
    for key, r in a.items():
        assert (r["faulty_makespan"], r["ratio"], r["makespan"]) == \
            (b[key]["faulty_makespan"], b[key]["ratio"], b[key]["makespan"])


# ---------------------------------------------------------------------------- the report


def test_groups_tables_and_markdown(demo_db):
    rows = rows_of(demo_db)
    groups = summarize_redistrib(rows)
    assert len(groups) == 2 * 2 * 6 and all(g.runs == 4 for g in groups)
    g = next(g for g in groups if g.variant == "greedy+iterated" and g.n == 20 and g.mtbf_years == 10.0)
    mine = [r["ratio"] for r in rows if r["variant"] == "greedy+iterated" and r["n"] == 20
            and r["mtbf_years"] == 10.0]
    assert g.stats["ratio"] == student_ci(mine) and g.label == "EndGreedy + IteratedGreedy"
    faulty = [g for g in groups if g.variant == "faulty"]
    assert all(g.stats["ratio"] == (1.0, 0.0) for g in faulty)
    text = format_redistrib_tables(groups)
    assert text.startswith("== p = 200, c = 1; 4 runs a point; mean ± 95 % CI half-width")
    for title in ("normalised makespan", "makespan (days)", "failures during the run", "redistributions per run",
                  "seconds per run"):
        assert title in text
    assert "n = 20, MTBF = 10" in text and "1.000 ± 0.000" in text
    md = format_redistrib_markdown(groups)
    assert md.startswith("**p = 200, c = 1; 4 runs") and "| point" in md
    assert get_simulator("redistrib").tables is format_redistrib_tables
    assert groups[0].to_dict()["ratio"] == 1.0


def test_figure_draws_a_panel_per_axis(demo_db):
    pytest.importorskip("matplotlib")
    rows = rows_of(demo_db)
    fig = redistrib_figure(rows)
    assert len(fig.axes) == 4  # against n at each MTBF, against the MTBF at each n
    assert len(redistrib_figure([r for r in rows if r["n"] == 10]).axes) == 1
    with pytest.raises(CampaignError, match="a figure needs an axis with two values"):
        redistrib_figure([r for r in rows if r["n"] == 10 and r["mtbf_years"] == 2.0])


def test_cli_simulate_and_report(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from coschedule.cli import main

    db = tmp_path / "demo.sqlite"
    assert main(["simulate", "redistribution-demo", "--db", str(db), "--dry-run"]) == 0
    assert "= 96 cells, one simulation each (and its faulty baseline)" in capsys.readouterr().out
    assert main(["simulate", "redistribution-demo", "--db", str(db), "--workers", "1", "--quiet"]) == 0
    assert "96 cells computed" in capsys.readouterr().out
    assert main(["report", str(db), "--plot", str(tmp_path / "f.png")]) == 0
    out, err = capsys.readouterr()
    assert "campaign redistribution-demo: 96 of 96 cells, one simulation each (and its faulty baseline)" in out
    assert "wrote figure" in err and (tmp_path / "f.png").stat().st_size > 0
    assert main(["report", str(db), "--markdown"]) == 0
    assert "| point" in capsys.readouterr().out
    assert main(["simulate", "redistribution-demo", "--db", str(db), "--seeds", "2"]) == 2
    assert "--seeds does not apply to a redistrib campaign" in capsys.readouterr().err
    # --seed and --name apply: a new grid of seeds under another name
    assert main(["simulate", "redistribution-demo", "--seed", "7", "--name", "other", "--db",
                 str(tmp_path / "other.sqlite"), "--dry-run"]) == 0
    assert "= 96 cells" in capsys.readouterr().out
    for argv, message in (
        (["simulate", "redistribution-demo", "--policy", "easy"], "--policy does not apply to a redistrib campaign"),
        (["simulate", "redistribution-demo", "--workload", "nasa"], "--workload does not apply to a redistrib"),
        (["simulate", "--simulator", "redistrib"], "a redistribution campaign needs a TOML spec"),
        (["report", str(db), "--source", "x"], "--source does not filter a redistrib campaign"),
        (["report", str(db), "--policy", "easy"], "--policy does not filter a redistrib campaign"),
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1 and "Traceback" not in err, (argv, err)


def test_every_cell_is_finite(demo_db):
    for r in rows_of(demo_db):
        assert all(math.isfinite(r[k]) for k in ("makespan", "faulty_makespan", "ratio", "seconds"))


def test_the_fault_free_run_without_redistribution_gives_a_second_normalisation(tmp_path):
    """With fault-free-none in the grid (Fig. 1.4), each variant is also divided by it, run by run:
    the gain of redistribution alone for the fault-free variants, the cost of the failures for
    the faulty run."""
    db = tmp_path / "ff.sqlite"
    run_campaign(tiny(n=[10], variants=["faulty", "fault-free-none", "fault-free-greedy"]), str(db), workers=1)
    rows = rows_of(db)
    groups = summarize_redistrib(rows)
    free = {(r["mtbf_years"], r["run"]): r["makespan"] for r in rows if r["variant"] == "fault-free-none"}
    for g in groups:
        mine = [r["makespan"] / free[(r["mtbf_years"], r["run"])] for r in rows
                if r["variant"] == g.variant and r["mtbf_years"] == g.mtbf_years]
        assert g.stats["vs_free"] == student_ci(mine)
    assert all(g.mean("vs_free") == 1.0 for g in groups if g.variant == "fault-free-none")
    assert all(g.mean("vs_free") > 1.0 for g in groups if g.variant == "faulty")
    assert "makespan / the fault-free makespan without redistribution of the same pack" in format_redistrib_tables(
        groups)
    assert "vs_free" not in summarize_redistrib(r for r in rows if r["variant"] != "fault-free-none")[0].stats
    pytest.importorskip("matplotlib")
    assert len(redistrib_figure(rows).axes) == 2  # normalised by the faulty run, by the fault-free run


@pytest.mark.parametrize("changes, message", [
    ({"mtbf_years": [1, 1 / 365]}, r"n = 6, p = 40, run 0: application \w+ expects .* restarts of a checkpoint period "
                                   r"even at its best processor count \(\d+\) at mtbf_years = 0.00273973, c = 1 \(the "
                                   r"limit is 10000\): the run would not end; raise mtbf_years or lower c"),
    ({"mtbf_years": [1e-300]}, "a checkpoint period holds its checkpoint and no work"),
])
def test_a_pack_that_would_not_end_is_refused_before_the_database(tmp_path, changes, message):
    """The pack campaigns apply ``coschedule redistrib``'s check to every pack of the grid, before
    the database is created (a run at a node MTBF of a day did not end)."""
    db = tmp_path / "never.sqlite"
    with pytest.raises(CampaignError, match=message):
        run_campaign(tiny(**changes), str(db), workers=1)
    assert not db.exists()


def test_the_campaign_and_the_command_refuse_the_same_application():
    from coschedule.redistribution.model import YEAR, PackModel

    spec = tiny(mtbf_years=[1 / 365])
    cell = next(spec.cells())
    model = PackModel(cell.pack(), cell.resilience())
    command, campaign = model.why_endless(), model.why_endless(options=False)
    assert command.split(" at ")[0] == campaign.split(" at ")[0]  # the application, its restarts and count
    assert "--node-mtbf 1 d" in command and "raise --node-mtbf or lower --c" in command
    assert cell.resilience().node_mtbf == pytest.approx(YEAR / 365)
    assert PackModel(cell.pack(), replace(cell.resilience(), node_mtbf=YEAR)).why_endless() is None
