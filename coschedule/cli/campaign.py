"""CLI commands for experiment campaigns: ``coschedule simulate`` and ``coschedule report``.

Thin: build a campaign spec (a rigid :class:`~coschedule.campaign.CampaignSpec`, or a
:class:`~coschedule.campaign.simulators.batch.adapter.BatchSpec` for ``simulator = "batch"``) from a TOML file
and/or flags, check it (before any work), run it into the SQLite file, print what was done;
read a database and print or export its summaries.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coschedule.campaign.simulators.batch.figures import FIGURES as BATCH_FIGURES
from coschedule.campaign.simulators.torus.figures import FIGURES as TORUS_FIGURES

from ..data import TRACES_ENV, spec_path
from ..errors import CampaignError
from .common import Formatter, duration, figure_path, nonnegative_int, write_figure

if TYPE_CHECKING:  # numpy and the simulators: imported by the commands, not to build the parser
    from coschedule.campaign.simulators.batch.adapter import BatchSpec
    from coschedule.campaign.simulators.torus.adapter import TorusSpec

    from ..campaign import CampaignSpec

__all__ = ["cmd_report", "cmd_simulate", "register"]

#: where this family stands in ``coschedule --help`` (the CLI discovers its families)
HELP_ORDER = 50

SIMULATE_EPILOG = """\
examples:
  coschedule simulate fig5-tenth            # a TOML spec; writes fig5-tenth.sqlite
  coschedule simulate fig5 --dry-run                       # a bundled spec by name; the grid's size
  coschedule simulate table1-kth --traces-dir ~/swf        # its trace from ~/swf if there, else bundled
  coschedule simulate --synthetic 30 --heuristic r-list-0,r-list-q --priority LPT,LA \\
      --qbar 0:0.9:0.1 --scenarios 100 --db sweep.sqlite
  coschedule simulate --trace KTH-SP2-1996-2.1-cln.swf.gz --days 30 \\
      --heuristic r-list-0,r-shelffill-b --qbar 0,0.05,0.1 --db kth.sqlite
  coschedule simulate fig5 --dask tcp://10.0.0.5:8786
  coschedule simulate kth-batch-demo                       # a batch campaign (simulator = "batch")
  coschedule simulate --simulator batch --workload KTH-SP2-1996-2.1-cln.swf.gz --days 7 \\
      --policy conservative,easy --node-mtbf none,2.592e6 --downtime 600 --seeds 3 --db kth-batch.sqlite
  coschedule simulate oliner2004-demo                      # a torus campaign (simulator = "torus")
  coschedule simulate redistribution-demo --seed 7         # a pack campaign (simulator = "redistrib")
Running the same command again resumes: the cells already in the database are skipped.
Flags override the TOML file's keys (source flags replace its sources).
A SPEC that is not a file but a bare name is a bundled spec (coschedule examples lists them).
A trace path is looked up: as given if absolute; relative to the spec's folder (the current
folder for --trace); for a bare file name, then in --traces-dir DIR (or $COSCHEDULE_TRACES),
then in the bundled traces. See `coschedule docs campaigns`.
"""

REPORT_EPILOG = """\
examples:
  coschedule report fig5.sqlite                            # summary tables
  coschedule report fig5.sqlite --plot docs/figures/fig5   # fig5.png and fig5.svg
  coschedule report fig5.sqlite --plot fig5.pdf            # the suffix picks the format
  coschedule report fig4a.sqlite fig4b.sqlite --plot fig4  # Fig. 4: two panels side by side
  coschedule report fig5.sqlite --csv cells.csv            # every cell, one row each
  coschedule report fig6.sqlite --json > fig6.json
  coschedule report kth.sqlite --qbar 0.1 --priority LPT
  coschedule report kth.sqlite --markdown                  # the same tables in Markdown
  coschedule report kth-batch-demo.sqlite --policy easy    # a batch campaign: flows per policy
  coschedule report oliner2004-demo.sqlite --plot f --figure slowdown-failures   # a torus campaign
  coschedule report redistribution-demo.sqlite --plot f    # normalised makespans per variant
"""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "simulate", formatter_class=Formatter,
        help="run a campaign: instances x heuristics x priorities x qbar x P x scenarios (or a batch campaign)",
        description="Simulate the resilient rigid-job heuristics over a grid of instances (synthetic "
        "job sets of §5.1, instance files or day-sets of SWF traces), heuristics, priorities, qbar and "
        "P values, on N failure scenarios per cell; or, with simulator = \"batch\" (--simulator batch), "
        "the online batch scheduler over workloads x policies x failure settings x seeds, one run per "
        "cell; or, with simulator = \"torus\", the BlueGene/L torus schedulers over workloads x load "
        "scales x failure counts x seeds x schedulers; or, with simulator = \"redistrib\", packs of "
        "malleable applications under failures with redistribution (n x p x MTBF x c x runs x variants; "
        "a TOML spec, --seed and --name only). Results go to an SQLite file as cells complete.",
        epilog=SIMULATE_EPILOG,
    )
    p.add_argument("spec", nargs="?", help="campaign TOML file, or the name of a bundled spec (fig5-tenth); "
                   "optional when the flags define the grid")
    p.add_argument("--db", help="results database (default: NAME.sqlite, NAME the spec's name)")
    p.add_argument("--name", help="campaign name")
    p.add_argument("--simulator", choices=("rigid", "batch", "torus", "redistrib"),
                   help="the simulator of a campaign given by flags (default rigid; a spec says its own)")
    g = p.add_argument_group("sources (replace the spec's)")
    g.add_argument("--synthetic", type=int, metavar="SETS", help="SETS synthetic job sets of §5.1")
    g.add_argument("--n", dest="jobs", type=int, default=100, help="jobs per synthetic set (default 100)")
    p.alias("--jobs", "--n")
    g.add_argument("--instances", nargs="+", metavar="FILE", help="rigid-instance JSON files (globs allowed)")
    g.add_argument("--trace", nargs="+", metavar="SWF", help="SWF traces (.swf or .swf.gz): one set per submission day")
    g.add_argument("--days", type=int, help="traces: at most this many day-sets each; batch workloads: the "
                   "jobs submitted in the first DAYS days")
    g.add_argument("--min-jobs", type=int, default=1, help="traces: skip days with fewer jobs (default 1)")
    g.add_argument("--max-area-ratio", type=float, metavar="R",
                   help="traces: skip days where a job's area exceeds R times the day's mean")
    g.add_argument("--traces-dir", metavar="DIR",
                   help=f"traces: look up bare trace file names here, before the bundled traces "
                   f"(default ${TRACES_ENV})")
    g = p.add_argument_group("grid (override the spec's)")
    g.add_argument("--heuristic", dest="heuristics",
                   help="comma-separated, e.g. r-list-0,r-list-1,r-list-q,r-shelffill-b,r-shelffill-nb")
    g.add_argument("--priority", dest="priorities", help="comma-separated, e.g. LPT,SPT,HPA,LPA,LA,SA,RANDOM")
    p.alias("--heuristics", "--heuristic")
    p.alias("--priorities", "--priority")
    g.add_argument("--qbar", help="values: 0,0.1,0.3 or a range 0:0.9:0.1")
    g.add_argument("--P", dest="P", help="platform sizes: 10000 or 5000:20000:2500 (default: the instances')")
    g.add_argument("--scenarios", type=int, help="failure scenarios per cell (default 1000)")
    g.add_argument("--seed", type=nonnegative_int, help="campaign seed (default 0)")
    g.add_argument("--keep-makespans", action="store_true", help="store every scenario's makespan and L(f)")
    g = p.add_argument_group("batch and torus campaigns (override the spec's)")
    g.add_argument("--workload", nargs="+", metavar="W",
                   help="workloads (replace the spec's sources): an SWF trace (a bundled name or a path) or a "
                   "Batsim JSON file (.json)")
    g.add_argument("--policy", dest="policies", help="policies, comma-separated: batch conservative,easy,fcfs; "
                   "torus fcfs,balancing,tiebreak")
    g.add_argument("--node-mtbf", help="batch: per-node MTBFs, comma-separated or START:STOP:STEP, in seconds "
                   "or with units (30d, 5y); none = failure-free, e.g. none,30d")
    g.add_argument("--downtime", help="downtimes (values as --qbar; seconds, or 1h, 1d)")
    g.add_argument("--checkpoint-cost", help="batch: checkpoint costs C (values as --qbar; seconds, or 5min)")
    g.add_argument("--recovery-cost", help="batch: recovery costs R (seconds, or 5min; default: R = C)")
    g.add_argument("--seeds", type=int, help="failure traces per failure setting (torus: per point; default 1)")
    g = p.add_argument_group("execution")
    g.add_argument("--workers", type=int, help="local worker processes (default: all cores)")
    g.add_argument("--dask", metavar="ADDRESS", help="run on this Dask scheduler, e.g. tcp://host:8786")
    g.add_argument("--dry-run", action="store_true", help="check the spec and print the grid's size; run nothing")
    g.add_argument("--json", action="store_true", help="print a JSON summary (no progress)")
    g.add_argument("--quiet", action="store_true", help="no progress (bar or log lines)")
    g.add_argument("--log-interval", type=duration, default=10.0, metavar="T",
                   help="when stderr is not a terminal: a progress line every T (seconds, or 1min; default 10)")
    p.set_defaults(func=cmd_simulate, kernels=True)

    p = sub.add_parser(
        "report", formatter_class=Formatter,
        help="summary tables, CSV/JSON export and figures of a campaign database",
        description="Read a campaign database and print its summary tables (mean normalized makespan "
        "per heuristic and priority; the Table 1 layout), or export it.",
        epilog=REPORT_EPILOG,
    )
    p.add_argument("db", nargs="+", metavar="DB",
                   help="campaign database written by coschedule simulate; several: their tables one "
                   "after the other and, with --plot, one panel each side by side (one priority each)")
    p.add_argument("--csv", metavar="FILE", help="write every cell as CSV ('-' for stdout)")
    p.add_argument("--json", action="store_true", help="print the spec, cells and groups as JSON")
    p.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    p.add_argument("--plot", type=figure_path, metavar="FILE",
                   help="draw the paper's panels to FILE: the suffix picks the format (.png, .svg, .pdf, ...), "
                   "none writes FILE.png and FILE.svg")
    p.add_argument("--title", help="figure title")
    p.add_argument("--figure", choices=(*BATCH_FIGURES, *TORUS_FIGURES), default=None,
                   help="batch campaigns: which figure --plot draws: flows per size class (Figs. 1, 4, 5 of "
                   "[Du2024]; the default), ratios of each policy over --baseline per size class (Figs. 6-7, "
                   "13, 19-21), the utilization breakdown (Fig. 3), the ratios as the MTBF varies (Figs. 9-11); "
                   "torus campaigns ([Oliner2004]): " + "; ".join(f"{k} ({v[1]})" for k, v in TORUS_FIGURES.items())
                   + " (default: the grid's: failures, else confidence, else accuracy)")
    p.add_argument("--baseline", default="conservative", metavar="POLICY",
                   help="batch campaigns: the policy the ratios divide by (default conservative)")
    p.add_argument("--qbar", type=float, help="only this qbar")
    p.add_argument("--P", dest="P", type=int, help="only this grid P")
    p.add_argument("--priority", help="only this priority")
    p.add_argument("--heuristic", dest="heuristics", help="only these heuristics (comma-separated)")
    p.alias("--heuristics", "--heuristic")
    p.add_argument("--source", help="only this source")
    p.add_argument("--policy", dest="policies",
                   help="batch and torus campaigns: only these policies (comma-separated)")
    p.add_argument("--node-mtbf", help="batch campaigns: only this node MTBF (seconds, or none)")
    p.set_defaults(func=cmd_report)


def _positive(value: int | None, what: str) -> None:
    if value is not None and value < 1:
        raise CampaignError(f"{what} must be >= 1, got {value}")


#: the flags of one simulator only: (dest, as typed)
RIGID_FLAGS = (("synthetic", "--synthetic"), ("instances", "--instances"), ("trace", "--trace"),
               ("max_area_ratio", "--max-area-ratio"), ("heuristics", "--heuristic"), ("priorities", "--priority"),
               ("qbar", "--qbar"), ("P", "--P"), ("scenarios", "--scenarios"), ("keep_makespans", "--keep-makespans"))
BATCH_FLAGS = (("workload", "--workload"), ("policies", "--policy"), ("node_mtbf", "--node-mtbf"),
               ("downtime", "--downtime"), ("checkpoint_cost", "--checkpoint-cost"),
               ("recovery_cost", "--recovery-cost"), ("seeds", "--seeds"))
#: the flags a torus campaign refuses (it takes --workload, --days, --policy, --downtime, --seeds)
TORUS_REFUSED = (*RIGID_FLAGS, ("node_mtbf", "--node-mtbf"), ("checkpoint_cost", "--checkpoint-cost"),
                 ("recovery_cost", "--recovery-cost"))
#: a redistribution campaign takes its grid from its spec: only --seed and --name apply
REDISTRIB_REFUSED = (*RIGID_FLAGS, *BATCH_FLAGS, ("days", "--days"))


def spec_from_args(args: argparse.Namespace) -> CampaignSpec | BatchSpec | TorusSpec:
    """The spec of ``simulate``: the TOML file if given, then the flags over it."""
    from ..campaign import (
        CampaignSpec,
        FilesSource,
        SyntheticSource,
        TraceSource,
        load_spec,
        parse_values,
    )
    from ..campaign.spec import replace_spec

    traces_dir = getattr(args, "traces_dir", None)
    if traces_dir is not None and not Path(traces_dir).expanduser().is_dir():
        raise CampaignError(f"--traces-dir {traces_dir}: no such folder")
    path = spec_path(args.spec) if args.spec else None
    spec = load_spec(path, traces_dir=traces_dir) if path else None
    for what in ("synthetic", "jobs", "days", "min_jobs", "scenarios", "workers", "seeds"):
        _positive(getattr(args, what, None), f"--{what.replace('_', '-')}")
    simulator = spec.simulator if spec is not None else (args.simulator or ("batch" if args.workload else "rigid"))
    if spec is not None and args.simulator not in (None, spec.simulator):
        raise CampaignError(f"{path}: a {spec.simulator} campaign; --simulator {args.simulator} does not apply")
    refused = {"batch": RIGID_FLAGS, "torus": TORUS_REFUSED, "redistrib": REDISTRIB_REFUSED}.get(simulator, BATCH_FLAGS)
    for dest, flag in refused:
        if getattr(args, dest, None) not in (None, False):
            raise CampaignError(f"{flag} does not apply to a {simulator} campaign" + (f" ({path})" if path else ""))
    if simulator == "batch":
        return _batch_spec_from_args(args, spec, path, traces_dir)
    if simulator == "torus":
        return _torus_spec_from_args(args, spec, traces_dir)
    if simulator == "redistrib":
        return _redistrib_spec_from_args(args, spec)
    sources: list[Any] = []
    if args.synthetic:
        sources.append(SyntheticSource(sets=args.synthetic, n=args.jobs))
    if args.instances:
        sources.append(FilesSource(tuple(args.instances)))
    for trace in args.trace or ():
        sources.append(TraceSource(trace, days=args.days, min_jobs=args.min_jobs, max_area_ratio=args.max_area_ratio,
                                   traces_dir=traces_dir, where="--trace"))
    changes: dict[str, Any] = {}
    if sources:
        changes["sources"] = tuple(sources)
    if args.heuristics:
        changes["heuristics"] = tuple(h.strip() for h in args.heuristics.split(",") if h.strip())
    if args.priorities:
        changes["priorities"] = tuple(h.strip() for h in args.priorities.split(",") if h.strip())
    if args.qbar:
        changes["qbar"] = parse_values(args.qbar, float, "--qbar")
    if args.P:
        changes["P"] = parse_values(args.P, int, "--P")
    for key in ("scenarios", "seed", "name"):
        if getattr(args, key) is not None:
            changes[key] = getattr(args, key)
    if args.keep_makespans:
        changes["keep_makespans"] = True
    if spec is None:
        if "sources" not in changes:
            raise CampaignError("no campaign: give a TOML spec, or --synthetic, --instances or --trace")
        if "heuristics" not in changes:
            raise CampaignError("give --heuristic (e.g. r-list-0,r-list-q)")
        spec = CampaignSpec(**{"heuristics": (), **changes})
    else:
        if changes:
            spec = replace_spec(spec, **changes)
        if not spec.sources:
            raise CampaignError(f"{path}: no instance source ([[source]] tables, or --synthetic, --instances, --trace)")
        if not spec.heuristics:
            raise CampaignError(f"{path}: no heuristics (a heuristics key, or --heuristic)")
    return spec.normalized()


def _node_mtbf_values(text: str) -> tuple[float | None, ...]:
    """``--node-mtbf``: values as ``--qbar``, and ``none`` for failure-free."""
    from ..campaign import parse_values
    from ..units import seconds

    items = [t.strip() for t in text.split(",")]
    rest = ",".join(t for t in items if t.lower() != "none")
    none: tuple[None, ...] = (None,) if any(t.lower() == "none" for t in items) else ()
    return none + (parse_values(rest, seconds, "--node-mtbf") if rest else ())


def _batch_spec_from_args(args: argparse.Namespace, spec: Any, path: Path | None, traces_dir: str | None) -> BatchSpec:
    from coschedule.campaign.simulators.batch.adapter import BatchSpec

    from ..campaign import parse_values
    from ..campaign.workloads import workload_source_for
    from ..units import seconds

    changes: dict[str, Any] = {}
    if args.workload:
        changes["sources"] = tuple(workload_source_for(w, days=args.days, traces_dir=traces_dir) for w in args.workload)
    if args.policies:
        changes["policies"] = tuple(x.strip() for x in args.policies.split(",") if x.strip())
    if args.node_mtbf:
        changes["node_mtbf"] = _node_mtbf_values(args.node_mtbf)
    for key in ("downtime", "checkpoint_cost", "recovery_cost"):
        if getattr(args, key):
            changes[key] = parse_values(getattr(args, key), seconds, f"--{key.replace('_', '-')}")
    for key in ("seeds", "seed", "name"):
        if getattr(args, key) is not None:
            changes[key] = getattr(args, key)
    if spec is None:
        if "sources" not in changes:
            raise CampaignError("no campaign: give a TOML spec, or --workload")
        if "policies" not in changes:
            raise CampaignError("give --policy (e.g. conservative,easy)")
        spec = BatchSpec(**{"policies": (), **changes})
    else:
        spec = dataclasses.replace(spec, **changes)
        if not spec.sources:
            raise CampaignError(f"{path}: no workload source ([[source]] tables, or --workload)")
        if not spec.policies:
            raise CampaignError(f"{path}: no policies (a policies key, or --policy)")
    return spec.normalized()


def _torus_spec_from_args(args: argparse.Namespace, spec: Any, traces_dir: str | None) -> TorusSpec:
    """A torus campaign: its TOML spec, with --workload, --policy, --downtime, --seeds, --seed
    and --name over it."""
    from coschedule.campaign.simulators.torus.adapter import with_changes

    from ..campaign import parse_values
    from ..campaign.workloads import workload_source_for
    from ..units import seconds

    if spec is None:
        raise CampaignError("a torus campaign needs a TOML spec (simulator = \"torus\"), e.g. "
                            "coschedule simulate oliner2004-demo")
    changes: dict[str, Any] = {}
    if args.workload:
        changes["sources"] = tuple(workload_source_for(w, days=args.days, traces_dir=traces_dir) for w in args.workload)
    if args.policies:
        changes["policies"] = tuple(x.strip().lower() for x in args.policies.split(",") if x.strip())
        for owner, key in (("balancing", "confidence"), ("tiebreak", "accuracy")):
            if owner not in changes["policies"]:
                changes[key] = ()  # the spec's values of a scheduler --policy leaves out
    if args.downtime:
        changes["downtime"] = parse_values(args.downtime, seconds, "--downtime")
    for key in ("seeds", "seed", "name"):
        if getattr(args, key) is not None:
            changes[key] = getattr(args, key)
    return with_changes(spec, **changes)


def _redistrib_spec_from_args(args: argparse.Namespace, spec: Any) -> Any:
    """A redistribution campaign: its TOML spec, with --seed and --name over it."""
    from coschedule.campaign.simulators.redistrib.adapter import with_changes as redistrib_changes

    if spec is None:
        raise CampaignError("a redistribution campaign needs a TOML spec (simulator = \"redistrib\"), e.g. "
                            "coschedule simulate redistribution-demo")
    changes = {key: getattr(args, key) for key in ("seed", "name") if getattr(args, key) is not None}
    return redistrib_changes(spec, **changes)


def cmd_simulate(args: argparse.Namespace) -> int:
    from ..campaign import ResultStore, run_campaign

    try:
        spec = spec_from_args(args)
        spec.check()
    except CampaignError as e:  # a spec's error names its file
        where = str(spec_path(args.spec)) if args.spec else ""
        if where and not str(e).startswith(where):
            raise CampaignError(f"{where}: {e}") from None
        raise
    db = args.db or f"{spec.name}.sqlite"
    cells = spec.n_cells()
    if args.dry_run:
        done = 0
        if Path(db).exists():
            with ResultStore.create_or_resume(db, spec) as store:
                done = store.count()
        info = {"name": spec.name, "db": db, **spec.grid_info(), "done": done, "digest": spec.digest()}
        if args.json:
            json.dump(info, sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            print(f"campaign {spec.name}: {spec.describe_sources()}")
            print(spec.grid_line())
            print(f"database {db}: {done} of {cells} cells done" if done else f"database {db}: new")
        return 0
    from ..campaign import run as campaign_run

    if args.dask is None and not campaign_run.HAVE_NUMBA and spec.simulator == "rigid":
        print(f"coschedule simulate: {campaign_run.NO_NUMBA_NOTE}", file=sys.stderr)
    # a bar on a terminal; one line every --log-interval seconds otherwise (batch jobs, nohup)
    progress = not args.json and not args.quiet
    try:
        summary = run_campaign(spec, db, workers=args.workers, dask=args.dask, progress=progress,
                               log_interval=args.log_interval)
    except KeyboardInterrupt as e:  # Ctrl-C (after the started cells finished, or a second one), SIGTERM
        from .. import signals

        with ResultStore.open(db) as store:
            done = store.count()
        print(f"coschedule simulate: {signals.reason(e)}; {done} of {cells} cells saved in {db}; "
              "run the same command again to resume", file=sys.stderr)
        return signals.exit_status(e)
    if args.json:
        json.dump({"name": spec.name, **summary.to_dict(), "simulations": summary.computed * spec.runs_per_cell},
                  sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        rate = summary.computed * spec.runs_per_cell / summary.seconds if summary.seconds > 0 else 0.0
        shown = f"{rate:,.0f}" if rate >= 10 or rate == 0 else f"{rate:.2g}"  # a batch run takes seconds
        print(f"campaign {spec.name}: {summary.computed} cells computed, {summary.skipped} already done, "
              f"{summary.cells} in the grid; {summary.seconds:.1f} s on {summary.workers} "
              f"{summary.backend} workers ({shown} simulations/s); results in {db}")
        print(f"next: coschedule report {db}")
    return 0


def _check_figure(args: argparse.Namespace, db: str, simulator: str) -> None:
    """``--figure`` must name a figure of the database's kind, and go with ``--plot``."""
    if args.figure is None:
        return
    figures = {"batch": BATCH_FIGURES, "torus": TORUS_FIGURES}.get(simulator, {})
    if not args.plot:
        raise CampaignError(f"--figure {args.figure} chooses what --plot draws: add --plot FILE")
    if args.figure not in figures:
        what = (f"its figures are {', '.join(figures)}" if figures
                else "--plot draws its one figure: leave --figure out")
        raise CampaignError(f"{db}: --figure {args.figure} is not a figure of a {simulator} campaign; {what}")


def _filters(args: argparse.Namespace, simulator: str) -> list[tuple[str, str, Any]]:
    """``(flag as typed, row key, predicate)`` for each filter given to ``report``; a filter of
    another simulator's columns is an error."""
    out: list[tuple[str, str, Any, tuple[str, ...] | None]] = []
    if args.qbar is not None:
        out.append((f"--qbar {args.qbar:g}", "qbar", lambda v: abs(v - args.qbar) < 1e-12, ("rigid",)))
    if args.P is not None:
        out.append((f"--P {args.P}", "P_grid", lambda v: v == args.P, ("rigid",)))
    if args.priority is not None:
        out.append((f"--priority {args.priority}", "priority", lambda v: v in (args.priority, args.priority.upper()),
                    ("rigid",)))
    if args.heuristics:
        heur = {h.strip().lower() for h in args.heuristics.split(",")}
        out.append((f"--heuristic {args.heuristics}", "heuristic", lambda v: v in heur, ("rigid",)))
    if args.policies:
        pols = {h.strip().lower() for h in args.policies.split(",")}
        out.append((f"--policy {args.policies}", "policy", lambda v: v in pols, ("batch", "torus")))
    if args.node_mtbf is not None:
        mtbf = _node_mtbf_values(args.node_mtbf)
        if len(mtbf) != 1:
            raise CampaignError(f"--node-mtbf {args.node_mtbf}: give one value (seconds, or none)")
        m = mtbf[0]
        out.append((f"--node-mtbf {args.node_mtbf}", "node_mtbf",
                    lambda v: v is None if m is None else v is not None and abs(v - m) <= 1e-9 * m, ("batch",)))
    if args.source is not None:
        out.append((f"--source {args.source}", "source", lambda v: v == args.source, ("rigid", "batch", "torus")))
    for flag, _, _, sims in out:
        if sims is not None and simulator not in sims:
            raise CampaignError(f"{flag.split()[0]} does not filter a {simulator} campaign")
    return [(flag, key, ok) for flag, key, ok, _ in out]


def _no_match(filters: list[tuple[str, str, Any]], rows: list[dict[str, Any]]) -> str:
    """The one-line error for filters that select no cell: the first filter that matches
    nothing on its own, with the values the database has, or the combination."""
    for flag, key, ok in filters:
        if not any(ok(r[key]) for r in rows):
            values = sorted({r[key] for r in rows},
                            key=lambda v: (v is None, v if isinstance(v, (int, float)) else 0, str(v)))
            empty = "own" if key == "P_grid" else "none"
            shown = ", ".join(empty if v is None else (f"{v:g}" if isinstance(v, float) else str(v)) for v in values)
            return f"no cell matches {flag} (the database has {key} {shown or 'none'})"
    return f"no cell matches {' '.join(f for f, _, _ in filters)} together"


def _report_several(args: argparse.Namespace) -> int:
    """``report DB1 DB2 ...``: each database's tables, then (``--plot``) one panel each, side by
    side (the paper's Fig. 4 from fig4a and fig4b)."""
    from ..campaign import ResultStore, get_simulator, plot_side_by_side, summarize

    if args.csv or args.json:
        raise CampaignError("--csv and --json read one database; give one DB")
    panels = []
    for db in args.db:
        if args.plot:
            with ResultStore.open(db) as store:
                if not get_simulator(store.simulator).plots:
                    raise CampaignError(f"{db}: side-by-side panels (--plot with several databases) are drawn for "
                                        f"rigid campaigns; plot a {store.simulator} campaign's database alone")
        cmd_report(argparse.Namespace(**{**vars(args), "db": [db], "plot": None}))
        with ResultStore.open(db) as store:
            filters = _filters(args, store.simulator)
            groups = summarize(r for r in store.rows() if all(ok(r[key]) for _, key, ok in filters))
        if not groups:
            raise CampaignError(f"{db}: no completed cell matches; nothing to plot")
        if args.plot:
            prios = sorted({g.priority for g in groups})
            if len(prios) > 1:
                raise CampaignError(f"{db}: side-by-side panels need one priority per database, it has "
                                    f"{', '.join(prios)}; choose one with --priority")
            panels.append((None, groups))
    if args.plot:
        write_figure(plot_side_by_side(panels, title=args.title), args.plot)
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from ..campaign import ResultStore, export_csv, export_json, get_simulator, plot_groups

    if len(args.db) > 1:
        return _report_several(args)
    db = args.db[0]
    with ResultStore.open(db) as store:
        sim = get_simulator(store.simulator)
        filters = _filters(args, store.simulator)
        rows = list(store.rows())
        selected = [r for r in rows if all(ok(r[key]) for _, key, ok in filters)]
        if filters and not selected:
            raise CampaignError(f"{db}: " + _no_match(filters, rows))
        done = len(rows)
        grid = store.grid_cells
        missing = None if grid is None else max(0, grid - done)
        if missing:
            print(f"coschedule report: {db}: {missing:,} of {grid:,} cells missing (the campaign "
                  "is unfinished: run the same coschedule simulate again to complete it); the tables "
                  "and figures average only the cells present", file=sys.stderr)
        _check_figure(args, db, store.simulator)
        if args.plot and not (sim.plots or sim.figure):
            raise CampaignError(f"{db}: --plot draws the figures of rigid campaigns; a {store.simulator} campaign "
                                "has none yet (its tables, --csv or --json say it all)")
        groups = sim.summarize(selected)
        if args.csv:
            if args.csv == "-":
                export_csv(store, sys.stdout)
            else:
                from ..io.files import writing

                with writing(args.csv, newline="") as fh:
                    k = export_csv(store, fh)
                print(f"{k} cells written to {args.csv}", file=sys.stderr)
        if args.plot:
            if not groups:
                raise CampaignError(f"{db}: no completed cell matches; nothing to plot")
            if sim.figure and store.simulator == "batch":
                fig = sim.figure(selected, args.title, kind=args.figure or "flows", baseline=args.baseline)
            elif sim.figure and store.simulator == "torus":
                fig = sim.figure(selected, args.title, kind=args.figure)
            else:
                fig = sim.figure(selected, args.title) if sim.figure else plot_groups(groups, title=args.title)
            if missing:  # the picture says it, as the tables' warning does
                fig.text(0.995, 0.005, f"unfinished campaign: {done:,} of {grid:,} cells", ha="right", va="bottom",
                         fontsize=8, color="#b2182b")
            write_figure(fig, args.plot)
        if args.json:
            export_json(store, sys.stdout, groups,
                        extra={"grid_cells": grid, "done_cells": done, "missing_cells": missing})
        elif args.markdown:
            print(sim.markdown(groups))
        elif args.csv != "-":
            spec = store.spec_dict
            of_grid = f" of {grid:,}" if grid is not None else ""
            print(f"campaign {spec.get('name')}: {done}{of_grid} cells, {sim.per_cell(spec)} ({db})")
            print(sim.tables(groups))
    return 0
