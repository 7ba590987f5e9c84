"""The progress of a benchmark off a terminal: a plain line per step, another every LOG_EVERY
seconds while a step lasts, no escape code; nothing with --json."""

from __future__ import annotations

import io
import time

from coschedule.cli.bench import _Ticker


def test_off_a_terminal_a_line_per_step_and_one_every_interval(monkeypatch):
    monkeypatch.setattr(_Ticker, "LOG_EVERY", 0.05)
    out = io.StringIO()
    ticker = _Ticker(out, log=True)
    ticker("k=3 n=4: default method ...")
    time.sleep(1.3)  # the ticker's thread wakes every second
    ticker.clear()
    ticker("k=3 n=6: default method ...")
    ticker.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "bench: k=3 n=4: default method ..."
    assert any(line.startswith("bench: k=3 n=4: default method ...: ") and line.endswith(" s so far")
               for line in lines[1:-1])
    assert lines[-1] == "bench: k=3 n=6: default method ..."
    assert "\x1b" not in out.getvalue() and "\r" not in out.getvalue()


def test_on_a_terminal_one_redrawn_line_and_nothing_without_a_stream():
    out = io.StringIO()
    ticker = _Ticker(out)
    ticker("mira ...")
    ticker.close()
    assert out.getvalue().startswith("\r\x1b[Kmira ... 0 s")
    silent = _Ticker(None)
    silent("mira ...")
    silent.close()
