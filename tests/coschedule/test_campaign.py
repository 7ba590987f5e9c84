"""Campaign engine: grid and seeds, the SQLite store, resume after interruption (including
SIGKILL), identical numbers for every backend and worker count, spec errors before any work,
and every stored number checked against the reference heuristics and the validator."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from coschedule.campaign import (
    CampaignError,
    CampaignSpec,
    FilesSource,
    ResultStore,
    SyntheticSource,
    TraceSource,
    export_csv,
    export_json,
    format_markdown,
    format_tables,
    load_spec,
    parse_values,
    plot_groups,
    run_campaign,
    summarize,
)
from coschedule.campaign.progress import Progress, campaign_costs, cell_cost
from coschedule.campaign.spec import cell_id, expected_failures, replace_spec, spec_from_dict
from coschedule.campaign.store import COLUMNS
from coschedule.generators import random_rigid
from coschedule.heuristics import RIGID_HEURISTICS
from coschedule.io import save_rigid_instance
from coschedule.rigid import FailureScenario, SilentErrors, lower_bound, rigid_instance
from coschedule.validate import validate_rigid

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "instances" / "traces"  # shipped with the repository
KTH = TRACES / "KTH-SP2-1996-2.1-cln.swf.gz"

#: columns that depend on the machine's speed, not on the spec
TIMING = ("seconds",)


def small_spec(**kw) -> CampaignSpec:
    base = {
        "sources": (SyntheticSource(sets=3, n=12, procs=(1, 60), times=(1.0, 50.0), P=100),),
        "heuristics": ("r-list-0", "r-list-q", "r-shelffill-b"),
        "priorities": ("LPT", "RANDOM"),
        "qbar": (0.0, 0.4),
        "scenarios": 30,
        "seed": 5,
        "name": "small",
    }
    base.update(kw)
    return CampaignSpec(**base)


def numbers(db: str | Path, arrays: bool = False) -> dict[str, dict]:
    with ResultStore.open(db) as store:
        out = {}
        for row in store.rows(with_arrays=arrays):
            for k in TIMING:
                row.pop(k)
            out[row["id"]] = row
        return out


def same(a: dict[str, dict], b: dict[str, dict]) -> bool:
    if a.keys() != b.keys():
        return False
    for k, ra in a.items():
        rb = b[k]
        for col in ra:
            va, vb = ra[col], rb[col]
            if isinstance(va, np.ndarray) or isinstance(vb, np.ndarray):
                if not np.array_equal(va, vb):
                    return False
            elif va != vb:
                return False
    return True


@pytest.fixture(scope="module")
def reference_db(tmp_path_factory) -> Path:
    """The small campaign, uninterrupted, in this process."""
    db = tmp_path_factory.mktemp("ref") / "ref.sqlite"
    summary = run_campaign(small_spec(keep_makespans=True), str(db), workers=1)
    assert summary.computed == summary.cells == 3 * 3 * 2 * 2
    return db


# ------------------------------------------------------------------------- grid and seeds


def test_grid_size_ids_and_laziness():
    spec = small_spec().normalized()
    cells = spec.cells()
    assert iter(cells) is cells  # a generator: cells are made one at a time
    ids = [c.id for c in cells]
    assert len(ids) == spec.n_cells() == 36
    assert len(set(ids)) == len(ids)
    # costliest first: the highest qbar and R-List-Q lead
    first = next(spec.cells())
    assert first.qbar == 0.4 and first.heuristic == "r-list-q"


def test_scenarios_are_common_to_heuristics_and_priorities():
    spec = small_spec().normalized()
    by_key: dict[tuple, set] = {}
    for c in spec.cells():
        by_key.setdefault((c.instance_key, c.qbar), set()).add(c.scenario_seed)
    assert all(len(v) == 1 for v in by_key.values())
    assert len({next(iter(v)) for v in by_key.values()}) == len(by_key)  # distinct otherwise


def test_adding_a_grid_value_leaves_existing_cells_unchanged(tmp_path, reference_db):
    bigger = small_spec(qbar=(0.0, 0.2, 0.4), keep_makespans=True)
    db = tmp_path / "bigger.sqlite"
    run_campaign(bigger, str(db), workers=1)
    ref = numbers(reference_db, arrays=True)
    new = numbers(db, arrays=True)
    assert set(ref) < set(new)
    assert same(ref, {k: new[k] for k in ref})


def test_normalization_and_names():
    spec = small_spec(heuristics=("R-List-0", "r-list-0"), priorities=("lpt",), qbar=(0.4, 0.0, 0.4)).normalized()
    assert spec.heuristics == ("r-list-0",) and spec.priorities == ("LPT",) and spec.qbar == (0.0, 0.4)
    assert cell_id("x#0", None, 0.1, "r-list-0", "LPT") != cell_id("x#0", None, 0.1 + 1e-8, "r-list-0", "LPT")


def test_parse_values():
    assert parse_values("0:0.9:0.1", float, "q") == tuple(round(0.1 * i, 12) for i in range(10))
    assert parse_values("5000:20000:2500", int, "P") == (5000, 7500, 10000, 12500, 15000, 17500, 20000)
    assert parse_values("0, 0.05,0.1", float, "q") == (0.0, 0.05, 0.1)
    for bad in ("0:1", "a,b", "1:0:0.1", "0:1:0"):
        with pytest.raises(CampaignError, match="START:STOP:STEP"):
            parse_values(bad, float, "--qbar")


# ---------------------------------------------------------------- numbers vs the references


def test_every_stored_number_matches_the_reference_heuristics_and_validator(reference_db):
    """Each cell re-derived independently: scenarios from the cell's seed, the schedule of the
    reference implementation (not the fast kernels), checked by the validator, divided by
    ``coschedule.rigid.lower_bound``."""
    spec = small_spec(keep_makespans=True).normalized()
    rows = numbers(reference_db, arrays=True)
    checked = 0
    for cell in spec.cells():
        row = rows[cell.id]
        inst = cell.instance()
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(list(cell.scenario_seed))))
        failures = SilentErrors.from_qbar(inst, cell.qbar).sample(inst, size=cell.scenarios, seed=rng)
        fn = RIGID_HEURISTICS[cell.heuristic]
        ratios = []
        for s in range(0, cell.scenarios, 7):  # a sample of the scenarios: the reference is slow
            f = FailureScenario(tuple(int(x) for x in failures[s]))
            prio_rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(list(cell.priority_seed))))
            sched = fn(inst, f, priority=cell.priority, seed=prio_rng)
            T = validate_rigid(inst, f, sched)
            L = lower_bound(inst, f)
            assert row["makespans"][s] == pytest.approx(T, rel=1e-12)
            assert row["lower_bounds"][s] == pytest.approx(L, rel=1e-12)
            assert T >= L * (1 - 1e-9)
            ratios.append(T / L)
            checked += 1
        all_ratios = row["makespans"] / row["lower_bounds"]
        assert row["mean_ratio"] == pytest.approx(float(np.mean(all_ratios)), rel=1e-12)
        assert row["max_ratio"] == pytest.approx(float(np.max(all_ratios)), rel=1e-12)
        assert row["max_ratio"] >= max(ratios) - 1e-12
        assert row["min_ratio"] >= 1 - 1e-9
        assert row["mean_failures"] == pytest.approx(float(failures.sum(axis=1).mean()))
        if cell.qbar == 0:
            assert row["mean_failures"] == 0 and row["std_ratio"] == pytest.approx(0, abs=1e-12)
    assert checked >= 36 * 4


def test_guarantee_of_r_list_0_holds_in_every_cell(reference_db):
    """Prop. 2 (greedy, any priority): T <= (2 - 1/P) L(f) on every scenario."""
    for row in numbers(reference_db).values():
        if row["heuristic"] == "r-list-0":
            assert row["max_ratio"] <= 2 - 1 / row["P"] + 1e-9


# ------------------------------------------------------------ backends, resume, interruption


def test_two_local_workers_give_the_same_numbers(tmp_path, reference_db):
    db = tmp_path / "two.sqlite"
    summary = run_campaign(small_spec(keep_makespans=True), str(db), workers=2)
    assert summary.workers == 2 and summary.computed == 36
    assert same(numbers(db, arrays=True), numbers(reference_db, arrays=True))


def test_dask_local_cluster_gives_the_same_numbers(tmp_path, reference_db):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        db = tmp_path / "dask.sqlite"
        summary = run_campaign(small_spec(keep_makespans=True), str(db), dask=cluster.scheduler_address)
    assert summary.backend == "dask" and summary.computed == 36
    assert same(numbers(db, arrays=True), numbers(reference_db, arrays=True))


def test_unreachable_dask_scheduler_fails_before_creating_the_file(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    import coschedule.campaign.run as run_module
    from coschedule.errors import SolverUnavailable

    monkeypatch.setattr(run_module, "DASK_CONNECT_TIMEOUT", "1s")
    db = tmp_path / "never.sqlite"
    with pytest.raises(SolverUnavailable, match=r"cannot reach the Dask scheduler at tcp://127.0.0.1:1"):
        run_campaign(small_spec(), str(db), dask="tcp://127.0.0.1:1")
    assert not db.exists()


def test_resume_skips_done_cells_and_ends_with_the_same_numbers(tmp_path, reference_db):
    db = tmp_path / "resume.sqlite"
    spec = small_spec(keep_makespans=True)
    first = run_campaign(spec, str(db), workers=1, max_cells=10)
    assert first.computed == 10
    second = run_campaign(spec, str(db), workers=2)
    assert second.skipped == 10 and second.computed == 26
    third = run_campaign(spec, str(db), workers=1)
    assert third.computed == 0 and third.skipped == 36
    assert same(numbers(db, arrays=True), numbers(reference_db, arrays=True))


def _cli(*argv: str) -> list[str]:
    return [sys.executable, "-c", "import sys; from coschedule.cli import main; sys.exit(main())", *argv]


def _count(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM cells").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


SLOW_ARGS = ("--synthetic", "2", "--jobs", "60", "--heuristics", "r-list-q,r-list-1", "--priorities",
             "LPT,LA,HPA,SPT", "--qbar", "0.3,0.5,0.6,0.7", "--scenarios", "60", "--seed", "3")


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_killed_campaign_resumes_to_the_uninterrupted_numbers(tmp_path, sig):
    """Kill ``coschedule simulate`` mid-run (SIGKILL: no cleanup at all; SIGINT: Ctrl-C), check the
    file, resume, and compare with an uninterrupted run of the same command."""
    db = tmp_path / "killed.sqlite"
    proc = subprocess.Popen(_cli("simulate", *SLOW_ARGS, "--db", str(db), "--workers", "2", "--quiet"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while _count(db) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "the campaign ended before it could be interrupted"
    if sig == signal.SIGKILL:
        os.killpg(proc.pid, signal.SIGKILL)  # the workers die too, as with a killed job
    else:
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
    _, err = proc.communicate(timeout=60)
    if sig == signal.SIGINT:
        assert proc.returncode == 130
        assert "interrupted" in err and "run the same command again to resume" in err
        assert "Traceback" not in err
    saved = _count(db)
    total = 2 * 2 * 4 * 4
    assert 3 <= saved < total
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    done = subprocess.run(_cli("simulate", *SLOW_ARGS, "--db", str(db), "--workers", "2", "--json"),
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["skipped"] == saved and info["computed"] == total - saved
    clean = tmp_path / "clean.sqlite"
    ref = subprocess.run(_cli("simulate", *SLOW_ARGS, "--db", str(clean), "--workers", "1", "--json"),
                         capture_output=True, text=True, timeout=300, check=False)
    assert ref.returncode == 0, ref.stderr
    assert same(numbers(db), numbers(clean))


# ------------------------------------------------------------------- errors before any work


def test_database_of_another_spec_is_refused_untouched(tmp_path, reference_db):
    db = tmp_path / "other.sqlite"
    db.write_bytes(reference_db.read_bytes())
    before = numbers(db)
    with pytest.raises(CampaignError, match="different campaign spec.*scenarios: 30 there, 31 here"):
        run_campaign(small_spec(keep_makespans=True, scenarios=31), str(db), workers=1)
    assert same(numbers(db), before)


def test_not_a_database(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_text("hello, I am not SQLite" * 100)
    with pytest.raises(CampaignError, match="not a campaign database"):
        ResultStore.open(bad)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"heuristics": ("r-list-7",)}, "unknown heuristic 'r-list-7'"),
        ({"priorities": ("LONGEST",)}, "unknown priority 'LONGEST'"),
        ({"qbar": (0.2, 1.0)}, r"qbar must be in \[0, 1\), got 1.0"),
        ({"qbar": (-0.1,)}, r"qbar must be in \[0, 1\)"),
        ({"scenarios": 0}, "scenarios must be a positive integer"),
        ({"P": (50,)}, "needs 60 processors, more than P = 50"),
        ({"sources": ()}, "no instance source"),
    ],
)
def test_bad_specs_fail_before_any_work(tmp_path, change, message):
    db = tmp_path / "never.sqlite"
    spec = small_spec(sources=(SyntheticSource(sets=2, n=5, procs=(60, 60), times=(1.0, 2.0), P=100),))
    with pytest.raises(CampaignError, match=message):
        run_campaign(replace_spec(spec, **change), str(db), workers=1)
    assert not db.exists()


def test_too_many_expected_failures_is_refused(tmp_path):
    src = FilesSource(("skewed.json",), base=str(tmp_path))
    save_rigid_instance(rigid_instance([(1, 1.0)] * 40 + [(4, 1e6)], 4), tmp_path / "skewed.json")
    spec = small_spec(sources=(src,), qbar=(0.5,), max_failures=1000)
    inst = next(spec.instances()).instance
    assert expected_failures(inst, 0.5) > 1000
    with pytest.raises(CampaignError, match=r"file:skewed.json: qbar = 0.5 expects .* failures per scenario"):
        run_campaign(spec, str(tmp_path / "x.sqlite"), workers=1)


def test_expected_failures_matches_the_sampled_mean():
    inst = random_rigid(10, 8, seed=4)
    model = SilentErrors.from_qbar(inst, 0.6)
    f = model.sample(inst, size=20000, seed=1)
    assert f.sum(axis=1).mean() == pytest.approx(expected_failures(inst, 0.6), rel=0.05)


def test_trace_that_does_not_parse(tmp_path):
    bad = tmp_path / "bad.swf"
    bad.write_text("; MaxProcs: 8\n1 0 0 10 4\n")
    spec = small_spec(sources=(TraceSource(str(bad)),))
    with pytest.raises(CampaignError, match=r"bad.swf:2"):
        run_campaign(spec, str(tmp_path / "x.sqlite"), workers=1)
    assert not (tmp_path / "x.sqlite").exists()


# ------------------------------------------------------------------------------ TOML specs


def test_toml_spec_and_relative_paths(tmp_path):
    inst = random_rigid(6, 8, seed=3)
    (tmp_path / "inst").mkdir()
    save_rigid_instance(inst, tmp_path / "inst" / "a.json")
    save_rigid_instance(random_rigid(5, 8, seed=4), tmp_path / "inst" / "b.json")
    toml = tmp_path / "c.toml"
    toml.write_text(
        'seed = 1\nscenarios = 10\nheuristics = ["r-list-0", "R-SHELF-B"]\nqbar = [0, 0.3]\n'
        '[[source]]\nkind = "files"\npaths = ["inst/*.json"]\n'
        '[[source]]\nkind = "synthetic"\nname = "syn"\nsets = 2\nn = 4\nprocs = [1, 8]\nP = 8\n'
    )
    spec = load_spec(toml).normalized()
    assert spec.name == "c" and spec.n_instances() == 4 and spec.n_cells() == 16
    keys = [r.key for r in spec.instances()]
    assert keys[:2] == ["file:inst/a.json", "file:inst/b.json"]  # relative: the digest travels
    other = tmp_path / "elsewhere"
    other.mkdir()
    os.chdir(other)  # relative to the TOML file, not to the working directory
    assert load_spec(toml).normalized().digest() == spec.digest()


@pytest.mark.parametrize(
    "text, message",
    [
        ("heuristics = [", "not valid TOML"),
        ('heuristics = ["r-list-0"]\nbogus = 1\n', "unknown key 'bogus'"),
        ('heuristics = ["r-list-0"]\nscenarios = "many"\n', "scenarios must be an integer"),
        ('heuristics = ["r-list-0"]\n[[source]]\nkind = "magic"\n', "kind must be one of"),
        ('heuristics = ["r-list-0"]\n[[source]]\nkind = "synthetic"\nsize = 3\n', "unknown key 'size'"),
        ('heuristics = ["r-list-0"]\n[[source]]\nkind = "files"\npaths = ["nothing-*.json"]\n',
         "no file matches"),
    ],
)
def test_bad_toml(tmp_path, text, message):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    with pytest.raises(CampaignError, match=message):
        spec = load_spec(p)
        spec.normalized().check()


# ------------------------------------------------------------------------ traces (real data)


def test_trace_day_sets_campaign(tmp_path):
    spec = CampaignSpec(sources=(TraceSource(str(KTH), days=2),), heuristics=("r-list-0", "r-shelffill-b"),
                        qbar=(0.0, 0.1), scenarios=20, seed=1)
    summary = run_campaign(spec, str(tmp_path / "kth.sqlite"), workers=1)
    assert summary.computed == 2 * 2 * 2
    rows = numbers(tmp_path / "kth.sqlite")
    assert {r["P"] for r in rows.values()} == {100}  # the machine size of the header
    assert all(r["instance"].startswith("swf:KTH-SP2-1996-2.1-cln:day") for r in rows.values())
    assert all(r["min_ratio"] >= 1 - 1e-9 for r in rows.values())


def test_max_area_ratio_filters_days(tmp_path):
    lines = ["; MaxProcs: 10", "; UnixStartTime: 0"]
    # day 0: equal jobs (ratio 1); day 1: one job 500 times the others' area (ratio 5000 / 1008)
    lines += [f"{i} {100 * i} 0 10 1 -1 -1 1 -1 -1 1 1 1 1 1 1 -1 -1" for i in range(1, 5)]
    lines += [f"{i} {86400 + i} 0 10 1 -1 -1 1 -1 -1 1 1 1 1 1 1 -1 -1" for i in range(5, 9)]
    lines += ["9 86500 0 500 10 -1 -1 10 -1 -1 1 1 1 1 1 1 -1 -1"]
    p = tmp_path / "t.swf"
    p.write_text("\n".join(lines) + "\n")
    assert TraceSource(str(p)).size() == 2
    only = TraceSource(str(p), max_area_ratio=4)
    assert [r.key for r in only.instances(0)] == ["swf:t:day000"]


# --------------------------------------------------------------------- report and export


def test_summary_groups_over_instances(reference_db):
    rows = list(numbers(reference_db).values())
    groups = summarize(rows)
    assert len(groups) == 3 * 2 * 2
    for g in groups:
        mine = [r["mean_ratio"] for r in rows if r["heuristic"] == g.heuristic and r["priority"] == g.priority
                and r["qbar"] == g.qbar]
        assert g.sets == len(mine) == 3
        assert g.mean == pytest.approx(float(np.mean(mine)))
        assert g.std == pytest.approx(float(np.std(mine)))
        assert g.max == pytest.approx(max(mine))
        assert g.worst >= g.max * (1 - 1e-12)  # the mean of equal ratios may round up
    text = format_tables(groups)
    assert "R-List-0" in text and "R-ShelfFill-B" in text and "*" in text
    best = min((g for g in groups if g.heuristic == "r-list-0" and g.qbar == 0.4), key=lambda g: g.mean)
    assert f"{best.mean:7.4f}*" in text


def test_markdown_tables_hold_the_group_numbers(reference_db):
    groups = summarize(numbers(reference_db).values())
    md = format_markdown(groups)
    lines = md.splitlines()

    def cells(line: str) -> list[str]:
        return [c.strip() for c in line.strip("|").split("|")]

    head = next(i for i, line in enumerate(lines) if cells(line)[:1] == ["R-List-0, qbar"])
    assert cells(lines[head]) == ["R-List-0, qbar", "LPT", "RANDOM"]
    # every table lines up in the source: its lines have one length, numbers right-aligned
    tables = [t.splitlines() for t in md.split("\n\n") if t.startswith("|")]
    assert len(tables) >= 4
    for table in tables:
        assert len({len(line) for line in table}) == 1, table
        assert all(c.endswith(":") for c in table[1].strip("|").split("|")[1:])
    # Table 1 layout: one row per qbar with the failures, then avg/std/max of each heuristic
    head = next(i for i, line in enumerate(lines) if cells(line)[:2] == ["LPT: qbar", "failures"])
    row = cells(lines[head + 3])  # qbar = 0.4 (after the separator and the qbar = 0 row)
    g = next(g for g in groups if g.heuristic == "r-list-0" and g.priority == "LPT" and g.qbar == 0.4)
    assert row[0] == "0.4" and float(row[1]) == pytest.approx(g.failures, abs=0.005)
    assert float(row[2]) == pytest.approx(g.mean, abs=5e-5)
    # one number format: every ratio with four decimals (std included), failures with two
    assert all(len(c.split(".")[1]) == 4 for c in row[2:] if c != "-")
    assert len(row[1].split(".")[1]) == 2
    best = min((g for g in groups if g.heuristic == "r-list-q" and g.qbar == 0.0), key=lambda g: g.mean)
    assert f"**{best.mean:.4f}**" in md


def test_csv_and_json_exports_round_trip(reference_db):
    with ResultStore.open(reference_db) as store:
        buf = io.StringIO()
        assert export_csv(store, buf) == 36
        js = io.StringIO()
        export_json(store, js, summarize(store.rows()))
    rows = list(csv.DictReader(io.StringIO(buf.getvalue())))
    stored = numbers(reference_db)
    assert len(rows) == 36
    for r in rows:
        assert float(r["mean_ratio"]) == stored[r["id"]]["mean_ratio"]  # repr round-trips exactly
    data = json.loads(js.getvalue())
    assert data["spec"]["scenarios"] == 30 and len(data["cells"]) == 36 and len(data["groups"]) == 12


def test_plot_writes_png_and_svg(tmp_path, reference_db):
    pytest.importorskip("matplotlib")
    groups = summarize(numbers(reference_db).values())
    fig = plot_groups(groups, tmp_path / "fig")  # no suffix: PNG and SVG
    assert len([ax for ax in fig.axes if ax.get_visible()]) == 4  # 3 heuristics and the best of each
    assert (tmp_path / "fig.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (tmp_path / "fig.svg").read_bytes()[:500]


def test_groups_pool_the_cells_standard_deviations(reference_db):
    rows = list(numbers(reference_db, arrays=True).values())
    for g in summarize(rows):
        ratios = np.concatenate([r["makespans"] / r["lower_bounds"] for r in rows
                                 if (r["source"], r["P_grid"], r["qbar"], r["heuristic"], r["priority"])
                                 == (g.source, g.P, g.qbar, g.heuristic, g.priority)])
        assert ratios.size == g.sets * 30
        assert math.isclose(g.pooled_std, float(ratios.std()), rel_tol=1e-9, abs_tol=1e-12)
        assert math.isclose(g.mean, float(ratios.mean()), rel_tol=1e-12)
        assert g.platform == 100


def test_progress_eta_weighs_work_not_cells():
    """10 of 100 cells done in 10 s, but they were the costly half of the work: ETA 10 s, not 90 s."""
    bar = Progress(total=100, total_cost=200.0, stream=io.StringIO(), mode="off")
    bar.t0 -= 10.0
    bar.update(cost=100.0, cells=10)
    assert bar.eta() == pytest.approx(10.0, rel=1e-3)
    assert "10/100 cells (50.0% of the estimated work)" in bar.status()
    assert "ETA 0:10" in bar.status()
    fresh = Progress(total=5, total_cost=5.0, done=2, done_cost=2.0, mode="off")
    assert fresh.eta() is None and "ETA ?" in fresh.status()  # nothing done by this run yet


def test_cell_cost_estimator():
    # R-List-Q is the costliest per attempt, the shelves the cheapest; cost grows with attempts
    base = {"n": 100, "expected_attempts": 150.0, "scenarios": 1000}
    assert cell_cost("r-list-q", **base) > cell_cost("r-list-1", **base) > cell_cost("r-list-0", **base)
    assert cell_cost("r-list-0", **base) > cell_cost("r-shelffill-b", **base)
    assert cell_cost("r-list-q", 100, 8000.0, 1000) > 20 * cell_cost("r-list-q", 100, 150.0, 1000)
    assert cell_cost("r-list-0", **base, numba=False) > 5 * cell_cost("r-list-0", **base)
    # one pass over the instances: every cell of the grid gets a cost, high qbar costs more
    spec = small_spec().normalized()
    costs = campaign_costs(spec)
    assert set(costs) == {c.id for c in spec.cells()}
    for c in spec.cells():
        if c.qbar > 0:
            low = cell_id(c.instance_key, c.P_grid, 0.0, c.heuristic, c.priority)
            assert costs[c.id] > costs[low]


def test_every_registry_name_has_its_own_cost_weight_and_place_in_the_grid():
    from coschedule.campaign.progress import HEURISTIC_WEIGHTS, REFERENCE_WEIGHTS

    # a name missing from the tables would fall back to the costliest weight (R-List-Q kept's)
    assert set(HEURISTIC_WEIGHTS) == set(REFERENCE_WEIGHTS) == set(RIGID_HEURISTICS)
    base = {"n": 100, "expected_attempts": 150.0, "scenarios": 1000}
    for own in ("r-shelffill-b", "r-shelffill-nb"):
        for refill in ("failed", "queue"):
            h = f"{own}-{refill}"
            for numba in (True, False):
                # the refill fillings scan the queue: dearer than Alg. 3, far below R-List-Q
                assert (cell_cost(own, **base, numba=numba) < cell_cost(h, **base, numba=numba)
                        < cell_cost("r-list-q", **base, numba=numba))
    # costliest first: within a qbar, a refill filling runs before R-List-0 and Alg. 3
    spec = CampaignSpec(sources=(SyntheticSource(sets=1, n=10),),
                        heuristics=("r-shelffill-b", "r-list-0", "r-shelffill-nb-queue"),
                        qbar=(0.0, 0.5), scenarios=10, seed=1).normalized()
    top = [c.heuristic for c in spec.cells() if c.qbar == 0.5]
    assert top == ["r-shelffill-nb-queue", "r-list-0", "r-shelffill-b"]


def test_progress_log_lines_when_not_a_terminal(tmp_path):
    buf = io.StringIO()
    spec = CampaignSpec(sources=(SyntheticSource(sets=2, n=30),), heuristics=("r-list-q", "r-list-0"),
                        qbar=(0.0, 0.5), scenarios=200, seed=1)
    run_campaign(spec, tmp_path / "p.sqlite", workers=1, progress=True, progress_stream=buf,
                 log_interval=0.02)
    text = buf.getvalue()
    lines = text.splitlines()
    assert len(lines) >= 2, text
    assert all(line.startswith("simulate campaign: ") and "cells" in line for line in lines)
    assert "\x1b" not in text and "\r" not in text  # no escape code, no carriage return
    assert lines[-1].endswith("(done)") and "8/8 cells" in lines[-1]


def test_progress_bar_only_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    bar = Progress(total=3, total_cost=3.0, stream=tty, refresh=0.01)
    bar.update(1.0)
    bar.close()
    assert "1/3 cells" in tty.getvalue() and "\r" in tty.getvalue()
    plain = io.StringIO()
    Progress(total=3, stream=plain, log_interval=60).close()  # auto: not a terminal
    assert "\r" not in plain.getvalue() and "\x1b" not in plain.getvalue()
    quiet = io.StringIO()
    off = Progress(total=10, stream=quiet, mode="off")
    off.update(5)
    off.close()
    assert quiet.getvalue() == ""


def test_spec_from_dict_rejects_non_tables():
    with pytest.raises(CampaignError, match="expected a table"):
        spec_from_dict([1, 2])
    assert math.isfinite(small_spec().normalized().max_failures)


# ------------------------------------------------------------------------------ pandas


def test_store_and_groups_to_dataframe(reference_db):
    pd = pytest.importorskip("pandas")
    from coschedule.campaign import groups_to_dataframe

    with ResultStore.open(reference_db) as store:
        df = store.to_dataframe()
        rows = list(store.rows())
        arrays = store.to_dataframe(with_arrays=True)
        groups = summarize(store.rows())
    assert isinstance(df, pd.DataFrame) and list(df.columns) == list(COLUMNS) and len(df) == 36
    assert df["id"].tolist() == [r["id"] for r in rows]
    assert df["mean_ratio"].tolist() == [r["mean_ratio"] for r in rows]
    assert str(df["P_grid"].dtype) == "Int64" and df["P_grid"].isna().all()
    assert np.array_equal(arrays["makespans"].iloc[0], numbers(reference_db, arrays=True)[rows[0]["id"]]["makespans"])
    gdf = groups_to_dataframe(groups)
    assert len(gdf) == len(groups) == 12
    assert list(gdf.columns)[:6] == ["source", "P", "qbar", "heuristic", "priority", "sets"]
    assert gdf["mean"].tolist() == [g.mean for g in groups]
    assert {"pooled_std", "platform"} <= set(gdf.columns)


def test_dataframe_without_pandas_names_the_extra(reference_db, monkeypatch):
    from coschedule.campaign import groups_to_dataframe
    from coschedule.errors import SolverUnavailable

    monkeypatch.setitem(sys.modules, "pandas", None)
    with ResultStore.open(reference_db) as store, pytest.raises(SolverUnavailable,
                                                               match=r"coschedule-hpc\[pandas\]"):
        store.to_dataframe()
    with pytest.raises(SolverUnavailable, match=r"coschedule-hpc\[pandas\]"):
        groups_to_dataframe([])
