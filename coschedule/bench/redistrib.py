"""``coschedule bench redistrib``: the pack simulator with redistribution, timed in one run
([Aupy2017] §1.5; :mod:`coschedule.redistribution.simulation`, :mod:`coschedule.heuristics.redistribution`).

Cases (:data:`REDISTRIB_CASES`; ``--cases`` picks some):

* ``n1000``: one pack of the issue's size, ``n = 1000`` applications of eq. (1.13) on ``p =
  10,000`` processors, MTBF 100 years (the paper's settings, seed 0), run by each of the four
  heuristic combinations (EndLocal or EndGreedy at ends, ShortestApplicationsFirst or
  IteratedGreedy at failures) and, for context, without redistribution and fault-free with
  EndGreedy; against the issue's target of 1 s of CPU per run on one core;
* ``growth-n``: the same at ``n`` = 125, 250, 500, 1000 with ``p = 10 n``: how a run's cost grows
  with ``n`` (EndGreedy + IteratedGreedy, the costliest);
* ``growth-failures``: ``n = 1000``, ``p = 10,000`` at MTBF 100, 25, 10 and 5 years: how it grows
  with the number of failures;
* ``n1000-command``: the EndGreedy + IteratedGreedy run of ``n1000`` as a user types it,
  ``coschedule redistrib PACK --at-end greedy --at-failure iterated`` in a fresh process, the pack
  the one ``coschedule redistrib generate --n 1000 --P 10000 --seed 0`` writes
  (:func:`coschedule.bench.common.measure_command`): the whole command's CPU beside that of the
  ``run_pack`` it calls.

Each run's CPU time is :func:`time.process_time` of :func:`~coschedule.heuristics.
redistribution.run_pack` in this process (one thread; the failure trace drawn inside it), the
least of ``repeat`` runs; the kernels are compiled or loaded from numba's cache by a warm-up run
first (not timed). Every timed run is checked by the validator (:func:`~coschedule.sim.
validate_pack.validate_pack_run`, not timed) before its row is made.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from coschedule.bench.common import CommandRow, measure_command
from coschedule.jit import HAVE_NUMBA
from coschedule.redistribution.model import YEAR, MalleablePack, Resilience

__all__ = ["DEFAULT_CASES", "REDISTRIB_CASES", "TARGET", "PackRow", "bench_redistrib", "time_run"]

#: the issue's target: CPU seconds of one run of n = 1000 on p = 10,000, each combination
TARGET = 1.0
#: the four combinations of §1.5.5, then the two references
COMBOS = (("local", "saf"), ("local", "iterated"), ("greedy", "saf"), ("greedy", "iterated"))
REFERENCES = (("none", "none", False), ("greedy", "none", True))

Progress = Callable[[str], None] | None


@dataclass(frozen=True)
class PackRow:
    """One timed configuration."""

    kind = "pack"  # (a class attribute, not a field: the CLI prints rows by kind)

    case: str
    n: int
    p: int
    mtbf_years: float
    at_end: str
    at_failure: str
    fault_free: bool
    cpu: float
    makespan_days: float
    failures: int
    failures_hit: int
    redistributions: int
    events: int
    backend: str

    @property
    def per_event_ms(self) -> float:
        return 1000.0 * self.cpu / max(1, self.events)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["per_event_ms"] = self.per_event_ms
        d["target_s"] = TARGET if self.case == "n1000" else None
        return d


def time_run(n: int, p: int, mtbf_years: float, at_end: str, at_failure: str, *, fault_free: bool = False,
             seed: int = 0, repeat: int = 1, case: str = "") -> PackRow:
    """Time :func:`run_pack` on ``MalleablePack.synthetic(n, p, seed=seed)`` (the least CPU of
    ``repeat`` runs), validate the run, and make its row."""
    from coschedule.heuristics.redistribution import run_pack
    from coschedule.redistribution.validate import validate_pack_run
    from coschedule.sim.failures import forget_drawn_traces

    pack = MalleablePack.synthetic(n, p, seed=seed)
    res = Resilience(node_mtbf=mtbf_years * YEAR)
    best, out = float("inf"), None
    for _ in range(max(1, repeat)):
        forget_drawn_traces()  # every run draws its trace, as a run of its own would
        t0 = time.process_time()
        out = run_pack(pack, res, at_end=at_end, at_failure=at_failure, seed=seed, fault_free=fault_free)
        best = min(best, time.process_time() - t0)
    assert out is not None
    validate_pack_run(out)
    return PackRow(case, n, p, mtbf_years, at_end, at_failure, fault_free, best, out.makespan / 86400.0,
                   len(out.failures), out.failures_hit, out.redistributions, n + len(out.failures),
                   "numba" if HAVE_NUMBA else "python")


def _n1000(repeat: int, progress: Progress) -> list[PackRow]:
    rows = []
    for ae, af in COMBOS:
        if progress:
            progress(f"n1000: {ae}+{af}")
        rows.append(time_run(1000, 10000, 100.0, ae, af, repeat=repeat, case="n1000"))
    for ae, af, ff in REFERENCES:
        if progress:
            progress(f"n1000: {ae}+{af}{' fault-free' if ff else ''}")
        rows.append(time_run(1000, 10000, 100.0, ae, af, fault_free=ff, repeat=repeat, case="n1000"))
    return rows


def _growth_n(repeat: int, progress: Progress) -> list[PackRow]:
    rows = []
    for n in (125, 250, 500, 1000):
        if progress:
            progress(f"growth-n: n = {n}")
        rows.append(time_run(n, 10 * n, 100.0, "greedy", "iterated", repeat=repeat, case="growth-n"))
    return rows


def _growth_failures(repeat: int, progress: Progress) -> list[PackRow]:
    rows = []
    for years in (100.0, 25.0, 10.0, 5.0):
        if progress:
            progress(f"growth-failures: MTBF {years:g} years")
        rows.append(time_run(1000, 10000, years, "greedy", "iterated", repeat=repeat, case="growth-failures"))
    return rows


def _n1000_command(repeat: int, progress: Progress) -> list[CommandRow]:
    """``n1000``'s costliest run as a user types it: the pack ``coschedule redistrib generate``
    writes (not timed), then ``coschedule redistrib PACK --at-end greedy --at-failure
    iterated`` in a fresh process, validation included, beside the ``run_pack`` it calls."""
    import tempfile

    from coschedule.io.files import save_json
    from coschedule.redistribution.io import pack_to_dict

    if progress:
        progress("n1000-command ...")
    with tempfile.TemporaryDirectory(prefix="coschedule-bench-redistrib-") as tmp:
        pack = f"{tmp}/pack-n1000-p10000.json"
        save_json(pack_to_dict(MalleablePack.synthetic(1000, 10000, seed=0)), pack)  # what `generate` writes
        argv = ["redistrib", pack, "--at-end", "greedy", "--at-failure", "iterated", "--node-mtbf", "100y",
                "--seed", "0"]
        return [measure_command("n1000-command", argv, "coschedule.heuristics.redistribution:run_pack",
                                repeat=repeat)]


#: case name -> ``(repeat, progress) -> rows``
REDISTRIB_CASES: dict[str, Callable[[int, Progress], list[PackRow] | list[CommandRow]]] = {
    "n1000": _n1000,
    "growth-n": _growth_n,
    "growth-failures": _growth_failures,
    "n1000-command": _n1000_command,
}
DEFAULT_CASES = tuple(REDISTRIB_CASES)


def bench_redistrib(cases: Sequence[str] = DEFAULT_CASES, *, repeat: int = 3,
                    progress: Progress = None) -> list[PackRow | CommandRow]:
    """The rows of ``cases`` (an unknown name: :class:`~coschedule.errors.UnknownName`)."""
    from coschedule.errors import unknown_name

    for c in cases:
        if c not in REDISTRIB_CASES:
            raise unknown_name("bench redistrib case", c, REDISTRIB_CASES, context="(--cases)")
    # warm-up: compile the kernels or load them from numba's cache (not timed)
    time_run(20, 100, 1.0, "greedy", "iterated")
    time_run(20, 100, 1.0, "local", "saf")
    rows: list[PackRow | CommandRow] = []
    for c in cases:
        rows.extend(REDISTRIB_CASES[c](repeat, progress))
    return rows
