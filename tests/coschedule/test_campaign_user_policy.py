"""A batch campaign with a user's policy (docs/own-policy.md): the same numbers on 1 worker, 2
workers and Dask (the policy's file travels in the cells), its SHA-256 recorded beside the
results, a resume with a changed file refused in one line, the report's columns; a module that a
Dask worker cannot import is said before the first cell."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from coschedule_testing import make_package

from coschedule.campaign import ResultStore, load_spec, run_campaign
from coschedule.campaign.run import _check_workers
from coschedule.cli import main
from coschedule.data import bundled
from coschedule.errors import CampaignError
from coschedule.plugins import resolve

SPEC = """\
name = "mine"
simulator = "batch"
policies = ["easy", "policies/easy_sjf.py:EasySJF"]
node_mtbf = ["none", 2e6]
downtime = [600]
seeds = 2
seed = 3

[[source]]
kind = "swf"
path = "KTH-SP2-1996-2.1-cln.swf.gz"
first_day = 40
days = 3
"""
REF = "policies/easy_sjf.py:EasySJF"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def campaign(tmp_path: Path) -> Path:
    """The spec in a folder of its own, the policy in its policies/ subfolder (read relative to the spec)."""
    (tmp_path / "policies").mkdir()
    shutil.copy(bundled("easy_sjf", "policy").path, tmp_path / "policies" / "easy_sjf.py")
    spec = tmp_path / "mine.toml"
    spec.write_text(SPEC, encoding="utf-8")
    return spec


def stored_sources(db: Path) -> dict[str, str]:
    """The users' policies the database's spec records: reference -> SHA-256 of its source."""
    with sqlite3.connect(db) as conn:
        return json.loads(dict(conn.execute("SELECT key, value FROM meta").fetchall())["spec"])["policy_sources"]


def on_one_and_two_workers(capsys, spec: Path, where: Path) -> tuple[Path, Path]:
    """``spec`` simulated into ``where/one.sqlite`` on 1 worker and ``where/two.sqlite`` on 2."""
    one, two = where / "one.sqlite", where / "two.sqlite"
    for db, workers in ((one, "1"), (two, "2")):
        code, _, err = run(capsys, "simulate", spec, "--db", db, "--workers", workers)
        assert code == 0, err
    return one, two


def numbers(db: Path) -> dict[str, tuple]:
    with ResultStore.open(db) as store:
        return {r["id"]: (r["policy"], r["mean_flow"], r["max_flow"], r["failures"]) for r in store.rows()}


def test_one_two_workers_and_dask_agree_and_the_digest_is_kept(campaign: Path, tmp_path: Path, capsys,
                                                                monkeypatch) -> None:
    monkeypatch.chdir(tmp_path.parent)  # the spec's folder, not the current one, locates the policy
    one, two = on_one_and_two_workers(capsys, campaign, tmp_path)
    got = numbers(one)
    assert len(got) == 6 and {p for p, *_ in got.values()} == {"easy", REF}
    assert got == numbers(two)
    src = resolve(REF, "batch", base=tmp_path)
    assert src is not None
    assert stored_sources(one) == {REF: src.digest}
    sjf = {k: v for k, v in got.items() if v[0] == REF}
    easy = {k.replace("|easy|", f"|{REF}|"): v for k, v in got.items() if v[0] == "easy"}
    assert sjf.keys() == easy.keys() and any(sjf[k][1] != easy[k][1] for k in sjf)  # another policy, other flows
    code, out, _ = run(capsys, "report", one)
    header = next(line for line in out.splitlines() if line.lstrip().startswith("node_mtbf"))
    assert header.split()[-2:] == ["easy", REF]
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        dask = tmp_path / "dask.sqlite"
        code, _, err = run(capsys, "simulate", campaign, "--db", dask, "--dask", cluster.scheduler_address)
    assert code == 0, err
    assert numbers(dask) == got


def test_a_resume_with_a_changed_policy_is_refused(campaign: Path, tmp_path: Path, capsys) -> None:
    db = tmp_path / "r.sqlite"
    run_campaign(load_spec(campaign), str(db), workers=1, max_cells=2, progress=False)
    policy = tmp_path / "policies" / "easy_sjf.py"
    policy.write_text(policy.read_text(encoding="utf-8") + "\n# tuned\n", encoding="utf-8")
    code, _, err = run(capsys, "simulate", campaign, "--db", db, "--workers", "1")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert (f"r.sqlite: policy '{REF}' changed since these results were computed (its source's SHA-256 was "
            in err) and "resuming would mix two policies; restore the file, or use another --db" in err
    with ResultStore.open(db) as store:
        assert store.count() == 2  # nothing added


def test_a_policy_no_dask_worker_can_import_is_said_first(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "only_here.py").write_text("class P:\n    pass\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    src = resolve("only_here:P", "batch")
    assert src is not None and src.origin == "module"

    class Client:  # what client.run answers when a worker lacks the module
        def run(self, fn, *args):
            return {"tcp://10.0.0.2:4000": None, "tcp://10.0.0.3:4000": "no module named 'only_here'"}

    with pytest.raises(CampaignError, match=r"^Dask worker tcp://10.0.0.3:4000 cannot load the policy 'only_here:P': "
                                            r"no module named 'only_here' \(install it there, or name the policy by "
                                            r"its file: FILE.py:CLASS\)$"):
        _check_workers(Client(), [src])
    file_src = resolve(f"{tmp_path / 'only_here.py'}:P", "batch")
    _check_workers(Client(), [file_src])  # a file travels in the cells: nothing to check


def test_an_unknown_policy_in_a_spec_is_one_line(campaign: Path, tmp_path: Path, capsys) -> None:
    campaign.write_text(SPEC.replace("policies/easy_sjf.py", "policies/nope.py"), encoding="utf-8")
    code, _, err = run(capsys, "simulate", campaign, "--db", tmp_path / "x.sqlite", "--dry-run")
    assert code == 2 and "policy 'policies/nope.py:EasySJF': no such file" in err and len(err.strip().splitlines()) == 1


def test_an_installed_package_policy_on_one_two_workers_and_dask(tmp_path: Path, capsys, monkeypatch) -> None:
    """A policy registered by an installed package (a subclass of EASY under the entry point
    easy-sjf-pkg) through simulate on 1 and 2 local workers and on Dask: the numbers of the
    built-in EASY, each time; report shows it under its registered name."""
    site = make_package(tmp_path / "site")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", str(site))  # the workers' interpreters find it as an installed package
    grid = ["--workload", "KTH-SP2-1996-2.1-cln.swf.gz", "--days", "2", "--policy", "easy,easy-sjf-pkg",
            "--node-mtbf", "none,2e6", "--downtime", "600", "--seeds", "1", "--seed", "4"]

    def pairs(db: Path) -> dict[str, tuple]:
        rows = numbers(db)
        return {k.replace("|easy-sjf-pkg|", "|easy|"): v[1:] for k, v in rows.items() if v[0] == "easy-sjf-pkg"}

    one = tmp_path / "one.sqlite"
    assert run(capsys, "simulate", *grid, "--db", one, "--workers", "1")[0] == 0
    easy = {k: v[1:] for k, v in numbers(one).items() if v[0] == "easy"}
    assert len(easy) == 2 and pairs(one) == easy
    two = tmp_path / "two.sqlite"
    assert run(capsys, "simulate", *grid, "--db", two, "--workers", "2")[0] == 0
    assert pairs(two) == easy
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        dask = tmp_path / "dask.sqlite"
        code, _, err = run(capsys, "simulate", *grid, "--db", dask, "--dask", cluster.scheduler_address)
    assert code == 0, err
    assert pairs(dask) == easy
    code, out, _ = run(capsys, "report", one)
    header = next(line for line in out.splitlines() if line.lstrip().startswith("node_mtbf"))
    assert header.split()[-2:] == ["easy", "easy-sjf-pkg"]


TORUS_SPEC = """\
name = "mine-torus"
simulator = "torus"
seed = 5
seeds = 2
shape = "4x4x8"
policies = ["fcfs", "same.py:Same", "same.py:FirstFit"]
failure_count = [0, 200]

[[source]]
kind = "swf"
name = "NASA"
path = "NASA-iPSC-1993-3.1-cln.swf.gz"
days = 3
"""

TORUS_POLICY = """\
from coschedule.heuristics.torus import TorusScheduler


class Same(TorusScheduler):
    '''Krevat's FCFS, as a user's class: it changes nothing.'''


class FirstFit(TorusScheduler):
    '''The first free partition of the job's size, not the least MFP loss.'''

    def choose(self, sim, job, partitions):
        return 0
"""


def test_a_torus_campaign_with_users_policies_on_one_and_two_workers(tmp_path: Path, capsys) -> None:
    """A torus spec's policies take users' classes too: one that changes nothing gives FCFS's
    numbers cell for cell, one that places otherwise gives others; 1 and 2 workers agree; the
    digest is kept; report lists them."""
    (tmp_path / "same.py").write_text(TORUS_POLICY, encoding="utf-8")
    spec = tmp_path / "t.toml"
    spec.write_text(TORUS_SPEC, encoding="utf-8")
    one, two = on_one_and_two_workers(capsys, spec, tmp_path)

    def rows(db: Path) -> dict[str, dict]:
        with ResultStore.open(db) as store:
            return {r["id"]: r for r in store.rows()}

    got = rows(one)
    assert len(got) == 9 and {k: (r["mean_bounded_slowdown"], r["utilized"]) for k, r in got.items()} == \
        {k: (r["mean_bounded_slowdown"], r["utilized"]) for k, r in rows(two).items()}
    keys = ("mean_wait", "mean_bounded_slowdown", "utilized", "lost", "job_failures")

    def by(policy: str) -> dict[str, tuple]:
        return {k.replace(f"|{policy}", "|P"): tuple(r[x] for x in keys) for k, r in got.items() if r["policy"] == policy}

    assert by("same.py:Same") == by("fcfs")
    assert by("same.py:FirstFit").keys() == by("fcfs").keys() and by("same.py:FirstFit") != by("fcfs")
    assert set(stored_sources(one)) == {"same.py:Same", "same.py:FirstFit"}
    code, out, _ = run(capsys, "report", one)
    assert code == 0 and "same.py:FirstFit" in out and "same.py:Same" in out
    picture = tmp_path / "t.png"  # a user's policy gets a colour of its own (it had none: KeyError)
    assert run(capsys, "report", one, "--plot", picture, "--figure", "slowdown-failures")[0] == 0
    assert picture.read_bytes()[:4] == b"\x89PNG"


def test_a_rigid_campaign_with_a_users_priority_rule(tmp_path: Path, capsys) -> None:
    """A rigid spec's priorities take a user's rule (FILE.py:FUNCTION, from the spec's folder):
    an LPT of one's own gives the built-in LPT's ratios cell for cell, on 1 and 2 workers;
    report filters it by its name."""
    (tmp_path / "rules.py").write_text("def longest_first(instance, rng):\n    return -instance.times\n",
                                       encoding="utf-8")
    spec = tmp_path / "r.toml"
    spec.write_text('name = "rules"\nheuristics = ["r-list-0", "r-shelf-nb"]\npriorities = ["LPT", '
                    '"rules.py:longest_first"]\nqbar = [0.0, 0.3]\nscenarios = 40\nseed = 2\n\n'
                    '[[source]]\nkind = "synthetic"\nsets = 2\nn = 12\nprocs = [1, 32]\ntimes = [10, 100]\n'
                    'P = 64\n', encoding="utf-8")
    one, two = on_one_and_two_workers(capsys, spec, tmp_path)
    with ResultStore.open(one) as store:
        rows = {r["id"]: r for r in store.rows()}
    with ResultStore.open(two) as store:
        assert {r["id"]: r["mean_ratio"] for r in store.rows()} == {k: r["mean_ratio"] for k, r in rows.items()}
    mine = {k.replace("|rules.py:longest_first", "|LPT"): r["mean_ratio"] for k, r in rows.items()
            if r["priority"] == "rules.py:longest_first"}
    lpt = {k: r["mean_ratio"] for k, r in rows.items() if r["priority"] == "LPT"}
    assert len(mine) == 8 and mine == lpt
    code, out, _ = run(capsys, "report", one, "--priority", "rules.py:longest_first", "--json")
    assert code == 0 and {g["priority"] for g in json.loads(out)["groups"]} == {"rules.py:longest_first"}


REDISTRIB_SPEC = """\
name = "mine-pack"
simulator = "redistrib"
variants = ["faulty", "local+saf", "local+mine.py:SameSAF", "mine.py:Longest+saf"]
n = [10]
p = [100]
mtbf_years = [2]
runs = 2
"""

REDISTRIB_POLICY = """\
from coschedule.heuristics.redistribution import shortest_applications_first


class SameSAF:
    '''ShortestApplicationsFirst, as a user's class: it changes nothing.'''

    def on_failure(self, sim, t, app):
        shortest_applications_first(sim, t, app)


class Longest:
    '''At an end, the free processors go two by two to the longest application while it can grow.'''

    def on_end(self, sim, t, ended):
        ids, counts, _, _, finishes = sim.candidates(t)
        if len(ids) == 0:
            return
        i = int(ids[finishes.argmax()])
        k = int(sim.k[i])
        free = sim.free_count()
        while free >= 2 and sim.can_grow(i, k):
            k, free = k + 2, free - 2
        sim.redistribute({i: k})
"""


def test_a_redistrib_campaign_with_users_decisions(tmp_path: Path, capsys) -> None:
    """A redistrib spec's variants take END+FAILURE with a user's class on a side: one that calls
    the built-in SAF gives local+saf's numbers run for run, one of one's own runs (validated);
    1 and 2 workers agree; report lists them."""
    (tmp_path / "mine.py").write_text(REDISTRIB_POLICY, encoding="utf-8")
    spec = tmp_path / "p.toml"
    spec.write_text(REDISTRIB_SPEC, encoding="utf-8")
    one, two = on_one_and_two_workers(capsys, spec, tmp_path)

    def ratios(db: Path, variant: str) -> dict[int, float]:
        with ResultStore.open(db) as store:
            return {r["run"]: r["ratio"] for r in store.rows() if r["variant"] == variant}

    assert ratios(one, "local+mine.py:SameSAF") == ratios(one, "local+saf") and len(ratios(one, "local+saf")) == 2
    assert ratios(one, "mine.py:Longest+saf") == ratios(two, "mine.py:Longest+saf")
    assert len(ratios(one, "mine.py:Longest+saf")) == 2
    assert set(stored_sources(one)) == {"mine.py:SameSAF", "mine.py:Longest"}
    code, out, _ = run(capsys, "report", one)
    assert code == 0 and "mine.py:Longest+saf" in out
    spec.write_text(REDISTRIB_SPEC.replace("mine.py:Longest+saf", "mine.py:Nope+saf"), encoding="utf-8")
    code, _, err = run(capsys, "simulate", spec, "--db", tmp_path / "x.sqlite", "--dry-run")
    assert code == 2 and "mine.py has no 'Nope' (it defines Longest, SameSAF)" in err
