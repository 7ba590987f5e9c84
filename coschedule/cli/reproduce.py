"""``coschedule reproduce PAPER``: a paper's experiments in one command, with a report of every claim.

Thin: find the paper (:func:`coschedule.reproduce.get_paper`), run its reproduction
(:func:`coschedule.reproduce.reproduce`: campaigns, figures, claims, report), print the summary.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .common import Formatter, positive_int

__all__ = ["cmd_reproduce", "register"]

#: where this family stands in ``coschedule --help``
HELP_ORDER = 55

EPILOG = """\
examples:
  coschedule reproduce --list               # the papers, their claims, full-run times
  coschedule reproduce aupy2017 --quick     # minutes: reproduce-aupy2017-quick/report.html
  coschedule reproduce aupy2017 -o runs/a   # the full run; again to resume after a stop
  coschedule reproduce aupy2017 --dask tcp://localhost:8786

Each campaign of the paper goes to DIR/NAME.sqlite (DIR/NAME-quick.sqlite
with --quick) as its cells complete: a second call computes only what is
missing. Then the figures are drawn into DIR/figures/, every claim of the
paper's experimental section is judged (match, close, differs, not
comparable), and DIR/report.md, DIR/report.html (self-contained) and
DIR/report.json are written. A full run on 2 cores takes about 9 min
(aupy2017), 1 h 10 min (benoit2021), 9 min (du2024) and 2 h 10 min
(oliner2004); --list gives them with each paper's claims and campaigns.
"""


def register(sub: Any) -> None:
    from coschedule.reproduce.registry import paper_keys

    p = sub.add_parser(
        "reproduce", formatter_class=Formatter,
        help="reproduce a paper's experiments: its campaigns, figures and a report of every claim against ours",
        description="Run the campaigns of one paper's experimental section, draw its figures in the paper's "
        "layout and write a report of each claim: the paper's value, ours with its 95 % interval, the verdict "
        "(match, close, differs, not comparable) and why.",
        epilog=EPILOG,
    )
    p.add_argument("paper", nargs="?", metavar="PAPER", help=f"the paper: {', '.join(paper_keys())}")
    p.add_argument("--list", action="store_true", help="list the papers (claims, campaigns, full-run time) and stop")
    p.add_argument("--quick", action="store_true",
                   help="the reduced grids (minutes on 2 cores); every page of the report says so")
    p.add_argument("-o", "--output", metavar="DIR",
                   help="the folder of the databases, figures and report (default reproduce-PAPER, "
                   "reproduce-PAPER-quick with --quick)")
    p.add_argument("--workers", type=positive_int, help="local worker processes (default: all cores)")
    p.add_argument("--dask", metavar="ADDRESS", help="run the cells on this Dask scheduler, e.g. tcp://host:8786")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--update-docs", metavar="DOCS",
                   help="for contributors, after a full run: keep its report as DOCS/reports/PAPER.json and "
                   "regenerate the claims table of the paper's page in DOCS (a clone's docs folder)")
    p.set_defaults(func=cmd_reproduce, kernels=True)


def _list() -> int:
    from coschedule.reproduce.registry import get_paper, paper_keys

    for key in paper_keys():
        paper = get_paper(key)
        print(f"{key:12s} {paper.cite} {paper.section}: {paper.title}")
        print(f"{'':12s} {len(paper.claims)} claims, {len(paper.figures)} figures, {len(paper.campaigns)} "
              f"campaigns; full run {paper.full_wall} on 2 cores; docs: {paper.doc}")
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    from coschedule.errors import CoscheduleError

    if args.list:
        return _list()
    if not args.paper:
        from coschedule.reproduce.registry import paper_keys

        raise CoscheduleError(f"name a paper ({', '.join(paper_keys())}), or --list")
    from coschedule.reproduce import get_paper, reproduce
    from coschedule.reproduce.report import format_seconds_wall, summary_line

    paper = get_paper(args.paper)
    if args.update_docs and args.quick:
        raise CoscheduleError("--update-docs keeps a full run's report: leave out --quick")
    if args.update_docs and not (Path(args.update_docs) / f"{paper.doc}.md").is_file():
        raise CoscheduleError(f"--update-docs {args.update_docs}: no {paper.doc}.md there (give a clone's docs folder)")
    out = args.output or f"reproduce-{paper.key}{'-quick' if args.quick else ''}"
    try:
        done = reproduce(paper, out, quick=args.quick, workers=args.workers, dask=args.dask,
                         progress=not args.quiet)
    except KeyboardInterrupt as e:
        from .. import signals

        print(f"coschedule reproduce: {signals.reason(e)}; the cells computed so far are saved in {out}; run the "
              "same command again to resume", file=sys.stderr)
        return signals.exit_status(e)
    print(f"{paper.cite} {paper.section}{' (quick run)' if args.quick else ''}: {summary_line(done)}")
    for f in done.files:
        print(f"wrote {f}")
    print(f"wall time {format_seconds_wall(done.seconds)} ({done.computed:,} cells computed, {done.resumed:,} "
          f"reused)" + (f"; the full run takes {paper.full_wall} on 2 cores" if args.quick else ""))
    if args.update_docs:
        from coschedule.reproduce.docs import update_docs

        for f in update_docs(paper.key, Path(out) / "report.json", Path(args.update_docs), paper.doc):
            print(f"wrote {f}")
    return 0
