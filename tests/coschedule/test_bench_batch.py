"""``coschedule bench batch``: our side of the tiny backfilling case, the file AccaSim reads, the
measurements of a case in a fresh process, and "not measured" wherever AccaSim did not run.

AccaSim itself is not run here (an optional extra; the benchmark runs it): no test is skipped
for want of it."""

from __future__ import annotations

import importlib.metadata
import json

import numpy as np
import pytest

from coschedule import bench_batch as bb
from coschedule.batch import run_batch
from coschedule.cli import main
from coschedule.sim import Workload


@pytest.mark.parametrize("policy", ["easy", "conservative", "fcfs"])
def test_tiny_case_textbook_easy(policy):
    """B (the whole machine) gets the nodes when A ends at 100; C, 1000 s long, would still run
    then, so it is not backfilled at 2 (AccaSim 1.1.3 backfills it and starts B at 1002)."""
    w = bb.tiny_backfill_workload()
    r = run_batch(w, policy)
    assert dict(zip(w.ids, r.first_start.tolist())) == {"A": 0.0, "B": 100.0, "C": 200.0}


def test_tiny_case_short_c_is_backfilled():
    """The same case with C ending by B's reservation (2 + 98 = 100): EASY backfills it at 2."""
    w = bb.tiny_backfill_workload()
    short = Workload(w.ids, w.submit, w.nodes, np.array([100.0, 100.0, 98.0]), np.array([100.0, 100.0, 98.0]),
                     w.n_nodes)
    r = run_batch(short, "easy")
    assert r.first_start.tolist() == [0.0, 100.0, 2.0]


def test_accasim_swf(tmp_path):
    w = Workload(("7", "x"), [0.0, 5.0], [3, 1], [120.0, 60.0], [100.0, 60.0], 4)
    path = tmp_path / "w.swf"
    bb.write_accasim_swf(w, path)
    text = path.read_text()
    assert text.endswith("\n") and not text.startswith(";")
    rows = [line.split() for line in text.splitlines()]
    assert [len(r) for r in rows] == [18, 18]
    assert rows[0][:11] == ["1", "0", "-1", "100", "3", "-1", "-1", "3", "120", "-1", "1"]
    assert rows[1][:9] == ["2", "5", "-1", "60", "1", "-1", "-1", "1", "60"]
    with pytest.raises(ValueError, match="job a: submit 0.5 is not a whole number of seconds"):
        bb.write_accasim_swf(Workload(("a",), [0.5], [1], [2.0], [1.0], 2), path)


def test_swf_round_trip(tmp_path):
    """write_swf's header gives the platform back; the ids become the job numbers."""
    from coschedule.sim.workload import workload_from_swf, write_swf
    from coschedule.swf import read_swf

    w = Workload(("7", "x", "y"), [0.0, 5.0, 5.0], [3, 1, 4], [120.0, 60.0, 10.0], [100.0, 60.0, 10.0], 16)
    write_swf(w, tmp_path / "w.swf")
    back = workload_from_swf(read_swf(tmp_path / "w.swf"))
    assert back.n_nodes == 16 and back.ids == ("1", "2", "3")
    for name in ("submit", "nodes", "walltime", "length"):
        assert np.array_equal(getattr(back, name), getattr(w, name)), name


def test_accasim_status(monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    assert "not installed" in bb.accasim_status()
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "1.0")
    assert "1.0" in bb.accasim_status()
    monkeypatch.setattr(importlib.metadata, "version", lambda name: bb.ACCASIM_VERSION)
    assert bb.accasim_status() is None


def test_ratios_only_from_measurements():
    run = bb.BatchRun("kth-easy", "KTH", 10, 100, "easy", "none", 1, 0.5, 1.0, 1.5, 100.0, 110.0, 10, 0)
    measured = bb.AccasimRun("measured", sim_cpu_s=20.0, children_cpu_s=5.0, whole_cpu_s=30.0, whole_wall_s=40.0)
    ratios = bb.BatchBench((run,), measured, 2).ratios()
    assert ratios["sim_vs_easy"] == pytest.approx(50.0) and ratios["whole_vs_easy"] == pytest.approx(30.0)
    assert ratios["sim_vs_conservative"] is None  # that case was not run
    assert all(v is None for v in bb.BatchBench((run,), bb.AccasimRun("not measured: x"), 2).ratios().values())


@pytest.fixture
def tiny_cases(monkeypatch):
    monkeypatch.setitem(bb.BATCH_CASES, "tiny-easy", {"trace": "tiny", "policy": "easy"})


def test_bench_measures_a_case_in_a_fresh_process(tiny_cases):
    bench = bb.bench_batch(["tiny-easy"], accasim=False, repeat=2)
    (run,) = bench.runs
    assert (run.case, run.jobs, run.n_nodes, run.policy, run.repeat) == ("tiny-easy", 3, 4, "easy", 2)
    assert run.attempts == 3 and run.failure_count == 0 and run.failures == "none"
    assert 0 < run.sim_cpu_s < run.whole_cpu_s and run.whole_wall_s > 0
    assert 0 < run.rss_before_mb <= run.peak_rss_mb
    assert bench.accasim.status.startswith("not measured")
    assert bench.accasim.tiny_ours == {"A": 0.0, "B": 100.0, "C": 200.0} and bench.accasim.tiny_accasim is None
    with pytest.raises(ValueError, match="kth-easy"):
        bb.bench_batch(["kth-eas"])


def test_cli_prints_not_measured(tiny_cases, capsys):
    assert main(["bench", "batch", "--cases", "tiny-easy", "--no-accasim"]) == 0
    out = capsys.readouterr().out
    assert "tiny-easy" in out and "3" in out
    assert "its CPU, and its CPU against ours: not measured" in out
    assert "start times vs our EASY: not measured" in out
    assert "our EASY starts A 0, B 100, C 200; AccaSim not measured" in out
    assert main(["bench", "batch", "--cases", "tiny-easy", "--no-accasim", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["batch"]
    assert data["runs"][0]["case"] == "tiny-easy" and data["accasim"]["cpu_s"] is None
    assert data["ratios"] == {"sim_vs_easy": None, "warm_vs_easy": None, "whole_vs_easy": None,
                              "sim_vs_conservative": None, "warm_vs_conservative": None, "whole_vs_conservative": None}
    assert data["runs"][0]["sim_warm_cpu_s"] >= 0  # the second simulation in the child


def test_mira_ratios_only_from_measurements():
    """Node stealing against Baseline's kernel on the same month: only when case mira ran."""
    base = bb.BatchRun("mira", "mira", 10, 100, "conservative", "f", 1, 2.0, 3.0, 3.0, 100.0, 110.0, 10, 5, 1.0)
    steal = bb.BatchRun("mira-sfsj", "mira", 10, 100, "sfsj", "f", 1, 3.0, 4.0, 4.0, 100.0, 110.0, 10, 5, 1.5, steals=2)
    none = bb.AccasimRun("not measured: x")
    assert bb.BatchBench((base, steal), none, 2).mira_ratios() == {"mira-sfsj": {"sim": 1.5, "warm": 1.5}}
    assert bb.BatchBench((steal,), none, 2).mira_ratios() == {"mira-sfsj": {"sim": None, "warm": None}}
    assert bb.BatchBench((base,), none, 2).mira_ratios() == {}
    assert bb.BATCH_CASES[f"mira-{bb.MIRA_COSTLIEST}"]["policy"] == bb.MIRA_COSTLIEST
    for case in ("mira-sfsj", f"mira-{bb.MIRA_COSTLIEST}", "mira-sfsj-reference", "mira-reference", "mira-nodes"):
        assert bb.BATCH_CASES[case]["failures"] == bb.BATCH_CASES["mira"]["failures"]  # the same trace


def test_reservations_on_nodes_against_counts_in_one_process(monkeypatch, capsys):
    """Case mira-nodes: the child times the node reading and then the count reading (warm, one
    process); the ratio is theirs, printed against the 1.5x target."""
    assert bb.BATCH_CASES["mira-nodes"]["reservations"] == "nodes"
    run = bb.BatchRun("mira-nodes", "mira", 10, 100, "conservative", "f", 1, 2.0, 3.0, 3.0, 100.0, 110.0, 10, 5,
                      1.2, count_warm_cpu_s=0.8)
    assert run.nodes_over_count == pytest.approx(1.5) and run.to_dict()["nodes_over_count"] == pytest.approx(1.5)
    assert bb.BatchRun("mira", "mira", 10, 100, "conservative", "f", 1, 2.0, 3.0, 3.0, 100.0, 110.0, 10, 5,
                       1.2).nodes_over_count is None
    monkeypatch.setitem(bb.BATCH_CASES, "mira-nodes", {"trace": "tiny", "policy": "conservative",
                                                       "reservations": "nodes"})
    assert main(["bench", "batch", "--cases", "mira-nodes", "--no-accasim", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["batch"]["runs"][0]
    assert data["count_warm_cpu_s"] > 0 and data["nodes_over_count"] == pytest.approx(
        data["sim_warm_cpu_s"] / data["count_warm_cpu_s"])
    assert main(["bench", "batch", "--cases", "mira-nodes", "--no-accasim"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "reservations on nodes against counts" in x)
    assert "target: within 1.5x" in line and "not measured" not in line


def test_cli_prints_the_ratios_to_baseline(monkeypatch, capsys):
    monkeypatch.setitem(bb.BATCH_CASES, "mira", {"trace": "tiny", "policy": "conservative"})
    monkeypatch.setitem(bb.BATCH_CASES, "mira-sfsj", {"trace": "tiny", "policy": "sfsj"})
    assert main(["bench", "batch", "--cases", "mira,mira-sfsj", "--no-accasim"]) == 0
    out = capsys.readouterr().out
    assert "against Baseline's kernel (case mira) in this run" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("mira-sfsj") and "sim CPU" in x)
    assert "sfsj" in line and "kernel" in line and "x" in line and "not measured" not in line
    assert main(["bench", "batch", "--cases", "mira-sfsj", "--no-accasim"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("mira-sfsj") and "sim CPU" in x)
    assert "= not measured" in line  # no Baseline measured in that run: no ratio


def test_the_whole_command_beside_its_simulation(monkeypatch, capsys):
    """A whole-command case runs `coschedule batch ... -o jobs.csv` in a fresh process and times
    its simulation inside it: the whole costs more than the simulation, the file is written, and
    the target is judged on the measured numbers."""
    from dataclasses import replace

    from coschedule.bench import batch_command as bc

    monkeypatch.setitem(bc.COMMAND_CASES, "toy-command", (
        "batch/toy.json", "conservative", ["--failures", "batch/toy-failures.csv", "--downtime", "5"], ("cpu", 1e9)))
    r = bc.command_case("toy-command")
    assert r.command == ("coschedule batch batch/toy.json --policy conservative --failures batch/toy-failures.csv "
                         "--downtime 5 -o jobs.csv")
    assert 0 < r.sim_cpu_s < r.whole_cpu_s and r.whole_over_sim > 1 and r.met and r.kind == "command"
    assert not replace(r, target=("ratio", 1.0)).met and not replace(r, target=("cpu", 0.0)).met
    assert replace(r, target=None).met is None
    assert r.to_dict()["whole_over_sim"] == pytest.approx(r.whole_cpu_s / r.sim_cpu_s)
    assert main(["bench", "batch", "--cases", "toy-command", "--no-accasim"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.strip().startswith("toy-command"))
    assert "whole/simulation" in line and line.endswith(": met")
    assert main(["bench", "batch", "--cases", "toy-commnd", "--no-accasim"]) == 2
    assert "toy-command" in capsys.readouterr().err  # the closest names
    for name, (workload, policy, _, (kind, value)) in bc.COMMAND_CASES.items():
        if name.startswith("mira"):
            assert workload == "mira" and kind == "ratio" and value == 1.5


def test_scale_cases_report_memory_per_job_and_per_failure(monkeypatch, capsys):
    """`bench batch --cases scale` at toy sizes: the three whole commands, their counts, the 4 GB
    target, and the bytes per job and per failure from their peaks."""
    import json

    from coschedule.bench import batch_command as bc
    from coschedule.cli import main

    for name, jobs in (("scale-300k-command", 300), ("scale-1m-command", 1000), ("scale-1m-failures-command", 1000)):
        monkeypatch.setitem(bc.SCALE_CASES, name, (jobs, bc.SCALE_CASES[name][1]))
    assert main(["bench", "batch", "--cases", "scale", "--no-accasim"]) == 0
    out = capsys.readouterr().out
    for name in bc.SCALE_CASES:
        line = next(x for x in out.splitlines() if x.strip().startswith(name))
        assert "peak <= 4 GB: met" in line
    assert "$ coschedule batch scale-1000.swf --policy easy --node-mtbf 20000 --checkpoint-cost 60 --downtime 60" in out
    lines = out.splitlines()
    counts = lines[next(k for k, x in enumerate(lines) if x.strip().startswith("scale-1m-failures-command")) + 1]
    attempts, failures = (int(part.split()[0].replace(",", "")) for part in counts.split(", "))
    assert counts.strip().endswith(" failures") and attempts > 1000
    assert failures > 300  # about as many failures as jobs
    assert "scale: peak memory per job " in out and " bytes, per failure " in out
    assert main(["bench", "batch", "--cases", "scale-1m-command", "--no-accasim", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["batch"]["commands"]
    assert row["target"] == ["memory", bc.SCALE_TARGET_MB] and row["met"] is True
    assert row["counts"]["attempts"] >= 1000


def test_scale_bytes_needs_both_cases():
    from coschedule.bench.batch_command import scale_bytes
    from coschedule.bench.common import CommandRow

    def row(case, mb, failures=None):
        return CommandRow(case, "x", 1, 1.0, 1.0, 1.0, mb, ("memory", 4096.0),
                          counts=None if failures is None else {"failures": failures, "attempts": 1})

    per_job, per_failure = scale_bytes([row("scale-300k-command", 100.0), row("scale-1m-command", 170.0),
                                        row("scale-1m-failures-command", 270.0, 2**20)])
    assert per_job == pytest.approx(70 * 2**20 / 700_000) and per_failure == pytest.approx(100.0)
    assert scale_bytes([row("scale-1m-command", 170.0)]) == (None, None)


def test_user_policy_costs_per_event_only_from_measurements():
    """The tutorial's policy against the built-in EASY per event (submissions + attempts + failures),
    warm, each ratio from two cases of the same run; nothing when the user's case did not run."""
    user = bb.BatchRun("kth-easy-sjf-user", "kth", 100, 10, "easy_sjf.py:EasySJF", "none", 1, 1.0, 2.0, 2.0,
                       90.0, 95.0, 150, 50, 0.6)
    ref = bb.BatchRun("kth-easy-reference", "kth", 100, 10, "easy", "none", 1, 0.8, 2.0, 2.0, 90.0, 95.0, 150, 50,
                      0.4, backend="reference")
    assert user.events == 300
    none = bb.AccasimRun("not measured: x")
    costs = bb.BatchBench((user, ref), none, 2).user_policy_costs()
    assert costs["kth-easy-sjf-user"] == {"us_per_event": pytest.approx(2000.0), "user_over_this": pytest.approx(1.0)}
    assert costs["kth-easy-reference"] == {"us_per_event": pytest.approx(4e5 / 300), "user_over_this": pytest.approx(1.5)}
    assert costs["kth-easy"] == {"us_per_event": None, "user_over_this": None}  # the kernel's case did not run
    assert bb.BatchBench((ref,), none, 2).user_policy_costs() == {}
    assert "kth-easy-sjf-user" in bb.BATCH_CASES and bb.BATCH_CASES["kth-easy-sjf-user"]["backend"] == "reference"


def test_every_stealing_variant_against_baseline_in_one_process(monkeypatch, capsys):
    """Case mira-stealing (only when named): per reading, each variant's warm CPU over Baseline's,
    both measured in one child; the costliest named against the 1.5x target."""
    assert "mira-stealing" in bb.NAMED_ONLY and len(bb.STEALING_VARIANTS) == 18
    assert set(bb.STEALING_VARIANTS) | {"sfsj"} == set(__import__(
        "coschedule.heuristics.batch.stealing", fromlist=["x"]).STEALING_POLICIES)
    assert bb.BATCH_CASES["mira-stealing"]["failures"] == bb.BATCH_CASES["mira"]["failures"]
    assert "mira-stealing" not in bb.bench_batch.__defaults__[0]
    monkeypatch.setitem(bb.BATCH_CASES, "mira-stealing", {"trace": "tiny", "policy": "conservative",
                                                          "sweep": ["h111", "h321"], "readings": ["nodes", "count"],
                                                          "rounds": 2})
    assert main(["bench", "batch", "--cases", "mira-stealing", "--no-accasim", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["batch"]
    sweep = data["runs"][0]["sweep"]
    assert set(sweep) == {"nodes", "count"} and all(set(v["policies"]) == {"h111", "h321"} for v in sweep.values())
    for reading, got in data["sweep_ratios"].items():
        for name, ratio in got.items():
            assert ratio == pytest.approx(sweep[reading]["policies"][name] / sweep[reading]["baseline"])
    assert main(["bench", "batch", "--cases", "mira-stealing", "--no-accasim"]) == 0
    out = capsys.readouterr().out
    lines = [x for x in out.splitlines() if x.strip().startswith("reservations on")]
    assert [x.split()[2] for x in lines] == ["nodes", "count"]
    assert all("the costliest H" in x and ("; met" in x or "NOT met" in x) for x in lines)
    assert "H111" in out and "H321" in out and "not measured" not in out.split("node stealing, every")[1].split("\n\n")[0]
