"""Benchmarks behind ``coschedule bench`` (measurements, not tests), one module per workload family.

* :mod:`.kinp` -- ``kinp``: the paper's ILP (1.12) against the default exact method, and the
  2-in-p matching, on eq. (1.13) instances;
* :mod:`.rigid` -- ``rlist``: the resilient rigid heuristics compiled against the reference, and
  the authors' simulator (:mod:`.baseline`) on the same scenarios;
* :mod:`.campaign` -- ``campaign``: a whole rigid-jobs campaign, and the authors' simulator on its
  cells;
* :mod:`.batch` -- ``batch``: the batch simulator's time and memory on a Mira-like month, LANL-CM5
  and KTH-SP2, with AccaSim side by side;
* :mod:`.torus` -- ``torus``: the torus finders and schedulers on BlueGene/L-sized machines;
* :mod:`.redistrib` -- ``redistrib``: the pack simulator with redistribution;
* :mod:`.baseline` -- the authors' C++ simulator of [Benoit2021], run side by side with ours;
* :mod:`.common` -- what they share.

Every number these benchmarks print is measured by them; a comparison they cannot make is
printed as "not measured" (:data:`NOT_MEASURED`), never estimated.
"""

from .campaign import CampaignBaseline, CampaignBench, bench_campaign
from .common import NOT_MEASURED
from .kinp import KINP_SIZES, MATCHING_SIZES, KinpRow, MatchingRow, bench_kinp, bench_matching
from .rigid import RLIST_HEURISTICS, RlistRow, bench_rlist

__all__ = [
    "KINP_SIZES",
    "MATCHING_SIZES",
    "NOT_MEASURED",
    "RLIST_HEURISTICS",
    "CampaignBaseline",
    "CampaignBench",
    "KinpRow",
    "MatchingRow",
    "RlistRow",
    "bench_campaign",
    "bench_kinp",
    "bench_matching",
    "bench_rlist",
]
