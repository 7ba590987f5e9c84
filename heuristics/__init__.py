"""Polynomial algorithms and online policies, one module per family.

Co-scheduling in packs (``coscheduling-redistribution.md`` §1.4): :func:`optimal_1_pack`
(Alg. 1), :func:`make_pack` (Alg. 2), :func:`pack_approx` (Alg. 3).
"""

from .packs import HEURISTICS, get_heuristic, make_pack, optimal_1_pack, pack_approx

__all__ = ["optimal_1_pack", "make_pack", "pack_approx", "HEURISTICS", "get_heuristic"]
