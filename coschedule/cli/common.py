"""What every command family of the CLI shares: the parser class, option types, output.

Errors in option values are reported on one line (``coschedule solve: error: argument --k:
expected a positive integer, got 0``) with exit status 2, never with the whole usage block.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any, NoReturn

__all__ = [
    "EXIT_INVALID",
    "EXIT_USAGE",
    "Formatter",
    "OneLineErrorParser",
    "emit_json",
    "positive_float",
    "positive_int",
]

EXIT_INVALID = 1  # a solution that fails verification
EXIT_USAGE = 2  # bad input


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the line breaks of descriptions and examples."""


class OneLineErrorParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit status 2.

    argparse prints the whole usage block before an error; a user who typed ``--k 0`` needs the
    one line that says what is wrong (``--help`` still shows the usage).
    """

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
    return value


def emit_json(data: Any) -> None:
    """Print ``data`` as indented JSON on stdout (no NaN; unknown objects as strings)."""
    json.dump(data, sys.stdout, indent=2, allow_nan=False, default=str)
    sys.stdout.write("\n")
