"""A user's own batch policy (docs/own-policy.md): named ``file.py:Class``, ``module:Class`` or
by an installed package's entry point; the tutorial's EasySJF against an independent reference;
every broken rule and broken file as a one-line error with exit 2."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest
from coschedule_testing import make_package
from hypothesis import given
from test_batch_references import reference_easy, workloads

from coschedule import plugins
from coschedule.batch import run_batch
from coschedule.cli import main
from coschedule.data import bundled
from coschedule.errors import InvalidInstance, PolicyError
from coschedule.heuristics.batch import get_batch_policy
from coschedule.sim.failures import FailureTrace
from coschedule.sim.validate import validate_run
from coschedule.sim.workload import Workload

ROOT = Path(__file__).resolve().parents[2]
TOY = str(ROOT / "instances" / "batch" / "toy.json")
TOY_FAILURES = str(ROOT / "instances" / "batch" / "toy-failures.csv")
SJF = bundled("easy_sjf", "policy").path
SJF_REF = f"{SJF}:EasySJF"


@given(workloads())
def test_the_tutorial_policy_is_easy_with_shortest_first_backfilling(w: Workload) -> None:
    """EasySJF, loaded from its file, starts every job when the brute-force EASY with candidates
    by wall time does (tests/heuristics/test_batch_references.py), and its run is valid."""
    result = run_batch(w, SJF_REF)
    assert result.first_start.tolist() == reference_easy(w, shortest_first=True)
    validate_run(result)
    assert result.policy == "easy-sjf"  # its own name


def test_the_tutorial_policy_under_failures_passes_the_validator() -> None:
    rng = np.random.default_rng(5)
    n, N = 60, 16
    length = rng.uniform(20, 80, n)
    w = Workload(tuple(f"j{k}" for k in range(n)), np.sort(rng.uniform(0, 500, n)),
                 rng.integers(1, N + 1, n), length + rng.uniform(0, 20, n), length, N)
    trace = FailureTrace(np.sort(rng.uniform(0, 800, 30)), rng.integers(0, N, 30), N)
    result = run_batch(w, SJF_REF, failures=trace, downtime=15)
    validate_run(result, failures=trace)
    assert sum(r.job >= 0 for r in result.failures) > 0  # failures hit jobs, and were restarted


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def test_a_file_and_a_module_that_subclass_easy_run_as_easy(tmp_path: Path, monkeypatch) -> None:
    """The plugin path changes nothing: a subclass of the built-in EASY, from a file and from a
    module on the path, gives the built-in's attempts on the reference loop, under failures."""
    _write(tmp_path, "mine.py", """\
        from coschedule.heuristics.batch import EASY

        class Mine(EASY):
            '''EASY, as a user's class.'''
        """)
    monkeypatch.syspath_prepend(str(tmp_path))
    rng = np.random.default_rng(2)
    n, N = 80, 12
    length = rng.uniform(10, 30, n)
    w = Workload(tuple(f"j{k}" for k in range(n)), np.sort(rng.uniform(0, 900, n)), rng.integers(1, N + 1, n),
                 length + rng.uniform(0, 60, n), length, N)
    trace = FailureTrace(np.sort(rng.uniform(0, 1000, 25)), rng.integers(0, N, 25), N)
    expected = run_batch(w, "easy", failures=trace, downtime=10, backend="reference").attempts
    for ref in (f"{tmp_path / 'mine.py'}:Mine", "mine:Mine"):
        got = run_batch(w, ref, failures=trace, downtime=10).attempts
        assert [(a.job, a.start, a.end, a.nodes) for a in got] == [(a.job, a.start, a.end, a.nodes) for a in expected]


def test_a_relative_file_is_read_from_base_and_its_digest_follows_its_text(tmp_path: Path) -> None:
    p = _write(tmp_path, "p.py", "class A:\n    pass\n")
    src = plugins.resolve("p.py:A", "batch", base=tmp_path)
    assert src is not None and src.origin == "file" and src.target == str(p.resolve())
    p.write_text("class A:\n    x = 1\n", encoding="utf-8")
    again = plugins.resolve("p.py:A", "batch", base=tmp_path)
    assert again is not None and again.digest != src.digest
    assert plugins.load(again).x == 1 and not hasattr(plugins.load(src), "x")  # each version its own module
    assert plugins.resolve("easy", "batch") is None  # a plain name is not a reference
    assert not plugins.is_reference("a:b:c") and not plugins.is_reference("x.py:1A")
    assert plugins.is_reference("x.py:A") and plugins.is_reference("pkg.mod:A")


def test_options_go_to_a_constructor_that_takes_them(tmp_path: Path) -> None:
    _write(tmp_path, "opt.py", """\
        class Takes:
            def __init__(self, knows_downtime=False):
                self.knows_downtime = knows_downtime
            def reset(self, sim): pass
            def job_failed(self, sim, job, node): sim.requeue(job)
            def decide(self, sim, instant): pass

        class Plain(Takes):
            def __init__(self):
                pass
        """)
    assert get_batch_policy("opt.py:Takes", base=tmp_path, knows_downtime=True).knows_downtime is True
    assert get_batch_policy("opt.py:Plain", base=tmp_path, knows_downtime=False).name == "opt.py:Plain"
    with pytest.raises(InvalidInstance, match=r"'opt.py:Plain' does not take the option knows_downtime"):
        get_batch_policy("opt.py:Plain", base=tmp_path, knows_downtime=True)


BROKEN = """\
    class Early:
        def reset(self, sim): pass
        def job_failed(self, sim, job, node): sim.requeue(job)
        def decide(self, sim, instant):
            last = sim.n - 1
            if not sim.is_running(last) and not sim.is_done(last):
                sim.start(last, sim.lowest_free(sim.procs[last]))

    class Busy:
        def reset(self, sim): pass
        def job_failed(self, sim, job, node): sim.requeue(job)
        def decide(self, sim, instant):
            for j in instant.submitted:
                sim.start(j, list(range(sim.procs[j])))

    class Nowhere(Busy):
        def decide(self, sim, instant):
            for j in instant.submitted:
                sim.start(j, [sim.n_nodes + k for k in range(sim.procs[j])])

    class Lazy(Busy):
        def decide(self, sim, instant): pass

    class Forget(Busy):
        def job_failed(self, sim, job, node): pass
        def decide(self, sim, instant):
            for j in instant.submitted:
                if sim.procs[j] <= sim.free_count():
                    sim.start(j, sim.lowest_free(sim.procs[j]))

    class Twice(Forget):
        def job_failed(self, sim, job, node):
            sim.requeue(job)
            sim.requeue(job)

    class Raises(Busy):
        def decide(self, sim, instant):
            return 1 / 0

    class Half:
        def reset(self, sim): pass

    class Fails:
        def __init__(self):
            raise ValueError("no config")
    """


@pytest.mark.parametrize(("cls", "message"), [
    ("Early", r"policy 'broken.py:Early' at t = 0 s: job J4: cannot start before its submission \(at 2 s\)$"),
    ("Busy", r"policy 'broken.py:Busy' at t = 0 s: job J2: nodes \[0\] are down or busy$"),
    ("Nowhere", r"policy 'broken.py:Nowhere' at t = 0 s: job J1: node 5 does not exist \(the nodes are 0..4\)$"),
    ("Lazy", (r"policy 'broken.py:Lazy' at t = \d+ s: job J1: still waits, and nothing is running: the policy never "
             r"started it$")),
    ("Forget", (r"policy 'broken.py:Forget' at t = 1 s: job J3: failed, and the policy neither restarted nor "
               r"requeued it$")),
    ("Twice", r"policy 'broken.py:Twice' at t = 1 s: job J3: is not a failed job holding nodes$"),
    ("Raises", (r"policy 'broken.py:Raises' raised ZeroDivisionError: division by zero at .*broken.py:\d+ "
               r"\(in decide\) at t = 0 s$")),
    ("Half", (r"policy 'broken.py:Half': Half has no job_failed, decide method: a batch policy has reset\(sim\), "
             r"job_failed\(sim, job, node\) and decide\(sim, instant\)$")),
    ("Fails", (r"policy 'broken.py:Fails' raised ValueError: no config at .*broken.py:\d+ \(in __init__\) in its "
              r"constructor$")),
    ("Nope", (r"policy 'broken.py:Nope': .*broken.py has no 'Nope' \(it defines Busy, Early, Fails, Forget, Half, Lazy, "
             r"Nowhere, Raises, Twice\)$")),
])
def test_a_broken_policy_is_one_line_with_exit_2(tmp_path: Path, monkeypatch, capsys, cls: str,
                                                  message: str) -> None:
    _write(tmp_path, "broken.py", BROKEN)
    jobs = [("J1", 0, 1, 8), ("J2", 0, 1, 5), ("J3", 0, 3, 10), ("J4", 2, 1, 3)]
    (tmp_path / "w.json").write_text(json.dumps({"nb_res": 5, "jobs": [
        {"id": i, "subtime": s, "res": r, "walltime": t, "profile": f"delay{t}"} for i, s, r, t in jobs],
        "profiles": {f"delay{t}": {"type": "delay", "delay": t} for *_, t in jobs}}), encoding="utf-8")
    (tmp_path / "f.csv").write_text("time,node\n1.0,2\n", encoding="utf-8")  # J3's node, under Forget
    monkeypatch.chdir(tmp_path)
    code = main(["batch", "w.json", "--failures", "f.csv", "--downtime", "5", "--policy", f"broken.py:{cls}"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith("coschedule batch: error: "), err
    assert re.search(message, err.strip()), err


@pytest.mark.parametrize(("text", "ref", "message"), [
    ("def f(:\n", "bad.py:A", r"policy 'bad.py:A': .*bad.py:1: invalid syntax$"),
    ("import no_such_module_here\n", "bad.py:A", (r"loading .*bad.py failed at line 1: ModuleNotFoundError: "
                                                  r"No module named 'no_such_module_here'$")),
    ("A = 3\n", "bad.py:A", r"policy 'bad.py:A': 'A' is not a class \(it is a int\)$"),
    ("", "missing.py:A", r"policy 'missing.py:A': no such file '.*missing.py'$"),
    ("", "no_such_pkg.mod:A", r"policy 'no_such_pkg.mod:A': cannot import 'no_such_pkg.mod': ModuleNotFoundError"),
    ("", "easyy", r"unknown batch policy 'easyy' \(did you mean 'easy'\?\)"),
])
def test_a_bad_reference_is_one_line_with_exit_2(tmp_path: Path, monkeypatch, capsys, text: str, ref: str,
                                                  message: str) -> None:
    if text:
        _write(tmp_path, "bad.py", text)
    monkeypatch.chdir(tmp_path)
    code = main(["batch", TOY, "--policy", ref])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert re.search(message, err), err


def test_an_installed_package_registers_a_policy_by_name(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.syspath_prepend(str(make_package(tmp_path / "site")))
    assert "easy-sjf-pkg" in plugins.registered("batch")
    src = plugins.resolve("easy-sjf-pkg", "batch")
    assert src is not None and src.origin == "entry point" and src.target == "tinypolicies" and len(src.digest) == 64
    policy = get_batch_policy("easy-sjf-pkg")
    assert type(policy).__name__ == "PackagedEasy" and policy.name == "easy"  # EASY's own name
    code = main(["batch", TOY, "--failures", TOY_FAILURES, "--downtime", "5", "--policy", "easy-sjf-pkg", "--json"])
    out = capsys.readouterr().out
    assert code == 0 and '"easy-sjf-pkg"' in out
    with pytest.raises(PolicyError, match="'easy-sjf-pkg'|'easy'"):  # the engine's rules hold for it too
        from coschedule.sim.engine import Simulation
        from coschedule.sim.workload import read_batsim
        sim = Simulation(read_batsim(TOY), policy)
        sim.policy.reset(sim)
        sim.start(0, [0, 0])


def test_coschedule_policies_lists_builtin_and_installed(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.syspath_prepend(str(make_package(tmp_path / "site")))
    assert main(["policies", "--kind", "batch"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("batch (coschedule batch --policy NAME")
    rows = {line.split()[0]: line for line in out[1:] if line.startswith("  ") and not line.startswith("  your own")}
    assert {"fcfs", "easy", "conservative", "baseline", "sfsj", "h111..h323", "easy-sjf-pkg"} == set(rows)
    assert rows["easy-sjf-pkg"].split(None, 1)[1] == ("EASY, from an installed package. "
                                                       "[tinypolicies:PackagedEasy from tinypolicies]")
    assert main(["policies", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == set(plugins.GROUPS)
    assert [r["name"] for r in data["batch"]["registered"]] == ["easy-sjf-pkg"] and not data["torus"]["registered"]
    assert {r["name"] for r in data["priority"]["builtin"]} == {"LPT", "SPT", "HPA", "LPA", "LA", "SA", "RANDOM", "LJF"}
