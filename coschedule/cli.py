"""The ``coschedule`` command line: a thin layer over the library.

Each subcommand parses its arguments, calls one library function, validates what it got and
prints it (text, or JSON with ``--json``). Bad input is reported on one line naming the problem
and where, with exit status 2 and no traceback; a solution that fails verification exits 1.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import __version__
from .cli_campaign import add_campaign_commands
from .cli_rigid import add_rigid_options, cmd_counterexample, run_rigid, solve_rigid
from .errors import CoscheduleError, FormatError, InvalidSchedule
from .io import (
    coschedule_to_dict,
    instance_to_dict,
    load_any_instance,
    load_coschedule,
    load_instance,
    save_json,
)
from .model import CoSchedule, MoldableInstance
from .results import ExactResult, Status
from .rigid import RigidInstance
from .validate import validate_coschedule

__all__ = ["build_parser", "main"]

EXIT_INVALID = 1  # a solution that fails verification
EXIT_USAGE = 2  # bad input


class _Formatter(argparse.RawDescriptionHelpFormatter):
    pass


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
    return value


# ---------------------------------------------------------------- output helpers


def _emit_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, allow_nan=False, default=str)
    sys.stdout.write("\n")


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

    res = solve_kinp(
        instance, k, method=args.method, solver=args.solver,
        time_limit=args.time_limit, time_unit=getattr(args, "time_unit", None),
    )
    if res.solution is not None:
        validate_coschedule(instance, res.solution, k)
    return res


# ---------------------------------------------------------------- subcommands


def cmd_solve(args: argparse.Namespace) -> int:
    instance = load_any_instance(args.instance)
    if isinstance(instance, RigidInstance):
        return solve_rigid(instance, args)
    k = args.k if args.k is not None else instance.p
    res = _optimum(instance, k, args)
    compare = _heuristic_costs(instance, k) if args.compare else {}
    if args.output and res.solution is not None:
        save_json(coschedule_to_dict(instance, res.solution, k=k, extra={"result": res.to_dict()}), args.output)
    if args.plot and res.solution is not None:
        from .plot import plot_coschedule

        plot_coschedule(instance, res.solution, args.plot, title=f"k = {k}: {res.describe()}")
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
        _emit_json(out)
        return 0
    print(_instance_line(instance, args.instance) + f", k = {k}")
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


def cmd_run(args: argparse.Namespace) -> int:
    from coschedule.exact import SUBSETDP_MAX_WORK, auto_method, subset_dp_work
    from coschedule.heuristics import get_heuristic

    instance = load_any_instance(args.instance)
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
        from .plot import plot_coschedule

        plot_coschedule(instance, cs, args.plot, title=f"{args.heuristic}, k = {k}: cost {cost:.6g}")
    if args.json:
        _emit_json({
            "instance": instance.name or args.instance, "heuristic": args.heuristic, "k": k,
            "cost": cost, "optimum": res.to_dict() if res else None, "ratio": ratio,
            "solution": coschedule_to_dict(instance, cs, k=k),
        })
        return 0
    print(_instance_line(instance, args.instance) + f", k = {k}")
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


def cmd_generate(args: argparse.Namespace) -> int:
    from .generators import random_instance, synthetic_instance

    data: dict[str, Any]
    if args.model == "rigid":
        from .generators import synthetic_rigid
        from .io import rigid_instance_to_dict

        data = rigid_instance_to_dict(synthetic_rigid(args.n, args.p, args.seed))
        data["name"] = f"rigid-n{args.n}-P{args.p}-seed{args.seed}"
        what = f"rigid instance (§5.1), n = {args.n}, P = {args.p}"
    else:
        if args.model == "synthetic":
            if not 1 < args.m_inf <= args.m_sup:
                raise CoscheduleError(f"need 1 < --m-inf <= --m-sup, got {args.m_inf}, {args.m_sup}")
            if not 0 <= args.f <= 1:
                raise CoscheduleError(f"--f must be in [0, 1], got {args.f}")
            inst = synthetic_instance(args.n, args.p, args.seed, m_inf=args.m_inf, m_sup=args.m_sup, f=args.f)
        else:
            inst = random_instance(args.n, args.p, args.seed, with_min_procs=args.min_procs, integral=args.integral)
        data = instance_to_dict(inst)
        data["name"] = f"{inst.name}-seed{args.seed}"
        what = f"{args.model} instance, n = {args.n}, p = {args.p}"
    if args.output:
        save_json(data, args.output)
        if not args.json:
            print(f"wrote {args.output}: {what}, seed {args.seed}")
    else:
        _emit_json(data)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    instance = load_instance(args.instance)
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
            _emit_json({"valid": False, "error": str(e)})
        else:
            print(f"INVALID: {args.solution}: {e}")
        return EXIT_INVALID
    if args.json:
        _emit_json({"valid": True, "cost": cost, "packs": len(cs.packs), "k": k})
    else:
        print(f"valid: {len(cs.packs)} packs, cost {cost:.10g}" + (f", k = {k}" if k else ""))
    return 0


def cmd_solvers(args: argparse.Namespace) -> int:
    from coschedule.exact import available_solvers

    table = available_solvers()
    if args.json:
        _emit_json(table)
    else:
        for method, solvers in table.items():
            print(f"{method:<11} {', '.join(solvers)}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import KINP_SIZES, MATCHING_SIZES, bench_kinp, bench_matching

    progress = None if args.json or not sys.stderr.isatty() else (lambda m: print(m, file=sys.stderr))
    if args.suite == "rlist":
        return _bench_rlist(args, progress)
    if args.suite == "campaign":
        return _bench_campaign(args)
    args.p = 32 if args.p is None else args.p
    if args.quick:
        sizes = {"3": [4, 6, 12, 30], "n": [4, 6, 10, 14]}
        msizes = [100, 200]
    else:
        sizes, msizes = KINP_SIZES, MATCHING_SIZES
    if args.n3:
        sizes = {**sizes, "3": args.n3}
    if args.nn:
        sizes = {**sizes, "n": args.nn}
    rows = []
    if not args.json:
        print(f"k-in-p on eq. (1.13) instances, p = {args.p}, seed = n, cap {args.time_limit:g} s each")
        print(f"{'k':>2} {'n':>4} | {'paper ILP (' + args.ilp_solver + ')':>24} | {'ILP vs opt':>10} |"
              f" {'default method':>32} | speedup")
    for row in bench_kinp(sizes, p=args.p, time_limit=args.time_limit, ilp_solver=args.ilp_solver,
                          run_ilp=not args.no_ilp, ilp_every_row=args.ilp_every_row, progress=progress):
        rows.append(row.to_dict())
        if not args.json:
            ilp = f"{row.ilp_time:7.2f} s {row.ilp_status:<9}" if row.ilp_time is not None else row.ilp_status[:24]
            dflt = f"{row.default_method:>9} {row.default_time:7.2f} s {row.default_status:<9}"
            print(f"{row.k:>2} {row.n:>4} | {ilp:>24} | {row.ilp_excess:>10} | {dflt:>32} | {row.speedup}",
                  flush=True)
    mrows = []
    if not args.json:
        print(f"\n2-in-p matching, p = {args.matching_p}, seed = n")
    for mrow in bench_matching(msizes, p=args.matching_p, solver=args.matching_solver, progress=progress):
        mrows.append(mrow.to_dict())
        if not args.json:
            print(f"  n {mrow.n:>5}: {mrow.time:7.2f} s  {mrow.status} ({mrow.solver})", flush=True)
    if args.json:
        _emit_json({"kinp": rows, "matching": mrows})
    return 0


def _bench_rlist(args: argparse.Namespace, progress: Any) -> int:
    from .bench import bench_rlist

    P = 10000 if args.p is None else args.p
    scenarios = 100 if args.quick else args.scenarios
    rows = []
    if not args.json:
        print(f"rigid heuristics on the §5.1 setting: n = {args.jobs} jobs, P = {P}, qbar = {args.qbar:g}, "
              f"{scenarios} scenarios (seed {args.seed}), {args.priority}; ms per scenario, one core")
        print(f"{'heuristic':<14} {'fast':>9} {'reference':>10} {'speedup':>8} {'identical':>9} "
              f"{'target':>7}  backend (compile)")
    for row in bench_rlist(n=args.jobs, P=P, qbar=args.qbar, scenarios=scenarios,
                           reference_scenarios=min(100, scenarios), priority=args.priority,
                           seed=args.seed, progress=progress):
        rows.append(row.to_dict())
        if not args.json:
            target = f"{row.target_ms:g}" if row.target_ms is not None else "-"
            print(f"{row.heuristic:<14} {row.fast_ms:9.4f} {row.reference_ms:10.3f} {row.speedup:8.1f} "
                  f"{row.identical!s:>9} {target:>7}  {row.backend} ({row.compile_s:.2f} s)", flush=True)
    if args.json:
        _emit_json({"rlist": rows})
    return 0


def _bench_campaign(args: argparse.Namespace) -> int:
    from .bench import bench_campaign

    spec = args.spec or str(Path(__file__).resolve().parents[1] / "campaigns" / "fig5-tenth.toml")
    if not Path(spec).exists():
        raise FormatError(f"{spec}: no such file (give --spec SPEC.toml)")
    row = bench_campaign(spec, workers=args.workers)
    if args.json:
        _emit_json({"campaign": row.to_dict()})
        return 0
    print(f"campaign {spec}: {row.cells} cells, {row.simulations:,} simulations on {row.workers} workers")
    print(f"  wall time {row.seconds:.1f} s ({row.per_second:,.0f} simulations/s); peak memory "
          f"{row.peak_rss_mb} MB (main), {row.worker_peak_rss_mb} MB (worker)")
    print(f"  C++ baseline for as many simulations: {row.baseline_seconds / 3600:.2f} h on one core "
          f"(13 h for the 10.5 M of Fig. 5): {row.speedup:.1f}x less wall time")
    return 0


# ---------------------------------------------------------------- parser


def _add_exact_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--method", default="auto",
                   help="exact formulation: auto (default), subsetdp, setcover, ilp (the paper's 1.12), "
                   "matching (k = 2), exhaustive")
    p.add_argument("--solver", default=None,
                   help="backend: highs, cbc, cpsat (setcover/ilp); rustworkx, networkx (matching); "
                   "numpy (subsetdp); python (exhaustive); default: the best available")
    p.add_argument("--time-limit", type=_positive_float, default=60.0,
                   help="seconds (default 60); an answer cut short is reported as feasible, never as optimal")
    p.add_argument("--time-unit", type=_positive_float, default=None,
                   help="round all times to this unit (integral model); default: none, except cpsat "
                   "(2^-24 of the largest time) and matching (2^-40 of the largest t(i,p)); "
                   "the rounding error is reported as the tolerance")


def _add_pack_options(p: argparse.ArgumentParser, what: str) -> None:
    """Options shared by the commands that produce a co-schedule (solve, run)."""
    p.add_argument("--k", type=_positive_int, default=None, help="max tasks per pack (default: p)")
    _add_exact_options(p)
    p.add_argument("-o", "--output", help=f"write {what} as JSON here")
    p.add_argument("--plot", "--gantt", metavar="FILE", dest="plot",
                   help="draw the schedule (PNG/SVG/PDF by suffix; needs matplotlib); failed attempts hatched")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="coschedule",
        formatter_class=_Formatter,
        description="Scheduling parallel jobs on failure-prone HPC platforms: exact solvers, "
        "heuristics and benchmarks. Co-scheduling moldable tasks in packs (k-in-p).",
        epilog="examples:\n"
        "  coschedule solve instances/kinp/figure-1-1.json --k 3 --compare\n"
        "  coschedule run pack-approx instances/kinp/synthetic-n12-p32.json\n"
        "  coschedule generate synthetic --n 20 --p 32 --seed 7 -o inst.json\n"
        "  coschedule bench kinp --quick\n"
        "  coschedule simulate campaigns/fig5-tenth.toml && coschedule report fig5-tenth.sqlite\n"
        "see docs/cli.md for every command",
    )
    parser.add_argument("--version", action="version", version=f"coschedule {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "solve", formatter_class=_Formatter,
        help="solve a k-in-p co-scheduling instance exactly",
        description="Solve k-in-p-CoSchedule exactly and state what was proved "
        "(optimal, feasible with a bound, infeasible, unknown).",
        epilog="examples:\n"
        "  coschedule solve instances/kinp/figure-1-1.json --k 3\n"
        "  coschedule solve inst.json --k 2                  # 2-in-p by matching (Thm 1.1)\n"
        "  coschedule solve inst.json --k 3 --method ilp --solver cbc --time-limit 10\n"
        "  coschedule solve inst.json --compare --plot packs.png -o solution.json\n",
    )
    p.add_argument("instance", help="instance JSON file (coschedule/moldable-instance or coschedule/rigid-instance)")
    p.add_argument("--compare", action="store_true", help="also run every heuristic and print its ratio")
    _add_pack_options(p, "the solution")
    add_rigid_options(p)
    p.add_argument("--contiguous", action="store_true", help="rigid: contiguous processors (strip packing)")
    p.add_argument("--shelf", action="store_true", help="rigid: the optimal shelf schedule instead of T_OPT(f)")
    p.add_argument("--best-order", action="store_true",
                   help="rigid: the best priority order for R-List-0 under the scenario (n <= 9)")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser(
        "run", formatter_class=_Formatter,
        help="run a named heuristic on an instance",
        description="Run a co-scheduling heuristic (pack-approx = Alg. 3, make-pack-1 = Alg. 2 with "
        "one processor per task, one-pack = Alg. 1 on all tasks, sequential = one task per pack) "
        "and, where cheap, the optimum and the ratio.",
        epilog="examples:\n"
        "  coschedule run pack-approx instances/kinp/figure-1-1.json\n"
        "  coschedule run pack-approx inst.json --k 3 --optimum always --time-limit 30\n",
    )
    p.add_argument("heuristic", help="moldable: pack-approx, make-pack-1, one-pack, sequential; "
                   "rigid: r-list-0, r-list-1, r-list-q, r-shelf-b, r-shelf-nb, r-shelffill-b, r-shelffill-nb")
    p.add_argument("instance", help="instance JSON file (moldable or rigid)")
    p.add_argument("--optimum", choices=["auto", "always", "never"], default="auto",
                   help="compute the optimum: auto (default) = only when cheap")
    _add_pack_options(p, "the heuristic's schedule")
    add_rigid_options(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser(
        "generate", formatter_class=_Formatter,
        help="write a seeded synthetic instance",
        description="Generate an instance: 'synthetic' follows eq. (1.13) (f = 0.08, "
        "m ~ U{m_inf..m_sup}); 'random' draws arbitrary profiles satisfying (1.1)-(1.2).",
        epilog="examples:\n"
        "  coschedule generate synthetic --n 20 --p 32 --seed 7 -o inst.json\n"
        "  coschedule generate random --n 8 --p 16 --seed 1 --min-procs > small.json\n",
    )
    p.add_argument("model", choices=["synthetic", "random", "rigid"],
                   help="synthetic: eq. (1.13) moldable tasks; random: random valid profiles; "
                   "rigid: rigid jobs of the resilient paper's §5.1 (procs U{50..2000}, times U[100, 20000])")
    p.add_argument("--n", type=_positive_int, required=True, help="number of tasks")
    p.add_argument("--p", type=_positive_int, required=True, help="number of processors (P for rigid)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0; same seed, same instance)")
    p.add_argument("--m-inf", type=int, default=1_500_000, help="synthetic: smallest problem size m (default 1500000)")
    p.add_argument("--m-sup", type=int, default=2_500_000, help="synthetic: largest problem size m (default 2500000)")
    p.add_argument("--f", type=float, default=0.08, help="synthetic: sequential fraction (default 0.08)")
    p.add_argument("--min-procs", action="store_true", help="random: draw minimum processor counts")
    p.add_argument("--integral", action="store_true", help="random: integer times")
    p.add_argument("-o", "--output", help="file to write (default: stdout)")
    p.add_argument("--json", action="store_true", help="no summary line")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser(
        "verify", formatter_class=_Formatter,
        help="check a solution file against an instance",
        description="Validate a co-schedule independently: every task in one pack, at most k "
        "tasks and p processors per pack, allocations within [min_procs, p], claimed cost. "
        "Exit status 0 if valid, 1 if not, 2 on unreadable input.",
        epilog="example:\n  coschedule verify inst.json solution.json\n",
    )
    p.add_argument("instance")
    p.add_argument("solution")
    p.add_argument("--k", type=_positive_int, default=None, help="max tasks per pack (default: the file's k)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser(
        "counterexample", formatter_class=_Formatter,
        help="build the paper's lower-bound instances for shelf heuristics and measure the ratio",
        description="Build a lower-bound family of resilient-rigid-jobs §4.4 for a given P, run the "
        "heuristic, solve T_OPT(f) (or certify an interval: L(f) below, the proof's validated witness "
        "schedule above) and print the ratio. prop3: P unit jobs, t_j = 1/j, f_j = j - 1 (any shelf "
        "algorithm gets H_P, the optimum is 1). prop4: R-ShelfFill with LPT gets P, the optimum is < 2.",
        epilog="examples:\n"
        "  coschedule counterexample prop3 --P 8\n"
        "  coschedule counterexample prop4 --P 3 --out ce-p4 --plot\n"
        "  coschedule counterexample prop3 --P 20 --heuristic r-list-0 --no-solve\n"
        "  coschedule counterexample search --heuristic r-shelf-nb --P 4 --n 5 --out worst\n"
        "  coschedule counterexample search --heuristic pack-approx --P 4 --n 6 --seed 2\n",
    )
    p.add_argument("family", choices=["prop3", "prop4", "search"],
                   help="prop3, prop4: the paper's families; search: look for the worst instance of a heuristic")
    p.add_argument("--P", type=_positive_int, required=True, help="number of processors")
    p.add_argument("--eps", type=_positive_float, default=1e-3, help="prop4: the epsilon of the proof (default 1e-3)")
    p.add_argument("--heuristic", default=None,
                   help="heuristic to run (default: r-shelf-b for prop3, r-shelffill-nb for prop4)")
    p.add_argument("--priority", default="LPT", help="priority rule (default LPT)")
    p.add_argument("--time-limit", type=_positive_float, default=60.0, help="cap of the exact solve (default 60 s)")
    p.add_argument("--no-solve", action="store_true", help="skip CP-SAT; certify with L(f) and the witness")
    p.add_argument("--n", type=_positive_int, default=5, help="search: at most this many jobs/tasks (default 5)")
    p.add_argument("--restarts", type=_positive_int, default=5, help="search: random restarts (default 5)")
    p.add_argument("--steps", type=_positive_int, default=50, help="search: local moves per restart (default 50)")
    p.add_argument("--seed", type=int, default=0, help="search: seed (default 0; same seed, same search)")
    p.add_argument("--max-time", type=_positive_float, default=120.0, help="search: wall-clock budget, s (default 120)")
    p.add_argument("--k", type=_positive_int, default=None, help="search with pack-approx: k (default p)")
    p.add_argument("--out", metavar="DIR", help="write instance, scenario and both schedules here")
    p.add_argument("--plot", action="store_true", help="with --out: draw both schedules (PNG)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_counterexample)

    p = sub.add_parser("solvers", formatter_class=_Formatter, help="list exact methods and available backends")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_solvers)

    p = sub.add_parser(
        "bench", formatter_class=_Formatter,
        help="benchmarks (kinp: paper's ILP vs the default method; 2-in-p matching)",
        description="Measure the exact methods on seeded eq. (1.13) instances and print a table. "
        "A measurement, not a test: it takes minutes (the paper's ILP is capped by --time-limit "
        "and not run again for larger n once it fails to prove optimality).",
        epilog="examples:\n"
        "  coschedule bench kinp\n"
        "  coschedule bench kinp --quick --time-limit 10\n"
        "  coschedule bench kinp --n3 20 40 60 --nn 16 18 --no-ilp --json\n"
        "  coschedule bench rlist                    # 1000 scenarios of 100 jobs, fast vs reference\n"
        "  coschedule bench campaign                 # a tenth of Fig. 5 (about 5 min) vs the C++ simulator\n"
        "  coschedule bench campaign --spec campaigns/fig5.toml   # the full Fig. 5 (about 46 min)\n",
    )
    p.add_argument("suite", choices=["kinp", "rlist", "campaign"],
                   help="kinp: exact co-scheduling methods; rlist: rigid heuristics per scenario (fast vs "
                   "reference); campaign: a whole campaign against the C++ simulator's time")
    p.add_argument("--spec", help="campaign: the TOML spec (default campaigns/fig5-tenth.toml)")
    p.add_argument("--workers", type=_positive_int, help="campaign: worker processes (default all cores)")
    p.add_argument("--time-limit", type=_positive_float, default=60.0, help="cap per solve, seconds (default 60)")
    p.add_argument("--p", type=_positive_int, default=None,
                   help="processors: k-in-p rows (default 32) or P for rlist (default 10000)")
    p.add_argument("--jobs", type=_positive_int, default=100, help="rlist: jobs per instance (default 100)")
    p.add_argument("--scenarios", type=_positive_int, default=1000, help="rlist: sampled scenarios (default 1000)")
    p.add_argument("--qbar", type=float, default=0.3, help="rlist: mean failure probability (default 0.3)")
    p.add_argument("--priority", default="LPT", help="rlist: priority rule (default LPT)")
    p.add_argument("--seed", type=int, default=0, help="rlist: seed of the instance and scenarios (default 0)")
    p.add_argument("--n3", type=_positive_int, nargs="+", help="sizes n for k = 3")
    p.add_argument("--nn", type=_positive_int, nargs="+", help="sizes n for k = n")
    p.add_argument("--ilp-solver", default="cbc", help="backend of the paper's ILP (default cbc)")
    p.add_argument("--no-ilp", action="store_true", help="skip the paper's ILP")
    p.add_argument("--ilp-every-row", action="store_true",
                   help="run the ILP on every row, even after it failed to prove a smaller n (slow)")
    p.add_argument("--matching-p", type=_positive_int, default=64, help="processors for 2-in-p rows (default 64)")
    p.add_argument("--matching-solver", default="auto", help="auto (default), rustworkx, networkx")
    p.add_argument("--quick", action="store_true", help="a small table in about a minute")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bench)

    add_campaign_commands(sub, _Formatter)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except CoscheduleError as e:
        print(f"coschedule {args.command}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `coschedule solvers | head -1`: the reader left
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (silence the flush at exit)
        except OSError:
            pass
        return 0
    except OSError as e:
        print(f"coschedule {args.command}: error: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"coschedule {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
