"""Policies that are not built in: a researcher's own scheduler, named the same way everywhere a
command, a campaign or a function takes a policy name (docs/own-policy.md).

Three ways to name one
----------------------
* ``path/to/file.py:ClassName``: a class in a Python file (a relative path is read from the
  current folder, or from the spec's folder in a campaign);
* ``package.module:ClassName``: a class of an importable module;
* ``NAME``: a name that an installed package registers under the entry-point group of the
  simulator kind (:data:`GROUPS`: ``coschedule.policies.batch``, ``.torus``, ``.redistribution``,
  ``.priority``), for instance in its ``pyproject.toml``::

      [project.entry-points."coschedule.policies.batch"]
      easy-sjf = "mypolicies.easy:EasySJF"

  A built-in name always wins over a registered one.

What a reference becomes
------------------------
:func:`resolve` turns a reference into a :class:`PolicySource`: the reference as written, what it
points at, and the SHA-256 of the source file behind it (the file, or the module's file), so that
a campaign can record which policy its results come from and refuse to mix two versions. A file's
text travels in the :class:`PolicySource` itself: a worker process or a Dask worker on another
machine loads the same class from it (:func:`load`) without the file, and a module reference is
imported where it runs (:func:`check_importable` says beforehand when it cannot be).

Every failure (no such file, a syntax error, an import inside the file that fails, no such class,
a module that does not import, an entry point that does not load) is a one-line
:class:`~coschedule.errors.InvalidInstance` that names the reference and what went wrong.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
import traceback
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import CoscheduleError, InvalidInstance, PolicyError

__all__ = [
    "GROUPS",
    "PolicySource",
    "check_importable",
    "describe",
    "instantiate",
    "is_reference",
    "load",
    "raised",
    "registered",
    "resolve",
    "user_frame",
]

#: the simulator kind -> the entry-point group where installed packages register their policies
GROUPS = {
    "batch": "coschedule.policies.batch",
    "torus": "coschedule.policies.torus",
    "redistribution": "coschedule.policies.redistribution",
    "priority": "coschedule.policies.priority",
}


@dataclass(frozen=True)
class PolicySource:
    """A policy that is not built in, resolved: ``ref`` as the user wrote it (the policy's name in
    results and reports), ``origin`` (``"file"``, ``"module"`` or ``"entry point"``), ``target``
    (the file's absolute path, or the module's name), ``attr`` (the class or function's name),
    ``digest`` (SHA-256 of the source file, hex), and for a file its ``text``."""

    ref: str
    kind: str
    origin: str
    target: str
    attr: str
    digest: str
    text: str | None = None
    file: str = ""


def is_reference(name: str) -> bool:
    """Whether ``name`` reads as ``file.py:Class`` or ``module:Class`` (a built-in name has no colon)."""
    if not isinstance(name, str) or name.count(":") != 1:
        return False
    left, right = name.split(":")
    return bool(left.strip()) and right.strip().isidentifier()


def _check_kind(kind: str) -> str:
    if kind not in GROUPS:
        raise ValueError(f"unknown simulator kind {kind!r}; valid: {', '.join(GROUPS)}")
    return kind


def registered(kind: str) -> dict[str, Any]:
    """The entry points of ``kind``'s group, by name (lower case): what installed packages offer."""
    from importlib.metadata import entry_points

    group = GROUPS[_check_kind(kind)]
    return {ep.name.lower(): ep for ep in entry_points(group=group)}


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def resolve(name: str, kind: str, *, base: str | Path = ".") -> PolicySource | None:
    """``name`` as a :class:`PolicySource`, or None when it is neither a reference
    (:func:`is_reference`) nor a name registered for ``kind`` (then it is a built-in name, or an
    unknown one: the caller's registry says which). ``base``: the folder a relative file path is
    read from."""
    _check_kind(kind)
    if not isinstance(name, str):
        return None
    if is_reference(name):
        left, attr = (s.strip() for s in name.split(":"))
        if left.endswith(".py") or "/" in left or os.sep in left:
            return _file_source(name, kind, left, attr, Path(base))
        return _module_source(name, kind, left, attr)
    eps = registered(kind)
    ep = eps.get(name.lower())
    if ep is None:
        return None
    module, _, attr = ep.value.partition(":")
    if not attr:
        raise InvalidInstance(f"policy {name!r}: its entry point {ep.value!r} ({GROUPS[kind]}) names no class "
                              "(module:Class)")
    src = _module_source(name, kind, module.strip(), attr.strip(), what=f"entry point {ep.value!r} of {name!r}")
    return PolicySource(name, kind, "entry point", src.target, src.attr, src.digest, None, src.file)


def _file_source(ref: str, kind: str, path: str, attr: str, base: Path) -> PolicySource:
    p = Path(path).expanduser()
    if not p.is_absolute():
        p = base / p
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InvalidInstance(f"policy {ref!r}: no such file {str(p)!r}") from None
    except IsADirectoryError:
        raise InvalidInstance(f"policy {ref!r}: {str(p)!r} is a folder, not a Python file") from None
    except OSError as e:
        raise InvalidInstance(f"policy {ref!r}: cannot read {str(p)!r}: {e.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidInstance(f"policy {ref!r}: {str(p)!r} is not UTF-8 text (byte {e.start})") from None
    path = str(p.resolve())
    return PolicySource(ref, kind, "file", path, attr, _digest(data), text, path)


def _module_source(ref: str, kind: str, module: str, attr: str, *, what: str | None = None) -> PolicySource:
    what = what or f"policy {ref!r}"
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError) as e:
        raise InvalidInstance(f"{what}: cannot import {module!r}: {_one_line(e)}") from None
    if spec is None:
        raise InvalidInstance(f"{what}: no module named {module!r} (is it installed, or on PYTHONPATH?)")
    digest, file = "", ""
    if spec.origin and os.path.isfile(spec.origin):
        file = spec.origin
        digest = _digest(Path(file).read_bytes())
    return PolicySource(ref, kind, "module", module, attr, digest, None, file)


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


_LOADED: dict[tuple[str, str], types.ModuleType] = {}


def _file_module(src: PolicySource) -> types.ModuleType:
    key = (src.target, src.digest)
    mod = _LOADED.get(key)
    if mod is not None:
        return mod
    stem = "".join(c if c.isalnum() else "_" for c in Path(src.target).stem)
    name = f"coschedule_user_{stem}_{src.digest[:12]}"
    mod = types.ModuleType(name)
    mod.__file__ = src.target
    sys.modules[name] = mod  # dataclasses and pickling look the module up by name
    try:
        code = compile(src.text or "", src.target, "exec")
        exec(code, mod.__dict__)  # noqa: S102 (running the user's file is the point)
    except SyntaxError as e:
        del sys.modules[name]
        raise InvalidInstance(f"policy {src.ref!r}: {src.target}:{e.lineno}: {e.msg}") from None
    except Exception as e:  # noqa: BLE001 (any error of the user's code: one line)
        del sys.modules[name]
        raise InvalidInstance(f"policy {src.ref!r}: loading {src.target} failed{_at(e, src.target)}: "
                              f"{_one_line(e)}") from None
    _LOADED[key] = mod
    return mod


def _at(e: BaseException, path: str) -> str:
    frame = user_frame(e, path) if path else None
    return f" at line {frame[1]}" if frame else ""


def user_frame(e: BaseException, path: str | None) -> tuple[str, int, str] | None:
    """The innermost frame of ``e``'s traceback in the file ``path`` or in its folder's tree
    (a module's package): ``(file, line, function)``, to say where a user's policy raised."""
    if not path:
        return None
    path = os.path.abspath(path)
    folder = os.path.dirname(path) + os.sep
    for fr in reversed(traceback.extract_tb(e.__traceback__)):
        name = os.path.abspath(fr.filename)
        if name == path or name.startswith(folder):
            return fr.filename, fr.lineno or 0, fr.name
    return None


def load(src: PolicySource) -> Any:
    """The class (or factory) ``src`` names: the file's text executed as a module of its own
    (once per file version and process), or the module imported."""
    if src.origin == "file":
        mod = _file_module(src)
        where = src.target
    else:
        try:
            mod = importlib.import_module(src.target)
        except Exception as e:  # noqa: BLE001 (any error of the user's code: one line)
            raise InvalidInstance(f"policy {src.ref!r}: importing {src.target!r} failed: {_one_line(e)}") from None
        where = f"module {src.target!r}"
    try:
        return getattr(mod, src.attr)
    except AttributeError:
        defined = sorted(k for k, v in vars(mod).items() if isinstance(v, type) and not k.startswith("_")
                         and getattr(v, "__module__", None) == mod.__name__)
        has = f" (it defines {', '.join(defined)})" if defined else ""
        raise InvalidInstance(f"policy {src.ref!r}: {where} has no {src.attr!r}{has}") from None


def raised(src: PolicySource, e: BaseException, now: float | None = None, *, during: str = "") -> CoscheduleError:
    """The one-line error of a user's policy that raised ``e`` at simulated time ``now`` (or
    ``during`` something, e.g. ``"its constructor"``): what, and where in its file. A toolkit error
    (a broken rule: :class:`~coschedule.errors.PolicyError`) is returned as it is."""
    if isinstance(e, CoscheduleError):
        return e
    frame = user_frame(e, src.file)
    at = f" at {frame[0]}:{frame[1]} (in {frame[2]})" if frame else ""
    when = f" at t = {now:g} s" if now is not None else (f" in {during}" if during else "")
    return PolicyError(f"policy {src.ref!r} raised {_one_line(e)}{at}{when}")


def instantiate(src: PolicySource, options: dict[str, Any], defaults: dict[str, Any], protocol: tuple[str, ...],
                protocol_text: str, *, given: dict[str, Any] | None = None, lenient: tuple[str, ...] = ()) -> Any:
    """A new object of ``src``'s class: each of ``options`` that its constructor takes is given to
    it; one it does not take is an error unless it has its value in ``defaults`` (or is in
    ``lenient``); ``given`` (e.g. the torus's ``dims``) go to it when it takes them, never an error.
    The object must have the methods ``protocol`` (``protocol_text`` says what they are). An error
    of the constructor is one line (:func:`raised`)."""
    import inspect

    factory = load(src)
    if not callable(factory):
        raise InvalidInstance(f"policy {src.ref!r}: {src.attr!r} is not a class (it is a {type(factory).__name__})")
    try:
        params: Any = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        params = {}
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    kwargs = {k: v for k, v in (given or {}).items() if takes_any or k in params}
    missing_value = object()
    for key, value in options.items():
        if takes_any or key in params:
            kwargs[key] = value
        elif key not in lenient and value != defaults.get(key, missing_value):
            raise InvalidInstance(f"policy {src.ref!r} does not take the option {key} (its constructor has no "
                                  f"{key!r} parameter)")
    try:
        policy = factory(**kwargs)
    except Exception as e:
        raise raised(src, e, during="its constructor") from e
    missing = [m for m in protocol if not callable(getattr(policy, m, None))]
    if missing:
        raise InvalidInstance(f"policy {src.ref!r}: {type(policy).__name__} has no {', '.join(missing)} method: "
                              f"{protocol_text}")
    return policy


def check_importable(src: PolicySource) -> str | None:
    """None when ``src`` loads in this process, else why not (one line): what a campaign asks of
    each worker before its first cell."""
    try:
        load(src)
    except InvalidInstance as e:
        return str(e)
    return None


def describe(obj: Any) -> str:
    """The first line of ``obj``'s docstring: the one-line description ``coschedule policies`` shows."""
    doc = (getattr(obj, "__doc__", None) or "").strip()
    return doc.splitlines()[0].strip() if doc else ""
