"""``coschedule torus mfp|free``: the bundled example by name and by path, text and --json, every
finder, and a one-line error (exit 2, no traceback) for each bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from coschedule_testing import cli_fails as fails
from coschedule_testing import cli_run as run

from coschedule.cli import build_parser
from coschedule.cli.torus import METHODS
from coschedule.sim.nodesets import parse_nodes
from coschedule.torus import FINDERS, Box, free_partitions, read_occupancy, write_occupancy

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "instances" / "torus" / "example-8x8x8.txt"
NAME = "torus/example-8x8x8.txt"  # bundled, found from any folder


def run_json(capsys, *argv) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_mfp_of_the_bundled_example(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the bundled file by its path under instances/
    code, out, err = run(capsys, "torus", "mfp", "--occupied", NAME)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == f"torus 8x8x8: 512 nodes, 258 busy or down ({NAME}), 254 free"
    assert lines[1] == "maximal free partition: (6,1,6)+4x7x7, 196 nodes"
    assert lines[2].startswith("nodes 8-12 14-20 ")
    assert parse_nodes(lines[2][len("nodes "):]) == Box((6, 1, 6), (4, 7, 7)).nodes((8, 8, 8)).tolist()
    assert len(lines) == 3


def test_mfp_json_and_every_method(capsys):
    occ = read_occupancy(EXAMPLE)
    sizes = set()
    for method in METHODS:
        if method == "naive":
            continue  # every box of the 8x8x8 torus node by node: tested on a small torus below
        data = run_json(capsys, "torus", "mfp", "--shape", "8x8x8", "--occupied", EXAMPLE, "--method", method)
        assert data["shape"] == [8, 8, 8] and data["n_nodes"] == 512 and data["busy"] == 258
        assert data["free_nodes"] == 254 and data["method"] == method
        mfp = data["mfp"]
        box = Box(tuple(mfp["base"]), tuple(mfp["shape"]))
        assert mfp["label"] == box.label() and mfp["size"] == box.size
        assert not occ[box.mask((8, 8, 8))].any()
        assert parse_nodes(mfp["nodes"]) == box.nodes((8, 8, 8)).tolist()
        sizes.add(mfp["size"])
    assert sizes == {196}
    assert set(METHODS) == set(FINDERS)


def test_naive_on_a_small_torus_and_a_full_one(capsys, tmp_path):
    occ = np.zeros((2, 3, 4), dtype=bool)
    occ[0, 0, 0] = True
    path = tmp_path / "small.txt"
    write_occupancy(occ, path)
    data = run_json(capsys, "torus", "mfp", "--occupied", path, "--method", "naive")
    assert data["mfp"]["size"] == 18 and data["free_nodes"] == 23
    full = tmp_path / "full.txt"
    full.write_text("shape 2x3x4\n0-1,0-2,0-3\n")
    code, out, _ = run(capsys, "torus", "mfp", "--occupied", full)
    assert code == 0
    assert out.splitlines()[1:] == ["maximal free partition: none (every node is busy or down), 0 nodes"]
    data = run_json(capsys, "torus", "mfp", "--occupied", full)
    assert data["mfp"] == {"label": "(0,0,0)+0x0x0", "base": [0, 0, 0], "shape": [0, 0, 0], "size": 0, "nodes": ""}
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing busy\n")
    data = run_json(capsys, "torus", "mfp", "--shape", "2x3x4", "--occupied", empty)
    assert data["mfp"]["label"] == "(0,0,0)+2x3x4" and data["mfp"]["nodes"] == "0-23"


def test_free_partitions_text_and_json(capsys):
    code, out, _ = run(capsys, "torus", "free", "--occupied", EXAMPLE, "--size", "128")
    assert code == 0
    assert out.splitlines()[1:] == [
        "free partitions of 128 nodes: 4 (shapes 2x8x8, 4x4x8, 4x8x4, 8x2x8, 8x4x4, 8x8x2)",
        "(6,4,0)+4x4x8", "(6,0,0)+4x8x4", "(6,0,1)+4x8x4", "(6,0,7)+4x8x4",
    ]
    code, out, _ = run(capsys, "torus", "free", "--occupied", EXAMPLE, "--size", "192", "--nodes")
    label, nodes = out.splitlines()[2].split("  ")
    assert label == "(6,0,7)+4x8x6" and parse_nodes(nodes) == Box((6, 0, 7), (4, 8, 6)).nodes((8, 8, 8)).tolist()
    occ = read_occupancy(EXAMPLE)
    data = run_json(capsys, "torus", "free", "--occupied", EXAMPLE, "--size", "64", "--method", "appendix")
    expected = free_partitions(occ, 64)
    assert data["count"] == len(expected) == 66 and data["size"] == 64
    assert [p["label"] for p in data["partitions"]] == [b.label() for b in expected]
    assert [list(s) for s in data["box_shapes"]][:2] == [[1, 8, 8], [2, 4, 8]]
    for p in data["partitions"]:
        assert parse_nodes(p["nodes"]) == Box(tuple(p["base"]), tuple(p["shape"])).nodes((8, 8, 8)).tolist()


def test_free_partitions_of_a_size_with_no_box(capsys):
    code, out, _ = run(capsys, "torus", "free", "--occupied", EXAMPLE, "--size", "11")
    assert code == 0 and out.splitlines()[1] == (
        "free partitions of 11 nodes: none (no box of 11 nodes fits the 8x8x8 torus; the smallest size above "
        "with one: 12)")
    code, out, _ = run(capsys, "torus", "free", "--occupied", EXAMPLE, "--size", "513")
    assert out.splitlines()[1].endswith("(no box of 513 nodes fits the 8x8x8 torus; the torus has 512 nodes)")
    data = run_json(capsys, "torus", "free", "--occupied", EXAMPLE, "--size", "256")
    assert data["count"] == 0 and data["partitions"] == [] and data["box_shapes"]


@pytest.mark.parametrize("argv, message", [
    (["torus"], "coschedule torus: error: the following arguments are required: SUBCOMMAND"),
    (["torus", "mfp"], "the following arguments are required: --occupied"),
    (["torus", "mfp", "--shape", "8x8", "--occupied", EXAMPLE],
     "coschedule torus mfp: error: argument --shape: torus shape '8x8': expected XxYxZ with positive integers"),
    (["torus", "mfp", "--shape", "0x8x8", "--occupied", EXAMPLE], "argument --shape: torus shape '0x8x8'"),
    (["torus", "mfp", "--shape", "8x8x4", "--occupied", EXAMPLE],
     f"coschedule torus: error: {EXAMPLE}:3: the file's torus is 8x8x8, not 8x8x4"),
    (["torus", "mfp", "--occupied", "nope.txt"], "coschedule torus: error: nope.txt: no such file"),
    (["torus", "mfp", "--occupied", EXAMPLE, "--method", "quick"], "argument --method: invalid choice: 'quick'"),
    (["torus", "free", "--occupied", EXAMPLE], "the following arguments are required: --size"),
    (["torus", "free", "--occupied", EXAMPLE, "--size", "0"], "argument --size: expected a positive integer, got 0"),
    (["torus", "frob"], "argument SUBCOMMAND: invalid choice: 'frob'"),
])
def test_bad_arguments_are_one_line(capsys, argv, message):
    assert message in fails(capsys, *argv)


@pytest.mark.parametrize("text, message", [
    ("shape 4x4x4\n0,0,4\n", ":2: k = 4 is outside the 4x4x4 torus (k in 0..3)"),
    ("shape 4x4x4\n0;0;0\n", ":2: expected i,j,k (three coordinates or ranges a-b), 'nodes LIST' or "
     "'shape XxYxZ', got '0;0;0'"),
    ("0,0,0\n", ": no 'shape XxYxZ' line: give the torus's shape (e.g. --shape 8x8x8)"),
    ("shape 4x4x4\nnodes 64\n", ":2: node 64 is outside the 4x4x4 torus (nodes 0..63)"),
])
def test_bad_files_are_one_line(capsys, tmp_path, text, message):
    path = tmp_path / "occ.txt"
    path.write_text(text)
    for sub in (["mfp"], ["free", "--size", "4"]):
        err = fails(capsys, "torus", *sub, "--occupied", path)
        assert err == f"coschedule torus: error: {path}{message}\n"


def test_help_has_examples_that_run(capsys, tmp_path, monkeypatch):
    """Every example line of mfp and free in the family's and their own --help runs (from an
    empty folder)."""
    monkeypatch.chdir(tmp_path)
    sub = next(a for a in build_parser()._actions if getattr(a, "choices", None))
    torus = sub.choices["torus"]
    assert torus.description and "help" in torus.format_help()
    tsub = next(a for a in torus._actions if getattr(a, "choices", None))
    assert list(tsub.choices)[:2] == ["mfp", "free"]
    for name in ("mfp", "free"):  # each subcommand's examples are its own
        assert all(line.startswith(f"  coschedule torus {name} ")
                   for line in tsub.choices[name].epilog.splitlines()[1:])
    lines = []
    for parser in [torus, tsub.choices["mfp"], tsub.choices["free"]]:
        epilog = parser.epilog or ""
        lines += [line.split("#")[0].split() for line in epilog.splitlines()
                  if line.startswith(("  coschedule torus mfp ", "  coschedule torus free "))]
    assert len(lines) >= 8
    for argv in lines:
        code, out, err = run(capsys, *argv[1:])
        assert code == 0 and out and err == "", argv


def test_console_script():
    res = subprocess.run([sys.executable, "-m", "coschedule", "torus", "mfp", "--occupied", "nope"],
                         capture_output=True, text=True, check=False)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr == "coschedule torus: error: nope: no such file\n"
