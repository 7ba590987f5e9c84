"""``coschedule counterexample``: the lower-bound families of the resilient rigid-jobs paper (§4.4,
Props. 3 and 4) with their certified ratios, and the search for a heuristic's worst instance."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from ..errors import CoscheduleError
from ..results import Status
from .common import (
    Formatter,
    duration,
    emit_json,
    nonnegative_int,
    positive_float,
    positive_int,
    write_figure,
)

__all__ = ["cmd_counterexample", "register"]

#: where this family stands in ``coschedule --help`` (the CLI discovers its families)
HELP_ORDER = 40


def cmd_counterexample(args: argparse.Namespace) -> int:
    """Build a lower-bound family of §4.4, run its heuristic, bound the optimum, report the ratio."""
    from coschedule.exact.rigid import solve_rigid_opt
    from coschedule.heuristics import get_rigid_heuristic

    from .. import families
    from ..io import save_rigid_instance, save_scenario, save_schedule
    from ..rigid import lower_bound
    from ..validate import validate_rigid

    if args.family == "search":
        return _search(args)
    if args.plot and not args.output:
        raise CoscheduleError("--plot needs -o DIR (the figure is written to DIR/schedules.png)")
    claims: dict[str, float]
    if args.family == "prop3":
        instance, scenario = families.prop3_instance(args.P)
        c3 = families.prop3_claims(args.P)
        claims = c3._asdict()
        witness = families.prop3_witness_schedule(args.P)
        heuristic = args.heuristic or "r-shelf-b"
        claim_text = f"paper: any shelf algorithm >= H_P = {c3.shelf_makespan:.6g}, optimum = {c3.opt:g}"
    else:
        instance, scenario = families.prop4_instance(args.P, args.eps)
        c4 = families.prop4_claims(args.P, args.eps)
        claims = c4._asdict()
        witness = families.prop4_witness_schedule(args.P, args.eps)
        heuristic = args.heuristic or "r-shelffill-nb"
        claim_text = (f"paper: R-ShelfFill with LPT = {c4.rshelffill_lpt_makespan:g}, "
                      f"optimum <= {c4.opt_upper_bound:.6g}")
    schedule = get_rigid_heuristic(heuristic)(instance, scenario, priority=args.priority)
    makespan = validate_rigid(instance, scenario, schedule)
    witness_makespan = validate_rigid(instance, scenario, witness)
    L = lower_bound(instance, scenario)
    res = None
    tight = witness_makespan <= L * (1 + 1e-9)  # the witness meets L(f): it is optimal
    if not args.no_solve and not tight:
        res = solve_rigid_opt(instance, scenario, time_limit=args.time_limit, hint=witness)
        if res.solution is not None:
            validate_rigid(instance, scenario, res.solution)
    opt_lo: float
    opt_hi: float
    if tight:
        opt_lo = opt_hi = witness_makespan
        opt_text = f"T_OPT(f) = {witness_makespan:.6g} (certified: the proof's schedule meets the lower bound L(f))"
    elif res is not None and res.status is Status.OPTIMAL and res.objective is not None:
        opt_lo = opt_hi = res.objective
        opt_text = res.describe()
    else:
        # certified: the witness is a valid schedule (upper bound), L(f) and the solver's bound below
        opt_hi = min(witness_makespan, res.objective if res and res.objective else math.inf)
        opt_lo = max(L, res.bound if res and res.bound is not None else 0.0)
        opt_text = f"T_OPT(f) in [{opt_lo:.6g}, {opt_hi:.6g}] (certified: lower bound, validated witness schedule)"
    out_dir = Path(args.output) if args.output else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
        save_rigid_instance(instance, out_dir / "instance.json")
        save_scenario(scenario, out_dir / "scenario.json", instance=instance)
        save_schedule(schedule, out_dir / "heuristic-schedule.json", instance=instance,
                      extra={"heuristic": heuristic, "priority": args.priority})
        best = res.solution if res is not None and res.solution is not None else witness
        save_schedule(best, out_dir / "optimum-schedule.json", instance=instance)
        if args.plot:
            from coschedule.plot.rigid import plot_rigid_schedules

            # the paper's Figs. 1 and 2: the heuristic above the optimum, one time axis
            fig = plot_rigid_schedules(
                instance, [(f"{heuristic} ({args.priority}): makespan {makespan:.6g}", schedule),
                           (opt_text, best)],
                title=f"{args.family}, P = {args.P}", time_unit=None)
            write_figure(fig, out_dir / "schedules.png")
    if args.json:
        emit_json({"family": args.family, "P": args.P, "n": instance.n, "heuristic": heuristic,
               "priority": args.priority, "makespan": makespan, "lower_bound": L,
               "witness_makespan": witness_makespan, "optimum": res.to_dict() if res else None,
               "ratio_lower": makespan / opt_hi, "ratio_upper": makespan / opt_lo,
               "claims": claims})
        return 0
    print(f"{args.family} with P = {args.P}: n = {instance.n} jobs, {scenario.total_failures} failures")
    print(claim_text)
    print(f"{heuristic} ({args.priority}): makespan {makespan:.6g}")
    print(f"witness schedule of the proof: makespan {witness_makespan:.6g} (validated)")
    print(opt_text)
    if opt_lo == opt_hi:
        print(f"ratio {makespan / opt_hi:.4f}")
    else:
        print(f"ratio in [{makespan / opt_hi:.4f}, {makespan / opt_lo:.4f}]")
    if out_dir:
        print(f"wrote instance, scenario and both schedules to {out_dir}/")
    return 0


def _search(args: argparse.Namespace) -> int:
    """``counterexample search``: the worst instance found for a heuristic (coschedule.search)."""
    from ..search import search_worst, search_worst_kinp

    if not args.heuristic:
        raise CoscheduleError("counterexample search needs --heuristic (a rigid heuristic or pack-approx)")
    progress = None
    if not args.json and sys.stderr.isatty():
        def progress(p: Any) -> None:
            print(f"\r{p}", end="", file=sys.stderr, flush=True)
    if args.heuristic.lower() == "pack-approx":
        res = search_worst_kinp(n=args.n, p=args.P, k=args.k, restarts=args.restarts, steps=args.steps,
                                seed=args.seed, max_time=args.max_time, progress=progress)
    else:
        res = search_worst(args.heuristic, priority=args.priority, n=args.n, P=args.P,
                           restarts=args.restarts, steps=args.steps, seed=args.seed,
                           time_limit_per_solve=min(args.time_limit, 10.0), max_time=args.max_time,
                           progress=progress)
    if progress:
        print(file=sys.stderr)
    if args.output:
        res.write(args.output)
    if args.json:
        emit_json(res.to_dict())
        return 0
    print(res.describe())
    if args.output:
        print(f"wrote the worst instance and both validated schedules to {args.output}/")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "counterexample", formatter_class=Formatter,
        help="build the paper's lower-bound instances for shelf heuristics and measure the ratio",
        description="Build a lower-bound family of Benoit et al., Resilient Scheduling Heuristics for Rigid "
        "Parallel Jobs (IJNC 2021), §4.4, for a given P, run the "
        "heuristic, solve T_OPT(f) (or certify an interval: L(f) below, the proof's validated witness "
        "schedule above) and print the ratio. prop3: P unit jobs, t_j = 1/j, f_j = j - 1 (any shelf "
        "algorithm gets H_P, the optimum is 1). prop4: R-ShelfFill with LPT gets P, the optimum is < 2.",
        epilog="examples:\n"
        "  coschedule counterexample prop3 --P 8\n"
        "  coschedule counterexample prop4 --P 3 -o ce-p4 --plot\n"
        "  coschedule counterexample prop3 --P 20 --heuristic r-list-0 --no-solve\n"
        "  coschedule counterexample search --heuristic r-shelf-nb --P 4 --n 5 -o worst\n"
        "  coschedule counterexample search --heuristic pack-approx --P 4 --n 6 --seed 2\n",
    )
    p.add_argument("family", choices=["prop3", "prop4", "search"],
                   help="prop3, prop4: the paper's families; search: look for the worst instance of a heuristic")
    p.add_argument("--P", type=positive_int, required=True, help="number of processors")
    p.add_argument("--eps", type=positive_float, default=1e-3, help="prop4: the epsilon of the proof (default 1e-3)")
    p.add_argument("--heuristic", default=None,
                   help="heuristic to run (default: r-shelf-b for prop3, r-shelffill-nb for prop4)")
    p.add_argument("--priority", default="LPT", metavar="RULE",
                   help="priority rule (default LPT; or your own: FILE.py:FUNCTION, MODULE:FUNCTION)")
    p.add_argument("--time-limit", type=duration, default=60.0, metavar="T",
                   help="cap of the exact solve (seconds, or 2min; default 60 s)")
    p.add_argument("--no-solve", action="store_true", help="skip CP-SAT; certify with L(f) and the witness")
    p.add_argument("--n", type=positive_int, default=5, help="search: at most this many jobs/tasks (default 5)")
    p.add_argument("--restarts", type=positive_int, default=5, help="search: random restarts (default 5)")
    p.add_argument("--steps", type=positive_int, default=50, help="search: local moves per restart (default 50)")
    p.add_argument("--seed", type=nonnegative_int, default=0, help="search: seed (default 0; same seed, same search)")
    p.add_argument("--max-time", type=positive_float, default=120.0, help="search: wall-clock budget, s (default 120)")
    p.add_argument("--k", type=positive_int, default=None, help="search with pack-approx: k (default p)")
    p.add_argument("-o", "--output", metavar="DIR", help="write instance, scenario and both schedules here")
    p.alias("--out", "--output")
    p.add_argument("--plot", action="store_true",
                   help="with -o: draw the heuristic's schedule above the optimum's, on one time axis, "
                   "in DIR/schedules.png")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_counterexample)
