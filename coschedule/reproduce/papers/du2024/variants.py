"""[Du2024] §7.3: the 18 variants Hxyz of node stealing against Baseline and SFSJ (Tables 8-10,
Figs. 19-21)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from coschedule.reproduce.claims import Claim, Measured
from coschedule.reproduce.results import Results

from .common import (
    BASE,
    MIRA,
    MIRA_LOG,
    NODES,
    PRUNE,
    RELEASE,
    SHORT,
    T5A,
    VARIANTS,
    WINDOW,
    _change,
    _classes,
    _count,
    _fail,
    _free,
    _holds,
    _largest,
    _mean,
    _of,
    _on_stand_in,
    _paired,
    _pct,
    _policies,
    _smallest,
    _sources,
    _stat,
    _util,
)

# ------------------------------------------------------------------ §7.3: the variants (Tables 8-10; Figs. 19-21)

def _variant_name(policy: str) -> str:
    return "baseline" if policy == BASE else policy.removeprefix("h")


def _by_variant(r: Results, f: Callable[[dict[str, Any]], float]) -> dict[str, dict[str, float]]:
    """Per month, per variant present: ``f`` averaged over the seeds."""
    return {s: {p: _of(r, VARIANTS, s, p, f)[0] for p in _policies(r, VARIANTS)} for s in _sources(r, VARIANTS, MIRA)}


def _variant_table(f: Callable[[dict[str, Any]], float], fmt: Callable[[float], str], what: str,
                   skip_baseline: bool = False) -> Callable[[Results], Measured]:
    def compute(r: Results) -> Measured:
        table = _by_variant(r, f)
        return Measured(f"{what}: " + "; ".join(f"{SHORT[s]}: " + ", ".join(
            f"{_variant_name(p)} {fmt(v)}" for p, v in row.items() if not (skip_baseline and p == BASE))
            for s, row in table.items()))

    return compute


def _none_above_111(r: Results) -> Measured:
    words, top, near = [], [], []
    for s, row in _by_variant(r, _util).items():
        others = {p: v for p, v in row.items() if p not in (BASE, "h111")}
        best = max(others, key=others.__getitem__)
        top.append(row["h111"] >= others[best])
        near.append(others[best] - row["h111"] <= 0.003)
        words.append(f"{SHORT[s]}: 111 {_pct(row['h111'])}, best other {_variant_name(best)} {_pct(others[best])}")
    return _on_stand_in("; ".join(words), _holds(all(top), all(near)))


def _below_baseline(r: Results) -> Measured:
    words, some = [], []
    for s, row in _by_variant(r, _util).items():
        worst = min(row, key=row.__getitem__)
        drop = 1 - row[worst] / row[BASE]
        some.append(drop > 0)
        words.append(f"{SHORT[s]}: {_variant_name(worst)} {_change(1 - drop)} against Baseline")
    return _on_stand_in("; ".join(words), _holds(all(some), any(some)))


def _spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rank correlation of two samples (ties given their mean rank)."""
    def ranks(v: Sequence[float]) -> list[float]:
        order = sorted(range(len(v)), key=v.__getitem__)
        out = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                out[order[k]] = (i + j) / 2
            i = j + 1
        return out

    a, b = ranks(xs), ranks(ys)
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    cov = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    sa = math.sqrt(sum((x - ma) ** 2 for x in a))
    sb = math.sqrt(sum((y - mb) ** 2 for y in b))
    if not sa or not sb:
        raise ValueError("a constant sample has no rank correlation")
    return cov / (sa * sb)


def _idle_impact(r: Results) -> Measured:
    util, idle = _by_variant(r, _util), _by_variant(r, lambda x: _count(x, "idle_time_share"))
    rhos = {}
    for s in util:
        ps = [p for p in util[s] if p != BASE]
        rhos[s] = _spearman([idle[s][p] for p in ps], [abs(util[s][p] - util[s][BASE]) for p in ps])
    return _on_stand_in("rank correlation of the time with a node idle and the utilization change against Baseline: "
                        + ", ".join(f"{SHORT[s]} {v:+.2f}" for s, v in rhos.items()),
                        _holds(all(v < 0 for v in rhos.values()), any(v < 0 for v in rhos.values())),
                        value=max(rhos.values()))


def _more_steals(r: Results) -> Measured:
    words, exact, has = [], [], []
    for s, row in _by_variant(r, lambda x: _count(x, "steals")).items():
        more = [p for p, v in row.items() if p not in (BASE, "h111") and v > row["h111"]]
        exact.append(more == ["h311"])
        has.append("h311" in more)
        words.append(f"{SHORT[s]}: " + (", ".join(f"{_variant_name(p)} ({row[p]:.1f})" for p in more) or "none")
                     + f" above 111 ({row['h111']:.1f})")
    return _on_stand_in("variants stealing more than SFSJ: " + "; ".join(words), _holds(all(exact), any(has)))


def _proactive(r: Results) -> Measured:
    words, near = [], []
    for s, row in _by_variant(r, lambda x: _count(x, "steals")).items():
        for p in row:
            twin = "h1" + p[2:]
            if p.startswith("h2") and twin in row:
                change = row[p] / row[twin]
                near.append(abs(change - 1) <= 0.25)
                words.append(f"{SHORT[s]} {_variant_name(p)} vs {_variant_name(twin)} {_change(change)}")
    if not words:
        raise KeyError("no proactive variant (2yz) beside its immediate twin (1yz)")
    return _on_stand_in("steals, proactive checkpoint (2yz) against immediate interruption (1yz): "
                        + ", ".join(words), _holds(all(near), any(near)))


def _yz_fewer(r: Results) -> Measured:
    words, fewer = [], []
    for s, row in _by_variant(r, lambda x: _count(x, "steals")).items():
        others = [p for p in row if p.startswith("h1") and p != "h111"]
        fewer += [row[p] < row["h111"] for p in others]
        words.append(f"{SHORT[s]}: 111 {row['h111']:.1f}, " + ", ".join(
            f"{_variant_name(p)} {row[p]:.1f}" for p in others))
    if not fewer:
        raise KeyError("no variant 1yz besides 111")
    return _on_stand_in("steals per month, the other victim and criterion choices against 111: " + "; ".join(words),
                        _holds(all(fewer), any(fewer)))


def _against_111(r: Results, policy: str, label_of: Callable[[dict[str, Any]], str], which: str,
                 source: str) -> float:
    """``policy``'s ``which`` flow of the class ``label_of(run)`` over 111's (means over the seeds)."""
    label = label_of(_free(r, VARIANTS, source))
    return (_mean(_stat(x, label, which) for x in _fail(r, VARIANTS, source, policy))
            / _mean(_stat(x, label, which) for x in _fail(r, VARIANTS, source, "h111")))


def _no_clear_gain(policies: Sequence[str], what: str) -> Callable[[Results], Measured]:
    """None of ``policies`` does clearly better than 111: lower both the largest class's maximum
    flow and the weighted mean flow by more than 5 %."""

    def compute(r: Results) -> Measured:
        words, better = [], []
        for s in _sources(r, VARIANTS, MIRA):
            for p in policies:
                big = _against_111(r, p, _largest, "max", s)
                wm = _against_111(r, p, lambda _: "weighted", "mean", s)
                better.append(big < 0.95 and wm < 0.95)
                words.append(f"{SHORT[s]} {_variant_name(p)}: largest class's maximum flow {_change(big)}, "
                             f"weighted mean flow {_change(wm)}")
        return _on_stand_in(f"{what} against 111: " + "; ".join(words), not any(better))

    return compute


def _wait_worse(r: Results) -> Measured:
    words, up, n = [], 0, 0
    for s in _sources(r, VARIANTS, MIRA):
        base, late = _fail(r, VARIANTS, s, BASE), _fail(r, VARIANTS, s, "h311")
        labels = [c["label"] for c in _classes(base[0])] + ["all"]
        for which in ("max", "mean"):
            for k in labels:
                n += 1
                up += _mean(_stat(x, k, which) for x in late) > _mean(_stat(x, k, which) for x in base)
        words.append(SHORT[s])
    return _on_stand_in(f"311 above Baseline at {up} of {n} (class, maximum or mean flow) points "
                        f"({', '.join(words)})", _holds(up == n, up > n / 2))


def _proactive_flows(r: Results) -> Measured:
    words, large, small = [], [], []
    for s in _sources(r, VARIANTS, MIRA):
        big = _against_111(r, "h211", _largest, "max", s)
        little = _against_111(r, "h211", _smallest, "max", s)
        large.append(abs(big - 1) <= 0.1)
        small.append(little >= 1.5)
        words.append(f"{SHORT[s]}: largest class {_change(big)}, smallest {_change(little)}")
    return _on_stand_in("211 against 111, maximum flow: " + "; ".join(words),
                        _holds(all(large) and any(small), all(large) or any(small)))


def _little_for_large(policies: Sequence[str], what: str) -> Callable[[Results], Measured]:
    """``policies`` change the maximum and mean flow of the classes of 8,192 nodes and more by at
    most 10 % against 111, and improve nothing clearly (as :func:`_no_clear_gain`)."""

    def compute(r: Results) -> Measured:
        words, close, better = [], [], []
        for s in _sources(r, VARIANTS, MIRA):
            big = [c["label"] for c in _classes(_free(r, VARIANTS, s)) if c["low"] >= 8192]
            for p in policies:
                moves = [_against_111(r, p, lambda _, k=k: k, w, s) for k in big for w in ("max", "mean")]
                worst = max(abs(m - 1) for m in moves)
                close.append(worst <= 0.1)
                better.append(_against_111(r, p, _largest, "max", s) < 0.95
                              and _against_111(r, p, lambda _: "weighted", "mean", s) < 0.95)
                words.append(f"{SHORT[s]} {_variant_name(p)} moves them by {100 * worst:.0f} % at most")
        return _on_stand_in(f"{what}, flows of the classes of 8,192 nodes and more against 111: " + "; ".join(words),
                            _holds(all(close) and not any(better), any(close) and not any(better)))

    return compute


def _outliers(r: Results) -> Measured:
    words = []
    for s in _sources(r, VARIANTS, MIRA):
        base = _fail(r, VARIANTS, s, BASE)
        label = _smallest(base[0])
        top = {p: max(_paired(_fail(r, VARIANTS, s, p), base, lambda x: _stat(x, label, "max")))
               for p in _policies(r, VARIANTS) if p != BASE}
        words.append(f"{SHORT[s]}: " + ", ".join(f"{_variant_name(p)} x{v:.2f}" for p, v in top.items()))
    return Measured("the largest ratio over Baseline (over the seeds) of the smallest class's maximum flow: "
                    + "; ".join(words))


def _basic_enough(r: Results) -> Measured:
    util = _by_variant(r, _util)
    words, gain, beaten = [], [], []
    for s in _sources(r, VARIANTS, MIRA):
        label = _largest(_free(r, VARIANTS, s))
        mx = {p: _mean(_stat(x, label, "max") for x in _fail(r, VARIANTS, s, p)) for p in util[s]}
        gain.append(mx["h111"] < mx[BASE])
        better = [p for p in mx if p not in (BASE, "h111") and mx[p] < 0.95 * mx["h111"]
                  and util[s][p] > util[s]["h111"]]
        beaten += better
        words.append(f"{SHORT[s]}: 111 {_change(mx['h111'] / mx[BASE])} on the largest class's maximum flow; "
                     f"better on it and on utilization: {', '.join(map(_variant_name, better)) or 'none'}")
    return _on_stand_in("; ".join(words), _holds(all(gain) and not beaten, all(gain) or not beaten))


CLAIMS = (
    # §7.3: the variants
    Claim("table8-utilization", "§7.3, Table 8", "useful utilization of Baseline and the 18 variants",
          "June 2017: baseline 79.32, 111 80.69, 112 80.15, 113 80.49, 121 80.48, 211 80.52, 311 76.18 %; "
          "March 2018: 77.39, 78.50, 78.12, 77.64, 77.47, 78.09, 75.17 % (the other 12 variants in between)",
          _variant_table(_util, _pct, "useful utilization"), MIRA_LOG, (VARIANTS,), (NODES, RELEASE, WINDOW)),
    Claim("table8-idle", "§7.3, Table 8", "percentage of time at least one node is available (idle perc.)",
          "June 2017: baseline 92.09, 111 90.67, 112 91.95, 113 91.85, 121 91.67, 211 90.87, 311 85.87 %; "
          "March 2018: 93.36, 92.48, 92.00, 92.65, 92.61, 92.01, 88.90 %",
          _variant_table(lambda x: _count(x, "idle_time_share"), _pct, "time with a node idle"), MIRA_LOG, (VARIANTS,),
          (NODES, RELEASE, T5A)),
    Claim("table8-none-above-111", "§7.3, Table 8", "no variant really lifts the utilization above the initial "
          "heuristic's (111)", "111 highest", _none_above_111,
          MIRA_LOG, (VARIANTS,), (NODES, RELEASE, WINDOW)),
    Claim("table8-below-baseline", "§7.3, Table 8", "some variants fall below Baseline's utilization, by up to 5 %",
          "up to -5 % (311: -4.0 % in June)", _below_baseline,
          MIRA_LOG, (VARIANTS,), (NODES, RELEASE, WINDOW)),
    Claim("table8-idle-impact", "§7.3, Table 8", "the more time a node is idle, the smaller node stealing's impact",
          "negative relation", _idle_impact, MIRA_LOG, (VARIANTS,),
          (NODES, RELEASE, T5A, "the impact read as the size of the utilization change against Baseline")),
    Claim("table9-steals", "§7.3, Table 9", "number of times node stealing is used, per month",
          "June 2017: 111 63.4, 112 33.6, 113 48.0, 121 32.4, 211 60.8, 311 76.4; March 2018: 46.6, 44.6, "
          "44.6, 29.8, 53.2, 60.2 (the other 12 variants: 17.2 to 57.0)",
          _variant_table(lambda x: _count(x, "steals"), lambda v: f"{v:.1f}", "steals per month", skip_baseline=True),
          MIRA_LOG, (VARIANTS,), (NODES, RELEASE)),
    Claim("table9-311-more", "§7.3, Table 9", "only 311 (waiting for the victim's next regular checkpoint) steals "
          "more often than 111",
          "only 311 (yet in March 2018 Table 9 has 122, 123, 211, 222, 223 and 322 above 111 too)", _more_steals,
          MIRA_LOG, (VARIANTS,), (NODES, RELEASE)),
    Claim("table9-proactive", "§7.3, Table 9", "a proactive checkpoint (2yz) steals slightly more or slightly less "
          "often", "slight change", _proactive, MIRA_LOG, (VARIANTS,),
          (NODES, RELEASE, "slightly: within 25 % of the immediate variant's steals")),
    Claim("table9-yz-fewer", "§7.3, Table 9", "every other victim (y) or criterion (z) choice steals less often",
          "fewer steals", _yz_fewer, MIRA_LOG, (VARIANTS,),
          (NODES, RELEASE)),
    Claim("table10-outliers", "§7.3, Table 10", "outliers left out of Figs. 19-21: the maximum flow of the jobs "
          "of [1, 2^7] nodes over Baseline's, March 2018", "111 x7.99, 311 x6.09, 112 x5.47-7.73, 113 x4.09-4.84",
          _outliers, MIRA_LOG, (VARIANTS,), (NODES, RELEASE, PRUNE)),
    Claim("fig19-no-better", "§7.3, Fig. 19", "no timing choice clearly beats the original heuristic", "none better",
          _no_clear_gain(("h211", "h311"), "211 and 311"), MIRA_LOG, (VARIANTS,),
          (NODES, RELEASE, PRUNE, "clearly: both the largest class's maximum flow and the weighted mean flow lower by "
           "more than 5 %"), figure="fig19"),
    Claim("fig19-311-worse", "§7.3, Fig. 19", "waiting for the next checkpoint (311) always raises the maximum and "
          "mean flows", "311 above 1", _wait_worse, MIRA_LOG, (VARIANTS,), (NODES, RELEASE, PRUNE),
          figure="fig19"),
    Claim("fig19-211", "§7.3, Fig. 19", "a proactive checkpoint (211) performs like 111 for the large jobs but "
          "sometimes raises the small jobs' maximum flow a lot", "211 = 111 for large jobs", _proactive_flows,
          MIRA_LOG, (VARIANTS,),
          (NODES, RELEASE, PRUNE, "comparable: within 10 %; largely: x1.5 or more"), figure="fig19"),
    Claim("fig20-victim", "§7.3, Fig. 20", "the victim choice (121: latest release) changes the small jobs' flows a "
          "little, the large jobs' very little, and improves nothing", "little effect",
          _little_for_large(("h121",), "121"), MIRA_LOG, (VARIANTS,),
          (NODES, RELEASE, PRUNE, "very little: within 10 %"), figure="fig20"),
    Claim("fig21-criterion", "§7.3, Fig. 21", "the interrupting criterion (112, 113) changes only the small jobs' "
          "flows and improves nothing clearly", "little effect on large jobs",
          _little_for_large(("h112", "h113"), "112 and 113"), MIRA_LOG, (VARIANTS,),
          (NODES, RELEASE, PRUNE, "no impact: within 10 %"), figure="fig21"),
    Claim("s7-3-summary", "§7.3", "no variant clearly improves on node stealing: the basic heuristic suffices to "
          "improve the large jobs' flows", "111 sufficient", _basic_enough, MIRA_LOG, (VARIANTS,),
          (NODES, RELEASE, PRUNE, WINDOW)),
)
