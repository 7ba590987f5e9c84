"""numba for every compiled kernel of the toolkit (the simulation core's availability profile, the
rigid heuristics' kernels): where its on-disk cache goes, ``njit`` (numba's, compiling each kernel
once per argument types; a stand-in without numba), and the one line said when the kernels compile.

Cache directory
---------------
numba reads ``NUMBA_CACHE_DIR`` when it is imported (``numba.core.config``) and picks the cache
location of a ``cache=True`` function when the function is decorated. So this module, which the
kernel modules import first, sets the variable *before* importing numba:

* ``NUMBA_CACHE_DIR`` if the user set it (kept as it is);
* else ``$XDG_CACHE_HOME/coschedule/numba`` (an absolute ``XDG_CACHE_HOME`` only, as the XDG
  specification asks), else ``~/.cache/coschedule/numba``.

Without it numba writes next to the sources (``heuristics/fast/__pycache__``, i.e. into a
checkout; in a read-only site-packages it falls back to a place of its own). The variable is set
in ``os.environ``, so it holds for the whole process and its children, and for any other numba
code in them that does not choose its own. If numba was imported before this module, its
configuration is re-read (:func:`numba.core.config.reload_config`, as numba's compiler does).
In the cache directory numba keeps one folder per source folder (its name and a hash of its
absolute path), so two checkouts never share entries; an entry is invalidated when its source
file changes.

Compiling
---------
The first call of a kernel in a process compiles it, or loads it from the cache (about 0.4 s for
all of them). A compile takes seconds (the rigid kernels: about 8 s of CPU on the 2-core reference
machine, ``docs/rigid.md``; the batch kernel of one policy family: 10-15 s, docs/benchmarks.md,
"The first run"), so :func:`compile_notice` says so, once per process, on stderr -- when stderr is
a terminal, or when the caller forces it (the command line does: one line, terminal or not); the
library alone prints nothing to a pipe or a file.

numba compiles a kernel called by another one for the *literal* types of constant arguments: a
helper called as ``f(x, 1)`` in one place and ``f(x, k)`` in another is compiled twice, once for
``Literal[int](1)`` and once for ``int64``, and the batch kernel's helpers were compiled two to five
times each. :func:`njit` types such a call with the arguments' plain types (``int64``), which is
what the code computes with anyway: each helper compiles once (the batch kernel's first compile:
61 s of CPU down to 41 s, before the per-family kernels of :mod:`coschedule.heuristics.batch.kernel`).

Division
--------
numba's default error model is Python's: every ``/`` tests its divisor and may raise
``ZeroDivisionError``. :func:`njit` compiles with numba's ``numpy`` model instead (a division by
zero gives ``inf`` or ``nan``, as numpy's arrays do), which gives the same value for every
division by a nonzero number and lets LLVM keep the arithmetic straight: the pack model's
``t^R_{i,k}`` (:mod:`coschedule.redistribution.kernels`) costs 19 ns instead of 66. The kernels
divide by processor counts, failure rates, checkpoint blocks and the work of a period, each
positive for every input the toolkit accepts (the pack model refuses a period that holds no
work), so the results are the same bit for bit (the kernel-against-reference tests).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

__all__ = ["CACHE_DIR", "HAVE_NUMBA", "compile_notice", "compiled", "default_cache_dir", "njit"]


def default_cache_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """``$XDG_CACHE_HOME/coschedule/numba`` (absolute ``XDG_CACHE_HOME``), else
    ``~/.cache/coschedule/numba``; ``NUMBA_CACHE_DIR`` is not consulted here."""
    xdg = environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "coschedule" / "numba"


def _set_cache_dir() -> str:
    """Set ``NUMBA_CACHE_DIR`` unless the user did; return it ("" if no home is known)."""
    current = os.environ.get("NUMBA_CACHE_DIR", "")
    if current:
        return current
    try:
        path = str(default_cache_dir())
    except RuntimeError:  # no home directory: leave numba's default
        return ""
    os.environ["NUMBA_CACHE_DIR"] = path
    return path


#: numba's cache directory for this process (set before numba is imported)
CACHE_DIR: str = _set_cache_dir()

_NUMBA_WAS_IMPORTED = "numba" in sys.modules

try:  # optional: without numba, makespans() falls back to the reference implementation
    import numba as _numba
    from numba.core import config as _config
    from numba.core import event as _event
    from numba.core import types as _types

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - depends on the environment
    HAVE_NUMBA = False

    def njit(*args: Any, **kwargs: Any) -> Any:  # type: ignore[no-redef]
        """Stand-in for ``numba.njit``: the kernels stay plain (unused) Python functions."""
        if args and callable(args[0]):
            return args[0]
        return lambda fn: fn

if HAVE_NUMBA:

    def njit(*args: Any, **kwargs: Any) -> Any:  # type: ignore[no-redef]
        """``numba.njit``, except that a call from another compiled function is typed with the
        arguments' plain types, not the literal types of constants (module docstring): one
        compile per function and plain argument types. Python calls are typed as before."""

        def decorate(fn: Any) -> Any:
            # nogil: a kernel lets the interpreter's other threads run while it computes (the
            # signal watcher of coschedule.signals stops a run that does not return);
            # error_model "numpy": a float division by zero gives inf or nan (module docstring)
            dispatcher = _numba.njit(**{"nogil": True, "error_model": "numpy", **kwargs})(fn)
            if _config.DISABLE_JIT:  # NUMBA_DISABLE_JIT=1: numba gives the plain function back
                return dispatcher
            typed = dispatcher.get_call_template  # numba's: compiles for the types it is given

            def get_call_template(args: tuple[Any, ...], kws: dict[str, Any]) -> Any:
                return typed(tuple(_types.unliteral(a) for a in args),
                             {k: _types.unliteral(v) for k, v in kws.items()})

            dispatcher.get_call_template = get_call_template
            return dispatcher

        if args and callable(args[0]):
            return decorate(args[0])
        return decorate

if HAVE_NUMBA and _NUMBA_WAS_IMPORTED and CACHE_DIR and _config.CACHE_DIR != CACHE_DIR:
    _config.reload_config()  # numba read its environment before ours was set


def _without_blas_probe() -> None:
    """Import numba's array functions without their BLAS probe. On import, ``numba.np.arraymath``
    imports ``scipy.linalg`` whenever SciPy is installed (0.18 s of a command's start-up) only to
    decide whether the inner product of ``np.cov``-like functions calls BLAS or a loop
    (``_HAVE_BLAS``); no kernel of the toolkit uses them. The probe is told there is no BLAS, then
    ``ensure_blas`` is restored, so ``np.dot`` and ``np.linalg`` in compiled code still call BLAS
    (importing SciPy when they are first compiled)."""
    if "numba.np.arraymath" in sys.modules:  # imported already: nothing to save
        return
    from numba.np import linalg

    real = linalg.ensure_blas

    def no_blas() -> None:
        raise ImportError("the BLAS probe is skipped (coschedule.jit)")

    linalg.ensure_blas = no_blas
    try:
        from numba.np import arraymath
    finally:
        linalg.ensure_blas = real
    arraymath.ensure_blas = real


if HAVE_NUMBA:
    try:
        _without_blas_probe()
    except (ImportError, AttributeError):  # pragma: no cover - another numba's layout: its own probe runs
        pass


# ------------------------------------------------------------------------------ the notice

#: the package whose kernels the notice is about (every compiled kernel of the toolkit: the
#: availability profile of the simulation core and the rigid heuristics)
_KERNELS_PACKAGE = "coschedule"
_announced = False


def _message() -> str:
    where = (_config.CACHE_DIR if HAVE_NUMBA else "") or "numba's default location"
    return f"coschedule: compiling the numba kernels (once; cached in {where})\u2026"


def _say(stream: TextIO, text: str) -> None:
    """Write one line; ``...`` for the ellipsis when the stream's encoding has no such character."""
    encoding = getattr(stream, "encoding", None)  # None: an in-memory text stream
    if encoding:
        try:
            text.encode(encoding)
        except (UnicodeEncodeError, LookupError):
            text = text.replace("\u2026", "...")
    stream.write(text + "\n")
    stream.flush()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


if HAVE_NUMBA:

    class _Notice(_event.Listener):
        """Says :func:`_message` when a kernel of this package starts compiling (not when it is
        loaded from the cache: numba broadcasts ``numba:compile`` only for a real compile)."""

        def __init__(self, stream: TextIO) -> None:
            self.stream = stream

        def on_start(self, event: Any) -> None:
            global _announced
            if _announced:
                return
            dispatcher = event.data.get("dispatcher") if isinstance(event.data, dict) else None
            module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
            if module == _KERNELS_PACKAGE or module.startswith(_KERNELS_PACKAGE + "."):
                _announced = True
                _say(self.stream, _message())

        def on_end(self, event: Any) -> None:
            pass

    class _Recorder(_event.Listener):
        """Appends ``module.name`` of each outermost kernel of this package that compiles (its
        callees compile inside it)."""

        def __init__(self, names: list[str]) -> None:
            self.names = names
            self.depth = 0

        def on_start(self, event: Any) -> None:
            if self.depth == 0:
                fn = getattr(event.data.get("dispatcher"), "py_func", None)
                module = getattr(fn, "__module__", "") or ""
                if module == _KERNELS_PACKAGE or module.startswith(_KERNELS_PACKAGE + "."):
                    self.names.append(f"{module}.{fn.__name__}")
            self.depth += 1

        def on_end(self, event: Any) -> None:
            self.depth -= 1


@contextmanager
def compile_notice(stream: TextIO | None = None, *, force: bool = False) -> Iterator[None]:
    """Around a kernel call: if a kernel of this package compiles inside the block, say so once
    per process on ``stream`` (default ``sys.stderr``), provided it is a terminal (``force``:
    whatever it is; the command line forces it). Nothing happens without numba, after the first
    notice, or when the kernels load from the cache (numba then compiles nothing)."""
    out = sys.stderr if stream is None else stream
    if not HAVE_NUMBA or _announced or not (force or _is_terminal(out)):
        yield
        return
    with _event.install_listener("numba:compile", _Notice(out)):
        yield


@contextmanager
def compiled() -> Iterator[list[str]]:
    """The kernels of this package that numba compiles inside the block (``module.name``, the
    outermost ones), in order; empty when they load from the cache, and without numba."""
    names: list[str] = []
    if not HAVE_NUMBA:
        yield names
        return
    with _event.install_listener("numba:compile", _Recorder(names)):
        yield names
