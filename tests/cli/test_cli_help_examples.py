"""Every example of every ``--help`` works from an empty folder with the package installed.

An example used to name ``instances/kinp/figure-1-1.json`` or ``campaigns/fig5-tenth.toml``: paths
of a clone, which fail from an installed wheel. Running all 100-odd examples takes many minutes
(benchmarks, full campaigns), so this test checks what makes an example fail from an empty
folder, for every one of them:

* it parses with the command line's own parser (an option renamed or misspelt fails here);
* every file it reads is either bundled with the package (resolved the way the command resolves
  it: an instance, trace, workload or spec by name, a path under ``instances/``), or written by
  an example before it (``-o``, ``--db``, ``--failures-out``, ``> FILE``, the database
  ``coschedule simulate NAME`` writes), or the database of a bundled campaign spec.

``test_cheap_examples_run`` then runs, for real, in an empty folder, the examples that take a
second or two: their exit status must be 0.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from coschedule.cli import build_parser
from coschedule.data import find_trace, instance_path, instances_dir, spec_path

#: the namespace attributes that name a file a command reads
INPUTS = ("instance", "scenario", "solution", "workload", "failures", "occupied", "pack", "db", "spec", "trace",
          "instances", "input", "path")
#: options whose value is a file the command writes
OUTPUTS = ("-o", "--output", "--db", "--failures-out", "--csv", "--plot", "--gantt")


def _commands(parser: argparse.ArgumentParser, prefix: list[str]):
    yield prefix, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, [*prefix, name])


def examples() -> list[tuple[str, str]]:
    """``(command, example)`` of every help, in the order of ``coschedule --help`` and its
    commands, continuation lines joined, each example once."""
    out: list[tuple[str, str]] = []
    seen = set()
    for prefix, parser in _commands(build_parser(), []):
        lines = parser.format_help().splitlines()
        k = 0
        while k < len(lines):
            raw = lines[k]
            line = raw.strip()
            k += 1
            if not (raw.startswith(" ") and line.startswith("coschedule ")):  # examples are indented
                continue
            while line.endswith("\\") and k < len(lines):
                line = line[:-1].rstrip() + " " + lines[k].strip()
                k += 1
            if "[" in line or line in seen:  # a synopsis (`[--seed K]`), not an example
                continue
            seen.add(line)
            out.append((" ".join(prefix) or "coschedule", line))
    return out


def _resolves(value: str, made: set[str]) -> bool:
    if value in made or Path(value).name in made:
        return True
    if instance_path(value) != value or (instances_dir() / value).is_file():
        return True
    try:
        find_trace(value)
        return True
    except Exception:  # noqa: BLE001 - not a trace
        pass
    try:
        if spec_path(value).is_file():
            return True
    except Exception:  # noqa: BLE001 - not a spec
        pass
    if value.endswith(".sqlite"):  # the database `coschedule simulate NAME` writes
        try:
            return spec_path(value[: -len(".sqlite")]).is_file()
        except Exception:  # noqa: BLE001
            return False
    return False


def _steps(example: str) -> list[tuple[list[str], str | None]]:
    """The ``coschedule`` commands of an example line, each with the file its output is
    redirected to (``> FILE``)."""
    text = example.split("  #")[0].split(" # ")[0]
    steps = []
    for part in text.split("&&"):
        part = part.split("|")[0]
        target = None
        if ">" in part:
            part, target = part.split(">", 1)
            target = target.strip()
        tokens = shlex.split(part)
        if tokens and tokens[0] == "coschedule":
            steps.append((tokens[1:], target))
    return steps


def test_there_are_examples_in_every_family() -> None:
    found = {cmd.split()[0] for cmd, _ in examples() if cmd != "coschedule"}
    assert {"solve", "run", "batch", "torus", "redistrib", "simulate", "report", "bench", "convert"} <= found
    assert len(examples()) >= 80


def test_every_example_parses_and_reads_only_what_exists_from_an_empty_folder(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # an empty folder: nothing of a clone is found relative to it
    made: set[str] = set()
    problems = []
    for where, example in examples():
        for argv, target in _steps(example):
            try:
                args = build_parser().parse_args(argv)
            except SystemExit:
                problems.append(f"{where}: does not parse: {example}")
                continue
            for name in INPUTS:
                if name == "db" and argv[0] == "simulate":  # simulate writes its database
                    continue
                value = getattr(args, name, None)
                for v in ([value] if isinstance(value, str) else value or []):
                    if isinstance(v, str) and not _resolves(v, made):
                        problems.append(f"{where}: {v!r} is not bundled nor made before: {example}")
            for k, token in enumerate(argv[:-1]):
                if token in OUTPUTS:
                    made.add(argv[k + 1])
            if argv and argv[0] == "simulate" and len(argv) > 1 and not argv[1].startswith("-"):
                made.add(f"{Path(argv[1]).stem}.sqlite")
            if target:
                made.add(target)
    assert not problems, "\n".join(problems)


#: examples that take a second or two, run for real (the others: benchmarks, whole campaigns)
CHEAP = ("coschedule solve figure-1-1 --k 3", "coschedule run pack-approx figure-1-1",
         "coschedule run r-list-0 small-n8-P8 --qbar 0.3 --seed 1 -o sched.json",
         "coschedule verify small-n8-P8 sched.json",
         "coschedule convert KTH-SP2-1996-2.1-cln --day 7 -o kth-day7.json",
         "coschedule run r-list-0 kth-day7.json --qbar 0.1",
         "coschedule torus mfp --occupied torus/example-8x8x8.txt",
         "coschedule simulate fig5 --dry-run",
         "coschedule examples --path fig5-tenth")


def test_cheap_examples_run_from_an_empty_folder(tmp_path: Path) -> None:
    listed = {e.split("  #")[0].split(" # ")[0].strip() for _, e in examples()}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    for example in CHEAP:
        assert example in listed, example  # still an example of some help
        argv = shlex.split(example)[1:]
        done = subprocess.run([sys.executable, "-m", "coschedule", *argv], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (example, done.stderr)
