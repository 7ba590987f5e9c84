"""``coschedule policies``: every policy a command can take, built in and registered by installed
packages (entry points, :mod:`coschedule.plugins`), one line each, by simulator kind; and how to
name one of your own (``FILE.py:CLASS``, ``MODULE:CLASS``; ``coschedule docs own-policy``)."""

from __future__ import annotations

import argparse
from typing import Any

from .common import Formatter, emit_json

__all__ = ["cmd_policies", "register"]

#: where this family stands in ``coschedule --help``
HELP_ORDER = 85

#: simulator kind -> (the commands that take its policies, how they take them)
_TAKEN_BY = {
    "batch": "coschedule batch --policy NAME; coschedule simulate (simulator = \"batch\", policies = [...])",
    "torus": "coschedule torus simulate --policy NAME; coschedule simulate (simulator = \"torus\", policies = [...])",
    "redistribution": "coschedule redistrib --at-end NAME --at-failure NAME (your own: a class with on_end / on_failure)",
    "priority": "coschedule run HEURISTIC --priority NAME; coschedule simulate (rigid: priorities = [...])",
}

_TORUS = {
    "fcfs": "Krevat's FCFS with backfilling and migration: the partition that loses the least MFP ([Oliner2004] §5.1)",
    "balancing": "fault-aware: least MFP loss plus P_f times the job's size, its predictor of confidence a (§5.2.1)",
    "tiebreak": "fault-aware: least MFP loss, ties to a partition predicted safe, its predictor of accuracy a (§5.2.2)",
}
_AT_END = {
    "none": "no redistribution when an application ends",
    "local": "EndLocal: the free processors go two by two to the longest application while it gains ([Aupy2017] §1.5.2)",
    "greedy": "EndGreedy: Algorithm 1 again over the applications and the free processors (§1.5.2)",
}
_AT_FAILURE = {
    "none": "no redistribution at a failure",
    "saf": "ShortestApplicationsFirst: the struck application gets free processors, then pairs of the shortest (§1.5.3)",
    "iterated": "IteratedGreedy: the EndGreedy rebuild at the failure, the struck application included (§1.5.3)",
}
_PRIORITY = {
    "LPT": "longest processing time first", "SPT": "shortest processing time first",
    "HPA": "highest processor allocation first", "LPA": "lowest processor allocation first",
    "LA": "largest area (procs x time) first", "SA": "smallest area first",
    "RANDOM": "a random order (from the seed)", "LJF": "large jobs first, by decreasing procs, then LPT",
}


def _batch() -> list[tuple[str, str]]:
    from coschedule.heuristics.batch.policies import BATCH_POLICIES
    from coschedule.plugins import describe

    out = []
    for name, cls in BATCH_POLICIES.items():
        if name.startswith("h") and name[1:].isdigit() and name != "h111":
            continue
        text = describe(cls).replace(" (module docstring)", "")
        if name == "h111":
            name, text = "h111..h323", ("node stealing Hxyz: timing T1-T3, victim V1-V2, criterion K1-K3 "
                                        "([Du2024] §7); sfsj is h111")
        out.append((name, text))
    return out


def builtin(kind: str) -> list[tuple[str, str]]:
    """``(name, one-line description)`` of the built-in policies of ``kind``."""
    if kind == "batch":
        return _batch()
    if kind == "torus":
        return list(_TORUS.items())
    if kind == "redistribution":
        return [(f"--at-end {k}", v) for k, v in _AT_END.items()] + [(f"--at-failure {k}", v) for k, v in _AT_FAILURE.items()]
    return list(_PRIORITY.items())


def registered(kind: str) -> list[tuple[str, str, str]]:
    """``(name, description, where)`` of the policies installed packages register for ``kind``;
    one that does not load says why."""
    from coschedule import plugins
    from coschedule.errors import CoscheduleError

    out = []
    for name, ep in sorted(plugins.registered(kind).items()):
        try:
            src = plugins.resolve(name, kind)
            text = plugins.describe(plugins.load(src)) if src is not None else ""
        except CoscheduleError as e:
            text = f"(cannot load: {e})"
        dist = getattr(getattr(ep, "dist", None), "name", None)
        out.append((name, text, f"{ep.value}" + (f" from {dist}" if dist else "")))
    return out


def cmd_policies(args: argparse.Namespace) -> int:
    from coschedule.plugins import GROUPS

    kinds = [args.kind] if args.kind else list(GROUPS)
    installed = {kind: registered(kind) for kind in kinds}  # each entry point loaded once
    if args.json:
        emit_json({kind: {"taken_by": _TAKEN_BY[kind], "group": GROUPS[kind],
                          "builtin": [{"name": n, "description": d} for n, d in builtin(kind)],
                          "registered": [{"name": n, "description": d, "entry_point": w}
                                         for n, d, w in installed[kind]]} for kind in kinds})
        return 0
    for i, kind in enumerate(kinds):
        if i:
            print()
        print(f"{kind} ({_TAKEN_BY[kind]}):")
        rows = [(n, d) for n, d in builtin(kind)]
        rows += [(n, f"{d} [{w}]".strip()) for n, d, w in installed[kind]]
        width = max(len(n) for n, _ in rows)
        for n, d in rows:
            print(f"  {n:<{width}}  {d}")
        what = "FUNCTION" if kind == "priority" else "CLASS"
        print(f"  your own: FILE.py:{what} or MODULE:{what}, or a package's entry point in {GROUPS[kind]}"
              + ("" if installed[kind] else " (none installed)"))
    print("\nwriting one: coschedule docs own-policy")
    return 0


def register(sub: Any) -> None:
    from coschedule.plugins import GROUPS

    p = sub.add_parser(
        "policies", formatter_class=Formatter,
        help="list every policy a command can take, built in and installed, and how to name your own",
        description="List the policies each simulator kind can run, one line each: the built-in ones, then "
        "those that installed packages register under the entry-point group of the kind "
        "(coschedule.policies.batch, .torus, .redistribution, .priority). Any command that takes a policy name "
        "also takes your own: a class in a file (FILE.py:CLASS) or in an importable module (MODULE:CLASS).",
        epilog="examples:\n"
        "  coschedule policies\n"
        "  coschedule policies --kind batch\n"
        "  cp \"$(coschedule examples --path easy_sjf)\" .\n"
        "  coschedule batch KTH-SP2-1996-2.1-cln --policy easy_sjf.py:EasySJF     # your own policy\n",
    )
    p.add_argument("--kind", choices=list(GROUPS), help="only this simulator kind")
    p.add_argument("--json", action="store_true", help="as JSON")
    p.set_defaults(func=cmd_policies)
