"""What every benchmark of ``coschedule bench`` shares: a comparison it cannot make is printed as
:data:`NOT_MEASURED`, never estimated; a child process measured from outside (:func:`run_child`);
and the whole-command rows (:func:`measure_command`): a ``coschedule`` command run as a user runs
it, in a fresh process, beside the simulation it calls, timed inside that same process.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

__all__ = ["NOT_MEASURED", "CommandRow", "measure_command", "run_child"]


#: what a benchmark prints for a comparison it did not make
NOT_MEASURED = "not measured"


def run_child(args: list[str], env: dict[str, str] | None = None) -> tuple[dict[str, Any], float, float]:
    """Run ``python args...`` and parse its last stdout line as JSON; also the child's CPU
    seconds (user + system, its own children included) and wall seconds."""
    k0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    proc = subprocess.run([sys.executable, *args], check=False, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - w0
    k1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"benchmark child failed (exit {proc.returncode}): {tail}")
    cpu = (k1.ru_utime - k0.ru_utime) + (k1.ru_stime - k0.ru_stime)
    return json.loads(proc.stdout.strip().splitlines()[-1]), cpu, wall


#: the child of a whole-command row: wrap the library function ``argv[2]`` (``module:name``, the
#: simulation the command calls) with a CPU timer, run the command ``argv[1]`` (JSON list) through
#: the CLI's entry point, print what it measured as the last line
COMMAND_CHILD = r"""
import importlib, json, resource, sys, time
module, name = sys.argv[2].split(":")
mod = importlib.import_module(module)
inner = getattr(mod, name)
spent = [0.0]
counts = {}
def timed(*args, **kwargs):
    c = time.process_time()
    try:
        out = inner(*args, **kwargs)
    finally:
        spent[0] += time.process_time() - c
    for key in ("attempts", "failures"):
        try:
            counts[key] = len(getattr(out, key, None))
        except TypeError:  # not a result with these
            pass
    return out
setattr(mod, name, timed)
from coschedule.cli import main
code = main(json.loads(sys.argv[1]))
print(json.dumps({"code": code, "sim_cpu_s": spent[0], "counts": counts,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0}))
"""


@dataclass(frozen=True)
class CommandRow:
    """A whole command (module docstring); over ``repeat`` runs, the least whole CPU (and the
    simulation CPU of that run) and the least wall. ``target``: ``("ratio", x)`` whole <= x
    times the simulation, ``("cpu", s)`` whole <= s seconds, ``None``: none set."""

    case: str
    command: str
    repeat: int
    whole_cpu_s: float
    whole_wall_s: float
    sim_cpu_s: float
    peak_rss_mb: float
    target: tuple[str, float] | None = None
    kind: str = "command"
    #: what the simulation returned, when it says: ``attempts``, ``failures``
    counts: dict[str, int] | None = None

    @property
    def whole_over_sim(self) -> float | None:
        return self.whole_cpu_s / self.sim_cpu_s if self.sim_cpu_s > 0 else None

    @property
    def met(self) -> bool | None:
        if self.target is None:
            return None
        kind, value = self.target
        ratio = self.whole_over_sim
        if kind == "memory":
            return self.peak_rss_mb <= value
        return (ratio is not None and ratio <= value) if kind == "ratio" else self.whole_cpu_s <= value

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "whole_over_sim": self.whole_over_sim, "met": self.met}


def measure_command(case: str, argv: Sequence[str], timed: str, *, repeat: int = 1,
                    target: tuple[str, float] | None = None) -> CommandRow:
    """Run ``coschedule ARGV...`` ``repeat`` times, each in a fresh process, timing ``timed``
    (``module:function``, the simulation it calls) inside it. A command that fails raises."""
    best: tuple[float, float, float, dict[str, int]] | None = None
    wall = float("inf")
    for _ in range(repeat):
        out, cpu, w = run_child(["-c", COMMAND_CHILD, json.dumps(list(argv)), timed])
        if out["code"] != 0:
            raise RuntimeError(f"coschedule {' '.join(argv)}: exit {out['code']}")
        wall = min(wall, w)
        if best is None or cpu < best[0]:
            best = (cpu, out["sim_cpu_s"], out["peak_rss_mb"], out.get("counts") or {})
    assert best is not None
    shown = " ".join(Path(a).name if a.startswith("/") else a for a in argv)
    return CommandRow(case, f"coschedule {shown}", repeat, best[0], wall, best[1], best[2], target,
                      counts=best[3] or None)
