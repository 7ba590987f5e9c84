"""SWF workload traces: header, located errors, day-sets of rigid jobs, and the real logs."""

from __future__ import annotations

import gzip
import warnings
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
import pytest

from coschedule.errors import FormatError, InvalidInstance
from coschedule.swf import DaySet, SwfTrace, day_sets, read_swf, trace_instance

#: the Parallel Workloads Archive logs shipped with the repository (instances/traces/README.md)
TRACES = Path(__file__).resolve().parents[2] / "instances" / "traces"


def job(
    number: int, submit: float, run: float, procs: int, *, req: int = -1, status: int = 1
) -> str:
    """One SWF line: the 18 fields, with -1 for everything not given."""
    fields = [number, submit, -1, run, procs, -1, -1, req, -1, -1, status] + [-1] * 7
    return " ".join(str(f) for f in fields)


def write(tmp_path: Path, text: str, name: str = "tiny.swf", *, gz: bool = False) -> Path:
    path = tmp_path / name
    data = text.encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def trace_of(tmp_path: Path, header: str, *jobs: str) -> SwfTrace:
    return read_swf(write(tmp_path, header + "".join(j + "\n" for j in jobs)))


def need_zone(name: str) -> None:
    try:
        ZoneInfo(name)
    except ZoneInfoNotFoundError:
        pytest.skip(f"time zone {name} not available (no system zoneinfo or tzdata package)")


HEADER = """\
; Version: 2.2
; Computer: Tiny test machine
; Information: http://example.org/
;              http://example.org/other
; MaxNodes: 8
; MaxProcs: 16
; UnixStartTime: 836000000
; TimeZoneString: Europe/Stockholm
; Note: first note
; Note: second note
;
"""
JOBS = [
    job(1, 0, 100, 4),
    job(2, 10, 50.5, -1, req=2),  # field 5 unknown: the requested 2 processors
    job(3, 20, -1, 8, status=0),  # run time unknown: not usable
]


# ---------------------------------------------------------------- header and parsing


@pytest.mark.parametrize("gz", [False, True])
def test_header_and_columns(tmp_path: Path, gz: bool) -> None:
    text = HEADER + "\n".join(JOBS) + "\n"
    trace = read_swf(write(tmp_path, text, "tiny.swf.gz" if gz else "tiny.swf", gz=gz))
    h = trace.header
    assert (h.max_procs, h.max_nodes, h.unix_start, h.time_zone) == (
        16,
        8,
        836000000,
        "Europe/Stockholm",
    )
    assert h.fields["Computer"] == "Tiny test machine"
    assert h.fields["Note"] == "first note"  # first occurrence
    assert h.fields["Information"] == "http://example.org/"
    assert "http" not in h.fields  # a continuation line is not a key
    assert trace.n == 3
    assert trace.number.tolist() == [1, 2, 3]
    assert trace.submit.tolist() == [0.0, 10.0, 20.0]
    assert trace.run.tolist() == [100.0, 50.5, -1.0]
    assert trace.procs.tolist() == [4, 2, 8]
    assert trace.status.tolist() == [1, 1, 0]
    assert trace.lines.tolist() == [12, 13, 14]
    assert trace.number.dtype == np.int64 and trace.procs.dtype == np.int64
    assert trace.submit.dtype == np.float64 and trace.run.dtype == np.float64
    assert trace.machine_size() == 16
    with pytest.raises(ValueError):
        trace.procs[0] = 5  # read-only


def test_gzip_detected_by_content_and_blank_lines_skipped(tmp_path: Path) -> None:
    text = "; MaxProcs: 4\n\n" + job(7, 0, 1, 1) + "\n   \n" + job(8, 1, 1, 1) + "\n"
    trace = read_swf(write(tmp_path, text, "no-suffix.swf", gz=True))
    assert trace.number.tolist() == [7, 8]
    assert trace.lines.tolist() == [3, 5]


def test_machine_size_fallbacks(tmp_path: Path) -> None:
    assert trace_of(tmp_path, "; MaxNodes: 6\n", job(1, 0, 1, 2)).machine_size() == 6
    assert (
        trace_of(tmp_path, "; MaxProcs: -1\n", job(1, 0, 1, 2), job(2, 0, 1, 5)).machine_size() == 5
    )
    with pytest.raises(FormatError, match="no machine size"):
        trace_of(tmp_path, "", job(1, 0, 1, -1)).machine_size()


# ---------------------------------------------------------------- located errors


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (job(2, 5, 10, 1) + " 0", "expected 18 fields, found 19"),
        (" ".join(job(2, 5, 10, 1).split()[:17]), "expected 18 fields, found 17"),
        (job(2, 5, 10, 1).replace(" 10 ", " abc ", 1), "field 4 (run time) is not a number: 'abc'"),
        (
            job(2, 5, 10, 1).replace(" 10 ", " nan ", 1),
            "field 4 (run time) is not a finite number: 'nan'",
        ),
        (
            job(2, 5, 10, 1).replace(" 10 ", " inf ", 1),
            "field 4 (run time) is not a finite number: 'inf'",
        ),
        (job(2, 5, 10, 1).replace(" 10 ", " 1_0 ", 1), "field 4 (run time) is not a number: '1_0'"),
        (
            job(2, 5, 10, 3).replace(" 3 ", " 3.5 ", 1),
            "field 5 (allocated processors) is not an integer: '3.5'",
        ),
        (
            job(2, 5, 10, 1, status=7).replace(" 7 ", " x7 ", 1),
            "field 11 (status) is not a number: 'x7'",
        ),
        (job(2, -5, 10, 1), "field 2 (submit time) is negative: -5"),
    ],
)
def test_malformed_line_is_located(tmp_path: Path, bad: str, message: str) -> None:
    text = "; MaxProcs: 4\n;\n" + job(1, 0, 1, 1) + "\n" + bad + "\n" + job(3, 9, 1, 1) + "\n"
    path = write(tmp_path, text)
    with pytest.raises(FormatError) as info:
        read_swf(path)
    assert str(info.value) == f"{path}:4: {message}"


def test_first_bad_line_is_reported(tmp_path: Path) -> None:
    lines = [job(i, i, 1, 1) for i in range(1, 10)]
    lines[5] = lines[5].replace(" 1 ", " ? ", 1)  # line 6
    lines[7] = lines[7] + " 3"  # line 8
    path = write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(FormatError, match=r"tiny\.swf:6: field \d+ \(.*\) is not a number: '\?'"):
        read_swf(path)


def test_bad_header_integer(tmp_path: Path) -> None:
    path = write(tmp_path, "; Version: 2.2\n; MaxProcs: many\n" + job(1, 0, 1, 1) + "\n")
    with pytest.raises(
        FormatError, match=r"tiny\.swf:2: header MaxProcs is not an integer: 'many'"
    ):
        read_swf(path)


@pytest.mark.parametrize("text", ["", "; MaxProcs: 4\n;\n\n"])
def test_no_jobs(tmp_path: Path, text: str) -> None:
    with pytest.raises(FormatError, match=r"tiny\.swf: no jobs"):
        read_swf(write(tmp_path, text))


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match=r"nope\.swf\.gz: no such file"):
        read_swf(tmp_path / "nope.swf.gz")
    with pytest.raises(FormatError, match="is a directory"):
        read_swf(tmp_path)


def test_corrupt_gzip(tmp_path: Path) -> None:
    data = gzip.compress(
        ("; MaxProcs: 4\n" + "\n".join(job(i, i, 5, 2) for i in range(1, 200))).encode()
    )
    truncated = tmp_path / "truncated.swf.gz"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(FormatError, match=r"truncated\.swf\.gz: corrupt gzip data"):
        read_swf(truncated)
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0xFF
    damaged = tmp_path / "damaged.swf.gz"
    damaged.write_bytes(bytes(flipped))
    with pytest.raises(FormatError, match=r"damaged\.swf\.gz: corrupt gzip data"):
        read_swf(damaged)
    plain = write(tmp_path, job(1, 0, 1, 1) + "\n", "plain.swf.gz")
    with pytest.raises(FormatError, match=r"plain\.swf\.gz: not a gzip file"):
        read_swf(plain)


# ---------------------------------------------------------------- day sets


def test_utc_midnight_boundary(tmp_path: Path) -> None:
    trace = trace_of(
        tmp_path, "; MaxProcs: 4\n; UnixStartTime: 0\n", job(1, 86399, 5, 1), job(2, 86400, 5, 1)
    )
    sets = list(day_sets(trace))
    assert [(d.day, d.date, d.instance.n) for d in sets] == [
        (0, "1970-01-01", 1),
        (1, "1970-01-02", 1),
    ]
    assert [j.name for d in sets for j in d.instance.jobs] == ["job1", "job2"]
    assert [d.instance.name for d in sets] == ["tiny-day000", "tiny-day001"]


def test_no_start_time_uses_submit_days(tmp_path: Path) -> None:
    trace = trace_of(
        tmp_path, "; MaxProcs: 4\n", job(1, 0, 5, 1), job(2, 86399.5, 5, 1), job(3, 3 * 86400, 5, 1)
    )
    sets = list(day_sets(trace))
    assert [(d.day, d.date, d.instance.n) for d in sets] == [(0, "", 2), (3, "", 1)]


def test_local_date_differs_from_utc(tmp_path: Path) -> None:
    """UnixStartTime 0 is 1969-12-31 19:00 in New York: local days differ from UTC days."""
    need_zone("America/New_York")
    jobs = (job(1, 5 * 3600 - 1, 5, 1), job(2, 5 * 3600, 5, 1))  # 23:59:59 and 00:00 local
    local = trace_of(
        tmp_path, "; MaxProcs: 4\n; UnixStartTime: 0\n; TimeZoneString: America/New_York\n", *jobs
    )
    assert [(d.day, d.date) for d in day_sets(local)] == [(0, "1969-12-31"), (1, "1970-01-01")]
    utc = trace_of(tmp_path, "; MaxProcs: 4\n; UnixStartTime: 0\n", *jobs)
    assert [(d.day, d.date, d.instance.n) for d in day_sets(utc)] == [(0, "1970-01-01", 2)]


def test_daylight_saving_day_has_23_hours(tmp_path: Path) -> None:
    """Stockholm, 1996-03-31: clocks jump 02:00 -> 03:00, so that day ends 23 h after midnight."""
    need_zone("Europe/Stockholm")
    tz = ZoneInfo("Europe/Stockholm")
    start = int(datetime(1996, 3, 31, tzinfo=tz).timestamp())
    assert start == int(datetime(1996, 3, 30, 23, tzinfo=UTC).timestamp())
    header = f"; MaxProcs: 4\n; UnixStartTime: {start}\n; TimeZoneString: Europe/Stockholm\n"
    trace = trace_of(tmp_path, header, job(1, 23 * 3600 - 1, 5, 1), job(2, 23 * 3600, 5, 1))
    assert [(d.day, d.date) for d in day_sets(trace)] == [(0, "1996-03-31"), (1, "1996-04-01")]


def test_unknown_time_zone_falls_back_to_utc_with_warning(tmp_path: Path) -> None:
    header = "; MaxProcs: 4\n; UnixStartTime: 0\n; TimeZoneString: Mars/Olympus_Mons\n"
    trace = trace_of(tmp_path, header, job(1, 86400, 5, 1))
    with pytest.warns(UserWarning, match="Mars/Olympus_Mons"):
        sets = list(day_sets(trace))
    assert [(d.day, d.date) for d in sets] == [(1, "1970-01-02")]


def _week(tmp_path: Path) -> SwfTrace:
    """Day d (0..6) has d + 1 usable jobs and one dropped job on odd days."""
    lines = []
    number = 0
    for d in range(7):
        for k in range(d + 1):
            number += 1
            lines.append(job(number, d * 86400 + k, 10 + k, 1 + k % 4, status=[1, 0, 5][k % 3]))
        if d % 2:
            number += 1
            lines.append(job(number, d * 86400 + 50, 0, 2))  # zero run time
    return trace_of(tmp_path, "; MaxProcs: 4\n; UnixStartTime: 0\n", *lines)


def test_min_jobs_days_first_day(tmp_path: Path) -> None:
    trace = _week(tmp_path)
    assert [d.day for d in day_sets(trace)] == list(range(7))
    assert [d.day for d in day_sets(trace, min_jobs=4)] == [3, 4, 5, 6]
    assert [d.day for d in day_sets(trace, min_jobs=4, days=2)] == [3, 4]
    assert [d.day for d in day_sets(trace, first_day=5)] == [5, 6]
    assert [d.day for d in day_sets(trace, first_day=2, min_jobs=5, days=1)] == [4]
    assert list(day_sets(trace, days=0)) == []
    assert list(day_sets(trace, first_day=7)) == []
    for bad in ({"min_jobs": 0}, {"days": -1}, {"first_day": -1}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            day_sets(trace, **bad)


def test_dropped_counts_and_status_kept(tmp_path: Path) -> None:
    sets = list(day_sets(_week(tmp_path)))
    assert [d.instance.n for d in sets] == [1, 2, 3, 4, 5, 6, 7]
    assert [d.dropped for d in sets] == [0, 1, 0, 1, 0, 1, 0]
    # failed (0) and cancelled (5) jobs are kept: day 2 holds statuses 1, 0, 5
    assert [j.time for j in sets[2].instance.jobs] == [10.0, 11.0, 12.0]
    assert sum(d.instance.n + d.dropped for d in sets) == 28 + 3


def test_p_override_and_too_wide_job(tmp_path: Path) -> None:
    trace = trace_of(
        tmp_path,
        "; MaxProcs: 8\n; UnixStartTime: 0\n",
        job(1, 0, 5, 2),
        job(2, 86400, 5, 6),
        job(3, 86401, 0, 7),  # too wide but dropped: no error
    )
    assert [d.instance.P for d in day_sets(trace)] == [8, 8]
    assert [d.instance.P for d in day_sets(trace, P=10)] == [10, 10]
    with pytest.raises(InvalidInstance) as info:
        day_sets(trace, P=4)  # raised at the call, before any set is built
    assert str(info.value) == f"{trace.path}:4: job 2: procs 6 > P 4"
    assert [d.day for d in day_sets(trace, P=4, days=1)] == [0]  # the wide day is not asked for
    with pytest.raises(InvalidInstance, match="P must be a positive integer"):
        day_sets(trace, P=0)


# ---------------------------------------------------------------- the real traces


def trace_file(name: str) -> Path:
    path = TRACES / name
    assert path.is_file(), f"trace {name} is not in {TRACES}; it ships with the repository"
    return path


def job_line_count(path: Path) -> int:
    with gzip.open(path, "rt", encoding="latin-1") as f:
        return sum(1 for line in f if line.strip() and not line.lstrip().startswith(";"))


REAL = [
    # file, machine size (header MaxProcs; lublin has MaxNodes only), job lines
    ("KTH-SP2-1996-2.1-cln.swf.gz", 100, 28476),
    ("LANL-CM5-1994-4.1-cln.swf.gz", 1024, 122060),
    ("NASA-iPSC-1993-3.1-cln.swf.gz", 128, 18239),
    ("HPC2N-subset-3171.swf.gz", 240, 3170),  # 3,170 job lines despite the name
    ("lublin_256.swf.gz", 256, 10000),
]


@pytest.mark.parametrize(("name", "size", "jobs"), REAL)
def test_real_trace_header_and_job_count(name: str, size: int, jobs: int) -> None:
    path = trace_file(name)
    trace = read_swf(path)
    assert trace.machine_size() == size
    assert trace.n == jobs == job_line_count(path)
    assert (trace.lines[1:] > trace.lines[:-1]).all()


@pytest.mark.parametrize(("name", "size", "jobs"), REAL)
def test_real_trace_day_sets_partition_the_jobs(name: str, size: int, jobs: int) -> None:
    """Every job is in exactly one day-set or counted once as dropped; every set is valid.

    With ``min_jobs=1``: KTH-SP2 has 334 day-sets, 85.2 jobs per day on average (8 to 291);
    LANL-CM5 has 720, 169.5 per day (1 to 956).
    """
    trace = read_swf(trace_file(name))
    sets = list(day_sets(trace))
    assert all(isinstance(d, DaySet) for d in sets)
    assert [d.day for d in sets] == sorted({d.day for d in sets})
    names = [j.name for d in sets for j in d.instance.jobs]
    usable = (trace.run > 0) & (trace.procs > 0)
    assert len(names) == len(set(names)) == int(usable.sum())
    assert set(names) == {f"job{n}" for n in trace.number[usable].tolist()}
    assert sum(d.instance.n + d.dropped for d in sets) == trace.n
    for d in sets:
        assert d.instance.P == size
        assert (d.instance.procs >= 1).all() and (d.instance.procs <= size).all()
        assert (d.instance.times > 0).all()
    if name.startswith("KTH"):
        assert (len(sets), sets[0].day, sets[0].date) == (334, 7, "1996-09-30")
    if name.startswith("LANL"):
        assert (len(sets), sets[0].date, sets[-1].date) == (720, "1994-10-04", "1996-09-24")


def test_kth_days_follow_stockholm_midnight() -> None:
    """Each KTH job's day-set date is the Stockholm date of its submission."""
    need_zone("Europe/Stockholm")
    trace = read_swf(trace_file("KTH-SP2-1996-2.1-cln.swf.gz"))
    tz = ZoneInfo("Europe/Stockholm")
    start = trace.header.unix_start
    assert start == 843480031
    expected = {
        f"job{n}": datetime.fromtimestamp(start + s, tz).date().isoformat()
        for n, s in zip(trace.number.tolist(), trace.submit.tolist())
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for d in day_sets(trace):
            assert {expected[j.name or ""] for j in d.instance.jobs} == {d.date}


def test_trace_instance_is_every_day_set_or_one_of_them():
    """The whole log as one instance holds exactly the jobs of all its day-sets; one day is
    that day's set."""
    trace = read_swf(TRACES / "KTH-SP2-1996-2.1-cln.swf.gz")
    whole = trace_instance(trace)
    sets = list(day_sets(trace))
    assert whole.P == trace.machine_size() == 100
    assert whole.n == sum(d.instance.n for d in sets)
    assert sorted(j.name for j in whole.jobs) == sorted(j.name for d in sets for j in d.instance.jobs)
    usable = (trace.run > 0) & (trace.procs > 0)
    assert [j.procs for j in whole.jobs] == trace.procs[usable].tolist()  # file order
    day = sets[3]
    assert trace_instance(trace, day=day.day) == day.instance
    with pytest.raises(InvalidInstance, match="day 0 has no usable job"):
        trace_instance(trace, day=0)  # the KTH log's first jobs are on day 7
    with pytest.raises(InvalidInstance, match=r"swf.gz:160: job 150: procs 79 > P 64"):  # the first too wide
        trace_instance(trace, P=64)
