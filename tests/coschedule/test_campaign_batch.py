"""Batch campaigns (``simulator = "batch"``): every stored row is one run of ``run_batch`` with the
cell's values and a seed derived from them; the same numbers on 1 or 2 workers, on Dask, after a
resume or a SIGKILL; adding grid values leaves existing cells unchanged; workload sources (SWF
slices, Batsim JSON, the synthetic-generator hook); spec errors before any work; the store's
format and the report's groups."""

from __future__ import annotations

import io
import json
import math
import os
import signal
import sqlite3
import subprocess
import sys
import time
import zlib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from coschedule.batch import run_batch
from coschedule.campaign import (
    CampaignError,
    ResultStore,
    export_csv,
    export_json,
    load_spec,
    run_campaign,
)
from coschedule.campaign import workloads as workloads_module
from coschedule.campaign.batch import (
    BATCH_RESULTS,
    BATCH_SCHEMA,
    BatchSpec,
    batch_cell_id,
    failure_seed,
    simulate_batch_cell,
)
from coschedule.campaign.batch_report import (
    format_batch_markdown,
    format_batch_tables,
    summarize_batch,
)
from coschedule.campaign.simulators import get_simulator
from coschedule.campaign.spec import spec_from_dict
from coschedule.campaign.workloads import (
    BatsimWorkload,
    SwfWorkload,
    SyntheticWorkload,
    register_workload_generator,
    slice_workload,
)
from coschedule.sim.metrics import summarize
from coschedule.sim.workload import Workload, workload_from_swf, write_batsim
from coschedule.swf import read_swf

ROOT = Path(__file__).resolve().parents[2]
KTH = ROOT / "instances" / "traces" / "KTH-SP2-1996-2.1-cln.swf.gz"

#: 100 nodes at this node MTBF: a platform failure every 2.8 hours
MTBF = 1e6


def small_spec(**kw) -> BatchSpec:
    base = {
        "sources": (SwfWorkload(path=str(KTH), name="kth", days=3),),
        "policies": ("conservative", "easy"),
        "node_mtbf": (None, MTBF),
        "downtime": (600.0,),
        "checkpoint_cost": (0.0, 120.0),
        "seeds": 2,
        "seed": 7,
        "name": "small-batch",
        "classes": (8, 32),
    }
    base.update(kw)
    return BatchSpec(**base)


def numbers(db: str | Path) -> dict[str, dict]:
    """Every row but its compute time."""
    with ResultStore.open(db) as store:
        return {r["id"]: {k: v for k, v in r.items() if k != "seconds"} for r in store.rows()}


@pytest.fixture(scope="module")
def reference_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("batch") / "ref.sqlite"
    summary = run_campaign(small_spec(), str(db), workers=1)
    assert summary.computed == summary.cells == 2 * (1 + 2 * 2)
    return db


# ------------------------------------------------------------------------- grid and seeds


def test_grid_collapses_failure_free_settings():
    spec = small_spec(downtime=(0.0, 600.0), checkpoint_cost=(0.0, 60.0, 120.0), recovery_cost=(None, 30.0)).normalized()
    cells = list(spec.cells())
    assert len(cells) == spec.n_cells() == 2 * (1 + 2 * 3 * 2 * 2)
    assert len({c.id for c in cells}) == len(cells)
    free = [c for c in cells if c.node_mtbf is None]
    assert {c.id for c in free} == {"swf:kth|conservative|mtbf=none", "swf:kth|easy|mtbf=none"}
    assert all(c.seed is None and c.seed_index is None and c.checkpoint_cost == 0 for c in free)
    assert "grid: 1 workloads x 2 policies x (1 failure-free + 1 node_mtbf x 2 downtime x 3 checkpoint_cost x " \
           "2 recovery_cost x 2 seeds) = 50 cells, one simulation each" == spec.grid_line()


def test_seeds_come_from_the_values_and_are_common_to_policies_and_settings():
    """``SeedSequence((seed, crc32(key), round(mtbf * 1000), k))``, re-derived here; the same for
    every policy, downtime, checkpoint and recovery cost; distinct across seed indices and MTBFs."""
    spec = small_spec(node_mtbf=(MTBF, 2 * MTBF), downtime=(0.0, 600.0), seeds=3).normalized()
    by: dict[tuple, set] = {}
    for c in spec.cells():
        expected = np.random.SeedSequence([7, zlib.crc32(b"swf:kth"), round(c.node_mtbf * 1000), c.seed_index])
        assert c.seed == int(expected.generate_state(1, np.uint64)[0] >> np.uint64(1))
        by.setdefault((c.node_mtbf, c.seed_index), set()).add(c.seed)
    assert all(len(v) == 1 for v in by.values()) and len(by) == 6
    assert len({next(iter(v)) for v in by.values()}) == 6


def test_every_row_is_one_run_of_run_batch(reference_db):
    """Each row re-derived independently: the workload sliced here, ``run_batch`` with the cell's
    values and seed, ``coschedule.sim.metrics.summarize`` of its result (the spec's classes, the
    default pruning), and the pruned flows by hand; failure-free rows have no failure."""
    full = workload_from_swf(read_swf(KTH))
    w = slice_workload(full, days=3)
    assert w.n > 50 and w.submit[0] == 0 and w.submit[-1] < 3 * 86400
    rows = numbers(reference_db)
    assert len(rows) == 10
    for row in rows.values():
        m = row["node_mtbf"]
        kw = {} if m is None else {"node_mtbf": m, "seed": failure_seed(7, "swf:kth", m, row["seed_index"]),
                                   "downtime": row["downtime"], "checkpoint_cost": row["checkpoint_cost"]}
        result = run_batch(w, row["policy"], **kw)
        metrics = summarize(result, classes=(8, 32)).to_dict()
        assert row["metrics"] == json.loads(json.dumps(metrics))
        assert (row["mean_flow"], row["max_flow"], row["weighted_flow"]) == \
               (metrics["flow"]["mean"], metrics["flow"]["max"], metrics["flow"]["weighted_mean"])
        assert (row["failures"], row["restarts"]) == (len(result.failures), result.restarts)
        assert row["useful"] == metrics["utilization"]["fractions"]["useful"]
        assert math.fsum(metrics["utilization"]["fractions"].values()) == pytest.approx(1.0, rel=1e-9)
        assert row["jobs"] == w.n and row["nodes"] == 100
        cut = math.floor(0.2 * w.n)
        flow, nodes = result.flow[cut:w.n - cut], w.nodes[cut:w.n - cut]
        assert row["mean_flow"] == pytest.approx(float(np.mean(flow)), rel=1e-12)
        assert row["weighted_flow"] == pytest.approx(float((nodes * flow).sum() / nodes.sum()), rel=1e-12)
        classes = row["metrics"]["classes"]
        assert [c["label"] for c in classes] == ["[1, 8)", "[8, 32)", "[32, 100]"]
        assert sum(c["count"] for c in classes) == flow.size == row["metrics"]["jobs_kept"]
        assert row["max_flow"] == max(c["max"] for c in classes if c["count"])
        if m is None:
            assert row["failures"] == row["restarts"] == 0 and row["seed"] is None
        else:
            assert row["failures"] > 0
    free = {r["policy"]: r for r in rows.values() if r["node_mtbf"] is None}
    failing = [r for r in rows.values() if r["node_mtbf"] is not None and r["checkpoint_cost"] == 0]
    assert all(r["mean_flow"] >= free[r["policy"]]["mean_flow"] * 0.9 for r in failing)


# ------------------------------------------------------------ backends, resume, interruption


def test_two_local_workers_give_the_same_numbers(tmp_path, reference_db):
    db = tmp_path / "two.sqlite"
    summary = run_campaign(small_spec(), str(db), workers=2)
    assert summary.workers == 2 and summary.computed == 10
    assert numbers(db) == numbers(reference_db)


def test_dask_local_cluster_gives_the_same_numbers(tmp_path, reference_db):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        db = tmp_path / "dask.sqlite"
        summary = run_campaign(small_spec(), str(db), dask=cluster.scheduler_address)
    assert summary.backend == "dask" and summary.computed == 10
    assert numbers(db) == numbers(reference_db)


def test_reference_event_loop_gives_the_same_numbers(tmp_path, reference_db):
    """``backend="reference"``: run_batch's event loop instead of its compiled kernel."""
    db = tmp_path / "reference.sqlite"
    run_campaign(small_spec(), str(db), workers=1, backend="reference")
    assert numbers(db) == numbers(reference_db)


def test_resume_skips_done_cells_and_ends_with_the_same_numbers(tmp_path, reference_db):
    db = tmp_path / "resume.sqlite"
    first = run_campaign(small_spec(), str(db), workers=1, max_cells=4)
    assert first.computed == 4
    second = run_campaign(small_spec(), str(db), workers=2)
    assert (second.skipped, second.computed) == (4, 6)
    assert run_campaign(small_spec(), str(db), workers=1).computed == 0
    assert numbers(db) == numbers(reference_db)


def test_adding_grid_values_leaves_existing_cells_unchanged(tmp_path, reference_db):
    bigger = small_spec(policies=("conservative", "easy", "fcfs"), node_mtbf=(None, MTBF, 3 * MTBF), seeds=3,
                        downtime=(60.0, 600.0))
    db = tmp_path / "bigger.sqlite"
    run_campaign(bigger, str(db), workers=2)
    ref, new = numbers(reference_db), numbers(db)
    assert set(ref) < set(new)
    assert {k: new[k] for k in ref} == ref


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


SLOW_SPEC = f"""simulator = "batch"
seed = 3
seeds = 3
policies = ["conservative", "easy"]
node_mtbf = ["none", 2592000]
downtime = [600]
checkpoint_cost = [0, 300]
[[source]]
kind = "swf"
path = "{KTH}"
days = 12
"""


@pytest.mark.slow
def test_killed_batch_campaign_resumes_to_the_uninterrupted_numbers(tmp_path):
    """SIGKILL ``coschedule simulate`` and its workers mid-run: the committed cells stay, the file
    is consistent, running the same command again computes only the rest, and the numbers equal
    an uninterrupted run's."""
    spec = tmp_path / "slow.toml"
    spec.write_text(SLOW_SPEC)
    db = tmp_path / "killed.sqlite"
    proc = subprocess.Popen(_cli("simulate", str(spec), "--db", str(db), "--workers", "2", "--quiet"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 120
    while _count(db) < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "the campaign ended before it could be interrupted"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    saved = _count(db)
    total = 2 * (1 + 2 * 3)
    assert 3 <= saved < total
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    done = subprocess.run(_cli("simulate", str(spec), "--db", str(db), "--workers", "2", "--json"),
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["skipped"] == saved and info["computed"] == total - saved
    clean = tmp_path / "clean.sqlite"
    run_campaign(load_spec(spec), str(clean), workers=1)
    assert numbers(db) == numbers(clean)


# ------------------------------------------------------------------------------ sources


def test_batsim_workload_gives_the_numbers_of_the_same_jobs(tmp_path, reference_db):
    """The slice written as Batsim JSON and read back: the same failure-free runs (its failure
    seeds differ: they come from its key)."""
    w = slice_workload(workload_from_swf(read_swf(KTH)), days=3)
    write_batsim(w, tmp_path / "kth3.json")
    spec = small_spec(sources=(BatsimWorkload(path="kth3.json", base=str(tmp_path)),), node_mtbf=(None,))
    db = tmp_path / "batsim.sqlite"
    run_campaign(spec, str(db), workers=1)
    rows, ref = numbers(db), numbers(reference_db)
    for pol in ("conservative", "easy"):
        a, b = rows[f"batsim:kth3|{pol}|mtbf=none"], ref[f"swf:kth|{pol}|mtbf=none"]
        assert {k: v for k, v in a.items() if k not in ("id", "source", "workload")} == \
               {k: v for k, v in b.items() if k not in ("id", "source", "workload")}


def test_slices_and_nodes(tmp_path):
    full = workload_from_swf(read_swf(KTH))
    src = SwfWorkload(path=str(KTH), first_day=10, days=2, jobs=40, nodes=128)
    w = next(src.workloads(0)).workload
    assert w.n == 40 and w.n_nodes == 128 and w.submit[0] >= 0
    t0 = full.submit[0] + 10 * 86400
    first = int(np.searchsorted(full.submit, t0))
    assert w.ids == full.ids[first:first + 40]
    assert np.array_equal(w.submit, full.submit[first:first + 40] - t0)
    assert src.name == "KTH-SP2-1996-2.1-cln"
    empty = SwfWorkload(path=str(KTH), first_day=100000)
    with pytest.raises(CampaignError, match="no job in the slice"):
        empty.check()


def _toy(rng: np.random.Generator, *, jobs: int = 30, nodes: int = 16) -> Workload:
    submit = np.sort(rng.uniform(0, 36000, size=jobs))
    length = rng.uniform(60, 3600, size=jobs)
    return Workload(tuple(f"j{k}" for k in range(jobs)), submit, rng.integers(1, nodes + 1, size=jobs),
                    length * 1.5, length, nodes, name="toy")


def test_synthetic_source_resolves_a_registered_generator(tmp_path, monkeypatch):
    monkeypatch.setattr(workloads_module, "WORKLOAD_GENERATORS", {})
    src = SyntheticWorkload(generator="toy-month", sets=2, params={"jobs": 25})
    with pytest.raises(CampaignError, match=r"unknown workload generator 'toy-month'.*none is registered"):
        src.check()
    register_workload_generator("toy-month", _toy)
    src.check()
    a, b = list(src.workloads(5))
    assert (a.key, b.key) == ("synthetic:toy-month#0", "synthetic:toy-month#1")
    assert a.workload.n == 25 and a.workload != b.workload
    assert next(src.workloads(5)).workload == a.workload  # from the values: (seed, crc32(name), k)
    assert next(src.workloads(6)).workload != a.workload
    spec = BatchSpec(sources=(src,), policies=("easy",), node_mtbf=(None, 2e5), seeds=2, seed=5)
    db = tmp_path / "syn.sqlite"
    assert run_campaign(spec, str(db), workers=1).computed == 2 * (1 + 2)
    with pytest.raises(CampaignError, match=r"generator 'toy-month': .*unexpected keyword argument 'bogus'"):
        SyntheticWorkload(generator="toy-month", params={"bogus": 1}).workloads(0).__next__()
    toml = tmp_path / "syn.toml"
    toml.write_text('simulator = "batch"\npolicies = ["easy"]\n[[source]]\nkind = "synthetic"\n'
                    'generator = "toy-month"\nsets = 3\nparams = { jobs = 10, nodes = 8 }\n')
    loaded = load_spec(toml).normalized()
    assert loaded.n_cells() == 3 and next(loaded.workloads()).workload.n_nodes == 8


def test_the_months_of_sim_synthetic_are_registered(tmp_path):
    """``mira-like`` and ``intrepid-like`` are coschedule.sim.synthetic's months, drawn from the
    source's seed; a slice of one runs as any workload."""
    from coschedule.sim.synthetic import intrepid_like, mira_like

    src = SyntheticWorkload(generator="mira-like", params={"month": "2018-03"}, jobs=150)
    ref = next(src.workloads(9))
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([9, zlib.crc32(b"mira-like"), 0])))
    assert ref.key == "synthetic:mira-like#0" and ref.workload == slice_workload(mira_like("2018-03", seed=rng), jobs=150)
    assert ref.workload.n_nodes == 49152
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([9, zlib.crc32(b"intrepid-like"), 0])))
    assert next(SyntheticWorkload(generator="intrepid-like").workloads(9)).workload == intrepid_like(seed=rng)
    with pytest.raises(CampaignError, match=r"generator 'mira-like': unknown Mira month '1999-01'"):
        next(SyntheticWorkload(generator="mira-like", params={"month": "1999-01"}).workloads(0))
    db = tmp_path / "mira.sqlite"
    spec = BatchSpec(sources=(src,), policies=("easy",), seed=9)
    assert run_campaign(spec, str(db), workers=1).computed == 1
    assert numbers(db)["synthetic:mira-like#0|easy|mtbf=none"]["jobs"] == 150


# ------------------------------------------------------------------------------ TOML specs


def test_toml_spec(tmp_path):
    toml = tmp_path / "b.toml"
    toml.write_text(f'simulator = "batch"\nseed = 7\nseeds = 2\npolicies = ["Conservative", "easy"]\n'
                    f'node_mtbf = ["none", {MTBF}]\ndowntime = 600\ncheckpoint_cost = [120, 0]\n'
                    f'classes = [8, 32]\n[[source]]\nkind = "swf"\nname = "kth"\npath = "{KTH}"\ndays = 3\n')
    spec = load_spec(toml).normalized()
    assert spec.name == "b" and spec.simulator == "batch"
    assert spec.digest() == small_spec().normalized().digest()  # the name is not part of it
    assert spec.to_dict()["node_mtbf"] == [None, MTBF]
    assert replace(spec, max_restarts=5.0).digest() == spec.digest()


@pytest.mark.parametrize("reading", ["count", "nodes"])
def test_reservations_reach_every_conservative_cell(reading):
    """The key ``reservations`` is part of the spec (its digest, each cell; ``nodes`` when not
    given, ``count`` in a grid of FCFS and EASY only, where it changes nothing); a cell of
    conservative backfilling runs with it (its row is run_batch's with the same reading),
    EASY's on counts."""
    spec = small_spec(reservations=reading).normalized()
    assert spec.to_dict()["reservations"] == reading and small_spec().normalized().to_dict()["reservations"] == "nodes"
    assert small_spec(policies=("easy", "fcfs"), reservations="nodes").normalized().to_dict()["reservations"] == "count"
    assert (spec.digest() == small_spec().normalized().digest()) == (reading == "nodes")
    cells = [c for c in spec.cells() if c.node_mtbf is not None and c.checkpoint_cost == 0.0 and c.seed_index == 0]
    assert {c.reservations for c in cells} == {reading}
    for cell in cells:
        row = simulate_batch_cell(cell)
        reading = "count" if cell.policy == "easy" else reading
        result = run_batch(cell.workload, cell.policy, node_mtbf=cell.node_mtbf, seed=cell.seed,
                           downtime=cell.downtime, reservations=reading)
        assert (row["failures"], row["restarts"]) == (len(result.failures), result.restarts)
        assert row["mean_flow"] == summarize(result, classes=(8, 32)).to_dict()["flow"]["mean"]


def test_rigid_spec_may_say_its_simulator():
    table = {"heuristics": ["r-list-0"], "source": [{"kind": "synthetic", "sets": 2}]}
    a = spec_from_dict(table).normalized()
    b = spec_from_dict({**table, "simulator": "rigid"}).normalized()
    assert a == b and a.digest() == b.digest() and "simulator" not in a.to_dict()


@pytest.mark.parametrize(
    "change, message",
    [
        ({"policies": ("sjf",)}, "unknown batch policy 'sjf'"),
        ({"node_mtbf": (0.0,)}, "node_mtbf must be a finite number > 0"),
        ({"node_mtbf": ("often",)}, "node_mtbf must be a finite number > 0, got 'often'"),
        ({"downtime": (-1.0,)}, "downtime must be a finite number >= 0"),
        ({"checkpoint_cost": (math.nan,)}, "checkpoint_cost must be a finite number >= 0"),
        ({"seeds": 0}, "seeds must be an integer >= 1"),
        ({"sources": ()}, "no workload source"),
        ({"prune": 0.5}, r"prune must be a fraction in \[0, 0.5\)"),
        ({"classes": (8, 4)}, "classes: size class boundaries must increase, got 8 then 4"),
        ({"window": (10.0, 5.0)}, "window must have start < end"),
        ({"gamma": 0.0}, "gamma must be a finite number > 0"),
        ({"release": "latest"}, "release must be one of resubmission, first, got 'latest'"),
        ({"reservations": "machines"}, "reservations must be one of count, nodes, got 'machines'"),
        ({"node_mtbf": (50.0,), "checkpoint_cost": (0.0,)}, r"expects .* restarts per run at node_mtbf = 50 s"),
        ({"downtime": (1e13,)}, r"waits for \d+ of the 100 nodes up at once, a chance of .* with downtime = 3.17e\+05 y \(1e\+13 s\)"),
        ({"sources": (SwfWorkload(path="no-such.swf", name="x"),)}, "path = 'no-such.swf': no such trace"),
    ],
)
def test_bad_specs_fail_before_any_work(tmp_path, change, message):
    db = tmp_path / "never.sqlite"
    with pytest.raises(CampaignError, match=message):
        run_campaign(small_spec(**change), str(db), workers=1)
    assert not db.exists()


@pytest.mark.parametrize(
    "text, message",
    [
        ('simulator = "quantum"\n', r"unknown simulator 'quantum'.*valid: batch, redistrib, rigid, torus"),
        ('simulator = "batch"\npolicies = ["easy"]\nheuristics = ["r-list-0"]\n', "unknown key 'heuristics' for a batch"),
        ('simulator = "batch"\npolicies = ["easy"]\n[[source]]\nkind = "files"\n', "kind must be one of swf, batsim"),
        ('simulator = "batch"\npolicies = ["easy"]\n[[source]]\nkind = "swf"\ndays = 2\n', "an swf source needs path"),
        ('simulator = "batch"\npolicies = ["easy"]\n[[source]]\nkind = "synthetic"\n', "needs generator"),
        ('simulator = "batch"\nseeds = "three"\n', "seeds must be an integer"),
        ('simulator = "batch"\nrelease = 1\n', "release must be"),
        ('simulator = "batch"\nreservations = 1\n', "reservations must be"),
    ],
)
def test_bad_toml(tmp_path, text, message):
    p = tmp_path / "bad.toml"
    p.write_text(text)
    with pytest.raises(CampaignError, match=message):
        load_spec(p).normalized().check()


# ------------------------------------------------------------------------------ the store


def test_store_format(reference_db, monkeypatch):
    with sqlite3.connect(reference_db) as conn:
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        cols = [r[1] for r in conn.execute("PRAGMA table_info(cells)")]
    assert meta["version"] == "2" and meta["results"] == BATCH_RESULTS and meta["cells"] == "10"
    assert json.loads(meta["spec"])["simulator"] == "batch"
    assert cols == [*BATCH_SCHEMA.columns, "metrics"]
    with ResultStore.open(reference_db) as store:
        assert store.simulator == "batch" and store.columns == BATCH_SCHEMA.columns
    # a coschedule that reads version 1 only refuses the file in one line (as older ones do)
    import coschedule.campaign.store as store_module

    monkeypatch.setattr(store_module, "DB_VERSION", 1)
    with pytest.raises(CampaignError, match=r"written by a newer coschedule \(version 2\)"):
        ResultStore.open(reference_db)


def test_other_result_columns_are_not_resumed(tmp_path, reference_db, monkeypatch):
    db = tmp_path / "old-metrics.sqlite"
    db.write_bytes(reference_db.read_bytes())
    from coschedule.campaign import simulators

    sim = get_simulator("batch")
    monkeypatch.setitem(simulators._BUILT, "batch", replace(sim, schema=replace(BATCH_SCHEMA, results="batch-summary/0")))
    with pytest.raises(CampaignError, match=r"its result columns are 'batch-summary/2', this coschedule computes "
                                            r"'batch-summary/0'"):
        run_campaign(small_spec(), str(db), workers=1)


def test_database_of_another_spec_is_refused(tmp_path, reference_db):
    db = tmp_path / "other.sqlite"
    db.write_bytes(reference_db.read_bytes())
    with pytest.raises(CampaignError, match=r"different campaign spec \(seeds: 2 there, 3 here\)"):
        run_campaign(small_spec(seeds=3), str(db), workers=1)


def test_csv_json_and_dataframe(reference_db):
    pd = pytest.importorskip("pandas")
    with ResultStore.open(reference_db) as store:
        buf, js = io.StringIO(), io.StringIO()
        assert export_csv(store, buf) == 10
        export_json(store, js, summarize_batch(store.rows()))
        df = store.to_dataframe()
        full = store.to_dataframe(with_arrays=True)
    lines = buf.getvalue().splitlines()
    assert lines[0].split(",") == list(BATCH_SCHEMA.columns)
    data = json.loads(js.getvalue())
    assert data["spec"]["simulator"] == "batch" and len(data["cells"]) == 10 and len(data["groups"]) == 6
    assert all("classes" in c["metrics"] for c in data["cells"])
    assert isinstance(df, pd.DataFrame) and list(df.columns) == list(BATCH_SCHEMA.columns)
    assert str(df["seed"].dtype) == "Int64" and df["seed"].isna().sum() == 2 and df["node_mtbf"].isna().sum() == 2
    assert "metrics" in full.columns


# ------------------------------------------------------------------------------ the report


def test_groups_are_means_over_the_seeds(reference_db):
    rows = list(numbers(reference_db).values())
    groups = summarize_batch(rows)
    assert len(groups) == 2 * 3
    assert [g.node_mtbf for g in groups[:2]] == [None, None]  # failure-free first
    for g in groups:
        mine = [r for r in rows if (r["policy"], r["node_mtbf"], r["checkpoint_cost"]) ==
                (g.policy, g.node_mtbf, g.checkpoint_cost)]
        assert g.runs == len(mine) == (1 if g.node_mtbf is None else 2)
        assert g.mean_flow == pytest.approx(float(np.mean([r["mean_flow"] for r in mine])), rel=1e-12)
        assert g.max_flow_std == pytest.approx(float(np.std([r["max_flow"] for r in mine])), abs=1e-9)
        assert g.failures == pytest.approx(float(np.mean([r["failures"] for r in mine])))
        assert sum(c["jobs"] for c in g.classes) == pytest.approx(g.jobs_kept)
        useful = [r["metrics"]["utilization"]["fractions"]["useful"] for r in mine]
        assert g.utilization is not None and g.utilization["useful"] == pytest.approx(float(np.mean(useful)))
        assert list(g.utilization) == ["useful", "checkpoint", "recovery", "lost", "stealing", "held", "downtime",
                                       "idle"]
    text = format_batch_tables(groups)
    assert "mean flow (s)" in text and "conservative" in text and "flow per size class" in text
    free = next(g for g in groups if g.policy == "easy" and g.node_mtbf is None)
    assert f"{free.mean_flow:,.0f} ± 0" in text
    md = format_batch_markdown(groups)
    assert "| node_mtbf" in md and "|---" in md


def test_report_shows_pruning_classes_and_utilization(reference_db):
    groups = summarize_batch(numbers(reference_db).values())
    text = format_batch_tables(groups)
    g = groups[0]
    assert g.prune == 0.2 and 0 < g.jobs_kept < g.jobs
    assert f"flows of the {g.jobs_kept:g} kept, the first and last 20 % dropped" in text
    assert "utilization: % of the window's node-seconds" in text
    assert "[32, 100]" in text and "mean wait (s) / mean bounded slowdown" in text


def test_metric_options_are_part_of_the_spec(tmp_path):
    """``prune``, ``classes``, ``window`` and ``gamma`` go to ``summarize`` and into the digest."""
    spec = small_spec(node_mtbf=(None,), prune=0.0, classes=None, window=(0.0, 86400.0), gamma=60.0).normalized()
    assert spec.digest() != small_spec(node_mtbf=(None,)).normalized().digest()
    db = tmp_path / "m.sqlite"
    run_campaign(spec, str(db), workers=1)
    w = slice_workload(workload_from_swf(read_swf(KTH)), days=3)
    row = numbers(db)["swf:kth|easy|mtbf=none"]
    result = run_batch(w, "easy")
    assert row["mean_flow"] == float(np.mean(result.flow))  # no pruning
    assert row["metrics"]["utilization"]["window"] == [0.0, 86400.0] and row["metrics"]["gamma"] == 60.0
    assert [c["label"] for c in row["metrics"]["classes"]] == ["[1, 100]"]  # the default classes on 100 nodes


def test_cell_ids():
    assert batch_cell_id("swf:k", "easy", None) == "swf:k|easy|mtbf=none"
    assert batch_cell_id("swf:k", "easy", 1e6, 600, 0, None, 2) == "swf:k|easy|mtbf=1000000.0|D=600.0|C=0.0|R=C|s=2"
    assert batch_cell_id("swf:k", "easy", 1e6, 600, 0, 5.0, 2).endswith("|R=5.0|s=2")


def test_platform_mtbf_scales_with_each_workload():
    """``platform_mtbf`` gives each workload the node MTBF ``platform_mtbf x N`` ([Du2024]'s
    "MTBF of the platform"): the same 3 days of KTH on 100 and on 200 nodes, one platform MTBF:
    node MTBFs 100 x and 200 x it; without the key the digest is unchanged."""
    sources = (SwfWorkload(path=str(KTH), name="kth", days=3), SwfWorkload(path=str(KTH), name="kth200", days=3, nodes=200))
    assert "platform_mtbf" not in small_spec().normalized().to_dict()
    spec = small_spec(sources=sources, node_mtbf=(None,), platform_mtbf=(3600.0,), checkpoint_cost=(0.0,),
                      policies=("easy",)).normalized()
    assert spec.to_dict()["platform_mtbf"] == [3600.0]
    cells = list(spec.cells())
    assert len(cells) == spec.n_cells() == 2 * (1 + 2)
    by = {(c.workload_key, c.seed_index): c.node_mtbf for c in cells if c.node_mtbf is not None}
    assert {k[0]: v for k, v in by.items()} == {"swf:kth": 360000.0, "swf:kth200": 720000.0}
    assert "(0 node_mtbf + 1 platform_mtbf)" in spec.grid_line()


def test_report_plots_the_flows_per_size_class(reference_db, tmp_path):
    """``report --plot`` of a batch campaign draws [Du2024]'s Figs. 1/4/5 panels: one row of two
    panels per source and policy (box plots over the seeds, the failure-free run in red); with
    two failure settings for a source it asks for a filter."""
    from coschedule.cli import main

    out = tmp_path / "flows.png"
    code = main(["report", str(reference_db), "--plot", str(out), "--node-mtbf", "none",
                 "--policy", "easy"])
    assert code == 0 and out.stat().st_size > 10_000
    with ResultStore.open(reference_db) as store:
        rows = [r for r in store.rows() if r["policy"] == "easy" and r["checkpoint_cost"] in (0.0,)]
    from coschedule.campaign.batch_report import batch_figure

    fig = batch_figure(rows)
    assert len(fig.axes) == 2
    box_ax, mean_ax = fig.axes
    assert [t.get_text() for t in mean_ax.get_xticklabels()][-2:] == ["all", "weighted"]
    assert [t.get_text() for t in box_ax.get_xticklabels()][-1] == "all"  # no weighted maximum
    failing = [r for r in rows if r["node_mtbf"] is not None]
    red = mean_ax.collections[0].get_offsets()
    free = next(r for r in rows if r["node_mtbf"] is None)["metrics"]
    assert np.isclose(red[-1][1], free["flow"]["weighted_mean"] / 3600)
    assert len(failing) == 2  # the two seeds make the boxes
    with pytest.raises(Exception, match="one failure setting per source"), ResultStore.open(reference_db) as store:
        batch_figure([r for r in store.rows() if r["policy"] == "easy"])


def test_node_stealing_policies_in_a_campaign(tmp_path):
    """The campaign runs node stealing by name; its rows keep the steal counts, and a
    failure-free run of SFSJ is Baseline's."""
    db = tmp_path / "steal.sqlite"
    run_campaign(small_spec(policies=("baseline", "sfsj", "h213"), checkpoint_cost=(120.0,), seeds=1), str(db),
                 workers=1)
    rows = numbers(db)
    by = {(r["policy"], r["node_mtbf"]): r for r in rows.values()}
    assert set(by) == {(p, m) for p in ("baseline", "sfsj", "h213") for m in (None, MTBF)}
    free = [by[(p, None)] for p in ("baseline", "sfsj", "h213")]
    assert all(r["mean_flow"] == free[0]["mean_flow"] and r["metrics"]["utilization"]["steals"] == 0 for r in free)
    base = by[("baseline", MTBF)]["metrics"]["utilization"]
    assert base["steals"] == 0 and base["replaced"] + base["waited"] == base["failures_hit"]
    stole = 0
    for p in ("sfsj", "h213"):
        u = by[(p, MTBF)]["metrics"]["utilization"]
        # every failure that hit a job met a free node, waited, or decided a steal
        assert u["replaced"] + u["waited"] + u["steals"] + u["steals_cancelled"] >= u["failures_hit"] - u["steals"]
        assert u["replaced"] + u["waited"] < u["failures_hit"] or u["steals"] == 0
        assert sum(u["fractions"].values()) == pytest.approx(1.0, rel=1e-9)
        stole += u["steals"]
    assert stole > 0  # three days of KTH with failures: node stealing happens


@pytest.fixture(scope="module")
def stealing_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("steal") / "steal.sqlite"
    run_campaign(small_spec(policies=("conservative", "sfsj"), node_mtbf=(MTBF, 2 * MTBF), downtime=(600.0, 3600.0),
                            checkpoint_cost=(120.0,), seeds=2), str(db), workers=1)
    return db


def test_report_figures_of_node_stealing(stealing_db, tmp_path):
    """``report --plot --figure ratios|utilization|sweep``: [Du2024] Figs. 6-7 (SFSJ over
    Baseline per size class, one ratio per failure seed), Fig. 3 (the utilization breakdown) and
    Figs. 9-11 (the ratios as the MTBF varies, a line per downtime)."""
    from coschedule.campaign.batch_report import batch_figure
    from coschedule.cli import main

    with ResultStore.open(stealing_db) as store:
        rows = list(store.rows())
    one = [r for r in rows if r["node_mtbf"] == MTBF and r["downtime"] == 600.0]
    fig = batch_figure(one, kind="ratios")
    max_ax, mean_ax = fig.axes
    assert [t.get_text() for t in mean_ax.get_xticklabels()][-2:] == ["all", "weighted"]
    by = {(r["policy"], r["seed_index"]): r for r in one}
    ratios = [by[("sfsj", k)]["max_flow"] / by[("conservative", k)]["max_flow"] for k in (0, 1)]
    medians = [line.get_ydata()[0] for line in max_ax.lines if len(set(line.get_ydata())) == 1]
    assert any(abs(m - float(np.median(ratios))) < 1e-12 for m in medians)
    assert any(list(line.get_ydata()) == [1.0, 1.0] for line in max_ax.lines)  # the line at 1
    fig = batch_figure(rows, kind="utilization")
    (ax,) = fig.axes
    assert len(ax.get_yticklabels()) == 8  # 4 failure settings x 2 policies
    assert len(ax.patches) == 8 * 8  # 8 parts per bar
    fig = batch_figure(rows, kind="sweep")
    assert len(fig.axes) == 3
    nodes = rows[0]["nodes"]
    for ax in fig.axes:
        data = [line for line in ax.lines if line.get_label().startswith("downtime")]
        assert sorted(line.get_label() for line in data) == ["downtime 1 h", "downtime 10 min"]
        assert sorted(data[0].get_xdata()) == pytest.approx([MTBF / nodes / 3600, 2 * MTBF / nodes / 3600])
    util = next(line for line in fig.axes[0].lines if line.get_label() == "downtime 10 min")
    groups = {(g.node_mtbf, g.downtime, g.policy): g for g in summarize_batch(rows)}
    want = groups[(MTBF, 600.0, "sfsj")].utilization["useful"] / groups[(MTBF, 600.0, "conservative")].utilization["useful"]
    assert util.get_ydata()[list(util.get_xdata()).index(min(util.get_xdata()))] == pytest.approx(want, rel=1e-12)
    with pytest.raises(Exception, match="one failure setting per source"):
        batch_figure(rows, kind="ratios")
    with pytest.raises(Exception, match="--baseline easy, which has no run here"):
        batch_figure(rows, kind="sweep", baseline="easy")
    out = tmp_path / "ratios.png"
    assert main(["report", str(stealing_db), "--plot", str(out), "--figure", "utilization"]) == 0
    assert out.stat().st_size > 10_000


def test_report_tells_how_failures_were_met(stealing_db):
    """Tables 5 and 9 of [Du2024]: per policy and setting, the failures that hit a job, met by a
    free node, a steal or a wait (means over the seeds), only when some policy stole a node."""
    with ResultStore.open(stealing_db) as store:
        rows = list(store.rows())
    groups = summarize_batch(rows)
    g = next(g for g in groups if g.policy == "sfsj" and g.node_mtbf == MTBF and g.downtime == 600.0)
    mine = [r["metrics"]["utilization"] for r in rows if r["policy"] == "sfsj" and r["node_mtbf"] == MTBF
            and r["downtime"] == 600.0]
    assert g.reactions["steals"] == pytest.approx(float(np.mean([u["steals"] for u in mine])))
    assert g.reactions["replaced"] + g.reactions["waited"] <= g.reactions["failures_hit"]
    for name, key in (("idle_time", "idle_time_share"), ("idle_before", "idle_before_failure_share")):
        assert g.reactions[name] == pytest.approx(float(np.mean([u[key] for u in mine])))  # Table 5a's readings
    text = format_batch_tables(groups)
    stole = any(gr.reactions and gr.reactions["steals"] for gr in groups)
    assert ("how failures were met" in text) is stole
    base_only = format_batch_tables(summarize_batch([r for r in rows if r["policy"] == "conservative"]))
    assert "how failures were met" not in base_only


def test_a_cell_validates_its_run(monkeypatch):
    """A cell's run goes through the validator before its row is made (as `coschedule batch`):
    a run the validator refuses fails the cell with the validator's line."""
    import coschedule.sim.validate as validate_module
    from coschedule.errors import InvalidSchedule

    cell = next(c for c in small_spec().normalized().cells() if c.node_mtbf is not None)
    seen = []
    real = validate_module.validate_run
    monkeypatch.setattr(validate_module, "validate_run", lambda r, **kw: seen.append(r) or real(r, **kw))
    row = simulate_batch_cell(cell)
    assert len(seen) == 1 and row["failures"] == len(seen[0].failures)

    def refuse(result, **kw):
        raise InvalidSchedule("job j1: attempt 0 runs on node 3 while it is down at t = 5")

    monkeypatch.setattr(validate_module, "validate_run", refuse)
    with pytest.raises(InvalidSchedule, match="node 3 while it is down"):
        simulate_batch_cell(cell)


def test_cost_estimates_grow_with_the_expected_failures():
    """The ETA weighs cells by batch_costs: a failure-free cell costs its fixed part and its jobs,
    a cell with failures more, and more the more failures its MTBF promises (superlinearly)."""
    from coschedule.campaign.simulators.batch.adapter import batch_costs

    spec = small_spec(node_mtbf=(None, 1e7, 1e6, 1e5), checkpoint_cost=(0.0,), policies=("easy",), seeds=1)
    costs = {c.node_mtbf: batch_costs(spec)[c.id] for c in spec.cells()}
    n = next(iter(spec.cells())).workload.n
    assert costs[None] == pytest.approx(0.3 + 5e-5 * n)
    assert costs[None] < costs[1e7] < costs[1e6] < costs[1e5]
    extra = {m: costs[m] - costs[None] for m in (1e7, 1e6, 1e5)}
    assert extra[1e5] / extra[1e6] == pytest.approx(10 ** 1.5, rel=1e-9)  # F^1.5, F proportional to 1/MTBF
