"""[Aupy2017] §1.5.5: redistribution of processors in a pack of malleable applications, Figs. 1.4-1.7.

Every sentence of §1.5.5 that says something measurable is a claim; the reproduction page
(docs/reproduce-redistribution.md) explains the settings and the differences. A *gain* is
``1 - makespan / faulty makespan`` of the same pack and failures (the paper's normalisation),
averaged over the runs with a 95 % Student-t interval; an *ordering* of two variants is the
paired difference of their normalised makespans, significant when its interval excludes 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from coschedule.reproduce.claims import AtLeast, AtMost, Claim, Holds, Measured, Near, NotComparable
from coschedule.reproduce.paper import Campaign, Figure, Paper
from coschedule.reproduce.results import Results

FIG14, FIG15 = "redistribution-fig14", "redistribution-fig15"
FIG16, FIG17 = "redistribution-fig16", "redistribution-fig17"
BASES = "redistribution-fig15-baselines"
HETERO = "redistribution-fig14-heterogeneous"
COMBOS = ("local+saf", "local+iterated", "greedy+saf", "greedy+iterated")
NAMES = {"local+saf": "EndLocal+SAF", "local+iterated": "EndLocal+IG", "greedy+saf": "EndGreedy+SAF",
         "greedy+iterated": "EndGreedy+IG", "fault-free-local": "EndLocal", "fault-free-greedy": "EndGreedy",
         "fault-free-none": "fault-free, none", "faulty": "faulty"}
C_UNIT = "c = 1 s per data unit"
BASELINE = "gains against the faulty run without redistribution (§1.5.5)"
REALISED = "failures cost their real loss (the simulated execution), not the expected one"


# ------------------------------------------------------------------ reading the groups

def _groups(r: Results, campaign: str, variant: str) -> list[Any]:
    """The groups of ``variant`` in ``campaign``, in the order of their point."""
    return [g for g in r.groups(campaign) if g.variant == variant]


def _by(r: Results, campaign: str, variant: str, axis: str) -> dict[float, Any]:
    """``variant``'s group at each value of ``axis`` (the campaign's one varying axis)."""
    return {getattr(g, axis): g for g in _groups(r, campaign, variant)}


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _pm(mu: float, half: float) -> str:
    return f"{100 * mu:.1f} ± {100 * half:.1f} %"


def _span(values: Iterable[float]) -> str:
    v = sorted(values)
    return f"{100 * v[0]:.0f}-{100 * v[-1]:.0f} %" if len(v) > 1 else _pct(v[0])


def _diff(g: Any, other: str) -> tuple[float, float]:
    """The paired difference ``ratio(g) - ratio(other)`` of the same runs (mean, half-width)."""
    return g.stats[f"minus {other}"]


def _sign(mu: float, half: float) -> int:
    """-1 (significantly below 0), +1 (above), 0 (the interval holds 0)."""
    return -1 if mu + half < 0 else 1 if mu - half > 0 else 0


# ------------------------------------------------------------------ Fig. 1.4

def _ff_gain_small_p(r: Results) -> Measured:
    gains = [(v, p, g.mean("gain"), g.ci("gain")) for v in ("fault-free-local", "fault-free-greedy")
             for p, g in _by(r, FIG14, v, "p").items() if p < 4000]
    v, p, mu, half = min(gains, key=lambda x: x[2])
    return Measured(f"{_span(x[2] for x in gains)} (p < 4,000); least {_pm(mu, half)} ({NAMES[v]}, p = {p:,})",
                    value=mu, half=half)


def _ff_similar(r: Results) -> Measured:
    local, greedy = _by(r, FIG14, "fault-free-local", "p"), _by(r, FIG14, "fault-free-greedy", "p")
    gaps = {p: abs(greedy[p].mean("gain") - local[p].mean("gain")) for p in local}
    p = max(gaps, key=gaps.__getitem__)
    return Measured(f"EndGreedy and EndLocal within {100 * gaps[p]:.1f} points at every p (largest at p = {p:,})",
                    value=gaps[p])


def _ff_greedy_better(r: Results) -> Measured:
    local, greedy = _by(r, FIG14, "fault-free-local", "p"), _by(r, FIG14, "fault-free-greedy", "p")
    better = [p for p in local if greedy[p].mean("gain") > local[p].mean("gain") + 1e-12]
    text = (f"EndGreedy's gain above EndLocal's at {len(better)} of {len(local)} values of p"
            + (f" ({', '.join(f'{p:,}' for p in better)})" if better else ""))
    return Measured(text, holds=True if len(better) == len(local) else None if better else False)


def _ff_converge(r: Results) -> Measured:
    top = max(g.p for g in _groups(r, FIG14, "fault-free-local"))
    left = {v: _by(r, FIG14, v, "p")[top].mean("vs_free") - 1.0 for v in ("fault-free-local", "fault-free-greedy")}
    text = (f"at p = {top:,}, against the fault-free run without redistribution: "
            + ", ".join(f"{NAMES[v]} {100 * (-x):+.1f} % gain" for v, x in left.items()))
    near = [abs(x) <= 0.05 for x in left.values()]
    return Measured(text, holds=True if all(near) else None if any(near) else False)


def _np_ratio(r: Results) -> Measured:
    local = _by(r, FIG14, "fault-free-local", "p")
    ps = sorted(local)
    gains = [local[p].mean("gain") for p in ps]
    down = gains[0] > gains[-1]
    return Measured(f"EndLocal's gain {_pct(gains[0])} at p = {ps[0]:,}, {_pct(gains[-1])} at p = {ps[-1]:,} "
                    "(n = 1,000)", holds=down)


def _hetero(r: Results) -> Measured:
    het, hom = _by(r, HETERO, "fault-free-greedy", "p"), _by(r, FIG14, "fault-free-greedy", "p")
    common = sorted(set(het) & set(hom))
    larger = [p for p in common if het[p].mean("vs_free") < hom[p].mean("vs_free")]
    text = ("EndGreedy's gain over the fault-free run without redistribution, m_inf = 1,500 against 1.5e6: "
            + ", ".join(f"p = {p:,}: {_pct(1 - het[p].mean('vs_free'))} vs {_pct(1 - hom[p].mean('vs_free'))}"
                        for p in common))
    return Measured(text, holds=True if len(larger) == len(common) else None if larger else False)


# ------------------------------------------------------------------ Fig. 1.5

def _more_apps(r: Results) -> Measured:
    rises = {}
    for v in COMBOS:
        by = _by(r, FIG15, v, "n")
        lo, hi = min(by), max(by)
        rises[v] = (by[lo].mean("gain"), by[hi].mean("gain"), lo, hi)
    lo, hi = next(iter(rises.values()))[2:]
    up = [v for v, (a, b, _, _) in rises.items() if b > a]
    return Measured(f"gain at n = {lo:,} -> n = {hi:,}: " + ", ".join(
        f"{NAMES[v]} {_pct(a)} -> {_pct(b)}" for v, (a, b, _, _) in rises.items()),
        holds=True if len(up) == len(COMBOS) else None if up else False)


def _gain_1000(r: Results) -> Measured:
    gs = [(v, _by(r, FIG15, v, "n")[1000]) for v in COMBOS]
    v, g = min(gs, key=lambda x: x[1].mean("gain"))
    return Measured(f"{_span(g.mean('gain') for _, g in gs)} for the four combinations at n = 1,000; least "
                    f"{_pm(g.mean('gain'), g.ci('gain'))} ({NAMES[v]})", value=g.mean("gain"), half=g.ci("gain"))


def _ordering(campaign: str, axis: str, a_of: Callable[[str], tuple[str, str]], ends: tuple[str, ...],
              want: int, keep: Callable[[float], bool] = lambda _: True) -> Callable[[Results], Measured]:
    """A claim that variant ``a`` is better (``want = -1``: its normalised makespan lower) than
    ``b`` at every value of ``axis`` kept, for each pair ``a_of(end)``: holds at every point,
    in part at some, not at all."""

    def compute(r: Results) -> Measured:
        seen, good, words = 0, 0, []
        for end in ends:
            a, b = a_of(end)
            signs = {x: _sign(*_diff(g, b)) for x, g in _by(r, campaign, a, axis).items() if keep(x)}
            hits = [x for x, s in signs.items() if s == want]
            seen, good = seen + len(signs), good + len(hits)
            words.append(f"{NAMES[a]} vs {NAMES[b]}: significantly {'better' if want < 0 else 'worse'} at "
                         f"{len(hits)} of {len(signs)} {axis} values")
        return Measured("; ".join(words), holds=True if good == seen else None if good else False)

    return compute


def _ig_vs_saf(end: str) -> tuple[str, str]:
    return f"{end}+iterated", f"{end}+saf"


def _greedy_vs_local(kind: str) -> tuple[str, str]:
    return f"greedy+{kind}", f"local+{kind}"


def _ig_no_better_with_greedy(r: Results) -> Measured:
    signs = {n: _sign(*_diff(g, "local+iterated")) for n, g in _by(r, FIG15, "greedy+iterated", "n").items()}
    better = [n for n, s in signs.items() if s < 0]
    return Measured(f"EndGreedy+IG significantly better than EndLocal+IG at {len(better)} of {len(signs)} values of "
                    "n", holds=not better)


# ------------------------------------------------------------------ Fig. 1.6

def _mtbf_worse(r: Results) -> Measured:
    words, worse = [], []
    for v in COMBOS:
        by = _by(r, FIG16, v, "mtbf_years")
        lo, hi = min(by), max(by)
        worse.append(by[lo].mean("makespan") > by[hi].mean("makespan"))
        words.append(f"{NAMES[v]} {by[hi].mean('makespan') / 86400:.0f} -> {by[lo].mean('makespan') / 86400:.0f} d")
    return Measured(f"mean makespan from MTBF {hi:g} to {lo:g} years: " + ", ".join(words),
                    holds=True if all(worse) else None if any(worse) else False)


def _ig_worse_than_none(r: Results) -> Measured:
    hits = []
    for v in ("local+iterated", "greedy+iterated"):
        for m, g in _by(r, FIG16, v, "mtbf_years").items():
            if g.mean("ratio") - g.ci("ratio") > 1.0:
                hits.append(f"{NAMES[v]} {g.mean('ratio'):.2f} at {m:g} years")
    return Measured("normalised makespan significantly above 1: " + (", ".join(hits) if hits else "nowhere"),
                    holds=bool(hits))


# ------------------------------------------------------------------ Fig. 1.7

def _c_better(r: Results) -> Measured:
    words, ok = [], []
    for v in COMBOS:
        by = _by(r, FIG17, v, "c")
        lo, hi = min(by), max(by)
        ok.append(by[lo].mean("makespan") < by[hi].mean("makespan"))
        words.append(f"{NAMES[v]} {by[hi].mean('makespan') / 86400:.0f} -> {by[lo].mean('makespan') / 86400:.0f} d")
    return Measured(f"mean makespan from c = {hi:g} to {lo:g}: " + ", ".join(words),
                    holds=True if all(ok) else None if any(ok) else False)


def _c_gap(r: Results) -> Measured:
    by = _by(r, FIG17, "fault-free-greedy", "c")
    cs = sorted(by)
    ratios = [by[c].mean("ratio") for c in cs]
    return Measured("fault-free EndGreedy over the faulty run: " + ", ".join(
        f"{x:.2f} at c = {c:g}" for c, x in zip(cs, ratios, strict=True)), holds=ratios[0] > ratios[-1])


# ------------------------------------------------------------------ settings and cost

def _longest_fault_free(r: Results) -> Measured:
    g = _by(r, BASES, "fault-free-none", "n")[100]
    days = g.mean("makespan") / 86400
    return Measured(f"{days:.1f} ± {g.ci('makespan') / 86400:.1f} days (n = 100, p = 5,000, fault-free, no "
                    "redistribution)", value=days, half=g.ci("makespan") / 86400)


def _seconds(r: Results) -> Measured:
    worst = max(((g.mean("seconds"), g.variant, g.n, g.p) for c in (FIG14, FIG15, FIG16, FIG17)
                 for g in r.groups(c)), key=lambda x: x[0])
    return Measured(f"{worst[0]:.2f} s per run at most on average ({NAMES.get(worst[1], worst[1])}, n = {worst[2]:,}, "
                    f"p = {worst[3]:,})", value=worst[0])


# ------------------------------------------------------------------ figures

def _figure(campaign: str, title: str) -> Callable[[Results], Any]:
    def draw(r: Results) -> Any:
        from coschedule.campaign.simulators.redistrib.report import redistrib_figure

        return redistrib_figure(r.rows(campaign), title=title)

    return draw


FIGURES = (
    Figure("fig1-4", "Fig. 1.4: redistribution in a fault-free context (n = 1,000, p = 2,000 to 10,000)", (FIG14,),
           _figure(FIG14, "Fig. 1.4: fault-free redistribution, n = 1,000")),
    Figure("fig1-5", "Fig. 1.5: impact of n with p = 5,000", (FIG15,),
           _figure(FIG15, "Fig. 1.5: impact of n, p = 5,000")),
    Figure("fig1-6", "Fig. 1.6: impact of the MTBF with n = 100, p = 5,000", (FIG16,),
           _figure(FIG16, "Fig. 1.6: impact of the MTBF, n = 100, p = 5,000")),
    Figure("fig1-7", "Fig. 1.7: impact of the checkpointing cost c (n = 100, p = 1,000)", (FIG17,),
           _figure(FIG17, "Fig. 1.7: impact of c, n = 100, p = 1,000")),
)

CLAIMS = (
    Claim("settings-longest-100-days", "§1.5.4", "with m_sup = 2.5e6, the longest fault-free execution time is "
          "around 100 days", "about 100 days", _longest_fault_free, Near(100.0, match=0.25, close=0.5, relative=True),
          (BASES,), ("p = 5,000 for 100 applications (Fig. 1.5's smallest n)",), stable=True),
    Claim("fig1-4-gain-20", "§1.5.5, Fig. 1.4", "fault-free, both heuristics gain more than 20 % with less than "
          "4,000 processors", "> 20 %", _ff_gain_small_p, AtLeast(0.20, close=0.05), (FIG14,), (BASELINE,),
          figure="fig1-4", stable=True),
    Claim("fig1-4-similar", "§1.5.5, Fig. 1.4", "the two heuristics (EndLocal, EndGreedy) have a very similar "
          "behavior", "very similar", _ff_similar, AtMost(0.03, close=0.05), (FIG14,), (BASELINE,), figure="fig1-4",
          stable=True),
    Claim("fig1-4-greedy-better", "§1.5.5, Fig. 1.4", "a slightly better gain for the EndGreedy global heuristic",
          "EndGreedy slightly better", _ff_greedy_better, Holds("EndGreedy's gain above EndLocal's at every p"),
          (FIG14,), (BASELINE,), figure="fig1-4"),
    Claim("fig1-4-converge", "§1.5.5, Fig. 1.4", "when p increases, both heuristics converge to the performance "
          "without redistribution", "converge", _ff_converge,
          Holds("at the largest p, within 5 % of the fault-free run without redistribution"), (FIG14,),
          ("the fault-free run without redistribution as the reference",), figure="fig1-4"),
    Claim("fig1-4-heterogeneous", "§1.5.5, Fig. 1.4 (results in [2])", "in the heterogeneous context (m_inf = "
          "1,500), the gain due to redistribution is even larger", "larger gain", _hetero,
          Holds("EndGreedy gains more over the fault-free run without redistribution with m_inf = 1,500, at "
                "every p"), (HETERO, FIG14), ("gains against the fault-free run without redistribution, so that "
                                              "the failures do not enter",)),
    Claim("fig1-5-more-apps", "§1.5.5, Fig. 1.5", "having more applications increases the efficiency of both "
          "heuristics", "gain grows with n", _more_apps, Holds("each combination gains more at the largest n than "
                                                               "at the smallest"), (FIG15,), (BASELINE, C_UNIT),
          figure="fig1-5", stable=True),
    Claim("fig1-5-gain-40", "§1.5.5, Fig. 1.5", "with n = 1000, we obtain a gain of more than 40 % due to "
          "redistributions", "> 40 %", _gain_1000, AtLeast(0.40, close=0.05), (FIG15,), (BASELINE, C_UNIT, REALISED),
          figure="fig1-5", stable=True),
    Claim("fig1-5-ig-better-saf", "§1.5.5, Fig. 1.5 and Summary", "as expected, IteratedGreedy is better than "
          "ShortestApplicationsFirst", "IG better", _ordering(FIG15, "n", _ig_vs_saf, ("local", "greedy"), -1),
          Holds("IG's normalised makespan significantly below SAF's at every n, with either end heuristic"), (FIG15,),
          (C_UNIT, REALISED), figure="fig1-5"),
    Claim("fig1-5-greedy-helps-saf", "§1.5.5, Fig. 1.5", "EndGreedy is useful with ShortestApplicationsFirst",
          "EndGreedy+SAF better than EndLocal+SAF", _ordering(FIG15, "n", _greedy_vs_local, ("saf",), -1),
          Holds("EndGreedy+SAF significantly better than EndLocal+SAF at every n"), (FIG15,), (C_UNIT,),
          figure="fig1-5"),
    Claim("fig1-5-greedy-not-ig", "§1.5.5, Fig. 1.5", "using EndGreedy with IteratedGreedy does not improve the "
          "performance", "no improvement", _ig_no_better_with_greedy,
          Holds("EndGreedy+IG never significantly better than EndLocal+IG"), (FIG15,), (C_UNIT,), figure="fig1-5",
          stable=True),
    Claim("fig1-6-mtbf-worse", "§1.5.5, Fig. 1.6", "when the MTBF decreases, the performance of both heuristics "
          "decreases", "worse at small MTBF", _mtbf_worse,
          Holds("each combination's mean makespan longer at the smallest MTBF than at the largest"), (FIG16,),
          ("the makespan in days, not the normalised one (the faulty run grows too)",), figure="fig1-6", stable=True),
    Claim("fig1-6-ig-worse-than-none", "§1.5.5, Fig. 1.6", "at a small MTBF IteratedGreedy becomes even worse "
          "than without redistribution", "ratio > 1", _ig_worse_than_none,
          Holds("some IG combination's normalised makespan significantly above 1"), (FIG16,), (C_UNIT, REALISED),
          figure="fig1-6", stable=True),
    Claim("summary-saf-better-low-mtbf", "§1.5.5, Summary (Fig. 1.6)", "when the MTBF is low (around 10 years or "
          "less), ShortestApplicationsFirst becomes better than IteratedGreedy", "SAF better at <= 10 years",
          _ordering(FIG16, "mtbf_years", _ig_vs_saf, ("local", "greedy"), +1, keep=lambda m: m <= 10),
          Holds("IG's normalised makespan significantly above SAF's at every MTBF <= 10 years, with either end "
                "heuristic"), (FIG16,), (C_UNIT, REALISED), figure="fig1-6"),
    Claim("fig1-7-c-better", "§1.5.5, Fig. 1.7", "when c decreases, the performance of the heuristics increases",
          "better at small c", _c_better, Holds("each combination's mean makespan shorter at the smallest c than at "
                                                "the largest"), (FIG17,),
          ("the makespan in days (the normalised one is read against a faulty run that shrinks too)",),
          figure="fig1-7", stable=True),
    Claim("fig1-7-gap-small", "§1.5.5, Fig. 1.7", "when c decreases, the gap between the execution time in a "
          "fault-free context and a fault context becomes small", "gap narrows", _c_gap,
          Holds("the fault-free run's normalised makespan closer to 1 at the smallest c than at the largest"),
          (FIG17,), (C_UNIT,), figure="fig1-7", stable=True),
    Claim("summary-f", "§1.5.5 (results in [2])", "when applications are more parallel (smaller f), the "
          "redistribution is more efficient", "more efficient", lambda r: Measured("not computed: one f per campaign"),
          NotComparable("the sweep of f, whose numbers are in the report RR-8795 [2], not in the chapter",
                        "none: every campaign fixes f = 0.08, as §1.5.4 does"), (FIG15,)),
    Claim("summary-seconds", "§1.5.5, Summary", "all four heuristics run within a few seconds", "a few seconds",
          _seconds, AtMost(5.0, close=10.0), (FIG14, FIG15, FIG16, FIG17),
          ("one whole simulated run, every event and decision, on one core",), stable=True),
)

PAPER = Paper(
    key="aupy2017",
    cite="[Aupy2017]",
    title="Co-Scheduling High-Performance Computing Applications: redistribution under failures",
    section="§1.5",
    doc="reproduce-redistribution",
    campaigns=(
        Campaign(FIG14, {"runs": 3, "p": [2000, 3000, 10000]}),
        Campaign(HETERO, {"runs": 3, "p": [2000]}),
        Campaign(FIG15, {"runs": 3, "n": [100, 1000]}),
        Campaign(BASES, {"runs": 4, "n": [100], "variants": ["faulty", "fault-free-none"]}),
        Campaign(FIG16, {"runs": 4, "mtbf_years": [5, 10, 125]}),
        Campaign(FIG17, {"runs": 4, "c": [0.1, 1, 4]}),
    ),
    figures=FIGURES,
    claims=CLAIMS,
    full_wall="about 9 min (measured: 9 min 15 s)",
    quick_note="3 or 4 runs per point instead of 50, and 1 to 3 points per figure",
)
