"""The ``coschedule`` command line: a thin layer over the library.

One module (or package) per command family; each has ``register(sub)``, which adds its
subcommands and their functions to the parser, and ``HELP_ORDER``, where it stands in ``coschedule
--help``. The families are discovered (:data:`FAMILIES`): a new simulator kind adds its module here
and edits no other.

Each subcommand parses its arguments, calls one library function, validates what it got and
prints it (text, or JSON with ``--json``). Bad input is reported on one line naming the problem
and where, with exit status 2 and no traceback; a solution that fails verification exits 1. A
command that runs compiled kernels says on stderr, in one line, when numba compiles them (the
first run after an install; ``coschedule warmup`` compiles them all at once).

Building the parser imports no part of the library that needs numpy (each command imports what
it uses when it runs), so that ``coschedule --help`` and every ``CMD --help`` take 0.1 s
(`coschedule docs benchmarks`, "Start-up"; a test checks it).
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

from .. import __version__, signals
from ..errors import CoscheduleError
from .common import EXIT_USAGE, Formatter, OneLineErrorParser, compile_notice

__all__ = ["FAMILIES", "build_parser", "main"]



def _families() -> tuple[ModuleType, ...]:
    """The modules of this package that define ``register`` and ``HELP_ORDER``, in that order."""
    found = [importlib.import_module(f"{__name__}.{m.name}") for m in pkgutil.iter_modules(__path__)
             if not m.name.startswith("_")]
    return tuple(sorted((m for m in found if hasattr(m, "register") and hasattr(m, "HELP_ORDER")),
                        key=lambda m: m.HELP_ORDER))


#: the command families, in the order of ``coschedule --help``
FAMILIES = _families()


def build_parser() -> OneLineErrorParser:
    parser = OneLineErrorParser(
        prog="coschedule",
        formatter_class=Formatter,
        description="Scheduling parallel jobs on failure-prone HPC platforms. Exact solvers that "
        "state what they proved, the heuristics of the literature, their guarantees and "
        "counterexamples, and simulation campaigns on synthetic and real workloads, for five "
        "problems: co-scheduling moldable tasks in packs (k-in-p; Aupy et al., 2017); rigid jobs "
        "under silent errors (R-List, R-Shelf, R-ShelfFill; Benoit et al., IJNC 2021); online batch "
        "scheduling on nodes that fail (FCFS, EASY, conservative backfilling, node stealing; Du et "
        "al., 2024); fault-aware scheduling on a 3-D torus (Krevat's FCFS, Balancing, Tie-breaking; "
        "Oliner et al., 2004); and malleable applications whose processors are redistributed after "
        "an end or a failure (Aupy et al., 2017).",
        epilog="examples:\n"
        "  coschedule solve figure-1-1 --k 3 --compare     # k-in-p optimum\n"
        "  coschedule run pack-approx synthetic-n12-p32\n"
        "  coschedule run r-list-0 small-n8-P8 --qbar 0.3 --seed 1\n"
        "  coschedule counterexample prop3 --P 8                               # Prop. 3 lower bound\n"
        "  coschedule generate synthetic --n 20 --P 32 --seed 7 -o inst.json\n"
        "  coschedule simulate fig5-tenth && coschedule report fig5-tenth.sqlite\n"
        "  coschedule batch batch/toy.json --policy conservative --failures batch/toy-failures.csv --downtime 5\n"
        "  coschedule bench kinp --quick\n"
        "  coschedule examples             # the bundled instances, specs and traces, usable by name\n"
        "every command has --help with examples; `coschedule docs cli` for all of them "
        "(`coschedule docs` lists the guide's pages)",
    )
    parser.add_argument("--version", action="version", version=f"coschedule {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=OneLineErrorParser)
    for family in FAMILIES:
        family.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    command = "coschedule"
    try:
        # Ctrl-C and SIGTERM at any instant: one line, 130 or 143 (never inside numba: coschedule.signals);
        # the command line (no argv) ignores them once its command is over, a caller gets its handlers back
        with signals.handled(command, last=argv is None) as handling:
            args = build_parser().parse_args(argv)
            command = handling.prefix = f"coschedule {args.command}"
            with compile_notice(args):  # the first run of a kernel says that it compiles, and where it goes
                return int(args.func(args))
    except CoscheduleError as e:
        print(f"{command}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `coschedule solvers | head -1`: the reader left
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (silence the flush at exit)
        except OSError:
            pass
        return 0
    except OSError as e:
        print(f"{command}: error: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError as e:  # an allocation past the machine's memory (numpy names its size)
        detail = str(e).replace("Unable to allocate", "cannot allocate") or "an allocation failed"
        print(f"{command}: error: not enough memory: {detail}; use smaller sizes", file=sys.stderr)
        return EXIT_USAGE
    except ValueError as e:  # numpy's word for an array past its index range
        if "Maximum allowed dimension exceeded" not in str(e) and "array is too big" not in str(e):
            raise
        print(f"{command}: error: not enough memory: an array past numpy's largest size; use smaller sizes",
              file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM (signals.Terminated)
        return _interrupted(command, e)
    except RuntimeError as e:  # a Ctrl-C that Python wrapped (an import's __set_name__)
        stop = signals.interruption(e)
        if stop is None:
            raise
        return _interrupted(command, stop)


def _interrupted(command: str, stop: KeyboardInterrupt) -> int:
    if not signals.said(stop):  # said already when it waited for a compiled kernel
        print(f"{command}: {signals.reason(stop)}", file=sys.stderr)
    return signals.exit_status(stop)
