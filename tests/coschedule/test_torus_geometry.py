"""The torus geometry (:mod:`coschedule.torus`): the finders agree box for box, every box they
return is free, of the asked size and a distinct node set; wrap-around; the bitmask table agrees
with the finder; boxes from node sets; shapes and sizes; one-line errors; the doctests.

Occupancies are drawn as arrays (small tori, so that hypothesis shrinks them) or from a seed and
a fraction (larger tori). The naive finder enumerates every box of the torus at each query: it
runs on tori of at most 5 in each dimension; the appendix's methods on larger ones.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from coschedule_testing import fewer, package_doctests, seeds
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import coschedule.torus
from coschedule.errors import InvalidInstance, UnknownName
from coschedule.torus import (
    EMPTY_BOX,
    FINDERS,
    Box,
    box_from_nodes,
    box_shapes,
    box_size_at_least,
    box_sizes,
    check_dims,
    check_occupancy,
    format_dims,
    free_partitions,
    max_free_partition,
    parse_dims,
)
from coschedule.torus import index as index_module
from coschedule.torus.index import BoxIndex, GenericIndex, make_index

METHODS = ("naive", "appendix", "appendix-early", "fast")
#: the methods that run on tori larger than 5 in a dimension
SCALABLE = ("appendix", "appendix-early", "fast")


def dims_strategy(lo: int = 1, hi: int = 5) -> st.SearchStrategy[tuple[int, int, int]]:
    return st.tuples(st.integers(lo, hi), st.integers(lo, hi), st.integers(lo, hi))


@st.composite
def small_occupancies(draw: st.DrawFn, hi: int = 5) -> np.ndarray:
    """A boolean array of a torus of at most ``hi`` per dimension, drawn element by element."""
    return draw(arrays(bool, draw(dims_strategy(1, hi))))


def seeded_occupancy(dims: tuple[int, int, int], fraction: float, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).random(dims) < fraction


def check_boxes(boxes: list[Box], occ: np.ndarray, size: int) -> None:
    """Each box free, of ``size`` nodes, canonical, in shape-then-base order, and no two with
    the same node set."""
    dims = occ.shape
    seen = set()
    for b in boxes:
        assert b.size == size and all(1 <= s <= d for s, d in zip(b.shape, dims))
        assert b.canonical(dims) == b and all(0 <= i < d for i, d in zip(b.base, dims))
        m = b.mask(dims)
        assert int(m.sum()) == size and not occ[m].any()
        nodes = tuple(b.nodes(dims).tolist())
        assert nodes not in seen
        seen.add(nodes)
    assert boxes == sorted(boxes, key=lambda b: (b.shape, b.base))


def check_mfp(box: Box, occ: np.ndarray) -> None:
    if box.size == 0:
        assert box == EMPTY_BOX and occ.all()
    else:
        check_boxes([box], occ, box.size)


def brute_force_free(occ: np.ndarray, size: int) -> set[frozenset[int]]:
    """The node sets of every free box of ``size``, from every (base, shape) pair, wrap-around
    duplicates included (an independent reference: sets, no canonical bases)."""
    dims = occ.shape
    out = set()
    for shape in box_shapes(size, dims):
        for base in itertools.product(*(range(d) for d in dims)):
            b = Box(base, shape)
            if not occ[b.mask(dims)].any():
                out.add(frozenset(b.nodes(dims).tolist()))
    return out


# ------------------------------------------------------------------ the finders agree


@given(st.data(), small_occupancies())
def test_every_method_agrees_on_small_tori(data, occ):
    """naive, appendix, appendix-early and fast: the same boxes in the same order, for sizes
    drawn among those that have a shape; MFPs of the same size, each free."""
    dims = occ.shape
    sizes = box_sizes(dims).tolist()
    for size in data.draw(st.lists(st.sampled_from(sizes), min_size=1, max_size=3, unique=True)):
        found = {m: free_partitions(occ, size, method=m) for m in METHODS}
        assert all(found[m] == found["naive"] for m in METHODS), (dims, size)
        check_boxes(found["fast"], occ, size)
        assert {frozenset(b.nodes(dims).tolist()) for b in found["fast"]} == brute_force_free(occ, size)
    mfps = {m: max_free_partition(occ, method=m) for m in METHODS}
    assert len({b.size for b in mfps.values()}) == 1, mfps
    for b in mfps.values():
        check_mfp(b, occ)
    # the MFP is the largest size that has a free box
    best = mfps["fast"].size
    assert all(not free_partitions(occ, s) for s in sizes if s > best)
    assert best == 0 or free_partitions(occ, best)
    # naive and the appendix's methods break ties alike (the first in shape-then-base order)
    assert mfps["naive"] == mfps["appendix"] == mfps["appendix-early"]


@given(dims_strategy(1, 9), st.sampled_from([0.0, 0.05, 0.2, 0.5, 0.8, 1.0]), seeds, st.data())
@fewer(0.6)
def test_appendix_and_fast_agree_on_larger_tori(dims, fraction, seed, data):
    occ = seeded_occupancy(dims, fraction, seed)
    sizes = box_sizes(dims).tolist()
    for size in data.draw(st.lists(st.sampled_from(sizes), min_size=1, max_size=3, unique=True)):
        found = {m: free_partitions(occ, size, method=m) for m in SCALABLE}
        assert found["appendix"] == found["appendix-early"] == found["fast"], (dims, size)
        check_boxes(found["fast"], occ, size)
    fast = max_free_partition(occ)
    check_mfp(fast, occ)
    early = max_free_partition(occ, method="appendix-early")
    assert early.size == fast.size
    if math.prod(dims) <= 150:  # the appendix as printed counts every node of every box
        assert max_free_partition(occ, method="appendix") == early


@given(dims_strategy(1, 10), st.sampled_from([0.0, 0.02, 0.1, 0.3, 0.6, 0.95]), seeds)
def test_fast_mfp_is_maximal(dims, fraction, seed):
    """The fast MFP is free, and no larger size has a free box (the fast free-partition finder
    is the reference here; it agrees with the appendix's above)."""
    occ = seeded_occupancy(dims, fraction, seed)
    best = max_free_partition(occ)
    check_mfp(best, occ)
    sizes = box_sizes(dims)
    for s in sizes[sizes > best.size].tolist():
        assert free_partitions(occ, s) == []


SMALL_AND_LARGER = [(1, 1, 1), (1, 1, 7), (1, 5, 1), (3, 4, 5), (4, 4, 8), (2, 9, 3)]


@pytest.mark.parametrize("dims,method", [(d, m) for d in SMALL_AND_LARGER for m in METHODS
                                         if not (m == "naive" and max(d) > 5)])  # naive: small tori only
def test_empty_and_full_torus(dims, method):
    n = math.prod(dims)
    empty = np.zeros(dims, dtype=bool)
    assert max_free_partition(empty, method=method) == Box((0, 0, 0), dims)
    assert free_partitions(empty, n, method=method) == [Box((0, 0, 0), dims)]
    full = np.ones(dims, dtype=bool)
    assert max_free_partition(full, method=method) == EMPTY_BOX
    assert EMPTY_BOX.size == 0
    for s in box_sizes(dims).tolist()[:5]:
        assert free_partitions(full, s, method=method) == []


@pytest.mark.parametrize("method", METHODS)
def test_the_only_free_box_wraps_around(method):
    # 4x4x4: only x in {3, 0} is free: one 2x4x4 box, based at x = 3
    occ = np.ones((4, 4, 4), dtype=bool)
    occ[[3, 0]] = False
    assert free_partitions(occ, 32, method=method) == [Box((3, 0, 0), (2, 4, 4))]
    assert max_free_partition(occ, method=method) == Box((3, 0, 0), (2, 4, 4))
    # and in the three dimensions at once: the 2x2x2 corner {3, 0}^3
    occ = np.ones((4, 4, 4), dtype=bool)
    occ[np.ix_([3, 0], [3, 0], [3, 0])] = False
    assert free_partitions(occ, 8, method=method) == [Box((3, 3, 3), (2, 2, 2))]
    assert max_free_partition(occ, method=method) == Box((3, 3, 3), (2, 2, 2))
    assert free_partitions(occ, 4, method=method) == [  # shape, then base
        Box((0, 3, 3), (1, 2, 2)), Box((3, 3, 3), (1, 2, 2)),
        Box((3, 0, 3), (2, 1, 2)), Box((3, 3, 3), (2, 1, 2)),
        Box((3, 3, 0), (2, 2, 1)), Box((3, 3, 3), (2, 2, 1)),
    ]


@pytest.mark.parametrize("method", METHODS)
def test_a_box_as_wide_as_the_torus_has_base_0_there(method):
    dims = (3, 4, 5)
    empty = np.zeros(dims, dtype=bool)
    # 20 = 1x4x5 (x bases 0..2), 4x5 does not fit y... every shape, base 0 where it is full
    for size in (20, 12, 15, 60, 4, 5):
        boxes = free_partitions(empty, size, method=method)
        for b in boxes:
            assert all(i == 0 for i, s, d in zip(b.base, b.shape, dims) if s == d)
        expected = sum(math.prod(1 if s == d else d for s, d in zip(shape, dims))
                       for shape in box_shapes(size, dims))
        assert len(boxes) == expected == len(brute_force_free(empty, size))


def test_unknown_method_and_bad_size():
    occ = np.zeros((2, 2, 2), dtype=bool)
    with pytest.raises(UnknownName, match=r"unknown partition finder 'fsat' \(did you mean 'fast'\?\); valid: "
                       r"appendix, appendix-early, fast, naive"):
        free_partitions(occ, 2, method="fsat")
    with pytest.raises(UnknownName):
        max_free_partition(occ, method="quick")
    for bad in (0, -3, 2.5, True):
        with pytest.raises(InvalidInstance, match="partition size must be a positive integer"):
            free_partitions(occ, bad)
    assert free_partitions(occ, 9) == [] and free_partitions(occ, 7) == []
    assert set(FINDERS) == set(METHODS)


# ------------------------------------------------------------------ the bitmask table


@given(small_occupancies(hi=4), seeds)
@fewer(0.6)
def test_box_index_agrees_with_the_finder(occ, seed):
    dims = occ.shape
    idx = BoxIndex(dims)
    generic = GenericIndex(dims)
    assert len(idx) == math.prod(d * (d - 1) + 1 for d in dims)
    bits = idx.pack(occ)
    free = idx.free_boxes(bits)
    g = generic.pack(occ)
    assert idx.mfp_size(free) == max_free_partition(occ).size == generic.mfp_size(generic.free_boxes(g))
    rng = np.random.default_rng(seed)
    mask = rng.random(dims) < 0.3
    for size in box_sizes(dims).tolist():
        rows = idx.of_size(free, size)
        boxes = [idx.box(int(r)) for r in rows]
        assert boxes == free_partitions(occ, size) == generic.of_size(g, size)
        for r, b in zip(rows.tolist(), boxes):
            assert idx.nodes(r) == b.nodes(dims).tolist() == generic.nodes(b)
        np.testing.assert_array_equal(idx.mfp_after(free, rows), generic.mfp_after(g, boxes))
        np.testing.assert_array_equal(idx.hits(rows, mask), generic.hits(boxes, mask))
    # every row is a distinct node set, sizes decreasing
    assert len({idx.bits[r].tobytes() for r in range(len(idx))}) == len(idx)
    assert (np.diff(idx.size) <= 0).all()


def test_box_index_hits_without_numpy_bitwise_count(monkeypatch):
    dims = (2, 3, 4)
    idx = BoxIndex(dims)
    rows = np.arange(len(idx))
    mask = np.random.default_rng(5).random(dims) < 0.5
    expected = idx.hits(rows, mask)
    if hasattr(np, "bitwise_count"):
        monkeypatch.delattr(np, "bitwise_count")
    np.testing.assert_array_equal(idx.hits(rows, mask), expected)
    np.testing.assert_array_equal(expected, [int(mask[idx.box(r).mask(dims)].sum()) for r in rows.tolist()])


def test_make_index_picks_the_table_for_small_tori():
    assert isinstance(make_index((4, 4, 8)), BoxIndex)
    assert isinstance(make_index((16, 16, 16)), GenericIndex)
    assert index_module._box_count((8, 8, 8)) == 185_193 <= index_module.MAX_BOXES


# ------------------------------------------------------------------ boxes and node sets


@given(dims_strategy(1, 7), st.data())
def test_box_from_nodes_inverts_box_nodes(dims, data):
    shape = tuple(data.draw(st.integers(1, d)) for d in dims)
    base = tuple(data.draw(st.integers(0, 2 * d)) for d in dims)  # bases beyond d reduce mod d
    box = Box(base, shape)
    nodes = box.nodes(dims)
    assert box_from_nodes(nodes.tolist(), dims) == box.canonical(dims)
    assert box_from_nodes(reversed(nodes.tolist()), dims) == box.canonical(dims)
    np.testing.assert_array_equal(box.canonical(dims).nodes(dims), nodes)
    assert np.flatnonzero(box.mask(dims).ravel()).tolist() == nodes.tolist()


@pytest.mark.parametrize("nodes, dims", [
    ([0, 1, 4], (1, 4, 4)),  # an L: (0,0), (0,1), (1,0)
    ([0, 1, 4, 5, 6], (1, 4, 4)),  # a 2x2 square and one more
    ([0, 1, 4, 5], (1, 1, 8)),  # two separated pieces of a line
    ([0, 2], (1, 1, 4)),  # two separated nodes
    ([0, 3], (1, 2, 2)),  # a diagonal: each coordinate spans its dimension, not their product
    ([0, 5, 10, 15], (1, 4, 4)),
    ([0, 1, 2, 4, 5, 6, 8, 9], (1, 3, 4)),  # every row and column touched, not a product
    ([], (2, 2, 2)),
    ([8], (2, 2, 2)),  # not a node of the torus
    ([-1], (2, 2, 2)),
])
def test_box_from_nodes_rejects_non_boxes(nodes, dims):
    assert box_from_nodes(nodes, dims) is None


@given(dims_strategy(1, 6), st.lists(st.data(), min_size=1, max_size=6))
def test_the_validators_box_screen_flags_exactly_the_non_boxes(dims, draws):
    """coschedule.torus.validate checks all attempts' partitions at once and calls box_from_nodes
    only on those it flags: it flags exactly the node sets that are no box."""
    from coschedule.sim.result import Attempt, AttemptTable
    from coschedule.torus.validate import _not_boxes

    size = math.prod(dims)
    sets = []
    for data in draws:
        if data.draw(st.booleans()):  # a box, maybe with a node more or less
            box = Box(tuple(data.draw(st.integers(0, d - 1)) for d in dims),
                      tuple(data.draw(st.integers(1, d)) for d in dims))
            nodes = set(box.nodes(dims).tolist())
            extra = data.draw(st.sampled_from(["none", "add", "remove"]))
            if extra == "add":
                nodes.add(data.draw(st.integers(0, size - 1)))
            elif extra == "remove" and len(nodes) > 1:
                nodes.discard(data.draw(st.sampled_from(sorted(nodes))))
        else:
            nodes = set(data.draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=size)))
        sets.append(tuple(sorted(nodes)))
    table = AttemptTable.of([Attempt(0, k, 0.0, 1.0, x, 0.0, 0.0, 0.0, "completed") for k, x in enumerate(sets)])
    assert _not_boxes(table, dims).tolist() == [box_from_nodes(x, dims) is None for x in sets]


def test_box_from_nodes_wrapping_and_full():
    dims = (4, 4, 8)
    assert box_from_nodes([7, 0], dims) == Box((0, 0, 7), (1, 1, 2))  # k = 7 then 0
    assert box_from_nodes(range(128), dims) == Box((0, 0, 0), dims)
    assert box_from_nodes([0, 0, 1], dims) == Box((0, 0, 0), (1, 1, 2))  # duplicates ignored


def test_box_labels_and_canonical():
    dims = (4, 4, 8)
    b = Box((0, 2, 6), (2, 2, 4))
    assert b.label() == "(0,2,6)+2x2x4" and b.size == 16
    assert b.nodes(dims).tolist() == sorted(
        i * 32 + j * 8 + k for i in (0, 1) for j in (2, 3) for k in (6, 7, 0, 1))
    assert Box((3, 5, 9), (4, 1, 8)).canonical(dims) == Box((0, 1, 0), (4, 1, 8))
    base, shape = b  # unpacks as (base, shape)
    assert (base, shape) == ((0, 2, 6), (2, 2, 4))


# ------------------------------------------------------------------ shapes and sizes


def test_box_shapes_and_sizes_by_hand():
    dims = (4, 4, 8)
    assert box_shapes(7, dims) == ((1, 1, 7),)
    assert box_size_at_least(7, dims) == 7
    assert box_shapes(11, dims) == ()
    assert box_size_at_least(11, dims) == 12
    assert box_size_at_least(128, dims) == 128
    assert box_size_at_least(129, dims) is None
    assert box_size_at_least(1, dims) == 1
    assert box_shapes(128, dims) == ((4, 4, 8),)
    assert box_shapes(8, dims) == ((1, 1, 8), (1, 2, 4), (1, 4, 2), (2, 1, 4), (2, 2, 2), (2, 4, 1),
                                   (4, 1, 2), (4, 2, 1))
    assert box_shapes(13, (2, 2, 2)) == ()
    with pytest.raises(InvalidInstance, match="torus shape"):
        box_shapes(4, (0, 2, 2))


@given(dims_strategy(1, 9), st.integers(1, 800))
def test_box_shapes_are_the_divisor_triples_that_fit(dims, size):
    shapes = box_shapes(size, dims)
    expected = tuple(s for s in itertools.product(*(range(1, d + 1) for d in dims)) if math.prod(s) == size)
    assert shapes == expected
    sizes = box_sizes(dims)
    assert (size in sizes.tolist()) == bool(shapes)
    at_least = box_size_at_least(size, dims)
    bigger = [s for s in sizes.tolist() if s >= size]
    assert at_least == (bigger[0] if bigger else None)
    assert box_sizes(dims).tolist() == sorted({math.prod(s) for s in itertools.product(
        *(range(1, d + 1) for d in dims))})


@pytest.mark.parametrize("text, dims", [("4x4x8", (4, 4, 8)), (" 8 X 8 x 8 ", (8, 8, 8)), ("1×2×3", (1, 2, 3))])
def test_parse_dims(text, dims):
    assert parse_dims(text) == dims
    assert parse_dims(format_dims(dims)) == dims


@pytest.mark.parametrize("text", ["8x8", "8x8x8x8", "0x4x4", "4x-4x4", "axbxc", "", "4,4,4", "4x4x4.5"])
def test_parse_dims_errors_are_one_line(text):
    with pytest.raises(InvalidInstance) as e:
        parse_dims(text)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(f"torus shape {text!r}")


def test_check_dims_and_occupancy_errors():
    assert check_dims([2, np.int64(3), 4]) == (2, 3, 4)
    for bad in ((2, 3), (2, 0, 3), (True, 2, 2), (2.0, 2, 2)):
        with pytest.raises(InvalidInstance, match="expected three positive integers"):
            check_dims(bad)
    assert check_occupancy(np.eye(2, dtype=int).reshape(2, 2, 1)).dtype == bool
    for bad, what in ((np.zeros((2, 2)), "3-D"), (np.zeros((2, 0, 2)), "3-D"),
                      (np.full((2, 2, 2), 2), "booleans"), (np.zeros((2, 2, 2)), "booleans")):
        with pytest.raises(InvalidInstance, match=what) as e:
            check_occupancy(bad)
        assert "\n" not in str(e.value)


def test_doctests():
    failed, attempted = package_doctests(coschedule.torus)
    assert failed == 0 and attempted >= 5
