"""``coschedule bench batch``'s whole-command cases: the ``coschedule batch`` command itself, as a
user runs it, beside its own simulation (issue "the whole command as fast as its kernel").

A case (:data:`COMMAND_CASES`) runs ``coschedule batch WORKLOAD --policy P [failures] -o
jobs.csv`` in a **fresh Python process** through the CLI's own entry point
(:func:`coschedule.cli.main`): reading the workload, simulating, validating the run
(:func:`~coschedule.sim.validate.validate_run`), the summary, and writing ``jobs.csv`` into a
temporary folder. The child times ``run_batch`` inside that same command (the simulation, kernels
loaded from their cache included), so :attr:`~coschedule.bench.common.CommandRow.whole_over_sim` is the command's whole
CPU (the child process's, measured by the parent: interpreter start-up and imports included) over
the CPU of the simulation it ran. The Mira-like month (:data:`~coschedule.bench.batch.BATCH_CASES`'s
``mira``) is written first as a Batsim JSON workload (not timed), and its failures are drawn by the
command from the same seed as case ``mira``.

Targets (the issue's): the Mira-like month, Baseline and SFSJ, whole <= 1.5x its simulation;
KTH-SP2, EASY and conservative, whole <= 1.0 s of CPU (and >= 15x less than AccaSim's whole
process, when the benchmark ran AccaSim); LANL-CM5 <= 3 s.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from coschedule.bench.batch import KTH, LANL, MIRA_FAILURES
from coschedule.bench.common import CommandRow, measure_command

__all__ = ["COMMAND_CASES", "command_case"]

_MIRA_ARGS = ["--node-mtbf", repr(MIRA_FAILURES["node_mtbf"]), "--downtime", repr(MIRA_FAILURES["downtime"]),
              "--checkpoint-cost", repr(MIRA_FAILURES["checkpoint_cost"]), "--seed", str(MIRA_FAILURES["seed"])]

#: case name -> (workload: a bundled trace, or "mira" for the Mira-like month; policy; extra
#: arguments; the target: ("ratio", x) whole <= x times the simulation, ("cpu", s) whole <= s)
COMMAND_CASES: dict[str, tuple[str, str, list[str], tuple[str, float]]] = {
    "mira-command": ("mira", "conservative", _MIRA_ARGS, ("ratio", 1.5)),
    "mira-sfsj-command": ("mira", "sfsj", _MIRA_ARGS, ("ratio", 1.5)),
    "kth-easy-command": (KTH, "easy", [], ("cpu", 1.0)),
    "kth-conservative-command": (KTH, "conservative", [], ("cpu", 1.0)),
    "lanl-easy-command": (LANL, "easy", [], ("cpu", 3.0)),
    "lanl-conservative-command": (LANL, "conservative", [], ("cpu", 3.0)),
}


def command_case(name: str, repeat: int = 1) -> CommandRow:
    """Run case ``name`` of :data:`COMMAND_CASES` ``repeat`` times, each in a fresh process."""
    workload, policy, extra, target = COMMAND_CASES[name]
    with tempfile.TemporaryDirectory(prefix="coschedule-bench-command-") as tmp:
        if workload == "mira":
            from coschedule.bench.batch import _MIRA, _case_workload
            from coschedule.sim.workload import write_batsim

            workload = str(Path(tmp) / "mira-like-2018-03.json")
            write_batsim(_case_workload(_MIRA), workload)
        argv = ["batch", workload, "--policy", policy, *extra, "-o", str(Path(tmp) / "jobs.csv")]
        return measure_command(name, argv, "coschedule.heuristics.batch.run:run_batch", repeat=repeat,
                               target=target)
