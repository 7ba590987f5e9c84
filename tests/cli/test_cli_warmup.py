"""``coschedule warmup`` and the first run's notice: numba compiles a kernel family once, says so on
stderr in one line (terminal or not) with the cache's folder, and the next runs load it silently.

Each check runs fresh interpreters on an empty cache folder (``NUMBA_CACHE_DIR``): the first run
compiles the FCFS/EASY batch kernel (10-15 s of CPU).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from coschedule.cli.warmup import FAMILIES
from coschedule.heuristics.warmup import KERNELS
from coschedule.jit import HAVE_NUMBA

NOTICE = "coschedule: compiling the numba kernels (once; cached in"


def test_the_help_lists_the_families_the_library_warms():
    assert FAMILIES == tuple(KERNELS)


def _coschedule(*argv: str, cache: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    return subprocess.run([sys.executable, "-m", "coschedule.cli", *argv], capture_output=True, text=True,
                          env=env, timeout=600, check=False)


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed")
def test_first_run_says_it_compiles_once_then_warmup_finds_it_cached(tmp_path):
    cache = str(tmp_path / "numba")
    first = _coschedule("batch", "batch/toy.json", "--policy", "easy", cache=cache)
    assert first.returncode == 0, first.stderr
    lines = [line for line in first.stderr.splitlines() if line.startswith(NOTICE)]
    assert lines == [f"{NOTICE} {cache})\u2026"], first.stderr  # stderr is a pipe: said all the same, once
    again = _coschedule("batch", "batch/toy.json", "--policy", "fcfs", cache=cache)  # FCFS: the same kernel
    assert again.returncode == 0 and NOTICE not in again.stderr, again.stderr
    assert again.stdout.splitlines()[0] == first.stdout.splitlines()[0]
    warm = _coschedule("warmup", "--only", "batch-easy", "--json", cache=cache)
    assert warm.returncode == 0, warm.stderr
    (family,) = json.loads(warm.stdout)["families"]
    assert family["family"] == "batch-easy" and family["compiled"] == []  # loaded from the cache


def test_warmup_names_an_unknown_family():
    proc = subprocess.run([sys.executable, "-m", "coschedule.cli", "warmup", "--only", "batch-esay"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 2
    assert "unknown kernel family 'batch-esay' (--only) (did you mean 'batch-easy'?)" in proc.stderr
