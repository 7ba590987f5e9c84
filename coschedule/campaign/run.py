"""Running a campaign: cells to workers (local processes or a Dask cluster), rows to the store.

The main process walks the grid lazily (:meth:`CampaignSpec.cells`), skips the cells already in
the database, keeps a bounded number of cells in flight, and writes each result as it arrives.
A cell's numbers depend only on the cell (its seeds are derived from its values), so the
backend, the number of workers and the completion order change nothing but the wall time.
The same holds for every simulator: a worker runs :func:`simulate_cell`, which hands the cell to
the simulator it belongs to (:mod:`.simulators`).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, TextIO

from coschedule.errors import CampaignError, SolverUnavailable
from coschedule.signals import Terminated

from .progress import HAVE_NUMBA, Progress, total_cost
from .spec import CampaignSpec
from .store import ResultStore

__all__ = ["HAVE_NUMBA", "NO_NUMBA_NOTE", "Progress", "RunSummary", "run_campaign", "simulate_cell"]


#: prctl's request for a signal when the parent process ends (linux/prctl.h)
_PR_SET_PDEATHSIG = 1

#: how long ``--dask ADDRESS`` waits for the scheduler before giving up
DASK_CONNECT_TIMEOUT = "10s"

#: what ``coschedule simulate`` prints (once, on stderr) when numba is missing
NO_NUMBA_NOTE = (
    "note: numba is not installed, so the heuristics run the reference code, about 50 times slower; "
    "install the fast extra: pip install \"coschedule-hpc[fast]\" (or pip install -e \".[fast]\" from a clone)"
)


def simulate_cell(cell: Any, backend: str = "auto") -> dict[str, Any]:
    """Simulate one cell of any simulator (its ``simulator`` attribute); the row the store keeps."""
    from coschedule.campaign.registry import get_simulator

    return get_simulator(cell.simulator).simulate(cell, backend)


# ---------------------------------------------------------------------------------- running


@dataclass
class RunSummary:
    db: str
    cells: int  # in the grid
    skipped: int  # already in the database
    computed: int  # by this run
    seconds: float  # wall time of this run
    backend: str
    workers: int
    peak_rss_mb: float | None = None  # this process
    worker_peak_rss_mb: float | None = None  # the largest local worker process

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _todo(spec: Any, done: set[str], skipped: list[int]) -> Iterator[Any]:
    for cell in spec.cells():
        if cell.id in done:
            skipped[0] += 1
            continue
        yield cell


def run_campaign(
    spec: CampaignSpec | Any,
    db: str,
    *,
    workers: int | None = None,
    dask: str | Any | None = None,
    progress: bool = False,
    backend: str = "auto",
    on_row: Callable[[dict[str, Any]], None] | None = None,
    max_cells: int | None = None,
    progress_stream: TextIO | None = None,
    log_interval: float = 10.0,
) -> RunSummary:
    """Run (or resume) ``spec`` into the SQLite file ``db``.

    Parameters
    ----------
    spec
        A campaign spec of any simulator: a :class:`CampaignSpec` (rigid) or a
        :class:`~coschedule.campaign.simulators.batch.adapter.BatchSpec`.
    workers
        Local worker processes (default: every core); 1 runs the cells in this process.
    dask
        The address of a running Dask scheduler (``tcp://host:port``), or a
        ``distributed.Client``; the cells then run on its workers (``workers`` is ignored).
    progress
        Show progress on ``progress_stream`` (default stderr): a bar refreshed twice a second
        when it is a terminal, else one plain line every ``log_interval`` seconds (no escape
        codes); the ETA is weighted by each cell's estimated cost
        (:func:`coschedule.campaign.progress.cell_cost`).
    backend
        Rigid campaigns: passed to :func:`coschedule.heuristics.fast.makespans` (the numbers do
        not depend on it).
    max_cells
        Stop after computing this many cells (the rest stays for a later run; for tests).
    """
    spec = spec.normalized()
    spec.check()
    client = _dask_client(dask) if dask is not None else None  # reach it before creating the file
    try:
        show = Progress.options(progress, progress_stream, log_interval)
        return _run(spec, db, client, workers, show, backend, on_row, max_cells)
    finally:
        if client is not None and isinstance(dask, str):
            client.close()


def _run(spec: Any, db: str, client: Any, workers: int | None, show: dict[str, Any], backend: str,
         on_row: Callable[[dict[str, Any]], None] | None, max_cells: int | None) -> RunSummary:
    from coschedule.campaign.registry import get_simulator

    with ResultStore.create_or_resume(db, spec) as store:
        total = spec.n_cells()
        done_ids = set(store.ids())
        costs: dict[str, float] = {}
        if show["mode"] != "off":
            costs = get_simulator(spec.simulator).costs(spec, HAVE_NUMBA and backend != "reference") or {}
        bar = Progress(total, sum(costs.values()) if costs else None, done=len(done_ids),
                       done_cost=total_cost(costs, done_ids) if costs else None,
                       label=f"simulate {spec.name}", **show)
        skipped = [0]
        todo: Iterator[Any] = _todo(spec, done_ids, skipped)
        if max_cells is not None:
            todo = _take(todo, max_cells)
        computed = [0]

        def record(row: dict[str, Any]) -> None:
            store.add(row)
            computed[0] += 1
            bar.update(costs.get(row["id"], 1.0) if costs else None)
            if on_row is not None:
                on_row(row)

        t0 = time.perf_counter()
        try:
            if client is not None:
                _check_workers(client, getattr(spec, "policy_sources", ()))
                name, nworkers = "dask", _run_dask(todo, client, backend, record, bar.say)
            else:
                nworkers = workers or os.cpu_count() or 1
                name = "local"
                if nworkers == 1:
                    for cell in todo:
                        record(simulate_cell(cell, backend))
                else:
                    _run_pool(todo, nworkers, backend, record, bar.say)
        finally:
            bar.close()
        return RunSummary(db, total, skipped[0], computed[0], time.perf_counter() - t0, name, nworkers,
                          *_peak_rss_mb())


def _take(it: Iterator[Any], k: int) -> Iterator[Any]:
    """The next ``k`` cells of ``it``, pulling no more than ``k`` from it."""
    return itertools.islice(it, k)


def _run_pool(todo: Iterator[Any], workers: int, backend: str, record: Callable[[dict[str, Any]], None],
              say: Callable[[str], None]) -> None:
    """The cells on ``workers`` local processes. Ctrl-C: no new cell starts, the cells already
    started finish and are saved (``say`` tells how many, at once); a second Ctrl-C, or SIGTERM
    (:class:`coschedule.signals.Terminated`), stops the workers at once. No worker outlives this
    function, nor this process (:func:`_worker_start`)."""
    import multiprocessing as mp

    limit = 2 * workers + 2  # cells in flight: enough to keep every worker busy, few to lose
    ex = ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"),
                             initializer=_worker_start, initargs=(os.getpid(),))
    pending: set[Future[dict[str, Any]]] = set()
    try:
        exhausted = False
        while True:
            while not exhausted and len(pending) < limit:
                cell = next(todo, None)
                if cell is None:
                    exhausted = True
                else:
                    with _sigint_blocked():  # a worker started here inherits the blocked mask
                        pending.add(ex.submit(simulate_cell, cell, backend))
            if not pending:
                break
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in finished:
                record(fut.result())
    except KeyboardInterrupt as stop:
        if not isinstance(stop, Terminated):
            try:
                _finish_started(pending, record, say)
            except BaseException:
                _stop_now(ex)
                raise
        _stop_now(ex)
        raise
    except BaseException:
        _stop_now(ex)
        raise
    ex.shutdown(wait=True)


def _finish_started(pending: set[Future[dict[str, Any]]], record: Callable[[dict[str, Any]], None],
                    say: Callable[[str], None]) -> None:
    """After a first Ctrl-C: cancel the cells no worker has taken, save those that were taken
    as they end."""
    started = {f for f in pending if not f.cancel()}  # running, or queued to a worker, or done
    say(f"Ctrl-C: finishing the {len(started)} cell{'s' if len(started) != 1 else ''} already started, "
        "each saved as it ends (Ctrl-C again stops now)")
    while started:
        finished, started = wait(started, return_when=FIRST_COMPLETED)
        for fut in finished:
            record(fut.result())


def _stop_now(ex: ProcessPoolExecutor) -> None:
    """Stop the workers now (a second Ctrl-C, SIGTERM, an error): their running cells are lost,
    nothing saved is; every worker has exited when this returns (killed after 1 s if need be)."""
    procs = list((getattr(ex, "_processes", None) or {}).values())
    ex.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        with contextlib.suppress(OSError, ValueError):  # already gone
            p.terminate()
    deadline = time.monotonic() + 1.0
    for p in procs:
        with contextlib.suppress(OSError, ValueError, AssertionError):
            p.join(max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join(1.0)


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """Block SIGINT in this thread while workers may be started (POSIX; elsewhere nothing).

    Ctrl-C reaches the whole process group: the main process stops the pool and says how to
    resume; a worker must neither print a traceback nor die mid-cell on its own. A worker is
    started with SIGINT blocked (the mask is inherited) and ignores it before unblocking
    (:func:`_worker_start`), so no instant of its start-up can be interrupted. A SIGINT
    that arrives meanwhile in the main process is delivered when the block ends.
    """
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _worker_start(parent: int) -> None:
    """Pool initializer: die with the parent (Linux: the kernel sends SIGKILL when the parent
    ends, however it ends, ``kill -9`` included), ignore Ctrl-C (the main process handles it:
    the worker finishes its cell), then unblock it."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != parent:  # the parent was gone before the request
                os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _dask_client(dask: str | Any) -> Any:
    """A client of the scheduler at ``dask`` (an address), or ``dask`` itself (a client)."""
    if not isinstance(dask, str):
        return dask
    try:
        from distributed import Client
    except ImportError:
        raise SolverUnavailable("--dask needs dask.distributed: pip install 'coschedule[dask]'") from None
    try:
        return Client(dask, timeout=DASK_CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as e:  # ValueError: not an address (no port, no scheme)
        raise SolverUnavailable(f"cannot reach the Dask scheduler at {dask}: {e}") from None


def _check_workers(client: Any, sources: Any) -> None:
    """Before the first cell: every Dask worker can load the users' policies named by module or
    entry point (a file's text travels in the cells). A one-line error names a worker that cannot."""
    from coschedule.plugins import check_importable

    for src in sources:
        if src.origin == "file":
            continue
        for address, why in sorted(client.run(check_importable, src).items()):
            if why:
                raise CampaignError(f"Dask worker {address} cannot load the policy {src.ref!r}: {why} "
                                    "(install it there, or name the policy by its file: FILE.py:CLASS)")


def _run_dask(todo: Iterator[Any], client: Any, backend: str, record: Callable[[dict[str, Any]], None],
              say: Callable[[str], None]) -> int:
    """The cells on a Dask cluster; Ctrl-C as :func:`_run_pool` (the cells submitted finish and
    are saved; a second Ctrl-C, or SIGTERM, cancels them)."""
    from distributed import as_completed

    nworkers = max(1, sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values()))
    limit = 2 * nworkers + 2
    first = [client.submit(simulate_cell, c, backend, pure=False) for c in _take(todo, limit)]
    queue = as_completed(first)
    try:
        for fut in queue:
            row = fut.result()
            fut.release()
            record(row)
            nxt = next(todo, None)
            if nxt is not None:
                queue.add(client.submit(simulate_cell, nxt, backend, pure=False))
    except KeyboardInterrupt as stop:
        if isinstance(stop, Terminated):
            client.cancel(list(queue.futures))
            raise
        say(f"Ctrl-C: finishing the {queue.count()} cells submitted, each saved as it ends (Ctrl-C again stops now)")
        try:
            for fut in queue:  # nothing new is submitted
                row = fut.result()
                fut.release()
                record(row)
        except BaseException:
            client.cancel(list(queue.futures))
            raise
        raise
    return nworkers


def _peak_rss_mb() -> tuple[float | None, float | None]:
    """Peak resident memory of this process and of its largest finished child, in MiB (Linux)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return None, None
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return round(me / 1024, 1), (round(kids / 1024, 1) if kids else None)
