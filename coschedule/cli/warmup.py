"""``coschedule warmup``: compile the toolkit's numba kernels once, into numba's on-disk cache, so
that no later command waits for a compile (:func:`coschedule.heuristics.warmup.warm_up`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .common import Formatter, emit_json

__all__ = ["cmd_warmup", "register"]

#: where this family stands in ``coschedule --help`` (the CLI discovers its families)
HELP_ORDER = 95

#: the families of :data:`coschedule.heuristics.warmup.KERNELS` (listed here for --help, which
#: imports no kernel; a test checks that the two agree)
FAMILIES = ("batch-easy", "batch-conservative-count", "batch-conservative-nodes", "batch-stealing-count",
            "batch-stealing-nodes", "rigid", "redistribution")


def cmd_warmup(args: argparse.Namespace) -> int:
    from coschedule import jit
    from coschedule.heuristics.warmup import warm_up

    from ..errors import unknown_name

    families = FAMILIES if args.only is None else tuple(f.strip() for f in args.only.split(",") if f.strip())
    for family in families:
        if family not in FAMILIES:
            raise unknown_name("kernel family", family, FAMILIES, context="(--only)")
    where = jit.CACHE_DIR or "numba's default location"
    if not jit.HAVE_NUMBA:
        print("coschedule warmup: numba is not installed: nothing to compile (the reference code runs)",
              file=sys.stderr)
    elif not args.json:
        print(f"compiling the numba kernels into {where}; each family once (about 10 s of CPU each the "
              "first time, nothing once cached)", file=sys.stderr)

    def progress(family: str) -> None:
        if not args.json and jit.HAVE_NUMBA:
            print(f"  {family} ...", end="", file=sys.stderr, flush=True)

    done = []
    for family in families:
        (w,) = warm_up([family], progress=progress)
        done.append(w)
        if not args.json and jit.HAVE_NUMBA:
            what = f"compiled, {w.cpu_s:.1f} s of CPU" if w.compiled else f"in the cache ({w.cpu_s:.2f} s)"
            print(f" {what}", file=sys.stderr)
    if args.json:
        emit_json({"cache_dir": jit.CACHE_DIR, "numba": jit.HAVE_NUMBA,
                   "families": [{"family": w.family, "compiled": list(w.compiled), "cpu_s": w.cpu_s} for w in done]})
    else:
        total = sum(w.cpu_s for w in done)
        fresh = sum(1 for w in done if w.compiled)
        print(f"{fresh} of {len(done)} kernel families compiled, {total:.1f} s of CPU; cached in {where}")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "warmup", formatter_class=Formatter,
        help="compile the numba kernels once (the first run of a command otherwise does)",
        description="Compile the toolkit's numba kernels into numba's on-disk cache, so that no later "
        "command waits for a compile: the batch kernel once per policy family (FCFS and EASY; "
        "conservative on counts; on nodes; node stealing on counts; on nodes), the rigid heuristics' "
        "kernels and the redistribution heuristics'. Without it, the first command that needs a family "
        "compiles it (10-15 s of CPU, said on stderr) and the next ones load it. The cache is "
        "$NUMBA_CACHE_DIR, else $XDG_CACHE_HOME/coschedule/numba, else ~/.cache/coschedule/numba; "
        "a new version of the toolkit compiles again. About a minute and a half of CPU in all the first "
        "time, a second once cached.",
        epilog="examples:\n"
        "  coschedule warmup\n"
        "  coschedule warmup --only batch-easy,batch-conservative-nodes\n",
    )
    p.add_argument("--only", metavar="FAMILIES", default=None,
                   help="comma-separated families, of: " + ", ".join(FAMILIES))
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_warmup)
