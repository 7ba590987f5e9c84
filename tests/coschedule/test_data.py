"""The bundled data (coschedule.data): names, the file-path-wins rule, and the trace lookup order."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coschedule import data
from coschedule.errors import CoscheduleError, FormatError, UnknownName

ROOT = Path(__file__).resolve().parents[2]
KTH = "KTH-SP2-1996-2.1-cln.swf.gz"


@pytest.fixture(autouse=True)
def no_traces_env(monkeypatch):
    monkeypatch.delenv(data.TRACES_ENV, raising=False)


def test_a_checkout_finds_its_own_folders():
    assert data.bundled_root() == ROOT
    assert data.traces_dir() == ROOT / "instances" / "traces"
    assert data.campaigns_dir() == ROOT / "campaigns" and data.docs_dir() == ROOT / "docs"


def test_list_bundled_has_every_kind():
    items = data.list_bundled()
    names = {kind: {b.name for b in items if b.kind == kind} for kind in data.KINDS}
    assert {"figure-1-1", "prop3-P8", "prop3-P8.scenario", "rigid/search/r-list-q-ratio1.667/instance"} <= names["instance"]
    assert "optimum-schedule" not in " ".join(names["instance"])  # schedules and summaries are not instances
    assert names["spec"] == {p.stem for p in (ROOT / "campaigns").glob("*.toml")}
    assert len(names["trace"]) == 5 and KTH in names["trace"]
    assert {"cli", "campaigns", "formats", "references"} <= names["doc"]
    assert names["policy"] == {p.stem for p in (ROOT / "coschedule" / "examples").glob("*.py")} - {"__init__"} >= {"easy_sjf"}
    assert all(b.path.is_file() and b.summary() for b in items)
    with pytest.raises(UnknownName, match="valid: doc, instance, policy, spec, trace"):
        data.list_bundled("pictures")


def test_bundled_names_and_aliases():
    fig = ROOT / "instances" / "kinp" / "figure-1-1.json"
    assert data.bundled_instance("figure-1-1") == fig
    assert data.bundled_instance("kinp/figure-1-1") == fig
    assert data.bundled_instance("figure-1-1.json") == fig
    assert data.bundled_spec("fig5-tenth") == ROOT / "campaigns" / "fig5-tenth.toml"
    assert data.bundled_trace("KTH-SP2-1996-2.1-cln") == data.bundled_trace(KTH) == ROOT / "instances/traces" / KTH
    assert data.bundled_doc("cli") == ROOT / "docs" / "cli.md"
    assert data.bundled("fig5").kind == "spec"
    assert "moldable instance: 9 tasks, p = 8" == data.bundled("figure-1-1").summary()
    specs = len(list((ROOT / "campaigns").glob("*.toml")))
    with pytest.raises(UnknownName, match=f"unknown bundled spec 'zzz'; coschedule examples lists the {specs} names"):
        data.bundled_spec("zzz")
    with pytest.raises(UnknownName, match="coschedule examples lists"):
        data.bundled("instance")  # four search folders hold an instance.json: no short name


def test_a_file_path_always_wins(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert data.spec_path("fig5-tenth") == ROOT / "campaigns" / "fig5-tenth.toml"
    assert data.instance_path("figure-1-1") == str(ROOT / "instances" / "kinp" / "figure-1-1.json")
    Path("fig5-tenth").write_text("name = 'mine'\n")
    Path("figure-1-1").write_text("{}")
    assert data.spec_path("fig5-tenth") == Path("fig5-tenth")
    assert data.instance_path("figure-1-1") == "figure-1-1"
    # not files and not bundled names: returned as they are, so that reading reports the file
    assert data.spec_path("sub/fig5") == Path("sub/fig5")
    assert data.spec_path("fig5.toml") == Path("fig5.toml")
    assert data.instance_path("nothing.json") == "nothing.json"
    with pytest.raises(CoscheduleError, match=r"^fig7: no such file, nor a bundled campaign spec \(bundled: [a-z0-9-]+(, [a-z0-9-]+)*, demo, "
                       r"du2024-baseline-traces, .*, fig4a-refill, fig4a, .*; coschedule examples lists them\)$"):
        data.spec_path("fig7")


def _trace(folder: Path, name: str = KTH) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(b"; MaxProcs: 4\n1 0 -1 5 2 -1 -1 2 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n")
    return folder / name


def test_trace_lookup_order(tmp_path, monkeypatch):
    spec_dir, opt, env = tmp_path / "specs", tmp_path / "opt", tmp_path / "env"
    bundled = ROOT / "instances" / "traces" / KTH
    spec_dir.mkdir()
    # 4. the bundled copy, when nothing else has the name
    assert data.find_trace(KTH, base=spec_dir) == bundled
    # 3. the environment variable, then the option instead of it
    _trace(env)
    monkeypatch.setenv(data.TRACES_ENV, str(env))
    assert data.find_trace(KTH, base=spec_dir) == env / KTH
    _trace(opt)
    assert data.find_trace(KTH, base=spec_dir, traces_dir=opt) == opt / KTH
    assert data.find_trace(KTH, base=spec_dir, traces_dir=tmp_path / "none") == bundled  # option replaces env
    # 2. the spec's folder, never the working directory
    _trace(spec_dir)
    assert data.find_trace(KTH, base=spec_dir, traces_dir=opt) == spec_dir / KTH
    monkeypatch.chdir(opt)
    assert data.find_trace(KTH, base=tmp_path / "elsewhere") == env / KTH
    # 1. an absolute path is used as it is
    assert data.find_trace(str(opt / KTH), base=spec_dir) == opt / KTH
    # a relative path with a folder part is only looked up relative to the spec's folder
    _trace(spec_dir / "sub")
    assert data.find_trace(f"sub/{KTH}", base=spec_dir) == spec_dir / "sub" / KTH
    with pytest.raises(FormatError) as info:
        data.find_trace(f"sub/{KTH}", base=opt, traces_dir=spec_dir)
    assert str(info.value) == f"no such trace; looked for {opt / 'sub' / KTH}"


def test_trace_not_found_names_every_place(tmp_path, monkeypatch):
    monkeypatch.setenv(data.TRACES_ENV, str(tmp_path / "env"))
    with pytest.raises(FormatError) as info:
        data.find_trace("x.swf", base=tmp_path)
    assert str(info.value) == (f"no such trace; looked for {tmp_path / 'x.swf'}, {tmp_path / 'env' / 'x.swf'} "
                               f"($COSCHEDULE_TRACES), {ROOT / 'instances' / 'traces' / 'x.swf'} (bundled)")
    with pytest.raises(FormatError, match=r"/opt/x.swf \(--traces-dir\), .*\(bundled\)$"):
        data.find_trace("x.swf", base=tmp_path, traces_dir="/opt")
    with pytest.raises(FormatError, match=r"^no such trace; looked for /nowhere/x.swf$"):
        data.find_trace("/nowhere/x.swf", base=tmp_path)


def test_home_is_expanded(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    _trace(tmp_path / "swf")
    assert data.find_trace(f"~/swf/{KTH}") == tmp_path / "swf" / KTH
    assert data.find_trace(KTH, traces_dir="~/swf") == tmp_path / "swf" / KTH
    assert os.path.expanduser("~") == str(tmp_path)
