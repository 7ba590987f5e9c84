"""Standard Workload Format (SWF) traces and day-sets of rigid jobs.

An SWF v2.2 file (Parallel Workloads Archive, Feitelson et al.) holds one job per line as 18
whitespace-separated numbers, ``-1`` meaning *unknown*, and ``;`` comment lines, some of which
are ``; Key: value`` header fields (``MaxProcs``, ``UnixStartTime``, ``TimeZoneString``, ...).
:func:`read_swf` reads one (gzipped or plain) and :func:`day_sets` cuts it into the sets of
rigid jobs of the "Table 1 protocol": the jobs submitted on one calendar day form one
:class:`~coschedule.rigid.RigidInstance` on ``P`` = the machine size of the header.

Errors are located as ``file:line: ...`` (:class:`~coschedule.errors.FormatError` for the
file, :class:`~coschedule.errors.InvalidInstance` for a job wider than ``P``). The format and
the choices made here are documented in ``docs/formats.md`` ("SWF workload traces").
"""

from __future__ import annotations

import gzip
import io
import math
import os
import re
import warnings
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np

from .errors import FormatError, InvalidInstance
from .io import read_file_bytes
from .rigid import RigidInstance, RigidJob

__all__ = [
    "SWF_FIELDS",
    "DaySet",
    "SwfHeader",
    "SwfTrace",
    "day_sets",
    "read_swf",
    "trace_instance",
]

#: The 18 fields of an SWF line, in order (field ``k`` of the format is ``SWF_FIELDS[k - 1]``).
SWF_FIELDS: tuple[str, ...] = (
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time",
)
_NFIELDS = len(SWF_FIELDS)
# 0-based columns of the fields kept, and those that must hold integers
_NUMBER, _SUBMIT, _RUN, _ALLOC, _REQ, _REQ_TIME, _STATUS = 0, 1, 3, 4, 7, 8, 10
_INTEGER_COLUMNS = (_NUMBER, _ALLOC, _REQ, _STATUS)
_INT_LIMIT = 2.0**53  # larger floats are not exact integers

_DAY = 86400.0
# "; Key: value": a key glued to its colon, then blank or end of line (so that continuation
# lines such as ";   http://..." are not taken for a key "http")
_HEADER = re.compile(r";\s*(\w+):(?:\s+(.*?))?\s*$")
_NUMBER_TOKEN = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _field_label(col: int) -> str:
    return f"field {col + 1} ({SWF_FIELDS[col]})"


@dataclass(frozen=True)
class SwfHeader:
    """The ``; Key: value`` header fields of an SWF file.

    Attributes
    ----------
    max_procs, max_nodes : int or None
        ``MaxProcs`` and ``MaxNodes``; ``None`` when absent or not positive (SWF's ``-1``).
    unix_start : int or None
        ``UnixStartTime``: the epoch time of submit time 0.
    time_zone : str or None
        ``TimeZoneString``, an IANA name such as ``"Europe/Stockholm"``.
    fields : dict of str to str
        Every header field, first occurrence, value stripped but otherwise raw.
    """

    max_procs: int | None
    max_nodes: int | None
    unix_start: int | None
    time_zone: str | None
    fields: dict[str, str]


@dataclass(frozen=True, eq=False)
class SwfTrace:
    """The jobs of an SWF file, one entry per job line, in file order (read-only arrays).

    Attributes
    ----------
    path : str
        The file, as given to :func:`read_swf` (prefix of every error message).
    header : SwfHeader
    number : numpy.ndarray of int64
        Job numbers (field 1).
    submit : numpy.ndarray of float64
        Submit times in seconds since the log start (field 2), all ``>= 0``.
    run : numpy.ndarray of float64
        Run times (field 4); ``-1`` is unknown.
    requested_time : numpy.ndarray of float64
        The user's estimate, the wall time (field 9); ``-1`` is unknown.
    procs : numpy.ndarray of int64
        Allocated processors (field 5), or the requested ones (field 8) where field 5 is
        ``<= 0``; ``<= 0`` when neither is known.
    status : numpy.ndarray of int64
        Field 11: 1 completed, 0 failed, 5 cancelled, -1 unknown.
    lines : numpy.ndarray of int64
        1-based line number of each job in the (decompressed) file.
    """

    path: str
    header: SwfHeader
    number: np.ndarray
    submit: np.ndarray
    run: np.ndarray
    requested_time: np.ndarray
    procs: np.ndarray
    status: np.ndarray
    lines: np.ndarray

    @property
    def n(self) -> int:
        """Number of job lines."""
        return int(self.number.size)

    def machine_size(self) -> int:
        """``MaxProcs`` of the header, else ``MaxNodes``, else the widest job.

        Raises
        ------
        FormatError
            If the header gives neither and no job has a known processor count.
        """
        for value in (self.header.max_procs, self.header.max_nodes):
            if value is not None:
                return value
        widest = int(self.procs.max()) if self.procs.size else 0
        if widest < 1:
            raise FormatError(
                f"{self.path}: no machine size: the header has no MaxProcs or MaxNodes "
                "and no job has a processor count"
            )
        return widest


@dataclass(frozen=True)
class DaySet:
    """The usable jobs submitted on one calendar day, as a rigid instance.

    Attributes
    ----------
    day : int
        0-based index of the calendar day, counted from the first day of the log (the day of
        submit time 0).
    date : str
        ISO date ``YYYY-MM-DD`` of that day: local when the header gives ``UnixStartTime`` and
        a resolvable ``TimeZoneString``, UTC when it gives only ``UnixStartTime``, ``""``
        without ``UnixStartTime``.
    instance : RigidInstance
        Jobs ``job{number}`` in file order, ``time`` = run time, on ``P`` processors; named
        ``{trace stem}-day{day:03d}``.
    dropped : int
        Jobs of that day left out because their run time or processor count is ``<= 0``.
    """

    day: int
    date: str
    instance: RigidInstance
    dropped: int


# ---------------------------------------------------------------- reading


def _read_text(path: Path) -> str:
    raw = read_file_bytes(path, "an SWF file")
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:  # BadGzipFile is an OSError
            raise FormatError(f"{path}: corrupt gzip data: {e}") from None
    elif path.suffix == ".gz":
        raise FormatError(f"{path}: not a gzip file (no gzip magic number)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")  # header prose of old logs; the numbers are ASCII


def _header_int(fields: dict[str, str], key: str, where: dict[str, int], path: Path) -> int | None:
    value = fields.get(key)
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        raise FormatError(
            f"{path}:{where[key]}: header {key} is not an integer: {value!r}"
        ) from None
    return number


def _parse_header(comments: list[tuple[int, str]], path: Path) -> SwfHeader:
    fields: dict[str, str] = {}
    where: dict[str, int] = {}
    for lineno, line in comments:
        m = _HEADER.match(line)
        if m and m.group(1) not in fields:
            fields[m.group(1)] = m.group(2) or ""
            where[m.group(1)] = lineno
    max_procs = _header_int(fields, "MaxProcs", where, path)
    max_nodes = _header_int(fields, "MaxNodes", where, path)
    unix_start = _header_int(fields, "UnixStartTime", where, path)
    if unix_start is not None and unix_start < 0:
        raise FormatError(
            f"{path}:{where['UnixStartTime']}: header UnixStartTime is negative: {unix_start}"
        )
    return SwfHeader(
        max_procs=max_procs if max_procs is not None and max_procs > 0 else None,
        max_nodes=max_nodes if max_nodes is not None and max_nodes > 0 else None,
        unix_start=unix_start,
        time_zone=fields.get("TimeZoneString") or None,
        fields=fields,
    )


def _locate_bad_token(path: Path, data: list[str], lines: list[int]) -> FormatError | None:
    """The first line that is not 18 numbers, as a located error (slow path, errors only)."""
    for line, text in zip(lines, data):
        tokens = text.split()
        if len(tokens) != _NFIELDS:
            return FormatError(f"{path}:{line}: expected {_NFIELDS} fields, found {len(tokens)}")
        for col, token in enumerate(tokens):
            if not _NUMBER_TOKEN.fullmatch(token):
                try:
                    finite = math.isfinite(float(token))  # "nan", "inf"
                except ValueError:
                    finite = True  # not a number at all
                what = "a number" if finite else "a finite number"
                return FormatError(f"{path}:{line}: {_field_label(col)} is not {what}: {token!r}")
    return None


def _parse_jobs(path: Path, data: list[str], lines: list[int]) -> np.ndarray:
    """An ``(n, 18)`` float array of the job lines, or a located FormatError."""
    try:
        table = np.loadtxt(io.StringIO("\n".join(data)), dtype=np.float64, comments=None, ndmin=2)
    except ValueError as e:
        located = _locate_bad_token(path, data, lines)
        raise located or FormatError(f"{path}: malformed job line: {e}") from None
    if table.shape[1] != _NFIELDS:  # every line has the same count (else loadtxt fails)
        raise FormatError(f"{path}:{lines[0]}: expected {_NFIELDS} fields, found {table.shape[1]}")
    finite = np.isfinite(table)
    if not finite.all():
        row, col = np.argwhere(~finite)[0]
        token = data[row].split()[col]
        raise FormatError(
            f"{path}:{lines[row]}: {_field_label(col)} is not a finite number: {token!r}"
        )
    for col in _INTEGER_COLUMNS:
        values = table[:, col]
        huge = np.abs(values) >= _INT_LIMIT
        if huge.any():
            row = int(np.argmax(huge))
            token = data[row].split()[col]
            raise FormatError(
                f"{path}:{lines[row]}: {_field_label(col)} is too large: {token} (at most 2^53)"
            )
        bad = values != np.floor(values)
        if bad.any():
            row = int(np.argmax(bad))
            token = data[row].split()[col]
            raise FormatError(
                f"{path}:{lines[row]}: {_field_label(col)} is not an integer: {token!r}"
            )
    negative = table[:, _SUBMIT] < 0
    if negative.any():
        row = int(np.argmax(negative))
        token = data[row].split()[_SUBMIT]
        raise FormatError(f"{path}:{lines[row]}: {_field_label(_SUBMIT)} is negative: {token}")
    return table


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def read_swf(path: str | os.PathLike[str]) -> SwfTrace:
    """Read an SWF v2.2 workload trace, gzipped (detected by its magic number) or plain.

    Comment lines start with ``;`` (the ``; Key: value`` ones form the header, first
    occurrence of each key kept); blank lines are skipped; every other line must hold
    exactly 18 finite numbers, with integers in fields 1, 5, 8 and 11 and a submit time
    (field 2) ``>= 0``. Nothing else is checked here: ``-1`` (unknown) run times and
    processor counts are kept and left to :func:`day_sets` to drop.

    Parameters
    ----------
    path : str or os.PathLike
        The file; a ``.gz`` file must be gzip data.

    Returns
    -------
    SwfTrace

    Raises
    ------
    FormatError
        ``file: no such file``, corrupt gzip data, no job line, a malformed header integer, or
        ``file:line: ...`` naming the field of a malformed job line, e.g.
        ``trace.swf:31: field 4 (run time) is not a number: 'abc'``.

    Notes
    -----
    Running time ``O(size of the file)``: the job lines go through ``numpy.loadtxt`` at once,
    and only when it fails are they re-read one by one to locate the error. Measured with
    numpy 2.4 on Python 3.11 (best of 5, loaded machine): LANL-CM5 (122,060 jobs, 2.1 MB
    gzipped) in 0.22-0.29 s, KTH-SP2 (28,476 jobs) in 0.04-0.05 s; :func:`day_sets` then
    takes about 0.3 s and 0.07 s to build all the instances.
    """
    path = Path(path)
    text = _read_text(path)
    comments: list[tuple[int, str]] = []
    data: list[str] = []
    lines: list[int] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if not stripped:
            continue
        if stripped[0] == ";":
            comments.append((lineno, stripped))
        else:
            data.append(line)
            lines.append(lineno)
    header = _parse_header(comments, path)
    if not data:
        raise FormatError(f"{path}: no jobs (every line is a comment or blank)")
    table = _parse_jobs(path, data, lines)
    alloc = table[:, _ALLOC].astype(np.int64)
    requested = table[:, _REQ].astype(np.int64)
    return SwfTrace(
        path=str(path),
        header=header,
        number=_frozen(table[:, _NUMBER].astype(np.int64)),
        submit=_frozen(np.ascontiguousarray(table[:, _SUBMIT])),
        run=_frozen(np.ascontiguousarray(table[:, _RUN])),
        requested_time=_frozen(np.ascontiguousarray(table[:, _REQ_TIME])),
        procs=_frozen(np.where(alloc > 0, alloc, requested)),
        status=_frozen(table[:, _STATUS].astype(np.int64)),
        lines=_frozen(np.asarray(lines, dtype=np.int64)),
    )


# ---------------------------------------------------------------- day sets


def _time_zone(trace: SwfTrace) -> tzinfo:
    """The zone of the header's ``TimeZoneString``, or UTC (with a warning) if unresolvable."""
    name = trace.header.time_zone
    if name is None:
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        warnings.warn(
            f"{trace.path}: time zone {name!r} not found (install tzdata?); days are UTC days",
            stacklevel=4,  # the caller of day_sets
        )
        return UTC


def _job_days(trace: SwfTrace) -> tuple[np.ndarray, date | None]:
    """Day index of every job, and the date of day 0 (``None`` without ``UnixStartTime``).

    Days are cut at the local midnights of the header's time zone (23- and 25-hour days at
    daylight-saving changes), found once per day and matched with ``searchsorted``.
    """
    start = trace.header.unix_start
    if start is None:
        return np.floor(trace.submit / _DAY).astype(np.int64), None
    tz = _time_zone(trace)
    first = datetime.fromtimestamp(start, tz).date()
    last = datetime.fromtimestamp(start + float(trace.submit.max()), tz).date()
    midnights = np.array(
        [
            datetime.combine(first + timedelta(days=k), time(0), tzinfo=tz).timestamp()
            for k in range(1, (last - first).days + 1)
        ],
        dtype=np.float64,
    )
    return np.searchsorted(midnights, start + trace.submit, side="right").astype(np.int64), first


def _trace_stem(path: str) -> str:
    name = Path(path).name
    for suffix in (".gz", ".swf"):
        name = name.removesuffix(suffix)
    return name


def day_sets(
    trace: SwfTrace,
    *,
    P: int | None = None,
    min_jobs: int = 1,
    days: int | None = None,
    first_day: int = 0,
) -> Iterator[DaySet]:
    """The jobs of each submission day as a set of rigid jobs (the "Table 1 protocol").

    A job is *usable* when its run time and processor count (:attr:`SwfTrace.procs`) are
    both ``> 0``; it becomes ``RigidJob(procs, run time, name=f"job{number}")``. The status
    field is not used: a failed or cancelled job still held its processors for its run time,
    so it is part of the day's load. Jobs are grouped by the calendar day of their submit
    time (local midnights of ``TimeZoneString`` when the header gives it with
    ``UnixStartTime``; UTC days with ``UnixStartTime`` alone; ``floor(submit / 86400)``
    without it).

    Parameters
    ----------
    trace : SwfTrace
    P : int, optional
        Number of processors of every instance; default :meth:`SwfTrace.machine_size`.
    min_jobs : int
        Days with fewer usable jobs are skipped (``>= 1``: an instance is never empty).
    days : int, optional
        Yield at most this many sets.
    first_day : int
        Skip the days of index ``< first_day``.

    Yields
    ------
    DaySet
        In increasing day order.

    Raises
    ------
    InvalidInstance
        At the call (before the first set), if a usable job of a day to be yielded is wider
        than ``P``: ``trace.swf:57: job 42: procs 128 > P 100``.
    ValueError
        For an invalid ``min_jobs``, ``days`` or ``first_day``.

    Notes
    -----
    Running time ``O(n log D)`` for ``n`` jobs over ``D`` days, plus building the instances.
    """
    if P is None:
        P = trace.machine_size()
    if isinstance(P, bool) or not isinstance(P, (int, np.integer)) or P < 1:
        raise InvalidInstance(f"platform size P must be a positive integer, got {P!r}")
    if min_jobs < 1:
        raise ValueError(f"min_jobs must be >= 1, got {min_jobs!r}")
    if days is not None and days < 0:
        raise ValueError(f"days must be >= 0, got {days!r}")
    if first_day < 0:
        raise ValueError(f"first_day must be >= 0, got {first_day!r}")

    day_of, day0 = _job_days(trace)
    usable = (trace.run > 0) & (trace.procs > 0)
    n_days = int(day_of.max()) + 1
    counts = np.bincount(day_of[usable], minlength=n_days)
    dropped = np.bincount(day_of[~usable], minlength=n_days)
    chosen = [d for d in range(first_day, n_days) if counts[d] >= min_jobs]
    if days is not None:
        chosen = chosen[:days]

    selected = usable & np.isin(day_of, chosen)
    too_wide = selected & (trace.procs > P)
    if too_wide.any():
        j = int(np.argmax(too_wide))
        raise InvalidInstance(
            f"{trace.path}:{trace.lines[j]}: job {trace.number[j]}: procs {trace.procs[j]} > P {P}"
        )
    # jobs of the chosen days, grouped by day, in file order within a day (stable sort)
    order = np.flatnonzero(selected)
    order = order[np.argsort(day_of[order], kind="stable")]
    sorted_days = day_of[order]
    begins = np.searchsorted(sorted_days, chosen, side="left")
    ends = np.searchsorted(sorted_days, chosen, side="right")
    return _build_day_sets(trace, int(P), chosen, order, begins, ends, day0, dropped)


def _build_day_sets(
    trace: SwfTrace,
    P: int,
    chosen: list[int],
    order: np.ndarray,
    begins: np.ndarray,
    ends: np.ndarray,
    day0: date | None,
    dropped: np.ndarray,
) -> Iterator[DaySet]:
    stem = _trace_stem(trace.path)
    procs, run, number = trace.procs.tolist(), trace.run.tolist(), trace.number.tolist()
    for day, begin, end in zip(chosen, begins.tolist(), ends.tolist()):
        jobs = tuple(
            RigidJob(procs[j], run[j], f"job{number[j]}") for j in order[begin:end].tolist()
        )
        yield DaySet(
            day=day,
            date="" if day0 is None else (day0 + timedelta(days=day)).isoformat(),
            instance=RigidInstance(jobs, P, f"{stem}-day{day:03d}"),
            dropped=int(dropped[day]),
        )


def trace_instance(trace: SwfTrace, *, day: int | None = None, P: int | None = None) -> RigidInstance:
    """The usable jobs of a trace as one rigid instance: one submission day, or the whole log.

    With ``day``, the :class:`DaySet` of that day index (same rules as :func:`day_sets`: the
    jobs of day ``day`` in file order, named ``{stem}-day{day:03d}``). Without it, every usable
    job of the log, in file order, named ``{stem}``. The submit times are not used: this is
    the offline view of the resilient rigid-jobs experiments (all jobs released at time 0).

    Raises
    ------
    InvalidInstance
        If the day has no usable job (the message gives the range of day indices), or a job is
        wider than ``P``.
    """
    if day is None:
        if P is None:
            P = trace.machine_size()
        usable = np.flatnonzero((trace.run > 0) & (trace.procs > 0))
        if usable.size == 0:
            raise InvalidInstance(f"{trace.path}: no usable job (run time and processors > 0)")
        wide = usable[trace.procs[usable] > P]
        if wide.size:
            j = int(wide[0])
            raise InvalidInstance(
                f"{trace.path}:{trace.lines[j]}: job {trace.number[j]}: procs {trace.procs[j]} > P {P}"
            )
        jobs = tuple(RigidJob(int(trace.procs[j]), float(trace.run[j]), f"job{trace.number[j]}")
                     for j in usable.tolist())
        return RigidInstance(jobs, int(P), _trace_stem(trace.path))
    if isinstance(day, bool) or not isinstance(day, (int, np.integer)) or day < 0:
        raise InvalidInstance(f"{trace.path}: day must be an integer >= 0, got {day!r}")
    found = list(day_sets(trace, P=P, first_day=day, days=1))
    if not found or found[0].day != day:
        day_of, _ = _job_days(trace)
        usable = (trace.run > 0) & (trace.procs > 0)
        with_jobs = np.unique(day_of[usable]).tolist()
        shown = ", ".join(map(str, with_jobs[:5])) + (f", ... {with_jobs[-1]}" if len(with_jobs) > 5 else "")
        raise InvalidInstance(
            f"{trace.path}: day {day} has no usable job; {len(with_jobs)} days have: {shown}"
        )
    return found[0].instance
