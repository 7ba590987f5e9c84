"""A user's own torus policy (docs/own-policy.md): named ``file.py:Class``, ``module:Class`` or
by an installed package's entry point in ``coschedule.policies.torus``; a subclass of
TorusScheduler that changes nothing runs as the built-in, a first-fit placement as an
independent brute-force first-fit scheduler; every broken policy is one line with exit 2."""

from __future__ import annotations

import itertools
import json
import math
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest
from coschedule_testing import cli_fails as fails
from coschedule_testing import cli_run as run
from coschedule_testing import install_package

from coschedule import plugins
from coschedule.errors import InvalidInstance
from coschedule.heuristics.torus import TorusScheduler, get_torus_policy
from coschedule.heuristics.torus.run import run_torus
from coschedule.sim.engine import Simulation
from coschedule.sim.workload import Workload
from coschedule.torus import box_shapes
from coschedule.torus.geometry import Box
from coschedule.torus.result import TorusRun
from coschedule.torus.validate import validate_torus_run
from coschedule.torus.workload import TorusJobs, torus_workload

ROOT = Path(__file__).resolve().parents[2]
TOY = str(ROOT / "instances" / "batch" / "toy.json")
TOY_FAILURES = str(ROOT / "instances" / "batch" / "toy-failures.csv")

MINE = """\
    from coschedule.heuristics.torus import TorusScheduler


    class Same(TorusScheduler):
        '''The built-in FCFS, as a user's class.'''


    class Balancing(TorusScheduler):
        def __init__(self, dims, **options):
            super().__init__(dims, "balancing", **options)


    class Tiebreak(TorusScheduler):
        def __init__(self, dims, **options):
            super().__init__(dims, "tiebreak", **options)


    class FirstFit(TorusScheduler):
        '''FCFS on the first free partition (shape, then base) instead of the least MFP loss.'''

        name = "first-fit"

        def choose(self, sim, job, partitions):
            return 0
    """


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def _jobs(seed: int, dims=(2, 2, 4), n: int = 50) -> TorusJobs:
    rng = np.random.default_rng(seed)
    length = rng.uniform(10, 300, n)
    w = Workload(tuple(f"j{k}" for k in range(n)), np.sort(rng.uniform(0, 1500, n)),
                 rng.choice([1, 2, 3, 4, 8, 16], n), length * rng.uniform(1, 2, n), length, math.prod(dims))
    return torus_workload(w, dims)


def _timeline(r: TorusRun) -> list[tuple[int, int, float, float, tuple[int, ...], str]]:
    return sorted((a.job, a.index, a.start, a.end, tuple(a.nodes), a.outcome) for a in r.result.attempts)


@pytest.mark.parametrize(("cls", "builtin", "options"), [
    ("Same", "fcfs", {}),
    ("Same", "fcfs", {"migration": False, "downtime": 30.0}),
    ("Balancing", "balancing", {"confidence": 0.5}),
    ("Balancing", "balancing", {"confidence": 0.3, "pf": "product", "backfill": False}),
    ("Tiebreak", "tiebreak", {"accuracy": 0.6}),
])
def test_a_subclass_that_changes_nothing_runs_as_the_builtin(tmp_path: Path, monkeypatch, cls: str, builtin: str,
                                                            options: dict) -> None:
    """From a file and from a module on the path: the built-in's attempts, under failures; the
    options reach its constructor (a predictor that would be silent without them decides)."""
    _write(tmp_path, "my_torus_policies.py", MINE)  # a module name no other test imports
    monkeypatch.syspath_prepend(str(tmp_path))
    jobs = _jobs(1)
    expected = run_torus(jobs, builtin, failure_count=40, seed=3, **options)
    for ref in (f"{tmp_path / 'my_torus_policies.py'}:{cls}", f"my_torus_policies:{cls}"):
        got = run_torus(jobs, ref, failure_count=40, seed=3, **options)
        assert _timeline(got) == _timeline(expected)
        assert got.policy == ref and expected.policy == builtin
        assert got.params["migrations"] == expected.params["migrations"]
        validate_torus_run(got)
    if builtin != "fcfs":  # the predictor mattered: the run differs from FCFS's
        assert _timeline(expected) != _timeline(run_torus(jobs, "fcfs", failure_count=40, seed=3,
                                                          **{k: v for k, v in options.items() if k == "backfill"}))


class _BruteFirstFit:
    """The reference: strict FCFS (no backfilling, no migration) that starts the head on the
    first box of its size, shapes in lexicographic order then bases, whose nodes are all free and
    up -- every box tried by brute force, nothing of the scheduler's index."""

    name = "brute-first-fit"

    def __init__(self, dims: tuple[int, int, int]) -> None:
        self.dims = dims

    def reset(self, sim: Simulation) -> None:
        self.queue: list[tuple[float, int]] = []

    def job_failed(self, sim: Simulation, job: int, node: int) -> None:
        sim.requeue(job)
        self.queue.append((sim.submit[job], job))
        self.queue.sort()

    def _first_box(self, sim: Simulation, p: int) -> list[int] | None:
        free = (sim.node_job < 0) & sim.up
        for shape in box_shapes(p, self.dims):
            for base in itertools.product(*(range(d) for d in self.dims)):
                nodes = Box(base, shape).nodes(self.dims)
                if free[nodes].all():
                    return nodes.tolist()
        return None

    def decide(self, sim: Simulation, instant) -> None:
        self.queue.extend((sim.submit[j], j) for j in instant.submitted)
        self.queue.sort()
        while self.queue:
            j = self.queue[0][1]
            nodes = self._first_box(sim, int(sim.procs[j]))
            if nodes is None:
                return
            sim.start(j, nodes)
            self.queue.pop(0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_first_fit_is_a_brute_force_first_fit(tmp_path: Path, seed: int) -> None:
    """The tutorial's FirstFit (choose returns 0) without backfilling or migration starts every
    attempt where the brute-force first-fit FCFS does, under failures and downtime; with them on,
    its run is still a valid torus run (and not Krevat's)."""
    ref = f"{_write(tmp_path, 'mine.py', MINE)}:FirstFit"
    jobs = _jobs(seed)
    got = run_torus(jobs, ref, failure_count=30, seed=seed, downtime=20.0, backfill=False, migration=False)
    trace = got.trace
    brute = Simulation(jobs.workload, _BruteFirstFit(jobs.dims), failures=trace, downtime=20.0).run()
    assert _timeline(got) == _timeline(TorusRun(brute, jobs, trace, "brute"))
    assert got.policy == ref and got.result.policy == "first-fit"  # the run under the reference; its own name
    full = run_torus(jobs, ref, failure_count=30, seed=seed)
    validate_torus_run(full)
    assert _timeline(full) != _timeline(run_torus(jobs, "fcfs", failure_count=30, seed=seed))


def test_a_class_from_scratch_and_its_options(tmp_path: Path) -> None:
    """A class that is no TorusScheduler: the engine's protocol, dims when its constructor takes
    them, the options it takes; one it does not take is an error unless at its default."""
    _write(tmp_path, "scratch.py", """\
        class Scratch:
            '''Strict FCFS, each job on the first free box the scheduler's finder lists.'''

            def __init__(self, dims, confidence=0.0):
                from coschedule.heuristics.torus import TorusScheduler
                self.inner = TorusScheduler(dims, backfill=False, migration=False)
                self.confidence = confidence

            def reset(self, sim):
                self.inner.reset(sim)

            def job_failed(self, sim, job, node):
                self.inner.job_failed(sim, job, node)

            def decide(self, sim, instant):
                self.inner.decide(sim, instant)
        """)
    policy = get_torus_policy("scratch.py:Scratch", (2, 2, 4), base=tmp_path, confidence=0.25, backfill=True)
    assert policy.name == "scratch.py:Scratch" and policy.confidence == 0.25 and policy.inner.dims == (2, 2, 4)
    with pytest.raises(InvalidInstance, match=r"^policy 'scratch.py:Scratch' does not take the option backfill "
                                              r"\(its constructor has no 'backfill' parameter\)$"):
        get_torus_policy("scratch.py:Scratch", (2, 2, 4), base=tmp_path, backfill=False)
    jobs = _jobs(4)
    got = run_torus(jobs, str(tmp_path / "scratch.py") + ":Scratch", failure_count=20, seed=1, confidence=0.5)
    expected = run_torus(jobs, "fcfs", failure_count=20, seed=1, backfill=False, migration=False)
    assert _timeline(got) == _timeline(expected) and got.params["confidence"] == 0.5


BROKEN = """\
    from coschedule.heuristics.torus import TorusScheduler


    class Busy:
        def reset(self, sim): pass
        def job_failed(self, sim, job, node): sim.requeue(job)
        def decide(self, sim, instant):
            for j in instant.submitted:
                sim.start(j, list(range(sim.procs[j])))


    class NotBox(Busy):
        def decide(self, sim, instant):
            for j in range(sim.n):
                if sim.is_waiting(j) and sim.submit[j] <= sim.now and sim.procs[j] <= sim.free_count():
                    sim.start(j, [0, 3] if j == 0 else sim.lowest_free(sim.procs[j]))


    class BadChoice(TorusScheduler):
        def choose(self, sim, job, partitions):
            return len(partitions)


    class Raises(TorusScheduler):
        def choose(self, sim, job, partitions):
            return 1 // 0


    class Half:
        def reset(self, sim): pass


    class Fails(TorusScheduler):
        def __init__(self, dims):
            raise ValueError("no config")
    """


@pytest.mark.parametrize(("cls", "extra", "message"), [
    ("Busy", [], r"policy 'broken.py:Busy' at t = 0 s: job J2: nodes \[0\] are down or busy$"),
    ("NotBox", [], (r"policy 'broken.py:NotBox': job J1 attempt 0: nodes \[0, 3\] are not a contiguous rectangular "
                    r"partition of the torus 2x2x2$")),
    ("BadChoice", [], (r"policy 'broken.py:BadChoice' at t = 0 s: job J1: choose returned 12, not the index of one "
                       r"of its 12 free partitions \(0..11\)$")),
    ("Raises", [], (r"policy 'broken.py:Raises' raised ZeroDivisionError: integer division or modulo by zero at "
                    r".*broken.py:\d+ \(in choose\) at t = 0 s$")),
    ("Half", [], (r"policy 'broken.py:Half': Half has no job_failed, decide method: a torus policy has reset\(sim\), "
                  r"job_failed\(sim, job, node\) and decide\(sim, instant\) \(or subclass TorusScheduler\)$")),
    ("Fails", [], (r"policy 'broken.py:Fails' raised ValueError: no config at .*broken.py:\d+ \(in __init__\) in its "
                   r"constructor$")),
    ("Busy", ["--no-backfill"], (r"policy 'broken.py:Busy' does not take the option backfill \(its constructor has "
                                 r"no 'backfill' parameter\)$")),
    ("Nope", [], (r"policy 'broken.py:Nope': .*broken.py has no 'Nope' \(it defines BadChoice, Busy, Fails, Half, "
                  r"NotBox, Raises\)$")),
])
def test_a_broken_policy_is_one_line_with_exit_2(tmp_path: Path, monkeypatch, capsys, cls: str, extra: list[str],
                                                  message: str) -> None:
    _write(tmp_path, "broken.py", BROKEN)
    jobs = [("J1", 0, 2, 3), ("J2", 0, 1, 2), ("J3", 0, 4, 5), ("J4", 2, 1, 1)]
    (tmp_path / "w.json").write_text(json.dumps({"nb_res": 8, "jobs": [
        {"id": i, "subtime": s, "res": r, "walltime": t, "profile": f"delay{t}"} for i, s, r, t in jobs],
        "profiles": {f"delay{t}": {"type": "delay", "delay": t} for *_, t in jobs}}), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    err = fails(capsys, "torus", "simulate", "w.json", "--shape", "2x2x2", "--policy", f"broken.py:{cls}", *extra)
    assert err.startswith("coschedule torus: error: "), err
    assert re.search(message, err.strip()), err


@pytest.mark.parametrize(("ref", "message"), [
    ("missing.py:A", r"policy 'missing.py:A': no such file '.*missing.py'$"),
    ("no_such_pkg.mod:A", r"policy 'no_such_pkg.mod:A': cannot import 'no_such_pkg.mod': ModuleNotFoundError"),
    ("balancin", (r"unknown torus policy 'balancin' \(did you mean 'balancing'\?\); valid: balancing, fcfs, tiebreak; "
                  r"or your own: FILE.py:CLASS, MODULE:CLASS \(coschedule policies\)$")),
])
def test_a_bad_reference_is_one_line_with_exit_2(tmp_path: Path, monkeypatch, capsys, ref: str, message: str) -> None:
    monkeypatch.chdir(tmp_path)
    err = fails(capsys, "torus", "simulate", TOY, "--shape", "2x2x2", "--policy", ref)
    assert re.search(message, err.strip()), err


def _metrics(printed: dict) -> dict:
    return {k: v for k, v in printed["metrics"].items() if k != "policy"}


def test_the_command_takes_a_file_and_says_where_it_comes_from(tmp_path: Path, monkeypatch, capsys) -> None:
    _write(tmp_path, "mine.py", MINE)
    monkeypatch.chdir(tmp_path)
    argv = ["torus", "simulate", TOY, "--shape", "2x2x2", "--failures", TOY_FAILURES]
    code, out, err = run(capsys, *argv, "--policy", "mine.py:Same", "--json")
    assert code == 0, err
    got = json.loads(out)
    code, out, err = run(capsys, *argv, "--policy", "FCFS", "--json")  # a built-in name, any case
    builtin = json.loads(out)
    assert _metrics(got) == _metrics(builtin) and got["policy"] == "mine.py:Same" and builtin["policy"] == "fcfs"
    assert got["policy_source"]["origin"] == "file" and len(got["policy_source"]["sha256"]) == 64
    assert "policy_source" not in builtin
    code, out, err = run(capsys, *argv, "--policy", "mine.py:FirstFit")
    assert code == 0, err
    assert f"policy mine.py:FirstFit, your own (file {tmp_path / 'mine.py'})" in out


def make_torus_package(root: Path) -> Path:
    """The torus kind's tiny installed package: ``tinytorus.PackagedFCFS`` with entry points in
    ``coschedule.policies.torus``, one of them under a built-in's name."""
    source = ("from coschedule.heuristics.torus import TorusScheduler\n\n\n"
              "class PackagedFCFS(TorusScheduler):\n    '''Krevat's FCFS, from an installed package.'''\n")
    return install_package(root, "tinytorus", source, {"coschedule.policies.torus": {
        "packaged-fcfs": "tinytorus:PackagedFCFS", "fcfs": "tinytorus:Nothing"}})


def test_an_installed_package_registers_a_torus_policy_by_name(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.syspath_prepend(str(make_torus_package(tmp_path / "site")))
    assert "packaged-fcfs" in plugins.registered("torus")
    src = plugins.resolve("packaged-fcfs", "torus")
    assert src is not None and src.origin == "entry point" and src.target == "tinytorus"
    policy = get_torus_policy("packaged-fcfs", (2, 2, 2))
    assert type(policy).__name__ == "PackagedFCFS" and policy.name == "packaged-fcfs"
    argv = ["torus", "simulate", TOY, "--shape", "2x2x2", "--failures", TOY_FAILURES, "--json"]
    code, out, err = run(capsys, *argv, "--policy", "packaged-fcfs")
    assert code == 0, err
    code, builtin, err = run(capsys, *argv, "--policy", "fcfs")  # a built-in name wins over a registered one
    assert code == 0, err
    assert _metrics(json.loads(out)) == _metrics(json.loads(builtin))
    code, out, _ = run(capsys, "policies", "--kind", "torus")
    assert code == 0 and "packaged-fcfs" in out and "Krevat's FCFS, from an installed package." in out


def test_a_policy_object_made_twice_from_one_file_is_one_class(tmp_path: Path) -> None:
    """The file is loaded once per version: two policies of it share their class."""
    _write(tmp_path, "mine.py", MINE)
    a = get_torus_policy("mine.py:Same", (2, 2, 2), base=tmp_path)
    b = get_torus_policy("mine.py:Same", (2, 2, 2), base=tmp_path)
    assert type(a) is type(b) and isinstance(a, TorusScheduler) and a.name == "mine.py:Same"
