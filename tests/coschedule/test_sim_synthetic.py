"""Synthetic Mira- and Intrepid-like months against [Du2024] Tables 2 and 3 and §5.2's stress."""

from __future__ import annotations

import numpy as np
import pytest

from coschedule.sim import Workload
from coschedule.sim.synthetic import MONTHS, intrepid_like, mira_like, stress

# Table 2's class bounds, half-open: [lo, hi)
BOUNDS = [(1, 2), (2, 8), (8, 32), (32, 128), (128, 512), (512, 2048), (2048, 8192), (8192, 32768),
          (32768, 32769)]


def draw(key: str, seed: int) -> Workload:
    return intrepid_like(seed) if key.startswith("intrepid") else mira_like(key.removeprefix("mira-"), seed)


@pytest.mark.parametrize("key", sorted(MONTHS))
@pytest.mark.parametrize("seed", [0, 7])
def test_matches_the_tables(key, seed):
    spec = MONTHS[key]
    w = draw(key, seed)
    assert isinstance(w, Workload)
    assert (w.n, w.n_nodes) == (spec.n, spec.n_nodes)
    # Table 2: the count of every class, the last one being the whole machine capped
    counts = [int(np.count_nonzero((w.nodes >= lo) & (w.nodes < hi))) for lo, hi in BOUNDS]
    counts.append(int(np.count_nonzero(w.nodes == spec.cap)))
    assert tuple(counts) == spec.counts
    assert w.nodes.max() <= spec.cap < spec.n_nodes
    # sizes are powers of two, but the capped whole-machine jobs
    other = w.nodes[w.nodes != spec.cap]
    assert np.all(other & (other - 1) == 0)
    # §5.2's stress within 0.1 % (relative)
    assert stress(w, spec.duration) == pytest.approx(spec.stress, rel=1e-3)
    # Table 3: min and max exact, mean and median within 1 %
    assert w.length.min() == spec.length_min
    assert w.length.max() == spec.length_max
    assert w.length.mean() == pytest.approx(spec.length_mean, rel=0.01)
    assert np.median(w.length) == pytest.approx(spec.length_median, rel=0.01)
    # whole seconds; wall times at least the lengths, whole minutes but where a length is
    assert np.all(w.length == np.rint(w.length))
    assert np.all(w.walltime >= w.length)
    assert np.all((w.walltime % 60 == 0) | (w.walltime == w.length))
    # submissions within the month, in order, ids in submission order
    assert w.submit.min() >= 0 and w.submit.max() < spec.duration
    assert np.all(np.diff(w.submit) >= 0)
    assert w.ids[:3] == ("1", "2", "3")


def test_intrepid_has_no_job_below_512_nodes():
    w = intrepid_like(3)
    assert w.nodes.min() >= 512 and w.n_nodes == 40960 and w.nodes.max() == 40900


def test_the_large_jobs_run_longer():
    """The pairing that reaches the stress: the node-weighted mean length exceeds the mean."""
    w = mira_like("2017-06", 0)
    assert np.average(w.length, weights=w.nodes) > 1.2 * w.length.mean()


def test_seeds():
    assert mira_like("2018-03", 5) == mira_like("2018-03", 5)
    assert intrepid_like(5) == intrepid_like(5)
    a, b = mira_like("2017-06", 1), mira_like("2017-06", 2)
    assert a != b
    assert not np.array_equal(a.length, b.length) and not np.array_equal(a.submit, b.submit)
    assert mira_like(seed=np.random.default_rng(4)) == mira_like(seed=np.random.default_rng(4))


def test_unknown_month():
    with pytest.raises(ValueError, match="2017-06, 2018-03"):
        mira_like("2013-06", 0)
