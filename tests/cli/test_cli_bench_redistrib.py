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
