"""The authors' C++ simulator, run side by side with ours (``coschedule bench --baseline-binary``).

The simulation code of [Benoit2021] (§5.1: "publicly available at
github.com/vlefevre/job-scheduling") is one C++ file, ``main.cpp``. Its interface, as read from
that file (the version with the sample inputs ``sample_1_0.3`` and ``failures_sample_1_0.3``):

``BINARY INSTANCE FAILURES COUNT``

``INSTANCE`` (text, whitespace-separated)
    first line ``lambda P verif priority batch naive shelf``: ``lambda`` is unused (failures come
    from the next file), ``verif`` a verification time added to every execution (0 here: our
    model has none), ``priority`` one of ``length area procs rlength rarea rprocs rand`` (LPT,
    LA, HPA, SPT, SA, LPA, RANDOM), and three 0/1 flags: ``shelf`` (a new round only when every
    running job has ended: R-Shelf), ``naive`` (stop a round at the first job that does not fit:
    no backfilling, the ``-NB`` variants), ``batch`` (failed jobs wait until every job ran once;
    not a heuristic of the paper: always 0 here). Then one line per job:
    ``NAME rgd TIME PROCS`` (a rigid job).
``FAILURES``
    ``COUNT`` scenarios, each ``n`` integers (failed attempts of each job, in job order); we write
    one scenario per line.
``COUNT``
    the number of scenarios to read and simulate.

It prints one line per scenario on stdout, ``MAKESPAN BOUND FAILURES`` (C++ ``cout`` default
precision: 6 significant digits), and the scenario's index on stderr.

Its ``main`` runs the list scheduler with ``m = "zero"`` (no reservation), so through this
interface it runs **R-List-0** (``shelf 0 naive 0``), **R-Shelf-B** (``shelf 1 naive 0``) and
**R-Shelf-NB** (``shelf 1 naive 1``). Its ``simulate`` also takes ``m = "one"`` and ``"all"``
(R-List-1, R-List-Q), reachable only by a ``main`` edited to pass them: ``reserves``
(``--baseline-reserves``) says which ``m`` the binary passes, and only the heuristics of that ``m`` are run
(:data:`RESERVES`); the others, and R-ShelfFill (not in the file), are "not measured". Its
RANDOM priority is seeded from the clock, so RANDOM makespans are timed but not compared.

Any program with the same interface can stand in for it (the tests use a small Python stand-in
to check our side of the exchange; they claim nothing about the C++ code).
"""

from __future__ import annotations

import os
import resource
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from coschedule.errors import CoscheduleError
from coschedule.rigid import RigidInstance

__all__ = [
    "AUTHORS_HEURISTICS",
    "AUTHORS_PRIORITIES",
    "MAKESPAN_RTOL",
    "RESERVES",
    "BaselineError",
    "BaselineRun",
    "compare_makespans",
    "run_baseline",
    "write_failures",
    "write_instance",
]

#: heuristic -> (batch, naive, shelf) flags of the authors' input file
AUTHORS_HEURISTICS: dict[str, tuple[int, int, int]] = {
    "r-list-0": (0, 0, 0),
    "r-shelf-b": (0, 0, 1),
    "r-shelf-nb": (0, 1, 1),
}
#: the ``m`` the binary's ``main`` passes to its ``simulate`` -> the heuristics it then runs, with
#: their flags (the stored ``main`` passes ``"zero"``)
RESERVES: dict[str, dict[str, tuple[int, int, int]]] = {
    "zero": AUTHORS_HEURISTICS,
    "one": {"r-list-1": (0, 0, 0)},
    "all": {"r-list-q": (0, 0, 0)},
}
#: our priority rule -> the authors' name (a larger key runs first in their max-heap)
AUTHORS_PRIORITIES: dict[str, str] = {
    "LPT": "length",
    "SPT": "rlength",
    "HPA": "procs",
    "LPA": "rprocs",
    "LA": "area",
    "SA": "rarea",
    "RANDOM": "rand",
}
#: makespans printed with 6 significant digits agree with ours within this relative tolerance
MAKESPAN_RTOL = 1e-5


class BaselineError(CoscheduleError):
    """The baseline binary cannot run this, failed, or printed something else than expected."""


@dataclass(frozen=True)
class BaselineRun:
    """One run of the binary: its makespans and what it cost (the whole process: start-up,
    reading both files, every scenario)."""

    binary: str
    heuristic: str
    priority: str
    scenarios: int
    makespans: np.ndarray
    wall_s: float
    cpu_s: float

    @property
    def cpu_ms_per_scenario(self) -> float:
        return 1000 * self.cpu_s / self.scenarios

    @property
    def wall_ms_per_scenario(self) -> float:
        return 1000 * self.wall_s / self.scenarios


def supported(heuristic: str, priority: str, reserves: str = "zero") -> str | None:
    """``None`` if the binary's interface can run this, its ``main`` passing ``m = reserves``
    (:data:`RESERVES`), else why not (a short phrase)."""
    if reserves not in RESERVES:
        return f"m = {reserves!r} is not one of the binary's ({', '.join(RESERVES)})"
    if heuristic not in RESERVES[reserves]:
        needs = next((m for m, runs in RESERVES.items() if heuristic in runs), None)
        if needs is not None:
            return (f"{heuristic} needs a binary whose main passes m = {needs!r} "
                    f"(this one: {reserves!r}; --baseline-reserves)")
        return f"{heuristic} is not reachable through the binary's interface"
    if priority.upper() not in AUTHORS_PRIORITIES:
        return f"priority {priority} has no counterpart in the binary"
    return None


def write_instance(path: str | Path, instance: RigidInstance, heuristic: str, priority: str,
                   reserves: str = "zero") -> None:
    """The authors' input file for ``instance`` run by ``heuristic`` with ``priority`` (by a
    binary whose ``main`` passes ``m = reserves``)."""
    why = supported(heuristic, priority, reserves)
    if why is not None:
        raise BaselineError(why)
    batch, naive, shelf = RESERVES[reserves][heuristic]
    lines = [f"0 {instance.P} 0 {AUTHORS_PRIORITIES[priority.upper()]} {batch} {naive} {shelf}"]
    lines += [f"J{j} rgd {float(job.time)!r} {int(job.procs)}" for j, job in enumerate(instance.jobs)]
    Path(path).write_text("\n".join(lines) + "\n", encoding="ascii")


def write_failures(path: str | Path, scenarios: np.ndarray) -> None:
    """One scenario per line: the failed attempts of each job, in job order."""
    f = np.atleast_2d(np.asarray(scenarios, dtype=np.int64))
    Path(path).write_text("".join(" ".join(map(str, row)) + "\n" for row in f.tolist()), encoding="ascii")


def run_baseline(
    binary: str | Path,
    instance: RigidInstance,
    scenarios: np.ndarray,
    heuristic: str,
    priority: str = "LPT",
    *,
    reserves: str = "zero",
    timeout: float | None = None,
) -> BaselineRun:
    """Run ``binary`` (its ``main`` passing ``m = reserves``) on ``instance`` and the ``(S, n)``
    failure ``scenarios``; parse its makespans; time the whole process (wall clock and the
    child's CPU time)."""
    exe = Path(binary)
    if not exe.is_file() or not os.access(exe, os.X_OK):
        raise BaselineError(f"{binary}: not an executable file")
    f = np.atleast_2d(np.asarray(scenarios, dtype=np.int64))
    if f.shape[1] != instance.n:
        raise BaselineError(f"scenarios have {f.shape[1]} jobs, the instance {instance.n}")
    with tempfile.TemporaryDirectory(prefix="coschedule-baseline-") as tmp:
        inst_path, fail_path = Path(tmp) / "instance.txt", Path(tmp) / "failures.txt"
        write_instance(inst_path, instance, heuristic, priority, reserves)
        write_failures(fail_path, f)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        try:
            done = subprocess.run([str(exe), str(inst_path), str(fail_path), str(len(f))],
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise BaselineError(f"{binary}: no answer within {timeout:g} s") from None
        except OSError as e:
            raise BaselineError(f"{binary}: cannot run it ({e.strerror})") from None
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
        raise BaselineError(f"{binary}: exit status {done.returncode} {tail[0]}".rstrip())
    makespans = _parse(done.stdout.decode(errors="replace"), len(f), str(binary))
    return BaselineRun(str(binary), heuristic, priority, len(f), makespans, wall, cpu)


def _parse(text: str, count: int, binary: str) -> np.ndarray:
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) != count:
        raise BaselineError(f"{binary}: printed {len(lines)} result lines for {count} scenarios "
                            "(expected 'MAKESPAN BOUND FAILURES' per scenario)")
    try:
        return np.array([float(line.split()[0]) for line in lines])
    except ValueError:
        raise BaselineError(f"{binary}: cannot read a makespan in {lines[0]!r}") from None


def compare_makespans(ours: np.ndarray, theirs: np.ndarray, *, rtol: float = MAKESPAN_RTOL) -> int:
    """How many scenarios have the same makespan (within ``rtol``: the binary prints 6 digits)."""
    return int(np.count_nonzero(np.isclose(ours, theirs, rtol=rtol, atol=0.0)))
