"""Start-up: the command line imports the heavy libraries only for the commands that use them.

``coschedule --help``, every ``coschedule CMD --help``, ``coschedule examples`` and ``coschedule
docs`` build the whole parser; none of them may import numpy, numba (nor the compiled kernels,
which all go through :mod:`coschedule.jit`), OR-Tools, PuLP, matplotlib, networkx, scipy or
pandas (docs/benchmarks.md, "Start-up": 0.1 s instead of 0.6-1 s). Each check runs in a fresh
interpreter, since the test session has imported them all.
"""

from __future__ import annotations

import json
import subprocess
import sys

#: what building the parser must not import
HEAVY = ("numpy", "numba", "llvmlite", "ortools", "pulp", "matplotlib", "networkx", "scipy", "pandas",
         "coschedule.jit")


def _imported_by(code: str) -> list[str]:
    """The modules of :data:`HEAVY` that ``code`` imports, in a fresh interpreter."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_importing_the_cli_imports_nothing_heavy() -> None:
    assert _imported_by("import coschedule.cli") == []


def test_building_the_parser_imports_nothing_heavy() -> None:
    assert _imported_by("import coschedule.cli\ncoschedule.cli.build_parser()") == []


HELP_OF_EVERY_COMMAND = """
import argparse, contextlib, io
import coschedule.cli

def commands(parser, prefix):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield prefix + [name]
                yield from commands(sub, prefix + [name])

argvs = [[], ["redistrib", "generate"], ["bench", "batch"], *commands(coschedule.cli.build_parser(), [])]
for argv in argvs:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        coschedule.cli.main([*argv, "--help"])
with contextlib.redirect_stdout(io.StringIO()):
    coschedule.cli.main(["examples"])
    coschedule.cli.main(["docs"])
"""


def test_every_help_and_the_listings_import_nothing_heavy() -> None:
    assert _imported_by(HELP_OF_EVERY_COMMAND) == []
