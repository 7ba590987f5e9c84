"""The repository stands alone: papers are cited by reference (docs/references.md), never by the
file names of a private copy, and nothing points at the folders beside the clone."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: the file names the papers had in a private folder, without the suffix (spelled so that this
#: file does not match its own check)
PAPER_FILES = ("resilient-rigid-jobs", "coscheduling-redistribution", "node-stealing", "bluegene-fault-aware")
# a paper's file name on its own: a docs page whose name ends with it is not a citation
CITES_BY_FILE = re.compile("|".join(r"(?<![\w-])" + re.escape(name) + r"\.md" for name in PAPER_FILES))
KEYS = ("Benoit2021", "Aupy2017", "Du2024", "Oliner2004")
#: the shared folder beside the developers' checkouts, which a user's clone does not have
OUTSIDE = ("/".join(("..", "shared")), "/".join(("", "work", "shared")))


def tracked_text_files() -> list[Path]:
    """The files git tracks (a fresh clone), text only."""
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    files = []
    for name in out.decode().split("\0"):
        path = ROOT / name
        if name and path.is_file() and not name.endswith((".gz", ".png", ".svg", ".pdf", ".sqlite")):
            files.append(path)
    return files


def test_no_file_cites_a_paper_by_its_file_name():
    bad = []
    for path in tracked_text_files():
        rel = path.relative_to(ROOT).as_posix()
        if rel == "docs/references.md":
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if CITES_BY_FILE.search(line):
                bad.append(f"{rel}:{i}: {line.strip()}")
    assert not bad, "cite the paper (docs/references.md), not its file:\n" + "\n".join(bad)


def test_references_define_every_key_in_use():
    text = (ROOT / "docs" / "references.md").read_text(encoding="utf-8")
    for key in KEYS:
        assert f"## [{key}]" in text
    used = set()
    for path in tracked_text_files():
        used |= set(re.findall(r"\[([A-Z][a-z]+\d{4})\]", path.read_text(encoding="utf-8")))
    assert used <= set(KEYS), f"undefined keys: {sorted(used - set(KEYS))}"
    assert "10.15803/ijnc.11.1_2" in text and "hal-03508937" in text and "hal-02082818" in text
    assert "hal-03643403" in text


def test_nothing_points_outside_the_clone():
    bad = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
           for p in tracked_text_files()
           for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
           if any(o in line for o in OUTSIDE)]
    assert not bad, "\n".join(bad)
