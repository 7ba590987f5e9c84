"""``solve`` and ``run`` on rigid jobs under silent errors ([Benoit2021]).

Called from :mod:`coschedule.cli.schedule` when the instance file is a
``coschedule/rigid-instance``. Thin: parse, call the library, validate, print. ``--priority``
takes a built-in rule or the user's own (``FILE.py:FUNCTION``, ``MODULE:FUNCTION``, a registered
name: :mod:`coschedule.heuristics.priorities`), resolved where the heuristic orders its queue.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..errors import CoscheduleError, InvalidSchedule
from ..results import ExactResult, Status
from .common import emit_json, nonnegative_int, write_figure

if TYPE_CHECKING:  # numpy: imported by the commands, not to build the parser
    from ..rigid import FailureScenario, RigidInstance
    from ..schedule import Schedule

__all__ = ["OPTIMUM_MAX_ATTEMPTS", "add_rigid_options", "run_rigid", "scenario_from_args", "solve_rigid"]

#: ``--optimum auto`` computes T_OPT(f) only up to this many attempts (CP-SAT proves these fast)
OPTIMUM_MAX_ATTEMPTS = 30


def scenario_from_args(instance: RigidInstance, args: argparse.Namespace) -> tuple[FailureScenario, str]:
    """The failure scenario asked for: ``--scenario FILE``, ``--qbar Q --seed S`` (one sample of
    the silent-error model of §5.1), or none (failure-free). Returns it and a description."""
    from ..data import instance_path
    from ..io import load_scenario
    from ..rigid import FailureScenario, SilentErrors

    if getattr(args, "scenario", None) and getattr(args, "qbar", None) is not None:
        raise CoscheduleError("give either --scenario or --qbar, not both")
    if getattr(args, "scenario", None):
        return load_scenario(instance_path(args.scenario), instance), f"scenario {args.scenario}"
    if getattr(args, "qbar", None) is not None:
        model = SilentErrors.from_qbar(instance, args.qbar)
        (scenario,) = model.scenarios(instance, size=1, seed=args.seed)
        return scenario, f"sampled with qbar = {args.qbar:g}, seed {args.seed}"
    return FailureScenario.none(instance.n), "no failures"


def _optimum(instance: RigidInstance, scenario: FailureScenario, args: argparse.Namespace,
             hint: Schedule | None = None) -> ExactResult:
    from coschedule.exact.rigid import solve_rigid_opt

    from ..validate import validate_rigid

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

    from ..io import save_schedule
    from ..rigid import lower_bound
    from ..validate import validate_rigid

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
                      extra={"heuristic": args.heuristic, "priority": args.priority,
                             "failures": list(scenario.failures)})
    if args.plot:
        from coschedule.plot.rigid import plot_rigid_schedule

        write_figure(plot_rigid_schedule(instance, schedule, title=f"{args.heuristic} ({args.priority}): "
                                         f"makespan {makespan:.6g} s"), args.plot)
    ratio_opt = makespan / res.objective if res is not None and res.objective else None
    if args.json:
        emit_json({"instance": instance.name, "heuristic": args.heuristic, "priority": args.priority,
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

    from ..io import save_schedule
    from ..rigid import lower_bound
    from ..validate import validate_rigid

    scenario, how = scenario_from_args(instance, args)
    if args.best_order:
        from coschedule.exact.rigid_list import solve_list_opt

        res = solve_list_opt(instance, scenario, m=0, time_limit=args.time_limit)
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
            save_schedule(res.solution, args.output, instance=instance,
                          extra={"result": res.to_dict(), "failures": list(scenario.failures)})
        if args.plot:
            from coschedule.plot.rigid import plot_rigid_schedule

            write_figure(plot_rigid_schedule(instance, res.solution, title=f"{what}: {res.describe()}"), args.plot)
    L = lower_bound(instance, scenario)
    if args.json:
        emit_json({"instance": instance.name, "what": what, "failures": list(scenario.failures),
               "lower_bound": L, "result": res.to_dict()})
        return 0
    print(_summary(instance, scenario, how))
    print(f"{what}: {res.describe()}  [{res.time:.3g} s]")
    print(f"lower bound L(f) = {L:.6g}")
    return 0


def add_rigid_options(p: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """Options of run/solve that only apply to rigid instances (an error on moldable ones)."""
    g = p.add_argument_group("rigid jobs (coschedule/rigid-instance files and SWF traces)")
    g.add_argument("--scenario", metavar="FILE",
                   help="failure scenario file (failed attempts per job), or a bundled scenario's name")
    g.add_argument("--qbar", type=float, default=None,
                   help="sample one scenario of the silent-error model with mean failure probability qbar (§5.1)")
    g.add_argument("--seed", type=nonnegative_int, default=None,
                   help="seed for --qbar and the RANDOM priority (and the rng of your own rule; default 0)")
    g.add_argument("--priority", default=None, metavar="RULE",
                   help="LPT (default), SPT, HPA, LPA, LA, SA, RANDOM, LJF; or your own: FILE.py:FUNCTION, "
                   "MODULE:FUNCTION, a registered name (rule(instance, rng) -> one key per job, lower first)")
    return g


def verify_rigid(instance: RigidInstance, args: argparse.Namespace) -> int:
    """``coschedule verify rigid.json schedule.json``: the rigid-schedule validator.

    The failure scenario is, in this order: ``--scenario FILE``; the ``failures`` list that
    ``run -o`` and ``solve -o`` write into the schedule's header; else the schedule's own failed
    attempts (said so in the output, since the check then cannot catch a missing attempt).
    """
    from ..data import instance_path
    from ..io import load_scenario, load_schedule
    from ..rigid import FailureScenario
    from ..schedule import Outcome
    from ..validate import validate_rigid
    from .common import EXIT_INVALID

    schedule, header = load_schedule(args.solution)
    if args.scenario:
        scenario, source = load_scenario(instance_path(args.scenario), instance), f"scenario {args.scenario}"
    elif isinstance(header.get("failures"), list):
        scenario, source = FailureScenario(tuple(header["failures"])), "the failures in its header"
    else:
        counts = [0] * instance.n
        for e in schedule.executions:
            if e.outcome is Outcome.FAILURE and 0 <= e.job < instance.n:
                counts[e.job] += 1
        scenario, source = FailureScenario(tuple(counts)), "its own failed attempts (no scenario given)"
    try:
        if header.get("P") is not None and header["P"] != instance.P:
            raise InvalidSchedule(f"schedule is for P = {header['P']}, the instance has P = {instance.P}")
        makespan = validate_rigid(instance, scenario, schedule, contiguous=args.contiguous)
    except CoscheduleError as e:
        if args.json:
            emit_json({"valid": False, "error": str(e), "scenario": source})
        else:
            print(f"INVALID: {args.solution}: {e}")
        return EXIT_INVALID
    if args.json:
        emit_json({"valid": True, "makespan": makespan, "executions": len(schedule.executions),
                   "failures": scenario.total_failures, "scenario": source})
    else:
        print(f"valid: {len(schedule.executions)} executions of {instance.n} jobs on P = {instance.P}, "
              f"makespan {makespan:.10g}; scenario: {source}, {scenario.total_failures} failures")
    return 0
