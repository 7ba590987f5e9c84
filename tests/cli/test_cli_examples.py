"""``coschedule examples | docs`` and the bundled names wherever the CLI takes a file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from coschedule.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def elsewhere(tmp_path, monkeypatch):
    """Every command here runs from an empty folder: the names must not depend on the cwd."""
    monkeypatch.chdir(tmp_path)


def test_examples_lists_instances_specs_and_traces(capsys):
    code, out, _ = run(capsys, "examples")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("instances and scenarios (")
    assert any(line.split()[:2] == ["figure-1-1", "moldable"] for line in lines)
    assert any(line.split()[0] == "fig5-tenth" for line in lines if line.startswith("  "))
    assert any(line.split()[0] == "KTH-SP2-1996-2.1-cln.swf.gz" and "IBM SP2" in line for line in lines)
    assert "campaign specs (coschedule simulate NAME):" in lines
    assert not any(line.split()[0] == "cli" for line in lines if line.startswith("  "))  # docs: coschedule docs
    code, out, _ = run(capsys, "examples", "--kind", "trace", "--json")
    items = json.loads(out)
    assert [i["kind"] for i in items] == ["trace"] * 5
    assert all(Path(i["path"]).is_file() for i in items)


@pytest.mark.parametrize(
    "name, path",
    [
        ("figure-1-1", "instances/kinp/figure-1-1.json"),
        ("kinp/figure-1-1", "instances/kinp/figure-1-1.json"),
        ("rigid/search/r-list-q-ratio1.667/instance", "instances/rigid/search/r-list-q-ratio1.667/instance.json"),
        ("fig5-tenth", "campaigns/fig5-tenth.toml"),
        ("LANL-CM5-1994-4.1-cln.swf.gz", "instances/traces/LANL-CM5-1994-4.1-cln.swf.gz"),
    ],
)
def test_examples_path(capsys, name, path):
    code, out, _ = run(capsys, "examples", "--path", name)
    assert (code, out) == (0, f"{ROOT / path}\n")


def test_examples_unknown_name_is_one_line(capsys):
    code, out, err = run(capsys, "examples", "--path", "fig7")
    assert (code, out) == (2, "")
    assert err.startswith("coschedule examples: error: unknown bundled file 'fig7' (did you mean 'fig6'?); coschedule examples lists the ")
    assert err.count("\n") == 1
    code, _, err = run(capsys, "examples", "--kind", "spec", "--path", "zzz")
    specs = len(list((ROOT / "campaigns").glob("*.toml")))  # counted: several specs are being written at once
    assert code == 2 and f"unknown bundled spec 'zzz'; coschedule examples lists the {specs} names" in err


def test_docs_lists_and_locates_pages(capsys):
    code, out, _ = run(capsys, "docs")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()]
    assert names == sorted(p.stem for p in (ROOT / "docs").glob("*.md"))
    assert any(re.fullmatch(r"cli +The `coschedule` command", line) for line in out.splitlines())
    code, out, _ = run(capsys, "docs", "cli")
    assert (code, out) == (0, f"{ROOT / 'docs' / 'cli.md'}\n")
    code, out, _ = run(capsys, "docs", "cli.md", "--show")
    assert code == 0 and out == (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    code, _, err = run(capsys, "docs", "manual")
    pages = len(list((ROOT / "docs").glob("*.md")))  # counted: several pages are being written at once
    assert code == 2 and err == f"coschedule docs: error: unknown bundled doc 'manual'; coschedule docs lists the {pages} pages\n"
    code, _, err = run(capsys, "docs", "batchs")
    assert code == 2 and "unknown bundled doc 'batchs' (did you mean 'batch'?)" in err


def test_help_texts_point_at_the_bundled_docs():
    """No help text sends a user to a docs/ path they may not have (a pip install has no repo)."""
    bad = [f"{p.name}:{i}: {line.strip()}" for p in (ROOT / "coschedule" / "cli").glob("*.py")
           for i, line in enumerate(p.read_text().splitlines(), 1)
           if "docs/" in line and "docs/figures" not in line]
    assert not bad, "\n".join(bad)


def test_solve_and_run_take_bundled_names(capsys, tmp_path):
    code, out, _ = run(capsys, "solve", "figure-1-1", "--k", "3")
    assert code == 0 and out.startswith("instance figure-1-1: n = 9 tasks, p = 8, k = 3\noptimal: 114 ")
    code, out, _ = run(capsys, "run", "r-shelf-b", "prop3-P8", "--scenario", "prop3-P8.scenario", "--optimum", "never")
    assert code == 0 and "scenario prop3-P8.scenario: 28 failures" in out and "ratio 2.7179" in out
    code, out, err = run(capsys, "verify", "figure-1-1.json", "nothing.json")
    assert code == 2 and err == "coschedule verify: error: nothing.json: no such file\n"  # the instance was found
    # an existing file wins over the bundled name
    (tmp_path / "figure-1-1").write_text('{"format": "coschedule/moldable-instance", "version": 1, "p": 2, '
                                         '"name": "mine", "tasks": [{"times": [2, 1]}]}')
    code, out, _ = run(capsys, "solve", "figure-1-1", "--k", "1")
    assert code == 0 and out.startswith("instance mine: n = 1 tasks, p = 2")
    code, _, err = run(capsys, "solve", "figure-9-9", "--k", "1")
    assert code == 2 and err == "coschedule solve: error: figure-9-9: no such file\n"
