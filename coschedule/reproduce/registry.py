"""The papers ``coschedule reproduce`` knows, by key: each module of
:mod:`coschedule.reproduce.papers` defines one as ``PAPER`` (discovered, not listed: a new paper
adds its module and edits nothing here)."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from coschedule.errors import unknown_name

from .paper import Paper

__all__ = ["get_paper", "paper_keys"]


def paper_keys() -> list[str]:
    """Every paper's key, sorted (the module names of :mod:`coschedule.reproduce.papers`)."""
    folder = Path(__file__).with_name("papers")
    return sorted(m.name for m in pkgutil.iter_modules([str(folder)]) if not m.name.startswith("_"))


def get_paper(key: str) -> Paper:
    """The paper ``key``; an unknown key is an error listing the known ones."""
    keys = paper_keys()
    if key not in keys:
        raise unknown_name("paper", key, keys)
    paper = importlib.import_module(f"coschedule.reproduce.papers.{key}").PAPER
    assert isinstance(paper, Paper) and paper.key == key, key
    return paper
