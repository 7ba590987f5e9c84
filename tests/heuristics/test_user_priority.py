"""A user's own priority rule for the rigid-job heuristics (docs/own-policy.md): named
``file.py:function``, ``module:function`` or by an installed package's entry point in
``coschedule.policies.priority``; a user's LPT gives the built-in LPT's schedules, a user's
shuffle the built-in RANDOM's; every broken rule is one line with exit 2."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest
from coschedule_testing import cli_fails as fails
from coschedule_testing import cli_run as run
from coschedule_testing import install_package

from coschedule import plugins
from coschedule.errors import PolicyError, UnknownName
from coschedule.heuristics import RIGID_HEURISTICS
from coschedule.heuristics.fast import makespans
from coschedule.heuristics.priorities import priority_keys
from coschedule.io import load_rigid_instance, load_scenario
from coschedule.rigid import FailureScenario, SilentErrors

ROOT = Path(__file__).resolve().parents[2]
RIGID = ROOT / "instances" / "rigid"
SMALL = RIGID / "small-n8-P8.json"
SYN = RIGID / "synthetic-n20-P10000.json"
SYN_F = RIGID / "synthetic-n20-P10000.qbar0.3-seed7.scenario.json"

RULES = """\
    import numpy as np


    def longest_first(instance, rng):
        '''LPT, as a user's rule.'''
        return -instance.times


    def shuffled(instance, rng):
        '''RANDOM, as a user's rule: one draw of the run's generator.'''
        return rng.permutation(instance.n)


    def raises(instance, rng):
        return {}["no such key"]


    def short(instance, rng):
        return instance.times[:-1]


    def nan(instance, rng):
        keys = instance.times.copy()
        keys[2] = np.nan
        return keys


    def words(instance, rng):
        return ["a"] * instance.n


    NOT_A_FUNCTION = 3
    """


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def _executions(schedule) -> list[tuple]:
    return sorted((e.job, e.attempt, e.start, e.end, e.procs, e.nodes, str(e.outcome)) for e in schedule.executions)


@pytest.mark.parametrize("heuristic", sorted(RIGID_HEURISTICS))
def test_a_user_lpt_and_shuffle_are_the_builtin_lpt_and_random(tmp_path: Path, monkeypatch, heuristic: str) -> None:
    """Every heuristic, under a scenario with failures: the user's LPT (from a file and from a
    module) gives the built-in LPT's schedule, the user's shuffle the built-in RANDOM's for one
    seed (its generator is the run's)."""
    path = _write(tmp_path, "rules.py", RULES)
    _write(tmp_path, "my_priority_rules.py", RULES)  # a module name no other test imports
    monkeypatch.syspath_prepend(str(tmp_path))
    inst = load_rigid_instance(SYN)
    scen = load_scenario(SYN_F, inst)
    fn = RIGID_HEURISTICS[heuristic]
    lpt = _executions(fn(inst, scen, priority="LPT"))
    for ref in (f"{path}:longest_first", "my_priority_rules:longest_first"):
        assert _executions(fn(inst, scen, priority=ref)) == lpt
    for seed in (0, 5):
        assert (_executions(fn(inst, scen, priority=f"{path}:shuffled", seed=seed))
                == _executions(fn(inst, scen, priority="RANDOM", seed=seed)))


def test_the_fast_makespans_and_a_resolved_source_take_it(tmp_path: Path) -> None:
    """The compiled batch of scenarios orders its queue by the same keys; a PolicySource resolved
    elsewhere (a campaign's folder as base) is taken as the reference."""
    _write(tmp_path, "rules.py", RULES)
    inst = load_rigid_instance(SYN)
    scenarios = SilentErrors.from_qbar(inst, 0.3).scenarios(inst, size=20, seed=1)
    src = plugins.resolve("rules.py:longest_first", "priority", base=tmp_path)
    assert src is not None and src.origin == "file"
    np.testing.assert_array_equal(priority_keys(inst, src), priority_keys(inst, "LPT"))
    rows = np.array([s.failures for s in scenarios])
    for h in ("r-list-0", "r-shelf-b"):
        np.testing.assert_array_equal(makespans(inst, rows, h, priority=src), makespans(inst, rows, h, priority="LPT"))


def test_coschedule_run_with_a_user_lpt_writes_the_builtin_lpt_schedule(tmp_path: Path, monkeypatch,
                                                                         capsys) -> None:
    _write(tmp_path, "rules.py", RULES)
    monkeypatch.chdir(tmp_path)
    argv = ["run", "r-list-0", SMALL, "--qbar", "0.3", "--seed", "1", "--optimum", "never"]
    code, out, err = run(capsys, *argv, "--priority", "rules.py:longest_first", "-o", "mine.json", "--json")
    assert code == 0, err
    mine = json.loads(out)
    code, out, err = run(capsys, *argv, "--priority", "LPT", "-o", "builtin.json", "--json")
    assert code == 0, err
    builtin = json.loads(out)
    assert mine["priority"] == "rules.py:longest_first" and builtin["priority"] == "LPT"
    assert mine["makespan"] == builtin["makespan"] and sum(mine["failures"]) > 0
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("mine.json", "builtin.json"))
    assert a["executions"] == b["executions"]
    code, out, err = run(capsys, *argv, "--priority", "rules.py:longest_first")
    assert code == 0 and "r-list-0 (rules.py:longest_first): makespan" in out, err


@pytest.mark.parametrize(("ref", "message"), [
    ("rules.py:raises", (r"policy 'rules.py:raises' raised KeyError: 'no such key' at .*rules.py:\d+ \(in raises\) "
                         r"in its keys of small-n8-P8$")),
    ("rules.py:short", r"policy 'rules.py:short': returned keys of shape \(7,\), expected one per job: \(8,\)$"),
    ("rules.py:nan", r"policy 'rules.py:nan': the key of job 2 \(0-based\) is nan, not a finite number$"),
    ("rules.py:words", (r"policy 'rules.py:words': returned list, not numbers: a priority rule returns one key per "
                        r"job \(8\)$")),
    ("rules.py:NOT_A_FUNCTION", (r"policy 'rules.py:NOT_A_FUNCTION': 'NOT_A_FUNCTION' is not a function \(it is a "
                                 r"int\); a priority rule is rule\(instance, rng\) -> one key per job$")),
    ("rules.py:nope", r"policy 'rules.py:nope': .*rules.py has no 'nope'$"),
    ("missing.py:lpt", r"policy 'missing.py:lpt': no such file '.*missing.py'$"),
    ("no_such_pkg.mod:lpt", r"policy 'no_such_pkg.mod:lpt': cannot import 'no_such_pkg.mod': ModuleNotFoundError"),
    ("LTP", (r"unknown priority 'LTP' \(did you mean 'LPT'\?\); valid: HPA, LA, LJF, LPA, LPT, RANDOM, SA, SPT; "
             r"or your own: FILE.py:FUNCTION, MODULE:FUNCTION \(coschedule policies\)$")),
])
def test_a_broken_rule_is_one_line_with_exit_2(tmp_path: Path, monkeypatch, capsys, ref: str, message: str) -> None:
    _write(tmp_path, "rules.py", RULES)
    monkeypatch.chdir(tmp_path)
    err = fails(capsys, "run", "r-list-0", SMALL, "--optimum", "never", "--priority", ref)
    assert err.startswith("coschedule run: error: "), err
    assert re.search(message, err.strip()), err


def test_the_library_raises_the_same_errors(tmp_path: Path) -> None:
    path = _write(tmp_path, "rules.py", RULES)
    inst = load_rigid_instance(SMALL)
    none = FailureScenario.none(inst.n)
    with pytest.raises(PolicyError, match=r"the key of job 2 \(0-based\) is nan"):
        RIGID_HEURISTICS["r-shelf-b"](inst, none, priority=f"{path}:nan")
    with pytest.raises(UnknownName, match=r"unknown priority 'lpt.py'"):  # no colon: a name, not a file
        priority_keys(inst, "lpt.py")
    np.testing.assert_array_equal(priority_keys(inst, "lpt"), -inst.times)  # built-in names: any case


def make_priority_package(root: Path) -> Path:
    """The priority kind's tiny installed package: a module of rules with entry points in
    ``coschedule.policies.priority``; its ``lpt`` is shadowed by the built-in LPT."""
    source = ("def longest(instance, rng):\n    '''LPT, from an installed package.'''\n    return -instance.times\n\n\n"
              "def broken(instance, rng):\n    raise RuntimeError('never called')\n")
    return install_package(root, "tinyrules", source, {"coschedule.policies.priority": {
        "longest": "tinyrules:longest", "lpt": "tinyrules:broken"}})


def test_an_installed_package_registers_a_rule_by_name(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.syspath_prepend(str(make_priority_package(tmp_path / "site")))
    assert {"longest", "lpt"} <= set(plugins.registered("priority"))
    src = plugins.resolve("longest", "priority")
    assert src is not None and src.origin == "entry point" and src.target == "tinyrules"
    argv = ["run", "r-shelffill-b", SYN, "--scenario", SYN_F, "--optimum", "never", "--json"]
    code, out, err = run(capsys, *argv, "--priority", "longest")
    assert code == 0, err
    code, builtin, err = run(capsys, *argv, "--priority", "LPT")  # the built-in wins over the registered lpt
    assert code == 0, err
    assert json.loads(out)["makespan"] == json.loads(builtin)["makespan"]
    code, out, _ = run(capsys, "policies", "--kind", "priority")
    assert code == 0 and "longest" in out and "LPT, from an installed package." in out
