"""[Du2024] §6-7: node stealing for failed jobs (SFSJ and the 18 variants Hxyz) against conservative
backfilling (Baseline): Tables 3-5 and 7-10, Figs. 1 and 3-13 (§6.2: Figs. 9-11), Figs. 19-21.

Every sentence of §6 and §7.3 that says something measurable is a claim, with §2's reading of
Fig. 1, Table 3 of §5.2 and the two numbers §9 quotes; the reproduction pages
(docs/reproduce-node-stealing.md, and docs/du2024.md for Baseline's half) explain the settings and
the differences.

**The Mira and Intrepid logs are not available here.** §6.1, §6.2 and §7 run on synthetic months
matched to what the paper publishes of them (Tables 2-3: :mod:`coschedule.sim.synthetic`), so
every claim on those logs is "not comparable": ours is computed on the stand-in and shown, with
whether the paper's statement holds on it ("holds on the stand-in"). The workload of §6.3
(Table 6) is fully specified by the paper and drawn as it says: its claims get verdicts, as do the
numbers that follow from the model alone (§2's node MTBF, §6.1's Young/Daly period).

Baseline is the policy ``conservative``, SFSJ ``sfsj`` (= ``h111``). A mean over the failure
seeds comes with its 95 % Student-t interval; SFSJ and Baseline are compared seed by seed (the two
runs of a seed share its failure trace), a ratio being SFSJ's over Baseline's. The Baseline half
reads ``du2024-stealing`` (its Baseline runs are ``du2024-baseline``'s, the same cells).

The package has one module per concept: :mod:`.common` (the campaigns, months and notes, the helpers
reading the rows and formatting them), :mod:`.baseline` (§2, §5.2 and §6.1 up to §6.1.1: Fig. 1,
Tables 3-5, Fig. 3), :mod:`.flows` (§6.1.2 and §9: Figs. 4-8), :mod:`.sweep` (§6.2: Figs. 9-11),
:mod:`.synthetic` (§6.3: Table 7, Figs. 12-13), :mod:`.variants` (§7.3: Tables 8-10, Figs. 19-21)
and :mod:`.figures`; this module assembles ``CLAIMS`` and ``FIGURES`` and defines ``PAPER``.
"""

from __future__ import annotations

from coschedule.reproduce.paper import Paper

from . import baseline, flows, sweep, synthetic, variants
from .common import CAMPAIGNS
from .figures import FIGURES

__all__ = ["CLAIMS", "FIGURES", "PAPER"]

#: the claims of §2, §5.2 and §6.1 up to §6.1.1, §6.1.2 and §9, §6.2, §6.3 and §7.3
CLAIMS = baseline.CLAIMS + flows.CLAIMS + sweep.CLAIMS + synthetic.CLAIMS + variants.CLAIMS

PAPER = Paper(
    key="du2024",
    cite="[Du2024]",
    title="Improving Batch Schedulers with Node Stealing for Failed Jobs",
    section="§6-7",
    doc="reproduce-node-stealing",
    campaigns=tuple(CAMPAIGNS.values()),
    figures=FIGURES,
    claims=CLAIMS,
    full_wall="about 9 min (measured: 9 min 06 s)",
    quick_note="2 failure seeds instead of 5 on the three months of §6.1; the synthetic workload of §6.3 in full; "
               "the sweep of §6.2 on June 2017 only, 1 seed, MTBF 1 h, 2 h and 10 h, downtime 10 min and 1 day; the "
               "variants of §7.3 on June 2017 only, 2 seeds, Baseline and 6 of the 18 (the 111, 112, 113, 121, 211 "
               "and 311 of Figs. 19-21)",
)
