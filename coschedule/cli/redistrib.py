"""``coschedule redistrib``: one run of a pack of malleable applications under fail-stop failures,
with buddy checkpointing and processor redistribution ([Aupy2017] §1.3.3-1.5).

Thin: read the pack (:func:`coschedule.redistribution.io.load_pack`: the compact ``coschedule/
malleable-pack`` form or a moldable instance), the platform's parameters
(:class:`coschedule.redistribution.Resilience`) and the failures (a ``time,node`` file, drawn from
a seed, or none), call :func:`coschedule.heuristics.redistribution.run_pack`, check the run,
print what it did (text or ``--json``), write the per-application timeline
(:func:`coschedule.redistribution.io.write_timeline_csv`), the drawn failures and the picture
(:func:`coschedule.plot.redistribution.plot_pack_run`) on request.

``coschedule redistrib generate`` writes a synthetic eq. (1.13) pack
(:meth:`coschedule.redistribution.MalleablePack.synthetic`) in the compact form: the word
``generate`` in the place of the pack selects it (:class:`_RedistribParser`); a pack file of
that name is ``./generate``.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import Any

from ..errors import CoscheduleError, InvalidInstance
from .common import (
    Formatter,
    OneLineErrorParser,
    duration,
    emit_json,
    figure_path,
    nonnegative_duration,
    nonnegative_float,
    nonnegative_int,
    positive_float,
    positive_int,
    write_figure,
)

__all__ = ["cmd_redistrib", "cmd_redistrib_generate", "register"]

#: where this family stands in ``coschedule --help`` (the CLI discovers its families)
HELP_ORDER = 80

_DAY = 86400.0


class _RedistribParser(OneLineErrorParser):
    """``coschedule redistrib``'s parser: ``generate`` as its first argument hands the rest to
    the ``generate`` parser (a pack and a subcommand cannot share the first place in argparse)."""

    generate: OneLineErrorParser

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if args is not None and len(args) and args[0] == "generate":
            return self.generate.parse_known_args(list(args[1:]), namespace)
        return super().parse_known_args(args, namespace)


# ------------------------------------------------------------------------------ checks


def _check(args: argparse.Namespace) -> None:
    """Options that mean nothing together are errors, not silently ignored. Sets
    ``args.node_mtbf`` (seconds) and ``args.mtbf_years`` from either spelling."""
    from coschedule.redistribution.model import YEAR

    if args.node_mtbf is not None and args.mtbf_years is not None:
        raise CoscheduleError("--mtbf-years is the former spelling of --node-mtbf: give one of them")
    if args.node_mtbf is None:
        args.node_mtbf = (100.0 if args.mtbf_years is None else args.mtbf_years) * YEAR
    args.mtbf_years = args.node_mtbf / YEAR
    if args.fault_free and args.failures is not None:
        raise CoscheduleError("--fault-free runs without failures: leave out --failures")
    if args.seed is not None and (args.failures is not None or args.fault_free):
        raise CoscheduleError("--seed draws failures: it cannot go with --failures or --fault-free")
    if args.failures_out is not None and (args.failures is not None or args.fault_free):
        raise CoscheduleError("--failures-out writes drawn failures: it cannot go with --failures or --fault-free")


def _decisions(args: argparse.Namespace) -> dict[str, Any]:
    """``--at-end`` and ``--at-failure``: a built-in name (any case; folded) or a user's class
    (``FILE.py:CLASS``, ``MODULE:CLASS``, a registered name): ``at_end`` / ``at_failure`` -> its
    source for the users' classes. An unknown name is one line, before the pack is read."""
    from coschedule.heuristics.redistribution import decision_source

    sources = {}
    for key, at in (("at_end", "end"), ("at_failure", "failure")):
        src = decision_source(getattr(args, key), at)
        if src is None:
            setattr(args, key, getattr(args, key).lower())
        else:
            sources[key] = src
    return sources


def _resilience(args: argparse.Namespace) -> Any:
    from coschedule.redistribution.model import Resilience

    return Resilience(node_mtbf=args.node_mtbf, c=args.c, beta=args.beta, start=args.start,
                      downtime=args.downtime, model=args.model, period_formula=args.period)


# ------------------------------------------------------------------------------ outputs


def _days(seconds: float) -> str:
    return f"{seconds / _DAY:,.2f} days"


def _describe_failures(args: argparse.Namespace, seed: int | None, res: Any) -> str:
    years = f"{args.mtbf_years:.4g} years"  # the paper's unit
    if args.fault_free:
        return f"no failures (fault-free; periods for a processor MTBF of {years})"
    if args.failures is not None:
        return f"failures from {args.failures} (periods for a processor MTBF of {years})"
    return f"failures drawn with a processor MTBF of {years}, seed {seed}"


def _policy_line(args: argparse.Namespace, result: Any, sources: dict[str, Any]) -> str:
    own = "".join(f"; {s.ref} is your own ({s.origin} {s.target})"
                  for s in {s.ref: s for s in sources.values()}.values())
    return f"policy {result.policy} (--at-end {args.at_end}, --at-failure {args.at_failure}){own}"


def _model_line(res: Any) -> str:
    return (f"failure model {res.model}, {res.period_formula} period; c = {res.c:g} s per data unit, "
            f"beta = {res.beta:g} s, D = {res.downtime:g} s, S = {res.start:g} s")


def _effects(result: Any) -> str:
    counts: dict[str, int] = {}
    for f in result.failures:
        counts[f.effect] = counts.get(f.effect, 0) + 1
    order = ("rollback", "redistributed", "restart", "ignored", "idle")
    parts = [f"{counts[e]} {e}" for e in order if counts.get(e)]
    return f" ({', '.join(parts)})" if parts else ""


def _expected_no_redistribution(result: Any) -> float:
    """``max_i t^R_{i,sigma(i)}(1)`` of the initial allocation: the expected makespan without
    redistribution, the quantity Resilient Optimal-1-pack minimises."""
    import numpy as np

    from coschedule.redistribution.model import PackModel

    model = PackModel(result.pack, result.res)
    ids = np.arange(result.pack.n)
    return float(np.max(model.expected(ids, np.asarray(result.initial), 1.0)))


def _print_text(args: argparse.Namespace, result: Any, seed: int | None, expected: float,
                sources: dict[str, Any]) -> None:
    import numpy as np

    pack = result.pack
    k0 = np.asarray(result.initial)
    print(f"pack {pack.name or args.pack}: {pack.n} applications on {pack.p} processors; Resilient "
          f"Optimal-1-pack gives them {int(k0.min())} to {int(k0.max())} each ({int(k0.sum())} used)")
    print(_policy_line(args, result, sources))
    print(f"{_describe_failures(args, seed, result.res)}; {_model_line(result.res)}")
    hit = result.failures_hit
    rows = [
        ("makespan", f"{result.makespan:,.1f} s ({_days(result.makespan)})"),
        ("expected without redistribution", f"{expected:,.1f} s ({_days(expected)}; max_i t^R(1))"),
        ("failures (hit / total)", f"{hit} / {len(result.failures)}{_effects(result)}"),
        ("redistributions", f"{result.redistributions}"),
        ("allocation changes", f"{int(np.sum(result.changes))}"),
    ]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")


def _json(args: argparse.Namespace, result: Any, seed: int | None, expected: float,
          outputs: dict[str, Any], sources: dict[str, Any]) -> dict[str, Any]:
    from coschedule.heuristics.redistribution import decision_name

    res = result.res
    own = {"policy_sources": {k: {"origin": s.origin, "target": s.target, "sha256": s.digest}
                              for k, s in sources.items()}} if sources else {}
    return {
        **result.to_json(),
        "pack": result.pack.name, "file": args.pack,
        "makespan_days": result.makespan / _DAY,
        "expected_makespan_no_redistribution": expected,
        "at_end": args.at_end, "at_failure": args.at_failure,
        # the paper's names (a user's class: its reference)
        "heuristics": {"at_end": decision_name(args.at_end, "end"),
                       "at_failure": decision_name(args.at_failure, "failure")},
        **own,
        "resilience": {"node_mtbf": res.node_mtbf, "mtbf_years": args.mtbf_years, "c": res.c, "beta": res.beta,
                       "start": res.start, "downtime": res.downtime, "model": res.model,
                       "period_formula": res.period_formula},
        "failure_source": {"file": args.failures, "seed": seed, "fault_free": bool(args.fault_free),
                           "trace_horizon": None if math.isinf(result.trace_horizon) else result.trace_horizon},
        "initial": [int(k) for k in result.initial],
        "ends": [float(x) for x in result.ends],
        "changes": [int(x) for x in result.changes],
        "outputs": outputs,
    }


# ------------------------------------------------------------------------------ commands


def _refuse_endless(args: argparse.Namespace, pack: Any, res: Any) -> None:
    """A pack whose failures would not let it end is refused before it runs, as a pack campaign
    refuses it (:meth:`~coschedule.redistribution.model.PackModel.why_endless`; drawn failures
    only: a failure file ends)."""
    from coschedule.redistribution.model import PackModel

    reason = PackModel(pack, res).why_endless()
    if reason:
        raise CoscheduleError(f"{args.pack}: {reason}")


def cmd_redistrib(args: argparse.Namespace) -> int:
    from coschedule.heuristics.redistribution import run_pack
    from coschedule.redistribution.io import load_pack, write_timeline_csv
    from coschedule.redistribution.validate import validate_pack_run

    from .common import input_path

    _check(args)
    sources = _decisions(args)
    if args.plot:
        from coschedule.plot.figure import new_figure

        new_figure()  # no matplotlib: one line now, not after the run
    res = _resilience(args)
    pack = load_pack(input_path(args.pack))
    failures = None
    if args.failures is not None:
        from ..sim.failures import read_failures

        failures = read_failures(input_path(args.failures), n_nodes=pack.p)
    drawn = failures is None and not args.fault_free
    if drawn:
        _refuse_endless(args, pack, res)
    seed = (0 if args.seed is None else args.seed) if drawn else None
    result = run_pack(pack, res, at_end=args.at_end, at_failure=args.at_failure, failures=failures, seed=seed,
                      fault_free=args.fault_free)
    trace = result.trace
    validate_pack_run(result, failures=trace)  # before anything is written
    outputs: dict[str, Any] = {}
    if args.output:
        rows = write_timeline_csv(result, args.output)
        outputs["timeline"] = args.output
        print(f"wrote {args.output}: {rows} rows, one per phase of an application", file=sys.stderr)
    if args.failures_out and trace is not None:
        from ..sim.failures import write_failures

        write_failures(trace, args.failures_out)
        outputs["failures"] = args.failures_out
        print(f"wrote {args.failures_out}: {len(trace)} failures over [0, {result.trace_horizon:.6g}) s "
              "(time,node)", file=sys.stderr)
    if args.plot:
        from coschedule.plot.redistribution import plot_pack_run

        outputs["plot"] = [str(p) for p in write_figure(plot_pack_run(result), args.plot)]
    expected = _expected_no_redistribution(result)
    if args.json:
        emit_json(_json(args, result, seed, expected, outputs, sources))
    else:
        _print_text(args, result, seed, expected, sources)
    return 0


def cmd_redistrib_generate(args: argparse.Namespace) -> int:
    from coschedule.redistribution.io import pack_to_dict
    from coschedule.redistribution.model import MalleablePack

    from ..io.files import save_json

    if not 1 < args.m_inf <= args.m_sup:
        raise CoscheduleError(f"need 1 < --m-inf <= --m-sup, got {args.m_inf}, {args.m_sup}")
    if not 0 <= args.f <= 1:
        raise CoscheduleError(f"--f must be in [0, 1], got {args.f}")
    try:
        pack = MalleablePack.synthetic(args.n, args.P, seed=args.seed, m_inf=args.m_inf, m_sup=args.m_sup,
                                       f=args.f)
    except InvalidInstance as e:
        raise InvalidInstance(f"{str(e).removeprefix('pack: ')} (--n {args.n}, --P {args.P})") from None
    data = pack_to_dict(pack)
    data["name"] = f"{pack.name}-seed{args.seed}"
    if not args.output:
        emit_json(data)  # the pack itself is the output
        return 0
    save_json(data, args.output)
    if args.json:
        emit_json({"output": args.output, "format": data["format"], "name": data["name"], "n": args.n,
                   "P": args.P, "seed": args.seed, "m_inf": args.m_inf, "m_sup": args.m_sup, "f": args.f})
    else:
        print(f"wrote {args.output}: synthetic pack (eq. (1.13), f = {args.f:g}, m in [{args.m_inf}, "
              f"{args.m_sup}]), n = {args.n}, p = {args.P}, seed {args.seed}")
    return 0


# ------------------------------------------------------------------------------ parsers


def _generate_parser() -> OneLineErrorParser:
    g = OneLineErrorParser(
        prog="coschedule redistrib generate", formatter_class=Formatter,
        description="Write a synthetic pack of n malleable applications on p processors in the compact "
        "coschedule/malleable-pack form: eq. (1.13) of [Aupy2017], t(m, j) = f t(m, 1) + (1 - f) t(m, 1)/j "
        "+ (m/j) log2 m with t(m, 1) = 2 m log2 m, the problem sizes m_i uniform integers in [m_inf, m_sup] "
        "(§1.5.4), stored as seq = f t(m, 1) and par = (1 - f) t(m, 1) + m log2 m. The same seed gives the "
        "same pack. `coschedule docs redistribution`.",
        epilog="examples:\n"
        "  coschedule redistrib generate --n 20 --P 100 --seed 1 -o pack.json\n"
        "  coschedule redistrib generate --n 1000 --P 10000 --seed 3 -o big.json --json\n"
        "  coschedule redistrib generate --n 5 --P 16 --m-inf 1500 --m-sup 2500000   # heterogeneous, on stdout\n",
    )
    g.add_argument("--n", type=positive_int, required=True, help="number of applications")
    g.add_argument("--P", type=positive_int, required=True, help="number of processors (p in the paper; at least 2n)")
    g.alias("--p", "--P")
    g.add_argument("--seed", type=nonnegative_int, default=0, help="random seed (default 0; same seed, same pack)")
    g.add_argument("--m-inf", type=int, default=1_500_000, help="smallest problem size m (default 1500000)")
    g.add_argument("--m-sup", type=int, default=2_500_000, help="largest problem size m (default 2500000)")
    g.add_argument("--f", type=float, default=0.08, help="sequential fraction (default 0.08)")
    g.add_argument("-o", "--output", help="file to write (default: the pack on stdout)")
    g.add_argument("--json", action="store_true", help="with -o: a JSON summary of what was written")
    g.set_defaults(func=cmd_redistrib_generate)
    return g


def register(sub: Any) -> None:
    from coschedule.redistribution.options import (
        DEFAULT_DOWNTIME,
        FAILURE_MODELS,
        PERIOD_FORMULAS,
    )

    p = sub.add_parser(
        "redistrib", formatter_class=Formatter,
        help="simulate a pack of malleable applications under failures, with processor redistribution",
        usage="coschedule redistrib PACK --at-end {none,local,greedy,FILE.py:CLASS}\n"
        "                            --at-failure {none,saf,iterated,FILE.py:CLASS}\n"
        "                            [--node-mtbf T] [--failures FILE | --seed K | --fault-free] [options]\n"
        "       coschedule redistrib generate --n N --P P [--seed K] [-o PACK.json]",
        description="Simulate a pack of n malleable applications sharing p processors until the last one "
        "ends ([Aupy2017] §1.3.3-1.5): fail-stop failures strike each processor at rate 1/MTBF; buddy "
        "checkpointing (processors in pairs, Young's period, checkpoint C = c m_i/j + beta, recovery R = C, "
        "downtime D); when an application ends or the longest one fails, the heuristics redistribute "
        "processors, paying the cost RC of (1.11) and a checkpoint. The initial allocation is Resilient "
        "Optimal-1-pack (Thm 1.4). Prints the makespan, the failures, the redistributions. PACK is a "
        "coschedule/malleable-pack file, a moldable instance (its memory fields are the m_i) or a bundled "
        "name. The paper's settings are the defaults: MTBF 100 years, c = 1, beta = S = 0; D = 60 s is ours "
        "(the paper gives none). `coschedule redistrib generate --help` writes synthetic packs. The model, "
        "the heuristics and every choice: `coschedule docs redistribution`.",
        epilog="examples:\n"
        "  coschedule redistrib synthetic-n20-p100 --at-end greedy --at-failure iterated\n"
        "  coschedule redistrib synthetic-n20-p100 --at-end local --at-failure saf --node-mtbf 5y --seed 2 \\\n"
        "      -o timeline.csv --plot run.png --failures-out f.csv\n"
        "  coschedule redistrib synthetic-n20-p100 --at-end none --at-failure none --json   # the reference\n"
        "  coschedule redistrib synthetic-n20-p100 --at-end greedy --at-failure none --fault-free\n"
        "  coschedule redistrib generate --n 200 --P 2000 --seed 1 -o pack.json\n"
        "  coschedule redistrib pack.json --at-end greedy --at-failure saf --failures f.csv --node-mtbf 10y\n"
        "  coschedule redistrib synthetic-n20-p100 --at-end greedy --at-failure my_redistrib.py:Greedy   # your own\n",
    )
    p.__class__ = _RedistribParser
    p.generate = _generate_parser()  # type: ignore[attr-defined]
    p.add_argument("pack", metavar="PACK",
                   help="a coschedule/malleable-pack file, a moldable instance, or a bundled name")
    own = ("; or your own: FILE.py:CLASS, MODULE:CLASS, or a name an installed package registers, a class with "
           "{} (`coschedule docs redistribution`)")
    p.add_argument("--at-end", required=True, metavar="NAME",
                   help="redistribution when an application ends: none, local (EndLocal, the "
                   "paper's ENDMETHOD: the free processors to the longest application, two by two), greedy (EndGreedy: "
                   "Algorithm 1 again with the costs)" + own.format("on_end(sim, t, ended)"))
    p.add_argument("--at-failure", required=True, metavar="NAME",
                   help="redistribution when the longest application fails: none, saf "
                   "(ShortestApplicationsFirst: free processors, then the shortest applications' ones), iterated "
                   "(IteratedGreedy: Algorithm 1 again with the costs)" + own.format("on_failure(sim, t, app)"))
    g = p.add_argument_group("failures (default: drawn with a processor MTBF of 100 years, seed 0)")
    g.add_argument("--node-mtbf", type=duration, default=None, metavar="T",
                   help="MTBF of one processor (seconds, or with a unit: 100y, 5y, 30d; default 100y, the paper's; "
                   "a year is 365 days): the rate of the drawn failures, and in every case the checkpoint periods "
                   "and expected times")
    g.add_argument("--mtbf-years", type=positive_float, default=None, help=argparse.SUPPRESS)  # the former spelling
    g.add_argument("--failures", metavar="FILE", default=None,
                   help="failures from a time,node CSV file (nodes 0..p-1), or a bundled one; the MTBF then only "
                   "sets the periods")
    g.add_argument("--seed", type=nonnegative_int, default=None, metavar="K",
                   help="seed of the drawn failures (default 0); the same seed, the same failures for every policy")
    g.add_argument("--fault-free", action="store_true",
                   help="no failure at all (checkpoints still taken with the MTBF's periods): the paper's "
                   "fault-free reference")
    g.add_argument("--failures-out", metavar="FILE", default=None,
                   help="write the drawn failures (time,node CSV), for --failures in other runs")
    g = p.add_argument_group("the platform (§1.3.3, §1.5.4)")
    g.add_argument("--c", type=nonnegative_float, default=1.0, metavar="C",
                   help="seconds to checkpoint or move one data unit (1/bandwidth; default 1): C = c m_i/j + beta")
    g.add_argument("--beta", type=nonnegative_duration, default=0.0, metavar="B",
                   help="message start-up latency (seconds, or with a unit; default 0)")
    g.add_argument("--start", type=nonnegative_duration, default=0.0, metavar="S",
                   help="start-up S of a redistribution (seconds, or with a unit; default 0)")
    g.add_argument("--downtime", type=nonnegative_duration, default=DEFAULT_DOWNTIME, metavar="D",
                   help=f"downtime D after a failure (seconds, or 1h; default {DEFAULT_DOWNTIME:g} s; the paper gives "
                   "none)")
    g.add_argument("--model", choices=FAILURE_MODELS, default="simulation",
                   help="simulation (default, §1.5.4): failures strike work and checkpoints only; eq1.6: they "
                   "strike recoveries and redistributions too (the model of (1.6))")
    g.add_argument("--period", choices=PERIOD_FORMULAS, default="first-order",
                   help="Young's period: first-order sqrt(2 mu C) + C (default) or printed sqrt(2 mu C + C), "
                   "(1.3) as printed")
    g = p.add_argument_group("output")
    g.add_argument("-o", "--output", metavar="FILE", default=None,
                   help="write the timeline here: CSV, one row per phase of an application (compute, downtime, "
                   "recovery, redistribution, checkpoint) with its processors")
    g.add_argument("--plot", type=figure_path, metavar="FILE", default=None,
                   help="draw the run: a Gantt chart by application (a processor-count map for large packs); the "
                   "suffix picks the format; needs matplotlib")
    g.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_redistrib, kernels=True)
