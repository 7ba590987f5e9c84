"""``coschedule batch``: one online run of a batch scheduler on nodes that fail ([Du2024]).

Thin: read the workload (SWF or Batsim JSON) and the failures (a ``time,node`` file, drawn from
a seed, or none), call :func:`coschedule.heuristics.batch.run.run_batch`, check the run
(:func:`coschedule.sim.validate.validate_run`), print its metrics
(:func:`coschedule.sim.metrics.summarize`; text or ``--json``), write the per-attempt
``jobs.csv`` (:func:`coschedule.sim.metrics.job_records`), the drawn failures and the Gantt chart
on request.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import TYPE_CHECKING, Any

from ..errors import CoscheduleError, InvalidInstance
from ..units import format_seconds
from .common import (
    Formatter,
    Ticker,
    duration,
    emit_json,
    figure_path,
    input_path,
    load_workload_arg,
    nonnegative_duration,
    nonnegative_float,
    nonnegative_int,
    positive_int,
    write_figure,
)

if TYPE_CHECKING:  # numpy and the simulation core: imported by the command, not to build the parser
    from ..sim.failures import FailureTrace
    from ..sim.metrics import Summary
    from ..sim.result import SimulationResult
    from ..sim.workload import Workload

__all__ = ["cmd_batch", "load_workload_arg", "nonnegative_float", "prune_fraction", "register", "time_window"]

#: where this family stands in ``coschedule --help`` (the CLI discovers its families)
HELP_ORDER = 60

#: per-job flows are printed (text output) up to this many jobs; jobs.csv has them all
MAX_PRINTED_JOBS = 20


def time_window(text: str) -> tuple[float, float]:
    """``START:END``, ``0 <= START < END`` (the utilization window), each in seconds or with a
    unit (``10d:30d``)."""
    from coschedule.units import seconds

    start, sep, end = text.partition(":")
    try:
        window = (seconds(start), seconds(end)) if sep else None
    except ValueError:
        window = None
    if window is None or not (0 <= window[0] < window[1] and math.isfinite(window[1])):
        raise argparse.ArgumentTypeError(f"expected START:END (seconds, or with units: 10d:30d) with 0 <= START < END, "
                                         f"got {text!r}")
    return window


def prune_fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value < 0.5:
        raise argparse.ArgumentTypeError(f"expected a fraction in [0, 0.5), got {text!r}")
    return value


# ------------------------------------------------------------------------------ options


def _check_options(args: argparse.Namespace) -> None:
    """Options that mean nothing together are errors, not silently ignored."""
    drawn = args.node_mtbf is not None and args.failures is None
    failures = args.failures is not None or args.node_mtbf is not None
    if args.seed is not None and not drawn:
        raise CoscheduleError("--seed draws failures: it needs --node-mtbf without --failures")
    if args.failures_out is not None and not drawn:
        raise CoscheduleError("--failures-out writes drawn failures: it needs --node-mtbf without --failures")
    if args.checkpoint_cost and args.node_mtbf is None:
        raise CoscheduleError("--checkpoint-cost needs --node-mtbf (the Young/Daly period sqrt(2 mu_ind C / nodes))")
    if args.failures is not None and args.node_mtbf is not None and not args.checkpoint_cost:
        raise CoscheduleError("--node-mtbf with --failures only sets the checkpoint period: "
                              "give --checkpoint-cost too, or leave --node-mtbf out")
    if args.final_checkpoint and not args.checkpoint_cost:
        raise CoscheduleError("--final-checkpoint needs --checkpoint-cost")
    if args.optimal is None:
        for flag, given in (("--time-limit", args.time_limit is not None), ("--max-attempts", args.max_attempts is not None)):
            if given:
                raise CoscheduleError(f"{flag} applies to the clairvoyant optimum: give --optimal max or --optimal weighted")
    elif drawn:
        raise CoscheduleError("--optimal needs integer failure times: give the failures in a file (--failures FILE), "
                              "not drawn (--node-mtbf alone)")
    given_flags = (("--downtime", args.downtime is not None),
                   ("--known-downtime" if args.knows_downtime else "--unknown-downtime", args.knows_downtime is not None),
                   ("--release", args.release is not None))
    for flag, given in given_flags:
        if given and not failures:
            raise CoscheduleError(f"{flag} applies to failures: give --failures FILE or --node-mtbf S")


def _read_failures_arg(arg: str, n_nodes: int) -> FailureTrace:
    from ..sim.failures import read_failures

    return read_failures(input_path(arg), n_nodes=n_nodes)


def _write_drawn_failures(result: SimulationResult, args: argparse.Namespace) -> tuple[FailureTrace, float]:
    """The failures the run drew, over a horizon at least twice the run's (drawn a day at a time
    from the same seed, they are the run's failures, and more after it), written to
    ``--failures-out``; so that ``--failures FILE`` replays them for any policy."""
    from coschedule.heuristics.batch.run import failure_horizon

    from ..sim.failures import poisson_failures, write_failures

    horizon = max(failure_horizon(result.workload, result.checkpointing), 2.0 * result.horizon)
    trace = poisson_failures(result.workload.n_nodes, node_mtbf=args.node_mtbf, horizon=horizon,
                             downtime=result.downtime, seed=args.seed)
    write_failures(trace, args.failures_out)
    return trace, horizon


# ------------------------------------------------------------------------------ outputs


def _describe_failures(args: argparse.Namespace, result: SimulationResult) -> str:
    if args.failures is not None:
        how = f"from {args.failures}"
    elif args.node_mtbf is not None:
        how = f"drawn with node MTBF {format_seconds(args.node_mtbf)}, seed {args.seed}"
    else:
        return "no failures"
    return f"failures {how}, downtime {format_seconds(result.downtime)}"


def _describe_checkpointing(result: SimulationResult) -> str:
    ck = result.checkpointing
    if not ck.enabled:
        return "no checkpointing" + (f", recovery {ck.R:g} s" if ck.R else "")
    final = ", final checkpoint" if ck.final_checkpoint else ""
    return f"checkpoints C = {ck.cost:g} s, R = {ck.R:g} s (Young/Daly periods{final})"


def _print_text(result: SimulationResult, args: argparse.Namespace, summary: Summary) -> None:
    w = result.workload
    dropped = f" ({w.dropped} dropped)" if w.dropped else ""
    print(f"workload {w.name}: {w.n} jobs on {w.n_nodes} nodes{dropped}; {_describe_failures(args, result)}; "
          f"{_describe_checkpointing(result)}")
    if 0 < w.n <= MAX_PRINTED_JOBS:
        import numpy as np

        width = max(3, *(len(i) for i in w.ids))
        print(f"{'job':<{width}}  nodes  submit  start    end   flow  attempts")
        attempts = np.bincount([a.job for a in result.attempts], minlength=w.n)
        for k, jid in enumerate(w.ids):
            print(f"{jid:<{width}}  {w.nodes[k]:>5}  {w.submit[k]:>6g}  {result.first_start[k]:>5g}  "
                  f"{result.completion[k]:>5g}  {result.flow[k]:>5g}  {attempts[k]:>8}")
    print(f"makespan {format_seconds(float(result.completion.max()))}")
    print(summary.table())


# ------------------------------------------------------------------------------ --optimal

#: seconds for the clairvoyant optimum when --time-limit is not given
OPTIMAL_TIME_LIMIT = 60.0
OBJECTIVE_NAMES = {"max": "max flow", "weighted": "weighted mean flow"}


def _clairvoyant_instance(args: argparse.Namespace, workload: Workload, failures: FailureTrace | None) -> Any:
    """The instance of ``--optimal``, checked before the policy runs (too big, or a time off the
    integer grid: one line, exit 2)."""
    from ..exact.clairvoyant import clairvoyant_instance
    from ..sim.checkpointing import Checkpointing

    ck = Checkpointing(cost=float(args.checkpoint_cost or 0.0), recovery=args.recovery_cost,
                       node_mtbf=math.inf if args.node_mtbf is None else float(args.node_mtbf),
                       final_checkpoint=args.final_checkpoint)
    return clairvoyant_instance(workload, failures=failures, downtime=args.downtime or 0.0, checkpointing=ck)


def _solve_optimal(args: argparse.Namespace, instance: Any, result: SimulationResult) -> tuple[Any, float]:
    """The clairvoyant optimum of ``--optimal``, warm-started from the policy's run (so it is never
    worse), and the policy's value of the same objective."""
    from ..exact.clairvoyant import objective_value, solve_clairvoyant

    limit = OPTIMAL_TIME_LIMIT if args.time_limit is None else args.time_limit
    res = solve_clairvoyant(instance, args.optimal, max_attempts=args.max_attempts, hint=result, time_limit=limit)
    return res, objective_value(args.optimal, result.flow, result.workload.nodes)


def _num(x: float) -> str:
    return f"{x:.4g}"


def _optimal_lines(args: argparse.Namespace, res: Any, policy_value: float) -> list[str]:
    """What ``--optimal`` prints: the optimum, what was proved, the policy's ratio to it."""
    what = OBJECTIVE_NAMES[args.optimal]
    proved = res.info["attempts"]
    if res.proved_optimal:
        head = f"clairvoyant optimum of the {what}: {_num(res.objective)} s (optimal; {proved})"
        ratio = f"{args.policy} / optimum: {_num(policy_value)} / {_num(res.objective)} = {policy_value / res.objective:.3f}"
        return [head, ratio]
    limit = res.info.get("time_limit_reached", "not proved")
    head = (f"clairvoyant optimum of the {what}: between {_num(res.bound)} and {_num(res.objective)} s "
            f"(feasible, gap {100 * res.gap:.3g}%: {limit}; {proved})")
    ratio = (f"{args.policy} / best found: {_num(policy_value)} / {_num(res.objective)} = "
             f"{policy_value / res.objective:.3f} (to the optimum: at most {policy_value / res.bound:.3f})")
    return [head, ratio]


def _optimal_json(args: argparse.Namespace, res: Any, policy_value: float) -> dict[str, Any]:
    sched = res.solution
    return {
        "objective": args.optimal, "status": res.status.value, "value": res.objective, "bound": res.bound,
        "gap": res.gap, "policy_value": policy_value,
        "ratio": policy_value / res.objective if res.objective else None,
        "attempts": res.info["attempts"], "unconditional": res.info["unconditional"],
        "max_attempts": res.info["max_attempts"], "time_unit": res.info["unit"], "time": res.time,
        "time_limit_reached": res.info.get("time_limit_reached"),
        "flows": dict(zip(sched.workload.ids, sched.flow.tolist())),
        "schedule": [a.to_dict() for a in sched.attempts],
    }


def _refuse_endless(args: argparse.Namespace, workload: Workload) -> None:
    """A run that would not end is refused before it starts, as a batch campaign refuses it
    (:func:`~coschedule.sim.checkpointing.why_endless`); drawn failures only: a failure file ends."""
    from ..sim.checkpointing import Checkpointing, why_endless

    if args.node_mtbf is None or args.failures is not None:
        return
    ck = Checkpointing(cost=float(args.checkpoint_cost or 0.0), recovery=args.recovery_cost, node_mtbf=args.node_mtbf)
    reason = why_endless(workload, ck, args.node_mtbf, float(args.downtime or 0.0))
    if reason:
        raise CoscheduleError(f"{args.workload}: {reason}")


def _reservations(args: argparse.Namespace) -> dict[str, str]:
    """``run_batch``'s ``reservations`` when given (else its default)."""
    return {} if args.reservations is None else {"reservations": args.reservations}


def cmd_batch(args: argparse.Namespace) -> int:
    """``coschedule batch``: its steps say so on stderr once one lasts :data:`QUIET_FOR` seconds
    (a long run: reading a large trace, simulating, validating, writing), never with ``--json``."""
    step = Ticker(None if args.json else sys.stderr, log=not sys.stderr.isatty(), label="coschedule batch",
                  quiet_for=QUIET_FOR)
    try:
        return _cmd_batch(args, step)
    finally:
        step.close()


#: seconds a step of coschedule batch runs before it says so on stderr
QUIET_FOR = 5.0


def _cmd_batch(args: argparse.Namespace, step: Ticker) -> int:
    from coschedule.heuristics.batch.backfilling import Conservative
    from coschedule.heuristics.batch.run import make_policy, run_batch

    from ..sim.metrics import summarize
    from ..sim.validate import validate_run

    _check_options(args)
    policy = make_policy(args.policy)  # an unknown name fails before the workload is read
    if args.victim_tiebreak is not None and not hasattr(policy, "victim_tiebreak"):
        raise CoscheduleError(f"--victim-tiebreak is an option of node stealing (sfsj, h111..h323), "
                              f"not of {args.policy}")
    if args.reservations is not None and not isinstance(policy, Conservative):
        raise CoscheduleError(f"--reservations is an option of conservative backfilling and node stealing "
                              f"(conservative, sfsj, h111..h323), not of {args.policy}")
    if args.plot:
        from coschedule.plot.figure import new_figure

        new_figure()  # no matplotlib: one line now, not after the run
    if args.node_mtbf is not None and args.failures is None and args.seed is None:
        args.seed = 0
    step(f"reading {args.workload}")
    workload = load_workload_arg(args.workload, nodes=args.nodes)
    if workload.n == 0:
        raise InvalidInstance(f"{args.workload}: no job to run (every job was dropped: run time or size unknown)")
    failures = None if args.failures is None else _read_failures_arg(args.failures, workload.n_nodes)
    _refuse_endless(args, workload)
    instance = None if args.optimal is None else _clairvoyant_instance(args, workload, failures)
    step(f"simulating {workload.n:,} jobs on {workload.n_nodes:,} nodes ({args.policy})")
    result = run_batch(
        workload, args.policy, failures=failures, node_mtbf=args.node_mtbf, seed=args.seed,
        downtime=args.downtime or 0.0, checkpoint_cost=args.checkpoint_cost or 0.0,
        recovery_cost=args.recovery_cost, final_checkpoint=args.final_checkpoint,
        knows_downtime=bool(args.knows_downtime), victim_tiebreak=args.victim_tiebreak,
        release=args.release or "resubmission", **_reservations(args),
    )
    step(f"validating the run ({len(result.attempts):,} attempts)")
    validate_run(result, failures=failures)
    step("computing the metrics")
    summary = summarize(result, prune=args.prune, window=args.window)
    outputs: dict[str, Any] = {}
    if args.output:
        from ..sim.jobs_csv import write_jobs_csv
        from ..sim.metrics import job_records

        step(f"writing {args.output}")
        rows = write_jobs_csv(job_records(result), args.output)
        outputs["jobs_csv"] = args.output
        print(f"wrote {args.output}: {rows} rows, one per attempt", file=sys.stderr)
    if args.failures_out:
        trace, horizon = _write_drawn_failures(result, args)
        outputs["failures"] = args.failures_out
        print(f"wrote {args.failures_out}: {len(trace):,} failures over [0, {horizon:,.0f}) s", file=sys.stderr)
    if args.plot:
        from coschedule.plot.batch import plot_batch_run

        step(f"drawing {args.plot}")
        outputs["gantt"] = [str(p) for p in write_figure(plot_batch_run(result), args.plot)]
    if instance is not None:
        step(f"the clairvoyant optimum ({args.optimal})")
    optimal = None if instance is None else _solve_optimal(args, instance, result)
    step.clear()
    if args.json:
        ck = result.checkpointing
        extra = {} if optimal is None else {"optimal": _optimal_json(args, *optimal)}
        emit_json({
            "workload": workload.name, "jobs": workload.n, "nodes": workload.n_nodes, "dropped": workload.dropped,
            "policy": args.policy, "knows_downtime": bool(args.knows_downtime),
            "release": args.release or "resubmission",
            **({"reservations": args.reservations or policy.reservations} if isinstance(policy, Conservative) else {}),
            "failures": {"file": args.failures, "node_mtbf": args.node_mtbf, "seed": args.seed,
                         "downtime": result.downtime},
            "checkpointing": {"cost": ck.cost, "recovery": ck.R, "final_checkpoint": ck.final_checkpoint},
            "makespan": float(result.completion.max()),
            "summary": summary.to_dict(),
            "flows": dict(zip(workload.ids, result.flow.tolist())),
            "outputs": outputs,
            **extra,
        })
    else:
        _print_text(result, args, summary)
        if optimal is not None:
            print("\n".join(_optimal_lines(args, *optimal)))
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "batch", formatter_class=Formatter,
        help="simulate a batch scheduler (FCFS, EASY, conservative) on a workload with node failures",
        description="Simulate one online batch scheduler on a workload whose jobs arrive over time, "
        "on nodes that fail ([Du2024]): a failure interrupts the job on its node, which is down for "
        "the downtime; the job restarts from its last checkpoint (from scratch without "
        "checkpointing) at once when a free node can replace the failed one, else it waits with the "
        "highest priority; with node stealing (sfsj, h111..h323, [Du2024] §4.2, §7) it may take a node "
        "of a running job instead. Prints the metrics of [Du2024] §5.3: flows (max, mean, weighted by "
        "nodes; overall and per size class), waits, bounded slowdowns, the utilization split into "
        "useful work, checkpoints, recoveries, lost work, downtime and idle time, failures and restarts. "
        "WORKLOAD is an SWF trace (.swf, .swf.gz) or a Batsim JSON workload, a file or a bundled "
        "name. No failure option: a failure-free run. Times are in seconds. The model and the worked "
        "toy example of [Du2024] §3: `coschedule docs batch`. With --optimal, the clairvoyant optimum of the same "
        "instance beside the run (`coschedule docs clairvoyant`).",
        epilog="examples:\n"
        "  coschedule batch batch/toy.json --policy conservative --failures batch/toy-failures.csv --downtime 5\n"
        "  coschedule batch batch/toy.json --policy easy --plot toy.png -o jobs.csv\n"
        "  coschedule batch batch/toy.json --policy sfsj --failures batch/toy-failures.csv --downtime 5\n"
        "  cp \"$(coschedule examples --path easy_sjf)\" .      # a policy of your own (coschedule docs own-policy)\n"
        "  coschedule batch batch/toy.json --policy easy_sjf.py:EasySJF --failures batch/toy-failures.csv --downtime 5\n"
        "  coschedule batch KTH-SP2-1996-2.1-cln --policy easy --node-mtbf 2e6 --seed 1 --downtime 3600 \\\n"
        "      --checkpoint-cost 300 --failures-out f.csv\n"
        "  coschedule batch KTH-SP2-1996-2.1-cln --policy fcfs --failures f.csv --downtime 3600 \\\n"
        "      --node-mtbf 2e6 --checkpoint-cost 300   # the same failures, another policy\n"
        "  coschedule batch batch/toy.json --policy conservative --failures batch/toy-failures.csv --downtime 5 \\\n"
        "      --optimal max   # how far from the best possible reaction to the failure (clairvoyant optimum)\n"
        "  coschedule batch batch/toy.json --policy easy --failures batch/toy-failures.csv --downtime 5 \\\n"
        "      --optimal weighted --time-limit 10\n",
    )
    p.add_argument("workload", metavar="WORKLOAD", help="an SWF trace (.swf, .swf.gz), a Batsim JSON workload, or a bundled name")
    p.add_argument("--policy", required=True, metavar="NAME",
                   help="fcfs, easy (EASY backfilling), conservative (conservative backfilling; alias baseline), "
                   "sfsj (node stealing, Steal From Small Jobs: h111), h111..h323 (node stealing Hxyz: timing "
                   "x = 1 now, 2 after a proactive checkpoint, 3 at the next checkpoint; victim y = 1 fewest "
                   "nodes, 2 latest released; criterion z = 1 fewer nodes, 2 released later, 3 smaller "
                   "estimated maximum flow); or your own: FILE.py:CLASS, MODULE:CLASS, or a name an installed "
                   "package registers (coschedule policies; coschedule docs own-policy)")
    p.add_argument("--victim-tiebreak", choices=("release", "runtime"), default=None,
                   help="node stealing with victim choice 1: among the jobs of the fewest nodes, the latest "
                   "released (release, the default) or the one running for the shortest time (runtime)")
    p.add_argument("--reservations", choices=("nodes", "count"), default=None,
                   help="what conservative backfilling and node stealing reserve: nodes (the default: "
                   "particular nodes, as batsched, the paper's scheduler, does) or count (node counts, the "
                   "nodes chosen when a job starts)")
    p.add_argument("--nodes", type=positive_int, default=None, metavar="N",
                   help="platform size N (default: the workload's nb_res, or the SWF header's MaxProcs, "
                   "else MaxNodes)")
    g = p.add_argument_group("failures (none given: failure-free)")
    g.add_argument("--failures", metavar="FILE", default=None,
                   help="a time,node CSV file of failures (`coschedule docs formats`), or a bundled one")
    g.add_argument("--node-mtbf", type=duration, default=None, metavar="T",
                   help="MTBF of one node (seconds, or with a unit: 2e6, 30d, 5y): per-node Poisson failures drawn from --seed (with "
                   "--failures, it only sets the checkpoint period)")
    g.add_argument("--seed", type=nonnegative_int, default=None, metavar="K", help="seed of the drawn failures (default 0)")
    g.add_argument("--downtime", type=nonnegative_duration, default=None, metavar="T",
                   help="a failed node is down for T (seconds, or 1h, 1d; default 0: it stays up)")
    g.add_argument("--release", choices=("resubmission", "first"), default=None,
                   help="a restarted job's release, for the queue order among failed jobs and node stealing's "
                   "victims and criteria K2, K3: resubmission (the default: the instant it was submitted again, "
                   "as the paper's Batsim) or first (its first submission)")
    known = g.add_mutually_exclusive_group()
    known.add_argument("--known-downtime", dest="knows_downtime", action="store_true", default=None,
                       help="the scheduler knows when a down node comes back and plans with it")
    known.add_argument("--unknown-downtime", dest="knows_downtime", action="store_false", default=None,
                       help="a down node is out of the platform until it is back (the default, as the "
                       "paper's batsched)")
    g.add_argument("--failures-out", metavar="FILE", default=None,
                   help="write the drawn failures (time,node CSV), for --failures in other runs")
    g = p.add_argument_group("checkpointing (none given: a failed job restarts from scratch)")
    g.add_argument("--checkpoint-cost", type=nonnegative_duration, default=None, metavar="C",
                   help="checkpoint cost C (seconds, or 5min): jobs checkpoint every Young/Daly period sqrt(2 mu_ind C / "
                   "nodes) of work (needs --node-mtbf); the paper's campaigns use 300")
    g.add_argument("--recovery-cost", type=nonnegative_duration, default=None, metavar="R",
                   help="a restarted job first recovers for R (seconds, or 5min) (default: C, 0 without checkpointing)")
    g.add_argument("--final-checkpoint", action="store_true",
                   help="checkpoint at the end of each started period, the last one too (eq. (1) as printed); "
                   "default: only when more work follows (§6.1)")
    g = p.add_argument_group("the clairvoyant optimum (tiny instances: up to 8 jobs and 8 nodes, integer times)")
    g.add_argument("--optimal", choices=("max", "weighted"), default=None,
                   help="also compute the best possible reaction to the same failures known in advance (CP-SAT), "
                   "for the max flow or the weighted mean flow, and print the policy's ratio to it "
                   "(`coschedule docs clairvoyant`)")
    g.add_argument("--time-limit", type=duration, default=None, metavar="T",
                   help=f"time for the optimum (seconds, or 2min) (default {OPTIMAL_TIME_LIMIT:g}); stopped by it, the answer is the best "
                   "schedule found with its gap, never called optimal")
    g.add_argument("--max-attempts", type=positive_int, default=None, metavar="K",
                   help="attempts per job in the model when checkpointing is on (default 2; more for a job the policy "
                   "restarted more often); without checkpoints one attempt per job is proved enough")
    g = p.add_argument_group("metrics and output")
    g.add_argument("--prune", type=prune_fraction, default=0.0, metavar="F",
                   help="leave out the first and the last fraction F of the jobs (by submission) from the flow, "
                   "wait and slowdown statistics (default 0; the paper: 0.2)")
    g.add_argument("--window", type=time_window, default=None, metavar="START:END",
                   help="measure the utilization over [START, END) (seconds, or 10d:30d; default: the whole run; "
                   "the paper: 10d:30d, days 11 to 30)")
    g.add_argument("-o", "--output", metavar="FILE", default=None,
                   help="write Batsim's jobs.csv here, one row per attempt (J, J#1, ... for reruns)")
    g.add_argument("--plot", type=figure_path, metavar="FILE", dest="plot", default=None,
                   help="draw the run (nodes x time) to FILE: the suffix picks the format (.png, .svg, .pdf); "
                   "needs matplotlib")
    g.add_argument("--json", action="store_true", help="machine-readable output")
    p.alias("--gantt", "--plot")  # the former spelling
    p.set_defaults(func=cmd_batch, kernels=True)
