"""The commands the README and the docs' index show run as written, in order, from a clone.

The README's tour and the quick start of docs/index.md are read from the files themselves, so a
command edited there is the command tested. Each block runs in a fresh folder holding a copy of
the clone's instances/ and campaigns/ (commands write their files there), with the ``coschedule``
of this interpreter first on the PATH. The README's Python example runs too.

The transcripts of docs/batch.md and docs/clairvoyant.md (plain fenced blocks of ``$ command`` lines, each followed by
what it prints) run in order too, and print exactly what the page shows: what the command writes
on stderr (the files it wrote, or its error), then its stdout, as a terminal shows them. So do
docs/torus.md's and docs/redistribution.md's, whose ``python`` blocks are doctests.
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _block(path: Path, heading: str, lang: str) -> str:
    """The first fenced ``lang`` block after the line ``heading``."""
    text = path.read_text(encoding="utf-8")
    start = text.index(heading)
    match = re.search(rf"^```{lang}\n(.*?)^```", text[start:], flags=re.S | re.M)
    assert match, f"{path.name}: no ```{lang} block after {heading!r}"
    return match.group(1)


def _commands(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]


@pytest.fixture
def clone_dir(tmp_path: Path) -> Path:
    for name in ("instances", "campaigns"):
        shutil.copytree(ROOT / name, tmp_path / name)
    return tmp_path


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL, check=False)
    assert "Traceback" not in proc.stderr, f"{command}\n{proc.stderr}"
    return proc


def _run_all(commands: list[str], cwd: Path) -> None:
    for command in commands:
        proc = _run(command, cwd)
        assert proc.returncode == 0, f"{command}\nexit {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"


def _transcripts(path: Path) -> list[tuple[str, str]]:
    """``(command, output)`` of every ``$ command`` line of the plain fenced blocks of ``path``."""
    items: list[tuple[str, list[str]]] = []
    fenced = re.findall(r"^```(\w*)\n(.*?)^```", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    for lang, block in fenced:  # every fenced block, so that a python block's closing fence opens none
        if lang or not block.startswith("$ "):
            continue
        for line in block.splitlines():
            if line.startswith("$ "):
                items.append((line[2:], []))
            else:
                items[-1][1].append(line)
    return [(command, "\n".join(lines)) for command, lines in items]


def test_readme_tour_runs_as_written_from_an_empty_folder(tmp_path):
    """Nothing of the clone beside it: what the tour reads is bundled with the package."""
    commands = _commands(_block(ROOT / "README.md", "## A tour of the CLI", "sh"))
    assert len(commands) >= 10 and all(c.startswith("coschedule ") for c in commands)
    _run_all(commands, tmp_path)
    # the files the tour says it writes
    for name in ("inst.json", "solution.json", "g.png", "rl.json", "ce/schedules.png", "demo.sqlite",
                 "demo.png", "demo.svg", "jobs.csv", "toy.png", "torus.png", "pack.png"):
        assert (tmp_path / name).stat().st_size > 0, name


def test_readme_setup_commands_are_the_ci_command():
    """The README's test command is exactly what .ci/run runs."""
    test_cmd = _commands(_block(ROOT / "README.md", "Run the whole test suite", "sh"))
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert test_cmd and test_cmd[0] in ci


def test_index_quick_start_runs_as_written(clone_dir):
    commands = _commands(_block(ROOT / "docs" / "index.md", "Quick start", "sh"))
    assert len(commands) >= 5
    _run_all(commands, clone_dir)


def test_readme_python_example(clone_dir, monkeypatch, capsys):
    monkeypatch.chdir(clone_dir)
    exec(compile(_block(ROOT / "README.md", "From Python", "python"), "README.md", "exec"), {})
    ratio = float(capsys.readouterr().out.split()[-1])
    assert 1.0 <= ratio <= 2 - 1 / 10000


def test_clairvoyant_guide_transcripts_print_what_they_show(clone_dir):
    """docs/clairvoyant.md: the toy example's optimum as the page shows it."""
    items = _transcripts(ROOT / "docs" / "clairvoyant.md")
    assert len(items) >= 2 and all("--optimal" in command for command, _ in items)
    for command, expected in items:
        proc = _run(command, clone_dir)
        shown = (proc.stderr + proc.stdout).rstrip("\n")
        assert shown == expected, f"$ {command}\n--- the page shows\n{expected}\n--- it prints\n{shown}"
        assert proc.returncode == 0, f"$ {command}: exit {proc.returncode}"


def test_batch_guide_transcripts_print_what_they_show(clone_dir):
    """docs/batch.md: every command runs, in order, and prints what the page shows; a command
    whose output is an error exits 2."""
    items = _transcripts(ROOT / "docs" / "batch.md")
    assert len(items) >= 10 and items[0][0].startswith("cat instances/batch/")
    for command, expected in items:
        proc = _run(command, clone_dir)
        shown = (proc.stderr + proc.stdout).rstrip("\n")
        assert shown == expected, f"$ {command}\n--- the page shows\n{expected}\n--- it prints\n{shown}"
        assert proc.returncode == (2 if "error:" in expected else 0), f"$ {command}: exit {proc.returncode}"
    assert (clone_dir / "toy.png").stat().st_size > 0 and (clone_dir / "jobs.csv").stat().st_size > 0


def test_stealing_guide_transcripts_print_what_they_show(clone_dir):
    """docs/stealing.md: the toy example under node stealing, as the page shows it."""
    items = _transcripts(ROOT / "docs" / "stealing.md")
    assert len(items) >= 2 and "--policy sfsj" in items[0][0]
    for command, expected in items:
        proc = _run(command, clone_dir)
        shown = (proc.stderr + proc.stdout).rstrip("\n")
        assert shown == expected, f"$ {command}\n--- the page shows\n{expected}\n--- it prints\n{shown}"
        assert proc.returncode == 0, f"$ {command}: exit {proc.returncode}"
    assert "J3" in (clone_dir / "h311.csv").read_text()


def test_torus_guide_transcripts_print_what_they_show(clone_dir):
    """docs/torus.md: the occupancy example and the commands, as the page shows them; a command
    whose output is an error exits 2."""
    items = _transcripts(ROOT / "docs" / "torus.md")
    assert len(items) >= 5 and items[0][0] == "cat instances/torus/example-8x8x8.txt"
    assert any(command.startswith("coschedule torus mfp ") for command, _ in items)
    for command, expected in items:
        proc = _run(command, clone_dir)
        shown = (proc.stderr + proc.stdout).rstrip("\n")
        assert shown == expected, f"$ {command}\n--- the page shows\n{expected}\n--- it prints\n{shown}"
        assert proc.returncode == (2 if "error:" in expected else 0), f"$ {command}: exit {proc.returncode}"


def test_torus_guide_python_examples_are_real(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = doctest.testfile(str(ROOT / "docs" / "torus.md"), module_relative=False, encoding="utf-8",
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 10 and result.failed == 0


def test_redistribution_guide_transcripts_print_what_they_show(clone_dir):
    """docs/redistribution.md: the pack written by `redistrib generate`, the runs and the errors,
    as the page shows them; a command whose output is an error exits 2."""
    items = _transcripts(ROOT / "docs" / "redistribution.md")
    assert len(items) >= 8 and items[0][0].startswith("coschedule redistrib generate ")
    for command, expected in items:
        proc = _run(command, clone_dir)
        shown = (proc.stderr + proc.stdout).rstrip("\n")
        assert shown == expected, f"$ {command}\n--- the page shows\n{expected}\n--- it prints\n{shown}"
        assert proc.returncode == (2 if "error:" in expected else 0), f"$ {command}: exit {proc.returncode}"
    assert (clone_dir / "run.png").stat().st_size > 0 and (clone_dir / "timeline.csv").stat().st_size > 0


def test_redistribution_guide_python_examples_are_real(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = doctest.testfile(str(ROOT / "docs" / "redistribution.md"), module_relative=False, encoding="utf-8",
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 10 and result.failed == 0


def test_own_policy_tutorial_runs_as_written_from_an_empty_folder(tmp_path, monkeypatch, capsys):
    """docs/own-policy.md: its commands, in order, in an empty folder (the example policy comes from
    the package); the policy the page prints is the bundled file; its Python example runs."""
    page = ROOT / "docs" / "own-policy.md"
    commands = _commands(_block(page, "## The tutorial, as commands", "sh"))
    assert commands[0].startswith("cp ") and len(commands) == 5
    _run_all(commands, tmp_path)
    assert (tmp_path / "jobs.csv").stat().st_size > 0
    assert (tmp_path / "mine.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    shown = _block(page, "## The policy", "python")
    assert shown == (ROOT / "coschedule" / "examples" / "easy_sjf.py").read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    exec(compile(_block(page, "## From Python", "python"), "own-policy.md", "exec"), {})
    assert capsys.readouterr().out.startswith("easy-sjf 28")
