"""coschedule.jit: numba's on-disk cache goes to the user's cache directory, never into the
checkout, and the first compile of the kernels says so once -- on a terminal only.

What numba does at import and on its first compile is per process, so these tests run a fresh
interpreter each (a shelf kernel only: it compiles in about 2 s).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import coschedule.heuristics
from coschedule import jit
from coschedule.jit import HAVE_NUMBA, default_cache_dir

needs_numba = pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed")
NOTICE = "coschedule: compiling the numba kernels (once; cached in"

#: one fast call (the shelf kernel), then where numba's cache is
FAST_CALL = textwrap.dedent(
    """
    import numba
    from coschedule import jit
    from coschedule.heuristics.fast import makespans
    from coschedule.rigid import rigid_instance

    inst = rigid_instance([(1, 2.0), (2, 1.0), (1, 3.0)], 2)
    assert makespans(inst, [[0, 1, 0], [1, 0, 2]], "r-shelf-nb").shape == (2,)
    print(jit.CACHE_DIR)
    print(numba.config.CACHE_DIR)
    """
)


def _env(**extra: str) -> dict[str, str]:
    unset = ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env.update(extra)
    return env


def _run(code: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300, check=False)


def _run_on_a_terminal(code: str, env: dict[str, str], cwd: Path) -> tuple[int, str]:
    """Run ``code`` with stderr on a pseudo-terminal; its exit code and what it wrote there."""
    pty = pytest.importorskip("pty")
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL,
                                stderr=slave, env=env, cwd=cwd)
    finally:
        os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    return proc.wait(timeout=300), b"".join(chunks).decode("utf-8", "replace")


def _cache_files(folder: Path, since: float = 0.0) -> list[Path]:
    files = (p for p in folder.rglob("*") if p.suffix in (".nbi", ".nbc"))
    return [p for p in files if p.stat().st_mtime >= since]


# ---------------------------------------------------------------- where the cache goes


def test_default_cache_dir(monkeypatch):
    assert default_cache_dir({"XDG_CACHE_HOME": "/srv"}) == Path("/srv/coschedule/numba")
    monkeypatch.setenv("HOME", "/home/someone")
    home = Path.home()
    default = home / ".cache" / "coschedule" / "numba"
    assert default_cache_dir({}) == default
    # the XDG specification: a relative path is invalid and ignored
    assert default_cache_dir({"XDG_CACHE_HOME": "relative/dir"}) == default
    assert default_cache_dir({"XDG_CACHE_HOME": ""}) == default


@needs_numba
@pytest.mark.slow
def test_cache_goes_to_xdg_cache_home_not_the_checkout(tmp_path):
    xdg = tmp_path / "xdg"
    start = time.time() - 1.0  # file systems with coarse timestamps
    proc = _run(FAST_CALL, _env(XDG_CACHE_HOME=str(xdg)), tmp_path)
    assert proc.returncode == 0, proc.stderr
    want = str(xdg / "coschedule" / "numba")
    assert proc.stdout.split("\n")[:2] == [want, want]
    assert _cache_files(Path(want)), "numba wrote no cache file under XDG_CACHE_HOME"
    package = Path(coschedule.heuristics.__file__).parent  # the checkout's heuristics/ folder
    assert _cache_files(package, since=start) == []
    assert NOTICE not in proc.stderr  # stderr is a pipe: nothing said


@needs_numba
def test_numba_cache_dir_set_by_the_user_is_kept(tmp_path):
    mine = tmp_path / "mine"
    code = ("import numba, coschedule.jit as jit\n"
            "print(jit.CACHE_DIR)\nprint(numba.config.CACHE_DIR)")
    env = _env(NUMBA_CACHE_DIR=str(mine), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    proc = _run(code, env, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == [str(mine), str(mine)]


@needs_numba
def test_numba_imported_before_coschedule(tmp_path):
    """numba already read its (empty) setting: the cache directory still applies to our kernels."""
    xdg = tmp_path / "xdg"
    code = "import numba\nimport coschedule.heuristics.fast\nprint(numba.config.CACHE_DIR)"
    proc = _run(code, _env(XDG_CACHE_HOME=str(xdg)), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(xdg / "coschedule" / "numba")


@needs_numba
def test_kernels_run_as_python_with_numba_disabled(tmp_path):
    """NUMBA_DISABLE_JIT=1 (numba's switch to debug kernels as Python): numba gives the plain
    function back, and the kernels run as Python with the compiled kernels' makespans."""
    code = textwrap.dedent(
        """
        import types
        from coschedule.heuristics.fast import makespans
        from coschedule.rigid import rigid_instance
        from coschedule.sim.profile import _earliest_fit

        assert isinstance(_earliest_fit, types.FunctionType), type(_earliest_fit)
        inst = rigid_instance([(1, 2.0), (2, 1.0), (1, 3.0)], 2)
        print(list(makespans(inst, [[0, 1, 0], [1, 0, 2]], "r-list-q")))
        """
    )
    plain = _run(code, _env(XDG_CACHE_HOME=str(tmp_path / "xdg"), NUMBA_DISABLE_JIT="1"), tmp_path)
    assert plain.returncode == 0, plain.stderr
    compiled = _run(code.replace("assert isinstance", "assert not isinstance"),
                    _env(XDG_CACHE_HOME=str(tmp_path / "xdg")), tmp_path)
    assert compiled.returncode == 0, compiled.stderr
    assert plain.stdout == compiled.stdout


# ---------------------------------------------------------------- the notice


@needs_numba
@pytest.mark.slow
def test_notice_on_a_terminal_when_compiling(tmp_path):
    xdg = tmp_path / "xdg"
    env = _env(XDG_CACHE_HOME=str(xdg))
    code_rc, said = _run_on_a_terminal(FAST_CALL, env, tmp_path)
    assert code_rc == 0, said
    line = f"{NOTICE} {xdg / 'coschedule' / 'numba'})\u2026"
    assert said.count(NOTICE) == 1 and line in said, said
    assert "\x1b" not in said  # no escape codes
    # the next process loads the kernel from the cache: no compile, nothing said
    code_rc, said = _run_on_a_terminal(FAST_CALL, env, tmp_path)
    assert code_rc == 0, said
    assert NOTICE not in said, said


class _Dispatcher:
    def __init__(self, module: str) -> None:
        self.py_func = type("F", (), {"__module__": module})()


class _Event:
    def __init__(self, module: str) -> None:
        self.data = {"dispatcher": _Dispatcher(module), "args": (), "return_type": None}


@needs_numba
def test_notice_said_once_and_only_for_our_kernels(monkeypatch):
    monkeypatch.setattr(jit, "_announced", False)
    out = io.StringIO()
    listener = jit._Notice(out)
    listener.on_start(_Event("somebody.else"))  # another library's numba function
    assert out.getvalue() == ""
    listener.on_start(_Event("coschedule.heuristics.fast.list_kernels"))
    listener.on_start(_Event("coschedule.heuristics.fast.shelf_kernels"))
    assert out.getvalue().count(NOTICE) == 1 and out.getvalue().endswith("\u2026\n")


@needs_numba
def test_no_listener_unless_a_terminal(monkeypatch):
    """Not a terminal (a pipe, a file, a StringIO): compile_notice does nothing at all."""
    monkeypatch.setattr(jit, "_announced", False)

    def refuse(*args, **kwargs):
        raise AssertionError("a listener was installed for a stream that is not a terminal")

    monkeypatch.setattr(jit._event, "install_listener", refuse)
    with jit.compile_notice(io.StringIO()):
        pass
    forced = jit.compile_notice(io.StringIO(), force=True)
    with pytest.raises(AssertionError, match="not a terminal"), forced:
        pass


def test_notice_without_the_ellipsis_when_the_stream_cannot_encode_it():
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    jit._say(out, "compiling\u2026")
    out.seek(0)
    assert out.read() == "compiling...\n"


# ---------------------------------------------------------------- one compile per helper


@needs_numba
def test_a_helper_called_with_a_constant_and_a_variable_compiles_once():
    """numba alone compiles ``helper`` twice here (for ``Literal[int](1)`` and for ``int64``)."""

    @jit.njit
    def helper(x, k):
        return x + k

    @jit.njit
    def caller(x, k):
        return helper(x, 1) + helper(x, k) + helper(x, 2)

    assert caller(10, 5) == 11 + 15 + 12
    assert [str(t) for t in helper.signatures] == ["(int64, int64)"]


@needs_numba
def test_compiled_names_the_outermost_kernels_that_compile(monkeypatch):
    monkeypatch.setattr(jit, "_KERNELS_PACKAGE", __name__)  # this module's kernels count as ours

    @jit.njit
    def inner(x):
        return x * 2

    @jit.njit
    def outer(x):
        return inner(x) + 1

    with jit.compiled() as names:
        assert outer(3) == 7
    assert names == [f"{__name__}.outer"]
    with jit.compiled() as names:
        assert outer(4) == 9  # compiled already: nothing
    assert names == []


@needs_numba
def test_numba_loads_without_scipy_linalg(tmp_path):
    """numba's array functions load without importing scipy.linalg (its BLAS probe, 0.1-0.2 s of
    every command's start-up when SciPy is installed), and their ensure_blas is numba's again, so
    np.dot and np.linalg in compiled code still reach BLAS. A stand-in SciPy on the path says
    whether its linalg was imported (the real one need not be installed)."""
    fake = tmp_path / "site" / "scipy"
    (fake / "linalg").mkdir(parents=True)
    (fake / "__init__.py").write_text('__version__ = "1.99.0"\n', encoding="utf-8")
    mark = tmp_path / "linalg-imported"
    (fake / "linalg" / "__init__.py").write_text(f"open({str(mark)!r}, 'w').close()\n", encoding="utf-8")
    (fake / "linalg" / "cython_blas.py").write_text("", encoding="utf-8")
    code = textwrap.dedent(
        """
        import sys
        import coschedule.jit
        import numba.np.arraymath as arraymath
        import numba.np.linalg as linalg
        print(arraymath._HAVE_BLAS, arraymath.ensure_blas is linalg.ensure_blas, "scipy.linalg" in sys.modules)
        """)
    path = os.pathsep.join([str(tmp_path / "site"), *[p for p in sys.path if p]])
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": path}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "False"] and not mark.exists()
