"""Fail-stop failure traces: seeded per-node Poisson failures with downtime, the CSV format."""

from __future__ import annotations

import numpy as np
import pytest

from coschedule.errors import FormatError, InvalidInstance
from coschedule.sim import FailureTrace, poisson_failures, read_failures, write_failures


def test_same_seed_same_trace_on_every_call():
    a = poisson_failures(64, node_mtbf=1000.0, horizon=5000.0, downtime=10.0, seed=7)
    b = poisson_failures(64, node_mtbf=1000.0, horizon=5000.0, downtime=10.0, seed=7)
    c = poisson_failures(64, node_mtbf=1000.0, horizon=5000.0, downtime=10.0, seed=8)
    assert a == b and a != c and len(a) > 100
    assert np.all(np.diff(a.times) >= 0) and a.times.max() < 5000.0
    assert a.nodes.min() >= 0 and a.nodes.max() < 64


def test_the_rate_is_n_over_mtbf_without_downtime():
    """Mean count over 40 traces of expectation 1000 (std of the mean: 5)."""
    counts = [len(poisson_failures(100, node_mtbf=100.0, horizon=1000.0, seed=s)) for s in range(40)]
    assert abs(np.mean(counts) - 1000) < 25
    # every node fails at about the same rate (uniform nodes): none is far from 10 per trace
    nodes = np.concatenate([poisson_failures(100, node_mtbf=100.0, horizon=1000.0, seed=s).nodes
                            for s in range(40)])
    per_node = np.bincount(nodes, minlength=100) / 40
    assert per_node.min() > 6 and per_node.max() < 14


def test_a_down_node_does_not_fail_and_the_renewal_rate_holds():
    """With downtime D, each node is a renewal process of mean cycle mtbf + D; no failure of a
    node falls within D of its previous one (checked per node, independently of the sampler)."""
    D, mtbf, horizon, n = 50.0, 50.0, 20000.0, 200
    trace = poisson_failures(n, node_mtbf=mtbf, horizon=horizon, downtime=D, seed=3)
    for node in range(n):
        t = trace.times[trace.nodes == node]
        assert np.all(np.diff(t) >= D)
    expected = n * horizon / (mtbf + D)  # renewal theorem, up to an O(n) edge effect
    assert abs(len(trace) / expected - 1) < 0.03


def test_csv_round_trip_is_exact(tmp_path):
    trace = poisson_failures(16, node_mtbf=300.0, horizon=2000.0, downtime=5.0, seed=1)
    path = tmp_path / "f.csv"
    write_failures(trace, path)
    assert path.read_text().splitlines()[0] == "time,node"
    assert read_failures(path, n_nodes=16) == trace


def test_reader_sorts_and_skips_blank_lines(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text("time,node\n5,1\n\n1.5,0\n5,0\n")
    trace = read_failures(path, n_nodes=2)
    assert trace.times.tolist() == [1.5, 5.0, 5.0] and trace.nodes.tolist() == [0, 1, 0]  # stable


@pytest.mark.parametrize("text, message", [
    ("", "f.csv:1: expected the header 'time,node'"),
    ("t,n\n1,2\n", "f.csv:1: expected the header"),
    ("time,node\n1,0\n2\n", "f.csv:3: expected 2 fields"),
    ("time,node\nsoon,0\n", "f.csv:2: time: not a number: 'soon'"),
    ("time,node\n-1,0\n", "f.csv:2: time: expected a number >= 0"),
    ("time,node\nnan,0\n", "f.csv:2: time: expected a number >= 0"),
    ("time,node\n1,zero\n", "f.csv:2: node: not an integer"),
    ("time,node\n1,0\n2,8\n", "f.csv:3: node 8 does not exist (the platform has nodes 0..7)"),
])
def test_bad_files_name_the_line(tmp_path, text, message):
    path = tmp_path / "f.csv"
    path.write_text(text)
    with pytest.raises(FormatError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_failures(path, n_nodes=8)


def test_missing_file_and_bad_parameters():
    with pytest.raises(FormatError, match="no such file"):
        read_failures("/nonexistent/f.csv", n_nodes=4)
    with pytest.raises(InvalidInstance, match="node MTBF"):
        poisson_failures(4, node_mtbf=0.0, horizon=10.0)
    with pytest.raises(InvalidInstance, match="downtime"):
        poisson_failures(4, node_mtbf=1.0, horizon=10.0, downtime=-1.0)
    with pytest.raises(InvalidInstance, match="node 4 does not exist"):
        FailureTrace(np.array([1.0]), np.array([4]), 4)
    assert len(FailureTrace.none(3)) == 0 and repr(FailureTrace.none(3)) == "FailureTrace(0 failures on 3 nodes)"


def test_a_longer_horizon_extends_the_trace():
    """Drawn day by day: the trace of a horizon is a prefix of a longer one (same seed)."""
    short = poisson_failures(100, node_mtbf=1e5, horizon=1.5e5, downtime=100.0, seed=3)
    long = poisson_failures(100, node_mtbf=1e5, horizon=4e5, downtime=100.0, seed=3)
    k = len(short)
    assert 0 < k < len(long)
    assert np.array_equal(long.times[:k], short.times) and np.array_equal(long.nodes[:k], short.nodes)
    assert long.times[k] >= 1.5e5


@pytest.mark.parametrize(("nodes", "mtbf"), [(50, 200 * 86400.0), (64, 3 * 86400.0)])
def test_each_day_is_the_draws_of_its_own_stream(nodes, mtbf):
    """The module docstring's contract, drawn again here: day ``c`` is ``default_rng([seed, c])``'s
    Poisson count, then that many sorted uniform times, then as many nodes; a day without
    failure draws nothing more (most days of the first case), and no day shifts another's."""
    horizon, seed = 40 * 86400.0, 11
    times, where = [], []
    for c in range(40):
        rng = np.random.default_rng([seed, c])
        k = int(rng.poisson(86400.0 * nodes / mtbf))
        times.extend(c * 86400.0 + np.sort(rng.uniform(0.0, 86400.0, size=k)))
        where.extend(rng.integers(0, nodes, size=k))
    got = poisson_failures(nodes, node_mtbf=mtbf, horizon=horizon, seed=seed)
    assert 0 < len(got) and (len(got) < 40) == (mtbf > 86400.0 * 10)
    assert np.array_equal(got.times, np.array(times)) and np.array_equal(got.nodes, np.array(where))


def test_traces_of_integer_seeds_are_kept_within_a_bound(monkeypatch):
    """The same arguments give the same trace object (drawn once); a generator seed draws
    afresh; the kept traces hold at most DRAWN_KEPT failures in all, the oldest leaving first."""
    from coschedule.sim import failures

    monkeypatch.setattr(failures, "_DRAWN", type(failures._DRAWN)())
    monkeypatch.setattr(failures, "DRAWN_KEPT", 500)
    a = poisson_failures(64, node_mtbf=1000.0, horizon=3000.0, seed=np.int64(5))
    assert 150 < len(a) < 250 and poisson_failures(64, node_mtbf=1000.0, horizon=3000.0, seed=5) is a
    assert poisson_failures(64, node_mtbf=1000.0, horizon=3000.0, seed=np.random.default_rng(5)) is not a
    b = poisson_failures(64, node_mtbf=1000.0, horizon=3000.0, seed=6)
    c = poisson_failures(64, node_mtbf=1000.0, horizon=3000.0, seed=7)
    assert len(a) + len(b) + len(c) > 500 >= sum(len(t) for t in failures._DRAWN.values())
    assert list(failures._DRAWN.values())[-1] is c and all(t is not a for t in failures._DRAWN.values())
    again = poisson_failures(64, node_mtbf=1000.0, horizon=3000.0, seed=5)
    assert again is not a and again == a
    failures.forget_drawn_traces()  # what a benchmark calls to time the drawing again
    assert not failures._DRAWN and poisson_failures(64, node_mtbf=1000.0, horizon=3000.0, seed=5) is not again


def test_a_trace_that_would_not_end_is_refused_before_any_draw():
    """Drawn a day at a time, 2.5e13 s is 290 million days: ``coschedule batch`` on a job of
    1e13 s with checkpoints ran until stopped. The limits are on the span and the expected count."""
    from coschedule.sim.failures import MAX_DRAWN_FAILURES, MAX_HORIZON, too_long_to_draw

    with pytest.raises(InvalidInstance, match=r"would span 7.93e\+05 y \(2.5e\+13 s\), more than the 1,000 years"):
        poisson_failures(8, node_mtbf=1e9, horizon=2.5e13, seed=1)
    with pytest.raises(InvalidInstance, match=r"would hold 1e\+08 failures \(1,000 nodes .*more than the 1e\+07"):
        poisson_failures(1000, node_mtbf=1.0, horizon=1e5, seed=1)
    assert too_long_to_draw(8, 1e9, MAX_HORIZON) is None
    assert too_long_to_draw(10, 1.0, MAX_DRAWN_FAILURES / 10) is None
    assert too_long_to_draw(10, 1.0, MAX_DRAWN_FAILURES / 10 * (1 + 1e-9)) is not None
    assert len(poisson_failures(10, node_mtbf=1e9, horizon=10 * 86400.0, seed=1)) < 10  # below the limits: drawn
