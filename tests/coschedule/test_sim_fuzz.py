"""The readers of the online simulators never fail with anything but the toolkit's own errors.

``read_batsim``, ``read_failures`` and the SWF reader (``read_swf`` then ``workload_from_swf``)
get arbitrary bytes (plain and gzipped) and valid files mutated at random (bytes replaced,
deleted or inserted; tokens and JSON values replaced); they either read the file or raise a
:class:`~coschedule.errors.CoscheduleError`. ``coschedule batch`` on such files exits 0, or 2
with one line on stderr and no traceback.

Three bugs found here have regression tests: in ``read_batsim``, an integer beyond int64
(``"res": 10**20``) raised ``OverflowError`` and JSON nested deeper than Python's recursion
limit raised ``RecursionError``; a job whose submit time plus length overflows a float
(``1e308 + 1e308``) was accepted by ``Workload``. The strategies below keep JSON integers
within int64 and nesting shallow, so that the properties test the rest.
"""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coschedule.cli import main
from coschedule.errors import CoscheduleError
from coschedule.sim import read_batsim, read_failures, workload_from_swf
from coschedule.swf import read_swf

ROOT = Path(__file__).resolve().parents[2]
TOY = (ROOT / "instances" / "batch" / "toy.json").read_bytes()
TOY_FAILURES = b"time,node\n1.0,2\n0.5,7\n3,0\n"
SWF = b"""; Version: 2.2
; MaxProcs: 8
; MaxNodes: 8
1 0 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1
2 10 0 70 4 -1 -1 4 60 -1 0 1 1 1 1 -1 -1 -1
3 20 0 0 1 -1 -1 1 60 -1 5 1 1 1 1 -1 -1 -1
4 30 0 50 -1 -1 -1 -1 60 -1 1 1 1 1 1 -1 -1 -1
5 40 0 30 8 -1 -1 8 -1 -1 1 1 1 1 1 -1 -1 -1
"""
N_NODES = 8


def _read_swf_workload(path: Path) -> object:
    return workload_from_swf(read_swf(path))


def _read_failures(path: Path) -> object:
    return read_failures(path, n_nodes=N_NODES)


READERS = {"batsim": (read_batsim, ".json", TOY), "failures": (_read_failures, ".csv", TOY_FAILURES),
           "swf": (_read_swf_workload, ".swf", SWF)}


def _only_our_errors(reader, data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"input{suffix}"
        path.write_bytes(data)
        try:
            reader(path)
        except CoscheduleError:
            pass


# ------------------------------------------------------------------ mutations


@st.composite
def byte_mutants(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` with a few slices replaced by, or extended with, arbitrary bytes or digits."""
    noise = st.one_of(st.binary(max_size=8), st.sampled_from([b"-", b"-1", b"1e400", b"nan", b"9" * 25, b"",
                                                             b",", b"\n", b" ", b"0.5", b"\x00", b"\xff"]))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(data)))
        j = draw(st.integers(i, min(len(data), i + 6)))
        data = data[:i] + draw(noise) + data[j:]
    return data


@st.composite
def token_mutants(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` with a few whitespace- or comma-separated tokens replaced (fields of SWF lines,
    CSV cells)."""
    lines = data.split(b"\n")
    replacement = st.sampled_from([b"-1", b"0", b"-5", b"1e300", b"1e400", b"nan", b"inf", b"3.5", b"abc",
                                   b"99999999999999999999999", b"", b"; MaxProcs: x", b"1,2,3", b"-0"])
    for _ in range(draw(st.integers(1, 3))):
        k = draw(st.integers(0, len(lines) - 1))
        sep = b"," if b"," in lines[k] else b" "
        tokens = lines[k].split(sep)
        t = draw(st.integers(0, len(tokens) - 1))
        tokens[t] = draw(replacement)
        lines[k] = sep.join(tokens)
    if draw(st.booleans()):  # duplicate or drop a line
        k = draw(st.integers(0, len(lines) - 1))
        lines = lines[:k] + ([lines[k], lines[k]] if draw(st.booleans()) else []) + lines[k + 1:]
    return b"\n".join(lines)


#: JSON values within int64 and shallow (see the module docstring for the bugs beyond)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


@st.composite
def json_mutants(draw: st.DrawFn, data: bytes) -> bytes:
    """A Batsim workload with a few values replaced, keys deleted, or numbers made extreme."""
    doc = json.loads(data)
    special = st.sampled_from([-1, 0, -0.5, 1e308, 5e-324, 2**63 - 1, 99, "J1", "delay8.0", [], {}, None, True])
    for _ in range(draw(st.integers(1, 3))):
        node: object = doc
        path = []
        while isinstance(node, (dict, list)) and node and draw(st.integers(0, 3)):
            key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else list(range(len(node)))))
            path.append((node, key))
            node = node[key]
        if not path:
            continue
        parent, key = path[-1]
        if isinstance(parent, dict) and draw(st.integers(0, 4)) == 0:
            del parent[key]
        else:
            parent[key] = draw(st.one_of(special, json_values))
    return json.dumps(doc).encode()


# ------------------------------------------------------------------ the readers


@pytest.mark.parametrize("kind", sorted(READERS))
@given(data=st.binary(max_size=300), zipped=st.booleans())
def test_arbitrary_bytes_raise_only_our_errors(kind, data, zipped):
    reader, suffix, _ = READERS[kind]
    _only_our_errors(reader, gzip.compress(data) if zipped else data, suffix + (".gz" if zipped and kind == "swf" else ""))


@pytest.mark.parametrize("kind", sorted(READERS))
@given(data=st.data())
def test_mutated_files_raise_only_our_errors(kind, data):
    reader, suffix, valid = READERS[kind]
    mutant = data.draw(byte_mutants(valid) if kind == "batsim" else st.one_of(byte_mutants(valid), token_mutants(valid)))
    _only_our_errors(reader, mutant, suffix)


@given(mutant=json_mutants(TOY))
def test_mutated_batsim_values_raise_only_our_errors(mutant):
    _only_our_errors(read_batsim, mutant, ".json")


@given(mutant=token_mutants(SWF), zipped=st.booleans())
def test_mutated_gzipped_swf_raise_only_our_errors(mutant, zipped):
    _only_our_errors(_read_swf_workload, gzip.compress(mutant) if zipped else mutant, ".swf.gz" if zipped else ".swf")


def test_batsim_integer_beyond_int64_is_a_format_error(tmp_path):
    doc = json.loads(TOY)
    doc["jobs"][0]["res"] = 10**20
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(CoscheduleError):
        read_batsim(path)


def test_batsim_deep_nesting_is_a_format_error(tmp_path):
    path = tmp_path / "w.json"
    path.write_text("[" * 100_000)
    with pytest.raises(CoscheduleError):
        read_batsim(path)


# ------------------------------------------------------------------ the command line


def _overflowing_toy(tmp_path: Path) -> Path:
    doc = json.loads(TOY)
    doc["jobs"][0]["subtime"] = 1e308
    doc["profiles"]["delay8.0"]["delay"] = 1e308
    path = tmp_path / "w.json"
    path.write_text(json.dumps(doc))
    return path


def test_batch_times_that_overflow_are_one_line(capsys, tmp_path):
    """The run's validator catches the attempt that ends at inf (the compiled kernel runs it;
    the reference engine, without numba, refuses the event with a ValueError)."""
    pytest.importorskip("numba")
    assert main(["batch", str(_overflowing_toy(tmp_path)), "--policy", "fcfs"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("coschedule batch: error: ")


def test_batsim_times_that_overflow_are_a_format_error(tmp_path):
    with pytest.raises(CoscheduleError):
        read_batsim(_overflowing_toy(tmp_path))


def _cli_exits_cleanly(capsys, files: dict[str, bytes], argv: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in files.items():
            (Path(tmp) / name).write_bytes(data)
        args = [a.replace("{tmp}", tmp) for a in argv]
        code = main(args)
        out, err = capsys.readouterr()
    assert code in (0, 2), (code, err)
    if code == 2:
        assert err.count("\n") == 1 and err.startswith("coschedule batch: error: ") and "Traceback" not in err, err
    else:
        assert "\nmakespan " in out and "\nflow (s) " in out


# the platform is pinned to 8 nodes (--nodes): a mutated header may not ask for a huge platform
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_batch_on_mutated_workloads_exits_0_or_2_with_one_line(capsys, data):
    kind = data.draw(st.sampled_from(["batsim", "swf", "bytes"]))
    if kind == "batsim":
        name, mutant = "w.json", data.draw(st.one_of(json_mutants(TOY), byte_mutants(TOY)))
    elif kind == "swf":
        name, mutant = "w.swf", data.draw(st.one_of(token_mutants(SWF), byte_mutants(SWF)))
    else:
        name, mutant = data.draw(st.sampled_from(["w.json", "w.swf", "w.swf.gz"])), data.draw(st.binary(max_size=200))
    policy = data.draw(st.sampled_from(["fcfs", "easy", "conservative"]))
    _cli_exits_cleanly(capsys, {name: mutant}, ["batch", "{tmp}/" + name, "--policy", policy, "--nodes", "8"])


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutant=st.one_of(token_mutants(TOY_FAILURES), byte_mutants(TOY_FAILURES), st.binary(max_size=100)),
       policy=st.sampled_from(["fcfs", "easy", "conservative"]))
def test_batch_on_mutated_failure_files_exits_0_or_2_with_one_line(capsys, mutant, policy):
    _cli_exits_cleanly(capsys, {"w.json": TOY, "f.csv": mutant},
                       ["batch", "{tmp}/w.json", "--policy", policy, "--failures", "{tmp}/f.csv", "--downtime", "2"])
