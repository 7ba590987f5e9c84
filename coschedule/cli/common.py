"""What every command family of the CLI shares: the parser class, option types, output.

Errors in option values are reported on one line (``coschedule solve: error: argument --k:
expected a positive integer, got 0``) with exit status 2, never with the whole usage block.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from ..errors import CoscheduleError, InvalidInstance

if TYPE_CHECKING:  # numpy: imported by the commands that load an instance, not to build the parser
    from ..model import MoldableInstance
    from ..rigid import RigidInstance

__all__ = [
    "EXIT_INVALID",
    "EXIT_USAGE",
    "SWF_SUFFIXES",
    "Formatter",
    "OneLineErrorParser",
    "Ticker",
    "compile_notice",
    "duration",
    "emit_json",
    "input_path",
    "is_batsim",
    "load_instance_arg",
    "load_workload_arg",
    "nonnegative_duration",
    "nonnegative_int",
    "positive_float",
    "positive_int",
    "write_figure",
]

EXIT_INVALID = 1  # a solution that fails verification
EXIT_USAGE = 2  # bad input


class Formatter(argparse.HelpFormatter):
    """Wraps prose to the terminal's width but keeps example lines (indented ones, and the
    lines of a text that has line breaks) as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" not in text:
            return super()._fill_text(text, width, indent)
        lines = []
        for line in text.splitlines():
            if line.startswith(" ") or len(line) <= width:
                lines.append(indent + line)
            else:
                lines.append(super()._fill_text(line, width, indent))
        return "\n".join(lines)


class OneLineErrorParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2, and which
    accepts hidden aliases: old spellings of an option, rewritten to the one spelling.

    argparse prints the whole usage block before an error; a user who typed ``--k 0`` needs the
    one line that says what is wrong (``--help`` still shows the usage).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.aliases: dict[str, str] = {}
        # a value that starts with a minus and a digit is a value, not an option: `--window -5:-1`
        # is then refused by --window for what it is, not read as a missing argument
        self._negative_number_matcher = re.compile(r"^-\.?\d")

    def alias(self, old: str, new: str) -> None:
        """Accept ``old`` (and ``old=VALUE``) as ``new``, without showing it in ``--help``."""
        self.aliases[old] = new

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if args is not None and self.aliases:
            args = _rewrite(list(args), self.aliases)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _rewrite(args: list[str], aliases: dict[str, str]) -> list[str]:
    out = []
    for i, token in enumerate(args):
        if token == "--":  # everything after is positional
            return out + args[i:]
        name, eq, value = token.partition("=")
        out.append(aliases[name] + eq + value if name in aliases else token)
    return out


def _int_at_least(text: str, minimum: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"expected {what}, got {value}")
    return value


def positive_int(text: str) -> int:
    return _int_at_least(text, 1, "a positive integer")


def nonnegative_int(text: str) -> int:
    return _int_at_least(text, 0, "an integer >= 0")


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
    return value


def nonnegative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}") from None
    if not (value >= 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text}")
    return value


def _duration(text: str, *, zero: bool) -> float:
    """A finite duration > 0 (>= 0 with ``zero``): seconds, or a number with a unit (``5min``,
    ``1h``, ``7d``, ``5y``; :func:`coschedule.units.seconds`)."""
    from coschedule.units import FORMS, seconds

    try:
        value = seconds(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a duration ({FORMS}), got {text!r}") from None
    if not ((value >= 0 if zero else value > 0) and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a {'duration >= 0' if zero else 'positive duration'}, got {text}")
    return value


def duration(text: str) -> float:
    """A positive, finite duration (:func:`_duration`)."""
    return _duration(text, zero=False)


def nonnegative_duration(text: str) -> float:
    """As :func:`duration`, 0 allowed."""
    return _duration(text, zero=True)


#: the picture formats matplotlib writes (its default backends): a --plot suffix among them picks it
FIGURE_FORMATS = ("png", "svg", "pdf", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp", "pgf", "svgz", "raw", "rgba")


def figure_path(text: str) -> str:
    """A ``--plot`` file: a name with a picture suffix (``run.png``), or without one (``run``:
    PNG and SVG). A suffix of letters that is no picture format (``run.xyz``, ``run.csv``) is
    an error, not ``run.xyz.png``; a dotted name with digits (``fig.v2``) is a name."""
    suffix = Path(text).suffix[1:]
    if suffix.isalpha() and suffix.lower() not in FIGURE_FORMATS:
        raise argparse.ArgumentTypeError(f"{text}: .{suffix} is not a picture format (use one of "
                                         f"{', '.join('.' + f for f in FIGURE_FORMATS[:5])}, ...; no suffix: "
                                         "PNG and SVG)")
    return text


def write_figure(fig: Any, path: str | Path) -> list[Path]:
    """Save a figure as :func:`coschedule.plot.save_figure` does (the suffix picks the format;
    none: PNG and SVG) and say so on stderr, one line per file: ``wrote figure: x.png``."""
    from coschedule.plot.figure import save_figure

    outs = save_figure(fig, path)
    for out in outs:
        print(f"wrote figure: {out}", file=sys.stderr)
    return outs


class Ticker:
    """Progress of a command's steps on ``stream`` (stderr): on a terminal one line, redrawn
    every second with the step's elapsed time and erased before a result is printed; elsewhere
    (``log``: a file, a pipe, a batch job) a plain line ``LABEL: STEP`` when a step starts and
    another every :data:`LOG_EVERY` seconds while it lasts, never an escape code; nothing at all
    when ``stream`` is None (``--json``). With ``quiet_for``, a step says nothing until it has
    lasted that long (a short run stays silent)."""

    #: seconds between two lines of a step that lasts, off a terminal
    LOG_EVERY = 10.0

    def __init__(self, stream: TextIO | None, *, log: bool = False, label: str = "bench",
                 quiet_for: float = 0.0) -> None:
        self.stream = stream
        self.log = log
        self.label = label
        self.quiet_for = quiet_for
        self.message = ""
        self.t0 = time.monotonic()
        self._said: float | None = None  # when this step's last line was written
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if stream is not None:
            self._thread = threading.Thread(target=self._run, daemon=True, name="coschedule-ticker")
            self._thread.start()

    def __call__(self, message: str) -> None:
        with self._lock:
            self.message, self.t0, self._said = message, time.monotonic(), None
        self._draw()

    def clear(self) -> None:
        with self._lock:
            self.message = ""
            if self.stream is not None and not self.log and self._said is not None:
                self.stream.write("\r\x1b[K")
                self.stream.flush()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.clear()

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            self._draw()

    def _draw(self) -> None:
        with self._lock:
            if self.stream is None or not self.message:
                return
            now = time.monotonic()
            if now - self.t0 < self.quiet_for:
                return
            if self.log:
                if self._said is None:
                    self.stream.write(f"{self.label}: {self.message}" +
                                      (f": {now - self.t0:.0f} s so far" if self.quiet_for else "") + "\n")
                elif now - self._said >= self.LOG_EVERY:
                    self.stream.write(f"{self.label}: {self.message}: {now - self.t0:.0f} s so far\n")
                else:
                    return
                self._said = now
                self.stream.flush()
                return
            self._said = now
            self.stream.write(f"\r\x1b[K{self.message} {now - self.t0:.0f} s")
            self.stream.flush()


@contextmanager
def compile_notice(args: argparse.Namespace) -> Iterator[None]:
    """Around a command: one that runs compiled kernels (``kernels=True`` among its parser's
    defaults) says on stderr, in one line, terminal or not, that numba compiles them and where
    they are cached, when it does (the first run of a policy family after an install or an
    upgrade; :func:`coschedule.jit.compile_notice`); nothing when they load from the cache. The
    other commands import no numba for it."""
    if not getattr(args, "kernels", False):
        yield
        return
    from coschedule.jit import compile_notice as notice

    with notice(force=True):
        yield


def emit_json(data: Any) -> None:
    """Print ``data`` as indented JSON on stdout (no NaN; unknown objects as strings)."""
    json.dump(data, sys.stdout, indent=2, allow_nan=False, default=str)
    sys.stdout.write("\n")


#: file names read as SWF workload traces rather than JSON instances
SWF_SUFFIXES = (".swf", ".swf.gz")


def load_instance_arg(path: str, *, day: int | None = None) -> MoldableInstance | RigidInstance:
    """The instance a command was given: a JSON instance file of any kind, or an SWF trace.

    An SWF trace (``.swf`` or ``.swf.gz``) becomes a rigid instance: the jobs submitted on day
    ``day`` (0-based, the day index of campaigns' day-sets), or all usable jobs of the log. A
    name that is not an existing file may name a bundled instance or trace
    (:func:`coschedule.data.instance_path`).
    """
    from ..data import instance_path
    from ..io import load_any_instance

    path = instance_path(path)
    if str(path).lower().endswith(SWF_SUFFIXES):
        from ..swf import read_swf, trace_instance

        return trace_instance(read_swf(path), day=day)
    if day is not None:
        raise CoscheduleError(f"--day applies to SWF traces (.swf, .swf.gz); {path} is not one")
    return load_any_instance(path)


def input_path(arg: str) -> str:
    """An existing file, else a bundled one: an instance or trace name
    (:func:`coschedule.data.instance_path`), or a path under ``instances/`` (``batch/toy.json``,
    ``batch/toy-failures.csv``)."""
    from coschedule.data import instance_path, instances_dir

    if Path(arg).exists():
        return arg
    found = instance_path(arg)
    if found != arg:
        return found
    try:
        bundled = instances_dir() / arg
    except CoscheduleError:
        return arg
    return str(bundled) if bundled.is_file() else arg


def is_batsim(path: str) -> bool:
    """A ``.json`` file, or a file whose first non-blank byte is ``{``; SWF otherwise."""
    if path.lower().endswith(".json"):
        return True
    if path.lower().endswith(SWF_SUFFIXES) or path.lower().endswith(".gz"):
        return False
    try:
        with open(path, "rb") as fh:
            return fh.read(4096).lstrip()[:1] == b"{"
    except OSError:
        return False  # the reader reports it


def load_workload_arg(arg: str, *, nodes: int | None = None) -> Any:
    """The workload a command was given: a Batsim JSON workload or an SWF trace (plain or gzip),
    a file or a bundled name, on ``nodes`` nodes (default: the file's ``nb_res``, or the SWF
    header's ``MaxProcs``/``MaxNodes``). Errors name the file (and the line or job)."""
    from coschedule.sim.workload import Workload, read_batsim, workload_from_swf

    path = input_path(arg)
    if is_batsim(path):
        workload = read_batsim(path)
        if nodes is None or nodes == workload.n_nodes:
            return workload
        try:
            return Workload(workload.ids, workload.submit, workload.nodes, workload.walltime, workload.length,
                            nodes, name=workload.name, dropped=workload.dropped)
        except InvalidInstance as e:
            raise InvalidInstance(f"{path}: {e} (--nodes {nodes})") from None
    from coschedule.swf import read_swf

    trace = read_swf(path)
    try:
        return workload_from_swf(trace, n_nodes=nodes)
    except InvalidInstance as e:
        where = "" if str(e).startswith(str(trace.path)) else f"{trace.path}: "
        raise InvalidInstance(f"{where}{e}") from None
