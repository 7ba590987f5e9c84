"""Torus campaigns (``simulator = "torus"``): the spec and its errors, the grid and its paired
seeds, a tiny campaign into SQLite with resume, the report's tables and figures."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from coschedule.campaign import CampaignError, ResultStore, load_spec, run_campaign
from coschedule.campaign.simulators import get_simulator
from coschedule.campaign.spec import spec_from_dict
from coschedule.campaign.torus import (
    TorusSpec,
    torus_cell_id,
    torus_failure_seed,
)
from coschedule.campaign.torus_report import (
    FIGURES,
    format_torus_markdown,
    format_torus_tables,
    student_ci,
    summarize_torus,
    t975,
    torus_figure,
)
from coschedule.torus.metrics import torus_metrics
from coschedule.torus.run import run_torus

ROOT = Path(__file__).resolve().parents[2]
NASA = "NASA-iPSC-1993-3.1-cln.swf.gz"

#: 40 jobs of NASA on a 2x2x4 torus (unit 8): each run takes milliseconds
TINY = {"simulator": "torus", "seed": 5, "seeds": 2, "shape": "2x2x4", "policies": ["fcfs", "balancing", "tiebreak"],
        "confidence": [0.1, 0.9], "accuracy": [0.5], "failure_count": [0, 12], "load_scale": [1.0, 1.2],
        "source": [{"kind": "swf", "name": "nasa", "path": NASA, "jobs": 40}]}
#: per load scale: fcfs + 2 balancing + 1 tiebreak, each failure-free once and at 12 failures twice
CELLS = 2 * 4 * (1 + 2)


def tiny(**changes) -> TorusSpec:
    return spec_from_dict({**TINY, **changes}, where="tiny.toml")


def numbers(db: Path) -> dict[str, dict]:
    """Every row without its timings."""
    with ResultStore.open(db) as store:
        return {r["id"]: {k: v for k, v in r.items() if k not in ("seconds", "details")} for r in store.rows()}


@pytest.fixture(scope="module")
def reference_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("torus") / "ref.sqlite"
    summary = run_campaign(tiny(), str(db), workers=1)
    assert summary.computed == summary.cells == CELLS
    return db


# ---------------------------------------------------------------------------------- the spec


@pytest.mark.parametrize("change, message", [
    ({"shape": "4x4"}, "shape: torus shape '4x4'"),
    ({"policies": ["fcfz"]}, "policies: unknown torus policy 'fcfz' (did you mean 'fcfs'?)"),
    ({"confidence": [1.5]}, "confidence must be a finite number in [0, 1], got 1.5"),
    ({"confidence": []}, "policy balancing needs confidence"),
    ({"policies": ["fcfs", "balancing"]}, "accuracy is the parameter of tiebreak, which policies does not list"),
    ({"failure_count": [-1]}, "failure_count must be an integer >= 0, got -1"),
    ({"failure_count": [1.5]}, "failure_count must be an integer >= 0, got 1.5"),
    ({"failure_count": {"nasa": [0], "kth": [4]}}, "failure_count.kth: no workload has that name"),
    ({"failure_count": {}}, "failure_count has no value for the workload 'nasa'"),
    ({"load_scale": [0]}, "load_scale must be a finite number > 0, got 0"),
    ({"failure_model": "bursty"}, "failure_model must be one of clustered, uniform, got 'bursty'"),
    ({"pf": "min"}, "pf must be one of max, product, got 'min'"),
    ({"bsld": "mean"}, "bsld must be one of max, min, got 'mean'"),
    ({"bsld_time": "wall"}, "bsld_time must be one of run, request, got 'wall'"),
    ({"migration": "yes"}, "migration must be true, false or a list of them, got 'yes'"),
    ({"migration": []}, "migration must be true, false or a list of them, got []"),
    ({"migration": [True, 1]}, "migration must be true, false or a list of them, got [True, 1]"),
    ({"seeds": 0}, "seeds must be an integer >= 1, got 0"),
    ({"unit": 0}, "unit must be an integer >= 1, got 0"),
    ({"downtime": [-5]}, "downtime must be a finite number >= 0, got -5"),
    ({"gamma": "ten"}, "gamma must be an integer or a number"),
    ({"node_mtbf": [1e6]}, "unknown key 'node_mtbf' for a torus campaign"),
    ({"workload": [3]}, "workload must be a trace name or path"),
    ({"source": [], "workload": []}, "the campaign has no workload"),
])
def test_spec_errors_name_the_file_and_the_key(change, message):
    with pytest.raises(CampaignError) as e:
        tiny(**change)
    assert str(e.value).startswith("tiny.toml: ") and message in str(e.value)


def test_workload_key_is_a_source_table_of_a_trace():
    bare = spec_from_dict({**{k: v for k, v in TINY.items() if k != "source"}, "workload": NASA})
    table = tiny(source=[{"kind": "swf", "path": NASA}])
    assert bare.sources == table.sources and bare.digest() == table.digest()
    assert bare.sources[0].name == "NASA-iPSC-1993-3.1-cln"


def test_values_are_canonical_and_the_digest_ignores_the_name():
    spec = tiny(policies=["TieBreak", "fcfs", "balancing", "fcfs"], confidence=[0.9, 0.1, 0.9], shape="2X2X4")
    assert spec.policies == ("tiebreak", "fcfs", "balancing") and spec.confidence == (0.1, 0.9)
    assert spec.shape == "2x2x4" and spec.failure_count == (0, 12)
    assert replace(spec, name="other").digest() == spec.digest() != replace(spec, seed=6).digest()


def test_bundled_specs():
    for name, cells, seeds in (("failures", 246, 5), ("confidence", 330, 5), ("accuracy", 330, 5), ("demo", 28, 3),
                               ("failures-quick", 42, 2), ("predictors-quick", 30, 1), ("load-quick", 21, 2),
                               ("predictors-load-quick", 15, 1)):
        spec = load_spec(ROOT / "campaigns" / f"oliner2004-{name}.toml")
        assert spec.simulator == "torus" and spec.seeds == seeds
        assert spec.n_cells() == cells, name
        # the paper's system: migration (§5.2.1), first; the slowdown over the run time (§3.4);
        # the c = 1.0 quick specs also run without it, the c = 1.2 ones (load-quick,
        # predictors-load-quick) only with it
        both = name in ("failures-quick", "predictors-quick")
        assert spec.migration == ((True, False) if both else (True,)), name
        assert spec.bsld_time == "run" and spec.to_dict()["migration"] == list(spec.migration)
    spec = load_spec(ROOT / "campaigns" / "oliner2004-confidence.toml")
    assert spec.counts("NASA") == spec.counts("KTH-SP2") == (4000,) and spec.counts("lublin_256") == (1000,)
    assert spec.to_dict()["failure_count"] == {"NASA": [4000], "KTH-SP2": [4000], "lublin_256": [1000]}


# ---------------------------------------------------------------------------- grid and seeds


def test_cells_fcfs_once_parameters_only_for_their_scheduler():
    spec = tiny()
    cells = list(spec.cells())
    assert len(cells) == spec.n_cells() == CELLS and len({c.id for c in cells}) == CELLS
    assert {(c.policy, c.confidence, c.accuracy) for c in cells} == {
        ("fcfs", None, None), ("balancing", 0.1, None), ("balancing", 0.9, None), ("tiebreak", None, 0.5)}
    free = [c for c in cells if not c.failure_count]
    assert len(free) == 2 * 4 and all(c.seed is None and c.seed_index is None for c in free)
    assert torus_cell_id("swf:nasa", "2x2x4", 1.0, "balancing", 0.1, 12, "clustered", 0.0, 1) == \
        "swf:nasa|2x2x4|c=1.0|K=12|clustered|D=0.0|s=1|balancing|a=0.1"
    assert spec.grid_line() == ("grid: 1 workloads x 2 load_scale x (1 failure-free + 1 failure_count x 1 downtime "
                                "x 2 seeds) x (fcfs + balancing x 2 confidence + tiebreak x 1 accuracy) = 24 cells, "
                                "one simulation each, on the torus 2x2x4")


def test_every_scheduler_of_a_point_runs_on_the_same_failure_trace():
    spec = tiny()
    by_point: dict[tuple, set[int]] = {}
    for c in spec.cells():
        if c.failure_count:
            by_point.setdefault((c.workload_key, c.load_scale, c.failure_count, c.seed_index), set()).add(c.seed)
    assert all(len(seeds) == 1 for seeds in by_point.values())
    assert len({s for seeds in by_point.values() for s in seeds}) == len(by_point)  # replicates differ
    cells = {(c.policy, c.load_scale, c.seed_index): c for c in spec.cells() if c.failure_count}
    runs = []
    for policy in ("fcfs", "tiebreak"):
        c = cells[(policy, 1.2, 1)]
        runs.append(run_torus(c.jobs, c.policy, failure_count=c.failure_count, failure_model=c.failure_model,
                              seed=c.seed, accuracy=c.accuracy or 0.0))
    a, b = (r.trace for r in runs)
    assert len(a.times) == 12 and np.array_equal(a.times, b.times) and np.array_equal(a.nodes, b.nodes)
    # the root depends on the point and replicate only
    root = torus_failure_seed(5, "swf:nasa", "2x2x4", 1.2, 12, "clustered", 1)
    assert cells[("balancing", 1.2, 1)].seed == root
    more = tiny(confidence=[0.1, 0.5, 0.9], seeds=3, failure_count=[0, 12, 24])
    assert {c.id: c.seed for c in more.cells() if c.id in {d.id for d in spec.cells()}} == \
        {c.id: c.seed for c in spec.cells()}


# ---------------------------------------------------------------------------- running


def test_every_row_is_one_validated_run(reference_db):
    with ResultStore.open(reference_db) as store:
        rows = list(store.rows())
        assert store.simulator == "torus" and store.count() == CELLS
    spec = tiny()
    cells = {c.id: c for c in spec.cells()}
    for r in rows:
        assert r["shape"] == "2x2x4" and r["unit"] == 8 and r["jobs"] == 40
        assert r["failures"] == r["failure_count"] and 0 <= r["job_failures"] <= r["failures"]
        assert math.isclose(r["utilized"] + r["unused"] + r["lost"], 1.0)
        assert r["details"]["validate_seconds"] >= 0 and r["details"]["metrics"]["policy"] == r["policy"]
        assert r["migration"] == 1 and cells[r["id"]].migration is True  # the default: the paper's system
    r = next(r for r in rows if r["policy"] == "tiebreak" and r["failure_count"] and r["load_scale"] == 1.0)
    c = cells[r["id"]]
    run = run_torus(c.jobs, "tiebreak", failure_count=r["failure_count"], failure_model="clustered", seed=r["seed"],
                    accuracy=r["accuracy"])
    m = torus_metrics(run)
    assert (m.mean_bsld, m.util, m.job_failures) == (r["mean_bounded_slowdown"], r["utilized"], r["job_failures"])
    assert r["details"]["metrics"]["bounded_slowdown_time"] == "run"
    other = r["details"]["bounded_slowdown_other"]
    assert other["time"] == "request" and other["mean"] == torus_metrics(run, bsld_time="request").mean_bsld


def test_migration_both_ways_paired(tmp_path):
    """migration = [true, false]: every scheduler with and without, on the same failure traces;
    the report pairs each with fcfs of the same setting, for the slowdown and the response."""
    spec = tiny(migration=[False, True], policies=["fcfs", "balancing"], accuracy=[], confidence=[0.9],
                load_scale=[1.0], bsld_time="request")
    assert spec.migration == (True, False) and spec.n_cells() == 2 * 2 * (1 + 2)
    cells = list(spec.cells())
    off = [c for c in cells if not c.migration]
    assert len(off) == 6 and all(c.id.endswith("|no-migration") for c in off)
    on = {c.id: c for c in cells if c.migration}
    assert all(on[c.id.removesuffix("|no-migration")].seed == c.seed for c in off)  # the same traces
    db = tmp_path / "m.sqlite"
    run_campaign(spec, str(db), workers=1)
    with ResultStore.open(db) as store:
        rows = list(store.rows())
    assert {r["migration"] for r in rows} == {0, 1}
    assert all(r["details"]["metrics"]["bounded_slowdown_time"] == "request" for r in rows)
    groups = summarize_torus(rows)
    g = next(g for g in groups if g.policy == "balancing" and not g.migration and g.failure_count)
    assert g.label == "balancing a=0.9, no migration"
    assert g.bsld == "max(t^r, 10 s) / max(request, 10 s)"
    fcfs = {(r["seed_index"]): r for r in rows if r["policy"] == "fcfs" and not r["migration"] and r["failure_count"]}
    mine = [r for r in rows if r["policy"] == "balancing" and not r["migration"] and r["failure_count"]]
    for stat, got in (("mean_bounded_slowdown", g.vs_fcfs), ("mean_response", g.response_vs_fcfs)):
        assert got == student_ci([r[stat] / fcfs[r["seed_index"]][stat] for r in mine])
    text = format_torus_tables(groups)
    assert "balancing a=0.9, no migration" in text and "max(t^r, 10 s) / max(request, 10 s)" in text


def test_a_run_the_validator_rejects_writes_nothing(tmp_path, monkeypatch):
    from coschedule.errors import InvalidSchedule
    from coschedule.torus import validate

    def reject(run, **kw):
        raise InvalidSchedule("job 1 attempt 0: not a box")

    monkeypatch.setattr(validate, "validate_torus_run", reject)
    db = tmp_path / "bad.sqlite"
    with pytest.raises(InvalidSchedule, match=r"cell swf:nasa\|2x2x4\|.*: job 1 attempt 0: not a box"):
        run_campaign(tiny(), str(db), workers=1)
    with ResultStore.open(db) as store:
        assert store.count() == 0


def test_resume_after_interruption_gives_the_uninterrupted_numbers(tmp_path, reference_db):
    db = tmp_path / "resumed.sqlite"
    first = run_campaign(tiny(), str(db), workers=1, max_cells=5)
    assert first.computed == 5
    second = run_campaign(tiny(), str(db), workers=2)
    assert second.skipped == 5 and second.computed == CELLS - 5
    assert numbers(db) == numbers(reference_db)
    assert run_campaign(tiny(), str(db), workers=1).computed == 0
    with pytest.raises(CampaignError, match="different campaign spec"):
        run_campaign(tiny(seeds=3), str(db), workers=1)


# ---------------------------------------------------------------------------- the report


def test_student_interval():
    mu, half = student_ci([1.0, 2.0, 3.0])
    assert mu == 2.0 and math.isclose(half, 4.3027 / math.sqrt(3))
    assert math.isnan(student_ci([4.0])[1]) and math.isnan(student_ci([])[0])
    assert math.isclose(t975(40), 2.0211, abs_tol=2e-4) and math.isclose(t975(1000), 1.9623, abs_tol=2e-4)


def test_groups_tables_and_markdown(reference_db):
    with ResultStore.open(reference_db) as store:
        rows = list(store.rows())
    groups = summarize_torus(rows)
    assert len(groups) == 2 * 4 * 2
    g = next(g for g in groups if g.policy == "balancing" and g.parameter == 0.9 and g.failure_count
             and g.load_scale == 1.2)
    mine = [r["mean_bounded_slowdown"] for r in rows if r["policy"] == "balancing" and r["confidence"] == 0.9
            and r["failure_count"] and r["load_scale"] == 1.2]
    assert g.runs == 2 and g.stats["mean_bounded_slowdown"] == student_ci(mine) and g.label == "balancing a=0.9"
    fcfs = {r["seed_index"]: r["mean_bounded_slowdown"] for r in rows if r["policy"] == "fcfs"
            and r["failure_count"] and r["load_scale"] == 1.2}
    paired = [r["mean_bounded_slowdown"] / fcfs[r["seed_index"]] for r in rows if r["policy"] == "balancing"
              and r["confidence"] == 0.9 and r["failure_count"] and r["load_scale"] == 1.2]
    assert g.vs_fcfs == student_ci(paired)
    text = format_torus_tables(groups)
    assert text.startswith("== nasa on the torus 2x2x4, load scale c = 1 (40 jobs; K clustered failures; 2 seeds")
    for title in ("mean bounded slowdown, max(t^r, 10 s) / max(run time, 10 s)",
                  "mean bounded slowdown vs fcfs (same migration) on the same failure traces", "mean wait (s)",
                  "mean response time (s)", "mean response time vs fcfs (same migration)",
                  "capacity utilized / unused / lost"):
        assert title in text
    md = format_torus_markdown(groups)
    assert md.startswith("**nasa on the torus 2x2x4") and "| scheduler" in md
    assert get_simulator("torus").tables is format_torus_tables


@pytest.mark.parametrize("kind", list(FIGURES))
def test_every_figure_draws(reference_db, kind):
    pytest.importorskip("matplotlib")
    with ResultStore.open(reference_db) as store:
        rows = list(store.rows())
    fig = torus_figure(rows, kind=kind)
    assert fig.axes


@pytest.mark.parametrize("kind", ["slowdown-failures", "slowdown-confidence", "slowdown-accuracy"])
def test_every_series_has_a_colour_of_its_own_and_bands_stay_above_one(reference_db, kind):
    """Migration and no migration at one load shared a colour (dashes told them apart); a
    bounded slowdown is never below 1, nor is its band. (Against failures a scheduler keeps its
    colour across loads, told apart by dashes: a colour per scheduler, a dash per load.)"""
    pytest.importorskip("matplotlib")
    from matplotlib.colors import to_hex

    with ResultStore.open(reference_db) as store:
        rows = list(store.rows())
    fig = torus_figure(rows, kind=kind)
    for ax in fig.axes:
        series = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
        assert len(series) >= 2
        key = (lambda ln: (to_hex(ln.get_color()), ln.get_linestyle())) if kind == "slowdown-failures" else \
            (lambda ln: to_hex(ln.get_color()))
        assert len({key(ln) for ln in series}) == len(series), [ln.get_label() for ln in series]
        if kind == "slowdown-failures":  # at one load, a colour per scheduler
            for style in {ln.get_linestyle() for ln in series}:
                same = [ln for ln in series if ln.get_linestyle() == style]
                assert len({to_hex(ln.get_color()) for ln in same}) == len(same)
        for band in ax.collections:
            for path in band.get_paths():
                assert path.vertices[:, 1].min() >= 1.0 - 1e-9


def test_figure_errors(reference_db):
    with ResultStore.open(reference_db) as store:
        rows = list(store.rows())
    with pytest.raises(CampaignError, match="unknown figure 'flows' for a torus campaign"):
        torus_figure(rows, kind="flows")
    with pytest.raises(CampaignError, match="needs two failure counts or more"):
        torus_figure([r for r in rows if r["failure_count"]], kind="slowdown-failures")
    with pytest.raises(CampaignError, match="draws tiebreak runs"):
        torus_figure([r for r in rows if r["policy"] != "tiebreak"], kind="slowdown-accuracy")


def test_cli_simulate_report_and_figure(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from coschedule.cli import main

    spec = tmp_path / "tiny.toml"
    spec.write_text(f"""simulator = "torus"
seed = 5
seeds = 2
shape = "2x2x4"
policies = ["fcfs", "balancing"]
confidence = [0.1, 0.9]
failure_count = [0, 8, 16]
[[source]]
kind = "swf"
path = "{NASA}"
jobs = 30
""")
    db = tmp_path / "t.sqlite"
    assert main(["simulate", str(spec), "--db", str(db), "--workers", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "15 cells computed" in out
    assert main(["report", str(db), "--policy", "fcfs,balancing", "--plot", str(tmp_path / "f.png")]) == 0
    out, err = capsys.readouterr()
    assert "campaign tiny: 15 of 15 cells, one simulation each" in out and "wrote figure" in err
    assert (tmp_path / "f.png").stat().st_size > 0
    assert main(["report", str(db), "--plot", str(tmp_path / "u.svg"), "--figure", "utilization-failures"]) == 0
    assert (tmp_path / "u.svg").is_file()
    assert main(["simulate", str(spec), "--db", str(db), "--node-mtbf", "1e6"]) == 2
    assert "--node-mtbf does not apply to a torus campaign" in capsys.readouterr().err
    assert main(["simulate", str(spec), "--db", str(tmp_path / "s.sqlite"), "--seeds", "1", "--policy", "fcfs",
                 "--dry-run"]) == 0
    assert "(1 failure-free + 2 failure_count x 1 downtime x 1 seeds) x (fcfs) = 3 cells" in capsys.readouterr().out
