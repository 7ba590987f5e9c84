"""``coschedule simulate`` and ``coschedule report``: the numbers of the library, one-line errors
with exit status 2 before any work, no progress bar when stderr is not a terminal."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from coschedule.campaign import ResultStore, load_spec
from coschedule.cli import main

ROOT = Path(__file__).resolve().parents[2]
CAMPAIGNS = ROOT / "campaigns"
GRID = ("--synthetic", "2", "--jobs", "10", "--heuristics", "r-list-0,r-shelf-nb", "--priorities", "LPT,LA",
        "--qbar", "0:0.4:0.2", "--scenarios", "20", "--seed", "9")


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_dry_run_prints_the_grid_and_runs_nothing(capsys, tmp_path):
    db = tmp_path / "d.sqlite"
    code, out, _ = run(capsys, "simulate", *GRID, "--db", db, "--dry-run")
    assert code == 0
    assert "2 instances x 2 heuristics x 2 priorities x 3 qbar x 1 P = 24 cells x 20 scenarios = 480 simulations" in out
    assert not db.exists()
    code, out, _ = run(capsys, "simulate", *GRID, "--db", db, "--dry-run", "--json")
    info = json.loads(out)
    assert info["cells"] == 24 and info["simulations"] == 480 and info["done"] == 0


def test_simulate_then_report(capsys, tmp_path):
    db = tmp_path / "c.sqlite"
    code, out, err = run(capsys, "simulate", *GRID, "--db", db, "--workers", "1", "--json")
    assert code == 0
    assert "\r" not in err  # no progress bar: stderr is not a terminal here
    info = json.loads(out)
    assert info["computed"] == 24 and info["skipped"] == 0
    code, out, _ = run(capsys, "simulate", *GRID, "--db", db, "--workers", "1")
    assert code == 0 and "0 cells computed, 24 already done" in out
    code, out, _ = run(capsys, "report", db)
    assert code == 0 and "R-List-0" in out and "R-Shelf-NB" in out and "failures" in out
    csv_file = tmp_path / "cells.csv"
    code, _, _ = run(capsys, "report", db, "--csv", csv_file)
    rows = list(csv.DictReader(io.StringIO(csv_file.read_text())))
    with ResultStore.open(db) as store:
        stored = {r["id"]: r for r in store.rows()}
    assert len(rows) == 24 and all(float(r["mean_ratio"]) == stored[r["id"]]["mean_ratio"] for r in rows)
    code, out, _ = run(capsys, "report", db, "--json", "--qbar", "0.2", "--priority", "la")
    data = json.loads(out)
    assert {(g["qbar"], g["priority"]) for g in data["groups"]} == {(0.2, "LA")}
    assert len(data["groups"]) == 2


@pytest.mark.parametrize(
    "argv, message",
    [
        (("--synthetic", "2", "--heuristics", "r-list-9"), "unknown heuristic 'r-list-9'"),
        (("--synthetic", "2", "--heuristics", "r-list-0", "--priorities", "FIFO"), "unknown priority 'FIFO'"),
        (("--synthetic", "2", "--heuristics", "r-list-0", "--qbar", "0.5,1.5"), r"qbar must be in [0, 1)"),
        (("--synthetic", "2", "--heuristics", "r-list-0", "--qbar", "zero"), "--qbar: expected a comma-separated"),
        (("--synthetic", "0", "--heuristics", "r-list-0"), "--synthetic must be >= 1"),
        (("--heuristics", "r-list-0"), "no campaign"),
        (("--trace", "no-such.swf", "--heuristics", "r-list-0"), "no such file"),
        (("no-such.toml",), "no-such.toml: no such file"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, tmp_path, argv, message):
    db = tmp_path / "never.sqlite"
    code, _out, err = run(capsys, "simulate", *argv, "--db", db)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("coschedule simulate: error: ")
    assert message in err
    assert not db.exists()


def test_report_errors(capsys, tmp_path):
    code, _, err = run(capsys, "report", tmp_path / "none.sqlite")
    assert code == 2 and "no such file" in err
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"\0" * 4096)
    code, _, err = run(capsys, "report", junk)
    assert code == 2 and "not a campaign database" in err and err.count("\n") == 1


def test_other_spec_database_is_refused(capsys, tmp_path):
    db = tmp_path / "c.sqlite"
    assert run(capsys, "simulate", *GRID, "--db", db, "--workers", "1", "--quiet")[0] == 0
    code, _, err = run(capsys, "simulate", *GRID, "--scenarios", "21", "--db", db)
    assert code == 2 and "different campaign spec" in err and "scenarios: 20 there, 21 here" in err


@pytest.mark.parametrize("toml", sorted(CAMPAIGNS.glob("*.toml")), ids=lambda p: p.stem)
def test_bundled_campaigns_are_valid(toml):
    """The reproduction specs parse, and name what docs/reproduce.md says they run."""
    spec = load_spec(toml).normalized()
    assert spec.name == toml.stem
    if toml.stem.startswith("fig5"):
        assert spec.n_cells() == 30 * 5 * 7 * 10
        assert spec.scenarios == (100 if "tenth" in toml.stem else 1000)
    if toml.stem.startswith("table1"):
        assert spec.priorities == ("LPT",)
        assert spec.qbar == ((0.05, 0.1) if toml.stem.endswith("kept") else (0.0, 0.05, 0.1))
        assert spec.sources[0].kind == "swf" and spec.sources[0].days == 30


def test_simulate_logs_progress_when_stderr_is_not_a_terminal(capsys, tmp_path):
    db = tmp_path / "log.sqlite"
    code, _, err = run(capsys, "simulate", *GRID, "--db", db, "--workers", "1", "--log-interval", "0.01")
    assert code == 0
    lines = [line for line in err.splitlines() if line.startswith("simulate campaign: ")]
    assert lines and lines[-1].endswith("(done)") and "24/24 cells" in lines[-1]
    assert "\x1b" not in err and "\r" not in err


def test_simulate_says_once_that_numba_is_missing(capsys, tmp_path, monkeypatch):
    from coschedule.campaign import run as campaign_run

    monkeypatch.setattr(campaign_run, "HAVE_NUMBA", False)
    code, _, err = run(capsys, "simulate", *GRID, "--db", tmp_path / "n.sqlite", "--workers", "1", "--quiet")
    assert code == 0
    assert err.count("numba is not installed") == 1
    assert 'pip install "coschedule-hpc[fast]"' in err and 'pip install -e ".[fast]"' in err
    monkeypatch.setattr(campaign_run, "HAVE_NUMBA", True)
    code, _, err = run(capsys, "simulate", *GRID, "--db", tmp_path / "m.sqlite", "--workers", "1", "--quiet")
    assert code == 0 and "numba" not in err


def test_report_says_how_many_cells_are_missing(capsys, tmp_path):
    from coschedule.campaign import CampaignSpec, SyntheticSource, run_campaign

    db = tmp_path / "half.sqlite"
    spec = CampaignSpec(sources=(SyntheticSource(sets=2, n=10),), heuristics=("r-list-0",),
                        priorities=("LPT", "LA"), qbar=(0.0, 0.2), scenarios=10, seed=3)
    run_campaign(spec, db, workers=1, max_cells=3)
    code, out, err = run(capsys, "report", db)
    assert code == 0
    assert "5 of 8 cells missing" in err and err.count("\n") == 1
    assert "3 of 8 cells" in out
    code, out, _ = run(capsys, "report", db, "--json")
    data = json.loads(out)
    assert (data["grid_cells"], data["done_cells"], data["missing_cells"]) == (8, 3, 5)
    run_campaign(spec, db, workers=1)
    code, out, err = run(capsys, "report", db)
    assert code == 0 and "missing" not in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (("--qbar", "0.35"), "no cell matches --qbar 0.35 (the database has qbar 0, 0.2, 0.4)"),
        (("--priority", "SPT"), "no cell matches --priority SPT (the database has priority LA, LPT)"),
        (("--heuristics", "r-list-q"), "no cell matches --heuristics r-list-q"),
        (("--source", "kth"), "no cell matches --source kth"),
    ],
)
def test_report_filter_matching_nothing_is_an_error(capsys, tmp_path, argv, message):
    db = tmp_path / "f.sqlite"
    assert run(capsys, "simulate", *GRID, "--db", db, "--workers", "1", "--quiet")[0] == 0
    code, out, err = run(capsys, "report", db, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err
