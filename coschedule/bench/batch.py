"""``coschedule bench batch``: the batch simulator's speed and memory, and AccaSim side by side.

Cases (:data:`BATCH_CASES`), each measured in a **fresh Python process** so that its peak memory
is its own and its whole cost (interpreter start-up, imports, loading the numba kernels from
their cache, reading the trace, simulating) is counted:

* ``mira``: a Mira-like month (:func:`coschedule.sim.synthetic.mira_like`, March 2018, 4,024
  jobs on 49,152 nodes, seed 0) under Baseline (conservative backfilling, its reservations on
  nodes: the default) with failures: platform
  MTBF 1 h (``node_mtbf`` = 49,152 h), downtime D = 1 h, checkpoints C = R = 5 min, failure seed 1
  ([Du2024] §6.1's scenario);
* ``mira-sfsj``, ``mira-h321``: the same month and failure trace under node stealing, SFSJ (H111)
  and H321, the costliest of the 18 variants on counts (:data:`MIRA_COSTLIEST`); with
  ``-reference`` (and ``mira-reference`` for Baseline) the same through the reference event loop.
  :meth:`BatchBench.mira_ratios` divides their times by Baseline's kernel time (case ``mira``)
  measured in the same run;
* ``mira-nodes``: Baseline on the same month and failure trace with reservations on node
  identities (``reservations="nodes"``, batsched's, [Du2024] §5.1, the default) against counts: the child
  runs the count reading too, after the node one, and :attr:`BatchRun.nodes_over_count` is
  the ratio of their warm times in that one process (the target of issue 21: within 1.5x);
* ``mira-stealing`` (only when named): every node-stealing variant (H111 ... H323, SFSJ being
  H111) on the same month and failure trace in one process: a run of each loads its kernel, then
  three rounds time Baseline and every variant in turn, the least of each kept; each variant's
  over Baseline's, with reservations on nodes (the default) and on counts:
  :meth:`BatchBench.sweep_ratios`, against the target of 1.5x for every variant;
* ``lanl-easy``, ``lanl-conservative``: the bundled LANL-CM5 log (122,055 jobs, 1,024 nodes),
  failure-free;
* ``kth-easy``, ``kth-conservative``: the bundled KTH-SP2 log (28,467 jobs, 100 nodes),
  failure-free; ``kth-easy-reference`` the same EASY through the reference event loop;
* ``kth-easy-sjf-user``: the tutorial's own policy (the bundled example ``easy_sjf.py:EasySJF``,
  docs/own-policy.md), loaded from its file as a user's policy is, on the reference event loop,
  the same log: :meth:`BatchBench.user_policy_costs` gives its CPU per event (a submission, an
  attempt's end, a failure) beside the built-in EASY's on the same loop and on the kernel.

Per case: the CPU seconds of the simulation (``run_batch``, measured inside the child with
``time.process_time``), the CPU and wall seconds of the whole child process (``getrusage`` of
the child, measured by the parent), and the child's peak resident memory (``ru_maxrss``), with
its resident memory before the simulation (the imports and the workload) for reference. The
``batch`` command of the CLI is not called: the child does what it does up to the simulation
(no output written).

**AccaSim** (``pip install coschedule-hpc[accasim]``: AccaSim 1.1.3, an HPC workload management
simulator in Python) runs the same KTH workload failure-free with its EASY dispatcher
(``EASYBackfilling`` with ``FirstFit``), in a fresh process, on a converted copy of the workload
(:func:`write_accasim_swf`: a plain SWF file, a newline after the last line, no memory fields,
the run time, our processor count and our wall time), with ``collections.Mapping`` restored
before the import (AccaSim 1.1.3 imports it; Python 3.10 removed it). Its CPU is the child's own
around the simulation plus that of the processes it forks to write its schedule
(``RUSAGE_CHILDREN``). Its per-job start times are compared with our EASY's, and the tiny case of
:func:`tiny_backfill_workload` runs through both. Without AccaSim every AccaSim figure is
printed as "not measured".
"""

from __future__ import annotations

import json
import math
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from coschedule.bench.common import NOT_MEASURED, run_child
from coschedule.sim.workload import Workload, write_swf

__all__ = [
    "ACCASIM_VERSION",
    "BATCH_CASES",
    "MIRA_COSTLIEST",
    "NAMED_ONLY",
    "STEALING_VARIANTS",
    "AccasimRun",
    "BatchBench",
    "BatchRun",
    "accasim_status",
    "bench_batch",
    "run_accasim",
    "tiny_backfill_workload",
    "write_accasim_swf",
]

ACCASIM_VERSION = "1.1.3"
KTH, LANL = "KTH-SP2-1996-2.1-cln", "LANL-CM5-1994-4.1-cln"
#: [Du2024] §6.1: platform MTBF 1 h on 49,152 nodes, D = 1 h, C = R = 5 min
MIRA_FAILURES = {"node_mtbf": 49152 * 3600.0, "downtime": 3600.0, "checkpoint_cost": 300.0, "seed": 1}

#: the costliest node-stealing variant on the Mira-like month of case ``mira`` when reservations
#: were on counts: the kernel's CPU for each of the 18, measured twice (docs/benchmarks.md), H321
#: first both times (2.2x and 2.5x Baseline's), then H322, H312 and H311: under T3 failed jobs keep
#: their nodes idle until the victim's next checkpoint, and the queue conservative backfilling plans
#: is about twice as long. With reservations on nodes (the default since) H311 costs the most (case
#: ``mira-stealing`` measures all 18); the case keeps H321, the variant its earlier rows measured
MIRA_COSTLIEST = "h321"
_MIRA = {"mira": "2018-03", "seed": 0, "failures": MIRA_FAILURES}
#: the 18 variants Hxyz of [Du2024] §7 (SFSJ is H111: the same class)
STEALING_VARIANTS = [f"h{x}{y}{z}" for x in (1, 2, 3) for y in (1, 2) for z in (1, 2, 3)]
#: the cases run only when named (``--cases``), not by default: long
NAMED_ONLY = ("mira-stealing",)

#: case name -> what the child process simulates
BATCH_CASES: dict[str, dict[str, Any]] = {
    "mira": {**_MIRA, "policy": "conservative"},
    # node stealing on the same month and failure trace (compiled kernel, then the reference)
    "mira-sfsj": {**_MIRA, "policy": "sfsj"},
    f"mira-{MIRA_COSTLIEST}": {**_MIRA, "policy": MIRA_COSTLIEST},
    "mira-nodes": {**_MIRA, "policy": "conservative", "reservations": "nodes"},
    # every variant against Baseline, warm, in one process (about 5 min; only when named)
    "mira-stealing": {**_MIRA, "policy": "conservative", "sweep": STEALING_VARIANTS,
                      "readings": ["nodes", "count"], "rounds": 3},
    "mira-reference": {**_MIRA, "policy": "conservative", "backend": "reference"},
    "mira-sfsj-reference": {**_MIRA, "policy": "sfsj", "backend": "reference"},
    f"mira-{MIRA_COSTLIEST}-reference": {**_MIRA, "policy": MIRA_COSTLIEST, "backend": "reference"},
    "lanl-easy": {"trace": LANL, "policy": "easy"},
    "lanl-conservative": {"trace": LANL, "policy": "conservative"},
    "kth-easy": {"trace": KTH, "policy": "easy"},
    "kth-conservative": {"trace": KTH, "policy": "conservative"},
    # the same through the reference event loop with the policy objects (the compiled kernel
    # replays it bit for bit; run_batch's default is the kernel)
    "kth-easy-reference": {"trace": KTH, "policy": "easy", "backend": "reference"},
    "kth-conservative-reference": {"trace": KTH, "policy": "conservative", "backend": "reference"},
    # a user's policy from its file (the tutorial's), on the reference loop: what a user's idea costs
    "kth-easy-sjf-user": {"trace": KTH, "policy": "easy_sjf.py:EasySJF", "example": "easy_sjf",
                          "backend": "reference"},
}


@dataclass(frozen=True)
class BatchRun:
    """One case measured in a fresh process (module docstring); over ``repeat`` runs, the least
    CPU and wall seconds and the largest peak memory."""

    case: str
    workload: str
    jobs: int
    n_nodes: int
    policy: str
    failures: str
    repeat: int
    sim_cpu_s: float
    whole_cpu_s: float
    whole_wall_s: float
    rss_before_mb: float
    peak_rss_mb: float
    attempts: int
    failure_count: int
    #: a second simulation of the case in the same process: the kernels already loaded
    sim_warm_cpu_s: float | None = None
    #: node stealing: the steals done (cancelled ones not counted)
    steals: int = 0
    backend: str = "auto"
    #: a case with reservations on nodes: the warm CPU of the count reading in the same process
    count_warm_cpu_s: float | None = None
    #: case mira-stealing: per reading, Baseline's warm CPU and each variant's, in one process
    sweep: dict[str, dict[str, Any]] | None = None

    @property
    def nodes_over_count(self) -> float | None:
        """Reservations on nodes against counts: the warm times' ratio in one process."""
        if not self.count_warm_cpu_s or self.sim_warm_cpu_s is None:
            return None
        return self.sim_warm_cpu_s / self.count_warm_cpu_s

    @property
    def events(self) -> int:
        """The events of its run: the submissions, the attempts' ends and the failures."""
        return self.jobs + self.attempts + self.failure_count

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "nodes_over_count": self.nodes_over_count, "events": self.events}


@dataclass(frozen=True)
class AccasimRun:
    """AccaSim's EASY on KTH against ours (module docstring). ``status`` is ``"measured"`` or
    ``"not measured: why"``; then every number is None."""

    status: str
    sim_cpu_s: float | None = None
    children_cpu_s: float | None = None
    whole_cpu_s: float | None = None
    whole_wall_s: float | None = None
    jobs: int | None = None
    different_starts: int | None = None
    earlier: int | None = None  # AccaSim starts the job earlier than our EASY
    later: int | None = None
    difference_quantiles: dict[str, float] | None = None  # AccaSim - ours, seconds, differing jobs
    mean_wait_ours: float | None = None
    mean_wait_accasim: float | None = None
    tiny_ours: dict[str, float] = field(default_factory=dict)
    tiny_accasim: dict[str, float] | None = None

    @property
    def cpu_s(self) -> float | None:
        """AccaSim's simulation CPU: its own and that of the processes it forked."""
        if self.sim_cpu_s is None or self.children_cpu_s is None:
            return None
        return self.sim_cpu_s + self.children_cpu_s

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "cpu_s": self.cpu_s}


@dataclass(frozen=True)
class BatchBench:
    """Every case run, AccaSim, and the ratios measured in this run (``None``: not measured)."""

    runs: tuple[BatchRun, ...]
    accasim: AccasimRun
    cores: int

    def run(self, case: str) -> BatchRun | None:
        return next((r for r in self.runs if r.case == case), None)

    def ratios(self) -> dict[str, float | None]:
        """AccaSim's CPU over ours, simulation against simulation and whole process against
        whole process, for our EASY and our conservative on KTH."""
        out: dict[str, float | None] = {}
        a = self.accasim
        for policy in ("easy", "conservative"):
            r = self.run(f"kth-{policy}")
            sim = whole = warm = None
            if r is not None and a.cpu_s is not None and r.sim_cpu_s > 0:
                sim = a.cpu_s / r.sim_cpu_s
            if r is not None and a.cpu_s is not None and r.sim_warm_cpu_s:
                warm = a.cpu_s / r.sim_warm_cpu_s
            if r is not None and a.whole_cpu_s is not None and r.whole_cpu_s > 0:
                whole = a.whole_cpu_s / r.whole_cpu_s
            out[f"sim_vs_{policy}"] = sim
            out[f"warm_vs_{policy}"] = warm
            out[f"whole_vs_{policy}"] = whole
        return out

    def mira_ratios(self) -> dict[str, dict[str, float | None]]:
        """Each other ``mira*`` case's simulation CPU (first and warm) over Baseline's kernel on
        the same month and failure trace (case ``mira``) in this run; ``None`` when ``mira`` was
        not run."""
        base = self.run("mira")
        out: dict[str, dict[str, float | None]] = {}
        for r in self.runs:
            if not r.case.startswith("mira-") or r.sweep:  # the sweep has its own ratios
                continue
            sim = warm = None
            if base is not None and base.sim_cpu_s > 0:
                sim = r.sim_cpu_s / base.sim_cpu_s
            if base is not None and base.sim_warm_cpu_s and r.sim_warm_cpu_s is not None:
                warm = r.sim_warm_cpu_s / base.sim_warm_cpu_s
            out[r.case] = {"sim": sim, "warm": warm}
        return out

    def sweep_ratios(self) -> dict[str, dict[str, float]]:
        """Case ``mira-stealing``: per reservation reading, each variant's warm CPU over Baseline's
        in the same process; empty when the case was not run."""
        r = self.run("mira-stealing")
        if r is None or not r.sweep:
            return {}
        return {reading: {name: cpu / got["baseline"] for name, cpu in got["policies"].items()}
                for reading, got in r.sweep.items()}

    def user_policy_costs(self) -> dict[str, dict[str, float | None]]:
        """Warm simulation CPU per event, in microseconds, of the tutorial's policy (case
        ``kth-easy-sjf-user``) and of the built-in EASY on the reference loop and on the kernel
        (``kth-easy-reference``, ``kth-easy``), each with its ratio to the user's; empty when the
        user's case was not run, ``None`` where a case was not."""
        user = self.run("kth-easy-sjf-user")
        if user is None or not user.sim_warm_cpu_s:
            return {}
        out: dict[str, dict[str, float | None]] = {}
        for case in ("kth-easy-sjf-user", "kth-easy-reference", "kth-easy"):
            r = self.run(case)
            per = None if r is None or r.sim_warm_cpu_s is None else 1e6 * r.sim_warm_cpu_s / r.events
            out[case] = {"us_per_event": per, "user_over_this": None if r is None or not r.sim_warm_cpu_s
                         else user.sim_warm_cpu_s / r.sim_warm_cpu_s}
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"cores": self.cores, "runs": [r.to_dict() for r in self.runs],
                "accasim": self.accasim.to_dict(), "ratios": self.ratios(), "mira_ratios": self.mira_ratios(),
                "user_policy_costs": self.user_policy_costs(), "sweep_ratios": self.sweep_ratios()}


# ------------------------------------------------------------------------------ workloads

def tiny_backfill_workload() -> Workload:
    """The case where AccaSim's EASY and the textbook's part: 4 nodes; A (2 nodes, 100 s) at
    t = 0, B (4 nodes, 100 s) at t = 1, C (2 nodes, 1000 s) at t = 2; wall times = lengths.
    Textbook EASY reserves the 4 nodes for B at 100 (when A ends) and does not backfill C, which
    would still run then: A 0, B 100, C 200. AccaSim 1.1.3 backfills C at 2 (its backfilling
    passes no reserved nodes to the allocator, so a job that fits now starts now), and B starts
    at 1002."""
    return Workload(("A", "B", "C"), np.array([0.0, 1.0, 2.0]), np.array([2, 4, 2]),
                    np.array([100.0, 100.0, 1000.0]), np.array([100.0, 100.0, 1000.0]), 4, name="tiny-backfill")


def _case_workload(spec: dict[str, Any]) -> Workload:
    if "mira" in spec:
        from coschedule.sim.synthetic import mira_like

        return mira_like(spec["mira"], spec["seed"])
    if spec.get("trace") == "tiny":
        return tiny_backfill_workload()
    from coschedule.data import bundled_trace
    from coschedule.sim.workload import workload_from_swf
    from coschedule.swf import read_swf

    return workload_from_swf(read_swf(bundled_trace(spec["trace"])))


def write_accasim_swf(workload: Workload, path: str | Path) -> None:
    """``workload`` as a plain SWF file AccaSim 1.1.3 reads (:func:`~coschedule.sim.workload.write_swf`
    without a header: one line per job in submission order, a newline after the last one, no
    memory fields). AccaSim parses integers only: every time must be a whole number of seconds."""
    write_swf(workload, path, header=False)


# ------------------------------------------------------------------------------ children

def _maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def batch_child(argv: Sequence[str] | None = None) -> None:
    """The child process of one case: simulate the case given as JSON in ``argv[1]`` and print
    one JSON line of what it measured."""
    spec = json.loads((sys.argv if argv is None else argv)[1])
    from coschedule.heuristics.batch.run import run_batch

    w = _case_workload(spec)
    if "example" in spec:  # a bundled example policy, named by its file as a user names theirs
        from coschedule.data import bundled

        spec["policy"] = f"{bundled(spec['example'], 'policy').path}:{spec['policy'].split(':')[1]}"
    before = _maxrss_mb()
    kw = {**spec.get("failures", {}), **({"reservations": spec["reservations"]} if "reservations" in spec else {})}
    c0 = time.process_time()
    result = run_batch(w, spec["policy"], backend=spec.get("backend", "auto"), **kw)
    cpu = time.process_time() - c0
    c1 = time.process_time()  # again, the compiled kernels now loaded (a campaign's later runs)
    run_batch(w, spec["policy"], backend=spec.get("backend", "auto"), **kw)
    warm = time.process_time() - c1
    count = None
    if spec.get("reservations", "count") != "count":  # the count reading, warm, in this process
        c2 = time.process_time()
        run_batch(w, spec["policy"], backend=spec.get("backend", "auto"), **{**kw, "reservations": "count"})
        count = time.process_time() - c2
    out: dict[str, Any] = {"workload": w.name, "jobs": w.n, "n_nodes": w.n_nodes, "sim_cpu_s": cpu,
                           "sim_warm_cpu_s": warm,
                           "rss_before_mb": before, "peak_rss_mb": _maxrss_mb(),
                           "attempts": len(result.attempts), "failure_count": len(result.failures),
                           "steals": sum(1 for st in result.steals if not st.cancelled),
                           "count_warm_cpu_s": count}
    if spec.get("starts"):
        out["starts"] = dict(zip(w.ids, result.first_start.tolist()))
    if spec.get("sweep"):
        out["sweep"] = _sweep(w, spec["policy"], spec["sweep"], spec["readings"], spec.get("failures", {}),
                              spec.get("rounds", 3))
    print(json.dumps(out))


def _sweep(w: Workload, baseline: str, policies: Sequence[str], readings: Sequence[str],
           failures: dict[str, Any], rounds: int) -> dict[str, dict[str, Any]]:
    """Per reading, Baseline's warm CPU and each policy's, in this process: one run of each loads
    its kernel, then ``rounds`` rounds time one run of Baseline and of every policy in turn
    (interleaved, so that a change of the machine's load falls on all), the least kept."""
    from coschedule.heuristics.batch.run import run_batch

    def cpu(policy: str, reading: str) -> float:
        c0 = time.process_time()
        run_batch(w, policy, reservations=reading, **failures)
        return time.process_time() - c0

    out: dict[str, dict[str, Any]] = {}
    for reading in readings:
        names = [baseline, *policies]
        for name in names:  # load each kernel: not timed
            cpu(name, reading)
        best = dict.fromkeys(names, math.inf)
        for _ in range(rounds):
            for name in names:
                best[name] = min(best[name], cpu(name, reading))
        out[reading] = {"baseline": best.pop(baseline), "policies": best}
    return out


_CHILD = "import sys; from coschedule.bench.batch import batch_child; batch_child(sys.argv)"


def _case(name: str, spec: dict[str, Any], repeat: int) -> BatchRun:
    best: dict[str, Any] = {}
    cpu = wall = sim = warm = float("inf")
    peak = 0.0
    count: float | None = None
    for _ in range(repeat):
        out, c, w = run_child(["-c", _CHILD, json.dumps(spec)])
        cpu, wall, sim = min(cpu, c), min(wall, w), min(sim, out["sim_cpu_s"])
        if out.get("count_warm_cpu_s") is not None and out["sim_warm_cpu_s"] < warm:  # a pair from one run
            count = out["count_warm_cpu_s"]
        warm = min(warm, out["sim_warm_cpu_s"])
        peak = max(peak, out["peak_rss_mb"])
        best = out
    failures = spec.get("failures")
    what = "none"
    if failures:
        what = (f"node MTBF {failures['node_mtbf'] / 3600:g} h, D {failures['downtime'] / 3600:g} h, "
                f"C = R {failures['checkpoint_cost'] / 60:g} min, seed {failures['seed']}")
    return BatchRun(name, best["workload"], best["jobs"], best["n_nodes"], spec["policy"], what, repeat,
                    sim, cpu, wall, best["rss_before_mb"], peak, best["attempts"], best["failure_count"], warm,
                    best.get("steals", 0), spec.get("backend", "auto"), count, best.get("sweep"))


# ------------------------------------------------------------------------------ AccaSim

ACCASIM_CHILD = r"""
import collections, collections.abc, json, resource, sys, time
collections.Mapping = collections.abc.Mapping  # AccaSim 1.1.3 imports it; Python 3.10 removed it
swf, config, results = sys.argv[1:4]
from accasim.base.simulator_class import Simulator
from accasim.base.scheduler_class import EASYBackfilling
from accasim.base.allocator_class import FirstFit
fmt = {"format": "{job_id};{start_time}",
       "attributes": {"job_id": ("id", "str"), "start_time": ("start_time", "int")}}
c0, k0 = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
sim = Simulator(swf, config, EASYBackfilling(FirstFit()), RESULTS_FOLDER_PATH=results,
                show_statistics=False, SCHEDULE_OUTPUT=fmt, LOG_LEVEL="WARNING")
sim.start_simulation()
c1, k1 = time.process_time(), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"sim_cpu_s": c1 - c0,
                  "children_cpu_s": k1.ru_utime - k0.ru_utime + k1.ru_stime - k0.ru_stime}))
"""


def accasim_status() -> str | None:
    """None when AccaSim 1.1.3 can run here, else why not (without importing it)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        v = version("accasim")
    except PackageNotFoundError:
        return "AccaSim is not installed (pip install 'coschedule-hpc[accasim]')"
    if v != ACCASIM_VERSION:
        return f"AccaSim {v} is installed; the benchmark drives {ACCASIM_VERSION}"
    return None


def run_accasim(workload: Workload, folder: str | Path) -> tuple[dict[str, float], dict[str, float], float, float]:
    """Run AccaSim's EASY on ``workload`` in a fresh process, files in ``folder``; returns its
    start time per job id, its measured CPU (``sim_cpu_s``, ``children_cpu_s``), and the whole
    child's CPU and wall seconds."""
    folder = Path(folder)
    swf = folder / "workload.swf"
    write_accasim_swf(workload, swf)
    config = folder / "system.json"
    config.write_text(json.dumps({"groups": {"g0": {"core": 1}}, "resources": {"g0": workload.n_nodes}}))
    results = folder / "results"
    out, cpu, wall = run_child(["-c", ACCASIM_CHILD, str(swf), str(config), str(results)])
    starts: dict[str, float] = {}
    for line in (results / "sched-workload.swf").read_text().splitlines():
        number, start = line.split(";")
        starts[workload.ids[int(number) - 1]] = float(start)
    if len(starts) != workload.n:
        raise RuntimeError(f"AccaSim scheduled {len(starts)} of {workload.n} jobs")
    return starts, out, cpu, wall


def _starts_ours(workload: Workload, policy: str = "easy") -> dict[str, float]:
    from coschedule.heuristics.batch.run import run_batch

    return dict(zip(workload.ids, run_batch(workload, policy).first_start.tolist()))


def _accasim(progress: Callable[[str], None] | None) -> AccasimRun:
    tiny = tiny_backfill_workload()
    tiny_ours = _starts_ours(tiny)
    why = accasim_status()
    if why is not None:
        return AccasimRun(f"{NOT_MEASURED}: {why}", tiny_ours=tiny_ours)
    with tempfile.TemporaryDirectory(prefix="coschedule-accasim-") as tmp:
        os.makedirs(Path(tmp) / "tiny")
        tiny_acc = run_accasim(tiny, Path(tmp) / "tiny")[0]
        kth = _case_workload({"trace": KTH})
        if progress:
            progress(f"AccaSim {ACCASIM_VERSION} EASY on KTH-SP2 ({kth.n:,} jobs) ...")
        acc, out, cpu, wall = run_accasim(kth, tmp)
    if progress:
        progress("our EASY on KTH-SP2 for the start times ...")
    ours = _starts_ours(kth)
    a = np.array([acc[j] for j in kth.ids])
    o = np.array([ours[j] for j in kth.ids])
    d = a - o
    diff = d[d != 0]
    q = ({f"p{p}": float(np.percentile(diff, p)) for p in (0, 5, 25, 50, 75, 95, 100)} if diff.size else {})
    return AccasimRun("measured", out["sim_cpu_s"], out["children_cpu_s"], cpu, wall, kth.n,
                      int(diff.size), int(np.count_nonzero(d < 0)), int(np.count_nonzero(d > 0)), q,
                      float(np.mean(o - kth.submit)), float(np.mean(a - kth.submit)), tiny_ours, tiny_acc)


# ------------------------------------------------------------------------------ the benchmark

def bench_batch(
    cases: Sequence[str] = tuple(c for c in BATCH_CASES if c not in NAMED_ONLY),
    *,
    accasim: bool = True,
    repeat: int = 1,
    progress: Callable[[str], None] | None = None,
) -> BatchBench:
    """Measure ``cases`` (names of :data:`BATCH_CASES`), each ``repeat`` times in fresh
    processes, and, with ``accasim``, AccaSim against our EASY on KTH (module docstring). A warm-up
    child first loads (or compiles) the numba kernels, so that no case pays a compilation."""
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")
    unknown = [c for c in cases if c not in BATCH_CASES]
    if unknown:
        from coschedule.errors import unknown_name

        raise unknown_name("batch benchmark case", unknown[0], list(BATCH_CASES))
    if progress:
        progress("warm-up (numba kernels) ...")
    for policy in ("easy", "conservative"):
        run_child(["-c", _CHILD, json.dumps({"trace": "tiny", "policy": policy})])
    runs = []
    for name in cases:
        if progress:
            progress(f"{name} ...")
        runs.append(_case(name, BATCH_CASES[name], repeat))
    acc = _accasim(progress) if accasim else AccasimRun(f"{NOT_MEASURED}: not asked (--no-accasim)",
                                                        tiny_ours=_starts_ours(tiny_backfill_workload()))
    return BatchBench(tuple(runs), acc, os.cpu_count() or 1)
