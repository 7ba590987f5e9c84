"""Fail-stop failure traces: when which node fails.

A trace is a list of ``(time, node)`` failures on a platform of ``n_nodes`` nodes (0-based), in
time order. What a failure does (the node is down for a downtime ``D``, then back; the jobs on it
are interrupted) is the simulator's business; the trace only says when nodes fail, so that one
trace drives every policy of a comparison.

**Per-node Poisson failures** (:func:`poisson_failures`): each node fails after an exponential
time of mean ``node_mtbf`` (``mu_ind``), is down for ``downtime``, and cannot fail while down;
back up, its clock starts afresh. The platform's MTBF is ``mu = mu_ind / n_nodes``. It is drawn
as the superposition of the nodes' processes (a Poisson count on ``[0, horizon)``, uniform
times, uniform nodes), then a failure that strikes a node still down from its previous failure
is dropped; by the memorylessness of the exponential this is exactly the per-node process above.

**File format** (:func:`read_failures`, :func:`write_failures`): CSV, UTF-8, a header line
``time,node``, then one failure per line: the time in seconds (a number >= 0) and the node's
0-based index. Lines may come in any order (they are sorted by time, stably); blank lines are
ignored.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import FormatError, InvalidInstance
from ..io.files import read_utf8, write_text
from ..rng import Seed, as_generator

__all__ = ["MAX_DRAWN_FAILURES", "MAX_HORIZON", "FailureTrace", "forget_drawn_traces", "poisson_failures",
           "read_failures", "too_long_to_draw", "uniform_failures", "write_failures"]

HEADER = "time,node"


@dataclass(frozen=True, eq=False)
class FailureTrace:
    """Failures ``(times[k], nodes[k])`` in nondecreasing time order on ``n_nodes`` nodes."""

    times: np.ndarray
    nodes: np.ndarray
    n_nodes: int

    def __post_init__(self) -> None:
        times = np.asarray(self.times, dtype=np.float64).reshape(-1)
        nodes = np.asarray(self.nodes, dtype=np.int64).reshape(-1)
        if times.shape != nodes.shape:
            raise InvalidInstance(f"failure trace: {times.size} times but {nodes.size} nodes")
        if isinstance(self.n_nodes, bool) or not isinstance(self.n_nodes, (int, np.integer)) or self.n_nodes < 1:
            raise InvalidInstance(f"failure trace: n_nodes must be a positive integer, got {self.n_nodes!r}")
        if times.size:
            if not np.all(np.isfinite(times)) or times.min() < 0:
                k = int(np.flatnonzero(~np.isfinite(times) | (times < 0))[0])
                raise InvalidInstance(f"failure {k}: time must be a finite number >= 0, got {times[k]!r}")
            bad = np.flatnonzero((nodes < 0) | (nodes >= self.n_nodes))
            if bad.size:
                k = int(bad[0])
                raise InvalidInstance(f"failure {k}: node {nodes[k]} does not exist (nodes 0..{self.n_nodes - 1})")
            order = np.argsort(times, kind="stable")
            times, nodes = times[order], nodes[order]
        times.setflags(write=False)
        nodes.setflags(write=False)
        object.__setattr__(self, "times", times)
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "n_nodes", int(self.n_nodes))

    def __len__(self) -> int:
        return int(self.times.size)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, FailureTrace) and self.n_nodes == other.n_nodes
                and np.array_equal(self.times, other.times) and np.array_equal(self.nodes, other.nodes))

    def __repr__(self) -> str:
        return f"FailureTrace({len(self)} failures on {self.n_nodes} nodes)"

    @classmethod
    def none(cls, n_nodes: int) -> FailureTrace:
        """No failure (a failure-free run)."""
        return cls(np.empty(0), np.empty(0, dtype=np.int64), n_nodes)


#: failures are drawn one chunk of this many seconds (a day) at a time, each from its own stream
#: (the seed and the chunk's index), so the trace of a horizon is a prefix of any longer one
CHUNK = 86400.0


#: the longest trace :func:`poisson_failures` draws: 1,000 years (365,000 days, 4 to 11 s of
#: drawing at 10 us a day without failure, 31 us with); a run that needs more would not end in practice
MAX_HORIZON = 1000 * 365 * 86400.0

#: the most failures a drawn trace may expect (``horizon * n_nodes / node_mtbf``): ten million
MAX_DRAWN_FAILURES = 1e7


def too_long_to_draw(n_nodes: int, node_mtbf: float, horizon: float) -> str | None:
    """Why :func:`poisson_failures` refuses this trace, or ``None``: a horizon past
    :data:`MAX_HORIZON`, or more than :data:`MAX_DRAWN_FAILURES` failures expected on it. The
    commands and campaigns call it up front with the horizon they would first draw."""
    from coschedule.units import format_duration

    if horizon > MAX_HORIZON:
        return (f"its failure trace would span {format_duration(horizon)} ({horizon:.3g} s), more than the "
                f"{MAX_HORIZON / (365 * 86400):,.0f} years a trace may span")
    expected = horizon * n_nodes / node_mtbf
    if expected > MAX_DRAWN_FAILURES:
        return (f"its failure trace would hold {expected:.3g} failures ({n_nodes:,} nodes for "
                f"{format_duration(horizon)} at a node MTBF of {format_duration(node_mtbf)}), more than the "
                f"{MAX_DRAWN_FAILURES:.3g} a trace may hold")
    return None


#: the traces drawn last with an integer seed, by their arguments (a trace is immutable and a
#: function of them): the variants of a campaign's point run on one trace, drawn once per process
_DRAWN: OrderedDict[tuple[int, float, float, float, int], FailureTrace] = OrderedDict()
#: at most this many failures in all are kept there (16 bytes each)
DRAWN_KEPT = 1_000_000


def forget_drawn_traces() -> None:
    """Empty the traces :func:`poisson_failures` keeps: the next call draws again (a benchmark
    that times the drawing with the run calls it before each run)."""
    _DRAWN.clear()


def _root_seed(seed: Seed) -> int:
    """An integer root for the chunks' streams: the seed itself when it is an integer >= 0,
    else one draw of the generator (``None``: fresh entropy)."""
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        return int(seed)
    return int(as_generator(seed).integers(0, 2**63))


def poisson_failures(
    n_nodes: int, *, node_mtbf: float, horizon: float, downtime: float = 0.0, seed: Seed = None
) -> FailureTrace:
    """Per-node Poisson failures on ``[0, horizon)`` (module docstring), from ``seed``.

    Parameters
    ----------
    n_nodes : int
        Nodes of the platform.
    node_mtbf : float
        ``mu_ind``, the mean time between failures of one node, in seconds (> 0).
    horizon : float
        Length of the trace in seconds (>= 0).
    downtime : float
        ``D``: a node cannot fail again within ``D`` seconds of a failure (>= 0).
    seed : int, numpy.random.Generator or None
        The same seed gives the same trace on every machine.

    Expected number of failures: ``horizon * n_nodes / node_mtbf`` when ``D = 0``. Running time
    ``O(K log K)`` for ``K`` failures. The trace is drawn a day (:data:`CHUNK`) at a time, each
    day from its own stream of the seed, so the trace of a horizon is a prefix of the trace of
    any longer horizon with the same seed: a simulation that outlives its trace can be run again
    on a longer one and sees the same failures up to the first horizon. A trace longer than
    :data:`MAX_HORIZON` or expecting more than :data:`MAX_DRAWN_FAILURES` failures is refused
    (:func:`too_long_to_draw`). A trace drawn from an integer seed is kept, and the same object
    given again for the same arguments (the last ones drawn, :data:`DRAWN_KEPT` failures in all).
    """
    if not (isinstance(node_mtbf, (int, float)) and node_mtbf > 0 and math.isfinite(node_mtbf)):
        raise InvalidInstance(f"node MTBF must be a positive number of seconds, got {node_mtbf!r}")
    if not (isinstance(horizon, (int, float)) and horizon >= 0 and math.isfinite(horizon)):
        raise InvalidInstance(f"horizon must be a finite number of seconds >= 0, got {horizon!r}")
    if not (isinstance(downtime, (int, float)) and downtime >= 0 and math.isfinite(downtime)):
        raise InvalidInstance(f"downtime must be a finite number of seconds >= 0, got {downtime!r}")
    if isinstance(n_nodes, bool) or not isinstance(n_nodes, (int, np.integer)) or n_nodes < 1:
        raise InvalidInstance(f"n_nodes must be a positive integer, got {n_nodes!r}")
    problem = too_long_to_draw(int(n_nodes), node_mtbf, horizon)
    if problem:
        raise InvalidInstance(f"{problem}: the run would not end")
    whole = isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0
    key = (int(n_nodes), float(node_mtbf), float(horizon), float(downtime), int(seed)) if whole else None
    if key is not None and key in _DRAWN:
        _DRAWN.move_to_end(key)
        return _DRAWN[key]
    trace = _draw(int(n_nodes), node_mtbf, horizon, downtime, _root_seed(seed))
    if key is not None and len(trace) <= DRAWN_KEPT:
        _DRAWN[key] = trace
        while sum(len(t) for t in _DRAWN.values()) > DRAWN_KEPT:
            _DRAWN.popitem(last=False)
    return trace


def _draw(n_nodes: int, node_mtbf: float, horizon: float, downtime: float, root: int) -> FailureTrace:
    """:func:`poisson_failures` from the integer ``root``, drawn."""
    rate = n_nodes / node_mtbf
    parts_t, parts_n = [], []
    for c in range(math.ceil(horizon / CHUNK)):  # day by day: a longer horizon extends the trace
        rng = np.random.default_rng([root, c])
        k = int(rng.poisson(CHUNK * rate))
        if k == 0:  # a day without failure draws nothing more (its stream is its own): half the cost
            continue
        parts_t.append(c * CHUNK + np.sort(rng.uniform(0.0, CHUNK, size=k)))
        parts_n.append(rng.integers(0, n_nodes, size=k))
    times = np.concatenate(parts_t) if parts_t else np.empty(0)
    nodes = np.concatenate(parts_n) if parts_n else np.empty(0, dtype=np.int64)
    inside = times < horizon
    times, nodes = times[inside], nodes[inside]
    count = times.size
    if downtime > 0 and count:
        keep = np.ones(count, dtype=bool)
        up_at = np.zeros(n_nodes)  # when each node is back up
        for k in range(count):  # only failures of one node interact: O(K)
            node = nodes[k]
            if times[k] < up_at[node]:
                keep[k] = False
            else:
                up_at[node] = times[k] + downtime
        times, nodes = times[keep], nodes[keep]
    return FailureTrace(times, nodes, int(n_nodes))


def uniform_failures(n_nodes: int, count: int, *, start: float, end: float, seed: Seed = None) -> FailureTrace:
    """Exactly ``count`` failures, times uniform on ``[start, end)`` and nodes uniform, drawn
    independently from ``seed`` ([Oliner2004] §6.2 gives a failure *count* over a log's period;
    the torus simulator's default). Two failures may strike one node at close times: with a
    downtime the engine ignores a failure of a node already down."""
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
        raise InvalidInstance(f"failure count must be an integer >= 0, got {count!r}")
    if not (math.isfinite(start) and math.isfinite(end) and 0 <= start <= end):
        raise InvalidInstance(f"failure period must be finite with 0 <= start <= end, got [{start!r}, {end!r})")
    if isinstance(n_nodes, bool) or not isinstance(n_nodes, (int, np.integer)) or n_nodes < 1:
        raise InvalidInstance(f"n_nodes must be a positive integer, got {n_nodes!r}")
    rng = as_generator(seed)
    times = rng.uniform(start, end, size=int(count)) if end > start else np.full(int(count), float(start))
    nodes = rng.integers(0, n_nodes, size=int(count))
    return FailureTrace(times, nodes, int(n_nodes))


def read_failures(path: str | Path, *, n_nodes: int) -> FailureTrace:
    """Read a ``time,node`` CSV file (module docstring); an error names the file and line."""
    path = Path(path)
    text = read_utf8(path, "a failure trace (CSV with header time,node)")
    lines = text.splitlines()
    if not lines or lines[0].strip().replace(" ", "") != HEADER:
        got = lines[0].strip()[:40] if lines else "an empty file"
        raise FormatError(f"{path}:1: expected the header {HEADER!r}, got {got!r}")
    times: list[float] = []
    nodes: list[int] = []
    for i, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) != 2:
            raise FormatError(f"{path}:{i}: expected 2 fields time,node, got {len(fields)}")
        try:
            t = float(fields[0])
        except ValueError:
            raise FormatError(f"{path}:{i}: time: not a number: {fields[0]!r}") from None
        if not math.isfinite(t) or t < 0:
            raise FormatError(f"{path}:{i}: time: expected a number >= 0, got {fields[0]!r}")
        try:
            node = int(fields[1])
        except ValueError:
            raise FormatError(f"{path}:{i}: node: not an integer: {fields[1]!r}") from None
        if not 0 <= node < n_nodes:
            raise FormatError(f"{path}:{i}: node {node} does not exist (the platform has nodes 0..{n_nodes - 1})")
        times.append(t)
        nodes.append(node)
    return FailureTrace(np.array(times, dtype=np.float64), np.array(nodes, dtype=np.int64), n_nodes)


def write_failures(trace: FailureTrace, path: str | Path) -> None:
    """Write ``trace`` as a ``time,node`` CSV file (times with ``repr`` precision: a round trip
    gives the same floats)."""
    rows = [HEADER] + [f"{t!r},{n}" for t, n in zip(trace.times.tolist(), trace.nodes.tolist())]
    write_text(path, "\n".join(rows) + "\n")
