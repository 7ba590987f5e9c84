"""``coschedule simulate`` with local workers, stopped by hand or by the system.

* a first Ctrl-C says at once how many started cells it finishes, saves them, and exits 130;
* a second Ctrl-C stops within 2 s, saved cells kept;
* SIGTERM stops within 2 s with exit 143;
* ``kill -9`` of the main process takes its workers with it (Linux: a parent-death signal).

In every case no process the command started is left (the workers, multiprocessing's resource
tracker). A campaign of Mira-like months (``du2024-stealing``, 36 cells of 1-3 s) keeps both
workers busy when the signal comes.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

CELLS = 36


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.add(int(entry))
    return out


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                state = fh.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":  # a zombie has exited
            alive.add(pid)
    return alive


def _count(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM cells").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


class Run:
    """``coschedule simulate du2024-stealing`` in its own session, stderr read line by line."""

    def __init__(self, tmp_path: Path, *where: str) -> None:
        self.db = tmp_path / "run.sqlite"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "coschedule", "simulate", "du2024-stealing", "--db", str(self.db),
             *(where or ("--workers", "2")), "--log-interval", "600"], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            text=True, start_new_session=True)
        self.lines: list[tuple[float, str]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        deadline = time.monotonic() + 240  # a first run in a fresh clone compiles the kernels
        while _count(self.db) < 2 and time.monotonic() < deadline and self.proc.poll() is None:
            time.sleep(0.05)
        assert self.proc.poll() is None and _count(self.db) >= 2, self.text()
        self.workers = _children(self.proc.pid)
        assert len(self.workers) >= (0 if where else 2), self.workers  # two workers, the resource tracker

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append((time.monotonic(), line.rstrip("\n")))

    def text(self) -> str:
        return "\n".join(line for _, line in self.lines)

    def wait_line(self, part: str, within: float) -> float:
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            for t, line in self.lines:
                if part in line:
                    return t
            time.sleep(0.02)
        raise AssertionError(f"no line with {part!r} within {within} s:\n{self.text()}")

    def end(self, within: float) -> int:
        code = self.proc.wait(timeout=within)
        self._reader.join(5)
        return code

    def assert_no_process_left(self) -> None:
        deadline = time.monotonic() + 2
        while _alive(self.workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(self.workers), f"left running: {_alive(self.workers)}"


def test_first_ctrl_c_finishes_the_started_cells_and_saves_them(tmp_path: Path) -> None:
    run = Run(tmp_path)
    before = _count(run.db)
    sent = time.monotonic()
    os.killpg(run.proc.pid, signal.SIGINT)  # as a terminal does: the whole group
    said = run.wait_line("Ctrl-C: finishing the", 1.5)
    assert said - sent < 1.5
    assert run.end(120) == 130
    saved = _count(run.db)
    assert before <= saved < CELLS
    last = run.lines[-1][1]
    assert last == (f"coschedule simulate: interrupted; {saved} of {CELLS} cells saved in {run.db}; "
                    "run the same command again to resume"), run.text()
    assert "Traceback" not in run.text()
    run.assert_no_process_left()


def test_a_second_ctrl_c_stops_within_2_s(tmp_path: Path) -> None:
    run = Run(tmp_path)
    os.killpg(run.proc.pid, signal.SIGINT)
    run.wait_line("Ctrl-C: finishing the", 1.5)
    time.sleep(0.2)
    sent = time.monotonic()
    os.killpg(run.proc.pid, signal.SIGINT)
    assert run.end(10) == 130
    assert time.monotonic() - sent < 2.0
    assert run.lines[-1][1].startswith("coschedule simulate: interrupted; "), run.text()
    assert "Traceback" not in run.text() and "Exception ignored" not in run.text()
    run.assert_no_process_left()
    with sqlite3.connect(run.db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_sigterm_stops_within_2_s_with_143(tmp_path: Path) -> None:
    run = Run(tmp_path)
    sent = time.monotonic()
    run.proc.terminate()  # the main process only, as a batch system or `kill PID` does
    assert run.end(10) == 143
    assert time.monotonic() - sent < 2.0
    saved = _count(run.db)
    assert run.lines[-1][1].startswith(f"coschedule simulate: terminated; {saved} of {CELLS} cells saved"), run.text()
    run.assert_no_process_left()


def test_kill_9_of_the_main_process_leaves_no_worker(tmp_path: Path) -> None:
    run = Run(tmp_path)
    run.proc.kill()  # SIGKILL to the main process alone: no handler, no cleanup
    run.end(10)
    deadline = time.monotonic() + 5
    while _alive(run.workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(run.workers), f"orphans: {_alive(run.workers)}"


def test_dask_first_ctrl_c_finishes_the_submitted_cells_second_cancels_them(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        run = Run(tmp_path, "--dask", cluster.scheduler_address)
        os.killpg(run.proc.pid, signal.SIGINT)
        run.wait_line("Ctrl-C: finishing the", 1.5)
        time.sleep(0.2)
        sent = time.monotonic()
        os.killpg(run.proc.pid, signal.SIGINT)
        assert run.end(10) == 130
        assert time.monotonic() - sent < 2.0
        assert run.lines[-1][1].startswith("coschedule simulate: interrupted; "), run.text()
        deadline = time.monotonic() + 5  # the cancelled cells leave the cluster
        while any(client.processing().values()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(client.processing().values())
