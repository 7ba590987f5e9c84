"""The one reader of user files, and the JSON conventions every format shares.

:func:`read_file_bytes` and :func:`read_utf8` turn a missing, unreadable or undecodable file
into a one-line :class:`~coschedule.errors.FormatError` (JSON instances, SWF traces and campaign
specs all come through them); :func:`read_json` adds the line and column of a syntax error;
:func:`writing` is the one way a file the user named is written: whole or not at all
(:func:`save_json` goes through it). Every format starts with ``format`` and ``version``
(:data:`FORMAT_VERSION`), checked by :func:`_check_header`.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from coschedule.errors import FormatError

FORMAT_VERSION = 1


def read_file_bytes(path: Path, kind: str) -> bytes:
    """The bytes of a user's input file (``kind`` names what it should be, e.g. "a JSON file");
    a missing file, a folder or an unreadable file is a one-line :class:`FormatError`."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise FormatError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise FormatError(f"{path}: is a directory, expected {kind}") from None
    except OSError as e:
        raise FormatError(f"{path}: cannot read: {e.strerror or e}") from None


def read_utf8(path: Path, kind: str) -> str:
    """:func:`read_file_bytes` decoded as UTF-8 (an error names the byte)."""
    try:
        return read_file_bytes(path, kind).decode("utf-8")
    except UnicodeDecodeError as e:
        raise FormatError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def read_json(path: str | Path) -> Any:
    """Parse a JSON file; a syntax error names the file, line and column."""
    path = Path(path)
    text = read_utf8(path, "a JSON file")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise FormatError(f"{path}:{e.lineno}:{e.colno}: malformed JSON: {e.msg}") from None


@contextlib.contextmanager
def writing(path: str | Path, *, binary: bool = False, newline: str | None = None) -> Iterator[IO[Any]]:
    """A file opened for writing in place of ``path``: what the block writes becomes ``path``
    when the block ends, whole (a temporary file beside it, renamed over it), and nothing of it
    is left when the block fails or is interrupted (Ctrl-C included): the temporary file is
    removed, the former ``path`` kept as it was. A ``path`` that is a folder (or a link to one),
    or whose folder does not exist, is a one-line :class:`FormatError` naming ``path``."""
    path = Path(path)
    if path.is_dir():
        raise FormatError(f"{path}: is a directory, expected a file to write")
    folder = path.parent
    if not folder.is_dir():
        raise FormatError(f"{path}: no such directory: {folder}")
    tmp = folder / f".{path.name}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8", "newline": newline})) as fh:
            yield fh
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_text(path: str | Path, text: str, *, newline: str | None = None) -> None:
    """Write ``text`` (UTF-8) to ``path`` through :func:`writing`."""
    with writing(path, newline=newline) as fh:
        fh.write(text)


def save_json(data: Any, path: str | Path) -> None:
    """Write JSON through :func:`writing` (whole or not at all)."""
    write_text(path, json.dumps(data, indent=2, allow_nan=False) + "\n")


def _check_header(data: Any, where: str, expected: str) -> None:
    if not isinstance(data, dict):
        raise FormatError(f"{where}: expected a JSON object at top level")
    fmt = data.get("format")
    if fmt != expected:
        raise FormatError(f"{where}: format is {fmt!r}, expected {expected!r}")
    version = data.get("version")
    if version != FORMAT_VERSION:
        raise FormatError(f"{where}: unsupported version {version!r} (this reader knows {FORMAT_VERSION})")


def _field(obj: dict[str, Any], key: str, where: str, kind: type | tuple[type, ...]) -> Any:
    if key not in obj:
        raise FormatError(f"{where}: missing field {key!r}")
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise FormatError(f"{where}.{key}: expected {names}, got {value!r}")
    return value
