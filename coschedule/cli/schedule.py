"""``coschedule solve | run | verify | solvers``: schedule one instance, exactly or by a heuristic.

The instance file's format decides the problem: a ``coschedule/moldable-instance`` is k-in-p
co-scheduling (handled here), a ``coschedule/rigid-instance`` is rigid jobs under silent errors
(:mod:`coschedule.cli.rigid`).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ..errors import CoscheduleError, FormatError, InvalidSchedule, unknown_name
from ..results import ExactResult, Status
from .common import (
    EXIT_INVALID,
    Formatter,
    duration,
    emit_json,
    figure_path,
    load_instance_arg,
    nonnegative_int,
    positive_float,
    positive_int,
    write_figure,
)
from .rigid import add_rigid_options, run_rigid, solve_rigid, verify_rigid

if TYPE_CHECKING:  # numpy: imported by the commands, not to build the parser
    from ..model import CoSchedule, MoldableInstance
    from ..rigid import RigidInstance

__all__ = ["cmd_run", "cmd_solve", "cmd_solvers", "cmd_verify", "register"]

#: where this family stands in ``coschedule --help`` (the CLI discovers its families)
HELP_ORDER = 10


#: options that only mean something for one kind of instance: attribute -> spelling
MOLDABLE_ONLY = {"k": "--k", "compare": "--compare", "method": "--method", "solver": "--solver"}
RIGID_ONLY = {"scenario": "--scenario", "qbar": "--qbar", "seed": "--seed", "priority": "--priority",
              "contiguous": "--contiguous", "shelf": "--shelf", "best_order": "--best-order"}


def _load(args: argparse.Namespace) -> MoldableInstance | RigidInstance:
    """The instance of ``solve``/``run``, checked against the options that were given.

    An option of the other problem kind (``--k`` on rigid jobs, ``--qbar`` on moldable tasks) is
    an error, not silently ignored.
    """
    from ..rigid import RigidInstance

    instance = load_instance_arg(args.instance, day=args.day)
    rigid = isinstance(instance, RigidInstance)
    other = MOLDABLE_ONLY if rigid else RIGID_ONLY
    given = [flag for attr, flag in other.items() if getattr(args, attr, None) not in (None, False)]
    if given:
        kind = "rigid-job" if rigid else "moldable (k-in-p)"
        raise CoscheduleError(
            f"{', '.join(given)} cannot apply to {args.instance}: it is a {kind} instance"
        )
    if rigid:
        args.priority = args.priority or "LPT"
        args.seed = 0 if args.seed is None else args.seed
    return instance


def _check_heuristic(name: str, instance: MoldableInstance | RigidInstance, path: str) -> None:
    """``run``: the heuristic exists and fits the instance's kind (else one clear line)."""
    from coschedule.heuristics import HEURISTICS, RIGID_HEURISTICS

    from ..rigid import RigidInstance

    rigid = isinstance(instance, RigidInstance)
    mine, other = (RIGID_HEURISTICS, HEURISTICS) if rigid else (HEURISTICS, RIGID_HEURISTICS)
    kind, other_kind = ("rigid-job", "moldable (k-in-p)") if rigid else ("moldable (k-in-p)", "rigid-job")
    if name.lower() in mine:
        return
    if name.lower() in other:
        raise CoscheduleError(
            f"heuristic {name!r} needs a {other_kind} instance; {path} is a {kind} instance "
            f"(its heuristics: {', '.join(sorted(mine))})"
        )
    raise unknown_name("heuristic", name, list(mine), context=f"for a {kind} instance")


def _packs(count: int) -> str:
    return f"{count} pack" + ("" if count == 1 else "s")


def _pack_table(instance: MoldableInstance, cs: CoSchedule) -> str:
    lines = []
    for b, pack in enumerate(cs.packs):
        cost = pack.cost(instance)
        items = ", ".join(
            f"{instance.tasks[a.task].name or a.task}:{a.procs}p" for a in pack.allocations
        )
        lines.append(f"  pack {b:<3} cost {cost:<14.6g} procs {pack.procs:>4}/{instance.p}  [{items}]")
    return "\n".join(lines)


def _instance_line(instance: MoldableInstance, path: str) -> str:
    mins = sum(1 for t in instance.tasks if t.min_procs > 1)
    extra = f", {mins} with min procs" if mins else ""
    return f"instance {instance.name or path}: n = {instance.n} tasks, p = {instance.p}{extra}"


def _heuristic_costs(instance: MoldableInstance, k: int) -> dict[str, tuple[CoSchedule, float]]:
    from coschedule.heuristics import HEURISTICS

    from ..validate import validate_coschedule

    out = {}
    for name, fn in HEURISTICS.items():
        try:
            cs = fn(instance, k)
        except CoscheduleError:
            continue  # e.g. one-pack when n > k
        out[name] = (cs, validate_coschedule(instance, cs, k))
    return out


def _optimum(instance: MoldableInstance, k: int, args: argparse.Namespace) -> ExactResult:
    from coschedule.exact import solve_kinp

    from ..validate import validate_coschedule

    res = solve_kinp(
        instance, k, method=args.method or "auto", solver=args.solver,
        time_limit=args.time_limit, time_unit=getattr(args, "time_unit", None),
    )
    if res.solution is not None:
        validate_coschedule(instance, res.solution, k)
    return res


# ---------------------------------------------------------------- subcommands


def cmd_solve(args: argparse.Namespace) -> int:
    from ..io import coschedule_to_dict, save_json
    from ..rigid import RigidInstance

    instance = _load(args)
    if isinstance(instance, RigidInstance):
        return solve_rigid(instance, args)
    k = args.k if args.k is not None else instance.p
    res = _optimum(instance, k, args)
    compare = _heuristic_costs(instance, k) if args.compare else {}
    if args.output and res.solution is not None:
        save_json(coschedule_to_dict(instance, res.solution, k=k, extra={"result": res.to_dict()}), args.output)
    if args.plot and res.solution is not None:
        from coschedule.plot.kinp import plot_coschedule

        write_figure(plot_coschedule(instance, res.solution, title=f"k = {k}: {res.describe()}"), args.plot)
    if args.json:
        out = {"instance": instance.name or args.instance, "n": instance.n, "p": instance.p, "k": k,
               "result": res.to_dict()}
        if res.solution is not None:
            out["solution"] = coschedule_to_dict(instance, res.solution, k=k)
        if compare:
            out["heuristics"] = {
                name: {"cost": c, "ratio": (c / res.objective) if res.objective else None}
                for name, (_, c) in compare.items()
            }
        emit_json(out)
        return 0
    print(_instance_line(instance, args.instance) + _k_said(k, args.k))
    print(res.describe() + f"  [{res.time:.3g} s]")
    if res.solution is not None:
        print(_packs(len(res.solution.packs)) + ":")
        print(_pack_table(instance, res.solution.canonical(instance)))
    if compare:
        label = "ratio to optimum" if res.status is Status.OPTIMAL else "ratio to best found"
        print(f"heuristics ({label}):")
        for name, (_, c) in sorted(compare.items(), key=lambda kv: kv[1][1]):
            ratio = f"{c / res.objective:.4f}" if res.objective else "-"
            print(f"  {name:<14} cost {c:<14.6g} {ratio}")
    if args.output:
        print(f"solution written to {args.output}")
    return 0


def _k_said(k: int, given: int | None) -> str:
    """``, k = 3``; without ``--k``, that k is p (at most p tasks per pack, i.e. no limit)."""
    return f", k = {k}" if given is not None else f", k = {k} (no --k given: k = p, no limit on the tasks per pack)"


def cmd_run(args: argparse.Namespace) -> int:
    from coschedule.exact import SUBSETDP_MAX_WORK, auto_method, subset_dp_work
    from coschedule.heuristics import get_heuristic

    from ..io import coschedule_to_dict, save_json
    from ..rigid import RigidInstance
    from ..validate import validate_coschedule

    instance = _load(args)
    _check_heuristic(args.heuristic, instance, args.instance)
    if isinstance(instance, RigidInstance):
        return run_rigid(instance, args)
    fn = get_heuristic(args.heuristic)
    k = args.k if args.k is not None else instance.p
    cs = fn(instance, k)
    cost = validate_coschedule(instance, cs, k)
    res = None
    cheap = auto_method(instance, k) in ("matching", "subsetdp") and (
        instance.n <= 2 or subset_dp_work(instance.n, min(k, instance.n)) <= SUBSETDP_MAX_WORK / 10
        or auto_method(instance, k) == "matching"
    )
    if args.optimum == "always" or (args.optimum == "auto" and cheap):
        res = _optimum(instance, k, args)
    ratio = cost / res.objective if res and res.objective else None
    if args.output:
        save_json(coschedule_to_dict(instance, cs, k=k, extra={"heuristic": args.heuristic}), args.output)
    if args.plot:
        from coschedule.plot.kinp import plot_coschedule

        write_figure(plot_coschedule(instance, cs, title=f"{args.heuristic}, k = {k}: cost {cost:.6g}"), args.plot)
    if args.json:
        emit_json({
            "instance": instance.name or args.instance, "heuristic": args.heuristic, "k": k,
            "cost": cost, "optimum": res.to_dict() if res else None, "ratio": ratio,
            "solution": coschedule_to_dict(instance, cs, k=k),
        })
        return 0
    print(_instance_line(instance, args.instance) + _k_said(k, args.k))
    print(f"{args.heuristic}: cost {cost:.6g} with {_packs(len(cs.packs))}")
    print(_pack_table(instance, cs))
    if res is not None:
        print(res.describe())
        if ratio is not None:
            qual = "" if res.status is Status.OPTIMAL else " (to the best found, not a proved optimum)"
            print(f"ratio {ratio:.4f}{qual}")
    elif args.optimum == "auto":
        print("optimum not computed (not cheap for this size; use --optimum always)")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from ..io import load_coschedule
    from ..rigid import RigidInstance
    from ..validate import validate_coschedule

    instance = load_instance_arg(args.instance, day=args.day)
    if isinstance(instance, RigidInstance):
        if args.k is not None:
            raise CoscheduleError(f"--k cannot apply to {args.instance}: it is a rigid-job instance")
        return verify_rigid(instance, args)
    given = [flag for flag, v in (("--scenario", args.scenario), ("--contiguous", args.contiguous)) if v]
    if given:
        raise CoscheduleError(f"{', '.join(given)} cannot apply to {args.instance}: it is a moldable (k-in-p) instance")
    cs, header = load_coschedule(args.solution)
    k = args.k if args.k is not None else header.get("k")
    claimed = header.get("cost")
    for key, value, kind in (("k", k, int), ("cost", claimed, (int, float)), ("p", header.get("p"), int)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
            raise FormatError(f"{args.solution}: field {key!r} has the wrong type: {value!r}")
    try:
        if header.get("p") is not None and header["p"] != instance.p:
            raise InvalidSchedule(f"solution is for p = {header['p']}, the instance has p = {instance.p}")
        cost = validate_coschedule(instance, cs, k, claimed_cost=claimed)
    except CoscheduleError as e:
        if args.json:
            emit_json({"valid": False, "error": str(e)})
        else:
            print(f"INVALID: {args.solution}: {e}")
        return EXIT_INVALID
    if args.json:
        emit_json({"valid": True, "cost": cost, "packs": len(cs.packs), "k": k})
    else:
        print(f"valid: {len(cs.packs)} packs, cost {cost:.10g}" + (f", k = {k}" if k else ""))
    return 0


def cmd_solvers(args: argparse.Namespace) -> int:
    from coschedule.exact import available_solvers

    table = available_solvers()
    if args.json:
        emit_json(table)
    else:
        for method, solvers in table.items():
            print(f"{method:<11} {', '.join(solvers)}")
    return 0


# ---------------------------------------------------------------- parser


def _add_common_options(p: argparse.ArgumentParser, what: str) -> None:
    """Options of solve and run: the input, the k-in-p and the shared options."""
    p.add_argument("--day", type=nonnegative_int, default=None,
                   help="with an SWF trace (.swf, .swf.gz): the jobs submitted on day N (0-based, as "
                   "the day-sets of campaigns); default: every job of the trace")
    p.add_argument("--time-limit", type=duration, default=60.0, metavar="T",
                   help="seconds, or with a unit (2min; default 60 s); an answer cut short is reported as feasible, never as optimal")
    p.add_argument("--time-unit", type=positive_float, default=None,
                   help="round all times to this unit (integral model); default: none, except cpsat "
                   "(2^-24 of the largest time) and matching (2^-40 of the largest t(i,p)); "
                   "the rounding error is reported as the tolerance")
    p.add_argument("-o", "--output", help=f"write {what} as JSON here")
    p.alias("--gantt", "--plot")  # type: ignore[attr-defined]  # the former spelling (OneLineErrorParser)
    p.add_argument("--plot", type=figure_path, metavar="FILE", dest="plot",
                   help="draw the schedule to FILE: the suffix picks the format (.png, .svg, .pdf, ...), none "
                   "writes FILE.png and FILE.svg; needs matplotlib; failed attempts hatched")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    g = p.add_argument_group("k-in-p co-scheduling (coschedule/moldable-instance files)")
    g.add_argument("--k", type=positive_int, default=None, help="max tasks per pack (default: p)")
    g.add_argument("--method", default=None,
                   help="exact formulation: auto (default), subsetdp, setcover, ilp (the paper's 1.12), "
                   "matching (k = 2), exhaustive")
    g.add_argument("--solver", default=None,
                   help="backend: highs, cbc, cpsat (setcover/ilp); rustworkx, networkx (matching); "
                   "numpy (subsetdp); python (exhaustive); default: the best available")


INSTANCE_HELP = ("instance: a JSON file (coschedule/moldable-instance: k-in-p co-scheduling; "
                 "coschedule/rigid-instance: rigid jobs under silent errors), or an SWF trace (rigid jobs); "
                 "or the name of a bundled instance or trace (coschedule examples)")
KINDS = ("The instance file decides the problem: moldable tasks in packs (k-in-p co-scheduling, "
         "Aupy et al.) or rigid jobs under silent errors (Benoit et al.; JSON, or jobs of an SWF trace). "
         "Options of the other kind are refused.")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "solve", formatter_class=Formatter,
        help="solve an instance exactly and state what was proved",
        description="Solve an instance exactly and state what was proved (optimal, feasible with a "
        "bound, infeasible, unknown). k-in-p: the optimal co-schedule (subset DP, set cover, the "
        "paper's ILP, matching for k = 2). Rigid jobs: T_OPT(f) under one failure scenario by "
        "CP-SAT, the optimal shelf schedule, or the best priority order for R-List. " + KINDS,
        epilog="examples:\n"
        "  coschedule solve figure-1-1 --k 3\n"
        "  coschedule solve figure-1-1 --k 3                 # the same, bundled (coschedule examples)\n"
        "  coschedule generate synthetic --n 12 --P 32 --seed 7 -o inst.json\n"
        "  coschedule solve inst.json --k 2                  # 2-in-p by matching (Thm 1.1)\n"
        "  coschedule solve inst.json --k 3 --method ilp --solver cbc --time-limit 10\n"
        "  coschedule solve inst.json --compare --plot packs.png -o solution.json\n"
        "  coschedule solve small-n8-P8 --qbar 0.3 --seed 1   # T_OPT(f)\n"
        "  coschedule solve small-n8-P8 --shelf --qbar 0.3\n",
    )
    p.add_argument("instance", help=INSTANCE_HELP)
    _add_common_options(p, "the solution")
    p.add_argument("--compare", action="store_true", help="k-in-p: also run every heuristic and print its ratio")
    g = add_rigid_options(p)
    g.add_argument("--contiguous", action="store_true", help="contiguous processors (strip packing)")
    g.add_argument("--shelf", action="store_true", help="the optimal shelf schedule instead of T_OPT(f)")
    g.add_argument("--best-order", action="store_true",
                   help="the best priority order for R-List-0 under the scenario (n <= 9)")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser(
        "run", formatter_class=Formatter,
        help="run a named heuristic on an instance (and the optimum when cheap)",
        description="Run a heuristic and, where cheap, the optimum and the ratio. Moldable tasks "
        "(k-in-p): pack-approx = Alg. 3, make-pack-1 = Alg. 2 with one processor per task, one-pack "
        "= Alg. 1 on all tasks, sequential = one task per pack. Rigid jobs under silent errors: "
        "R-List with m = 0, 1, |Q| reservations (r-list-0, r-list-1, r-list-q, and the kept-"
        "reservation variants), R-Shelf and R-ShelfFill with (-b) or without (-nb) backfilling, "
        "under a priority rule. " + KINDS,
        epilog="examples:\n"
        "  coschedule run pack-approx figure-1-1\n"
        "  coschedule run pack-approx synthetic-n12-p32 --k 3 --optimum always\n"
        "  coschedule run r-list-0 small-n8-P8 --qbar 0.3 --seed 1 --plot g.png\n"
        "  coschedule run r-shelffill-b synthetic-n20-P10000 --priority LA --qbar 0.1\n"
        "  coschedule run r-list-0 small-n8-P8 --priority my_rule.py:longest_first   # your own rule\n",
    )
    p.add_argument("heuristic", help="moldable: pack-approx, make-pack-1, one-pack, sequential; "
                   "rigid: r-list-0, r-list-1, r-list-q, r-list-1-kept, r-list-q-kept, r-shelf-b, "
                   "r-shelf-nb, r-shelffill-b, r-shelffill-nb, r-shelffill-b-failed, "
                   "r-shelffill-nb-failed, r-shelffill-b-queue, r-shelffill-nb-queue")
    p.add_argument("instance", help=INSTANCE_HELP)
    p.add_argument("--optimum", choices=["auto", "always", "never"], default="auto",
                   help="compute the optimum: auto (default) = only when cheap")
    _add_common_options(p, "the heuristic's schedule")
    add_rigid_options(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "verify", formatter_class=Formatter,
        help="check a solution or schedule file against an instance (every kind the toolkit writes)",
        description="Validate a schedule independently. A co-schedule (k-in-p): every task in one "
        "pack, at most k tasks and p processors per pack, allocations within [min_procs, p], claimed "
        "cost. A rigid schedule: each job runs f_j + 1 times under the failure scenario (the last "
        "attempt succeeds), attempts in order and disjoint, at most P processors at any time, "
        "claimed makespan. Exit status 0 if valid, 1 if not, 2 on unreadable input.",
        epilog="examples:\n"
        "  coschedule verify inst.json solution.json\n"
        "  coschedule run r-list-0 small-n8-P8 --qbar 0.3 --seed 1 -o sched.json\n"
        "  coschedule verify small-n8-P8 sched.json\n",
    )
    p.add_argument("instance", help="instance file (JSON, or an SWF trace with --day), or a bundled one's name")
    p.add_argument("solution", help="the co-schedule (solve/run -o) or rigid schedule to check")
    p.add_argument("--day", type=nonnegative_int, default=None,
                   help="with an SWF trace: the jobs submitted on day N (0-based), as for run and solve")
    p.add_argument("--k", type=positive_int, default=None, help="k-in-p: max tasks per pack (default: the file's k)")
    p.add_argument("--scenario", metavar="FILE",
                   help="rigid: the failure scenario (default: the schedule header's failures, else its "
                   "failed attempts)")
    p.add_argument("--contiguous", action="store_true", help="rigid: also check contiguous processor blocks")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("solvers", formatter_class=Formatter, help="list exact methods and available backends")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_solvers)
