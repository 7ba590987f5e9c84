"""``coschedule torus mfp`` and ``coschedule torus free``: the partitions of the BlueGene/L-style
3-D torus of [Oliner2004].

* ``mfp``: read an occupancy file (:func:`coschedule.torus.read_occupancy`), print the maximal
  free partition (:func:`coschedule.torus.max_free_partition`): its box, size and nodes;
* ``free``: the same file, every free partition of a size
  (:func:`coschedule.torus.free_partitions`).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from coschedule.errors import CoscheduleError

from ..common import Formatter, emit_json, positive_int

if TYPE_CHECKING:  # numpy: imported by the commands, not to build the parser
    import numpy as np

    from coschedule.torus import Box, Dims

__all__ = ["METHODS", "cmd_torus_free", "cmd_torus_mfp", "register_free", "register_mfp", "torus_dims"]

#: the finders of :data:`coschedule.torus.FINDERS`, in the order --help lists them (default first)
METHODS = ("fast", "appendix-early", "appendix", "naive")


def torus_dims(text: str) -> Dims:
    """``--shape XxYxZ`` (an argparse type: a bad shape is a one-line usage error)."""
    from coschedule.torus import parse_dims

    try:
        return parse_dims(text)
    except CoscheduleError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _read(args: argparse.Namespace) -> np.ndarray:
    """The occupancy of ``--occupied`` (a file, or one bundled under instances/), of ``--shape``
    when given."""
    from coschedule.torus import read_occupancy

    from ..common import input_path

    return read_occupancy(input_path(args.occupied), args.shape)


def _box_json(box: Box, dims: Dims) -> dict[str, Any]:
    from coschedule.sim.nodesets import format_nodes

    return {"label": box.label(), "base": list(box.base), "shape": list(box.shape),
            "size": box.size, "nodes": format_nodes(box.nodes(dims).tolist()) if box.size else ""}


def _torus_json(occ: np.ndarray, args: argparse.Namespace) -> dict[str, Any]:
    import numpy as np

    busy = int(np.count_nonzero(occ))
    return {"shape": list(occ.shape), "occupied_file": args.occupied, "n_nodes": int(occ.size),
            "busy": busy, "free_nodes": int(occ.size) - busy, "method": args.method}


def _torus_line(occ: np.ndarray, args: argparse.Namespace) -> str:
    import numpy as np

    from coschedule.torus import format_dims

    busy = int(np.count_nonzero(occ))
    return (f"torus {format_dims(occ.shape)}: {occ.size} nodes, {busy} busy or down "
            f"({args.occupied}), {occ.size - busy} free")


def cmd_torus_mfp(args: argparse.Namespace) -> int:
    from coschedule.sim.nodesets import format_nodes
    from coschedule.torus import max_free_partition

    occ = _read(args)
    mfp = max_free_partition(occ, method=args.method)
    dims: Dims = occ.shape  # type: ignore[assignment]
    if args.json:
        emit_json({**_torus_json(occ, args), "mfp": _box_json(mfp, dims)})
        return 0
    print(_torus_line(occ, args))
    if mfp.size == 0:
        print("maximal free partition: none (every node is busy or down), 0 nodes")
        return 0
    print(f"maximal free partition: {mfp.label()}, {mfp.size} nodes")
    print(f"nodes {format_nodes(mfp.nodes(dims).tolist())}")
    return 0


def cmd_torus_free(args: argparse.Namespace) -> int:
    from coschedule.sim.nodesets import format_nodes
    from coschedule.torus import box_shapes, box_size_at_least, format_dims, free_partitions

    occ = _read(args)
    dims: Dims = occ.shape  # type: ignore[assignment]
    shapes = box_shapes(args.size, dims)
    boxes = free_partitions(occ, args.size, method=args.method)
    if args.json:
        emit_json({**_torus_json(occ, args), "size": args.size,
                   "box_shapes": [list(s) for s in shapes], "count": len(boxes),
                   "partitions": [_box_json(b, dims) for b in boxes]})
        return 0
    print(_torus_line(occ, args))
    if not shapes:
        above = box_size_at_least(args.size, dims)
        hint = (f"the smallest size above with one: {above}" if above is not None
                else f"the torus has {occ.size} nodes")
        print(f"free partitions of {args.size} nodes: none (no box of {args.size} nodes fits the "
              f"{format_dims(dims)} torus; {hint})")
        return 0
    listed = ", ".join(format_dims(s) for s in shapes)
    print(f"free partitions of {args.size} nodes: {len(boxes)} (shapes {listed})")
    for b in boxes:
        print(f"{b.label()}  {format_nodes(b.nodes(dims).tolist())}" if args.nodes else b.label())
    return 0


def _common_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--occupied", metavar="FILE", required=True,
                   help="the busy or down nodes: an occupancy file (`coschedule docs torus`: 'shape XxYxZ', then "
                   "i,j,k a line, ranges a-b allowed, or 'nodes 0-3 7'), or one bundled under instances/ "
                   "(torus/example-8x8x8.txt)")
    p.add_argument("--shape", type=torus_dims, default=None, metavar="XxYxZ",
                   help="the torus (default: the file's shape line; given both, they must agree)")
    p.add_argument("--method", choices=METHODS, default="fast",
                   help="the finder: fast (default), appendix-early (the appendix with an early stop), appendix "
                   "(the paper's Appendix as printed; slow), naive (every box of the torus; small tori only)")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def register_mfp(tsub: Any) -> None:
    p = tsub.add_parser(
        "mfp", formatter_class=Formatter,
        help="the maximal free partition of an occupancy",
        description="Print the maximal free partition (MFP) of a torus whose busy or down nodes a file "
        "lists: one largest contiguous rectangular box of free nodes, wrap-around allowed ([Oliner2004] "
        "§5.1), as base + shape (i,j,k)+XxYxZ, its size, its nodes (flat indices i*Y*Z + j*Z + k as an "
        "interval string, as in jobs.csv) and the number of free nodes. Several boxes may be largest: "
        "one is printed. `coschedule docs torus`.",
        epilog="examples:\n"
        "  coschedule torus mfp --occupied torus/example-8x8x8.txt\n"
        "  coschedule torus mfp --shape 8x8x8 --occupied torus/example-8x8x8.txt --json\n"
        "  coschedule torus mfp --occupied torus/example-8x8x8.txt --method appendix   # the paper's way\n",
    )
    _common_options(p)
    p.set_defaults(func=cmd_torus_mfp)


def register_free(tsub: Any) -> None:
    p = tsub.add_parser(
        "free", formatter_class=Formatter,
        help="every free partition of a size",
        description="List every free partition of SIZE nodes of a torus whose busy or down nodes a file "
        "lists: contiguous rectangular boxes of free nodes, wrap-around allowed, of every shape x*y*z = "
        "SIZE that fits ([Oliner2004] Appendix), each distinct set of nodes once (a box as wide as the "
        "torus in a dimension is based at 0 there), sorted by shape then base. `coschedule docs torus`.",
        epilog="examples:\n"
        "  coschedule torus free --occupied torus/example-8x8x8.txt --size 128\n"
        "  coschedule torus free --occupied torus/example-8x8x8.txt --size 192 --nodes\n"
        "  coschedule torus free --shape 8x8x8 --occupied torus/example-8x8x8.txt --size 64 --json\n",
    )
    _common_options(p)
    p.add_argument("--size", type=positive_int, required=True, metavar="S",
                   help="nodes per partition")
    p.add_argument("--nodes", action="store_true",
                   help="also print each partition's nodes (flat indices as an interval string)")
    p.set_defaults(func=cmd_torus_free)
