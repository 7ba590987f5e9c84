"""CLI commands for rigid jobs under silent errors (``resilient-rigid-jobs.md``).

Called from :mod:`coschedule.cli` when the instance file is a ``coschedule/rigid-instance``,
and for ``coschedule counterexample``. Thin: parse, call the library, validate, print.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from .errors import CoscheduleError
from .io import save_rigid_instance, save_scenario, save_schedule
from .results import ExactResult, Status
from .rigid import FailureScenario, RigidInstance, SilentErrors, lower_bound
from .schedule import Schedule
from .validate import validate_rigid

__all__ = ["scenario_from_args", "run_rigid", "solve_rigid", "cmd_counterexample", "OPTIMUM_MAX_ATTEMPTS"]

#: ``--optimum auto`` computes T_OPT(f) only up to this many attempts (CP-SAT proves these fast)
OPTIMUM_MAX_ATTEMPTS = 30


def _emit(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, allow_nan=False, default=str)
    sys.stdout.write("\n")


def scenario_from_args(instance: RigidInstance, args: argparse.Namespace) -> tuple[FailureScenario, str]:
    """The failure scenario asked for: ``--scenario FILE``, ``--qbar Q --seed S`` (one sample of
    the silent-error model of §5.1), or none (failure-free). Returns it and a description."""
    from .io import load_scenario

    if getattr(args, "scenario", None) and getattr(args, "qbar", None) is not None:
        raise CoscheduleError("give either --scenario or --qbar, not both")
    if getattr(args, "scenario", None):
        return load_scenario(args.scenario, instance), f"scenario {args.scenario}"
    if getattr(args, "qbar", None) is not None:
        model = SilentErrors.from_qbar(instance, args.qbar)
        (scenario,) = model.scenarios(instance, 1, seed=args.seed)
        return scenario, f"sampled with qbar = {args.qbar:g}, seed {args.seed}"
    return FailureScenario.none(instance.n), "no failures"


def _optimum(instance: RigidInstance, scenario: FailureScenario, args: argparse.Namespace,
             hint: Schedule | None = None) -> ExactResult:
    from coschedule.exact.rigid import solve_rigid_opt

    res = solve_rigid_opt(instance, scenario, time_limit=args.time_limit, time_unit=args.time_unit, hint=hint)
    if res.solution is not None:
        validate_rigid(instance, scenario, res.solution)
    return res


def _attempts(scenario: FailureScenario) -> int:
    return sum(f + 1 for f in scenario.failures)


def _summary(instance: RigidInstance, scenario: FailureScenario, how: str) -> str:
    return (f"instance {instance.name or ''}: n = {instance.n} jobs, P = {instance.P}; "
            f"{how}: {scenario.total_failures} failures, {_attempts(scenario)} attempts")


def run_rigid(instance: RigidInstance, args: argparse.Namespace) -> int:
    """``coschedule run HEURISTIC rigid.json``: one heuristic under one scenario."""
    from coschedule.heuristics import get_rigid_heuristic

    fn = get_rigid_heuristic(args.heuristic)
    scenario, how = scenario_from_args(instance, args)
    schedule = fn(instance, scenario, priority=args.priority, seed=args.seed)
    makespan = validate_rigid(instance, scenario, schedule)
    L = lower_bound(instance, scenario)
    res = None
    if args.optimum == "always" or (args.optimum == "auto" and _attempts(scenario) <= OPTIMUM_MAX_ATTEMPTS):
        res = _optimum(instance, scenario, args, hint=schedule)
    if args.output:
        save_schedule(schedule, args.output, instance=instance,
                      extra={"heuristic": args.heuristic, "priority": args.priority})
    if args.plot:
        from .plot import plot_rigid_schedule

        plot_rigid_schedule(instance, schedule, args.plot,
                            title=f"{args.heuristic} ({args.priority}): makespan {makespan:.6g}")
    ratio_opt = makespan / res.objective if res is not None and res.objective else None
    if args.json:
        _emit({"instance": instance.name, "heuristic": args.heuristic, "priority": args.priority,
               "failures": list(scenario.failures), "makespan": makespan, "lower_bound": L,
               "ratio_to_lower_bound": makespan / L, "optimum": res.to_dict() if res else None,
               "ratio_to_optimum": ratio_opt})
        return 0
    print(_summary(instance, scenario, how))
    print(f"{args.heuristic} ({args.priority}): makespan {makespan:.6g}")
    print(f"lower bound L(f) = max(t_max, A/P) = {L:.6g}; ratio {makespan / L:.4f}")
    if res is not None:
        print(res.describe())
        if ratio_opt is not None:
            qual = "" if res.status is Status.OPTIMAL else " (to the best found, not a proved optimum)"
            print(f"ratio to T_OPT(f): {ratio_opt:.4f}{qual}")
    elif args.optimum == "auto":
        print(f"T_OPT(f) not computed ({_attempts(scenario)} attempts > {OPTIMUM_MAX_ATTEMPTS}; "
              "use --optimum always)")
    return 0


def solve_rigid(instance: RigidInstance, args: argparse.Namespace) -> int:
    """``coschedule solve rigid.json``: T_OPT(f), contiguous, or the optimal shelf schedule."""
    from coschedule.exact.rigid import solve_rigid_opt, solve_shelf_opt

    scenario, how = scenario_from_args(instance, args)
    if args.best_order:
        from coschedule.exact.rigid_list import solve_list_opt

        res = solve_list_opt(instance, scenario, m=0)
        what = "best priority order for R-List-0"
    elif args.shelf:
        res = solve_shelf_opt(instance, scenario, time_limit=args.time_limit, time_unit=args.time_unit)
        what = "optimal shelf schedule"
    else:
        res = solve_rigid_opt(instance, scenario, contiguous=args.contiguous,
                              time_limit=args.time_limit, time_unit=args.time_unit)
        what = "T_OPT(f)" + (" (contiguous)" if args.contiguous else "")
    if res.solution is not None:
        validate_rigid(instance, scenario, res.solution,
                       contiguous=args.contiguous and not (args.shelf or args.best_order))
        if args.output:
            save_schedule(res.solution, args.output, instance=instance, extra={"result": res.to_dict()})
        if args.plot:
            from .plot import plot_rigid_schedule

            plot_rigid_schedule(instance, res.solution, args.plot, title=f"{what}: {res.describe()}")
    L = lower_bound(instance, scenario)
    if args.json:
        _emit({"instance": instance.name, "what": what, "failures": list(scenario.failures),
               "lower_bound": L, "result": res.to_dict()})
        return 0
    print(_summary(instance, scenario, how))
    print(f"{what}: {res.describe()}  [{res.time:.3g} s]")
    print(f"lower bound L(f) = {L:.6g}")
    return 0


# ---------------------------------------------------------------- counterexample


def cmd_counterexample(args: argparse.Namespace) -> int:
    """Build a lower-bound family of §4.4, run its heuristic, bound the optimum, report the ratio."""
    from coschedule.exact.rigid import solve_rigid_opt
    from coschedule.heuristics import get_rigid_heuristic

    from . import families

    if args.family == "search":
        return _search(args)
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
    out_dir = Path(args.out) if args.out else None
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
        save_rigid_instance(instance, out_dir / "instance.json")
        save_scenario(scenario, out_dir / "scenario.json", instance=instance)
        save_schedule(schedule, out_dir / "heuristic-schedule.json", instance=instance,
                      extra={"heuristic": heuristic, "priority": args.priority})
        best = res.solution if res is not None and res.solution is not None else witness
        save_schedule(best, out_dir / "optimum-schedule.json", instance=instance)
        if args.plot:
            from .plot import plot_rigid_schedule

            plot_rigid_schedule(instance, schedule, out_dir / "heuristic.png",
                                title=f"{heuristic} ({args.priority}): {makespan:.6g}")
            plot_rigid_schedule(instance, best, out_dir / "optimum.png", title=opt_text)
    if args.json:
        _emit({"family": args.family, "P": args.P, "n": instance.n, "heuristic": heuristic,
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


def add_rigid_options(p: argparse.ArgumentParser) -> None:
    """Options of run/solve that only apply to rigid instances."""
    g = p.add_argument_group("rigid jobs (coschedule/rigid-instance files)")
    g.add_argument("--scenario", metavar="FILE", help="failure scenario file (failed attempts per job)")
    g.add_argument("--qbar", type=float, default=None,
                   help="sample one scenario of the silent-error model with mean failure probability qbar (§5.1)")
    g.add_argument("--seed", type=int, default=0, help="seed for --qbar and the RANDOM priority (default 0)")
    g.add_argument("--priority", default="LPT", help="LPT (default), SPT, HPA, LPA, LA, SA, RANDOM, LJF")


def _search(args: argparse.Namespace) -> int:
    """``counterexample search``: the worst instance found for a heuristic (coschedule.search)."""
    from .search import search_worst, search_worst_kinp

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
    if args.out:
        res.write(args.out)
    if args.json:
        _emit(res.to_dict())
        return 0
    print(res.describe())
    if args.out:
        print(f"wrote the worst instance and both validated schedules to {args.out}/")
    return 0
