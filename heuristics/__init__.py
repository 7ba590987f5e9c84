"""Polynomial algorithms and online policies, one module per family.

Co-scheduling in packs ([Aupy2017] §1.4): :func:`optimal_1_pack`
(Alg. 1), :func:`make_pack` (Alg. 2), :func:`pack_approx` (Alg. 3).
"""

from .packs import HEURISTICS, get_heuristic, make_pack, optimal_1_pack, pack_approx

__all__ = ["optimal_1_pack", "make_pack", "pack_approx", "HEURISTICS", "get_heuristic"]

# Resilient rigid jobs ([Benoit2021] §4): :func:`r_list` (Alg. 1), :func:`r_shelf`
# (Alg. 2), :func:`r_shelf_fill` (Alg. 3) and the registry of their seven §5.1 variants.
from .rlist import r_list
from .rshelf import RIGID_HEURISTICS, get_rigid_heuristic, r_shelf, r_shelf_fill

__all__ += ["RIGID_HEURISTICS", "get_rigid_heuristic", "r_list", "r_shelf", "r_shelf_fill"]
