"""``coschedule bench``: measurements (k-in-p exact methods, the rigid heuristics' kernels, a campaign,
the batch simulator, the torus's partition finders).

Every number printed is measured by the command; a comparison it cannot make (no baseline binary
given, or one the binary's interface does not offer) is printed as "not measured".
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import FormatError
from .bench_rows import _TORUS_PRINTERS, _command_rows, _num, _print_commands, _print_sweep
from .common import (
    EXIT_INVALID,
    Formatter,
    Ticker,
    duration,
    emit_json,
    nonnegative_int,
    positive_int,
)

__all__ = ["EXIT_SIGTERM", "cmd_bench", "register"]

#: where this family stands in ``coschedule --help`` (the CLI discovers its families)
HELP_ORDER = 90

#: exit status of ``bench campaign`` stopped by SIGTERM (128 + 15), after removing its database
EXIT_SIGTERM = 143
#: the cap of ``bench kinp`` per solve, and with ``--quick``
KINP_TIME_LIMIT, QUICK_TIME_LIMIT = 60.0, 10.0


_Ticker = Ticker  # the steps' progress lines (coschedule.cli.common.Ticker)


@contextlib.contextmanager
def _sigterm_exits(code: int = EXIT_SIGTERM) -> Iterator[None]:
    """Turn SIGTERM into ``SystemExit(code)`` in the main thread, so that ``finally`` blocks and
    context managers run (the temporary database is removed, the workers are stopped) as on
    Ctrl-C; the previous handler comes back afterwards. A signal whose exception was swallowed
    where it landed (inside a callback from C, such as numba's compiler cache: "Exception ignored
    on calling ctypes callback function") still ends the command with ``code`` once the body is
    left."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    fired = []

    def handler(signum: int, frame: Any) -> None:
        fired.append(signum)
        raise SystemExit(code)

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)
    if fired:  # the body went on after the signal: its SystemExit was lost
        raise SystemExit(code)


def _ticker(args: argparse.Namespace, tty: bool) -> _Ticker:
    """A bar on a terminal, log lines elsewhere, nothing with ``--json``."""
    if getattr(args, "json", False):
        return _Ticker(None)
    return _Ticker(sys.stderr, log=not tty)


def cmd_bench(args: argparse.Namespace) -> int:
    from coschedule.bench.kinp import (
        KINP_SIZES,
        MATCHING_SIZES,
        TIME_LIMIT_CASE,
        bench_kinp,
        bench_matching,
        bench_time_limits,
    )

    tty = not args.json and sys.stderr.isatty()
    if args.baseline_binary and args.suite == "kinp":
        raise FormatError("--baseline-binary applies to bench rlist and bench campaign (the authors' "
                          "simulator of the resilient rigid-jobs paper)")
    if args.baseline_reserves != "zero" and not args.baseline_binary:
        raise FormatError("--baseline-reserves says what the binary of --baseline-binary runs: give both")
    if args.suite == "rlist":
        return _bench_rlist(args, tty)
    if args.suite == "campaign":
        return _bench_campaign(args, tty)
    if args.suite == "batch":
        return _bench_batch(args, tty)
    if args.suite == "torus":
        return _bench_torus(args, tty)
    if args.suite == "redistrib":
        return _bench_redistrib(args, tty)
    args.p = 32 if args.p is None else args.p
    if args.time_limit is None:
        args.time_limit = QUICK_TIME_LIMIT if args.quick else KINP_TIME_LIMIT
    if args.quick:
        sizes = {"3": [4, 6, 12, 30], "n": [4, 6, 10, 14]}
        msizes = [100, 200]
    else:
        sizes, msizes = KINP_SIZES, MATCHING_SIZES
    if args.n3:
        sizes = {**sizes, "3": args.n3}
    if args.nn:
        sizes = {**sizes, "n": args.nn}
    ticker = _ticker(args, tty)
    rows = []
    try:
        if not args.json:
            print(f"k-in-p on eq. (1.13) instances, p = {args.p}, seed = n, cap {args.time_limit:g} s each",
                  flush=True)
            print(f"{'k':>2} {'n':>4} | {'paper ILP (' + args.ilp_solver + ')':>24} | {'ILP vs opt':>10} |"
                  f" {'default method':>32} | speedup", flush=True)
        for row in bench_kinp(sizes, p=args.p, time_limit=args.time_limit, ilp_solver=args.ilp_solver,
                              run_ilp=not args.no_ilp, ilp_every_row=args.ilp_every_row, progress=ticker):
            rows.append(row.to_dict())
            ticker.clear()
            if not args.json:
                ilp = (f"{row.ilp_time:7.2f} s {row.ilp_status:<9}" if row.ilp_time is not None
                       else row.ilp_status[:24])
                dflt = f"{row.default_method:>9} {row.default_time:7.2f} s {row.default_status:<9}"
                print(f"{row.k:>2} {row.n:>4} | {ilp:>24} | {row.ilp_excess:>10} | {dflt:>32} | {row.speedup}",
                      flush=True)
        mrows = []
        if not args.json:
            print(f"\n2-in-p matching, p = {args.matching_p}, seed = n", flush=True)
        for mrow in bench_matching(msizes, p=args.matching_p, solver=args.matching_solver, progress=ticker):
            mrows.append(mrow.to_dict())
            ticker.clear()
            if not args.json:
                print(f"  n {mrow.n:>5}: {mrow.time:7.2f} s  {mrow.status} ({mrow.solver})", flush=True)
        limits = [] if args.quick else bench_time_limits(progress=ticker)
    finally:
        ticker.close()
    if args.json:
        emit_json({"kinp": rows, "matching": mrows, "time_limits": [r.to_dict() for r in limits]})
        return 0
    if limits:
        c = TIME_LIMIT_CASE
        print(f"\ntime limits: the paper's ILP of `generate synthetic --n {c['n']} --P {c['P']} --seed {c['seed']}` "
              f"for k = {c['k']} (1.6 million nonzeros), `solve --method ilp --time-limit {c['limit']:g}`, the whole "
              "command in a fresh process (the solver's import aside)")
        for r in limits:
            print(f"  {r.solver:<6} wall {r.wall:6.2f} s (limit + {r.margin:g} s: {'met' if r.met else 'NOT met'}), "
                  f"{r.status}, reported {_num(r.reported, '.2f', ' s')}" + (f"; {r.reached}" if r.reached else ""))
    return 0


def _fmt(value: float | None, spec: str, width: int) -> str:
    return f"{value:{width}{spec}}" if value is not None else f"{'-':>{width}}"


def _bench_rlist(args: argparse.Namespace, tty: bool) -> int:
    from coschedule.bench.common import NOT_MEASURED
    from coschedule.bench.rigid import RLIST_HEURISTICS, bench_rlist

    P = 10000 if args.p is None else args.p
    scenarios = 100 if args.quick else args.scenarios
    heuristics = RLIST_HEURISTICS
    if args.heuristics:
        from coschedule.errors import unknown_name

        heuristics = tuple(h.strip().lower() for h in args.heuristics.split(",") if h.strip())
        for h in heuristics:
            if h not in RLIST_HEURISTICS:
                raise unknown_name("heuristic", h, RLIST_HEURISTICS)
    rows = []
    ticker = _ticker(args, tty)
    base = "C++" if args.baseline_binary else "baseline"
    try:
        if not args.json:
            print(f"rigid heuristics on the §5.1 setting: n = {args.jobs} jobs, P = {P}, qbar = {args.qbar:g}, "
                  f"{scenarios} scenarios (seed {args.seed}), {args.priority}; ms per scenario, CPU time, one core")
            if args.baseline_binary:
                print(f"baseline: {args.baseline_binary} (the authors' simulator's interface, its main passing "
                      f"m = {args.baseline_reserves}; its whole run per scenario, start-up and file reading included)")
            print(f"{'heuristic':<15} {'fast':>9} {'reference':>10} {'speedup':>8} {'identical':>9} "
                  f"{base:>9} {'agree':>12}  backend (compile)", flush=True)
        for row in bench_rlist(heuristics, n=args.jobs, P=P, qbar=args.qbar, scenarios=scenarios,
                               reference_scenarios=min(100, scenarios), priority=args.priority,
                               seed=args.seed, progress=ticker, baseline=args.baseline_binary,
                               reserves=args.baseline_reserves):
            rows.append(row.to_dict())
            ticker.clear()
            if not args.json:
                if row.baseline == "measured":
                    b = f"{row.baseline_ms:9.4f}"
                    agree = (f"{row.baseline_agree}/{row.scenarios}" if row.baseline_agree is not None
                             else "random")
                else:
                    b, agree = f"{'-':>9}", "not measured"
                print(f"{row.heuristic:<15} {row.fast_ms:9.4f} {_fmt(row.reference_ms, '.3f', 10)} "
                      f"{_fmt(row.speedup, '.1f', 8)} {row.identical!s:>9} {b} {agree:>12}  "
                      f"{row.backend} ({row.compile_s:.2f} s)", flush=True)
    finally:
        ticker.close()
    if args.json:
        emit_json({"rlist": rows})
        return 0
    if not args.baseline_binary:
        print(f"baseline (the authors' C++ simulator): {NOT_MEASURED}; give --baseline-binary PATH to run it")
    else:
        for row in rows:
            if row["baseline"] == "measured" and row["baseline_ratio"] is not None:
                print(f"  {row['heuristic']}: the binary {row['baseline_ms']:.4f} ms of CPU per scenario, ours "
                      f"{row['fast_ms']:.4f} ms: {row['baseline_ratio']:.1f}x")
            elif row["baseline"] not in ("measured", NOT_MEASURED):
                print(f"  {row['heuristic']}: {row['baseline']}")
    return 0


def _bench_campaign(args: argparse.Namespace, tty: bool) -> int:
    from coschedule.bench.campaign import bench_campaign
    from coschedule.bench.common import NOT_MEASURED

    from ..data import spec_path

    spec = str(spec_path(args.spec or "fig5-tenth"))  # a file, or a bundled spec's name
    if not Path(spec).exists():
        raise FormatError(f"{spec}: no such file (give --spec SPEC.toml)")
    try:
        with _sigterm_exits():
            row = bench_campaign(spec, workers=args.workers, baseline=args.baseline_binary, progress=not args.json,
                                 reserves=args.baseline_reserves)
    except SystemExit as e:
        if e.code == EXIT_SIGTERM:
            print("coschedule bench: terminated (SIGTERM); the temporary database was removed", file=sys.stderr)
        raise
    if args.json:
        emit_json({"campaign": row.to_dict()})
        return 0
    print(f"campaign {spec}: {row.cells} cells, {row.simulations:,} simulations on {row.workers} workers")
    print(f"  wall time {row.seconds:.1f} s ({row.per_second:,.0f} simulations/s); compute {row.compute_seconds:.1f} s "
          f"summed over the cells; peak memory {row.peak_rss_mb} MB (main), {row.worker_peak_rss_mb} MB (worker)")
    b = row.baseline
    if b is None:
        print(f"  baseline (the authors' C++ simulator): {NOT_MEASURED}; give --baseline-binary PATH to run it "
              "on the cells it can run")
    else:
        ratio = f" ({b.ratio:.2f}x our compute time)" if b.ratio is not None else ""
        print(f"  baseline {b.binary} on the {b.cells} cells it can run ({b.scenarios:,} simulations, one "
              f"process per cell): {b.cpu_s:.1f} s CPU, {b.wall_s:.1f} s wall{ratio}; ours {b.ours_s:.1f} s "
              "compute on the same cells")
        print(f"  mean makespans agree on {b.agree} of {b.compared} cells (RANDOM cells are timed, not compared)"
              + (f"; not run: {b.skipped}" if b.skipped else ""))
    return 0


def _bench_batch(args: argparse.Namespace, tty: bool) -> int:
    from coschedule.bench.batch import BATCH_CASES, MIRA_COSTLIEST, NAMED_ONLY, bench_batch
    from coschedule.bench.batch_command import COMMAND_CASES, SCALE_CASES, command_case
    from coschedule.bench.common import NOT_MEASURED
    from coschedule.errors import unknown_name

    if args.quick:
        cases: list[str] = ["mira", "mira-sfsj", f"mira-{MIRA_COSTLIEST}", "mira-nodes", "kth-easy",
                             "kth-conservative", "mira-command", "kth-easy-command", "kth-easy-reference",
                             "kth-easy-sjf-user"]
    else:
        cases = [*(c for c in BATCH_CASES if c not in NAMED_ONLY), *COMMAND_CASES]
    if args.cases:
        cases = [c.strip().lower() for c in args.cases.split(",") if c.strip()]
        cases = [x for c in cases for x in (SCALE_CASES if c == "scale" else [c])]
    commanded = {**COMMAND_CASES, **SCALE_CASES}
    for c in cases:
        if c not in BATCH_CASES and c not in commanded:
            raise unknown_name("batch benchmark case", c, [*BATCH_CASES, *COMMAND_CASES, "scale", *SCALE_CASES])
    repeat = args.repeat or 1
    ticker = _ticker(args, tty)
    try:
        bench = bench_batch([c for c in cases if c in BATCH_CASES], accasim=not args.no_accasim, repeat=repeat,
                            progress=ticker)
        commands = []
        for c in (c for c in cases if c in commanded):
            ticker(f"{c} ...")
            commands.append(command_case(c, repeat))
    finally:
        ticker.close()
    if args.json:
        emit_json({"batch": {**bench.to_dict(), "commands": [r.to_dict() for r in commands]}})
        return 0
    print(f"batch simulator, each case in a fresh process (best of {repeat}), {bench.cores} cores; "
          "CPU seconds")
    width = max(len(r.case) for r in bench.runs) if bench.runs else 4
    if bench.runs:
        print(f"{'case':<{width}} {'jobs':>7} {'nodes':>6} {'policy':<12} {'sim CPU':>8} {'warm':>6} {'whole CPU':>9} "
              f"{'whole wall':>10} {'peak RSS':>9} {'before':>7}  failures")
    for r in bench.runs:
        warm = "-" if r.sim_warm_cpu_s is None else f"{r.sim_warm_cpu_s:.2f}"
        print(f"{r.case:<{width}} {r.jobs:>7,} {r.n_nodes:>6,} {r.policy:<12} {r.sim_cpu_s:8.2f} {warm:>6} {r.whole_cpu_s:9.2f} "
              f"{r.whole_wall_s:10.2f} {r.peak_rss_mb:6.0f} MB {r.rss_before_mb:4.0f} MB  {r.failures}"
              + (f" ({r.failure_count:,} failures, {r.attempts:,} attempts"
                 + (f", {r.steals:,} steals" if r.steals else "") + ")" if r.failure_count else ""))
    mira = bench.mira_ratios()
    if mira:
        base = bench.run("mira")
        print("\nthe Mira-like month, its failure trace, against Baseline's kernel (case mira) in this run"
              + ("" if base is None else f" ({base.sim_cpu_s:.2f} s, warm {_num(base.sim_warm_cpu_s, '.2f', ' s')})")
              + ":")
        for r in bench.runs:
            if r.case in mira:
                q = mira[r.case]
                what = "kernel" if r.backend != "reference" else "reference"
                print(f"  {r.case:<{width}} {r.policy:<12} {what:<9} sim CPU {r.sim_cpu_s:6.2f} s = "
                      f"{_num(q['sim'], '.2f', 'x')}, warm {_num(r.sim_warm_cpu_s, '.2f', ' s')} = "
                      f"{_num(q['warm'], '.2f', 'x')}")
        for r in bench.runs:
            if r.count_warm_cpu_s is not None:
                print(f"  {r.case}: reservations on nodes against counts in one process, warm: "
                      f"{_num(r.sim_warm_cpu_s, '.2f', ' s')} / {r.count_warm_cpu_s:.2f} s = "
                      f"{_num(r.nodes_over_count, '.2f', 'x')} (target: within 1.5x)")
    _print_sweep(bench)
    costs = bench.user_policy_costs()
    if costs:
        print("\nthe tutorial's own policy (easy_sjf.py:EasySJF, reference loop) on KTH-SP2, warm simulation CPU "
              "per event (submissions, attempts' ends, failures):")
        for case, q in costs.items():
            print(f"  {case:<{width}} {_num(q['us_per_event'], '.1f', ' us')} an event; the user's policy takes "
                  f"{_num(q['user_over_this'], '.2f', 'x')} its time")
    a = bench.accasim
    if commands:
        _print_commands(commands, a.whole_cpu_s)
    print(f"\nAccaSim 1.1.3, EASYBackfilling + FirstFit, on KTH-SP2 failure-free: {a.status}")
    ratios = bench.ratios()
    if a.cpu_s is None:
        print(f"  its CPU, and its CPU against ours: {NOT_MEASURED}")
    else:
        print(f"  CPU {_num(a.cpu_s, '.2f', ' s')} (its own {_num(a.sim_cpu_s, '.2f', ' s')} + the processes it "
              f"forks to write its schedule {_num(a.children_cpu_s, '.2f', ' s')}); whole process "
              f"{_num(a.whole_cpu_s, '.2f', ' s')} CPU, {_num(a.whole_wall_s, '.2f', ' s')} wall")
        for policy in ("easy", "conservative"):
            print(f"  AccaSim / our {policy}: simulation CPU {_num(ratios[f'sim_vs_{policy}'], '.1f', 'x')} "
                  f"(warm {_num(ratios[f'warm_vs_{policy}'], '.1f', 'x')}), "
                  f"whole process CPU {_num(ratios[f'whole_vs_{policy}'], '.1f', 'x')}")
    if a.different_starts is not None:
        q = a.difference_quantiles or {}
        print(f"  start times vs our EASY: {a.different_starts:,} of {a.jobs:,} jobs differ (AccaSim earlier for "
              f"{a.earlier:,}, later for {a.later:,}); AccaSim - ours over those, s: "
              + ", ".join(f"{k} {v:+,.0f}" for k, v in q.items()))
        print(f"  mean wait: ours {a.mean_wait_ours:,.0f} s, AccaSim {a.mean_wait_accasim:,.0f} s")
    else:
        print(f"  start times vs our EASY: {NOT_MEASURED}")
    tiny = ", ".join(f"{k} {v:g}" for k, v in a.tiny_ours.items())
    acc = (", ".join(f"{k} {v:g}" for k, v in sorted(a.tiny_accasim.items())) if a.tiny_accasim is not None
           else NOT_MEASURED)
    print(f"  tiny case (4 nodes; A 2 nodes 100 s at 0, B 4 nodes at 1, C 2 nodes 1000 s at 2): "
          f"our EASY starts {tiny}; AccaSim {acc}")
    return 0


def _bench_torus(args: argparse.Namespace, tty: bool) -> int:
    from coschedule.bench.common import NOT_MEASURED
    from coschedule.bench.torus import DEFAULT_CASES, SEED, bench_torus

    if args.quick:
        cases = [c for c in DEFAULT_CASES if c != "mfp-16" and not c.startswith("sim-")]
    else:
        cases = list(DEFAULT_CASES)
    if args.cases:
        cases = [c.strip().lower() for c in args.cases.split(",") if c.strip()]
    repeat = args.repeat or 5
    ticker = _ticker(args, tty)
    try:
        rows = bench_torus(cases, repeat=repeat, progress=ticker)
    finally:
        ticker.close()
    differ = [r.case for r in rows if not getattr(r, "agree", True)]
    if args.json:
        emit_json({"torus": {"repeat": repeat, "rows": [r.to_dict() for r in rows]}})
    else:
        if any(r.kind not in ("sim", "command") for r in rows):
            print(f"torus partition finders on random occupancies (busy: the nodes occupied, seed {SEED}); wall "
                  f"seconds, one thread; fast: least of {repeat} runs, the others once; ratio = time / fast's, "
                  "in this run")
        for kind, printer in _TORUS_PRINTERS.items():
            mine = [r for r in rows if r.kind == kind]
            if mine:
                printer(mine)
        for r in rows:
            for m, why in getattr(r, "notes", {}).items():
                print(f"n/m: {r.case} by {m}: {NOT_MEASURED}: {why}")
    if differ:
        print(f"coschedule bench: the finders disagree on {', '.join(differ)}", file=sys.stderr)
        return EXIT_INVALID
    return 0


def _bench_redistrib(args: argparse.Namespace, tty: bool) -> int:
    from coschedule.bench.redistrib import DEFAULT_CASES, TARGET, bench_redistrib

    cases = [c.strip().lower() for c in args.cases.split(",") if c.strip()] if args.cases else (
        ["n1000"] if args.quick else list(DEFAULT_CASES))
    repeat = args.repeat or (1 if args.quick else 3)
    ticker = _ticker(args, tty)
    try:
        rows = bench_redistrib(cases, repeat=repeat, progress=ticker)
    finally:
        ticker.close()
    if args.json:
        emit_json({"redistrib": {"repeat": repeat, "target_s": TARGET, "rows": [r.to_dict() for r in rows]}})
        return 0
    commands = [r for r in rows if r.kind == "command"]
    if len(commands) < len(rows):
        print(f"pack simulations of eq. (1.13) applications (seed 0), CPU seconds of one run in this process, one "
              f"thread, least of {repeat}; every run validated; backend "
              f"{next(r.backend for r in rows if r.kind != 'command')}")
    last = ""
    for r in rows:
        if r.kind == "command":
            continue
        if r.case != last:
            last = r.case
            head = {"n1000": f"n = 1000, p = 10,000, MTBF 100 years; target {TARGET:g} s per run",
                    "growth-n": "growth with n (p = 10 n, MTBF 100 years, EndGreedy + IteratedGreedy)",
                    "growth-failures": "growth with failures (n = 1000, p = 10,000, EndGreedy + IteratedGreedy)"}[r.case]
            print(f"\n{head}")
            print(f"{'n':>5} {'p':>6} {'MTBF y':>6} {'heuristics':<26} {'CPU s':>7} {'vs target':>9} {'failures':>9} "
                  f"{'redistrib':>9} {'ms/event':>8} {'makespan d':>10}")
        heur = f"{r.at_end}+{r.at_failure}" + (" fault-free" if r.fault_free else "")
        ratio = f"{r.cpu / TARGET:9.2f}" if r.case == "n1000" else f"{'-':>9}"
        print(f"{r.n:>5} {r.p:>6} {r.mtbf_years:>6g} {heur:<26} {r.cpu:7.3f} {ratio} "
              f"{str(r.failures_hit) + '/' + str(r.failures):>9} {r.redistributions:>9} {r.per_event_ms:8.3f} "
              f"{r.makespan_days:10.1f}")
    if commands:
        print("\n" if len(commands) < len(rows) else "", end="")
        _command_rows(commands)
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "bench", formatter_class=Formatter,
        help="benchmarks (kinp: exact methods; rlist: the rigid heuristics' kernels; campaign: a whole campaign; "
        "batch: the batch simulator; torus: the partition finders and a torus simulation)",
        description="Measurements, not tests; every number printed is measured, a comparison not made "
        "says 'not measured'.\n"
        "  kinp      the paper's ILP against the default exact method on seeded eq. (1.13) instances, "
        "and the 2-in-p matching (capped by --time-limit; the ILP is not run again for larger n once "
        "it fails to prove optimality); then the time limits: the paper's ILP of n = 40, P = 200, k = 4 "
        "(1.6 million nonzeros) with each installed backend under --time-limit 10, the whole command's wall "
        "time against 11 s. --quick: a small table in about a minute, without the time limits.\n"
        "  rlist     ms per failure scenario of the seven heuristics of §5.1, r-list-0, r-list-1, "
        "r-list-q, r-shelf-b, r-shelf-nb, r-shelffill-b, r-shelffill-nb (or --heuristics): numba "
        "kernels against the reference implementation, makespans checked identical; with "
        "--baseline-binary also the authors' simulator on the same scenarios.\n"
        "  campaign  the wall time of a whole campaign into a temporary database (removed on exit, "
        "Ctrl-C or SIGTERM: exit status 143); with --baseline-binary also the authors' simulator on "
        "the cells it can run.\n"
        "  batch     the batch simulator, each case in a fresh process (CPU, wall, peak memory): a "
        "Mira-like month with failures (Baseline, node stealing SFSJ and H321, each also through the "
        "reference event loop; their CPU against Baseline's kernel), LANL-CM5 and KTH-SP2 failure-free "
        "(EASY and conservative); the whole `coschedule batch ... -o jobs.csv` command (cases *-command: "
        "validation and jobs.csv included) beside the simulation it runs, against its target; with --cases "
        "mira-stealing (not by default, about 5 minutes), every node-stealing variant against Baseline, warm, in one process, "
        "with reservations on nodes and on counts; with --cases scale (not by default, several minutes), the whole command at 300,000 and 1,000,000 generated jobs "
        "on 1,024 nodes, and at 1,000,000 with about as many failures: the peak memory against 4 GB, per job "
        "and per failure; AccaSim "
        "1.1.3's EASY on KTH-SP2 when installed (pip install 'coschedule-hpc[accasim]'), its CPU against "
        "ours and its start times against our EASY's.\n"
        "  torus     the torus's partition finders on random occupancies (half the nodes, seed 0): free "
        "partitions of 8, 64 and 512 nodes on 16x16x16 by the fast finder, the Appendix as printed and the "
        "Appendix with an early stop (lists checked identical; ratios to the fast one in the same run), and of 8 "
        "and 64 nodes at 10 % occupancy; the MFP of 32x32x64 (the BlueGene/L node torus; also at 10 % and 1 %), "
        "of 16x16x16 and of 8x8x8; one whole simulation of the NASA log (4,000 failures) with Balancing "
        "(sim-nasa; the target: 30 s of CPU on one core) and with FCFS (sim-nasa-fcfs). --cases picks some; "
        "mfp-16-appendix (the Appendix as printed on 16x16x16, long) only when named.\n"
        "  redistrib the pack simulator with redistribution: one run of n = 1000 applications on p = 10,000 "
        "processors (MTBF 100 years) per heuristic combination, CPU against the target of 1 s (n1000), and how "
        "a run's cost grows with n (growth-n) and with the number of failures (growth-failures); every run "
        "validated. --quick: n1000 only, once.\n"
        "--baseline-binary PATH: the authors' C++ simulator (github.com/vlefevre/job-scheduling, "
        "main.cpp) or any program with its interface: PATH INSTANCE FAILURES COUNT, INSTANCE = first "
        "line 'lambda P verif priority batch naive shelf' (priority: length, rlength, procs, rprocs, "
        "area, rarea, rand), then 'NAME rgd TIME PROCS' per job; FAILURES = COUNT scenarios of n "
        "integers (failed attempts per job); it prints 'MAKESPAN BOUND FAILURES' per scenario. "
        "Its main() runs m = 0, so it serves r-list-0, r-shelf-b and r-shelf-nb; a main edited to pass m = "
        "\"one\" or \"all\" to its simulate() serves r-list-1 or r-list-q: say so with --baseline-reserves. "
        "See `coschedule docs benchmarks`.",
        epilog="examples:\n"
        "  coschedule bench kinp --quick             # about a minute (cap 10 s per solve)\n"
        "  coschedule bench kinp                     # the full table, several minutes\n"
        "  coschedule bench kinp --n3 20 40 60 --nn 16 18 --no-ilp --json\n"
        "  coschedule bench rlist --quick            # 100 scenarios of 100 jobs, fast vs reference\n"
        "  coschedule bench rlist --baseline-binary ./job-scheduling/main   # and the authors' simulator\n"
        "  coschedule bench rlist --heuristic r-list-q --qbar 0.9 --baseline-binary ./job-scheduling-all "
        "--baseline-reserves all\n"
        "  coschedule bench campaign                 # a tenth of Fig. 5 (about 5 min on 2 cores)\n"
        "  coschedule bench campaign --spec fig5   # the full Fig. 5 (about 37 min)\n"
        "  coschedule bench batch                    # about 4 minutes with AccaSim\n"
        "  coschedule bench batch --cases kth-easy --no-accasim --json\n"
        "  coschedule bench batch --cases scale --no-accasim   # memory at a million jobs\n"
        "  coschedule bench batch --cases mira-stealing --no-accasim   # the 18 variants against Baseline\n"
        "  coschedule bench torus                    # about a minute\n"
        "  coschedule bench torus --cases sim-nasa   # one NASA simulation with Balancing, against 30 s\n"
        "  coschedule bench torus --cases free-64,mfp-bgl --repeat 10 --json\n"
        "  coschedule bench redistrib --quick        # the four combinations at n = 1000, p = 10,000\n"
        "  coschedule bench redistrib --cases growth-n,growth-failures\n",
    )
    p.add_argument("suite", choices=["kinp", "rlist", "campaign", "batch", "torus", "redistrib"],
                   help="kinp: exact co-scheduling methods; rlist: rigid heuristics per scenario (fast vs "
                   "reference, and a baseline binary); campaign: a whole campaign; batch: the batch "
                   "simulator (time, memory) and AccaSim side by side; torus: the partition finders")
    p.add_argument("--cases", help="batch: comma-separated cases among mira, mira-sfsj, mira-h321, mira-nodes, "
                   "mira-reference, mira-sfsj-reference, mira-h321-reference, lanl-easy, lanl-conservative, "
                   "kth-easy, kth-conservative, kth-easy-reference, kth-conservative-reference, kth-easy-sjf-user (the "
                   "tutorial's own policy) and the whole "
                   "commands mira-command, mira-sfsj-command, kth-easy-command, kth-conservative-command, "
                   "lanl-easy-command, lanl-conservative-command (default all but mira-stealing, every node-stealing "
                   "variant against Baseline, and scale; --quick: the mira kernels, "
                   "kth, kth-easy-reference, kth-easy-sjf-user, mira-command and kth-easy-command); torus: among free-8, free-64, "
                   "free-512, free-8-10, free-64-10, mfp-bgl, mfp-bgl-10, mfp-bgl-1, mfp-16, mfp-8, mfp-16-appendix, "
                   "sim-nasa, sim-nasa-fcfs, sim-nasa-command (default all but mfp-16-appendix; --quick: not mfp-16 nor the "
                   "simulations either); redistrib: among n1000, growth-n, growth-failures, n1000-command (default all; "
                   "--quick: n1000)")
    p.add_argument("--repeat", type=positive_int, default=None,
                   help="batch: runs per case, each in a fresh process; the least CPU is kept (default 1); "
                   "torus: runs of the fast finder, the least time kept (default 5); redistrib: runs per "
                   "configuration, the least CPU kept (default 3; 1 with --quick)")
    p.add_argument("--no-accasim", action="store_true", help="batch: do not run AccaSim (it prints 'not measured')")
    p.add_argument("--spec", help="campaign: the TOML spec (default fig5-tenth)")
    p.add_argument("--workers", type=positive_int, help="campaign: worker processes (default all cores)")
    p.add_argument("--baseline-binary", metavar="PATH",
                   help="rlist, campaign: run this program (the authors' simulator's interface, see above) "
                   "on the same instances and scenarios, time it and compare its makespans")
    p.add_argument("--baseline-reserves", choices=["zero", "one", "all"], default="zero", metavar="M",
                   help="rlist, campaign: the m the binary's main passes to its simulate(): zero (the stored "
                   "main: r-list-0, r-shelf-b, r-shelf-nb), one (r-list-1) or all (r-list-q); default zero")
    p.add_argument("--time-limit", type=duration, default=None, metavar="T",
                   help=f"kinp: cap per solve, seconds (default {KINP_TIME_LIMIT:g}; {QUICK_TIME_LIMIT:g} with --quick)")
    p.add_argument("--P", dest="p", type=positive_int, default=None,
                   help="processors: k-in-p rows (default 32) or P for rlist (default 10000)")
    p.add_argument("--n", dest="jobs", type=positive_int, default=100, help="rlist: jobs per instance (default 100)")
    p.add_argument("--scenarios", type=positive_int, default=1000, help="rlist: sampled scenarios (default 1000)")
    p.add_argument("--qbar", type=float, default=0.3, help="rlist: mean failure probability (default 0.3)")
    p.add_argument("--priority", default="LPT", help="rlist: priority rule (default LPT)")
    p.add_argument("--heuristic", dest="heuristics", help="rlist: comma-separated subset of the seven (default all)")
    p.alias("--p", "--P")
    p.alias("--jobs", "--n")
    p.alias("--heuristics", "--heuristic")
    p.add_argument("--seed", type=nonnegative_int, default=0, help="rlist: seed of the instance and scenarios (default 0)")
    p.add_argument("--n3", type=positive_int, nargs="+", help="sizes n for k = 3")
    p.add_argument("--nn", type=positive_int, nargs="+", help="sizes n for k = n")
    p.add_argument("--ilp-solver", default="cbc", help="backend of the paper's ILP (default cbc)")
    p.add_argument("--no-ilp", action="store_true", help="skip the paper's ILP")
    p.add_argument("--ilp-every-row", action="store_true",
                   help="run the ILP on every row, even after it failed to prove a smaller n (slow)")
    p.add_argument("--matching-p", type=positive_int, default=64, help="processors for 2-in-p rows (default 64)")
    p.add_argument("--matching-solver", default="auto", help="auto (default), rustworkx, networkx")
    p.add_argument("--quick", action="store_true",
                   help="kinp: small sizes and a 10 s cap (about a minute); rlist: 100 scenarios; torus: without "
                   "mfp-16")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bench)
