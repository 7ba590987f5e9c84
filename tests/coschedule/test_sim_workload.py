"""Online workloads: SWF rules (kept, dropped, wall times), Batsim JSON round trip and errors."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from coschedule.errors import FormatError, InvalidInstance
from coschedule.sim import Workload, read_batsim, workload_from_swf, write_batsim
from coschedule.swf import read_swf, trace_instance

TRACES = Path(__file__).resolve().parents[2] / "instances" / "traces"

# job 3: run time 0 (dropped); job 4: no processor count (dropped); job 5: no estimate (-1);
# job 2: ran past its estimate (60 < 70); job 6 submitted before job 5 (sorted, stable)
SWF = """; MaxProcs: 8
1 0 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 -1 -1 -1
2 10 0 70 4 -1 -1 4 60 -1 0 1 1 1 1 -1 -1 -1
3 20 0 0 1 -1 -1 1 60 -1 5 1 1 1 1 -1 -1 -1
4 30 0 50 -1 -1 -1 -1 60 -1 1 1 1 1 1 -1 -1 -1
5 40 0 30 8 -1 -1 8 -1 -1 1 1 1 1 1 -1 -1 -1
6 10 0 5 1 -1 -1 1 9 -1 1 1 1 1 1 -1 -1 -1
"""


@pytest.fixture
def swf(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.swf.gz"
    path.write_bytes(gzip.compress(SWF.encode()))
    return path


def test_swf_rules(swf):
    w = workload_from_swf(read_swf(swf))
    assert w.ids == ("1", "2", "6", "5") and w.dropped == 2 and w.n_nodes == 8
    assert w.submit.tolist() == [0, 10, 10, 40]
    assert w.nodes.tolist() == [2, 4, 1, 8]
    assert w.length.tolist() == [100, 70, 5, 30]
    assert w.walltime.tolist() == [200, 70, 9, 30]  # estimate, else at least the length
    with pytest.raises(InvalidInstance, match=r"tiny.swf.gz:6: job 5: 8 processors > 4 nodes"):
        workload_from_swf(read_swf(swf), n_nodes=4)


def test_swf_keeps_the_jobs_of_the_offline_view():
    """The online workload of a real log holds the same jobs as its offline rigid instance."""
    trace = read_swf(TRACES / "KTH-SP2-1996-2.1-cln.swf.gz")
    w = workload_from_swf(trace)
    rigid = trace_instance(trace)
    assert w.n == rigid.n == 28467 and w.n_nodes == rigid.P == 100
    assert sorted(w.ids) == sorted(j.name.removeprefix("job") for j in rigid.jobs)
    assert np.all(np.diff(w.submit) >= 0) and np.all(w.walltime >= w.length)


workloads = st.integers(1, 12).flatmap(lambda n: st.builds(
    lambda sub, nodes, lengths, extra: Workload(
        tuple(f"j{k}" for k in range(n)), np.array(sub, dtype=float), np.array(nodes),
        np.array(lengths) + np.array(extra), np.array(lengths), 16),
    st.lists(st.integers(0, 100), min_size=n, max_size=n),
    st.lists(st.integers(1, 16), min_size=n, max_size=n),
    st.lists(st.floats(0.5, 1e5), min_size=n, max_size=n),
    st.lists(st.floats(0, 100), min_size=n, max_size=n)))


@given(workloads)
def test_batsim_round_trip(tmp_path_factory, w):
    path = tmp_path_factory.mktemp("b") / "w.json"
    write_batsim(w, path)
    data = json.loads(path.read_text())
    assert data["nb_res"] == 16 and all(isinstance(j["id"], str) for j in data["jobs"])
    assert all(data["profiles"][j["profile"]]["type"] == "delay" for j in data["jobs"])
    assert read_batsim(path) == w


def _batsim(tmp_path: Path, data) -> Path:
    path = tmp_path / "w.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


GOOD = {"nb_res": 4, "jobs": [{"id": "a", "subtime": 0, "res": 2, "profile": "p"}],
        "profiles": {"p": {"type": "delay", "delay": 10}}}


def test_batsim_without_walltime_plans_with_the_length(tmp_path):
    w = read_batsim(_batsim(tmp_path, GOOD))
    assert w.walltime.tolist() == [10.0] == w.length.tolist() and w.ids == ("a",)


@pytest.mark.parametrize("change, message", [
    ({"nb_res": 0}, "nb_res: expected a positive integer"),
    ({"jobs": {}}, "jobs: expected a list"),
    ({"jobs": [{"id": "a", "subtime": 0, "res": 2, "profile": "q"}]}, "job a: profile 'q' is not in profiles"),
    ({"profiles": {"p": {"type": "parallel", "cpu": [1]}}}, "only 'delay' profiles"),
    ({"jobs": [{"id": "a", "subtime": -3, "res": 2, "profile": "p"}]}, "job a: submit must be a finite number >= 0"),
    ({"jobs": [{"id": "a", "subtime": 0, "res": 9, "profile": "p"}]}, "job a: nodes 9 not in 1..4"),
    ({"jobs": [{"id": "a", "subtime": "now", "res": 2, "profile": "p"}]}, "job a: subtime: expected a number"),
])
def test_batsim_errors_name_the_job(tmp_path, change, message):
    with pytest.raises(FormatError, match=message):
        read_batsim(_batsim(tmp_path, {**GOOD, **change}))


def test_batsim_syntax_error_names_line_and_column(tmp_path):
    with pytest.raises(FormatError, match=r"w.json:2:\d+: invalid JSON"):
        read_batsim(_batsim(tmp_path, '{"nb_res": 4,\n "jobs": [}'))


def test_a_wall_time_below_the_length(tmp_path):
    """A Workload refuses it (jobs are never killed at their wall time); a Batsim file's
    estimate below the length becomes the length, as for SWF traces."""
    import json

    from coschedule.errors import InvalidInstance
    from coschedule.sim.workload import Workload, read_batsim

    with pytest.raises(InvalidInstance, match="job b: wall time 1.0 is shorter than its length 5.0"):
        Workload(ids=("a", "b"), submit=[0, 0], nodes=[1, 1], walltime=[5.0, 1.0], length=[5.0, 5.0], n_nodes=2)
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"nb_res": 2, "profiles": {"d": {"type": "delay", "delay": 5}},
                                "jobs": [{"id": "b", "subtime": 0, "res": 2, "walltime": 1, "profile": "d"}]}))
    assert read_batsim(path).walltime.tolist() == [5.0]
