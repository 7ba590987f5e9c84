"""Every ``--plot`` / ``--gantt`` of the CLI writes the files its suffix asks for and says which
(``wrote figure: FILE`` on stderr, so that ``--json`` output stays clean); ``report`` draws two
databases side by side (the paper's Fig. 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from coschedule.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FIG = ROOT / "instances" / "kinp" / "figure-1-1.json"
SMALL = ROOT / "instances" / "rigid" / "small-n8-P8.json"
PNG = b"\x89PNG\r\n\x1a\n"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def wrote(err: str) -> list[str]:
    return [line.removeprefix("wrote figure: ") for line in err.splitlines() if line.startswith("wrote figure: ")]


def test_solve_and_run_write_the_suffix_they_are_given(capsys, tmp_path):
    pdf = tmp_path / "packs.pdf"
    code, _, err = run(capsys, "solve", FIG, "--k", "3", "--plot", pdf)
    assert code == 0 and wrote(err) == [str(pdf)] and pdf.read_bytes()[:5] == b"%PDF-"
    svg = tmp_path / "run.svg"
    code, out, err = run(capsys, "run", "pack-approx", FIG, "--k", "3", "--plot", svg, "--json")
    assert code == 0 and wrote(err) == [str(svg)] and b"<svg" in svg.read_bytes()[:2000]
    json.loads(out)  # the message went to stderr: stdout is still one JSON document
    stem = tmp_path / "both"
    code, _, err = run(capsys, "run", "pack-approx", FIG, "--k", "3", "--optimum", "never", "--plot", stem)
    assert wrote(err) == [f"{stem}.png", f"{stem}.svg"]
    assert Path(f"{stem}.png").read_bytes()[:8] == PNG


def test_rigid_gantt_says_which_file(capsys, tmp_path):
    png = tmp_path / "g.png"
    code, _, err = run(capsys, "run", "r-list-0", SMALL, "--qbar", "0.3", "--seed", "1", "--gantt", png)
    assert code == 0 and wrote(err) == [str(png)] and png.read_bytes()[:8] == PNG
    opt = tmp_path / "opt.pdf"
    code, _, err = run(capsys, "solve", SMALL, "--plot", opt, "--time-limit", "20")
    assert code == 0 and wrote(err) == [str(opt)] and opt.read_bytes()[:5] == b"%PDF-"


def test_counterexample_draws_heuristic_above_optimum_in_one_file(capsys, tmp_path):
    out_dir = tmp_path / "ce"
    code, out, err = run(capsys, "counterexample", "prop4", "--P", "3", "-o", out_dir, "--plot", "--no-solve")
    assert code == 0 and wrote(err) == [str(out_dir / "schedules.png")]
    assert (out_dir / "schedules.png").read_bytes()[:8] == PNG
    assert not (out_dir / "heuristic.png").exists() and not (out_dir / "optimum.png").exists()
    code, _, err = run(capsys, "counterexample", "prop4", "--P", "3", "--plot")
    assert code == 2 and "--plot needs -o" in err


@pytest.fixture(scope="module")
def two_dbs(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("dbs")
    grid = ["--synthetic", "2", "--jobs", "10", "--heuristics", "r-shelf-b,r-shelffill-b", "--scenarios", "10",
            "--workers", "1", "--quiet"]
    a, b = tmp / "a.sqlite", tmp / "b.sqlite"
    assert main(["simulate", *grid, "--priorities", "LPT", "--qbar", "0,0.3", "--db", str(a)]) == 0
    assert main(["simulate", *grid, "--priorities", "LPT,LA", "--qbar", "0.3", "--P", "5000,10000",
                 "--db", str(b)]) == 0
    return a, b


def test_report_plot_honours_the_suffix(capsys, two_dbs, tmp_path):
    a, _ = two_dbs
    pdf = tmp_path / "fig.pdf"
    code, _, err = run(capsys, "report", a, "--plot", pdf)
    assert code == 0 and wrote(err) == [str(pdf)] and pdf.read_bytes()[:5] == b"%PDF-"
    assert not (tmp_path / "fig.png").exists() and not (tmp_path / "fig.svg").exists()
    code, _, err = run(capsys, "report", a, "--plot", tmp_path / "fig")
    assert wrote(err) == [str(tmp_path / "fig.png"), str(tmp_path / "fig.svg")]


def test_report_two_databases_side_by_side(capsys, two_dbs, tmp_path):
    a, b = two_dbs
    png = tmp_path / "fig4.png"
    code, out, err = run(capsys, "report", a, b, "--priority", "LPT", "--plot", png, "--title", "Fig. 4")
    assert code == 0 and wrote(err) == [str(png)] and png.read_bytes()[:8] == PNG
    assert out.count("campaign ") == 2  # each database's tables
    code, _, err = run(capsys, "report", a, b, "--plot", png)
    assert code == 2 and "one priority per database" in err and "--priority" in err
    code, _, err = run(capsys, "report", a, b, "--json")
    assert code == 2 and "one database" in err
