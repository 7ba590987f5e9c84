"""``coschedule simulate`` and ``coschedule report`` on batch campaigns (``simulator = "batch"``):
the bundled demo spec, a campaign from flags only, the report's tables, filters and exports, and
one-line errors (exit status 2) for flags of the other simulator."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from coschedule.campaign import ResultStore, load_spec
from coschedule.campaign.batch import BATCH_SCHEMA
from coschedule.cli import main

ROOT = Path(__file__).resolve().parents[2]
KTH = "KTH-SP2-1996-2.1-cln.swf.gz"
GRID = ("--workload", KTH, "--days", "2", "--policy", "conservative,easy", "--node-mtbf", "none,1e6",
        "--downtime", "600", "--seeds", "2", "--seed", "4")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_bundled_demo_dry_run(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "simulate", "kth-batch-demo", "--dry-run")
    assert code == 0, err
    grid = ("grid: 1 workloads x 2 policies x (1 failure-free + 1 node_mtbf x 1 downtime x 2 checkpoint_cost x "
            "1 recovery_cost x 3 seeds) = 14 cells, one simulation each")
    assert out.splitlines() == ["campaign kth-batch-demo: KTH-SP2 (swf, 2363 jobs on 100 nodes)", grid,
                                "database kth-batch-demo.sqlite: new"]
    assert not any(tmp_path.iterdir())
    spec = load_spec(ROOT / "campaigns" / "kth-batch-demo.toml").normalized()
    assert spec.simulator == "batch" and spec.policies == ("conservative", "easy") and spec.seeds == 3


def test_the_demo_prints_what_the_docs_show(capsys, tmp_path, monkeypatch):
    """docs/campaigns.md shows the demo's dry run, its summary line and its report: they are what
    the demo prints (on one worker here: the numbers do not depend on it)."""
    text = (ROOT / "docs" / "campaigns.md").read_text(encoding="utf-8")
    fenced = re.findall(r"^```(\w*)\n(.*?)^```$", text[text.index("### The demo"):], flags=re.DOTALL | re.MULTILINE)
    shown = [body for lang, body in fenced if not lang]  # the outputs (the commands are ```sh)
    run_lines, report = shown[0].splitlines(), shown[1]
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "simulate", "kth-batch-demo", "--dry-run")
    assert code == 0 and out.splitlines() == run_lines[:3]
    code, out, _ = run(capsys, "simulate", "kth-batch-demo", "--quiet", "--workers", "1")
    assert code == 0 and out.splitlines()[1] == run_lines[4]
    assert re.sub(r"[\d.]+ s on \d+ local workers \([\d.,]+ ", "", out.splitlines()[0]) == \
        re.sub(r"[\d.]+ s on \d+ local workers \([\d.,]+ ", "", run_lines[3])
    code, out, _ = run(capsys, "report", "kth-batch-demo.sqlite")
    assert code == 0 and out == report


def test_simulate_from_flags_then_report(capsys, tmp_path):
    db = tmp_path / "b.sqlite"
    code, out, err = run(capsys, "simulate", *GRID, "--db", db, "--dry-run", "--json")
    assert code == 0, err
    info = json.loads(out)
    assert (info["simulator"], info["workloads"], info["cells"], info["done"]) == ("batch", 1, 6, 0)
    code, out, err = run(capsys, "simulate", *GRID, "--db", db, "--workers", "1", "--json")
    assert code == 0, err
    info = json.loads(out)
    assert info["computed"] == 6 and info["simulations"] == 6
    code, out, _ = run(capsys, "simulate", *GRID, "--db", db, "--workers", "1")
    assert code == 0 and "0 cells computed, 6 already done" in out
    code, out, _ = run(capsys, "report", db)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"campaign campaign: 6 of 6 cells, one simulation each ({db})"
    assert lines[1].startswith("== KTH-SP2-1996-2.1-cln (") and "on 100 nodes" in lines[1]
    assert "mean flow (s), ± std over the runs" in out and "flow per size class (nodes), failure-free" in out
    header = next(line for line in lines if line.lstrip().startswith("node_mtbf"))
    assert header.split() == ["node_mtbf", "downtime", "C", "R", "runs", "conservative", "easy"]
    code, md, _ = run(capsys, "report", db, "--markdown")
    assert code == 0 and "| node_mtbf" in md
    csv_file = tmp_path / "cells.csv"
    assert run(capsys, "report", db, "--csv", csv_file)[0] == 0
    rows = list(csv.DictReader(io.StringIO(csv_file.read_text())))
    with ResultStore.open(db) as store:
        stored = {r["id"]: r for r in store.rows()}
    assert len(rows) == 6 and list(rows[0]) == list(BATCH_SCHEMA.columns)
    assert all(float(r["mean_flow"]) == stored[r["id"]]["mean_flow"] for r in rows)
    code, out, _ = run(capsys, "report", db, "--json", "--policy", "easy", "--node-mtbf", "1e6")
    data = json.loads(out)
    assert [(g["policy"], g["node_mtbf"], g["runs"]) for g in data["groups"]] == [("easy", 1e6, 2)]
    code, out, _ = run(capsys, "report", db, "--json", "--node-mtbf", "none")
    assert {g["node_mtbf"] for g in json.loads(out)["groups"]} == {None}


@pytest.mark.parametrize(
    "argv, message",
    [
        (("report", "--qbar", "0.1"), "--qbar does not filter a batch campaign"),
        (("report", "--policy", "fcfs"), "no cell matches --policy fcfs (the database has policy conservative, easy)"),
        (("report", "--node-mtbf", "5"), "no cell matches --node-mtbf 5 (the database has node_mtbf 1e+06, none)"),
    ],
)
def test_report_errors_on_a_batch_database(capsys, tmp_path, argv, message):
    db = tmp_path / "e.sqlite"
    small = ("--workload", KTH, "--days", "1", "--policy", "conservative,easy", "--node-mtbf", "none,1e6", "--seeds", "1")
    assert run(capsys, "simulate", *small, "--db", db, "--workers", "1", "--quiet")[0] == 0
    code, out, err = run(capsys, argv[0], db, *argv[1:])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize(
    "argv, message",
    [
        (("kth-batch-demo", "--qbar", "0.1"), "--qbar does not apply to a batch campaign"),
        (("kth-batch-demo", "--heuristic", "r-list-0"), "--heuristic does not apply to a batch campaign"),
        (("kth-batch-demo", "--simulator", "rigid"), "a batch campaign; --simulator rigid does not apply"),
        (("kth-batch-demo", "--policy", "sjf"), "unknown batch policy 'sjf'"),
        (("kth-batch-demo", "--node-mtbf", "often"), "--node-mtbf: expected a comma-separated list"),
        (("fig5", "--policy", "easy"), "--policy does not apply to a rigid campaign"),
        (("--synthetic", "2", "--heuristic", "r-list-0", "--seeds", "3"), "--seeds does not apply to a rigid campaign"),
        (("--simulator", "batch", "--policy", "easy"), "no campaign: give a TOML spec, or --workload"),
        (("--workload", KTH), "give --policy (e.g. conservative,easy)"),
        (("--workload", "nothing.swf", "--policy", "easy"), "--workload: path = 'nothing.swf': no such trace"),
    ],
)
def test_bad_batch_input_is_one_line_exit_2(capsys, tmp_path, argv, message):
    db = tmp_path / "never.sqlite"
    code, _out, err = run(capsys, "simulate", *argv, "--db", db, "--dry-run")
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("coschedule simulate: error: ")
    assert message in err, err
    assert not db.exists()


def test_flags_override_a_batch_spec(capsys, tmp_path):
    code, out, err = run(capsys, "simulate", "kth-batch-demo", "--policy", "easy", "--seeds", "2", "--node-mtbf",
                         "1e6,2e6", "--checkpoint-cost", "60", "--dry-run", "--json", "--db", tmp_path / "x.sqlite")
    assert code == 0, err
    info = json.loads(out)
    assert (info["policies"], info["seeds"], info["node_mtbf"], info["failure_free"], info["cells"]) == \
           (1, 2, 2, False, 4)
