"""The BlueGene/L-style 3-D torus ([Oliner2004]; ARCHITECTURE.md, "Online simulation"): its
geometry (:mod:`.geometry`: partitions as boxes with wrap-around), the free partitions of a size
and the maximal free partition (:mod:`.finder`, three implementations that agree, and a variant),
occupancy files (:mod:`.occupancy`).

>>> import numpy as np
>>> from coschedule.torus import free_partitions, max_free_partition
>>> occ = np.zeros((4, 4, 8), dtype=bool); occ[0, 0, :4] = True
>>> max_free_partition(occ).size
96
>>> [b.label() for b in free_partitions(occ, 64)]
['(1,0,0)+2x4x8', '(2,0,0)+2x4x8', '(0,1,0)+4x2x8', '(0,2,0)+4x2x8', '(0,0,4)+4x4x4']
"""

from .finder import FINDERS, free_partitions, max_free_partition
from .geometry import (
    EMPTY_BOX,
    Box,
    Dims,
    box_from_nodes,
    box_shapes,
    box_size_at_least,
    box_sizes,
    check_dims,
    check_occupancy,
    format_dims,
    parse_dims,
)
from .occupancy import (
    format_occupancy,
    parse_occupancy,
    random_occupancy,
    read_occupancy,
    write_occupancy,
)

__all__ = [
    "EMPTY_BOX",
    "FINDERS",
    "Box",
    "Dims",
    "box_from_nodes",
    "box_shapes",
    "box_size_at_least",
    "box_sizes",
    "check_dims",
    "check_occupancy",
    "format_dims",
    "format_occupancy",
    "free_partitions",
    "max_free_partition",
    "parse_dims",
    "parse_occupancy",
    "random_occupancy",
    "read_occupancy",
    "write_occupancy",
]
