"""``coschedule simulate`` and ``coschedule report``: the numbers of the library, one-line errors
with exit status 2 before any work, no progress bar when stderr is not a terminal."""

from __future__ import annotations

import csv
import gzip
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
        (("--trace", "no-such.swf", "--heuristics", "r-list-0"),
         "--trace: path = 'no-such.swf': no such trace; looked for no-such.swf, "),
        (("no-such.toml",), "no-such.toml: no such file"),
        (("no-such",), "no-such: no such file, nor a bundled campaign spec (bundled: benoit2021-fig6-kept, "
                       "benoit2021-fig7-8, demo, du2024-baseline-traces, du2024-baseline, du2024-stealing-count,"),
        (("fig5", "--traces-dir", "no-such-dir"), "--traces-dir no-such-dir: no such folder"),
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


def test_report_refuses_a_figure_it_cannot_draw(capsys, tmp_path):
    """``--figure`` of another kind of campaign, or without ``--plot``: one line, exit 2, no file."""
    db = tmp_path / "c.sqlite"
    assert run(capsys, "simulate", *GRID, "--db", db, "--workers", "1", "--quiet")[0] == 0
    code, _, err = run(capsys, "report", db, "--plot", tmp_path / "r.png", "--figure", "ratios")
    assert code == 2 and err.count("\n") == 1
    assert "--figure ratios is not a figure of a rigid campaign; --plot draws its one figure" in err
    code, _, err = run(capsys, "report", db, "--figure", "ratios")
    assert code == 2 and "--figure ratios chooses what --plot draws: add --plot FILE" in err
    assert not list(tmp_path.glob("r*.png"))


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


# ------------------------------------------------------- reproducible from a clone: specs, traces


KTH = "KTH-SP2-1996-2.1-cln.swf.gz"


@pytest.mark.parametrize("cwd", ["root", "elsewhere"])
def test_table1_spec_dry_run_from_a_clone(capsys, tmp_path, monkeypatch, cwd):
    """The shipped trace is found whatever the working directory (bare name, bundled copy)."""
    monkeypatch.delenv("COSCHEDULE_TRACES", raising=False)
    monkeypatch.chdir(ROOT if cwd == "root" else tmp_path)
    spec = "campaigns/table1-kth.toml" if cwd == "root" else str(CAMPAIGNS / "table1-kth.toml")
    code, out, err = run(capsys, "simulate", spec, "--dry-run", "--db", tmp_path / "kth.sqlite")
    assert code == 0, err
    assert out.splitlines()[:2] == [
        "campaign table1-kth: KTH-SP2 (swf, 30 sets)",
        "grid: 30 instances x 5 heuristics x 1 priorities x 3 qbar x 1 P = 450 cells x 1000 scenarios "
        "= 450000 simulations",
    ]
    assert not (tmp_path / "kth.sqlite").exists()


def test_bundled_spec_by_name(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "simulate", "fig5-tenth", "--dry-run")
    assert code == 0 and out.startswith("campaign fig5-tenth: synthetic (synthetic, 30 sets)\n")
    assert "database fig5-tenth.sqlite: new" in out and not any(tmp_path.iterdir())
    (tmp_path / "fig5-tenth").write_text('heuristics = ["r-list-0"]\n[[source]]\nkind = "synthetic"\nsets = 2\n')
    code, out, _ = run(capsys, "simulate", "fig5-tenth", "--dry-run")  # the file wins
    assert code == 0 and "synthetic (synthetic, 2 sets)" in out


def _one_day_trace(path: Path, procs: int) -> None:
    """Three jobs submitted on day 0, on a machine of ``procs`` processors (gzipped for .gz)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = f"; MaxProcs: {procs}\n" + "".join(
        f"{i} {10 * i} -1 100 {i} -1 -1 {i} -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n" for i in range(1, 4))
    path.write_bytes(gzip.compress(text.encode()) if path.suffix == ".gz" else text.encode())


def test_relative_trace_paths_follow_the_spec_not_the_cwd(capsys, tmp_path, monkeypatch):
    spec = tmp_path / "specs" / "c.toml"
    _one_day_trace(tmp_path / "specs" / "data" / "t.swf", 7)
    spec.write_text('heuristics = ["r-list-0"]\nscenarios = 5\n[[source]]\nkind = "swf"\npath = "data/t.swf"\n')
    _one_day_trace(tmp_path / "cwd" / "data" / "t.swf", 9)  # a decoy beside the working directory
    monkeypatch.chdir(tmp_path / "cwd")
    code, out, err = run(capsys, "simulate", spec, "--dry-run", "--json")
    assert code == 0, err
    assert json.loads(out)["instances"] == 1
    assert load_spec(spec).sources[0].file() == tmp_path / "specs" / "data" / "t.swf"
    assert load_spec(spec).instances().__next__().instance.P == 7


def test_traces_dir_option_and_environment(capsys, tmp_path, monkeypatch):
    spec = tmp_path / "specs" / "c.toml"
    spec.parent.mkdir()
    spec.write_text(f'heuristics = ["r-list-0"]\nscenarios = 5\n[[source]]\nkind = "swf"\npath = "{KTH}"\n'
                    "days = 1\n")
    _one_day_trace(tmp_path / "env" / KTH, 11)
    _one_day_trace(tmp_path / "opt" / KTH, 12)

    def instances(*extra: str) -> int:
        code, out, err = run(capsys, "simulate", spec, "--dry-run", "--json", "--db", tmp_path / "x.sqlite", *extra)
        assert code == 0, err
        return json.loads(out)["instances"]

    monkeypatch.delenv("COSCHEDULE_TRACES", raising=False)
    assert load_spec(spec).sources[0].file() == ROOT / "instances" / "traces" / KTH  # the bundled copy
    monkeypatch.setenv("COSCHEDULE_TRACES", str(tmp_path / "env"))
    assert load_spec(spec).sources[0].file() == tmp_path / "env" / KTH
    assert load_spec(spec, traces_dir=str(tmp_path / "opt")).sources[0].file() == tmp_path / "opt" / KTH
    assert load_spec(spec).sources[0].instances(0).__next__().instance.P == 11
    assert instances() == 1 and instances("--traces-dir", str(tmp_path / "opt")) == 1
    # --trace NAME on the command line: the current folder, then the same folders
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "simulate", "--trace", KTH, "--days", "1", "--heuristics", "r-list-0",
                         "--scenarios", "5", "--traces-dir", "opt", "--dry-run", "--json")
    assert code == 0, err
    assert json.loads(out)["instances"] == 1


def test_trace_not_found_names_the_spec_the_key_and_every_place(capsys, tmp_path, monkeypatch):
    spec = tmp_path / "specs" / "c.toml"
    spec.parent.mkdir()
    spec.write_text('heuristics = ["r-list-0"]\n[[source]]\nkind = "swf"\npath = "gone.swf.gz"\n')
    monkeypatch.setenv("COSCHEDULE_TRACES", str(tmp_path / "env"))
    (tmp_path / "opt").mkdir()
    code, _, err = run(capsys, "simulate", spec, "--dry-run", "--traces-dir", tmp_path / "opt")
    assert code == 2 and err.count("\n") == 1
    assert err == (f"coschedule simulate: error: {spec}: source[0]: path = 'gone.swf.gz': no such trace; "
                   f"looked for {tmp_path / 'specs' / 'gone.swf.gz'}, {tmp_path / 'opt' / 'gone.swf.gz'} "
                   f"(--traces-dir), {ROOT / 'instances' / 'traces' / 'gone.swf.gz'} (bundled)\n")
    code, _, err = run(capsys, "simulate", spec, "--dry-run")
    assert code == 2 and f"{tmp_path / 'env' / 'gone.swf.gz'} ($COSCHEDULE_TRACES)" in err


@pytest.mark.parametrize("text", ["", "\n# only a comment\n\n"], ids=["empty", "key-less"])
def test_empty_spec_names_the_file(capsys, tmp_path, text):
    spec = tmp_path / "x.toml"
    spec.write_text(text)
    code, out, err = run(capsys, "simulate", spec, "--dry-run")
    assert (code, out) == (2, "")
    assert err == f"coschedule simulate: error: {spec}: empty campaign spec (no sources, no heuristics)\n"


def test_spec_without_sources_or_heuristics_names_the_file(capsys, tmp_path):
    spec = tmp_path / "x.toml"
    spec.write_text("scenarios = 10\n")
    code, _, err = run(capsys, "simulate", spec, "--heuristics", "r-list-0")
    assert code == 2 and err == (f"coschedule simulate: error: {spec}: no instance source ([[source]] tables, "
                                 "or --synthetic, --instances, --trace)\n")
    code, _, err = run(capsys, "simulate", spec, "--synthetic", "2")
    assert code == 2 and err.startswith(f"coschedule simulate: error: {spec}: no heuristics")
    code, out, _ = run(capsys, "simulate", spec, "--synthetic", "2", "--heuristics", "r-list-0", "--dry-run")
    assert code == 0 and "2 instances x 1 heuristics" in out  # a spec of defaults completed by flags


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


def _figures_drawn(monkeypatch, capsys, *argv):
    """The figures ``coschedule ARGV`` saves (write_figure intercepted; nothing written)."""
    from coschedule.cli import campaign as cli_campaign

    drawn = []
    monkeypatch.setattr(cli_campaign, "write_figure", lambda fig, path: drawn.append(fig))
    code, _, err = run(capsys, *argv)
    assert code == 0, err
    return drawn


def test_report_says_how_many_cells_are_missing(capsys, tmp_path, monkeypatch):
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
    drawn = _figures_drawn(monkeypatch, capsys, "report", db, "--plot", tmp_path / "half.png")
    assert ["unfinished campaign: 3 of 8 cells"] == [t.get_text() for t in drawn[0].texts if "unfinished" in t.get_text()]
    run_campaign(spec, db, workers=1)
    drawn = _figures_drawn(monkeypatch, capsys, "report", db, "--plot", tmp_path / "whole.png")
    assert not [t for t in drawn[0].texts if "unfinished" in t.get_text()]
    code, out, err = run(capsys, "report", db)
    assert code == 0 and "missing" not in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (("--qbar", "0.35"), "no cell matches --qbar 0.35 (the database has qbar 0, 0.2, 0.4)"),
        (("--priority", "SPT"), "no cell matches --priority SPT (the database has priority LA, LPT)"),
        (("--heuristics", "r-list-q"), "no cell matches --heuristic r-list-q"),
        (("--source", "kth"), "no cell matches --source kth"),
    ],
)
def test_report_filter_matching_nothing_is_an_error(capsys, tmp_path, argv, message):
    db = tmp_path / "f.sqlite"
    assert run(capsys, "simulate", *GRID, "--db", db, "--workers", "1", "--quiet")[0] == 0
    code, out, err = run(capsys, "report", db, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err
