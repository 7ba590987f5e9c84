"""``coschedule examples | docs``: the data bundled with the toolkit (:mod:`coschedule.data`).

``examples`` lists the example instances, campaign specs and workload traces, one line each, and
``--path NAME`` prints where one is installed (to copy it, or to read it); ``docs`` lists the
documentation pages and ``docs PAGE`` prints where one is (``--show``: prints the page itself).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..data import bundled, list_bundled
from .common import Formatter, emit_json

__all__ = ["cmd_docs", "cmd_examples", "register"]

#: where this family stands in ``coschedule --help`` (the CLI discovers its families)
HELP_ORDER = 100

#: the kinds ``coschedule examples`` lists, with their heading
_HEADINGS = {
    "instance": "instances and scenarios (coschedule solve NAME, coschedule run HEURISTIC NAME, --scenario NAME)",
    "spec": "campaign specs (coschedule simulate NAME)",
    "trace": "workload traces (a spec's swf path, or coschedule simulate --trace NAME)",
    "policy": "example policies of your own (copy one, then --policy FILE.py:CLASS; coschedule docs own-policy)",
}


def cmd_examples(args: argparse.Namespace) -> int:
    if args.path:
        print(bundled(args.path, None if args.kind is None else args.kind).path)
        return 0
    kinds = [args.kind] if args.kind else list(_HEADINGS)
    items = [b for kind in kinds for b in list_bundled(kind)]
    if args.json:
        emit_json([{"kind": b.kind, "name": b.name, "aliases": list(b.aliases), "path": str(b.path),
                    "summary": b.summary()} for b in items])
        return 0
    for kind in kinds:
        print(f"{_HEADINGS[kind]}:")
        mine = [b for b in items if b.kind == kind]
        width = max((len(b.name) for b in mine), default=0)
        for b in mine:
            print(f"  {b.name:<{width}}  {b.summary()}")
    return 0


def cmd_docs(args: argparse.Namespace) -> int:
    if not args.page:
        pages = list_bundled("doc")
        if args.json:
            emit_json([{"name": b.name, "path": str(b.path), "title": b.summary()} for b in pages])
            return 0
        width = max((len(b.name) for b in pages), default=0)
        for b in pages:
            print(f"{b.name:<{width}}  {b.summary()}")
        return 0
    page = bundled(args.page, "doc")
    if args.show:
        sys.stdout.write(page.path.read_text(encoding="utf-8"))
    else:
        print(page.path)
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "examples", formatter_class=Formatter,
        help="list the bundled example instances, campaign specs and workload traces",
        description="List the data that ships with coschedule, one line each: example instances and "
        "failure scenarios, the campaign specs that reproduce the papers' experiments, and the "
        "Parallel Workloads Archive traces. Wherever a command takes an instance file or a spec, "
        "a bundled item's NAME works too (an existing file of that name wins).",
        epilog="examples:\n"
        "  coschedule examples\n"
        "  coschedule examples --kind trace\n"
        "  coschedule examples --path fig5-tenth            # where the spec is installed\n"
        "  cp \"$(coschedule examples --path fig5-tenth)\" my-campaign.toml\n"
        "  coschedule solve figure-1-1 --k 3                # a bundled instance by name\n",
    )
    p.add_argument("--path", metavar="NAME", help="print the path of the bundled file NAME")
    p.add_argument("--kind", choices=list(_HEADINGS), help="only this kind")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_examples)

    p = sub.add_parser(
        "docs", formatter_class=Formatter,
        help="list the bundled documentation pages, or print where one is",
        description="The user guide (model, formats, CLI, algorithms, campaigns, references...) ships "
        "with coschedule as Markdown pages. Without PAGE, list them; with PAGE, print its path "
        "(or, with --show, the page itself).",
        epilog="examples:\n"
        "  coschedule docs\n"
        "  coschedule docs cli                              # the path of cli.md\n"
        "  coschedule docs cli --show | less\n",
    )
    p.add_argument("page", nargs="?", help="page name, e.g. cli, campaigns, formats, references")
    p.add_argument("--show", action="store_true", help="print the page instead of its path")
    p.add_argument("--json", action="store_true", help="machine-readable list of the pages")
    p.set_defaults(func=cmd_docs)
