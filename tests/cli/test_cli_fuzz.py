"""Hostile inputs, generated (issue 27's "done when"): malformed and edge-case SWF traces, Batsim
workloads, pack files and option values through ``coschedule batch``, ``torus simulate`` and
``redistrib``. Whatever the input, a command either succeeds (exit 0) or says what is wrong in
one line on stderr with exit status 2: never a traceback, never a second line, and never an
output file (or a temporary one) left behind after an error.

The generated cases run in-process through :func:`coschedule.cli.main` (hundreds per run); a
sample of them also runs as a subprocess, as a user types it (``python -m coschedule``)."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coschedule.cli import main
from coschedule.data import instances_dir

#: numbers and words a hostile user tries in a numeric field or option
EDGE_NUMBERS = ["0", "-1", "1", "-0", "1e18", "1e300", "1e-300", "nan", "inf", "-inf", "1.5", "2**10", "0x10",
                "", "abc", "1e", "99999999999999999999", "5min", "-5:-1", "10:5", "1h", "7d", "3y"]
TOY = instances_dir() / "batch" / "toy.json"
PACK = instances_dir() / "redistribution" / "synthetic-n20-p100.json"


def _run(argv: list[str], folder: Path) -> tuple[int, str]:
    """``coschedule ARGV`` in-process: its status (argparse's exit included) and its stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as stop:  # argparse's errors
            code = stop.code if isinstance(stop.code, int) else 2
    return code, err.getvalue()


def _empty(tmp_path: Path, name: str) -> Path:
    """A folder of ``tmp_path`` emptied for one example (hypothesis reuses the function's
    ``tmp_path`` across examples)."""
    folder = Path(tmp_path) / name
    folder.mkdir(exist_ok=True)
    for p in folder.iterdir():
        p.unlink()
    return folder


def _check(code: int, err: str, folder: Path, output: Path | None) -> None:
    assert "Traceback" not in err, err
    assert code in (0, 2), (code, err)
    if code == 2:
        lines = [x for x in err.splitlines() if not x.startswith(("coschedule: compiling", "coschedule batch: "
                                                                    "simulating", "coschedule batch: reading"))]
        assert len(lines) == 1 and lines[0].startswith("coschedule"), err
        if output is not None:
            assert not output.exists(), err
        assert not [p for p in folder.iterdir() if p.name.endswith(".tmp") or ".tmp" in p.name], err


# ------------------------------------------------------------------ SWF traces

_FIELD = st.one_of(st.integers(-5, 5_000).map(str), st.sampled_from(EDGE_NUMBERS))


@st.composite
def swf_texts(draw: st.DrawFn) -> str:
    """An SWF trace: a header (or none, or a broken one) and a few job lines, each valid, with a
    field replaced by an edge value, or cut short."""
    lines = [draw(st.sampled_from(["; MaxProcs: 8", "; MaxProcs: 0", "; MaxProcs: -4", "; MaxProcs: x",
                                   "; MaxNodes: 1e18", "", "; UnixStartTime: abc"]))]
    for k in range(draw(st.integers(0, 5))):
        fields = [str(k + 1), str(10 * k), "-1", "100", "2", "-1", "-1", "2", "120", "-1", "1", "1", "1", "1",
                  "-1", "-1", "-1", "-1"]
        how = draw(st.sampled_from(["valid", "field", "field", "short", "long"]))
        if how == "field":
            fields[draw(st.integers(0, 17))] = draw(_FIELD)
        elif how == "short":
            fields = fields[: draw(st.integers(0, 17))]
        elif how == "long":
            fields.append(draw(_FIELD))
        lines.append(" ".join(f for f in fields))
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n\x00"]))


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=swf_texts(), policy=st.sampled_from(["easy", "conservative", "sfsj"]),
       failures=st.sampled_from([[], ["--node-mtbf", "1e6"], ["--node-mtbf", "1e6", "--downtime", "60"]]))
def test_swf_traces(tmp_path: Path, text: str, policy: str, failures: list[str]) -> None:
    folder = _empty(tmp_path, "swf")
    trace, out = folder / "trace.swf", folder / "jobs.csv"
    trace.write_text(text, encoding="utf-8", errors="surrogateescape")
    code, err = _run(["batch", str(trace), "--policy", policy, *failures, "-o", str(out)], folder)
    _check(code, err, folder, out)


# ------------------------------------------------------------------ Batsim workloads

_VALUE = st.one_of(st.integers(-10, 10**19), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=3),
                   st.none(), st.booleans(), st.lists(st.integers(0, 3), max_size=2))


def _mutated(draw: st.DrawFn, data: dict, places: dict[str, list[dict]]) -> str:
    """``data`` as JSON with one change: its text cut short (place ``text``), or, in a dict drawn
    from ``places[where]`` (``top``: ``data`` itself), a key removed or given an odd value."""
    where = draw(st.sampled_from([*places, "text"]))
    if where == "text":
        text = json.dumps(data)
        return text[: draw(st.integers(0, len(text) - 1))]
    target = data if where == "top" else draw(st.sampled_from(places[where]))
    key = draw(st.sampled_from(sorted(target)))
    if draw(st.booleans()):
        del target[key]
    else:
        target[key] = draw(_VALUE)
    return json.dumps(data, allow_nan=True)


@st.composite
def batsim_workloads(draw: st.DrawFn) -> str:
    """The toy workload with one change: a key removed or given an odd value, at the top, in a
    job or in a profile; or its text cut short."""
    data = json.loads(TOY.read_text())
    return _mutated(draw, data, {"top": [], "job": data["jobs"], "profile": list(data["profiles"].values())})


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=batsim_workloads(), policy=st.sampled_from(["easy", "conservative", "fcfs"]))
def test_batsim_workloads(tmp_path: Path, text: str, policy: str) -> None:
    folder = _empty(tmp_path, "batsim")
    workload, out = folder / "w.json", folder / "jobs.csv"
    workload.write_text(text)
    code, err = _run(["batch", str(workload), "--policy", policy, "-o", str(out)], folder)
    _check(code, err, folder, out)
    code, err = _run(["torus", "simulate", str(workload), "--shape", "2x2x2", "--policy", "fcfs",
                      "--failure-count", "3", "-o", str(out)], folder)
    _check(code, err, folder, out)


# ------------------------------------------------------------------ packs

@st.composite
def packs(draw: st.DrawFn) -> str:
    data = json.loads(PACK.read_text())
    data["applications"] = data["applications"][:3]
    return _mutated(draw, data, {"top": [], "application": data["applications"]})


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=packs(), heuristics=st.sampled_from([["--at-end", "greedy", "--at-failure", "iterated"],
                                                  ["--at-end", "none", "--at-failure", "none"]]))
def test_packs(tmp_path: Path, text: str, heuristics: list[str]) -> None:
    folder = _empty(tmp_path, "pack")
    pack, out = folder / "pack.json", folder / "out.json"
    pack.write_text(text)
    code, err = _run(["redistrib", str(pack), *heuristics, "--seed", "1", "--plot", str(out.with_suffix(".png"))],
                     folder)
    _check(code, err, folder, out.with_suffix(".png"))


# ------------------------------------------------------------------ option values

_OPTIONS = {
    "batch": (["batch", str(TOY), "--policy", "easy"],
              ["--node-mtbf", "--downtime", "--checkpoint-cost", "--recovery-cost", "--seed", "--window", "--nodes",
               "--prune"]),
    "torus": (["torus", "simulate", str(TOY), "--policy", "fcfs", "--shape", "2x2x2"],
              ["--failure-count", "--downtime", "--seed", "--load-scale", "--shape", "--confidence"]),
    "redistrib": (["redistrib", str(PACK), "--at-end", "greedy", "--at-failure", "iterated"],
                  ["--node-mtbf", "--downtime", "--seed", "--c"]),
}


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(command=st.sampled_from(sorted(_OPTIONS)), data=st.data())
def test_option_values(tmp_path: Path, command: str, data: st.DataObject) -> None:
    base, options = _OPTIONS[command]
    argv = list(base)
    for option in data.draw(st.lists(st.sampled_from(options), min_size=1, max_size=2, unique=True)):
        argv += [option, data.draw(st.sampled_from(EDGE_NUMBERS))]
    if command == "batch" and "--downtime" in argv and "--node-mtbf" not in argv:
        argv += ["--node-mtbf", "1e6"]
    folder = _empty(tmp_path, "options")
    out = folder / "out.csv"
    code, err = _run([*argv, "-o", str(out)] if command != "redistrib" else argv, folder)
    _check(code, err, folder, out if command != "redistrib" else None)


# ------------------------------------------------------------------ as a user types them

SUBPROCESS_CASES = [
    ["batch", "trace.swf", "--policy", "easy", "-o", "jobs.csv"],
    ["batch", "w.json", "--policy", "conservative", "-o", "jobs.csv"],
    ["batch", "batch/toy.json", "--policy", "easy", "--node-mtbf", "1e-300", "-o", "jobs.csv"],
    ["batch", "batch/toy.json", "--policy", "easy", "--seed", "-3", "-o", "jobs.csv"],
    ["torus", "simulate", "w.json", "--shape", "2x2x2", "--policy", "fcfs", "-o", "jobs.csv"],
    ["torus", "simulate", "batch/toy.json", "--shape", "100000x100000x100000", "--policy", "fcfs"],
    ["redistrib", "pack.json", "--at-end", "greedy", "--at-failure", "iterated"],
    ["redistrib", "synthetic-n20-p100", "--at-end", "greedy", "--at-failure", "iterated", "--downtime", "1e18"],
    ["simulate", "demo", "--dask", "notanaddress"],
    ["batch", "batch/toy.json", "--policy", "fifo"],
]


@pytest.mark.parametrize("argv", SUBPROCESS_CASES, ids=[" ".join(a[:2]) + f" #{k}" for k, a in enumerate(SUBPROCESS_CASES)])
def test_as_a_subprocess(tmp_path: Path, argv: list[str]) -> None:
    (tmp_path / "trace.swf").write_text("; MaxProcs: 4\n1 0 -1 100 8 -1 -1 8 120 -1 1 1 1 1 -1 -1 -1 -1\n")
    (tmp_path / "w.json").write_text('{"nb_res": 4, "jobs": [{"id": "a", "subtime": 0, "res": 2, "walltime": 1e400, '
                                     '"profile": "p"}], "profiles": {"p": {"type": "delay", "delay": -5}}}')
    (tmp_path / "pack.json").write_text('{"format": "coschedule/malleable-pack", "version": 1, "p": 4, '
                                        '"applications": [{"name": "a", "memory": 1, "seq": 1e300, "par": 1}]}')
    proc = subprocess.run([sys.executable, "-m", "coschedule", *argv], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    _check(proc.returncode, proc.stderr, tmp_path, tmp_path / "jobs.csv")
    assert proc.returncode == 2, proc.stderr
