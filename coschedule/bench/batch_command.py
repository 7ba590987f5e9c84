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

__all__ = ["COMMAND_CASES", "SCALE_CASES", "SCALE_TARGET_MB", "command_case", "scale_bytes"]

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


#: the scale cases (issue "memory bounded at a million jobs"): EASY on a workload of
#: :func:`~coschedule.sim.synthetic.scale_workload` (seed 1, 1,024 nodes, load 0.8) written as SWF
#: (not timed), the whole command; name -> (jobs, failure arguments). With failures, a node MTBF
#: of 20,000 s, C = D = 1 min: about as many failures as jobs. Not in the default run: ``--cases
#: scale`` runs the three
SCALE_FAILURES = ["--node-mtbf", "20000", "--checkpoint-cost", "60", "--downtime", "60"]
SCALE_CASES: dict[str, tuple[int, list[str]]] = {
    "scale-300k-command": (300_000, []),
    "scale-1m-command": (1_000_000, []),
    "scale-1m-failures-command": (1_000_000, SCALE_FAILURES),
}
#: the scale cases' target: the whole command's peak resident memory, MB
SCALE_TARGET_MB = 4096.0


def scale_bytes(rows: list[CommandRow]) -> tuple[float | None, float | None]:
    """Bytes of peak memory per job (the 1M and 300k cases without failures) and per failure (the
    1M case with failures against the one without; its restarted attempts counted in), from the
    scale rows measured; ``None`` for a figure whose two cases were not both measured."""
    by = {r.case: r for r in rows}
    small, big, failing = (by.get(c) for c in SCALE_CASES)
    per_job = per_failure = None
    if small is not None and big is not None:
        per_job = (big.peak_rss_mb - small.peak_rss_mb) * 2**20 / (SCALE_CASES["scale-1m-command"][0]
                                                                   - SCALE_CASES["scale-300k-command"][0])
    if big is not None and failing is not None and (failing.counts or {}).get("failures"):
        per_failure = (failing.peak_rss_mb - big.peak_rss_mb) * 2**20 / failing.counts["failures"]
    return per_job, per_failure


def command_case(name: str, repeat: int = 1) -> CommandRow:
    """Run case ``name`` of :data:`COMMAND_CASES` or :data:`SCALE_CASES` ``repeat`` times, each in a
    fresh process."""
    if name in SCALE_CASES:
        return _scale_case(name, repeat)
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


def _scale_case(name: str, repeat: int) -> CommandRow:
    from coschedule.sim.synthetic import scale_workload
    from coschedule.sim.workload import write_swf

    jobs, extra = SCALE_CASES[name]
    with tempfile.TemporaryDirectory(prefix="coschedule-bench-scale-") as tmp:
        swf = str(Path(tmp) / f"scale-{jobs}.swf")
        write_swf(scale_workload(jobs, seed=1), swf)
        argv = ["batch", swf, "--policy", "easy", *extra, "-o", str(Path(tmp) / "jobs.csv")]
        return measure_command(name, argv, "coschedule.heuristics.batch.run:run_batch", repeat=repeat,
                               target=("memory", SCALE_TARGET_MB))
