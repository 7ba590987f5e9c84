"""``coschedule batch``: one online run of a batch scheduler on nodes that fail ([Du2024]).

Thin: read the workload (SWF or Batsim JSON) and the failures (a ``time,node`` file, drawn from
a seed, or none), call :func:`coschedule.batch.run_batch`, print the summary (text or
``--json``), write the per-attempt ``jobs.csv``, the drawn failures and the Gantt chart on request.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import CoscheduleError, InvalidInstance
from ..sim.engine import SimulationResult
from ..sim.failures import FailureTrace
from ..sim.jobs_csv import JobRecord
from ..sim.workload import Workload
from .common import SWF_SUFFIXES, Formatter, emit_json, positive_float, positive_int, write_figure

__all__ = ["attempt_records", "cmd_batch", "load_workload_arg", "nonnegative_float", "register"]

#: per-job flows are printed (text output) up to this many jobs; jobs.csv has them all
MAX_PRINTED_JOBS = 20


def nonnegative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}") from None
    if not (value >= 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text}")
    return value


def _input_path(arg: str) -> str:
    """An existing file, else a bundled one: an instance or trace name
    (:func:`coschedule.data.instance_path`), or a path under ``instances/`` (``batch/toy.json``,
    ``batch/toy-failures.csv``)."""
    from ..data import instance_path, instances_dir

    if Path(arg).exists():
        return arg
    found = instance_path(arg)
    if found != arg:
        return found
    try:
        bundled = instances_dir() / arg
    except CoscheduleError:
        return arg
    return str(bundled) if bundled.is_file() else arg


def _is_batsim(path: str) -> bool:
    """A ``.json`` file, or a file whose first non-blank byte is ``{``; SWF otherwise."""
    if path.lower().endswith(".json"):
        return True
    if path.lower().endswith(SWF_SUFFIXES) or path.lower().endswith(".gz"):
        return False
    try:
        with open(path, "rb") as fh:
            return fh.read(4096).lstrip()[:1] == b"{"
    except OSError:
        return False  # the reader reports it


def load_workload_arg(arg: str, *, nodes: int | None = None) -> Workload:
    """The workload a command was given: a Batsim JSON workload or an SWF trace (plain or gzip),
    a file or a bundled name, on ``nodes`` nodes (default: the file's ``nb_res``, or the SWF
    header's ``MaxProcs``/``MaxNodes``). Errors name the file (and the line or job)."""
    from ..sim.workload import read_batsim, workload_from_swf

    path = _input_path(arg)
    if _is_batsim(path):
        workload = read_batsim(path)
        if nodes is None or nodes == workload.n_nodes:
            return workload
        try:
            return Workload(workload.ids, workload.submit, workload.nodes, workload.walltime, workload.length,
                            nodes, name=workload.name, dropped=workload.dropped)
        except InvalidInstance as e:
            raise InvalidInstance(f"{path}: {e} (--nodes {nodes})") from None
    from ..swf import read_swf

    trace = read_swf(path)
    try:
        return workload_from_swf(trace, n_nodes=nodes)
    except InvalidInstance as e:
        where = "" if str(e).startswith(str(trace.path)) else f"{trace.path}: "
        raise InvalidInstance(f"{where}{e}") from None


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
    for flag, given in (("--downtime", args.downtime is not None), ("--unknown-downtime", args.unknown_downtime)):
        if given and not failures:
            raise CoscheduleError(f"{flag} applies to failures: give --failures FILE or --node-mtbf S")


def _read_failures_arg(arg: str, n_nodes: int) -> FailureTrace:
    from ..sim.failures import read_failures

    return read_failures(_input_path(arg), n_nodes=n_nodes)


def _write_drawn_failures(result: SimulationResult, args: argparse.Namespace) -> tuple[FailureTrace, float]:
    """The failures the run drew, over a horizon at least twice the run's (drawn a day at a time
    from the same seed, they are the run's failures, and more after it), written to
    ``--failures-out``; so that ``--failures FILE`` replays them for any policy."""
    from ..batch import failure_horizon
    from ..sim.failures import poisson_failures, write_failures

    horizon = max(failure_horizon(result.workload, result.checkpointing), 2.0 * result.horizon)
    trace = poisson_failures(result.workload.n_nodes, node_mtbf=args.node_mtbf, horizon=horizon,
                             downtime=result.downtime, seed=args.seed)
    write_failures(trace, args.failures_out)
    return trace, horizon


# ------------------------------------------------------------------------------ outputs


def attempt_records(result: SimulationResult) -> list[JobRecord]:
    """One ``jobs.csv`` row per attempt, as Batsim writes resubmitted jobs: the first attempt of
    job ``J`` is ``J``, the k-th rerun ``J#k``, submitted when the attempt before it ended; a
    failed or interrupted attempt is ``COMPLETED_KILLED``. The requested time of an attempt is
    its wall time: ``R + W - U`` for a rerun (eq. (4))."""
    w = result.workload
    ends = {(a.job, a.index): a.end for a in result.attempts}
    records = []
    for a in result.attempts:
        j = a.job
        first = a.index == 0
        records.append(JobRecord(
            job_id=w.ids[j] if first else f"{w.ids[j]}#{a.index}",
            submission_time=float(w.submit[j]) if first else ends[(j, a.index - 1)],
            requested_nodes=int(w.nodes[j]),
            requested_time=float(a.recovery + result.walltime[j] - a.saved_before),
            starting_time=a.start, finish_time=a.end, nodes=a.nodes,
            final_state="COMPLETED_SUCCESSFULLY" if a.outcome == "completed" else "COMPLETED_KILLED",
        ))
    return records


def _summary(result: SimulationResult) -> dict[str, Any]:
    """Flows (mean, max, weighted by nodes), failures and restarts of a run."""
    w = result.workload
    flow = result.flow
    nodes = w.nodes.astype(np.float64)
    n = w.n
    return {
        "jobs": n,
        "mean_flow": float(flow.mean()) if n else 0.0,
        "max_flow": float(flow.max()) if n else 0.0,
        "weighted_mean_flow": float((flow * nodes).sum() / nodes.sum()) if n else 0.0,
        "makespan": float(result.completion.max()) if n else 0.0,
        "failures": len(result.failures),
        "failures_on_jobs": sum(1 for f in result.failures if f.job >= 0),
        "restarts": result.restarts,
    }


def _describe_failures(args: argparse.Namespace, result: SimulationResult) -> str:
    if args.failures is not None:
        how = f"from {args.failures}"
    elif args.node_mtbf is not None:
        how = f"drawn with node MTBF {args.node_mtbf:g} s, seed {args.seed}"
    else:
        return "no failures"
    return f"failures {how}, downtime {result.downtime:g} s"


def _describe_checkpointing(result: SimulationResult) -> str:
    ck = result.checkpointing
    if not ck.enabled:
        return "no checkpointing" + (f", recovery {ck.R:g} s" if ck.R else "")
    final = ", final checkpoint" if ck.final_checkpoint else ""
    return f"checkpoints C = {ck.cost:g} s, R = {ck.R:g} s (Young/Daly periods{final})"


def _print_text(result: SimulationResult, args: argparse.Namespace, summary: dict[str, Any]) -> None:
    w = result.workload
    print(f"workload {w.name}: {w.n} jobs on {w.n_nodes} nodes" + (f" ({w.dropped} dropped)" if w.dropped else ""))
    print(f"policy {args.policy}; {_describe_failures(args, result)}; {_describe_checkpointing(result)}")
    if 0 < w.n <= MAX_PRINTED_JOBS:
        width = max(3, *(len(i) for i in w.ids))
        print(f"{'job':<{width}}  nodes  submit  start    end   flow  attempts")
        attempts = np.bincount([a.job for a in result.attempts], minlength=w.n)
        for k, jid in enumerate(w.ids):
            print(f"{jid:<{width}}  {w.nodes[k]:>5}  {w.submit[k]:>6g}  {result.first_start[k]:>5g}  "
                  f"{result.completion[k]:>5g}  {result.flow[k]:>5g}  {attempts[k]:>8}")
    print(f"flow: mean {summary['mean_flow']:.6g}, max {summary['max_flow']:.6g}, "
          f"mean weighted by nodes {summary['weighted_mean_flow']:.6g}; makespan {summary['makespan']:.6g}")
    struck = f" ({summary['failures_on_jobs']} struck a running job)" if summary["failures"] else ""
    print(f"{_count(summary['failures'], 'failure')}{struck}, {_count(summary['restarts'], 'restart')}")


def _count(k: int, noun: str) -> str:
    return f"{k} {noun}{'' if k == 1 else 's'}"


def cmd_batch(args: argparse.Namespace) -> int:
    from ..batch import make_policy, run_batch

    _check_options(args)
    make_policy(args.policy)  # an unknown name fails before the workload is read
    if args.plot:
        from ..plot import new_figure

        new_figure()  # no matplotlib: one line now, not after the run
    if args.node_mtbf is not None and args.failures is None and args.seed is None:
        args.seed = 0
    workload = load_workload_arg(args.workload, nodes=args.nodes)
    if workload.n == 0:
        raise InvalidInstance(f"{args.workload}: no job to run (every job was dropped: run time or size unknown)")
    failures = None if args.failures is None else _read_failures_arg(args.failures, workload.n_nodes)
    result = run_batch(
        workload, args.policy, failures=failures, node_mtbf=args.node_mtbf, seed=args.seed,
        downtime=args.downtime or 0.0, checkpoint_cost=args.checkpoint_cost or 0.0,
        recovery_cost=args.recovery_cost, final_checkpoint=args.final_checkpoint,
        knows_downtime=not args.unknown_downtime,
    )
    summary = _summary(result)
    outputs: dict[str, Any] = {}
    if args.output:
        from ..sim.jobs_csv import write_jobs_csv

        rows = write_jobs_csv(attempt_records(result), args.output)
        outputs["jobs_csv"] = args.output
        print(f"wrote {args.output}: {rows} rows, one per attempt", file=sys.stderr)
    if args.failures_out:
        trace, horizon = _write_drawn_failures(result, args)
        outputs["failures"] = args.failures_out
        print(f"wrote {args.failures_out}: {len(trace)} failures over [0, {horizon:.6g}) s", file=sys.stderr)
    if args.plot:
        from ..plot import plot_batch_run

        outputs["gantt"] = [str(p) for p in write_figure(plot_batch_run(result), args.plot)]
    if args.json:
        ck = result.checkpointing
        emit_json({
            "workload": workload.name, "jobs": workload.n, "nodes": workload.n_nodes, "dropped": workload.dropped,
            "policy": args.policy, "knows_downtime": not args.unknown_downtime,
            "failures": {"file": args.failures, "node_mtbf": args.node_mtbf, "seed": args.seed,
                         "downtime": result.downtime},
            "checkpointing": {"cost": ck.cost, "recovery": ck.R, "final_checkpoint": ck.final_checkpoint},
            "summary": summary,
            "flows": dict(zip(workload.ids, result.flow.tolist())),
            "outputs": outputs,
        })
    else:
        _print_text(result, args, summary)
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "batch", formatter_class=Formatter,
        help="simulate a batch scheduler (FCFS, EASY, conservative) on a workload with node failures",
        description="Simulate one online batch scheduler on a workload whose jobs arrive over time, "
        "on nodes that fail ([Du2024]): a failure interrupts the job on its node, which is down for "
        "the downtime; the job restarts from its last checkpoint (from scratch without "
        "checkpointing) at once when a free node can replace the failed one, else it waits with the "
        "highest priority. Prints the flows (mean, max, weighted by nodes), failures and restarts. "
        "WORKLOAD is an SWF trace (.swf, .swf.gz) or a Batsim JSON workload, a file or a bundled "
        "name. No failure option: a failure-free run. Times are in seconds. The model and the worked "
        "toy example of [Du2024] §3: `coschedule docs batch`.",
        epilog="examples:\n"
        "  coschedule batch batch/toy.json --policy conservative --failures batch/toy-failures.csv --downtime 5\n"
        "  coschedule batch batch/toy.json --policy easy --gantt toy.png -o jobs.csv\n"
        "  coschedule batch KTH-SP2-1996-2.1-cln --policy easy --node-mtbf 2e6 --seed 1 --downtime 3600 \\\n"
        "      --checkpoint-cost 300 --failures-out f.csv\n"
        "  coschedule batch KTH-SP2-1996-2.1-cln --policy fcfs --failures f.csv --downtime 3600 \\\n"
        "      --node-mtbf 2e6 --checkpoint-cost 300   # the same failures, another policy\n",
    )
    p.add_argument("workload", metavar="WORKLOAD", help="an SWF trace (.swf, .swf.gz), a Batsim JSON workload, or a bundled name")
    p.add_argument("--policy", required=True, metavar="NAME",
                   help="fcfs, easy (EASY backfilling), conservative (conservative backfilling; alias baseline)")
    p.add_argument("--nodes", type=positive_int, default=None, metavar="N",
                   help="platform size N (default: the workload's nb_res, or the SWF header's MaxProcs, "
                   "else MaxNodes)")
    g = p.add_argument_group("failures (none given: failure-free)")
    g.add_argument("--failures", metavar="FILE", default=None,
                   help="a time,node CSV file of failures (`coschedule docs formats`), or a bundled one")
    g.add_argument("--node-mtbf", type=positive_float, default=None, metavar="S",
                   help="MTBF of one node, seconds: per-node Poisson failures drawn from --seed (with "
                   "--failures, it only sets the checkpoint period)")
    g.add_argument("--seed", type=int, default=None, metavar="K", help="seed of the drawn failures (default 0)")
    g.add_argument("--downtime", type=nonnegative_float, default=None, metavar="S",
                   help="a failed node is down for S seconds (default 0: it stays up)")
    g.add_argument("--unknown-downtime", action="store_true",
                   help="the scheduler does not know when a down node comes back")
    g.add_argument("--failures-out", metavar="FILE", default=None,
                   help="write the drawn failures (time,node CSV), for --failures in other runs")
    g = p.add_argument_group("checkpointing (none given: a failed job restarts from scratch)")
    g.add_argument("--checkpoint-cost", type=nonnegative_float, default=None, metavar="C",
                   help="checkpoint cost C seconds: jobs checkpoint every Young/Daly period sqrt(2 mu_ind C / "
                   "nodes) of work (needs --node-mtbf); the paper's campaigns use 300")
    g.add_argument("--recovery-cost", type=nonnegative_float, default=None, metavar="R",
                   help="a restarted job first recovers for R seconds (default: C, 0 without checkpointing)")
    g.add_argument("--final-checkpoint", action="store_true",
                   help="checkpoint at the end of each started period, the last one too (eq. (1) as printed); "
                   "default: only when more work follows (§6.1)")
    g = p.add_argument_group("output")
    g.add_argument("-o", "--output", metavar="FILE", default=None,
                   help="write Batsim's jobs.csv here, one row per attempt (J, J#1, ... for reruns)")
    g.add_argument("--plot", "--gantt", metavar="FILE", dest="plot", default=None,
                   help="draw the run (nodes x time) to FILE: the suffix picks the format (.png, .svg, .pdf); "
                   "needs matplotlib")
    g.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_batch)
