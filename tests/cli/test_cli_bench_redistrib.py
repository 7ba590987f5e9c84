"""``coschedule bench redistrib``: what it prints is measured, and every run it times is valid."""

from __future__ import annotations

import json

from coschedule_testing import cli_fails, cli_run


def test_bench_redistrib_growth_rows(capsys):
    code, out, _ = cli_run(capsys, "bench", "redistrib", "--cases", "growth-n", "--repeat", "1", "--json")
    assert code == 0
    data = json.loads(out)["redistrib"]
    rows = data["rows"]
    assert [r["n"] for r in rows] == [125, 250, 500, 1000]
    assert all(r["p"] == 10 * r["n"] and r["at_end"] == "greedy" and r["at_failure"] == "iterated" for r in rows)
    assert all(r["cpu"] > 0 and r["makespan_days"] > 0 and r["events"] >= r["n"] for r in rows)
    assert all(r["target_s"] is None for r in rows)  # the target is for n1000 only
    assert data["target_s"] == 1.0


def test_bench_redistrib_text_and_errors(capsys):
    code, out, _ = cli_run(capsys, "bench", "redistrib", "--cases", "growth-failures", "--repeat", "1")
    assert code == 0
    assert "growth with failures" in out and "every run validated" in out
    lines = [ln for ln in out.splitlines() if ln.strip().startswith("1000 ")]
    assert len(lines) == 4
    # more failures at a shorter MTBF: the failure column grows from 100 years to 5
    hits = [int(ln.split()[-4].split("/")[1]) for ln in lines]
    assert hits[0] < hits[-1]
    err = cli_fails(capsys, "bench", "redistrib", "--cases", "n100")
    assert "unknown bench redistrib case 'n100'" in err and "n1000" in err


def test_bench_redistrib_whole_command(capsys, monkeypatch):
    """The whole-command case: `coschedule redistrib PACK ...` in a fresh process beside the
    run_pack it calls (a bundled pack of 20 applications here, for speed)."""
    from coschedule.bench import redistrib as br
    from coschedule.bench.common import measure_command

    def small(repeat, progress):
        return [measure_command("n20-command", ["redistrib", "synthetic-n20-p100", "--at-end", "greedy",
                                                "--at-failure", "iterated"],
                                "coschedule.heuristics.redistribution:run_pack")]

    monkeypatch.setitem(br.REDISTRIB_CASES, "n20-command", small)
    assert "n1000-command" in br.DEFAULT_CASES
    code, out, _ = cli_run(capsys, "bench", "redistrib", "--cases", "n20-command")
    assert code == 0 and "pack simulations" not in out  # no pack row: no pack header
    line = next(x for x in out.splitlines() if x.strip().startswith("n20-command"))
    assert "whole/simulation" in line and "simulation" in line
    code, out, _ = cli_run(capsys, "bench", "redistrib", "--cases", "n20-command", "--json")
    (row,) = json.loads(out)["redistrib"]["rows"]
    assert row["kind"] == "command" and 0 < row["sim_cpu_s"] < row["whole_cpu_s"]
