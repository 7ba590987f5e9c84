"""A user's own redistribution decisions (docs/redistribution.md, "Your own redistribution
decisions"): ``--at-end`` and ``--at-failure`` (``run_pack``, ``PackRedistribution``) take
``file.py:Class``, ``module:Class`` or a name an installed package registers in
``coschedule.policies.redistribution``. A class that delegates to or subclasses the built-in
decisions runs as the built-in; one written from scratch gives valid runs; every broken class is
one line with exit 2."""

from __future__ import annotations

import json
import re
import shlex
import textwrap
from pathlib import Path

import pytest
from coschedule_testing import cli_fails as fails
from coschedule_testing import cli_run as run
from coschedule_testing import install_package

from coschedule import plugins
from coschedule.data import instances_dir
from coschedule.errors import PolicyError
from coschedule.heuristics.redistribution import PackRedistribution, run_pack
from coschedule.redistribution import YEAR, Resilience
from coschedule.redistribution.io import load_pack
from coschedule.redistribution.simulation import PackResult
from coschedule.redistribution.validate import validate_pack_run

ROOT = Path(__file__).resolve().parents[2]
PACK = instances_dir() / "redistribution" / "synthetic-n20-p100.json"

MINE = """\
    from coschedule.heuristics.redistribution import (
        PackRedistribution,
        end_local,
        rebuild,
        shortest_applications_first,
    )


    class Local:
        def on_end(self, sim, t, ended):
            end_local(sim, t)


    class Greedy:
        def on_end(self, sim, t, ended):
            rebuild(sim, t)


    class Saf:
        def on_failure(self, sim, t, app):
            shortest_applications_first(sim, t, app)


    class Iterated:
        def on_failure(self, sim, t, app):
            rebuild(sim, t)


    class LocalSub(PackRedistribution):
        def __init__(self):
            super().__init__(at_end="local")


    class GreedySub(PackRedistribution):
        def __init__(self):
            super().__init__(at_end="greedy")


    class SafSub(PackRedistribution):
        def __init__(self):
            super().__init__(at_failure="saf")


    class IteratedSub(PackRedistribution):
        def __init__(self):
            super().__init__(at_failure="iterated")


    class Both:
        '''EndLocal and ShortestApplicationsFirst in one class.'''

        def __init__(self):
            self.calls = []

        def on_end(self, sim, t, ended):
            self.calls.append("end")
            end_local(sim, t)

        def on_failure(self, sim, t, app):
            self.calls.append("failure")
            shortest_applications_first(sim, t, app)
    """


def _write(folder: Path, name: str, text: str) -> Path:
    p = folder / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def _record(r: PackResult) -> tuple:
    """Everything a run did: ends, phases (the timeline), failures and their effects, counts."""
    return (r.makespan, r.ends.tolist(), r.phases, r.failures, r.redistributions, r.changes.tolist(),
            r.initial.tolist())


@pytest.fixture(scope="module")
def pack():
    return load_pack(PACK)


RES = Resilience(node_mtbf=5 * YEAR)


@pytest.mark.parametrize(("at", "builtin", "classes"), [
    ("end", "local", ("Local", "LocalSub")),
    ("end", "greedy", ("Greedy", "GreedySub")),
    ("failure", "saf", ("Saf", "SafSub")),
    ("failure", "iterated", ("Iterated", "IteratedSub")),
])
def test_a_class_that_delegates_or_subclasses_runs_as_the_builtin(tmp_path: Path, monkeypatch, pack, at: str,
                                                                 builtin: str, classes: tuple[str, str]) -> None:
    """From a file (absolute, and relative to ``base``) and from a module on the path: the
    built-in's run, phase by phase, under failures that the decisions answer."""
    _write(tmp_path, "my_redistrib_decisions.py", MINE)  # a module name no other test imports
    monkeypatch.syspath_prepend(str(tmp_path))
    other = {"end": ("at_failure", "saf"), "failure": ("at_end", "local")}[at]
    for seed in (1, 2):
        expected = run_pack(pack, RES, **{f"at_{at}": builtin, other[0]: other[1]}, seed=seed)
        assert expected.redistributions > 0
        if at == "failure":  # the failure decisions acted
            assert any(f.effect == "redistributed" for f in expected.failures)
        for cls in classes:
            for ref, base in ((f"{tmp_path / 'my_redistrib_decisions.py'}:{cls}", "."),
                              (f"my_redistrib_decisions.py:{cls}", tmp_path),
                              (f"my_redistrib_decisions:{cls}", ".")):
                got = run_pack(pack, RES, **{f"at_{at}": ref, other[0]: other[1]}, seed=seed, base=base)
                assert _record(got) == _record(expected), (ref, seed)
                names = expected.policy.split("+")
                names[0 if at == "end" else 1] = ref
                assert got.policy == "+".join(names)


def test_one_class_for_both_is_one_object_made_anew_for_each_run(tmp_path: Path, pack) -> None:
    ref = f"{_write(tmp_path, 'mine.py', MINE)}:Both"
    policy = PackRedistribution(ref, ref)
    assert policy._user_end is policy._user_failure and policy.user == ref
    assert policy.sources["at_end"] == policy.sources["at_failure"]
    fresh = policy.fresh()
    assert fresh._user_end is fresh._user_failure and fresh._user_end is not policy._user_end
    assert fresh._user_end.calls == [] and fresh.name == f"{ref}+{ref}"
    got = run_pack(pack, RES, at_end=ref, at_failure=ref, seed=1)
    assert _record(got) == _record(run_pack(pack, RES, at_end="local", at_failure="saf", seed=1))
    assert PackRedistribution("LOCAL", "Saf").name == "EndLocal+ShortestApplicationsFirst"  # built-ins: any case


# ------------------------------------------------------------------ from scratch


def _own_block(lang: str) -> str:
    text = (ROOT / "docs" / "redistribution.md").read_text(encoding="utf-8")
    start = text.index("## Your own redistribution decisions")
    match = re.search(rf"^```{lang}\n(.*?)^```", text[start:], flags=re.DOTALL | re.MULTILINE)
    assert match, lang
    return match.group(1)


SCRATCH = """\
    class GrowStruck:
        '''At a failure of the longest application, the free pairs go to it while two more lower its
        expected finish.'''

        def on_failure(self, sim, t, app):
            k, alpha = int(sim.k[app]), sim.alpha_now(app, t)
            free = sim.free_count()
            while free >= 2 and sim.can_grow(app, k) and sim.value(app, k + 2, t, alpha) < sim.value(app, k, t, alpha):
                k, free = k + 2, free - 2
            sim.redistribute({app: k})
    """


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_class_from_scratch_gives_valid_runs(tmp_path: Path, pack, seed: int) -> None:
    """The page's Longest (the free pairs to the longest application while it can grow) and a
    GrowStruck at failures: valid runs (the independent validator), counts that only grow, and
    runs of their own."""
    longest = f"{_write(tmp_path, 'longest.py', _own_block('python'))}:Longest"
    grow = f"{_write(tmp_path, 'grow.py', SCRATCH)}:GrowStruck"
    res = Resilience(node_mtbf=2 * YEAR)
    got = run_pack(pack, res, at_end=longest, at_failure=grow, seed=seed)
    validate_pack_run(got, failures=got.trace)
    assert got.redistributions > 0 and got.policy == f"{longest}+{grow}"
    for i in range(pack.n):  # neither class ever takes a processor away
        counts = [len(ph.procs) for ph in got.phases if ph.app == i and ph.kind == "compute"]
        assert counts == sorted(counts), (i, counts)
    only_end = run_pack(pack, res, at_end=longest, seed=seed)
    validate_pack_run(only_end, failures=only_end.trace)
    assert _record(only_end) != _record(run_pack(pack, res, at_end="local", seed=seed))


def test_the_pages_example_prints_what_the_page_shows(tmp_path: Path, monkeypatch, capsys) -> None:
    _write(tmp_path, "longest.py", _own_block("python"))
    (tmp_path / "pack.json").write_bytes(PACK.read_bytes())
    monkeypatch.chdir(tmp_path)
    argv = shlex.split(_own_block("sh").strip())
    assert argv[0] == "coschedule"
    code, out, err = run(capsys, *argv[1:])
    assert code == 0, err
    assert out.replace(str(tmp_path), "/path/to") == _own_block("text")
    code, out, err = run(capsys, *argv[1:], "--json")
    got = json.loads(out)
    assert got["heuristics"] == {"at_end": "longest.py:Longest", "at_failure": "ShortestApplicationsFirst"}
    assert got["at_end"] == "longest.py:Longest" and got["policy"] == "longest.py:Longest+ShortestApplicationsFirst"
    assert list(got["policy_sources"]) == ["at_end"]
    source = got["policy_sources"]["at_end"]
    assert source["origin"] == "file" and source["target"] == str(tmp_path / "longest.py")
    assert len(source["sha256"]) == 64


# ------------------------------------------------------------------ broken classes

BROKEN = """\
    import numpy as np


    def _longest(sim, t):
        ids, counts, _, _, finishes = sim.candidates(t)
        x = int(np.argmax(finishes))
        return int(ids[x]), int(counts[x])


    class OnlyFailure:
        def on_failure(self, sim, t, app):
            pass


    class OnlyEnd:
        def on_end(self, sim, t, ended):
            pass


    class Raises:
        def on_end(self, sim, t, ended):
            return 1 / 0


    class Fails:
        def __init__(self):
            raise ValueError("no config")

        def on_end(self, sim, t, ended):
            pass


    class Odd:
        def on_end(self, sim, t, ended):
            i, k = _longest(sim, t)
            sim.redistribute({i: k + 1})


    class BelowMinimum:
        def on_end(self, sim, t, ended):
            i, k = _longest(sim, t)
            sim.redistribute({i: 0})


    class Ended:
        def on_end(self, sim, t, ended):
            sim.redistribute({ended[0]: int(sim.k[ended[0]]) + 2})


    class TooMany:
        def on_end(self, sim, t, ended):
            i, k = _longest(sim, t)
            sim.redistribute({i: k + sim.free_count() + 2})


    class Twice:
        def on_end(self, sim, t, ended):
            i, k = _longest(sim, t)
            sim.redistribute({i: k + 2})
            sim.redistribute({i: k + 4})


    class NoSuchApplication:
        def on_end(self, sim, t, ended):
            sim.redistribute({sim.pack.n: 2})


    class NotWhole:
        def on_end(self, sim, t, ended):
            i, k = _longest(sim, t)
            sim.redistribute({i: k + 2.0})


    class NotAMapping:
        def on_end(self, sim, t, ended):
            sim.redistribute([(0, 4)])


    class SitsOut:
        '''Grows an application that is in its downtime, recovery or redistribution.'''

        def on_end(self, sim, t, ended):
            out = [i for i in range(sim.pack.n) if not sim.done[i] and i not in set(sim.eligible(t).tolist())]
            if out:
                sim.redistribute({out[0]: int(sim.k[out[0]]) + 2})


    class EndsFirst:
        '''Grows an application that ends before the struck one could be redistributed.'''

        def on_failure(self, sim, t, app):
            running = [i for i in range(sim.pack.n) if not sim.done[i] and sim.t_last[i] <= t]
            out = [i for i in running if i not in set(sim.eligible(t).tolist())]
            if out:
                sim.redistribute({out[0]: int(sim.k[out[0]]) + 2})


    class Mutates:
        def on_end(self, sim, t, ended):
            sim.alpha[:] = 0.5
    """

_END = ["--at-failure", "none", "--node-mtbf", "5y", "--downtime", "1d"]  # the end decision broken
_AT = "at t = 2.86927e+07 s"  # the first end of an application under those failures


def _line(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(textwrap.dedent(text).splitlines(), 1) if needle in line)


@pytest.mark.parametrize(("argv", "message"), [
    (["--at-end", "broken.py:OnlyFailure", *_END],
     ("policy 'broken.py:OnlyFailure': OnlyFailure has no on_end method: given to --at-end, a class has "
      "on_end(sim, t, ended) (coschedule docs redistribution)")),
    (["--at-end", "none", "--at-failure", "broken.py:OnlyEnd"],
     ("policy 'broken.py:OnlyEnd': OnlyEnd has no on_failure method: given to --at-failure, a class has "
      "on_failure(sim, t, app) (coschedule docs redistribution)")),
    (["--at-end", "broken.py:OnlyEnd", "--at-failure", "broken.py:OnlyEnd"],
     ("policy 'broken.py:OnlyEnd': OnlyEnd has no on_failure method: given to both --at-end and --at-failure, a "
      "class has on_end(sim, t, ended) and on_failure(sim, t, app) (coschedule docs redistribution)")),
    (["--at-end", "broken.py:Raises", *_END],
     (f"policy 'broken.py:Raises' raised ZeroDivisionError: division by zero at {{file}}:{_line(BROKEN, '1 / 0')} "
      f"(in on_end) {_AT}")),
    (["--at-end", "broken.py:Fails", *_END],
     (f"policy 'broken.py:Fails' raised ValueError: no config at {{file}}:{_line(BROKEN, 'no config')} (in __init__) "
      "in its constructor")),
    (["--at-end", "broken.py:Odd", *_END],
     (f"policy 'broken.py:Odd' {_AT}: application 3 cannot get 7 processors: an odd count (processors go in buddy "
      "pairs)")),
    (["--at-end", "broken.py:BelowMinimum", *_END],
     f"policy 'broken.py:BelowMinimum' {_AT}: application 3 cannot get 0 processors: its minimum is 2"),
    (["--at-end", "broken.py:Ended", *_END],
     f"policy 'broken.py:Ended' {_AT}: application 1 may not take part: it has ended"),
    (["--at-end", "broken.py:TooMany", *_END],
     f"policy 'broken.py:TooMany' {_AT}: the new counts need 8 more processors but 6 are free"),
    (["--at-end", "broken.py:Twice", *_END],
     (f"policy 'broken.py:Twice' {_AT}: application 3 may not take part: it was redistributed already in this "
      "decision (give every count in one redistribute call)")),
    (["--at-end", "broken.py:NoSuchApplication", *_END],
     f"policy 'broken.py:NoSuchApplication' {_AT}: there is no application 20 (the pack has 0..19)"),
    (["--at-end", "broken.py:NotWhole", *_END],
     f"policy 'broken.py:NotWhole' {_AT}: application 3 cannot get 8.0 processors: not a whole number"),
    (["--at-end", "broken.py:NotAMapping", *_END],
     f"policy 'broken.py:NotAMapping' {_AT}: redistribute takes {{{{application: new count}}}}, not a list"),
    (["--at-end", "broken.py:SitsOut", *_END],
     ("policy 'broken.py:SitsOut' at t = 3.15918e+07 s: application 7 may not take part: it sits out until "
      "t = 3.17114e+07 s (its downtime, recovery or redistribution and checkpoint are not over)")),
    (["--at-end", "none", "--at-failure", "broken.py:EndsFirst", "--node-mtbf", "1y", "--downtime", "3d"],
     ("policy 'broken.py:EndsFirst' at t = 4.20228e+07 s: application 9 may not take part: it ends at "
      "t = 4.23987e+07 s, before the struck application 15 could start a redistribution (t = 4.27593e+07 s)")),
    (["--at-end", "broken.py:Mutates", *_END],
     ("policy 'broken.py:Mutates': its run is invalid: application 0 (T0): compute phase at t=20388110.46 starts "
      "from a remaining fraction 0.5, expected 0.36364749846642297 (rule: work) (the simulation's state is "
      "read-only: act only through sim.redistribute)")),
    (["--at-end", "broken.py:Nope", *_END],
     ("policy 'broken.py:Nope': {file} has no 'Nope' (it defines BelowMinimum, Ended, EndsFirst, Fails, Mutates, "
      "NoSuchApplication, NotAMapping, NotWhole, Odd, OnlyEnd, OnlyFailure, Raises, SitsOut, TooMany, Twice)")),
    (["--at-end", "missing.py:A", "--at-failure", "none"], "policy 'missing.py:A': no such file 'missing.py'"),
    (["--at-end", "none", "--at-failure", "no_such_pkg.mod:A"],
     ("policy 'no_such_pkg.mod:A': cannot import 'no_such_pkg.mod': ModuleNotFoundError: No module named "
      "'no_such_pkg'")),
    (["--at-end", "gredy", "--at-failure", "none"],
     ("unknown end heuristic 'gredy' (--at-end) (did you mean 'greedy'?); valid: greedy, local, none; or your own: "
      "FILE.py:CLASS, MODULE:CLASS (coschedule policies)")),
    (["--at-end", "none", "--at-failure", "saff"],
     ("unknown failure heuristic 'saff' (--at-failure) (did you mean 'saf'?); valid: iterated, none, saf; or your "
      "own: FILE.py:CLASS, MODULE:CLASS (coschedule policies)")),
])
def test_a_broken_class_is_one_line_with_exit_2(tmp_path: Path, monkeypatch, capsys, argv: list[str],
                                                message: str) -> None:
    file = _write(tmp_path, "broken.py", BROKEN)
    monkeypatch.chdir(tmp_path)
    err = fails(capsys, "redistrib", PACK, *argv)
    assert err == f"coschedule redistrib: error: {message.format(file=file, folder=tmp_path)}\n"


def test_python_callers_get_the_same_errors(tmp_path: Path, pack) -> None:
    ref = f"{_write(tmp_path, 'broken.py', BROKEN)}:Odd"
    with pytest.raises(PolicyError, match=r"^policy '.*broken.py:Odd' at t = [\d.e+]+ s: application \d+ cannot get "
                                          r"\d+ processors: an odd count \(processors go in buddy pairs\)$"):
        run_pack(pack, RES, at_end=ref, seed=0)


# ------------------------------------------------------------------ installed packages


def make_redistribution_package(root: Path) -> Path:
    """The redistribution kind's tiny installed package: ``tinyredistrib.PackagedLocal`` with entry
    points in ``coschedule.policies.redistribution``, one of them under a built-in's name."""
    source = ("from coschedule.heuristics.redistribution import PackRedistribution\n\n\n"
              "class PackagedLocal(PackRedistribution):\n    '''EndLocal, from an installed package.'''\n\n"
              "    def __init__(self):\n        super().__init__(at_end='local')\n")
    return install_package(root, "tinyredistrib", source, {"coschedule.policies.redistribution": {
        "packaged-local": "tinyredistrib:PackagedLocal", "local": "tinyredistrib:Nothing"}})


_SAME = ("policy", "at_end", "heuristics", "policy_sources")


def test_an_installed_package_registers_a_decision_by_name(tmp_path: Path, monkeypatch, capsys, pack) -> None:
    monkeypatch.syspath_prepend(str(make_redistribution_package(tmp_path / "site")))
    assert "packaged-local" in plugins.registered("redistribution")
    src = plugins.resolve("packaged-local", "redistribution")
    assert src is not None and src.origin == "entry point" and src.target == "tinyredistrib"
    got = run_pack(pack, RES, at_end="packaged-local", at_failure="saf", seed=1)
    assert _record(got) == _record(run_pack(pack, RES, at_end="local", at_failure="saf", seed=1))
    assert got.policy == "packaged-local+ShortestApplicationsFirst"
    argv = ["redistrib", PACK, "--at-failure", "saf", "--node-mtbf", "5y", "--seed", "1", "--json"]
    code, out, err = run(capsys, *argv, "--at-end", "packaged-local")
    assert code == 0, err
    code, builtin, err = run(capsys, *argv, "--at-end", "local")  # a built-in name wins over a registered one
    assert code == 0, err
    mine, builtin = json.loads(out), json.loads(builtin)
    assert {k: v for k, v in mine.items() if k not in _SAME} == {k: v for k, v in builtin.items() if k not in _SAME}
    assert mine["policy_sources"]["at_end"]["origin"] == "entry point" and "policy_sources" not in builtin
    assert mine["heuristics"]["at_end"] == "packaged-local" and builtin["heuristics"]["at_end"] == "EndLocal"
    code, out, _ = run(capsys, "policies", "--kind", "redistribution")
    assert code == 0 and "packaged-local" in out and "EndLocal, from an installed package." in out


def test_the_text_output_says_where_a_class_comes_from(tmp_path: Path, monkeypatch, capsys) -> None:
    _write(tmp_path, "mine.py", MINE)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "redistrib", PACK, "--at-end", "mine.py:Both", "--at-failure", "mine.py:Both",
                         "--node-mtbf", "5y", "--seed", "1")
    assert code == 0, err
    assert (f"policy mine.py:Both+mine.py:Both (--at-end mine.py:Both, --at-failure mine.py:Both); mine.py:Both is "
            f"your own (file {tmp_path / 'mine.py'})\n") in out
    code, builtin, err = run(capsys, "redistrib", PACK, "--at-end", "Local", "--at-failure", "SAF", "--node-mtbf",
                             "5y", "--seed", "1")
    assert code == 0, err
    assert "policy EndLocal+ShortestApplicationsFirst (--at-end local, --at-failure saf)\n" in builtin
    assert out.splitlines()[2:] == builtin.splitlines()[2:]  # the same run


def test_a_resolved_source_runs_as_its_reference(tmp_path: Path, pack) -> None:
    """What a campaign's cell carries: the source itself (the file's text travels in it)."""
    _write(tmp_path, "mine.py", MINE)
    src = plugins.resolve("mine.py:Saf", "redistribution", base=tmp_path)
    assert src is not None and src.text is not None
    got = run_pack(pack, RES, at_end="local", at_failure=src, seed=2)
    assert _record(got) == _record(run_pack(pack, RES, at_end="local", at_failure="saf", seed=2))
    assert got.policy == "EndLocal+mine.py:Saf"
