"""Torus occupancy files (:mod:`coschedule.torus.occupancy`): every statement form, round trips
through the writer, one-line errors naming the file and line, the bundled example."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from coschedule_testing import seeds
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from coschedule.errors import FormatError, InvalidInstance
from coschedule.torus import (
    Box,
    format_occupancy,
    max_free_partition,
    parse_occupancy,
    random_occupancy,
    read_occupancy,
    write_occupancy,
)
from coschedule.torus import occupancy as occupancy_module

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "instances" / "torus" / "example-8x8x8.txt"


def test_every_statement_form():
    text = """
    # a comment line, then a blank one

    shape 4x4x8   # the torus
    0,0,0          # a node
    1 1 1          # spaces
    1, 2 ,3        # spaces around commas
    2-3,0-1,6-7    # a block of 2x2x2
    nodes 127 64-65
    0,0,0          # marked twice
    """
    occ = parse_occupancy(text)
    expected = np.zeros((4, 4, 8), dtype=bool)
    expected[0, 0, 0] = expected[1, 1, 1] = expected[1, 2, 3] = True
    expected[2:4, 0:2, 6:8] = True
    expected.reshape(-1)[[127, 64, 65]] = True
    np.testing.assert_array_equal(occ, expected)
    assert int(occ.sum()) == 14
    # the shape from the caller, and the same from the file
    np.testing.assert_array_equal(parse_occupancy(text, (4, 4, 8)), expected)
    no_shape = "\n".join(line for line in text.splitlines() if "shape" not in line)
    np.testing.assert_array_equal(parse_occupancy(no_shape, (4, 4, 8)), expected)
    # keywords in any case; a tab after them
    first = np.eye(8, dtype=bool)[0].reshape(2, 2, 2)
    np.testing.assert_array_equal(parse_occupancy("Shape\t2x2x2\nNODES\t0"), first)
    # nothing marked: every node free
    assert not parse_occupancy("# empty\n", (2, 3, 4)).any()


def test_the_module_docstring_example_parses():
    doc = occupancy_module.__doc__ or ""
    block = "\n".join(line[4:] for line in doc.split("::\n\n", 1)[1].split("\n\n", 1)[0].splitlines())
    occ = parse_occupancy(block)
    assert occ.shape == (8, 8, 8)
    assert int(occ.sum()) == 128 + 2 + 5  # the job, two nodes, nodes 0-3 and 7 (none inside the job)


@given(arrays(bool, st.tuples(st.integers(1, 5), st.integers(1, 5), st.integers(1, 9))))
def test_format_then_parse_is_the_identity(occ):
    text = format_occupancy(occ)
    np.testing.assert_array_equal(parse_occupancy(text), occ)
    np.testing.assert_array_equal(parse_occupancy(text, occ.shape), occ)
    assert text.startswith(f"# coschedule torus occupancy: {int(occ.sum())} of {occ.size} nodes busy or down\n")


@given(st.tuples(st.integers(1, 8), st.integers(1, 8), st.integers(1, 8)), st.floats(0, 1), seeds)
def test_random_occupancy_exact_count_and_seeded(dims, fraction, seed):
    a = random_occupancy(dims, fraction, seed=seed)
    assert a.shape == dims and a.dtype == bool
    assert int(a.sum()) == round(fraction * np.prod(dims))
    np.testing.assert_array_equal(a, random_occupancy(dims, fraction, seed=seed))


def test_random_occupancy_errors():
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(InvalidInstance, match="occupied fraction must be in"):
            random_occupancy((2, 2, 2), bad, seed=0)


def test_write_and_read_a_file(tmp_path):
    occ = random_occupancy((4, 5, 6), 0.4, seed=3)
    path = tmp_path / "occ.txt"
    write_occupancy(occ, path, comment="machine A\n\nat noon")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# machine A\n#\n# at noon\nshape 4x5x6\n")
    np.testing.assert_array_equal(read_occupancy(path), occ)
    np.testing.assert_array_equal(read_occupancy(str(path), (4, 5, 6)), occ)


@pytest.mark.parametrize("text, line, message", [
    ("0,0", 1, "expected i,j,k (three coordinates or ranges a-b), 'nodes LIST' or 'shape XxYxZ', got '0,0'"),
    ("0 0 0 0", 1, "expected i,j,k"),
    ("shape 2x2x2\n\n0,0,x", 3, "k: expected an integer or a range a-b, got 'x'"),
    ("0,,0", 1, "j: expected an integer or a range a-b, got ''"),
    ("0,0,-1", 1, "k: expected an integer or a range a-b, got '-1'"),
    ("2,0,0", 1, "i = 2 is outside the 2x2x2 torus (i in 0..1)"),
    ("0,0-2,0", 1, "j = 2 is outside the 2x2x2 torus (j in 0..1)"),
    ("1-0,0,0", 1, "i: range '1-0' goes down (a-b needs a <= b; a block that wraps around is two lines)"),
    ("nodes 8", 1, "node 8 is outside the 2x2x2 torus (nodes 0..7)"),
    ("# x\nnodes 1-", 2, "'1-' is not a node index or an interval a-b"),
    ("shape 2x2x4", 1, "the file's torus is 2x2x4, not 2x2x2"),
    ("0,0,0\nshape 2x2x2", 2, "the shape line must be the first statement (before the nodes)"),
    ("shape 2x2x2\nshape 2x2x2", 2, "the shape line must be the first statement"),
    ("shape 2x2", 1, "torus shape '2x2': expected XxYxZ with positive integers, e.g. 4x4x8"),
    ("shape 0x2x2", 1, "torus shape '0x2x2'"),
    ("shape2x2x2", 1, "expected i,j,k"),
])
def test_errors_name_the_file_and_line(text, line, message):
    with pytest.raises(FormatError) as e:
        parse_occupancy(text, (2, 2, 2), where="m.txt")
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"m.txt:{line}: ") and message in msg, msg


def test_no_shape_anywhere():
    with pytest.raises(FormatError, match=re.escape("m.txt: no 'shape XxYxZ' line: give the torus's shape")):
        parse_occupancy("0,0,0\n", where="m.txt")


def test_unreadable_files(tmp_path):
    with pytest.raises(FormatError, match="no such file"):
        read_occupancy(tmp_path / "missing.txt")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"shape 2x2x2\n\xff\n")
    with pytest.raises(FormatError, match="not UTF-8"):
        read_occupancy(bad)
    with pytest.raises(FormatError, match="is a directory"):
        read_occupancy(tmp_path, (2, 2, 2))


def test_the_bundled_example():
    occ = read_occupancy(EXAMPLE)
    assert occ.shape == (8, 8, 8) and int(occ.sum()) == 258
    assert occ[2:6].all() and occ[7, 3, 5] and occ[0, 0, 6]
    mfp = max_free_partition(occ)
    assert mfp.size == 196
    assert max_free_partition(occ, method="naive") == Box((6, 1, 6), (4, 7, 7))
