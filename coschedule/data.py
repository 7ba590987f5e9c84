"""The data that ships with the toolkit: example instances, campaign specs, workload traces, docs.

Where it lives
--------------
In a clone of the repository (and in an editable install) it is the repository's top-level
folders ``instances/`` (with the SWF traces in ``instances/traces/``), ``campaigns/`` and
``docs/``, beside the ``coschedule/`` folder. A wheel (``pip install .``) installs the same files
as package data under ``coschedule/_bundled/`` (``pyproject.toml`` maps the three folders there).
:func:`bundled_root` returns the installed copy when there is one, else the checkout's folder; so
the names below work the same from a clone, an editable install and a wheel.

Names
-----
* a campaign spec: its file name without ``.toml`` (``fig5-tenth``);
* an instance or failure scenario: its path under ``instances/`` without ``.json``
  (``kinp/figure-1-1``), or just its file name without ``.json`` when no other bundled file has
  that name (``figure-1-1``);
* a trace: its file name (``KTH-SP2-1996-2.1-cln.swf.gz``), or that name without ``.swf.gz``;
* an example policy (a module of :mod:`coschedule.examples`, docs/own-policy.md): its file name
  without ``.py`` (``easy_sjf``), or with it;
* a documentation page: its file name without ``.md`` (``cli``).

A name given on the command line is a bundled item only when it is not an existing file: a file
path always wins (:func:`spec_path`, :func:`instance_path`).

Trace lookup
------------
:func:`find_trace` resolves the ``path`` of a trace (a campaign spec's ``[[source]]`` of kind
``swf``, or ``coschedule simulate --trace``), first match wins:

1. an absolute path (``~`` expanded) is used as it is;
2. a relative path is looked up relative to the spec file's folder (the current folder for
   ``--trace``);
3. a bare file name (no folder part) is then looked up in the traces folder given by
   ``coschedule simulate --traces-dir DIR`` (the ``traces_dir`` argument) or, when that is not
   given, by the :data:`TRACES_ENV` environment variable ``COSCHEDULE_TRACES``;
4. and last in the bundled ``instances/traces/`` (:func:`traces_dir`).

A trace found nowhere is an error that lists every place looked.
"""

from __future__ import annotations

import difflib
import gzip
import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import CoscheduleError, FormatError, UnknownName, unknown_name

__all__ = [
    "KINDS",
    "TRACES_ENV",
    "Bundled",
    "bundled",
    "bundled_doc",
    "bundled_instance",
    "bundled_root",
    "bundled_spec",
    "bundled_trace",
    "campaigns_dir",
    "docs_dir",
    "examples_dir",
    "find_trace",
    "instance_path",
    "instances_dir",
    "list_bundled",
    "spec_path",
    "traces_dir",
]

#: the environment variable naming a folder of SWF traces (step 3 of :func:`find_trace`)
TRACES_ENV = "COSCHEDULE_TRACES"
#: the kinds of bundled item, in the order :func:`list_bundled` returns them
KINDS = ("instance", "spec", "trace", "policy", "doc")
#: the JSON formats listed as bundled instances (the search results' schedules and summaries are not)
_LISTED_FORMATS = {
    "coschedule/moldable-instance": "moldable instance",
    "coschedule/rigid-instance": "rigid instance",
    "coschedule/failure-scenario": "failure scenario",
    "coschedule/malleable-pack": "malleable pack",
}
_TRACE_SUFFIXES = (".swf.gz", ".swf")


def bundled_root() -> Path:
    """The folder that holds ``instances/``, ``campaigns/`` and ``docs/``.

    ``coschedule/_bundled`` in a wheel's installation, else the checkout's top folder (a clone
    or an editable install). Raises :class:`CoscheduleError` when neither exists.
    """
    here = Path(__file__).resolve().parent
    for root in (here / "_bundled", here.parent):
        if (root / "campaigns").is_dir() and (root / "instances").is_dir():
            return root
    raise CoscheduleError(f"the bundled data is missing (neither {here / '_bundled'} nor {here.parent} "
                          "holds instances/ and campaigns/); reinstall coschedule-hpc")


def instances_dir() -> Path:
    """The bundled example instances (``instances/``)."""
    return bundled_root() / "instances"


def traces_dir() -> Path:
    """The bundled SWF workload traces (``instances/traces/``)."""
    return instances_dir() / "traces"


def campaigns_dir() -> Path:
    """The bundled campaign specs (``campaigns/``)."""
    return bundled_root() / "campaigns"


def examples_dir() -> Path:
    """The example policies: the package :mod:`coschedule.examples` (code, in every install)."""
    return Path(__file__).resolve().parent / "examples"


def docs_dir() -> Path:
    """The bundled documentation pages (``docs/``)."""
    return bundled_root() / "docs"


# ------------------------------------------------------------------------------ the listing


@dataclass(frozen=True)
class Bundled:
    """One bundled file: its kind (one of :data:`KINDS`), its name, where it is, and the other
    names it answers to (e.g. ``kinp/figure-1-1`` for the instance named ``figure-1-1``)."""

    kind: str
    name: str
    path: Path
    aliases: tuple[str, ...] = ()

    def summary(self) -> str:
        """One line that says what the file is (read from the file; cheap)."""
        try:
            return _SUMMARIES[self.kind](self.path)
        except (OSError, ValueError, KeyError, TypeError, EOFError):
            return "(unreadable)"


def _instance_files() -> list[tuple[str, Path, str]]:
    """``(name under instances/ without .json, path, format)`` of the listed JSON files."""
    root = instances_dir()
    out = []
    for path in sorted(root.rglob("*.json")):
        try:
            fmt = json.loads(path.read_text(encoding="utf-8")).get("format")
        except (OSError, ValueError, AttributeError):
            continue
        if fmt in _LISTED_FORMATS:
            out.append((path.relative_to(root).with_suffix("").as_posix(), path, fmt))
    return out


def list_bundled(kind: str | None = None) -> list[Bundled]:
    """Every bundled item (or those of one ``kind``), sorted by kind then name."""
    if kind is not None and kind not in KINDS:
        raise unknown_name("kind of bundled data", kind, KINDS)
    items: list[Bundled] = []
    if kind in (None, "instance"):
        files = _instance_files()
        stems = [Path(rel).name for rel, _, _ in files]
        for rel, path, _ in files:
            stem = Path(rel).name
            if stems.count(stem) == 1:
                items.append(Bundled("instance", stem, path, (rel,)))
            else:
                items.append(Bundled("instance", rel, path))
    if kind in (None, "spec"):
        items += [Bundled("spec", p.stem, p) for p in sorted(campaigns_dir().glob("*.toml"))]
    if kind in (None, "trace"):
        for p in sorted(traces_dir().iterdir(), key=lambda p: p.name.lower()):
            if p.name.endswith(_TRACE_SUFFIXES):
                items.append(Bundled("trace", p.name, p, (_strip_trace_suffix(p.name),)))
    if kind in (None, "policy"):  # example policies of users' own (docs/own-policy.md): the modules of coschedule.examples
        items += [Bundled("policy", p.stem, p, (p.name,)) for p in sorted(examples_dir().glob("*.py"))
                  if p.stem != "__init__"]
    if kind in (None, "doc"):
        items += [Bundled("doc", p.stem, p) for p in sorted(docs_dir().glob("*.md"), key=lambda p: p.stem)]
    return items


def bundled(name: str, kind: str | None = None) -> Bundled:
    """The bundled item called ``name`` (any kind, or only ``kind``).

    Raises :class:`~coschedule.errors.UnknownName` listing the valid names when there is none,
    and :class:`CoscheduleError` when items of several kinds have that name.
    """
    items = list_bundled(kind)
    hits = [b for b in items if name == b.name or name in b.aliases]
    if not hits and kind in (None, "instance") and name.endswith(".json"):
        hits = [b for b in items if b.kind == "instance" and name[:-5] in (b.name, *b.aliases)]
    if not hits and kind in (None, "spec") and name.endswith(".toml"):
        hits = [b for b in items if b.kind == "spec" and name[:-5] == b.name]
    if not hits and kind in (None, "doc") and name.endswith(".md"):
        hits = [b for b in items if b.kind == "doc" and name[:-3] == b.name]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise CoscheduleError(f"{name!r} names several bundled files: "
                              + ", ".join(f"{b.kind} {b.path}" for b in hits) + "; use coschedule examples --path "
                              "with one of the names coschedule examples lists")
    what = f"bundled {kind}" if kind else "bundled file"
    if len(items) > 12:
        lister = "coschedule docs lists the" if kind == "doc" else "coschedule examples lists the"
        noun = "pages" if kind == "doc" else "names"
        close = difflib.get_close_matches(name, [b.name for b in items], n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UnknownName(f"unknown {what} {name!r}{hint}; {lister} {len(items)} {noun}")
    raise unknown_name(what, name, [b.name for b in items])


def bundled_spec(name: str) -> Path:
    """The bundled campaign spec ``name`` (``fig5-tenth``), e.g. for :func:`~coschedule.campaign.load_spec`."""
    return bundled(name, "spec").path


def bundled_instance(name: str) -> Path:
    """The bundled instance or scenario file ``name`` (``figure-1-1`` or ``kinp/figure-1-1``)."""
    return bundled(name, "instance").path


def bundled_trace(name: str) -> Path:
    """The bundled SWF trace ``name`` (``KTH-SP2-1996-2.1-cln.swf.gz`` or ``KTH-SP2-1996-2.1-cln``)."""
    return bundled(name, "trace").path


def bundled_doc(name: str) -> Path:
    """The bundled documentation page ``name`` (``cli``, ``campaigns``, ``references``...)."""
    return bundled(name, "doc").path


# ------------------------------------------------------------------ command-line arguments


def _is_bare(text: str) -> bool:
    """A plain name: no folder part (``fig5``, not ``./fig5`` or ``campaigns/fig5``)."""
    return "/" not in text and os.sep not in text and (os.altsep is None or os.altsep not in text)


def spec_path(arg: str | Path) -> Path:
    """The campaign spec a command-line argument names.

    An existing file is used as it is; otherwise a bare name without ``.toml`` is a bundled spec
    (``fig5-tenth``). Anything else is returned unchanged, so that reading it reports the
    missing file. An unknown bare name raises :class:`CoscheduleError` listing the bundled specs.
    """
    p = Path(arg)
    text = str(arg)
    if p.exists() or not _is_bare(text) or text.endswith(".toml"):
        return p
    names = [b.name for b in list_bundled("spec")]
    if text in names:
        return campaigns_dir() / f"{text}.toml"
    raise CoscheduleError(f"{text}: no such file, nor a bundled campaign spec "
                          f"(bundled: {', '.join(names)}; coschedule examples lists them)")


def instance_path(arg: str) -> str:
    """The instance (or scenario, or SWF trace) file a command-line argument names.

    An existing file is used as it is; otherwise a name of a bundled instance
    (``figure-1-1``, ``kinp/figure-1-1``, with or without ``.json``) or of a bundled trace
    (``KTH-SP2-1996-2.1-cln.swf.gz``) is that bundled file. Anything else is returned unchanged,
    so that reading it reports the missing file.
    """
    if Path(arg).exists():
        return arg
    for kind in ("instance", "trace"):
        try:
            return str(bundled(arg, kind).path)
        except CoscheduleError:
            pass
    return arg


# ----------------------------------------------------------------------------------- traces


def _strip_trace_suffix(name: str) -> str:
    for suffix in _TRACE_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def find_trace(path: str | Path, *, base: str | Path = ".", traces_dir: str | Path | None = None) -> Path:
    """The SWF file ``path`` names, looked up in the order of this module's docstring.

    ``base`` is the folder relative paths start from (a spec file's folder); ``traces_dir``
    the folder of ``--traces-dir`` (when ``None``, the ``COSCHEDULE_TRACES`` variable is used).
    Raises :class:`~coschedule.errors.FormatError` naming every place looked.
    """
    p = Path(os.path.expanduser(str(path)))
    looked: list[tuple[Path, str]] = []
    if p.is_absolute():
        looked.append((p, ""))
    else:
        looked.append((Path(base) / p, ""))
        if len(p.parts) == 1:
            if traces_dir is not None:
                looked.append((Path(os.path.expanduser(str(traces_dir))) / p, "--traces-dir"))
            elif os.environ.get(TRACES_ENV):
                looked.append((Path(os.path.expanduser(os.environ[TRACES_ENV])) / p, f"${TRACES_ENV}"))
            try:
                looked.append((instances_dir() / "traces" / p, "bundled"))
            except CoscheduleError:
                pass
    for candidate, _ in looked:
        if candidate.is_file():
            return candidate
    where = ", ".join(f"{c} ({label})" if label else str(c) for c, label in looked)
    raise FormatError(f"no such trace; looked for {where}")


# -------------------------------------------------------------------------------- summaries


def _instance_summary(path: Path) -> str:
    data = json.loads(path.read_text(encoding="utf-8"))
    fmt = data["format"]
    if fmt == "coschedule/moldable-instance":
        return f"moldable instance: {len(data['tasks'])} tasks, p = {data['p']}"
    if fmt == "coschedule/rigid-instance":
        return f"rigid instance: {len(data['jobs'])} jobs, P = {data['P']}"
    if fmt == "coschedule/malleable-pack":
        return f"malleable pack: {len(data['applications'])} applications, p = {data['p']} (coschedule redistrib NAME)"
    failures = sum(data["failures"])
    return f"failure scenario of {data.get('instance', '?')}: {failures} failures"


def _spec_summary(path: Path) -> str:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    kinds = sorted({str(s.get("kind")) for s in data.get("source", [])})
    first = next((line.lstrip("# ").strip() for line in path.read_text(encoding="utf-8").splitlines()
                  if line.startswith("#")), "")
    text = f"[{', '.join(kinds)}] {first.rstrip(' ,:;')}"
    return text if len(text) <= 90 else text[:89] + "…"


def _trace_summary(path: Path) -> str:
    fields: dict[str, str] = {}
    opener: Any = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="latin-1") as fh:
        for line in fh:
            if not line.startswith(";"):
                break
            key, sep, value = line[1:].partition(":")
            if sep and key.strip() and key.strip() not in fields:
                fields[key.strip()] = value.strip()
    machine = fields.get("Computer", "a workload model (no machine)")
    where = f", {fields['Installation']}" if "Installation" in fields else ""
    size = fields.get("MaxProcs") or fields.get("MaxNodes") or "?"
    return f"{machine}{where}; {size} processors; {path.stat().st_size / 1e6:.1f} MB"


def _doc_summary(path: Path) -> str:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#"):
                return line.lstrip("# ").strip()
    return ""


def _policy_summary(path: Path) -> str:
    """The first line of the file's docstring."""
    import ast

    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


_SUMMARIES = {"instance": _instance_summary, "spec": _spec_summary, "trace": _trace_summary,
              "policy": _policy_summary, "doc": _doc_summary}
