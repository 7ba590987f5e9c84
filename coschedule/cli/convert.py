"""``coschedule convert``: workload traces into the toolkit's instance files.

An SWF trace (the Parallel Workloads Archive's format, ``.swf`` or ``.swf.gz``) becomes a
``coschedule/rigid-instance`` (``--to rigid``, the default): the jobs submitted on one day (the
day-sets of campaigns), or every usable job of the log. What is kept and dropped is
:func:`coschedule.swf.day_sets`'s rule. With ``--to batsim`` it becomes a Batsim JSON workload,
the online jobs of :func:`coschedule.sim.workload_from_swf` (submit times kept), which
``coschedule batch`` and Batsim run.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..data import instance_path
from ..errors import CoscheduleError
from .common import (
    SWF_SUFFIXES,
    Formatter,
    emit_json,
    load_instance_arg,
    nonnegative_int,
    positive_int,
)

__all__ = ["cmd_convert", "register"]

#: where this family stands in ``coschedule --help`` (the CLI discovers its families)
HELP_ORDER = 30


def cmd_convert(args: argparse.Namespace) -> int:
    from ..io import save_rigid_instance

    source = instance_path(args.source)
    if not source.lower().endswith(SWF_SUFFIXES):
        raise CoscheduleError(f"{args.source}: expected an SWF trace (.swf or .swf.gz)")
    if args.to == "batsim":
        return _to_batsim(source, args)
    if args.nodes is not None:
        raise CoscheduleError("--nodes applies to --to batsim (a rigid instance's P is the header's)")
    instance = load_instance_arg(source, day=args.day)
    save_rigid_instance(instance, args.output)
    jobs = "jobs of day " + str(args.day) if args.day is not None else "usable jobs of the trace"
    if args.json:
        emit_json({"output": args.output, "format": "coschedule/rigid-instance", "name": instance.name,
                   "n": instance.n, "P": instance.P, "day": args.day})
    else:
        print(f"wrote {args.output}: rigid instance {instance.name}, the {instance.n} {jobs}, "
              f"P = {instance.P}")
    return 0


def _to_batsim(source: str, args: argparse.Namespace) -> int:
    from ..sim.workload import write_batsim
    from .common import load_workload_arg

    if args.day is not None:
        raise CoscheduleError("--day applies to --to rigid; a Batsim workload keeps every usable job "
                              "with its submit time")
    workload = load_workload_arg(source, nodes=args.nodes)
    if workload.n == 0:
        raise CoscheduleError(f"{source}: no usable job ({workload.dropped} dropped: run time or size unknown); "
                              f"nothing written")
    write_batsim(workload, args.output)
    if args.json:
        emit_json({"output": args.output, "format": "batsim", "name": workload.name, "n": workload.n,
                   "nodes": workload.n_nodes, "dropped": workload.dropped})
    else:
        print(f"wrote {args.output}: Batsim workload {workload.name}, {workload.n} jobs "
              f"({workload.dropped} dropped: run time or size unknown), {workload.n_nodes} nodes")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "convert", formatter_class=Formatter,
        help="turn a day (or all) of an SWF workload trace into a rigid-instance file, or a trace "
        "into a Batsim workload",
        description="Write the jobs of an SWF trace as a coschedule/rigid-instance JSON file: a job "
        "is kept when its run time and processor count are > 0 (allocated processors, else "
        "requested), whatever its status; P is the header's MaxProcs (else MaxNodes, else the widest "
        "job). With --day N, only the jobs submitted on day N (0-based calendar days of the log, in "
        "its time zone), the day-sets that campaigns use. With --to batsim, a Batsim JSON workload "
        "instead: the same jobs with their submit times and wall times (the requested time when it "
        "is at least the run time, else the run time), on nb_res = MaxProcs (or --nodes) nodes, for "
        "coschedule batch.",
        epilog="examples:\n"
        "  coschedule convert KTH-SP2-1996-2.1-cln --day 7 -o kth-day7.json\n"
        "  coschedule convert KTH-SP2-1996-2.1-cln --day 7 -o kth-day7.json   # a bundled trace by name\n"
        "  coschedule run r-list-0 kth-day7.json --qbar 0.1\n"
        "  coschedule run r-list-0 KTH-SP2-1996-2.1-cln --day 7 --qbar 0.1  "
        "# the same, read directly\n"
        "  coschedule convert KTH-SP2-1996-2.1-cln --to batsim -o kth.json   # the online jobs, for batch\n",
    )
    p.add_argument("source", help="an SWF trace (.swf or .swf.gz), or a bundled trace's name")
    p.add_argument("-o", "--output", required=True, help="the JSON file to write")
    p.add_argument("--to", choices=("rigid", "batsim"), default="rigid",
                   help="rigid: a coschedule/rigid-instance (default); batsim: a Batsim JSON workload")
    p.add_argument("--nodes", type=positive_int, default=None, metavar="N",
                   help="--to batsim: the platform's nodes (default: the header's MaxProcs, else MaxNodes)")
    p.add_argument("--day", type=nonnegative_int, default=None,
                   help="only the jobs submitted on day N (0-based); default: every usable job")
    p.add_argument("--json", action="store_true", help="a JSON summary of what was written")
    p.set_defaults(func=cmd_convert)
