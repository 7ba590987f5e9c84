"""docs/api.md is executed: every ``python`` block is a doctest, run top to bottom in one
namespace in an empty folder, and its outputs must be the real ones."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

API = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def test_every_python_block_is_a_doctest():
    blocks = re.findall(r"```python\n(.*?)```", API.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 10
    for block in blocks:
        assert block.lstrip().startswith(">>>"), block[:80]


def test_api_page_runs_and_its_outputs_are_real(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    pytest.importorskip("pandas")
    monkeypatch.chdir(tmp_path)
    result = doctest.testfile(
        str(API), module_relative=False, encoding="utf-8", report=True, verbose=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted >= 60
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of docs/api.md failed (see stdout)"
