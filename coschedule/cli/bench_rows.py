"""How ``coschedule bench`` prints its rows: numbers or "not measured", the whole-command rows of
every simulator kind, and the torus finders' tables (the command itself: :mod:`.bench`)."""

from __future__ import annotations

from typing import Any

__all__: list[str] = []


def _num(value: float | None, spec: str, unit: str = "") -> str:
    from coschedule.bench.common import NOT_MEASURED

    return NOT_MEASURED if value is None else f"{value:{spec}}{unit}"


def _print_commands(commands: list, accasim_whole: float | None) -> None:
    """The whole-command cases: the command's CPU beside that of its own simulation, and each
    target (``coschedule.bench.batch_command``)."""
    print("\nthe whole command (coschedule batch ... -o jobs.csv: read, simulate, validate, summarize, write), "
          "each in a fresh process; its own simulation timed inside it")
    for r in commands:
        _print_command(r, accasim_whole)
    _print_scale(commands)


def _print_scale(commands: list) -> None:
    """The scale cases' memory per job and per failure (``coschedule.bench.batch_command``)."""
    from coschedule.bench.batch_command import SCALE_CASES, scale_bytes

    rows = [r for r in commands if r.case in SCALE_CASES]
    if not rows:
        return
    per_job, per_failure = scale_bytes(rows)
    print("  scale: peak memory per job " + ("not measured (needs scale-300k-command and scale-1m-command)"
                                               if per_job is None else f"{per_job:,.0f} bytes")
          + ", per failure " + ("not measured (needs scale-1m-command and scale-1m-failures-command)"
                                if per_failure is None else f"{per_failure:,.0f} bytes (its restarted attempts included)"))


def _print_command(r: Any, accasim_whole: float | None = None) -> None:
    """One whole-command row (``coschedule.bench.common.CommandRow``) and its command line."""
    if r.target is None:
        target = "none set"
    else:
        kind, value = r.target
        said = {"ratio": f"whole <= {value:g}x the simulation", "cpu": f"whole <= {value:g} s CPU",
                "memory": f"peak <= {value / 1024:g} GB"}[kind]
        target = said + (": met" if r.met else ": NOT met")
    acc = ""
    if r.case.startswith("kth-") and accasim_whole is not None:
        acc = f"; AccaSim's whole process / this one: {accasim_whole / r.whole_cpu_s:.1f}x (target >= 15x)"
    ratio = "-" if r.whole_over_sim is None else f"{r.whole_over_sim:.2f}x"
    print(f"  {r.case:<25} whole CPU {r.whole_cpu_s:6.2f} s, wall {r.whole_wall_s:6.2f} s, simulation "
          f"{r.sim_cpu_s:6.2f} s, whole/simulation {ratio}, peak {r.peak_rss_mb:5.0f} MB; target: {target}{acc}")
    if r.counts:
        print("    " + ", ".join(f"{v:,} {k}" for k, v in r.counts.items()))
    print(f"    $ {r.command}")


def _secs(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}"


def _times(row: Any, methods: tuple[str, ...]) -> str:
    """The fast finder's seconds, then each other method's seconds and ratio to it ('-': not part
    of the case, 'n/m': not measured, said below the table)."""
    cells = [f"{_secs(row.seconds.get('fast')):>9}"]
    for m in methods:
        if m not in row.seconds:
            cells.append(f"{'-':>{max(9, len(m))}} {'-':>7}")
        elif row.seconds[m] is None:
            cells.append(f"{'n/m':>{max(9, len(m))}} {'n/m':>7}")
        else:
            ratio = row.ratio(m)
            cells.append(f"{_secs(row.seconds[m]):>{max(9, len(m))}} {_num(ratio, '.0f', 'x'):>7}")
    return " ".join(cells)


_OTHERS = ("appendix", "appendix-early")


def _torus_free_rows(rows: list[Any]) -> None:
    from ..torus import format_dims

    print("free partitions of s nodes:")
    print(f"{'torus':<9} {'busy':>4} {'s':>5} {'shapes':>6} {'found':>6} {'fast':>9} " + " ".join(
        f"{m:>{max(9, len(m))}} {'ratio':>7}" for m in _OTHERS) + "  identical")
    for r in rows:
        print(f"{format_dims(r.dims):<9} {100 * r.fraction:>3g}% {r.size:>5} {r.shapes:>6} {r.result:>6} "
              f"{_times(r, _OTHERS)}  {'yes' if r.agree else 'NO'}")


def _torus_mfp_rows(rows: list[Any]) -> None:
    from ..torus import format_dims

    print("maximal free partition:")
    print(f"{'torus':<9} {'busy':>4} {'MFP':>5} {'fast':>9} " + " ".join(
        f"{m:>{max(9, len(m))}} {'ratio':>7}" for m in _OTHERS) + "  same size")
    for r in rows:
        print(f"{format_dims(r.dims):<9} {100 * r.fraction:>3g}% {r.result:>5} {_times(r, _OTHERS)}  "
              f"{'yes' if r.agree else 'NO'}")


def _torus_sim_rows(rows: list[Any]) -> None:
    print(f"one whole simulation (4x4x8 torus, 4,000 clustered failures, seed 0; CPU seconds of this process, "
          f"one thread; target {rows[0].target:g} s on one core):")
    print(f"{'case':<14} {'policy':<10} {'jobs':>6} {'CPU':>8} {'wall':>8} {'/ target':>9}  validated")
    for r in rows:
        print(f"{r.case:<14} {r.policy:<10} {r.jobs:>6} {_secs(r.cpu):>8} {_secs(r.wall):>8} "
              f"{_num(r.ratio(), '.2f', 'x'):>9}  {'yes' if r.agree else 'NO'}")


def _command_rows(rows: list[Any]) -> None:
    print("the whole command, in a fresh process (its validation and what it writes included), beside the "
          "simulation it calls:")
    for r in rows:
        _print_command(r)


#: how each kind of torus benchmark row is printed, in this order
_TORUS_PRINTERS = {"free": _torus_free_rows, "mfp": _torus_mfp_rows, "sim": _torus_sim_rows,
                   "command": _command_rows}


def _print_sweep(bench: Any) -> None:
    """Case mira-stealing: every variant's warm CPU over Baseline's, per reading, against 1.5x."""
    ratios = bench.sweep_ratios()
    if not ratios:
        return
    r = bench.run("mira-stealing")
    print("\nnode stealing, every variant Hxyz (SFSJ = H111) on the Mira-like month and its failure trace, "
          "warm kernel CPU over Baseline's in one process (target: <= 1.5x for every variant):")
    for reading, got in ratios.items():
        worst = max(got, key=got.__getitem__)
        met = "met" if got[worst] <= 1.5 else "NOT met"
        print(f"  reservations on {reading} (Baseline {r.sweep[reading]['baseline']:.2f} s): the costliest "
              f"{worst.upper()} {got[worst]:.2f}x, the cheapest {min(got.values()):.2f}x; {met}")
        names = sorted(got)
        for row in range(0, len(names), 6):
            print("    " + "  ".join(f"{n.upper()} {got[n]:.2f}x" for n in names[row:row + 6]))
