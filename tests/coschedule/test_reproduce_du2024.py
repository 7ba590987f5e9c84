"""``coschedule reproduce du2024``: the claims' computations on hand-made rows shaped like the full
and the quick grids (the quick reproduction itself runs in tests/coschedule/test_reproduce.py)."""

from __future__ import annotations

import zlib

import pytest

from coschedule.reproduce.claims import NotComparable
from coschedule.reproduce.papers.du2024 import CLAIMS, PAPER
from coschedule.reproduce.papers.du2024.baseline import _hurt, _node_mtbf, _yd_128
from coschedule.reproduce.papers.du2024.common import BASE, INTREPID, JUNE, MARCH, _ci, _paired
from coschedule.reproduce.papers.du2024.synthetic import _synth_stress
from coschedule.reproduce.papers.du2024.variants import _spearman
from coschedule.reproduce.results import Results
from coschedule.reproduce.run import campaign_spec

NODES = {JUNE: 49152, MARCH: 49152, INTREPID: 40960, "Table6": 128}
BOUNDS = {49152: (128, 512, 2048, 8192, 32768), 40960: (128, 512, 2048, 8192, 32768),
          128: (2, 4, 8, 16, 32, 64)}


def _u(*key: object) -> float:
    """A number in [0, 1) fixed by ``key`` (the same rows on every run)."""
    return zlib.crc32(repr(key).encode()) / 2**32


def _metrics(source: str, policy: str, failing: bool, seed: int | None) -> dict:
    n = NODES[source]
    edges = (1, *BOUNDS[n], n)
    classes = []
    for k, (lo, hi) in enumerate(zip(edges, edges[1:])):
        closed = hi == n
        empty = source == INTREPID and hi <= 512
        mean = 3600.0 * 2**k * (1 + (1.5 if failing else 0.0) * k / 5 + 0.3 * _u(source, policy, seed, k))
        classes.append({"label": f"[{lo}, {hi}{']' if closed else ')'}", "low": lo, "high": hi, "closed": closed,
                        "count": 0 if empty else 10 + k, "mean": None if empty else mean,
                        "max": None if empty else 5 * mean, "weighted_mean": None if empty else 1.1 * mean})
    steals = 0.0 if policy == BASE or not failing else 40 + 20 * _u(source, policy, seed, "s")
    fractions = {"useful": 0.7 + 0.05 * _u(source, policy, seed, "u"), "checkpoint": 0.06, "recovery": 0.03,
                 "lost": 0.1, "stealing": 0.001 if steals else 0.0, "held": 0.0, "downtime": 0.0,
                 "idle": 0.05 + 0.02 * _u(source, policy, seed, "i")}
    return {"classes": classes, "flow": {"mean": 20000.0 * (1 + _u(source, policy, seed, "m")),
                                         "max": 500000.0 * (1 + _u(source, policy, seed, "x")),
                                         "weighted_mean": 60000.0 * (1 + _u(source, policy, seed, "w"))},
            "utilization": {"fractions": fractions, "idle_time_share": 0.85 + 0.1 * _u(source, policy, seed, "t"),
                            "spare_at_failure_share": 0.88, "steals": steals, "replaced": 400.0, "waited": 3.0,
                            "failures_hit": 403.0 + steals}}


def _rows(spec) -> list[dict]:
    """One hand-made row per cell of the (normalized) batch ``spec``, without simulating."""
    rows = []
    for src in spec.sources:
        n = NODES[src.name]
        mtbfs = [*(m for m in spec.node_mtbf if m is not None), *(pm * n for pm in spec.platform_mtbf)]
        for pol in spec.policies:
            if None in spec.node_mtbf:
                rows.append({"source": src.name, "policy": pol, "nodes": n, "node_mtbf": None, "downtime": 0.0,
                             "checkpoint_cost": 0.0, "seed_index": None,
                             "metrics": _metrics(src.name, pol, False, None)})
            for m in mtbfs:
                for D in spec.downtime:
                    for k in range(spec.seeds):
                        rows.append({"source": src.name, "policy": pol, "nodes": n, "node_mtbf": m, "downtime": D,
                                     "checkpoint_cost": spec.checkpoint_cost[0], "seed_index": k,
                                     "metrics": _metrics(src.name, pol, True, k)})
    return rows


def _results(quick: bool) -> Results:
    rows = {c.name: _rows(campaign_spec(c, quick).normalized()) for c in PAPER.campaigns}
    return Results.of_rows(rows, dict.fromkeys(rows, "batch"), quick=quick)


@pytest.mark.parametrize("quick", [False, True], ids=["full", "quick"])
def test_every_claim_is_computed_on_the_grids(quick):
    """Every claim gets ours on grids of the full specs' shape (three months, the 19 policies, the
    6 x 3 sweep) and of the quick ones'; the claims on the logs stay "not comparable"."""
    r = _results(quick)
    for claim in CLAIMS:
        outcome = claim.evaluate(r)
        assert not outcome.reason.startswith("ours could not be computed"), (claim.key, outcome.reason)
        assert outcome.measured.text, claim.key
        assert (outcome.verdict == "not comparable") == isinstance(claim.rule, NotComparable), claim.key


def test_the_model_numbers_of_section_2_and_6_1():
    """§2: 1 h x 49,152 nodes is 5.61 years per node; §6.1: the Young/Daly period at 128 nodes, 8 h."""
    r = _results(True)
    assert _node_mtbf(r).value == pytest.approx(49152 / 8760)
    assert _yd_128(r).value == pytest.approx(8.0)
    assert _synth_stress(r).value == pytest.approx(5868 * 3600 / 128000 / 174)  # eq. (3)


def test_paired_ratios_follow_the_seeds():
    a = [{"seed_index": 1, "v": 3.0}, {"seed_index": 0, "v": 2.0}, {"seed_index": 2, "v": 9.0}]
    b = [{"seed_index": 0, "v": 1.0}, {"seed_index": 1, "v": 2.0}]
    assert _paired(a, b, lambda x: x["v"]) == [1.5, 2.0]
    assert _paired(a, b, lambda x: x["v"], how="diff") == [1.0, 1.0]
    assert _ci([2.0]) == (2.0, 0.0)
    mu, half = _ci([1.0, 3.0])
    assert mu == 2.0 and half == pytest.approx(12.7062)


def test_spearman_ranks_ties_and_refuses_a_constant():
    assert _spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert _spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert _spearman([1, 1, 2], [1, 1, 2]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="constant"):
        _spearman([1, 1, 1], [1, 2, 3])


def test_failures_hurt_large_jobs_reads_the_classes():
    """§2's observation: the factor of every class of 2,048 nodes and more above every class below
    512 nodes; in part when only the largest class's is."""
    r = _results(True)
    m = _hurt(JUNE, 512)(r)
    assert m.holds is True and "(holds on the stand-in)" in m.text and "[32768, 49152] x" in m.text
