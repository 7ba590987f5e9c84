"""[Oliner2004] §1, §7.1, Figs. 3-5: FCFS and Balancing against the failure count and the load, on
KTH-SP2 (the stand-in for SDSC SP2), and the downtime §7.1 conjectures."""

from __future__ import annotations

import math
from itertools import pairwise
from typing import Any

from coschedule.reproduce.claims import Claim, Measured, NotComparable
from coschedule.reproduce.results import Results

from .common import (
    C0,
    C1,
    FAIL,
    FAILURES,
    KTH,
    OTHER_TRACES,
    SYSTEM,
    _change,
    _find,
    _groups,
    _half,
    _holds,
    _num,
    _pct,
    _pm,
    _sdsc,
    _slow,
    scaled_count,
)


def _k(r: Results, count: int) -> int:
    """The quick run's count of KTH-SP2 for the paper's ``count`` (Figs. 3-5)."""
    return scaled_count(KTH, count, r.quick)


def _k_label(r: Results, count: int) -> str:
    return f"{count:,}" + (f" ({_k(r, count)} on the slice)" if r.quick and count else "")


def _traces(r: Results, log: str, c: float, K: int, policy: str, a: float) -> list[float]:
    """The change against FCFS of ``policy`` at ``a`` on each failure trace of ``oliner2004-failures``."""
    rows = [x for x in r.rows(FAIL) if x["source"] == log and math.isclose(x["load_scale"], c)
            and x["failure_count"] == K and x.get("migration", True)]
    fcfs = {x["seed_index"]: x["mean_bounded_slowdown"] for x in rows if x["policy"] == "fcfs"}
    return [x["mean_bounded_slowdown"] / fcfs[x["seed_index"]] - 1.0
            for x in sorted(rows, key=lambda x: x["seed_index"])
            if x["policy"] == policy and x["confidence"] is not None and math.isclose(x["confidence"], a)
            and x["seed_index"] in fcfs]


def _intro_70(r: Results) -> Measured:
    gs = _groups(r, FAIL)
    words, value, half = [], math.nan, 0.0
    for c in (C0, C1):
        base, hit = _find(gs, KTH, c, "fcfs", K=0), _find(gs, KTH, c, "fcfs", K=_k(r, 1000))
        rise, h = _slow(hit) / _slow(base) - 1.0, _half(hit.ci("mean_bounded_slowdown")) / _slow(base)
        words.append(f"c = {c:.1f}: {_num(_slow(base))} -> {_num(_slow(hit))} ({_pm(rise, h)})")
        if c == C0:
            value, half = rise, h
    return Measured(f"FCFS's slowdown from 0 to {_k_label(r, 1000)} failures, " + "; ".join(words),
                    value=value, half=half)


def _fcfs_curve(r: Results, c: float) -> list[tuple[int, Any]]:
    gs = _groups(r, FAIL)
    return sorted(((g.failure_count, g) for g in gs if g.source == KTH and math.isclose(g.load_scale, c)
                   and g.policy == "fcfs"), key=lambda x: x[0])


def _drops(r: Results) -> Measured:
    words, flags = [], []
    for c in (C0, C1):
        curve = _fcfs_curve(r, c)
        ys = [_slow(g) for _, g in curve]
        flags.append(all(b > a for a, b in pairwise(ys)))
        words.append(f"c = {c:.1f}: " + ", ".join(_num(y) for y in ys))
    ks = ", ".join(f"{k:,}" for k, _ in _fcfs_curve(r, C0))
    return Measured(f"FCFS's mean bounded slowdown at K = {ks}: " + "; ".join(words), holds=_holds(flags))


def _saturates(r: Results) -> Measured:
    words, flags = [], []
    for c in (C0, C1):
        curve = _fcfs_curve(r, c)
        (k0, g0), (k1, g1) = curve[0], curve[1]
        (kp, gp), (kq, gq) = curve[-2], curve[-1]
        first = (_slow(g1) - _slow(g0)) / (k1 - k0)
        last = (_slow(gq) - _slow(gp)) / (kq - kp)
        flags.append(last < first)
        per = f"{last / first:.1f} times the first step's" if first > 0 else "the first step did not raise it"
        words.append(f"c = {c:.1f}: x{_slow(gq) / _slow(gp):.1f} from K = {kp:,} to {kq:,} (response "
                     f"x{gq.mean('mean_response') / gp.mean('mean_response'):.1f}), per failure {per}")
    return Measured("FCFS's slowdown, last step: " + "; ".join(words), holds=_holds(flags))


def _balancing_50(r: Results) -> Measured:
    gs = _groups(r, FAIL)
    K = _k(r, 1000)
    mu, half = _change(_find(gs, KTH, C0, "balancing", 0.1, K))
    each = _traces(r, KTH, C0, K, "balancing", 0.1)
    mu2, half2 = _change(_find(gs, KTH, C1, "balancing", 0.1, K))
    return Measured(f"Balancing a = 0.1 vs FCFS at {_k_label(r, 1000)} failures, c = 1.0: {_pm(mu, half)} (traces: "
                    f"{', '.join(_pct(x) for x in each)}); c = 1.2: {_pm(mu2, half2)}", value=-mu, half=half)


def _confidence_20(r: Results) -> Measured:
    gs = _groups(r, FAIL)
    best = (-math.inf, 0, C0)
    for c in (C0, C1):
        for k, _ in _fcfs_curve(r, c):
            if k:
                extra = _change(_find(gs, KTH, c, "balancing", 0.1, k))[0] - _change(
                    _find(gs, KTH, c, "balancing", 0.9, k))[0]
                best = max(best, (extra, k, c))
    extra, k, c = best
    return Measured(f"a = 0.9 gains at most {100 * extra:+.0f} points more than a = 0.1 (K = {k:,}, c = {c:.1f})",
                    value=extra)


def _load_no_impact(r: Results) -> Measured:
    lo, hi = dict(_fcfs_curve(r, C0)), dict(_fcfs_curve(r, C1))
    ks = sorted(set(lo) & set(hi))
    slow = [_slow(hi[k]) / _slow(lo[k]) for k in ks]
    resp = [hi[k].mean("mean_response") / lo[k].mean("mean_response") for k in ks]
    return Measured("FCFS at c = 1.2 against c = 1.0 (other traces): slowdown " + ", ".join(
        f"x{s:.1f}" for s in slow) + "; response " + ", ".join(f"x{x:.1f}" for x in resp)
        + f" at K = {', '.join(f'{k:,}' for k in ks)}", value=max(slow))


def _load_unused_to_used(r: Results) -> Measured:
    gs = _groups(r, FAIL)
    lo, hi = _find(gs, KTH, C0, "fcfs", K=0), _find(gs, KTH, C1, "fcfs", K=0)
    used = hi.mean("utilized") - lo.mean("utilized")
    return Measured(f"failure-free FCFS, c = 1.0 -> 1.2: utilized {lo.mean('utilized'):.3f} -> "
                    f"{hi.mean('utilized'):.3f}, unused {lo.mean('unused'):.3f} -> {hi.mean('unused'):.3f}", value=used)


def _failures_lost(r: Results) -> Measured:
    gs = _groups(r, FAIL)
    words, flags = [], []
    top = max(k for k, _ in _fcfs_curve(r, C0))
    for c in (C0, C1):
        for policy, a in (("fcfs", None), ("balancing", 0.1), ("balancing", 0.9)):
            g0 = _find(gs, KTH, c, policy, a, 0)
            g1 = _find(gs, KTH, c, policy, a, top)
            flags.append(g1.mean("lost") > g0.mean("lost") and g1.mean("unused") < g0.mean("unused"))
            if policy == "fcfs" or a == 0.9:
                words.append(f"{g1.label}, c = {c:.1f}: lost {g0.mean('lost'):.2f} -> {g1.mean('lost'):.2f}, unused "
                             f"{g0.mean('unused'):.2f} -> {g1.mean('unused'):.2f}")
    return Measured(f"from 0 to {top:,} failures: " + "; ".join(words), holds=_holds(flags))


def _not_run(r: Results) -> Measured:
    return Measured("not run: every campaign has transient failures (downtime 0), as the paper's (§6.1)")


#: §1, §7.1: Figs. 3-5, SDSC's
CLAIMS = (
    Claim("intro-70", "§1 (Figs. 3-4)", "for about one failure in four days (1,000 failures), \"nearly a 70 % "
          "increase in job slowdown\" without fault awareness", "≈ +70 %", _intro_70, _sdsc(), (FAIL,), SYSTEM,
          figure="fig3"),
    Claim("fig3-drops", "§7.1, Figs. 3-4", "\"as failures are introduced, system performance drops quickly\"",
          "slowdown grows with K", _drops, _sdsc(), (FAIL,), SYSTEM, figure="fig3"),
    Claim("fig3-saturates", "§7.1, Figs. 3-4", "performance eventually reaches \"a point beyond which further "
          "increase in failure rate would have little additional effect\" (new failures strike partitions already "
          "failed)", "saturates", _saturates,
          _sdsc(" and its failure trace, whose failures pile up on the same nodes"), (FAIL,), SYSTEM, figure="fig3"),
    Claim("fig3-balancing-50", "§7.1, Figs. 3-4", "at 1,000 failures \"even with a 10 % prediction confidence\" "
          "Balancing improves the bounded slowdown \"up to 50 %\"", "up to 50 %", _balancing_50, _sdsc(), (FAIL,),
          SYSTEM, figure="fig3"),
    Claim("fig3-confidence-20", "§7.1, Fig. 3", "from a 10 % to a 90 % confidence, \"another maximum improvement of "
          "20 %\"", "up to 20 points more", _confidence_20, _sdsc(), (FAIL,), SYSTEM, figure="fig3"),
    Claim("fig5-load-no-impact", "§7.1, Fig. 5", "\"a 20 % increase in load do not have any equivalent impact to "
          "bounded slowdown or average response time\"", "no equivalent impact", _load_no_impact, _sdsc(), (FAIL,),
          (*SYSTEM, OTHER_TRACES), figure="fig4"),
    Claim("fig5-load-unused-to-used", "§7.1, Fig. 5", "the higher load converts \"a marginal amount of unused work to "
          "used work\"", "marginal", _load_unused_to_used, _sdsc(), (FAIL,), SYSTEM, figure="fig5"),
    Claim("fig5-failures-lost", "§6.1, §7.1, Fig. 5", "failures turn capacity into lost capacity (\"work lost from "
          "failures\" counts in ω_lost), at the expense of the unused", "lost grows with K", _failures_lost, _sdsc(),
          (FAIL,), SYSTEM, figure="fig5"),
    Claim("sec71-downtime", "§7.1", "with a downtime after each failure, multiple failures \"would result a sharp "
          "rise in average bounded slowdown\"", "sharp rise (not simulated)", _not_run,
          NotComparable("the paper ran no downtime: a conjecture, not a result", "none: transient failures"),
          (FAIL,), (FAILURES,)),
)
