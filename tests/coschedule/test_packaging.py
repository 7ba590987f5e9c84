"""The distribution installs one top-level import package, ``coschedule``.

``exact/`` and ``heuristics/`` sit at the top of the repository but install as
``coschedule.exact`` and ``coschedule.heuristics`` (setuptools ``package-dir``), so nothing the
toolkit installs can clash with the unrelated ``exact`` and ``heuristics`` packages of the index.
The wheel is built offline from a copy of the checkout (no build isolation, nothing downloaded).
It carries the bundled data (example instances, the SWF traces, campaign specs, docs) under
``coschedule/_bundled/``; installed with ``pip install --target`` and run from an empty folder, it
finds them by name.
"""

from __future__ import annotations

import re

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SKIP = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__",
                              ".pytest_cache", ".hypothesis", "*.sqlite*")
#: data-only packages: repository folders installed under coschedule/_bundled/ (no __init__.py)
DATA_PREFIX = "coschedule._bundled."


@pytest.fixture(scope="module")
def wheel_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=SKIP)
    out = tmp / "dist"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(out), str(src)],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    (path,) = out.glob("*.whl")
    return path


@pytest.fixture(scope="module")
def wheel(wheel_path: Path) -> zipfile.ZipFile:
    return zipfile.ZipFile(wheel_path)


def _top_level(names: list[str]) -> set[str]:
    return {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith(".dist-info")}


def test_wheel_has_one_top_level_package(wheel):
    names = wheel.namelist()
    assert _top_level(names) == {"coschedule"}
    assert "coschedule/exact/__init__.py" in names
    assert "coschedule/heuristics/__init__.py" in names
    assert not any(n.startswith(("exact/", "heuristics/")) for n in names)


def test_wheel_is_typed_and_licensed(wheel):
    names = set(wheel.namelist())
    assert "coschedule/py.typed" in names  # PEP 561: covers every subpackage
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = wheel.read(meta).decode()
    assert "Name: coschedule-hpc" in text
    assert any(n.endswith("LICENSE") for n in names)
    license_text = (ROOT / "LICENSE").read_text()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"file": "LICENSE"}
    assert license_text.startswith("MIT License")


def test_every_package_folder_is_listed():
    """A new subpackage of coschedule/, exact/ or heuristics/ must be added to pyproject."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    dirs = tool["package-dir"]
    listed = {p for p in tool["packages"] if not p.startswith(DATA_PREFIX)}
    found = set()
    for name, folder in [("coschedule", "coschedule"), *((k, v) for k, v in dirs.items())]:
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *rel.parts]))
    assert found == listed


def test_data_packages_are_the_data_folders():
    """instances/, campaigns/ and docs/ are listed, mapped, given package data, and hold no code."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    data = {p for p in tool["packages"] if p.startswith(DATA_PREFIX)}
    assert data == {DATA_PREFIX + f for f in ("instances", "campaigns", "docs")}
    for pkg in data:
        folder = ROOT / tool["package-dir"][pkg]
        assert folder.name == pkg.rsplit(".", 1)[1] and folder.is_dir()
        assert not list(folder.rglob("*.py")), f"{folder} is data only"
        assert tool["package-data"][pkg]


def _tracked(folder: str, pattern: str) -> set[str]:
    return {p.relative_to(ROOT).as_posix() for p in (ROOT / folder).glob(pattern) if p.is_file()}


def test_wheel_has_the_bundled_data(wheel):
    names = set(wheel.namelist())
    expected = (_tracked("instances", "**/*.json") | _tracked("instances", "**/*.md")
                | _tracked("instances", "traces/*.swf.gz") | _tracked("instances", "torus/*.txt")
                | _tracked("campaigns", "*.toml")
                | _tracked("docs", "*.md"))
    assert len(_tracked("instances", "traces/*.swf.gz")) == 5
    assert "docs/references.md" in expected and "instances/traces/README.md" in expected
    assert "instances/torus/example-8x8x8.txt" in expected
    missing = {p for p in expected if f"coschedule/_bundled/{p}" not in names}
    assert not missing
    kth = wheel.read("coschedule/_bundled/instances/traces/KTH-SP2-1996-2.1-cln.swf.gz")
    assert kth == (ROOT / "instances/traces/KTH-SP2-1996-2.1-cln.swf.gz").read_bytes()


def test_installed_wheel_runs_from_an_empty_folder(wheel_path, tmp_path):
    """``pip install`` of the wheel (not editable), then the commands that need the bundled data,
    run from a folder with nothing in it and without the checkout on ``sys.path``."""
    target = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target", str(target),
         str(wheel_path)],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert (target / "coschedule/_bundled/campaigns/fig5-tenth.toml").is_file()
    work = tmp_path / "empty"
    work.mkdir()
    # PYTHONPATH: the installed wheel, then the test venv's site-packages for numpy & co. -S: no
    # site module, so no .pth file runs (the editable install's finder would map coschedule to the
    # checkout); the current folder is the empty one, so the checkout is nowhere on sys.path.
    paths = dict.fromkeys([str(target), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    env = {k: v for k, v in os.environ.items() if k != "COSCHEDULE_TRACES"}
    env["PYTHONPATH"] = os.pathsep.join(paths)

    def python(*argv: str) -> str:
        proc = subprocess.run([sys.executable, "-S", *argv], cwd=work, env=env,
                              capture_output=True, text=True, timeout=300, check=False)
        assert proc.returncode == 0, f"{argv}: {proc.stderr}"
        return proc.stdout

    def run(*argv: str) -> str:
        return python("-m", "coschedule", *argv)

    module, root, *path = python("-c", "import sys, coschedule, coschedule.data as d; "
                                 "print(coschedule.__file__); print(d.bundled_root()); print(*sys.path, sep='\\n')"
                                 ).splitlines()
    assert Path(module) == target / "coschedule" / "__init__.py"
    assert Path(root) == target / "coschedule" / "_bundled"
    with_package = [p for p in path if ((Path(p) if p else work) / "coschedule").exists()]
    assert with_package == [str(target)]  # not the checkout, nor anything else

    out = run("simulate", "fig5-tenth", "--dry-run")
    assert "campaign fig5-tenth: synthetic (synthetic, 30 sets)" in out
    assert "= 10500 cells x 100 scenarios = 1050000 simulations" in out
    out = run("simulate", "table1-kth", "--dry-run")
    assert "campaign table1-kth: KTH-SP2 (swf, 30 sets)" in out
    out = run("examples")
    assert "figure-1-1" in out and "fig5-tenth" in out and "KTH-SP2-1996-2.1-cln.swf.gz" in out
    out = run("examples", "--path", "figure-1-1")
    assert Path(out.strip()) == target / "coschedule/_bundled/instances/kinp/figure-1-1.json"
    out = run("docs", "cli")
    assert Path(out.strip()) == target / "coschedule/_bundled/docs/cli.md"
    assert any(re.fullmatch(r"references +References", line) for line in run("docs").splitlines())
    assert "optimal: 114" in run("solve", "figure-1-1", "--k", "3")
    assert "(6,1,6)+4x7x7, 196 nodes" in run("torus", "mfp", "--occupied", "torus/example-8x8x8.txt")
    assert not any(work.iterdir())  # a dry run writes nothing


def test_python_dash_m_coschedule():
    proc = subprocess.run([sys.executable, "-m", "coschedule", "--help"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: coschedule")


def test_sources_import_the_installed_names():
    """No module imports the folders by their repository names (``import exact``)."""
    bad = []
    for folder in ("coschedule", "exact", "heuristics", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            for i, line in enumerate(path.read_text().splitlines(), 1):
                words = line.split()
                if words[:1] in (["import"], ["from"]) and len(words) > 1 and \
                        words[1].split(".")[0] in ("exact", "heuristics"):
                    bad.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not bad, "\n".join(bad)
