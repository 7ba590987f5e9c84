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


def test_batch_steps_say_so_only_when_they_last(capsys, monkeypatch):
    """coschedule batch: silent when quick; a step that lasts QUIET_FOR seconds says so."""
    from coschedule.cli import batch as cli_batch
    from coschedule.cli import main

    argv = ["batch", "batch/toy.json", "--policy", "easy", "--node-mtbf", "1e4", "--checkpoint-cost", "1"]
    assert main(argv) == 0
    assert "coschedule batch: " not in capsys.readouterr().err  # a quick run: nothing
    monkeypatch.setattr(cli_batch, "QUIET_FOR", 0.0)  # every step "lasts"
    assert main(argv) == 0
    steps = [line for line in capsys.readouterr().err.splitlines() if line.startswith("coschedule batch: ")]
    assert steps == ["coschedule batch: reading batch/toy.json",
                     "coschedule batch: simulating 5 jobs on 8 nodes (easy)",
                     "coschedule batch: validating the run (5 attempts)",
                     "coschedule batch: computing the metrics"], steps
    assert main([*argv, "--json"]) == 0
    assert "coschedule batch: " not in capsys.readouterr().err  # --json: never
