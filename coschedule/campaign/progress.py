"""Progress of a campaign: a bar on a terminal, a log line every minute elsewhere, and an ETA
weighted by what each cell costs.

The cells of a campaign differ in cost by four orders of magnitude (R-List-Q at ``qbar = 0.9``
against a shelf heuristic at ``qbar = 0``), and the costliest run first, so an ETA that counts
cells is off by a factor of 30 at the start. :func:`cell_cost` estimates each cell's cost from
numbers the main process has without simulating anything (see its docstring), and the ETA is
the estimated work left divided by the rate at which estimated work has been done so far.

:class:`Progress` draws, on a terminal (``stream.isatty()``), a `tqdm <https://tqdm.github.io>`_
bar refreshed from a timer every half second (so it moves between cells and shows the elapsed
time from the start, before the first cell completes); on anything else (a batch job's log, a
pipe, ``nohup``, a ``StringIO``) it writes no escape code and no carriage return, only one plain
line every ``log_interval`` seconds (60 by default) and one at the end.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
import time
from collections.abc import Iterable
from typing import Any, Self, TextIO

__all__ = ["HAVE_NUMBA", "HEURISTIC_WEIGHTS", "REFERENCE_WEIGHTS", "Progress", "campaign_costs", "cell_cost"]

#: numba can be imported here, so local workers run the compiled kernels of
#: :mod:`coschedule.heuristics.fast` (found without importing numba: the main process stays small);
#: without it they run the reference code, about 50 times slower (which the cost estimate weighs)
HAVE_NUMBA = importlib.util.find_spec("numba") is not None

#: microseconds per attempt and scenario of the numba kernels (``heuristics.fast``), measured on
#: the §5.1 setting (100 jobs, P = 10000) on the 2-core reference machine; the kept-reservation
#: variants have no kernel and run the reference code. R-ShelfFill's ``refill`` variants
#: (``-failed``, ``-queue``) scan the queue at every completion inside a shelf: their kernels cost
#: 3 times Alg. 3's CPU at ``qbar = 0.3`` and 5 times at ``qbar = 0.9`` (docs/reproduce.md, Fig. 4;
#: a check on one §5.1 set gave 5 to 10 times at both), so they weigh 5 times ``r-shelffill-b``'s
#: 0.15, the ratio of the high-``qbar`` cells, which hold most of a campaign's work
HEURISTIC_WEIGHTS: dict[str, float] = {
    "r-list-0": 0.4,
    "r-list-1": 0.9,
    "r-list-q": 5.0,
    "r-shelf-b": 0.15,
    "r-shelf-nb": 0.15,
    "r-shelffill-b": 0.15,
    "r-shelffill-nb": 0.15,
    "r-shelffill-b-failed": 0.75,
    "r-shelffill-nb-failed": 0.75,
    "r-shelffill-b-queue": 0.75,
    "r-shelffill-nb-queue": 0.75,
    "r-list-1-kept": 13.0,
    "r-list-q-kept": 110.0,
}
#: the same for the reference implementation (no numba): about 15 to 40 times slower (the
#: ``refill`` variants: about 9 times, as their reference code costs about twice Alg. 3's, 1.5 to
#: 2 times on one §5.1 set at ``qbar`` = 0.3 and 0.9, where their kernels cost 5 times)
REFERENCE_WEIGHTS: dict[str, float] = {
    "r-list-0": 6.6,
    "r-list-1": 13.0,
    "r-list-q": 110.0,
    "r-shelf-b": 3.3,
    "r-shelf-nb": 3.3,
    "r-shelffill-b": 3.3,
    "r-shelffill-nb": 3.3,
    "r-shelffill-b-failed": 6.6,
    "r-shelffill-nb-failed": 6.6,
    "r-shelffill-b-queue": 6.6,
    "r-shelffill-nb-queue": 6.6,
    "r-list-1-kept": 13.0,
    "r-list-q-kept": 110.0,
}
#: seconds per cell (instance, seeds, the row) and per scenario (sampling it, computing L(f))
CELL_OVERHEAD = 5e-3
SCENARIO_OVERHEAD = 5e-5


def cell_cost(heuristic: str, n: int, expected_attempts: float, scenarios: int, *, numba: bool = True) -> float:
    """Estimated seconds (one core) to simulate one cell.

    ``CELL_OVERHEAD + scenarios * (SCENARIO_OVERHEAD + expected_attempts * w)`` where ``w`` is the
    heuristic's cost per attempt (:data:`HEURISTIC_WEIGHTS`, or :data:`REFERENCE_WEIGHTS` without
    numba; for R-List-Q, whose rounds redo reservations along the queue, times ``n / 100``) and
    ``expected_attempts = n + sum_j q_j / (1 - q_j)`` the expected executions of one scenario
    (:func:`coschedule.campaign.spec.expected_failures`). Only the ratios between cells matter
    for the ETA; on the §5.1 setting the estimate is within a factor of about 2 of measured
    cells, against a factor of 1000 between the cheapest and the costliest.
    """
    weights = HEURISTIC_WEIGHTS if numba else REFERENCE_WEIGHTS
    w = weights.get(heuristic, max(weights.values()))
    if heuristic.startswith("r-list-q"):
        w *= max(n, 1) / 100
    return CELL_OVERHEAD + scenarios * (SCENARIO_OVERHEAD + expected_attempts * w * 1e-6)


def campaign_costs(spec: Any, *, numba: bool | None = None) -> dict[str, float]:
    """Cell id -> :func:`cell_cost` for every cell of ``spec`` (a normalized
    :class:`~coschedule.campaign.CampaignSpec`), computed per instance and ``qbar`` (one pass over
    the instances, not over the cells: milliseconds for Fig. 5's 10,500 cells)."""
    from .spec import cell_id, expected_failures

    if numba is None:  # without importing the kernels (and numba) into the main process
        numba = HAVE_NUMBA
    out: dict[str, float] = {}
    for ref in spec.instances():
        inst = ref.instance
        for q in spec.qbar:
            attempts = inst.n + expected_failures(inst, q)
            for h in spec.heuristics:
                c = cell_cost(h, inst.n, attempts, spec.scenarios, numba=numba)
                for P_grid in spec.platforms:
                    for prio in spec.priorities:
                        out[cell_id(ref.key, P_grid, q, h, prio)] = c
    return out


def _clock(seconds: float) -> str:
    s = round(seconds)
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    """Progress of ``total`` cells of estimated total cost ``total_cost`` (any unit).

    ``mode``: ``"auto"`` (a bar if ``stream`` is a terminal, else log lines), ``"bar"``,
    ``"log"`` or ``"off"``. ``done`` cells of cost ``done_cost`` were there before this run
    (resume). Call :meth:`update` as each cell completes and :meth:`close` at the end; the bar
    is redrawn every ``refresh`` seconds, a log line written every ``log_interval`` seconds.
    """

    def __init__(
        self,
        total: int,
        total_cost: float | None = None,
        *,
        done: int = 0,
        done_cost: float | None = None,
        stream: TextIO | None = None,
        mode: str = "auto",
        refresh: float = 0.5,
        log_interval: float = 10.0,
        label: str = "campaign",
        unit: str = "cells",
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        if mode == "auto":
            mode = "bar" if _isatty(self.stream) else "log"
        if mode not in ("bar", "log", "off"):
            raise ValueError(f"progress mode must be auto, bar, log or off, got {mode!r}")
        self.mode = mode
        self.total = total
        self.total_cost = float(total if total_cost is None else total_cost)
        self.start_done = self.done = done
        self.start_cost = self.done_cost = float(done if done_cost is None else done_cost)
        self.refresh = refresh
        self.log_interval = log_interval
        self.label = label
        self.unit = unit
        self.t0 = time.monotonic()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._bar: Any = None
        self._thread: threading.Thread | None = None
        if self.mode == "bar":
            from tqdm import tqdm

            self._bar = tqdm(
                total=max(self.total_cost, 1e-12), initial=self.start_cost, file=self.stream,
                dynamic_ncols=True, leave=True, desc=label, smoothing=0, mininterval=0,
                bar_format="{desc} {percentage:3.0f}%|{bar}| {unit}",
            )
            self._draw()
        if self.mode != "off":
            self._thread = threading.Thread(target=self._tick, name="coschedule-progress", daemon=True)
            self._thread.start()

    @staticmethod
    def options(progress: bool, stream: TextIO | None, log_interval: float) -> dict[str, Any]:
        """The keyword arguments of ``run_campaign(progress=...)``'s progress."""
        if not log_interval > 0:
            raise ValueError(f"log_interval must be > 0 seconds, got {log_interval!r}")
        return {"mode": "auto" if progress else "off", "stream": stream, "log_interval": log_interval}

    # -------------------------------------------------------------------- the numbers

    def eta(self, now: float | None = None) -> float | None:
        """Seconds left: estimated work left over the rate of work done by this run (``None``
        before the first cell of this run completes)."""
        now = time.monotonic() if now is None else now
        done = self.done_cost - self.start_cost
        if done <= 0:
            return None
        rate = done / max(now - self.t0, 1e-9)
        return max(0.0, self.total_cost - self.done_cost) / rate

    def status(self, now: float | None = None, *, short: bool = False) -> str:
        """``123/10500 cells (31.2% of the estimated work), 0:10:00 elapsed, ETA 0:22:03``;
        ``short``, for the bar (which shows the share itself, and is cut at the terminal's
        width): ``123/10500 cells, ETA 0:22:03, 0:10:00 elapsed``."""
        now = time.monotonic() if now is None else now
        eta = self.eta(now)
        if short:
            return (f"{self.done:,}/{self.total:,} {self.unit}, ETA {'?' if eta is None else _clock(eta)}, "
                    f"{_clock(now - self.t0)} elapsed")
        share = 100.0 * self.done_cost / self.total_cost if self.total_cost > 0 else 100.0
        return (f"{self.done:,}/{self.total:,} {self.unit} ({share:.1f}% of the estimated work), "
                f"{_clock(now - self.t0)} elapsed, ETA {'?' if eta is None else _clock(eta)}")

    # --------------------------------------------------------------------- updates

    def update(self, cost: float | None = None, cells: int = 1) -> None:
        """``cells`` more cells done, of estimated cost ``cost`` (default: 1 per cell)."""
        with self._lock:
            self.done += cells
            self.done_cost += float(cells if cost is None else cost)
        if self.mode == "bar":
            self._draw()

    def say(self, text: str) -> None:
        """``LABEL: text`` on the stream now, in every mode ("off" included: what a run says when
        it is stopped is not progress); a bar is cleared around it."""
        with self._lock:
            if self.mode == "bar" and self._bar is not None:
                self._bar.write(f"{self.label}: {text}", file=self.stream)
                return
            self.stream.write(f"{self.label}: {text}\n")
            self.stream.flush()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self.mode == "bar" and self._bar is not None:
            self._draw()
            self._bar.close()
            self._bar = None
        elif self.mode == "log":
            self._log(final=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------- drawing

    def _tick(self) -> None:
        period = self.refresh if self.mode == "bar" else self.log_interval
        while not self._stop.wait(period):
            if self.mode == "bar":
                self._draw()
            else:
                self._log()

    def _draw(self) -> None:
        with self._lock:
            bar = self._bar
            if bar is None:
                return
            bar.n = min(self.done_cost, bar.total)
            bar.unit = self.status(short=True)  # shown by the bar format's {unit}
            bar.refresh()

    def _log(self, final: bool = False) -> None:
        with self._lock:
            text = self.status()
            if final:
                text = f"{text} (done)" if self.done >= self.total else f"{text} (stopped)"
            try:
                self.stream.write(f"{self.label}: {text}\n")
                self.stream.flush()
            except (OSError, ValueError):  # the log went away (closed pipe, closed file)
                self._stop.set()


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def total_cost(costs: dict[str, float], ids: Iterable[str]) -> float:
    """Sum of ``costs`` over ``ids`` (ids unknown to ``costs`` count 0)."""
    return float(sum(costs.get(i, 0.0) for i in ids))
