"""Ctrl-C and SIGTERM, safely, at any instant of a command.

Python runs a signal's handler between two bytecodes of the main thread, wherever that is. Most
places can take the exception it raises; a few cannot. numba's compiled code calls back into
Python while it boxes a kernel's results (``numba.core.serialize._numba_unpickle``) and does not
check for an exception there: a ``KeyboardInterrupt`` raised in that callback crashed
``coschedule batch`` with a segmentation fault (Ctrl-C 2-6 s into a LANL-CM5 run, 5 times out of
5). llvmlite's callbacks from C, while numba compiles, swallow the exception ("Exception ignored
on calling ctypes callback function") and the command went on.

:func:`handled` (the command line runs every command inside it) puts a handler on SIGINT and SIGTERM that looks
at the Python stack it interrupts. Outside numba and llvmlite it raises at once:
``KeyboardInterrupt`` for SIGINT, :class:`Terminated` (a ``KeyboardInterrupt``, so every
``except KeyboardInterrupt`` that cleans up handles both) for SIGTERM. Inside them (a compile, a
kernel's dispatch or the boxing of its results) it raises nothing and asks again every
:data:`RETRY` seconds until the stack has left them, so the exception lands in the toolkit's own
code, with its one line. A compiled kernel runs without looking at signals, so the exception
comes when it returns; a watcher thread (the kernels release the interpreter: ``nogil``) ends a
process whose kernel has not returned within :data:`STOP_WITHIN` seconds of the signal, with the
line and the signal's status (a long or endless run: SIGTERM from a batch system's time limit
must stop it). A *second* signal while the first waits ends the process at once when Python code
runs (a long compile), within :data:`STOP_WITHIN` seconds in a kernel; a process that has its own
cleanup to do after a first Ctrl-C (``coschedule simulate``) is outside numba then, and sees
the exception as usual.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Iterator
from types import FrameType

__all__ = ["RETRY", "STOP_WITHIN", "Terminated", "end_now", "exit_status", "handled", "interruption", "reason", "said"]

#: seconds between two looks at the stack while a signal waits for numba to return
RETRY = 0.02

#: seconds a signal waits for a compiled kernel to return before the system stops the process
STOP_WITHIN = 3

#: the parts of a path whose frames a signal's exception must not land in
_UNSAFE = (f"{os.sep}numba{os.sep}", f"{os.sep}llvmlite{os.sep}")


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Python takes it (as ``KeyboardInterrupt`` is for SIGINT)."""


def exit_status(exc: BaseException) -> int:
    """The status a command stopped by ``exc`` exits with: 143 (128 + SIGTERM) for
    :class:`Terminated`, 130 (128 + SIGINT) for any other ``KeyboardInterrupt``."""
    return 128 + (signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)


def said(exc: BaseException) -> bool:
    """Whether the one line of ``exc``'s signal is out already (it waited for numba)."""
    return bool(getattr(exc, "said", False))


def reason(exc: BaseException) -> str:
    """``terminated`` or ``interrupted``: what the one line says."""
    return "terminated" if isinstance(exc, Terminated) else "interrupted"


class _State:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix  # the start of the one line of a forced exit: "coschedule batch"
        self.waiting: int | None = None  # the signal waiting for numba to return
        self.retrying = False  # the next delivery is ours, not the user's
        self.taken = False  # a signal's exception was raised in our code (its cleanup is under way)
        self.said = False  # the one line is out


_state: _State | None = None


def _unsafe(frame: FrameType | None) -> bool:
    """Whether numba or llvmlite, or code that ``exec`` runs from a string, is on the stack from
    ``frame`` down to the bottom. CPython 3.11's ``exec`` of a string records a
    ``KeyboardInterrupt`` that leaves it as unhandled, and ``python -m coschedule`` then ends
    itself by SIGINT at exit whatever the command returned (``dataclasses`` builds its methods so, while
    the simulation's modules are imported: exit -2 instead of 130, 4 times in 50 signals). The
    bottom frame is ``python -c``'s own string, where that record is right."""
    while frame is not None:
        name = frame.f_code.co_filename
        if (name == "<string>" and frame.f_back is not None) or any(part in name for part in _UNSAFE):
            return True
        frame = frame.f_back
    return False


def interruption(exc: BaseException) -> KeyboardInterrupt | None:
    """The ``KeyboardInterrupt`` (or :class:`Terminated`) that ``exc`` wraps, if any: Python turns
    an exception raised in a class attribute's ``__set_name__`` (a dataclass field, while a
    module is imported) into a ``RuntimeError`` whose cause it is."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return None


def _retry(signum: int) -> None:
    """From a timer thread: deliver ``signum`` again to the main thread (it runs the handler
    when it next runs Python code)."""
    if _state is not None:
        _state.retrying = True
    signal.raise_signal(signum)


def _say(state: _State, signum: int) -> None:
    if state.said:
        return
    state.said = True
    what = "terminated" if signum == signal.SIGTERM else "interrupted"
    try:
        sys.stderr.write(f"{state.prefix}: {what}\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # no stderr to write to
        pass


def _handler(signum: int, frame: FrameType | None) -> None:
    state = _state
    assert state is not None
    ours = state.retrying
    state.retrying = False
    if ours and state.waiting is None:  # a late redelivery of a signal already raised: nothing to do
        return
    if not ours and state.waiting is not None:  # a second signal while the first waits: stop now
        os._exit(128 + state.waiting)  # its line was said when it came
    if _unsafe(frame):
        if state.waiting is None:
            state.waiting = signum
            _say(state, signum)  # the line now; the watcher stops the process if numba does not return
        timer = threading.Timer(RETRY, _retry, (state.waiting,))
        timer.daemon = True
        timer.start()
        return
    signum = state.waiting if state.waiting is not None else signum
    state.waiting = None
    state.taken = True
    stop = Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
    stop.said = state.said  # type: ignore[attr-defined]  # its line is out already
    raise stop


def end_now(stop: BaseException) -> None:
    """Inside :func:`handled`, end the process at once with the line and status of ``stop`` (a
    ``KeyboardInterrupt`` or :class:`Terminated`): for a thread outside Python that does not stop
    when asked (HiGHS in its presolve) and that would abort the interpreter at exit were it left
    running. Outside :func:`handled` (a library caller), or for another exception, it returns
    and the caller goes on waiting."""
    state = _state
    if state is None or not isinstance(stop, KeyboardInterrupt):
        return
    _say(state, signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT)
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    os._exit(exit_status(stop))


def _watch(state: _State, read_end: int) -> None:
    """The watcher thread: the signals' numbers come on ``read_end`` (``signal.set_wakeup_fd``,
    written by the C-level handler even while a compiled kernel runs). A signal that our handler
    has not turned into an exception within :data:`STOP_WITHIN` seconds -- the main thread is in a
    kernel that does not return -- ends the process with its line and status. The kernels
    release the interpreter (``nogil``), so this thread runs while they compute."""
    pending: int | None = None
    deadline = 0.0
    while True:
        timeout = None if pending is None else max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([read_end], [], [], timeout)
        if ready:
            try:
                data = os.read(read_end, 64)
            except OSError:
                return
            if not data:  # closed: the block is over
                return
            for signum in data:  # our handler's own redeliveries come here too: the first one counts
                if signum in (signal.SIGINT, signal.SIGTERM) and not state.taken and pending is None:
                    pending, deadline = signum, time.monotonic() + STOP_WITHIN
        elif pending is not None and not state.taken:
            _say(state, pending)
            os._exit(128 + pending)
        elif pending is not None:
            pending = None


@contextlib.contextmanager
def handled(prefix: str = "coschedule", *, last: bool = False) -> Iterator[_State]:
    """Handle SIGINT and SIGTERM as the module docstring says inside the block; ``prefix``
    starts the line of a forced exit. Only in the main thread (elsewhere, and for a signal the
    process ignores, such as nohup's, nothing changes). After the block the former handlers
    come back, or, with ``last`` (the process ends after it: the ``coschedule`` command), both
    signals are ignored: the command is over, and a signal during the interpreter's exit would
    otherwise kill it with no line, after its work was done. The block gets an object whose
    ``prefix`` it may change (the command line names the command once it is parsed)."""
    global _state
    if threading.current_thread() is not threading.main_thread():
        yield _State(prefix)
        return
    former = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    outer, _state = _state, _State(prefix)
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        former_fd = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except ValueError:  # not the main interpreter
        former_fd = None
    watcher = threading.Thread(target=_watch, args=(_state, read_end), daemon=True, name="coschedule-signals")
    watcher.start()
    for signum, handler in former.items():
        if handler is not signal.SIG_IGN:
            signal.signal(signum, _handler)
    try:
        yield _state
    finally:
        for signum, handler in former.items():
            signal.signal(signum, signal.SIG_IGN if last else handler)
        if former_fd is not None:
            signal.set_wakeup_fd(former_fd)
        _state.taken = True  # the block is over: nothing left for the watcher to stop
        os.close(write_end)  # the watcher reads the end of the pipe and returns
        watcher.join(1.0)
        os.close(read_end)
        _state = outer
