"""``coschedule torus simulate``: one run of a torus scheduler of [Oliner2004] on a job log.

Thin: read the workload (SWF or Batsim JSON, :func:`~coschedule.cli.common.load_workload_arg`),
put it on the torus (:func:`coschedule.torus.workload.torus_workload`), read or draw the failures,
call :func:`coschedule.heuristics.torus.run.run_torus` (``--policy``: a built-in name, or the
user's own ``FILE.py:CLASS``, ``MODULE:CLASS`` or registered name), check the run
(:func:`coschedule.torus.validate.validate_torus_run`), print its metrics
(:func:`coschedule.torus.metrics.torus_metrics`; text or ``--json``), write the per-attempt
``jobs.csv`` (the batch scheduler's format: :func:`coschedule.sim.metrics.job_records`), the
failures and the picture on request.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from coschedule.errors import CoscheduleError, InvalidInstance

from ..common import (
    Formatter,
    emit_json,
    figure_path,
    input_path,
    load_workload_arg,
    nonnegative_duration,
    nonnegative_int,
    positive_float,
    positive_int,
    write_figure,
)

__all__ = ["cmd_torus_simulate", "register_simulate"]


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return value


def _policy(args: argparse.Namespace) -> Any:
    """The user's policy ``--policy`` names (its :class:`~coschedule.plugins.PolicySource`), or
    None for a built-in name (then made lower case); an unknown name is one line now, before the
    workload is read."""
    from coschedule.heuristics.torus.policies import (
        TORUS_POLICIES,
        torus_policy_source,
        unknown_torus_policy,
    )

    if args.policy.lower() in TORUS_POLICIES:
        args.policy = args.policy.lower()
        return None
    src = torus_policy_source(args.policy)
    if src is None:
        raise unknown_torus_policy(args.policy)
    return src


def _check(args: argparse.Namespace, user: Any) -> None:
    if args.failures is not None and args.failure_count is not None:
        raise CoscheduleError("give --failures FILE or --failure-count K, not both")
    if args.seed is not None and args.failure_count is None:
        raise CoscheduleError("--seed draws failures: it needs --failure-count")
    if args.failure_model is not None and args.failure_count is None:
        raise CoscheduleError("--failure-model spreads drawn failures: it needs --failure-count")
    if args.failures_out is not None and args.failure_count is None:
        raise CoscheduleError("--failures-out writes drawn failures: it needs --failure-count")
    if user is not None:  # a user's policy: it says which options it takes
        pass
    elif args.confidence is not None and args.policy != "balancing":
        raise CoscheduleError(f"--confidence is the balancing predictor's (--policy balancing), not {args.policy}'s")
    elif args.pf is not None and args.policy != "balancing":
        raise CoscheduleError(f"--pf applies to balancing, not to {args.policy}")
    elif args.accuracy is not None and args.policy != "tiebreak":
        raise CoscheduleError(f"--accuracy is the tie-breaking predictor's (--policy tiebreak), not {args.policy}'s")
    if args.migration_cost and not args.migration:
        raise CoscheduleError("--migration-cost applies to migration, which --no-migration turns off")
    if args.plot_at is not None and not args.plot:
        raise CoscheduleError("--plot-at chooses the instant of --plot: give --plot FILE")


def cmd_torus_simulate(args: argparse.Namespace) -> int:
    from coschedule.heuristics.torus.run import run_torus
    from coschedule.sim.failures import read_failures, write_failures
    from coschedule.sim.metrics import job_records
    from coschedule.torus.geometry import format_dims
    from coschedule.torus.metrics import torus_metrics
    from coschedule.torus.validate import validate_torus_run
    from coschedule.torus.workload import torus_workload

    user = _policy(args)
    _check(args, user)
    if args.plot:
        from coschedule.plot.figure import new_figure

        new_figure()  # no matplotlib: one line now, not after the run
    dims = args.shape
    workload = load_workload_arg(args.workload)
    if workload.n == 0:
        raise InvalidInstance(f"{args.workload}: no job to run (every job was dropped: run time or size unknown)")
    jobs = torus_workload(workload, dims, load_scale=args.load_scale, unit=args.unit)
    if jobs.n == 0:
        raise InvalidInstance(f"{args.workload}: every job is wider than the torus {format_dims(dims)}")
    failures = None
    if args.failures is not None:
        failures = read_failures(input_path(args.failures), n_nodes=jobs.workload.n_nodes)
    seed = args.seed if args.seed is not None else (0 if args.failure_count else None)
    run = run_torus(jobs, args.policy, failures=failures, failure_count=args.failure_count,
                    failure_model=args.failure_model or "clustered", seed=seed, downtime=args.downtime,
                    confidence=args.confidence or 0.0, accuracy=args.accuracy or 0.0, pf=args.pf or "max",
                    backfill=not args.no_backfill, migration=args.migration, migration_cost=args.migration_cost)
    validate_torus_run(run)
    metrics = torus_metrics(run, bsld=args.bsld, bsld_time=args.bsld_time)
    outputs: dict[str, Any] = {}
    if args.output:
        from coschedule.sim.jobs_csv import write_jobs_csv

        rows = write_jobs_csv(job_records(run.result), args.output)
        outputs["jobs_csv"] = args.output
        print(f"wrote {args.output}: {rows} rows, one per attempt", file=sys.stderr)
    if args.failures_out:
        write_failures(run.trace, args.failures_out)
        outputs["failures"] = args.failures_out
        print(f"wrote {args.failures_out}: {len(run.trace)} failures (time,node; node = i*Y*Z + j*Z + k)",
              file=sys.stderr)
    if args.plot:
        from coschedule.plot.torus import default_instant, plot_torus_run

        at = default_instant(run) if args.plot_at is None else args.plot_at
        outputs["plot"] = [str(p) for p in write_figure(plot_torus_run(run, at=at), args.plot)]
        outputs["plot_at"] = at
    w = jobs.workload
    if args.failures is not None:
        how = f"failures from {args.failures}"
    elif args.failure_count:
        how = f"{args.failure_count} failures ({run.params['failure_model']}, seed {seed})"
    else:
        how = "no failures"
    predictor = {"balancing": f", confidence {args.confidence or 0:g} (P_f {args.pf or 'max'})",
                 "tiebreak": f", accuracy {args.accuracy or 0:g}"}.get(args.policy, "")
    own = {"policy_source": {"origin": user.origin, "target": user.target, "sha256": user.digest}} if user else {}
    if args.json:
        emit_json({
            "workload": w.name, "jobs": w.n, "torus": format_dims(dims), "units": w.n_nodes, "unit": jobs.unit,
            "load_scale": jobs.load_scale, "wide_dropped": list(jobs.wide), "rounded": jobs.rounded,
            "dropped": workload.dropped, "policy": args.policy, **own, "backfill": not args.no_backfill,
            "migration": args.migration, "migration_cost": args.migration_cost,
            "migrations": run.params["migrations"],
            "confidence": args.confidence, "accuracy": args.accuracy, "pf": args.pf or "max",
            "failures": {"file": args.failures, "count": args.failure_count, "model": run.params["failure_model"],
                         "seed": seed, "downtime": args.downtime},
            "makespan": float(run.result.completion.max()),
            "metrics": metrics.to_dict(), "outputs": outputs,
        })
        return 0
    notes = []
    if jobs.wide:
        notes.append(f"{len(jobs.wide)} wider than the torus dropped")
    if jobs.rounded:
        notes.append(f"{jobs.rounded} rounded up to a size with a box shape")
    if workload.dropped:
        notes.append(f"{workload.dropped} without run time or size dropped by the reader")
    print(f"workload {w.name}: {w.n} jobs on the torus {format_dims(dims)} ({w.n_nodes} units, {jobs.unit} log "
          f"node{'s' if jobs.unit > 1 else ''} per unit), load scale {jobs.load_scale:g}"
          + (f" ({'; '.join(notes)})" if notes else ""))
    fill = "EASY backfilling on a reserved partition" if not args.no_backfill else "no backfilling"
    moves = (f", migration ({run.params['migrations']} repacks, {args.migration_cost:g} s a move)"
             if args.migration else ", no migration")
    if user is not None:  # what it does is its own: where it comes from
        fill, moves = f"your own ({user.origin} {user.target})", ""
    print(f"policy {args.policy}{predictor}, {fill}{moves}; {how}, downtime {args.downtime:g} s")
    print(metrics.table())
    return 0


def register_simulate(tsub: Any) -> None:
    """Add ``simulate`` to the ``torus`` command family's subparsers."""
    p = tsub.add_parser(
        "simulate", formatter_class=Formatter,
        help="simulate a torus scheduler (fcfs, balancing, tiebreak, or your own) on a job log with failures",
        description="Simulate the BlueGene/L scheduler of [Oliner2004] on a job log: jobs arrive over "
        "time and need contiguous rectangular partitions (wrap-around allowed) of a 3-D torus of units; "
        "FCFS with EASY backfilling on a reserved partition and migration (§5.2.1), placing each job where it "
        "loses the least "
        "maximal free partition (Krevat, §5.1), or the fault-aware Balancing (least MFP loss plus P_f "
        "times the job's size, §5.2.1) and Tie-breaking (among equal MFP losses, a partition predicted not "
        "to fail, §5.2.2), whose predictors read the failure log (confidence / accuracy a). A failure "
        "kills the job on its node; it restarts from the beginning (no checkpointing, §6.1); the node is "
        "available again at once unless --downtime. Prints the mean wait and response (from the job's last "
        "start), the bounded slowdown (Γ = 10 s, over the run time) and the capacity utilized / unused / lost (§6.1). "
        "WORKLOAD is an SWF trace or a Batsim JSON workload, a file or a bundled name; a log node is a "
        "unit (two per unit for a 256-node log on 128 units: --unit). `coschedule docs torus`.",
        epilog="examples:\n"
        "  coschedule torus simulate NASA-iPSC-1993-3.1-cln --shape 4x4x8 --policy fcfs\n"
        "  coschedule torus simulate NASA-iPSC-1993-3.1-cln --policy balancing --confidence 0.1 \\\n"
        "      --failure-count 4000 --seed 1 -o jobs.csv\n"
        "  coschedule torus simulate NASA-iPSC-1993-3.1-cln --policy tiebreak --accuracy 0.5 \\\n"
        "      --failure-count 4000 --seed 1 --load-scale 1.2 --json\n"
        "  coschedule torus simulate batch/toy.json --shape 2x2x2 --policy balancing --confidence 0.9 \\\n"
        "      --failures batch/toy-failures.csv --plot torus.png\n"
        "  coschedule torus simulate batch/toy.json --shape 2x2x2 --policy my_torus.py:FirstFit   # your own\n",
    )
    p.add_argument("workload", metavar="WORKLOAD", help="an SWF trace (.swf, .swf.gz), a Batsim JSON workload, or a bundled name")
    from .partitions import torus_dims

    p.add_argument("--shape", type=torus_dims, default=(4, 4, 8), metavar="XxYxZ",
                   help="the torus, in units (default 4x4x8: BlueGene/L's 128 supernodes of 512 nodes)")
    p.add_argument("--policy", required=True, metavar="NAME",
                   help="fcfs: Krevat's FCFS (least MFP loss); balancing: + P_f x size (§5.2.1); tiebreak: "
                   "least MFP loss, then predicted safe (§5.2.2); or your own: FILE.py:CLASS, MODULE:CLASS, "
                   "or a name an installed package registers (e.g. a TorusScheduler subclass with "
                   "choose(sim, job, partitions); `coschedule docs own-policy`)")
    p.add_argument("--confidence", type=_fraction, default=None, metavar="A",
                   help="balancing: the predictor's confidence a (p_n = a for a node that fails in the job's "
                   "window, §4.1; default 0)")
    p.add_argument("--pf", choices=("max", "product"), default=None,
                   help="balancing: a partition's P_f, max over its nodes (§4.1, default) or 1 - prod(1 - p_n) "
                   "(§5.2.1)")
    p.add_argument("--accuracy", type=_fraction, default=None, metavar="A",
                   help="tiebreak: the predictor's accuracy a (a failure is missed with probability 1 - a, one "
                   "draw per failure of the log; no false positives, §4.2; default 0)")
    p.add_argument("--no-backfill", action="store_true", help="strict FCFS: nothing overtakes the queue's head")
    p.add_argument("--migration", action=argparse.BooleanOptionalAction, default=True,
                   help="Krevat's migration: when the head has no partition but enough free units, re-place the "
                   "running jobs (they keep their work) if that lets it start; on by default, the paper's system "
                   "(§5.2.1: \"including backfilling and migration\"); --no-migration: without it")
    p.add_argument("--migration-cost", type=nonnegative_duration, default=0.0, metavar="T",
                   help="with --migration: the time a moved job spends before it goes on (seconds, or 1min; default 0)")
    p.add_argument("--load-scale", type=positive_float, default=1.0, metavar="C",
                   help="multiply every run time (and estimate) by C (§6.2; default 1)")
    p.add_argument("--unit", type=positive_int, default=None, metavar="K",
                   help="log nodes per torus unit (default: ceil(log machine / units), 1 for logs no larger "
                   "than the torus); a job wider than the torus is dropped and reported")
    g = p.add_argument_group("failures (none given: failure-free)")
    g.add_argument("--failures", metavar="FILE", default=None,
                   help="a time,node CSV file (node = i*Y*Z + j*Z + k), or a bundled one")
    g.add_argument("--failure-count", type=positive_int, default=None, metavar="K",
                   help="draw K failures over the log's period (first submission to the last submit + run)")
    g.add_argument("--failure-model", choices=("clustered", "uniform"), default=None,
                   help="clustered (default): bursts of simultaneous failures on neighbouring units (mean 4); "
                   "uniform: times and units uniform")
    g.add_argument("--seed", type=nonnegative_int, default=None, metavar="S",
                   help="seed of the drawn failures and of the tie-breaking predictor (default 0)")
    g.add_argument("--downtime", type=nonnegative_duration, default=0.0, metavar="T",
                   help="a failed unit is down for T (seconds, or 1h; default 0: transient, §6.1; §7.1's realistic case: > 0)")
    g.add_argument("--failures-out", metavar="FILE", default=None,
                   help="write the drawn failures (time,node CSV), for --failures in other runs")
    g = p.add_argument_group("metrics and output")
    g.add_argument("--bsld", choices=("max", "min"), default="max",
                   help="bounded slowdown max(t^r, 10)/max(t^e, 10) (default) or /min(t^e, 10) as §3.4 prints it")
    g.add_argument("--bsld-time", choices=("run", "request"), default="run",
                   help="t^e of the bounded slowdown: the job's run time (default; §3.4's \"actual job execution "
                   "time\") or its wall-time request")
    g.add_argument("-o", "--output", metavar="FILE", default=None,
                   help="write Batsim's jobs.csv here, one row per attempt, partitions as node lists")
    g.add_argument("--plot", type=figure_path, metavar="FILE", default=None,
                   help="draw the torus at an instant (slices, jobs coloured, failures marked) and the Gantt "
                   "chart of the jobs around it; the suffix picks the format; needs matplotlib")
    g.add_argument("--plot-at", type=nonnegative_duration, default=None, metavar="T",
                   help="the instant of --plot (seconds from the log's start, or 12d; default: one with the most jobs running)")
    g.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_torus_simulate)
