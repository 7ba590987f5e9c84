"""Standard output closed to C code for a while: :func:`c_stdout_quiet`."""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["c_stdout_quiet"]


@contextmanager
def c_stdout_quiet() -> Iterator[None]:
    """File descriptor 1 goes to the null device while the block runs, and what is written to
    it there, by C or Python, is dropped: HiGHS 1.12 writes
    ``HighsMipSolverData::transformNewIntegerFeasibleSolution tmpSolver.run();`` with C's printf
    when it improves a solution, whatever ``output_flag`` says, and so broke ``coschedule solve
    --json``. Python's and C's buffers are flushed on either side. Without a file descriptor 1, or
    a C library to flush (Windows), the block runs as it is."""
    try:
        libc_flush = ctypes.CDLL(None).fflush
        saved = os.dup(1)
    except (AttributeError, OSError, TypeError):
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    sys.stdout.flush()
    libc_flush(None)
    try:
        os.dup2(null, 1)
        yield
    finally:
        sys.stdout.flush()
        libc_flush(None)  # what HiGHS wrote is still in C's buffer when stdout is a pipe or a file
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)
