"""``coschedule bench``: measurements (k-in-p exact methods, the rigid heuristics' kernels, a campaign)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..errors import FormatError
from .common import Formatter, emit_json, positive_float, positive_int

__all__ = ["register", "cmd_bench"]


def cmd_bench(args: argparse.Namespace) -> int:
    from ..bench import KINP_SIZES, MATCHING_SIZES, bench_kinp, bench_matching

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
        emit_json({"kinp": rows, "matching": mrows})
    return 0


def _bench_rlist(args: argparse.Namespace, progress: Any) -> int:
    from ..bench import bench_rlist

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
        emit_json({"rlist": rows})
    return 0


def _bench_campaign(args: argparse.Namespace) -> int:
    from ..bench import bench_campaign
    from ..data import spec_path

    spec = str(spec_path(args.spec or "fig5-tenth"))  # a file, or a bundled spec's name
    if not Path(spec).exists():
        raise FormatError(f"{spec}: no such file (give --spec SPEC.toml)")
    row = bench_campaign(spec, workers=args.workers)
    if args.json:
        emit_json({"campaign": row.to_dict()})
        return 0
    print(f"campaign {spec}: {row.cells} cells, {row.simulations:,} simulations on {row.workers} workers")
    print(f"  wall time {row.seconds:.1f} s ({row.per_second:,.0f} simulations/s); peak memory "
          f"{row.peak_rss_mb} MB (main), {row.worker_peak_rss_mb} MB (worker)")
    print(f"  C++ baseline for as many simulations: {row.baseline_seconds / 3600:.2f} h on one core "
          f"(13 h for the 10.5 M of Fig. 5): {row.speedup:.1f}x less wall time")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "bench", formatter_class=Formatter,
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
    p.add_argument("--workers", type=positive_int, help="campaign: worker processes (default all cores)")
    p.add_argument("--time-limit", type=positive_float, default=60.0, help="cap per solve, seconds (default 60)")
    p.add_argument("--p", type=positive_int, default=None,
                   help="processors: k-in-p rows (default 32) or P for rlist (default 10000)")
    p.add_argument("--jobs", type=positive_int, default=100, help="rlist: jobs per instance (default 100)")
    p.add_argument("--scenarios", type=positive_int, default=1000, help="rlist: sampled scenarios (default 1000)")
    p.add_argument("--qbar", type=float, default=0.3, help="rlist: mean failure probability (default 0.3)")
    p.add_argument("--priority", default="LPT", help="rlist: priority rule (default LPT)")
    p.add_argument("--seed", type=int, default=0, help="rlist: seed of the instance and scenarios (default 0)")
    p.add_argument("--n3", type=positive_int, nargs="+", help="sizes n for k = 3")
    p.add_argument("--nn", type=positive_int, nargs="+", help="sizes n for k = n")
    p.add_argument("--ilp-solver", default="cbc", help="backend of the paper's ILP (default cbc)")
    p.add_argument("--no-ilp", action="store_true", help="skip the paper's ILP")
    p.add_argument("--ilp-every-row", action="store_true",
                   help="run the ILP on every row, even after it failed to prove a smaller n (slow)")
    p.add_argument("--matching-p", type=positive_int, default=64, help="processors for 2-in-p rows (default 64)")
    p.add_argument("--matching-solver", default="auto", help="auto (default), rustworkx, networkx")
    p.add_argument("--quick", action="store_true", help="a small table in about a minute")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bench)
