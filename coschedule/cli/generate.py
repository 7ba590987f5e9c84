"""``coschedule generate``: seeded instances (eq. (1.13) moldable tasks, random profiles, §5.1 rigid jobs)."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import CoscheduleError
from .common import Formatter, emit_json, nonnegative_int, positive_int

__all__ = ["cmd_generate", "register"]

#: where this family stands in ``coschedule --help`` (the CLI discovers its families)
HELP_ORDER = 20


def cmd_generate(args: argparse.Namespace) -> int:
    from ..generators import random_instance, synthetic_instance
    from ..io import instance_to_dict, save_json

    data: dict[str, Any]
    if args.model == "rigid":
        from ..generators import synthetic_rigid
        from ..io import rigid_instance_to_dict

        data = rigid_instance_to_dict(synthetic_rigid(args.n, args.P, seed=args.seed))
        data["name"] = f"rigid-n{args.n}-P{args.P}-seed{args.seed}"
        what = f"rigid instance (§5.1), n = {args.n}, P = {args.P}"
    else:
        if args.model == "synthetic":
            if not 1 < args.m_inf <= args.m_sup:
                raise CoscheduleError(f"need 1 < --m-inf <= --m-sup, got {args.m_inf}, {args.m_sup}")
            if not 0 <= args.f <= 1:
                raise CoscheduleError(f"--f must be in [0, 1], got {args.f}")
            inst = synthetic_instance(args.n, args.P, seed=args.seed, m_inf=args.m_inf, m_sup=args.m_sup, f=args.f)
        else:
            inst = random_instance(args.n, args.P, seed=args.seed, with_min_procs=args.min_procs, integral=args.integral)
        data = instance_to_dict(inst)
        data["name"] = f"{inst.name}-seed{args.seed}"
        what = f"{args.model} instance, n = {args.n}, p = {args.P}"
    if not args.output:
        emit_json(data)  # the instance itself is the output
    else:
        save_json(data, args.output)
        if args.json:
            emit_json({"output": args.output, "format": data["format"], "name": data["name"],
                       "model": args.model, "n": args.n, "P": args.P, "seed": args.seed})
        else:
            print(f"wrote {args.output}: {what}, seed {args.seed}")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "generate", formatter_class=Formatter,
        help="write a seeded synthetic instance (moldable or rigid)",
        description="Generate an instance: 'synthetic' follows eq. (1.13) (f = 0.08, "
        "m ~ U{m_inf..m_sup}); 'random' draws arbitrary profiles satisfying (1.1)-(1.2); 'rigid' "
        "draws the rigid jobs of the resilient rigid-jobs experiments (§5.1).",
        epilog="examples:\n"
        "  coschedule generate synthetic --n 20 --P 32 --seed 7 -o inst.json\n"
        "  coschedule generate random --n 8 --P 16 --seed 1 --min-procs > small.json\n"
        "  coschedule generate rigid --n 100 --P 10000 --seed 3 -o rigid.json\n"
        "(a day of an SWF trace as an instance: coschedule convert)\n",
    )
    p.add_argument("model", choices=["synthetic", "random", "rigid"],
                   help="synthetic: eq. (1.13) moldable tasks; random: random valid profiles; "
                   "rigid: rigid jobs of the resilient paper's §5.1 (procs U{50..2000}, times U[100, 20000])")
    p.add_argument("--n", type=positive_int, required=True, help="number of tasks")
    p.add_argument("--P", type=positive_int, required=True, help="number of processors (p in the k-in-p paper)")
    p.alias("--p", "--P")
    p.add_argument("--seed", type=nonnegative_int, default=0, help="random seed (default 0; same seed, same instance)")
    p.add_argument("--m-inf", type=int, default=1_500_000, help="synthetic: smallest problem size m (default 1500000)")
    p.add_argument("--m-sup", type=int, default=2_500_000, help="synthetic: largest problem size m (default 2500000)")
    p.add_argument("--f", type=float, default=0.08, help="synthetic: sequential fraction (default 0.08)")
    p.add_argument("--min-procs", action="store_true", help="random: draw minimum processor counts")
    p.add_argument("--integral", action="store_true", help="random: integer times")
    p.add_argument("-o", "--output", help="file to write (default: the instance on stdout)")
    p.add_argument("--json", action="store_true", help="with -o: a JSON summary of what was written")
    p.set_defaults(func=cmd_generate)
