"""``coschedule torus``: the BlueGene/L-style 3-D torus of [Oliner2004] -- its partitions, its
maximal free partition, its simulation.

One subcommand per function of :data:`SUBCOMMANDS` (each adds its parser to the family's
subparsers; a new subcommand is one more function there):

* ``mfp``, ``free`` (:mod:`.partitions`): the maximal free partition, every free partition of a
  size, of an occupancy file;
* ``simulate`` (:mod:`.simulate`): one run of a torus scheduler on a job log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..common import Formatter, OneLineErrorParser
from .partitions import (
    METHODS,
    cmd_torus_free,
    cmd_torus_mfp,
    register_free,
    register_mfp,
    torus_dims,
)
from .simulate import cmd_torus_simulate, register_simulate

__all__ = ["METHODS", "SUBCOMMANDS", "cmd_torus_free", "cmd_torus_mfp", "cmd_torus_simulate", "register",
           "torus_dims"]

#: where this family stands in ``coschedule --help`` (the CLI discovers its families)
HELP_ORDER = 70

#: the subcommands of ``coschedule torus``, in the order of its --help
SUBCOMMANDS: list[Callable[[Any], None]] = [register_mfp, register_free, register_simulate]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "torus", formatter_class=Formatter,
        help="the BlueGene/L torus: partitions, MFP, simulation",
        description="The 3-D torus of BlueGene/L ([Oliner2004]): jobs run on contiguous rectangular "
        "partitions (boxes, wrap-around allowed) of an X x Y x Z torus of nodes. The model, the "
        "finders, the occupancy file format and the commands: `coschedule docs torus`.",
        epilog="examples:\n"
        "  coschedule torus mfp --occupied torus/example-8x8x8.txt\n"
        "  coschedule torus free --occupied torus/example-8x8x8.txt --size 128\n"
        "  coschedule torus simulate NASA-iPSC-1993-3.1-cln --policy balancing --confidence 0.1 --failure-count 4000\n"
        "(each subcommand has --help)\n",
    )
    tsub = p.add_subparsers(dest="torus_command", required=True, metavar="SUBCOMMAND",
                            parser_class=OneLineErrorParser)
    for add in SUBCOMMANDS:
        add(tsub)

