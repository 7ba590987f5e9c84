"""numba for every compiled kernel of the toolkit (the simulation core's availability profile, the
rigid heuristics' kernels): where its on-disk cache goes, ``njit`` (a stand-in without numba),
and the one line said when the kernels compile.

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
all of them). A compile takes seconds (all kernels: about 8 s of CPU on the 2-core reference
machine; see ``docs/rigid.md``), so :func:`compile_notice` says so, once per process, on
stderr -- only when stderr is a terminal: the library prints nothing to a pipe or a file.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

__all__ = ["CACHE_DIR", "HAVE_NUMBA", "compile_notice", "default_cache_dir", "njit"]


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
    from numba import njit
    from numba.core import config as _config
    from numba.core import event as _event

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - depends on the environment
    HAVE_NUMBA = False

    def njit(*args: Any, **kwargs: Any) -> Any:  # type: ignore[no-redef]
        """Stand-in for ``numba.njit``: the kernels stay plain (unused) Python functions."""
        if args and callable(args[0]):
            return args[0]
        return lambda fn: fn

if HAVE_NUMBA and _NUMBA_WAS_IMPORTED and CACHE_DIR and _config.CACHE_DIR != CACHE_DIR:
    _config.reload_config()  # numba read its environment before ours was set


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


@contextmanager
def compile_notice(stream: TextIO | None = None, *, force: bool = False) -> Iterator[None]:
    """Around a kernel call: if a kernel of this package compiles inside the block, say so once
    per process on ``stream`` (default ``sys.stderr``), provided it is a terminal (``force``:
    whatever it is). Nothing happens without numba, after the first notice, or when the kernels
    load from the cache."""
    out = sys.stderr if stream is None else stream
    if not HAVE_NUMBA or _announced or not (force or _is_terminal(out)):
        yield
        return
    with _event.install_listener("numba:compile", _Notice(out)):
        yield
