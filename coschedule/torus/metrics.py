"""The metrics of a torus run ([Oliner2004] §3.4, §6.1).

Per job ``j`` (arrival ``t^a``, size ``s_j`` units, run time ``t_j``, wall-time request
``w_j``): ``t^s`` is its **last** start (§6.1: "the last start time": the start of the run that
completed, after its last failure; a migration continues a run, it does not start one), ``t^f``
its completion;

* wait ``t^w = t^s - t^a`` (the time lost to failed attempts counts as waiting);
* response ``t^r = t^f - t^a`` (§3.4's timing goal (2), "Average[t^r_j]");
* bounded slowdown with ``Γ = 10 s``: ``max(t^r, Γ) / max(t^e, Γ)`` (``bsld="max"``, the
  default: the usual bounded slowdown, never below ``t^r / t^e`` capped at short jobs), or
  ``max(t^r, Γ) / min(t^e, Γ)`` as §3.4 prints it (``bsld="min"``: the denominator is at most
  10 s, so a job of an hour that ran at once has slowdown 360; the average is then dominated by
  long jobs' response times).

  ``t^e`` is the job's **run time** ``t_j`` (``bsld_time="run"``, the default) or its wall-time
  request ``w_j`` (``bsld_time="request"``). §3.4 computes the metrics from "the actual job
  execution time", and §6.1's ``ω_util = Σ s_j t^e_j / (T N)``, "the work accomplished", only
  holds with the run time; the request (§3.2's "estimated execution time", which the scheduler
  plans with) lets the slowdown of a job that ran shorter than it asked fall below 1. With the
  run time this is the bounded slowdown of the batch metrics
  (:func:`coschedule.sim.metrics.bounded_slowdown`: ``max(1, flow / max(L, Γ))``, ``L`` the
  failure-free run time; here ``t^r >= t_j``, so the ``max(1, ·)`` changes nothing).

Capacity, over ``T = max t^f - min t^a`` and ``N`` units:

* ``ω_util = Σ s_j t_j / (T N)``: the work accomplished (§6.1; ``t_j``, the run time, equals
  the paper's ``t^e`` when estimates are exact, as in the shipped NASA log; with a log's
  requested times the estimate would count work that was never done);
* ``ω_unused = ∫ max(0, f(t) - q(t)) dt / (T N)``, ``f(t)`` the free units (up and running
  nothing), ``q(t)`` the units asked by the jobs waiting at ``t`` (arrived or failed, not yet
  started): computed exactly from the step functions, not sampled;
* ``ω_lost = 1 - ω_util - ω_unused``: work lost to failures, fragmentation, nodes down.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from coschedule.torus.result import TorusRun

from ..sim.metrics import GAMMA
from ..sim.result import SimulationResult

__all__ = ["BSLD_RULES", "BSLD_TIMES", "TorusMetrics", "capacity_parts", "job_times", "torus_metrics"]

BSLD_RULES = ("max", "min")
#: the time ``t^e`` of the bounded slowdown's denominator: the run time (default) or the request
BSLD_TIMES = ("run", "request")


def job_times(result: SimulationResult) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per job: arrival, last start, completion. The last start is that of the run that
    completed: its first attempt after the job's last failure (a migration moves a running job,
    which keeps its work and goes on at once: its next attempt continues the same run, §3.2)."""
    last = np.full(result.workload.n, math.nan)
    run_start: dict[int, float] = {}
    prev_outcome: dict[int, str] = {}
    for a in sorted(result.attempts, key=lambda a: (a.job, a.index)):
        if a.index == 0 or prev_outcome[a.job] != "migrated":
            run_start[a.job] = a.start
        if a.outcome == "completed":
            last[a.job] = run_start[a.job]
        prev_outcome[a.job] = a.outcome
    return result.workload.submit.astype(float), last, result.completion.astype(float)


def capacity_parts(result: SimulationResult) -> tuple[float, float, float, float]:
    """``(T, ω_util, ω_unused, ω_lost)`` of a run (module docstring)."""
    w = result.workload
    N = w.n_nodes
    if not w.n:
        return 0.0, math.nan, math.nan, math.nan
    t0, t1 = float(w.submit.min()), float(np.max(result.completion))
    T = t1 - t0
    if T <= 0:
        return 0.0, math.nan, math.nan, math.nan
    util = float((w.nodes * w.length).sum()) / (T * N)
    # f - q as a step function: events (time, change of f, change of q)
    times: list[float] = []
    df: list[float] = []
    dq: list[float] = []
    for a in result.attempts:  # busy units
        p = len(a.nodes)
        times += [a.start, a.end]
        df += [-p, p]
        dq += [0, 0]
    for f in result.failures:  # down units
        if f.up > f.time:
            times += [f.time, f.up]
            df += [-1, 1]
            dq += [0, 0]
    by_job: dict[int, list[Any]] = {}
    for a in result.attempts:
        by_job.setdefault(a.job, []).append(a)
    for j, atts in by_job.items():  # waiting: from arrival to the first start, then between attempts
        atts.sort(key=lambda a: a.index)
        p = int(w.nodes[j])
        since = float(w.submit[j])
        for a in atts:
            times += [since, a.start]
            dq += [p, -p]
            df += [0, 0]
            since = a.end
    order = np.argsort(np.asarray(times), kind="stable")
    t = np.asarray(times)[order]
    free = N + np.cumsum(np.asarray(df)[order])
    q = np.cumsum(np.asarray(dq)[order])
    # after the last event at each instant, the value holds until the next instant
    gap = np.diff(np.r_[t, t1])
    lo = np.clip(t, t0, t1)
    hi = np.clip(t + gap, t0, t1)
    unused = float((np.maximum(0.0, free - q) * (hi - lo)).sum()) / (T * N)
    return T, util, unused, 1.0 - util - unused


@dataclass(frozen=True)
class TorusMetrics:
    """The metrics of one torus run (module docstring); ``to_dict()`` for JSON, ``table()``."""

    policy: str
    jobs: int
    failures: int  # failures applied
    job_failures: int  # failures that hit a running job (each one a lost attempt)
    mean_wait: float
    mean_response: float
    mean_bsld: float
    max_bsld: float
    span: float
    util: float
    unused: float
    lost: float
    bsld_rule: str = "max"
    gamma: float = GAMMA
    bsld_time: str = "run"

    def to_dict(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return None if not math.isfinite(x) else float(x)

        return {"policy": self.policy, "jobs": self.jobs, "failures": self.failures,
                "job_failures": self.job_failures, "mean_wait": num(self.mean_wait),
                "mean_response": num(self.mean_response), "mean_bounded_slowdown": num(self.mean_bsld),
                "max_bounded_slowdown": num(self.max_bsld), "span": num(self.span),
                "utilized": num(self.util), "unused": num(self.unused), "lost": num(self.lost),
                "bounded_slowdown_rule": self.bsld_rule, "bounded_slowdown_time": self.bsld_time,
                "gamma": self.gamma}

    def table(self) -> str:
        from coschedule.units import format_duration

        def seconds(x: float, spec: str) -> str:  # a long duration also in the unit a person reads
            return f"{x:,{spec}} s" + (f" ({format_duration(x)})" if x >= 120 else "")

        denom = "max" if self.bsld_rule == "max" else "min"
        t = "run time" if self.bsld_time == "run" else "request"
        rows = [
            ("jobs", f"{self.jobs:,}"),
            ("failures (hit a job)", f"{self.failures:,} ({self.job_failures:,})"),
            ("mean wait", seconds(self.mean_wait, ".1f")),
            ("mean response", seconds(self.mean_response, ".1f")),
            (f"mean bounded slowdown (Γ={self.gamma:g} s, {denom}({t}, Γ))", f"{self.mean_bsld:,.3f}"),
            ("max bounded slowdown", f"{self.max_bsld:,.3f}"),
            ("span T", seconds(self.span, ".0f")),
            ("capacity utilized / unused / lost",
             f"{self.util:.4f} / {self.unused:.4f} / {self.lost:.4f}"),
        ]
        width = max(len(k) for k, _ in rows)
        return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def torus_metrics(run: TorusRun | SimulationResult, *, gamma: float = GAMMA, bsld: str = "max",
                  bsld_time: str = "run", policy: str | None = None) -> TorusMetrics:
    """The metrics of a run (module docstring): ``bsld`` the bounded slowdown's rule (``max``,
    ``min``), ``bsld_time`` its ``t^e`` (``run``, ``request``)."""
    from ..errors import unknown_name

    if bsld not in BSLD_RULES:
        raise unknown_name("bounded-slowdown rule", str(bsld), BSLD_RULES)
    if bsld_time not in BSLD_TIMES:
        raise unknown_name("bounded-slowdown time", str(bsld_time), BSLD_TIMES)
    result = run.result if isinstance(run, TorusRun) else run
    name = policy or (run.policy if isinstance(run, TorusRun) else result.policy)
    w = result.workload
    ta, ts, tf = job_times(result)
    te = (w.length if bsld_time == "run" else w.walltime).astype(float)
    resp = tf - ta
    wait = ts - ta
    denom = np.maximum(te, gamma) if bsld == "max" else np.minimum(te, gamma)
    sld = np.maximum(resp, gamma) / denom
    T, util, unused, lost = capacity_parts(result)
    applied = len(result.failures)
    hit = sum(1 for f in result.failures if f.job >= 0)
    n = w.n

    def mean(x: np.ndarray) -> float:
        return float(x.mean()) if n else math.nan

    return TorusMetrics(name, n, applied, hit, mean(wait), mean(resp), mean(sld),
                        float(sld.max()) if n else math.nan, T, util, unused, lost, bsld, float(gamma), bsld_time)
