"""Shared test helpers (importable thanks to ``tests/conftest.py``).

* hypothesis strategies drawing instances from :mod:`coschedule.generators`;
* :func:`fewer`, to lower the active profile's example count for slow properties;
* :func:`brute_force_one_pack`, an independent reference for the 1-pack problem (§1.4.2);
* :func:`package_doctests`, to run the doctests of a package and of each of its modules;
* :func:`cli_run` and :func:`cli_fails`, to run ``coschedule`` in-process and read what it
  printed, or the one line of a command that must fail with exit status 2.
"""

from __future__ import annotations

import doctest
import importlib
import itertools
import math
import pkgutil
from pathlib import Path
from types import ModuleType

from hypothesis import assume, settings
from hypothesis import strategies as st

from coschedule.errors import InvalidInstance
from coschedule.generators import random_instance, synthetic_instance
from coschedule.model import MoldableInstance
from coschedule.redistribution import MalleablePack

__all__ = [
    "brute_force_one_pack",
    "cli_fails",
    "cli_run",
    "fewer",
    "instances",
    "package_doctests",
    "random_instances",
    "seeds",
    "synthetic_instances",
]

#: seeds for the generators (numpy refuses negative seeds)
seeds = st.integers(min_value=0, max_value=2**63 - 1)


@st.composite
def random_instances(
    draw: st.DrawFn,
    *,
    n: tuple[int, int] = (1, 8),
    p: tuple[int, int] = (1, 8),
    with_min_procs: bool | None = None,
    integral: bool | None = None,
) -> MoldableInstance:
    """Instances of :func:`coschedule.generators.random_instance`.

    ``with_min_procs`` and ``integral`` are drawn when ``None``.
    """
    nn = draw(st.integers(*n))
    pp = draw(st.integers(*p))
    mp = draw(st.booleans()) if with_min_procs is None else with_min_procs
    ig = draw(st.booleans()) if integral is None else integral
    return random_instance(nn, pp, seed=draw(seeds), with_min_procs=mp, integral=ig)


@st.composite
def synthetic_instances(
    draw: st.DrawFn, *, n: tuple[int, int] = (1, 8), p: tuple[int, int] = (1, 8)
) -> MoldableInstance:
    """Instances of the eq. (1.13) model, :func:`coschedule.generators.synthetic_instance`."""
    return synthetic_instance(draw(st.integers(*n)), draw(st.integers(*p)), seed=draw(seeds))


def instances(*, n: tuple[int, int] = (1, 8), p: tuple[int, int] = (1, 8)) -> st.SearchStrategy:
    """Random or synthetic instances."""
    return st.one_of(random_instances(n=n, p=p), synthetic_instances(n=n, p=p))


@st.composite
def small_packs(draw: st.DrawFn, n: tuple[int, int] = (1, 3), p: tuple[int, int] = (2, 8)) -> MalleablePack:
    """Small malleable packs for the exact references: random profiles (integral ones tie
    often, some with minimum counts) or eq. (1.13), with ``p >= 2 n``."""
    nn = draw(st.integers(*n))
    pp = draw(st.integers(max(p[0], 2 * nn), max(p[1], 2 * nn)))
    seed = draw(seeds)
    kind = draw(st.sampled_from(["random", "integral", "min_procs", "synthetic"]))
    if kind == "synthetic":
        return MalleablePack.synthetic(nn, pp, seed=seed, m_inf=10, m_sup=1000)
    inst = random_instance(nn, pp, seed=seed, integral=kind == "integral", with_min_procs=kind == "min_procs")
    try:
        return MalleablePack.from_instance(inst)
    except InvalidInstance:  # the minima, rounded up to even, do not fit
        assume(False)
        raise


def fewer(fraction: float) -> settings:
    """Settings that run ``fraction`` of the active profile's examples (for slow properties).

    Only ever lowers ``max_examples``, so the ``ci`` / ``thorough`` choice is respected.
    """
    current = settings.default
    return settings(max_examples=max(5, int(current.max_examples * fraction)))


def brute_force_one_pack(inst: MoldableInstance, tasks: list[int]) -> float:
    """Cost of the best 1-pack schedule of ``tasks``, by trying every allocation.

    Minimum over all ``sigma`` with ``min_procs(i) <= sigma(i) <= p`` and ``sum sigma <= p`` of
    ``max_i t(i, sigma(i))``; ``inf`` when the minima do not fit. ``O(p^len(tasks))``.
    """
    best = math.inf
    ranges = [range(inst.tasks[i].min_procs, inst.p + 1) for i in tasks]
    for sigma in itertools.product(*ranges):
        if sum(sigma) <= inst.p:
            best = min(best, max(inst.tasks[i].time(q) for i, q in zip(tasks, sigma)))
    return best


def package_doctests(package: ModuleType) -> doctest.TestResults:
    """The doctests of ``package`` and of every module in it (``doctest.testmod`` of the package
    alone does not reach the functions it re-exports), summed."""
    modules = [package] + [
        importlib.import_module(f"{package.__name__}.{info.name}")
        for info in pkgutil.iter_modules(package.__path__)
    ]
    results = [doctest.testmod(m) for m in modules]
    return doctest.TestResults(sum(r.failed for r in results), sum(r.attempted for r in results))


def cli_run(capsys, *argv: object) -> tuple[int, str, str]:
    """``coschedule ARGV`` in this process: its exit status, stdout and stderr."""
    from coschedule.cli import main

    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def cli_fails(capsys, *argv: object) -> str:
    """The error of a command that must exit 2 with one line and no traceback."""
    try:
        code, _, err = cli_run(capsys, *argv)
    except SystemExit as e:  # argparse's usage errors
        code, err = e.code, capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def install_package(root: Path, name: str, source: str, entry_points: dict[str, dict[str, str]]) -> Path:
    """A tiny installed package, as pip leaves it in ``root`` (a site-packages to put on the path):
    the module ``name`` with ``source``, and its ``.dist-info`` with ``entry_points`` (group ->
    {entry name: "module:attr"})."""
    pkg = root / name
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(source, encoding="utf-8")
    info = root / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8")
    text = "".join(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) for group, eps in entry_points.items())
    (info / "entry_points.txt").write_text(text, encoding="utf-8")
    (info / "RECORD").write_text("", encoding="utf-8")
    return root


def make_package(root: Path, group: str = "coschedule.policies.batch", name: str = "easy-sjf-pkg") -> Path:
    """The batch kind's tiny installed package: ``tinypolicies.PackagedEasy`` (EASY as it is)
    registered as ``name`` in ``group``."""
    return install_package(root, "tinypolicies", "from coschedule.heuristics.batch import EASY\n\n\n"
                           "class PackagedEasy(EASY):\n    '''EASY, from an installed package.'''\n",
                           {group: {name: "tinypolicies:PackagedEasy"}})
