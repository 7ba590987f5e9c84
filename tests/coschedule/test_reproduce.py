"""``coschedule reproduce PAPER``: the verdict rules, the registry, and every paper's quick
reproduction run as a user runs it (issue 23): each claim gets a verdict, the claims known to match
stay "match", the report's HTML parses, embeds every figure as a decodable PNG and has a row per
claim, and a second call resumes from the databases."""

from __future__ import annotations

import base64
import io
import json
from html.parser import HTMLParser

import pytest

from coschedule.cli import main
from coschedule.errors import CoscheduleError
from coschedule.reproduce import VERDICTS, Measured, get_paper, paper_keys, reproduce
from coschedule.reproduce.claims import AtLeast, AtMost, Claim, Holds, Near, NotComparable

# ------------------------------------------------------------------ the rules

@pytest.mark.parametrize(("value", "half", "verdict"), [
    (0.42, 0.0, "match"), (0.38, 0.0, "match"), (0.37, 0.02, "match"),  # within 0.02, the interval counted
    (0.35, 0.0, "close"), (0.30, 0.0, "differs"), (0.47, 0.05, "match"), (0.47, 0.0, "differs"), (0.45, 0.0, "close"),
])
def test_near_counts_the_interval_in_our_favour(value, half, verdict):
    assert Near(0.40, match=0.02, close=0.06).judge(Measured("x", value=value, half=half))[0] == verdict


def test_near_relative_scales_by_the_papers_value():
    rule = Near(100.0, match=0.25, close=0.5, relative=True)
    assert [rule.judge(Measured("x", value=v))[0] for v in (120.0, 140.0, 160.0)] == ["match", "close", "differs"]


def test_bounds_and_statements():
    at_least, at_most = AtLeast(0.40, close=0.05), AtMost(5.0, close=10.0)
    assert [at_least.judge(Measured("x", value=v, half=h))[0] for v, h in ((0.41, 0), (0.38, 0.03), (0.37, 0),
                                                                          (0.30, 0))] == \
        ["match", "match", "close", "differs"]
    assert [at_most.judge(Measured("x", value=v))[0] for v in (4.9, 12.0, 16.0)] == ["match", "close", "differs"]
    holds = Holds("it holds")
    assert [holds.judge(Measured("x", holds=h))[0] for h in (True, None, False)] == ["match", "close", "differs"]
    verdict, reason = NotComparable("the Mira log", "a Mira-like month").judge(Measured("x", value=1.0))
    assert verdict == "not comparable" and "the Mira log" in reason and "a Mira-like month" in reason
    with pytest.raises(ValueError, match="finite value"):
        at_least.judge(Measured("x"))
    nan = float("nan")  # one run: no interval, judged on the value alone
    assert Near(0.75, match=0.05, close=0.1).judge(Measured("x", value=0.0, half=nan))[0] == "differs"
    assert at_least.judge(Measured("x", value=0.41, half=nan))[0] == "match"
    assert at_most.judge(Measured("x", value=4.0, half=nan))[0] == "match"


def test_a_claim_that_cannot_be_computed_says_so():
    def broken(results):
        raise KeyError("n = 1000 is not in the grid")

    claim = Claim("k", "§1", "s", "p", broken, AtLeast(0.4, close=0.05), ())
    outcome = claim.evaluate(None)
    assert outcome.verdict == "not comparable" and outcome.reason.startswith("ours could not be computed")


# ------------------------------------------------------------------ the registry

def test_every_paper_is_found_and_consistent():
    keys = paper_keys()
    assert "aupy2017" in keys
    for key in keys:
        paper = get_paper(key)
        assert paper.key == key and paper.claims and paper.campaigns and paper.full_wall
        assert len({c.key for c in paper.claims}) == len(paper.claims)
    with pytest.raises(CoscheduleError, match="unknown paper 'aupy2071'"):
        get_paper("aupy2071")


@pytest.mark.parametrize(("argv", "message"), [
    (["reproduce"], "coschedule reproduce: error: name a paper ("),
    (["reproduce", "nosuch"], "unknown paper 'nosuch'"),
])
def test_cli_errors_are_one_line(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_help_states_every_full_run_time(capsys):
    """``coschedule reproduce --help`` gives each paper's full-run time, as the registry has it."""
    with pytest.raises(SystemExit):
        main(["reproduce", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "95 % interval" in text
    for key in paper_keys():
        wall = get_paper(key).full_wall.split(" (")[0].removeprefix("about ")
        assert f"{wall} ({key})" in text, key


def test_cli_list_names_every_paper(capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    for key in paper_keys():
        paper = get_paper(key)
        assert f"{key} " in out and f"{len(paper.claims)} claims" in out and paper.full_wall in out


# ------------------------------------------------------------------ the quick reproductions

class _Report(HTMLParser):
    """The rows and images of a report.html, read by a real HTML parser."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[str] = []
        self.images: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "tr" and (a.get("id") or "").startswith("claim-"):
            self.rows.append(a["id"].removeprefix("claim-"))
        if tag == "img":
            self.images.append(a.get("src") or "")


@pytest.fixture(scope="module", params=paper_keys())
def quick(request, tmp_path_factory):
    paper = get_paper(request.param)
    out = tmp_path_factory.mktemp(f"reproduce-{paper.key}")
    return paper, out, reproduce(paper, out, quick=True, workers=2, stream=io.StringIO())


def test_every_claim_gets_a_verdict_and_the_known_matches_stay(quick):
    paper, _, done = quick
    assert set(done.outcomes) == {c.key for c in paper.claims}
    for claim in paper.claims:
        outcome = done.outcomes[claim.key]
        assert outcome.verdict in VERDICTS and outcome.reason, claim.key
        assert not outcome.reason.startswith("ours could not be computed"), (claim.key, outcome.reason)
        if claim.stable:
            assert outcome.verdict == "match", (claim.key, outcome.measured.text, outcome.reason)
        if isinstance(claim.rule, NotComparable):
            assert outcome.verdict == "not comparable"


def test_the_reports_say_it_all(quick):
    from PIL import Image

    paper, out, done = quick
    counts = done.counts()
    assert sum(counts.values()) == len(paper.claims)
    md = (out / "report.md").read_text()
    summary = f"{len(paper.claims)} claims: {counts['match']} match"
    assert summary in md and md.count("Quick run:") == 2  # the top and the end of the page
    data = json.loads((out / "report.json").read_text())
    assert data["quick"] is True and data["counts"] == counts
    assert [c["key"] for c in data["claims"]] == [c.key for c in paper.claims]
    parsed = _Report()
    parsed.feed((out / "report.html").read_text())
    assert parsed.rows == [c.key for c in paper.claims]
    assert len(parsed.images) == len(paper.figures) and paper.figures
    for src in parsed.images:
        assert src.startswith("data:image/png;base64,")
        image = Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1])))
        image.verify()
        assert image.format == "PNG" and min(image.size) > 200
    for figure in paper.figures:
        assert (out / "figures" / f"{figure.key}.png").stat().st_size > 10_000


def test_the_command_resumes_and_gives_the_same_verdicts(quick, capsys):
    """``coschedule reproduce KEY --quick -o DIR`` again: every cell is found in the databases,
    nothing is computed, and the report says the same."""
    paper, out, done = quick
    assert main(["reproduce", paper.key, "--quick", "--quiet", "--workers", "1", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"(quick run): {len(paper.claims)} claims: {done.counts()['match']} match" in printed
    assert f"wrote {out / 'report.html'}" in printed and f"0 cells computed, {done.computed + done.resumed:,} " \
        "reused" in printed and f"the full run takes {paper.full_wall}" in printed
    again = json.loads((out / "report.json").read_text())
    assert {c["key"]: (c["verdict"], c["ours"]["text"]) for c in again["claims"]} == \
        {k: (o.verdict, o.measured.text) for k, o in done.outcomes.items()}


def test_an_interrupted_call_counts_its_campaigns_time(tmp_path, monkeypatch):
    """Ctrl-C during a campaign: the call's time so far goes to ``campaign-seconds.json``, added to
    what earlier calls took, so that the resumed run's report gives the whole time."""
    import coschedule.campaign

    clock = iter([0.0, 100.0, 107.5])  # the call's start, the campaign's, then the interruption
    monkeypatch.setattr("coschedule.reproduce.run.time.perf_counter", lambda: next(clock, 200.0))

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(coschedule.campaign, "run_campaign", interrupted)
    paper = get_paper("aupy2017")
    (tmp_path / "campaign-seconds.json").write_text(json.dumps({paper.campaigns[0].name: 60.0}))
    with pytest.raises(KeyboardInterrupt):
        reproduce(paper, tmp_path, stream=io.StringIO())
    assert json.loads((tmp_path / "campaign-seconds.json").read_text()) == {paper.campaigns[0].name: 67.5}


# ------------------------------------------------------------------ the pages embed the full runs

def _report(key: str = "demo", quick: bool = False) -> dict:
    return {"paper": key, "quick": quick, "summary": "2 claims: 1 match, 0 close, 1 differs, 0 not comparable",
            "seconds": 3.0, "campaign_seconds": 125.0, "computed": 10, "resumed": 0,
            "claims": [{"key": "a", "where": "§1", "statement": "x | y", "paper": "> 40 %", "verdict": "match",
                        "reason": "at least 0.4", "ours": {"text": "42 %"}},
                       {"key": "b", "where": "§2", "statement": "z", "paper": "holds", "verdict": "differs",
                        "reason": "does not hold", "ours": {"text": "no"}}]}


def test_embed_rewrites_only_its_block():
    from coschedule.reproduce.docs import begin_marker, embed, end_marker

    page = f"# Title\n\nprose before\n\n{begin_marker('demo')}\nstale\n{end_marker('demo')}\n\nprose after\n"
    out = embed(page, "demo", _report())
    assert out.startswith("# Title\n\nprose before\n\n") and out.endswith(f"{end_marker('demo')}\n\nprose after\n")
    assert "stale" not in out and "| a | §1 | x \\| y (> 40 %) | 42 % | **match** | at least 0.4 |" in out
    assert "Its campaigns took 2 min 05 s of wall time on 2 cores (10 cells)." in out and embed(out, "demo", _report()) == out
    with pytest.raises(CoscheduleError, match="the page has 0 blocks of reproduce other"):
        embed(page, "other", _report("other"))
    with pytest.raises(CoscheduleError, match="a quick run's report"):
        embed(page, "demo", _report(quick=True))


def test_every_stored_full_run_is_the_registrys_and_its_page_shows_it():
    """A page's claims table is the one its stored report gives, and the stored report has every
    claim of the registry, in its order: the pages cannot drift from the code."""
    from coschedule.data import docs_dir
    from coschedule.reproduce.docs import begin_marker, embed

    stored = sorted((docs_dir() / "reports").glob("*.json"))
    assert stored, "no full run is stored in docs/reports"
    for path in stored:
        report = json.loads(path.read_text())
        paper = get_paper(path.stem)
        assert not report["quick"] and [c["key"] for c in report["claims"]] == [c.key for c in paper.claims], path
        page = (docs_dir() / f"{paper.doc}.md").read_text()
        assert begin_marker(paper.key) in page and embed(page, paper.key, report) == page, paper.doc
