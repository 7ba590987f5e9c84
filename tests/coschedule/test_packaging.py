"""The distribution installs one top-level import package, ``coschedule``.

``exact/`` and ``heuristics/`` sit at the top of the repository but install as
``coschedule.exact`` and ``coschedule.heuristics`` (setuptools ``package-dir``), so nothing the
toolkit installs can clash with the unrelated ``exact`` and ``heuristics`` packages of the index.
The wheel is built offline from a copy of the checkout (no build isolation, nothing downloaded).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SKIP = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__",
                              ".pytest_cache", ".hypothesis", "*.sqlite*")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
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
    return zipfile.ZipFile(path)


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
    listed = set(tool["packages"])
    found = set()
    for name, folder in [("coschedule", "coschedule"), *((k, v) for k, v in dirs.items())]:
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *rel.parts]))
    assert found == listed


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
