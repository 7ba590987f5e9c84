"""[Oliner2004]'s reproduction (coschedule.reproduce.papers.oliner2004): its computations on small
hand-made rows shaped like the torus campaigns' (no campaign runs here; the shared test runs the
quick reproduction)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from coschedule.reproduce.papers.oliner2004 import CLAIMS, FIGURES, PAPER
from coschedule.reproduce.papers.oliner2004.common import (
    ACC,
    CONF,
    FAIL,
    FIG3_COUNTS,
    KTH,
    LUBLIN,
    NASA,
    PAPER_COUNT,
    _acc_rows,
    _conf_rows,
    _quick_source,
    scaled_count,
)
from coschedule.reproduce.results import Results

LOGS = (KTH, NASA, LUBLIN)
#: the simulator of each campaign (:meth:`Results.of_rows`)
TORUS = dict.fromkeys((FAIL, CONF, ACC), "torus")


def _row(log: str, c: float, policy: str, a: float | None = None, K: int = 0, seed: int = 0, *,
         bsld: float = 10.0, util: float = 0.5, unused: float = 0.2, wait: float = 100.0) -> dict[str, Any]:
    return {"source": log, "workload": f"swf:{log}", "shape": "4x4x8", "load_scale": c, "policy": policy,
            "confidence": a if policy == "balancing" else None, "accuracy": a if policy == "tiebreak" else None,
            "failure_count": K, "failure_model": "clustered" if K else None, "downtime": 0.0, "migration": True,
            "seed_index": seed if K else None, "jobs": 100, "mean_bounded_slowdown": bsld,
            "max_bounded_slowdown": 10 * bsld, "mean_wait": wait, "mean_response": 2 * wait, "utilized": util,
            "unused": unused, "lost": 1 - util - unused, "failures": K, "job_failures": 0, "span": 1e6,
            "details": {}}


def _value(log: str, c: float, policy: str, a: float | None, K: int, seed: int) -> dict[str, float]:
    """Made-up but varied numbers: more failures and load slow down, prediction helps unevenly."""
    base = (1 + K / 1000) * (1.5 if c > 1 else 1.0) * (1 + LOGS.index(log)) * (1 + 0.1 * seed)
    factor = 1.0 if a is None else (0.5 + 0.3 * ((10 * a) % 3) / 3 if policy == "balancing" else 0.9 - 0.2 * a)
    return {"bsld": 10 * base * factor, "util": 0.5 + 0.05 * (c - 1) + 0.02 * (a or 0),
            "unused": 0.3 - K / 20000 - 0.01 * (policy == "tiebreak"), "wait": 100 * base * factor}


def _grid(quick: bool) -> Results:
    """Rows shaped like the full campaigns (``quick = False``) or like the quick grids."""
    seeds = 1 if quick else 2
    params = [0.1, 0.9] if quick else [round(0.1 * k, 1) for k in range(1, 11)]
    fail = []
    for c, K in itertools.product((1.0, 1.2), FIG3_COUNTS):
        K = scaled_count(KTH, K, quick)
        for seed in range(seeds if K else 1):
            for policy, a in (("fcfs", None), ("balancing", 0.1), ("balancing", 0.9)):
                fail.append(_row(KTH, c, policy, a, K, seed, **_value(KTH, c, policy, a, K, seed)))
    conf, acc = [], []
    for log, c in itertools.product(LOGS, (1.0, 1.2)):
        K = scaled_count(log, PAPER_COUNT[log], quick)
        for seed in range(seeds):
            fcfs = _row(log, c, "fcfs", None, K, seed, **_value(log, c, "fcfs", None, K, seed))
            if not (quick and log == KTH):
                conf.append(fcfs)
            if not quick:
                acc.append(fcfs)
            for a in params:
                if not (quick and log == KTH):
                    conf.append(_row(log, c, "balancing", a, K, seed, **_value(log, c, "balancing", a, K, seed)))
                acc.append(_row(log, c, "tiebreak", a, K, seed, **_value(log, c, "tiebreak", a, K, seed)))
    return Results.of_rows({FAIL: fail, CONF: conf, ACC: acc}, TORUS, quick=quick)


def test_the_quick_counts_keep_the_failures_per_day():
    assert scaled_count(KTH, 4000, False) == 4000
    assert scaled_count(KTH, 4000, True) == 180  # 15 of 333 days
    assert scaled_count(NASA, 4000, True) == 870  # 20 of 92 days
    assert scaled_count(LUBLIN, 1000, True) == 225  # 20 of 89 days


def test_the_quick_grids_share_their_cells():
    quick = {c.name: c.quick for c in PAPER.campaigns}
    assert quick[ACC]["policies"] == ["tiebreak"]  # FCFS from the confidence grid
    assert [s["name"] for s in quick[CONF]["source"]] == [NASA, LUBLIN]  # KTH-SP2 from the failures grid
    assert scaled_count(KTH, PAPER_COUNT[KTH], True) in quick[FAIL]["failure_count"]
    assert quick[FAIL]["source"][0] == _quick_source(KTH) == quick[ACC]["source"][0]
    r = _grid(quick=True)
    merged = _conf_rows(r)
    kth = [x for x in merged if x["source"] == KTH]
    assert kth and all(x["failure_count"] == 180 and x["seed_index"] == 0 for x in kth)
    assert {x["policy"] for x in _acc_rows(r)} == {"fcfs", "tiebreak"}
    full = _grid(quick=False)
    assert _conf_rows(full) is full.rows(CONF)


@pytest.mark.parametrize("quick", [False, True])
def test_every_claim_computes_on_both_grids(quick):
    r = _grid(quick)
    for claim in CLAIMS:
        outcome = claim.evaluate(r)
        assert not outcome.reason.startswith("ours could not be computed"), (claim.key, outcome.reason)
    for figure in FIGURES:
        assert figure.draw(r) is not None


def test_claims_read_the_papers_quantities():
    rows = {FAIL: [], ACC: [], CONF: []}
    for log in LOGS:
        for c in (1.0, 1.2):
            rows[CONF] += [_row(log, c, "fcfs", None, 4000, bsld=100.0),
                           _row(log, c, "balancing", 0.1, 4000, bsld=20.0),  # 80 % of the way at a = 0.1
                           _row(log, c, "balancing", 0.9, 4000, bsld=25.0 if log == KTH else 10.0)]
            rows[ACC] += [_row(log, c, "tiebreak", 0.1, 4000, bsld=90.0),  # -10 %
                          _row(log, c, "tiebreak", 0.9, 4000, bsld=70.0)]  # -30 %
    r = Results.of_rows(rows, TORUS, quick=False)
    claims = {c.key: c for c in CLAIMS}
    first = claims["fig6-first-10"].compute(r)
    assert first.holds is True and "89 % of it" in first.text  # 80 of the best 90 points on NASA and lublin_256
    rises = claims["fig6-not-continuous"].compute(r)
    assert rises.holds is True and "KTH-SP2 c = 1.0: 20 -> 25" in rises.text
    nasa = claims["fig9-nasa-20"].evaluate(r)
    assert nasa.measured.value == pytest.approx(0.20) and nasa.verdict == "match"  # the median of 10 % and 30 %
    worst = claims["fig9-worst-case"].compute(r)
    assert worst.holds is True and "12 of 12" in worst.text
    degraded = claims["fig9-load-degradation"].compute(r)
    assert degraded.holds is False and "NASA a = 0.1: -10 %" in degraded.text
