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
code. A compiled kernel runs without looking at signals: the exception comes when it returns,
as before. A *second* signal while the first waits (a long compile) ends the process at once,
with one line and the status of that signal (:func:`exit_status`); a process that has its own
cleanup to do on a second Ctrl-C (``coschedule simulate``) sees the exception as usual because
it is then outside numba.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType

__all__ = ["RETRY", "Terminated", "exit_status", "handled", "reason"]

#: seconds between two looks at the stack while a signal waits for numba to return
RETRY = 0.02

#: the parts of a path whose frames a signal's exception must not land in
_UNSAFE = (f"{os.sep}numba{os.sep}", f"{os.sep}llvmlite{os.sep}")


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where Python takes it (as ``KeyboardInterrupt`` is for SIGINT)."""


def exit_status(exc: BaseException) -> int:
    """The status a command stopped by ``exc`` exits with: 143 (128 + SIGTERM) for
    :class:`Terminated`, 130 (128 + SIGINT) for any other ``KeyboardInterrupt``."""
    return 128 + (signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)


def reason(exc: BaseException) -> str:
    """``terminated`` or ``interrupted``: what the one line says."""
    return "terminated" if isinstance(exc, Terminated) else "interrupted"


class _State:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix  # the start of the one line of a forced exit: "coschedule batch"
        self.waiting: int | None = None  # the signal waiting for numba to return
        self.retrying = False  # the next delivery is ours, not the user's


_state: _State | None = None


def _unsafe(frame: FrameType | None) -> bool:
    """Whether numba or llvmlite is on the stack from ``frame`` down to the bottom."""
    while frame is not None:
        name = frame.f_code.co_filename
        if any(part in name for part in _UNSAFE):
            return True
        frame = frame.f_back
    return False


def _retry(signum: int) -> None:
    """From a timer thread: deliver ``signum`` again to the main thread (it runs the handler
    when it next runs Python code)."""
    if _state is not None:
        _state.retrying = True
    signal.raise_signal(signum)


def _handler(signum: int, frame: FrameType | None) -> None:
    state = _state
    assert state is not None
    ours = state.retrying
    state.retrying = False
    if not ours and state.waiting is not None:  # a second signal while the first waits: stop now
        what = "terminated" if signum == signal.SIGTERM else "interrupted"
        try:
            sys.stderr.write(f"{state.prefix}: {what}\n")
            sys.stderr.flush()
        finally:
            os._exit(128 + signum)
    if _unsafe(frame):
        if state.waiting is None:
            state.waiting = signum
        timer = threading.Timer(RETRY, _retry, (state.waiting,))
        timer.daemon = True
        timer.start()
        return
    signum = state.waiting if state.waiting is not None else signum
    state.waiting = None
    raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


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
    for signum, handler in former.items():
        if handler is not signal.SIG_IGN:
            signal.signal(signum, _handler)
    try:
        yield _state
    finally:
        for signum, handler in former.items():
            signal.signal(signum, signal.SIG_IGN if last else handler)
        _state = outer
