"""Online workloads: jobs that arrive over time, read from SWF traces or Batsim JSON workloads.

A job has an ``id`` (a string, as in Batsim), a ``submit`` time, the number of ``nodes`` it
requests, a ``walltime`` (the user's estimate, what a scheduler plans with) and a ``length``
(how long it really runs without failures). A :class:`Workload` keeps them as read-only arrays
in submission order (stable: jobs submitted at one instant keep their file order).

**From SWF** (:func:`workload_from_swf`): a job is kept when its run time (field 4) and its
processor count (allocated, field 5, else requested, field 8) are both > 0; the others are
dropped and counted (they never ran, or the log does not say on how many processors). The
status (field 11) is not used: a failed or cancelled job still held its nodes for its run time.
``length`` is the run time; ``walltime`` is the requested time (field 9) when it is known and at
least the run time, else the run time (a log's job may run past its estimate by a grace period,
and some logs have no estimates: the simulated scheduler then plans with the exact length).

**Batsim JSON** (:func:`read_batsim`, :func:`write_batsim`): the top level has ``nb_res`` (the
platform's nodes), ``jobs`` and ``profiles``; a job has ``id`` (string), ``subtime``, ``res``
(nodes), ``profile`` (a key of ``profiles``) and optionally ``walltime``; the profiles this toolkit
runs are ``{"type": "delay", "delay": LENGTH}``. Without ``walltime``, or with one shorter than
the length, the estimate is the length (the rule of SWF traces: the simulated jobs are never
killed at their wall time, so a :class:`Workload` refuses a wall time below the length).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import FormatError, InvalidInstance
from ..io.files import read_utf8, write_text
from ..units import MAX_TIME

#: the most nodes a workload's platform may have: the simulators keep arrays of its size (Mira has 49,152)
MAX_NODES = 10_000_000

__all__ = ["MAX_NODES", "Workload", "read_batsim", "workload_from_swf", "write_batsim", "write_swf"]


@dataclass(frozen=True, eq=False)
class Workload:
    """Jobs ``k = 0..n-1`` in submission order on a platform of ``n_nodes`` nodes."""

    ids: tuple[str, ...]
    submit: np.ndarray
    nodes: np.ndarray
    walltime: np.ndarray
    length: np.ndarray
    n_nodes: int
    name: str = ""
    dropped: int = 0

    def __post_init__(self) -> None:
        n = len(self.ids)
        arrays = {}
        for key, kind in (("submit", np.float64), ("nodes", np.int64), ("walltime", np.float64),
                          ("length", np.float64)):
            a = np.asarray(getattr(self, key), dtype=kind).reshape(-1)
            if a.size != n:
                raise InvalidInstance(f"workload: {n} ids but {a.size} {key} values")
            arrays[key] = a
        if isinstance(self.n_nodes, bool) or not isinstance(self.n_nodes, (int, np.integer)) or self.n_nodes < 1:
            raise InvalidInstance(f"workload: the platform's node count must be a positive integer, got {self.n_nodes!r}")
        if self.n_nodes > MAX_NODES:
            raise InvalidInstance(f"workload: a platform of {int(self.n_nodes):,} nodes, more than {MAX_NODES:,} (the "
                                  "simulators keep arrays of the platform's size)")
        if len(set(self.ids)) != n:
            seen: set[str] = set()
            dup = next(i for i in self.ids if i in seen or seen.add(i))  # type: ignore[func-returns-value]
            raise InvalidInstance(f"workload: job id {dup!r} appears twice")
        for key, low, what in (("submit", 0.0, ">= 0"), ("walltime", 0.0, "> 0"), ("length", 0.0, "> 0")):
            a = arrays[key]
            bad = ~np.isfinite(a) | ((a < low) if key == "submit" else (a <= low))
            if bad.any():
                k = int(np.argmax(bad))
                raise InvalidInstance(f"job {self.ids[k]}: {key} must be a finite number {what}, got {a[k].item()!r}")
        with np.errstate(over="ignore"):
            late = ~np.isfinite(arrays["submit"] + arrays["walltime"])
        if late.any():
            k = int(np.argmax(late))
            raise InvalidInstance(f"job {self.ids[k]}: submit time plus wall time overflows (beyond the largest float)")
        end = arrays["submit"] + arrays["walltime"]
        far = end > MAX_TIME
        if far.any():
            k = int(np.argmax(far))
            raise InvalidInstance(f"job {self.ids[k]}: submit time plus wall time {float(end[k]):.6g} s is beyond "
                                  f"{MAX_TIME:.0e} s (31.7 million years), the times this simulator keeps exact")
        blurred = np.spacing(end) > 1e-3 * arrays["length"]
        if blurred.any():
            k = int(np.argmax(blurred))
            raise InvalidInstance(f"job {self.ids[k]}: at its times (submit {float(arrays['submit'][k]):.6g} s) a float "
                                  f"cannot hold its length {float(arrays['length'][k]):g} s to 0.1 %: its work "
                                  "would vanish from the flows and the utilization")
        short = arrays["walltime"] < arrays["length"]
        if short.any():
            k = int(np.argmax(short))
            raise InvalidInstance(f"job {self.ids[k]}: wall time {float(arrays['walltime'][k])!r} is shorter than its length "
                                  f"{float(arrays['length'][k])!r} (a job never runs past its wall time)")
        wide = (arrays["nodes"] < 1) | (arrays["nodes"] > self.n_nodes)
        if wide.any():
            k = int(np.argmax(wide))
            raise InvalidInstance(f"job {self.ids[k]}: nodes {arrays['nodes'][k]} not in 1..{self.n_nodes} (the platform)")
        order = np.argsort(arrays["submit"], kind="stable")
        if not np.array_equal(order, np.arange(n)):
            object.__setattr__(self, "ids", tuple(self.ids[k] for k in order))
            arrays = {key: a[order] for key, a in arrays.items()}
        for key, a in arrays.items():
            a.setflags(write=False)
            object.__setattr__(self, key, a)
        object.__setattr__(self, "ids", tuple(str(i) for i in self.ids))
        object.__setattr__(self, "n_nodes", int(self.n_nodes))

    @property
    def n(self) -> int:
        return len(self.ids)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Workload) and self.ids == other.ids and self.n_nodes == other.n_nodes
                and all(np.array_equal(getattr(self, k), getattr(other, k))
                        for k in ("submit", "nodes", "walltime", "length")))

    def __repr__(self) -> str:
        return f"Workload(n={self.n}, n_nodes={self.n_nodes}, name={self.name!r})"


def workload_from_swf(trace: Any, *, n_nodes: int | None = None) -> Workload:
    """The online jobs of an SWF trace (:class:`coschedule.swf.SwfTrace`), module docstring's rules.

    ``n_nodes`` defaults to the machine size of the trace's header. A kept job wider than the
    platform is an error that names its line.
    """
    from ..swf import _trace_stem

    P = trace.machine_size() if n_nodes is None else n_nodes
    usable = (trace.run > 0) & (trace.procs > 0)
    wide = usable & (trace.procs > P)
    if wide.any():
        j = int(np.argmax(wide))
        raise InvalidInstance(f"{trace.path}:{trace.lines[j]}: job {trace.number[j]}: "
                              f"{trace.procs[j]} processors > {P} nodes")
    keep = np.flatnonzero(usable)
    run = trace.run[keep]
    requested = trace.requested_time[keep]
    walltime = np.where(requested >= run, requested, run)
    return Workload(
        ids=tuple(str(x) for x in trace.number[keep].tolist()),
        submit=trace.submit[keep], nodes=trace.procs[keep], walltime=walltime, length=run,
        n_nodes=int(P), name=_trace_stem(trace.path), dropped=int(trace.n - keep.size),
    )


def _number(obj: dict[str, Any], key: str, where: str) -> float:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise FormatError(f"{where}: {key}: expected a number, got {value!r}")
    return float(value)


def read_batsim(path: str | Path) -> Workload:
    """Read a Batsim JSON workload (module docstring); an error names the file and the job."""
    path = Path(path)
    text = read_utf8(path, "a Batsim JSON workload")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
    except RecursionError:
        raise FormatError(f"{path}: invalid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise FormatError(f"{path}: expected a JSON object with nb_res, jobs and profiles")
    nb_res = data.get("nb_res")
    if isinstance(nb_res, bool) or not isinstance(nb_res, int) or not 1 <= nb_res < 2**62:
        raise FormatError(f"{path}: nb_res: expected a positive integer, got {nb_res!r}")
    jobs, profiles = data.get("jobs"), data.get("profiles")
    if not isinstance(jobs, list):
        raise FormatError(f"{path}: jobs: expected a list, got {type(jobs).__name__}")
    if not isinstance(profiles, dict):
        raise FormatError(f"{path}: profiles: expected an object, got {type(profiles).__name__}")
    ids, submit, nodes, walltime, length = [], [], [], [], []
    for k, job in enumerate(jobs):
        where = f"{path}: jobs[{k}]"
        if not isinstance(job, dict):
            raise FormatError(f"{where}: expected an object")
        jid = job.get("id")
        if not isinstance(jid, (str, int)) or isinstance(jid, bool):
            raise FormatError(f"{where}: id: expected a string, got {jid!r}")
        where = f"{path}: job {jid}"
        res = job.get("res")
        if isinstance(res, bool) or not isinstance(res, int):
            raise FormatError(f"{where}: res: expected an integer, got {res!r}")
        if not 1 <= res <= nb_res:
            raise FormatError(f"{where}: nodes {res} not in 1..{nb_res} (the platform)")
        name = job.get("profile")
        profile = profiles.get(name) if isinstance(name, str) else None
        if not isinstance(profile, dict):
            raise FormatError(f"{where}: profile {name!r} is not in profiles")
        if profile.get("type") != "delay":
            raise FormatError(f"{where}: profile {name!r} has type {profile.get('type')!r}; only 'delay' profiles can run here")
        delay = _number(profile, "delay", f"{path}: profile {name}")
        ids.append(str(jid))
        submit.append(_number(job, "subtime", where))
        nodes.append(res)
        length.append(delay)
        wt = _number(job, "walltime", where) if job.get("walltime") not in (None, -1) else delay
        if wt <= 0:
            raise FormatError(f"{where}: walltime: expected a number > 0 (or -1: none), got {job.get('walltime')!r}")
        walltime.append(max(wt, delay))  # as for SWF: an estimate below the length is the length
    try:
        return Workload(tuple(ids), np.array(submit), np.array(nodes, dtype=np.int64), np.array(walltime),
                        np.array(length), nb_res, name=path.name.removesuffix(".json"))
    except InvalidInstance as e:
        raise FormatError(f"{path}: {e}") from None


def write_batsim(workload: Workload, path: str | Path) -> None:
    """Write ``workload`` as a Batsim JSON workload: one ``delay`` profile per distinct length
    (named ``delay<length>``), ``walltime`` on every job. A round trip gives the same workload."""
    profiles: dict[str, dict[str, Any]] = {}
    jobs = []
    for k, jid in enumerate(workload.ids):
        length = float(workload.length[k])
        name = f"delay{length!r}"
        profiles.setdefault(name, {"type": "delay", "delay": length})
        jobs.append({"id": jid, "subtime": float(workload.submit[k]), "res": int(workload.nodes[k]),
                     "walltime": float(workload.walltime[k]), "profile": name})
    data = {"nb_res": workload.n_nodes, "jobs": jobs, "profiles": profiles}
    write_text(path, json.dumps(data, indent=1) + "\n")


def write_swf(workload: Workload, path: str | Path, *, header: bool = True) -> None:
    """Write ``workload`` as an SWF trace, one line per job in submission order: job number
    (1..n), submit, wait -1, run time (the length), allocated and requested processors (the
    nodes), CPU and memory -1, requested time (the wall time), requested memory -1, status 1,
    user, group and executable 1, the rest -1; with ``header`` a ``; MaxProcs:`` line first (the
    platform's nodes, which :func:`workload_from_swf` then reads back). Every time must be a
    whole number of seconds (the format's integers): a round trip gives the same workload, the
    ids being the job numbers."""
    for what, values in (("submit", workload.submit), ("length", workload.length), ("walltime", workload.walltime)):
        whole = values == np.rint(values)
        if not whole.all():
            k = int(np.argmax(~whole))
            raise ValueError(f"job {workload.ids[k]}: {what} {float(values[k])!r} is not a whole number of "
                             "seconds (SWF holds integers)")
    cols = np.column_stack([np.arange(1, workload.n + 1), workload.submit, workload.length, workload.nodes,
                            workload.nodes, workload.walltime]).astype(np.int64)
    body = "".join(f"{j} {s} -1 {L} {p} -1 -1 {q} {W} -1 1 1 1 1 -1 -1 -1 -1\n" for j, s, L, p, q, W in cols.tolist())
    write_text(path, (f"; MaxProcs: {workload.n_nodes}\n" if header else "") + body)
