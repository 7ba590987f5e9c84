"""Ctrl-C and SIGTERM at any instant of a command: one line, exit 130 or 143, no crash.

Before :mod:`coschedule.signals`, a Ctrl-C that arrived while the compiled batch kernel ran was
raised inside numba's boxing of the kernel's results (a Python callback from C that does not
check for an exception) and crashed the interpreter: a segmentation fault, exit -11. Each run
here is a fresh process, signalled at an instant drawn from a seeded generator inside its own
uninterrupted duration, so that the instants cover reading the trace, importing numba, loading
the kernels, the kernel itself and what follows it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from coschedule import signals

BATCH = ["batch", "KTH-SP2-1996-2.1-cln", "--policy", "conservative", "--node-mtbf", "1e7", "--downtime", "3600",
         "--checkpoint-cost", "300", "-o", "jobs.csv"]


SOLVE = ["solve", "synthetic-n60-p32", "--k", "4", "--method", "ilp", "--time-limit", "60"]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONFAULTHANDLER"] = "1"  # a crash prints its stack: the assertion shows it
    return env


def _run(args: list[str], cwd: Path, signum: int | None = None, after: float = 0.0) -> tuple[int, list[str], float]:
    """``coschedule ARGS`` in a fresh process, sent ``signum`` ``after`` seconds in: its status,
    its stderr lines but the compile notice and progress lines, and the seconds from the signal to its end."""
    proc = subprocess.Popen([sys.executable, "-m", "coschedule", *args], cwd=cwd, env=_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    t0 = time.perf_counter()
    if signum is not None:
        time.sleep(after)
        t0 = time.perf_counter()
        proc.send_signal(signum)
    _, err = proc.communicate(timeout=300)
    lines = [line for line in err.splitlines()  # the compile notice and a benchmark's progress aside
             if not line.startswith(("coschedule: compiling", "bench: "))]
    return proc.returncode, lines, time.perf_counter() - t0


def test_a_batch_run_signalled_at_20_random_instants_ends_with_one_line(tmp_path: Path) -> None:
    code, lines, whole = _run(BATCH, tmp_path)  # loads (or compiles) the kernel; its duration
    assert code == 0, lines
    whole_file = (tmp_path / "jobs.csv").read_bytes()
    (tmp_path / "jobs.csv").unlink()
    rng = np.random.default_rng(26)
    outcomes = []
    for i in range(20):
        signum = signal.SIGINT if i % 2 == 0 else signal.SIGTERM
        after = float(rng.uniform(0.15, 0.9 * whole))  # from the end of the interpreter's start-up
        code, lines, _ = _run(BATCH, tmp_path, signum, after)
        outcomes.append((signum.name, round(after, 2), code, lines))
        if code == 0:  # the run ended before the signal (a loaded machine runs it faster later)
            (tmp_path / "jobs.csv").unlink()
            continue
        word = "interrupted" if signum == signal.SIGINT else "terminated"
        # the one line last; before it only what the run says when it writes jobs.csv (done already)
        assert code == 128 + signum and lines[-1] == f"coschedule batch: {word}", outcomes[-1]
        assert all(line.startswith("wrote jobs.csv: ") for line in lines[:-1]), outcomes[-1]
        if (tmp_path / "jobs.csv").exists():  # written before the signal came: whole, never half
            assert (tmp_path / "jobs.csv").read_bytes() == whole_file
            (tmp_path / "jobs.csv").unlink()
    assert not list(tmp_path.iterdir())  # no temporary file left behind
    assert sum(o[2] != 0 for o in outcomes) >= 15, outcomes  # most signals landed in the run


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("pack")
    code, lines, _ = _run(["redistrib", "generate", "--n", "1000", "--P", "10000", "--seed", "0", "-o", "pack.json"],
                          where)
    assert code == 0, lines
    return where / "pack.json"


COMMANDS = {  # each runs for several seconds; the signal comes 1 s in
    "torus-simulate": ["torus", "simulate", "NASA-iPSC-1993-3.1-cln", "--policy", "balancing", "--failure-count",
                       "4000", "--seed", "0"],
    "redistrib": ["redistrib", "PACK", "--at-end", "greedy", "--at-failure", "iterated", "--node-mtbf", "100y",
                  "--seed", "0"],
    "solve": SOLVE,
    "bench": ["bench", "kinp", "--quick"],
}


@pytest.mark.parametrize("name", list(COMMANDS))
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_other_commands_end_with_one_line(tmp_path: Path, pack: Path, name: str, signum: int) -> None:
    args = [str(pack) if a == "PACK" else a for a in COMMANDS[name]]
    code, lines, took = _run(args, tmp_path, signum, 1.0)
    word = "interrupted" if signum == signal.SIGINT else "terminated"
    assert code == 128 + signum and lines == [f"coschedule {args[0]}: {word}"], (code, lines)
    assert took < 10


def test_a_signal_in_highs_presolve_ends_the_command(tmp_path: Path) -> None:
    """HiGHS's presolve does not look at its cancel: 3 s into this solve, a Ctrl-C waited for the
    solver's thread for a minute (the 60 s limit). The command now ends 1 s after asking it."""
    code, lines, took = _run(SOLVE, tmp_path, signal.SIGINT, 3.0)
    assert code == 130 and lines == ["coschedule solve: interrupted"], (code, lines)
    assert took < 5


def test_an_interruption_wrapped_by_python_is_found() -> None:
    """Python wraps an exception raised in ``__set_name__`` (a dataclass field, at import) in a
    ``RuntimeError``: a Ctrl-C there printed a traceback and exit 1."""
    stop = signals.Terminated()
    try:
        try:
            raise stop
        except KeyboardInterrupt as e:
            raise RuntimeError("Error calling __set_name__") from e
    except RuntimeError as wrapped:
        assert signals.interruption(wrapped) is stop
    assert signals.interruption(RuntimeError("no signal")) is None


def test_a_signal_inside_a_string_exec_waits_for_it_to_return(tmp_path: Path) -> None:
    """CPython 3.11 records a ``KeyboardInterrupt`` that leaves ``exec`` of a string as unhandled
    and ends the process by SIGINT at exit (-2) whatever it returned: ``dataclasses`` runs such
    strings while the simulation's modules are imported (`python -m coschedule batch`: exit -2, 4
    times in 50 signals). The handler waits until the string's code has returned, as for numba."""
    probe = r"""
import sys
from coschedule import signals
def main():
    with signals.handled("probe", last=True):
        try:
            exec("import signal\nsignal.raise_signal(signal.SIGINT)\nfor _ in range(2000):\n    sum(range(100))\n")
            for _ in range(10**7):
                sum(range(100))
        except KeyboardInterrupt:
            return 130
    return 0
sys.exit(main())
"""
    (tmp_path / "probe").mkdir()
    (tmp_path / "probe" / "__main__.py").write_text(probe)  # run as `python -m coschedule` is: with -m,
    # a file or `-c` exits at sys.exit without looking at that record
    out = subprocess.run([sys.executable, "-m", "probe"], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert out.returncode == 130, out


def test_exit_status_and_reason() -> None:
    assert signals.exit_status(KeyboardInterrupt()) == 130
    assert signals.exit_status(signals.Terminated()) == 143
    assert signals.reason(signals.Terminated()) == "terminated"
    assert signals.reason(KeyboardInterrupt()) == "interrupted"
    assert isinstance(signals.Terminated(), KeyboardInterrupt)  # every cleanup of Ctrl-C runs for SIGTERM


def test_a_signal_inside_numba_waits_until_the_stack_leaves_it(tmp_path: Path) -> None:
    """The handler itself: delivered while a frame of numba is on the stack, it raises nothing
    and delivers the signal again until it is out; then the exception lands in our code."""
    probe = r"""
import signal, sys, time
from coschedule import signals
import numba.core.serialize as S
seen = []
def inside():  # a stand-in for numba's callback: its frame's file is numba's
    signal.raise_signal(signal.SIGINT)
    for _ in range(200):
        sum(range(1000))  # Python code runs: the handler is called here, and must not raise
    seen.append("left numba")
exec(compile("def in_numba(f):\n    f()\n", S.__file__, "exec"), globals())
with signals.handled("probe"):
    try:
        in_numba(inside)
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 5:
            sum(range(1000))
        print("never raised")
    except KeyboardInterrupt:
        print("raised after", seen)
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert out.stdout.strip() == "raised after ['left numba']", out


def test_a_kernel_that_does_not_return_is_stopped_within_the_deadline(tmp_path: Path) -> None:
    """A compiled kernel never looks at signals: the watcher thread (the kernels release the
    interpreter) ends the process STOP_WITHIN seconds after the signal, with the line and 143."""
    probe = r"""
import sys
from coschedule import signals
from coschedule.jit import njit

@njit
def forever(n):
    x = 0
    while n > 0:
        x = (x * 31 + 7) % 1000003
    return x

forever(0)  # compiled before the signal
print("running", flush=True)
with signals.handled("coschedule probe", last=True):
    forever(1)
"""
    proc = subprocess.Popen([sys.executable, "-c", probe], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "running"
    time.sleep(0.5)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    took = time.perf_counter() - sent
    assert proc.returncode == 143 and err.strip().splitlines()[-1] == "coschedule probe: terminated", err
    assert signals.STOP_WITHIN - 0.5 < took < signals.STOP_WITHIN + 2
