"""Durations with units (coschedule.units) and the command line's options that read them."""

from __future__ import annotations

import math

import pytest

from coschedule.units import UNITS, format_duration, seconds


@pytest.mark.parametrize(("text", "expected"), [
    ("300", 300.0), ("2.5e6", 2.5e6), ("300s", 300.0), ("5min", 300.0), ("5 min", 300.0), ("1.5h", 5400.0),
    ("7d", 604800.0), ("1w", 604800.0), ("5y", 5 * 365 * 86400.0), ("100years", 100 * 365 * 86400.0),
    ("2 hours", 7200.0), ("0", 0.0), ("inf", math.inf), (".5d", 43200.0),
])
def test_seconds_reads_numbers_and_units(text, expected):
    assert seconds(text) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("text", ["5parsecs", "1h30", "h", "", "1 h 30 min", "--1", "5m s"])
def test_seconds_refuses_what_is_not_a_duration_and_names_it(text):
    with pytest.raises(ValueError, match=r"is not a duration: a number of seconds, or a number with a unit"):
        seconds(text)


def test_a_year_is_365_days_as_the_redistribution_model():
    from coschedule.redistribution.model import YEAR

    assert UNITS["y"] == YEAR == 365 * 86400


@pytest.mark.parametrize(("value", "text"), [
    (176947200.0, "5.61 y"), (3600.0, "1 h"), (300.0, "5 min"), (42.0, "42 s"), (0.5, "0.5 s"),
    (864000.0, "10 d"), (1209600.0, "14 d"), (math.inf, "inf"),
])
def test_format_duration_in_the_largest_unit_that_keeps_it_at_least_1(value, text):
    assert format_duration(value) == text


@pytest.mark.parametrize("value", [1.0, 59.0, 61.0, 3599.0, 90000.0, 4e7, 3.2e9])
def test_format_duration_reads_back_within_its_digits(value):
    assert seconds(format_duration(value).replace(" ", "")) == pytest.approx(value, rel=5e-3)


# ---------------------------------------------------------------- the command line


def test_batch_takes_durations_with_units(capsys):
    from coschedule.cli import main

    out = {}
    for mtbf in ("2592000", "30d"):
        assert main(["batch", "batch/toy.json", "--policy", "easy", "--node-mtbf", mtbf, "--downtime", "1h",
                     "--checkpoint-cost", "5min", "--window", "0:1d", "--json"]) == 0
        out[mtbf] = capsys.readouterr().out
    assert out["2592000"] == out["30d"]
    with pytest.raises(SystemExit) as stop:  # argparse's error: exit 2
        main(["batch", "batch/toy.json", "--policy", "easy", "--downtime", "5parsecs"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "expected a duration" in err and "'5parsecs'" in err


def test_redistrib_node_mtbf_and_its_former_spelling_agree(capsys):
    import json

    from coschedule.cli import main

    runs = []
    for flags in (["--node-mtbf", "5y"], ["--mtbf-years", "5"]):
        assert main(["redistrib", "synthetic-n20-p100", "--at-end", "greedy", "--at-failure", "iterated", "--seed",
                     "2", "--json", *flags]) == 0
        runs.append(json.loads(capsys.readouterr().out))
    assert runs[0] == runs[1]
    assert runs[0]["resilience"]["mtbf_years"] == pytest.approx(5.0)
    assert main(["redistrib", "synthetic-n20-p100", "--at-end", "greedy", "--at-failure", "iterated",
                 "--node-mtbf", "5y", "--mtbf-years", "5"]) == 2


def test_campaign_values_take_units():
    from coschedule.campaign import parse_values

    assert parse_values("1h,6h,1d", seconds, "--downtime") == (3600.0, 21600.0, 86400.0)
    assert parse_values("1h:3h:1h", seconds, "--downtime") == (3600.0, 7200.0, 10800.0)
    assert parse_values("0,0.5", float, "--qbar") == (0.0, 0.5)
