"""The architecture as checks (docs/design.md): the layering and independence contracts of
``pyproject.toml`` ([tool.importlinter]) hold, no module imports itself back through others, the
package's own code uses only the current module names, the old ones still import, and modules stay
of a readable size.

``lint-imports`` runs here as a developer runs it, from the root of the clone: there
``coschedule/exact`` and ``coschedule/heuristics`` are links to the folders ``exact/`` and
``heuristics/``, so the checkout has the layout the package installs with.
"""

from __future__ import annotations

import ast
import importlib
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the folders that make up the import package ``coschedule``, as they install
PARTS = {"coschedule": "coschedule", "exact": "coschedule/exact", "heuristics": "coschedule/heuristics"}
#: a module above this many lines becomes a package with one module per concept (ARCHITECTURE.md)
MAX_LINES = 620


def _sources() -> dict[str, Path]:
    """Module name -> file, for every module of the package (in the clone)."""
    out = {}
    for folder, installed in PARTS.items():
        base = ROOT / folder
        for path in base.rglob("*.py"):
            rel = path.relative_to(base).with_suffix("")
            parts = [*installed.split("/"), *rel.parts]
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` run in ``root`` (it reads the contracts of ``root/pyproject.toml``)."""
    script = Path(sysconfig.get_path("scripts")) / "lint-imports"
    cmd = [str(script)] if script.exists() else [sys.executable, "-c",
                                                 "from importlinter.cli import lint_imports_command as m; m()"]
    env = {**os.environ, "PYTHONPATH": str(root), "COLUMNS": "250"}
    return subprocess.run([*cmd, "--no-cache"], cwd=root, env=env, capture_output=True, text=True, timeout=600)


def test_the_clone_has_the_installed_layout():
    for folder in ("exact", "heuristics"):
        link = ROOT / "coschedule" / folder
        assert link.is_symlink() and link.resolve() == (ROOT / folder).resolve(), link


def test_lint_imports_keeps_every_contract():
    out = _lint_imports(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert " BROKEN" not in out.stdout and "0 broken" in out.stdout
    # every contract of the file was checked (a contract with a typo would not be)
    import tomllib

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    for c in contracts:
        assert f"{c['name']} KEPT" in out.stdout, c["name"]


def test_lint_imports_catches_a_policy_imported_by_the_simulation_core(tmp_path):
    """The contracts can fail: the simulation core importing a policy breaks the layers (and makes
    a cycle), the campaign engine importing a simulator breaks its own contract."""
    layout = tmp_path / "broken"
    shutil.copytree(ROOT / "coschedule", layout / "coschedule", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", layout)
    with open(layout / "coschedule/sim/events.py", "a", encoding="utf-8") as fh:
        fh.write("\nfrom coschedule.heuristics.batch import policies  # noqa: E402,F401\n")
    with open(layout / "coschedule/campaign/run.py", "a", encoding="utf-8") as fh:
        fh.write("\nfrom coschedule.campaign.simulators import torus  # noqa: E402,F401\n")
    out = _lint_imports(layout)
    assert out.returncode == 1, out.stdout
    assert "layers: cli > reproduce, bench" in out.stdout and "coschedule.sim.events -> coschedule.heuristics.batch.policies" in out.stdout
    assert "the campaign engine never imports a simulator (the registry discovers them) BROKEN" in out.stdout
    # heuristics import the core: with the core importing a policy, the two import each other
    assert "no import cycle between siblings, at any depth BROKEN" in out.stdout and "- .sim -> .heuristics" in out.stdout
    assert "the campaign simulators are independent KEPT" in out.stdout


def test_no_module_imports_itself_back():
    """No cycle in the module graph, whatever the depth (the acyclic_siblings contract sees
    siblings only: a package's ``__init__`` and one of its modules importing each other too)."""
    import grimp
    import networkx as nx

    assert Path(importlib.import_module("coschedule").__file__).parent == ROOT / "coschedule"
    graph = grimp.build_graph("coschedule", cache_dir=None)
    g = nx.DiGraph()
    for m in graph.modules:
        for imported in graph.find_modules_directly_imported_by(m):
            g.add_edge(m, imported)
    cycles = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    assert not cycles, cycles
    # the graph is the whole package, exact/ and heuristics/ included
    assert {"coschedule.exact.mip", "coschedule.heuristics.batch.kernel", "coschedule.cli.torus.simulate"} <= graph.modules


def test_the_package_imports_no_old_module_name():
    """The old names of :data:`coschedule._moved.MOVED` are for code written against the first
    layout; the package itself uses the new ones (so that its layering is what lint-imports sees)."""
    from coschedule._moved import MOVED

    old = set(MOVED)
    found = []
    for name, path in _sources().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = name if is_pkg else name.rpartition(".")[0]
                    for _ in range(node.level - 1):
                        parent = parent.rpartition(".")[0]
                    base = f"{parent}.{base}" if base else parent
                targets = [base, *(f"{base}.{a.name}" for a in node.names)]
            found += [f"{path.relative_to(ROOT)}:{node.lineno} imports {t}" for t in targets if t in old]
    assert not found, found


def test_old_module_names_import_the_new_modules():
    from coschedule._moved import MOVED

    for old, new in MOVED.items():
        module = importlib.import_module(old)
        assert module is importlib.import_module(new), old
        assert module.__name__ == new and module.__spec__.name == new, old
    # an attribute set through one name is seen through the other (the same object)
    import coschedule.batch
    import coschedule.heuristics.batch.run as run

    assert coschedule.batch.run_batch is run.run_batch


def test_modules_stay_readable():
    long = {name: n for name, path in _sources().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long
