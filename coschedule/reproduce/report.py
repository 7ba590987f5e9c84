"""A reproduction's report: ``report.md``, ``report.html`` (self-contained: figures embedded as
PNG data) and ``report.json`` (every claim's numbers, for the documentation pages).

Each starts with the summary line (how many claims match, are close, differ, are not comparable);
a quick run says so at the top and at the end. Per claim: where it is in the paper, the paper's
words and value, ours with its 95 % interval, the verdict and its reason, the modelling options
it depends on, and a link to the figure that shows it.
"""

from __future__ import annotations

import base64
import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .claims import VERDICTS, Outcome
from .paper import Paper

__all__ = ["Reproduction", "format_seconds_wall", "markdown_report", "html_report", "json_report", "summary_line",
           "write_reports"]

@dataclass
class Reproduction:
    """What :func:`reproduce` did: the outcome of each claim, the figures' files, the
    campaigns' databases and the wall time of this call (``resumed``: cells found done)."""

    paper: Paper
    quick: bool
    outcomes: dict[str, Outcome]
    figures: dict[str, Path]
    databases: dict[str, Path]
    seconds: float
    computed: int = 0
    resumed: int = 0
    #: the campaigns' wall seconds over every call that ran them (a resumed run's whole time)
    campaign_seconds: float = 0.0
    files: list[Path] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """How many claims got each verdict."""
        out = dict.fromkeys(VERDICTS, 0)
        for o in self.outcomes.values():
            out[o.verdict] += 1
        return out


#: the background of each verdict's cell in the HTML report
_COLOURS = {"match": "#d9f2d9", "close": "#fff2cc", "differs": "#f8d7da", "not comparable": "#e2e3e5"}


def format_seconds_wall(seconds: float) -> str:
    """``2 h 05 min``, ``4 min 12 s``, ``38 s``."""
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600} h {s % 3600 // 60:02d} min"
    if s >= 60:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s} s"


def summary_line(done: Reproduction) -> str:
    """``12 claims: 7 match, 2 close, 1 differs, 2 not comparable``."""
    counts = done.counts()
    total = sum(counts.values())
    parts = ", ".join(f"{counts[v]} {'differ' if v == 'differs' and counts[v] != 1 else v}" for v in VERDICTS)
    return f"{total} claims: {parts}"


def _quick_banner(done: Reproduction, code: str = "`{}`") -> str:
    """What a quick run is, for the top and the end of its pages (``code``: how a command is
    marked up: Markdown backticks, or HTML ``<code>`` around text already escaped)."""
    command = code.format(f"coschedule reproduce {done.paper.key}")
    return (f"Quick run: {done.paper.quick_note}. Its numbers come from reduced grids, not the paper's; "
            f"the full run ({command}, {done.paper.full_wall} on 2 cores) gives the verdicts the documentation "
            "states.")


def _timing(done: Reproduction) -> str:
    return (f"Wall time of this call: {format_seconds_wall(done.seconds)} ({done.computed:,} cells computed, "
            f"{done.resumed:,} found done in the databases); the campaigns took "
            f"{format_seconds_wall(done.campaign_seconds)} in all, over every call that ran them.")


def _ours(claim_outcome: Any) -> str:
    m = claim_outcome.measured
    return m.text


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_report(done: Reproduction) -> str:
    """The report in Markdown; figures linked as ``figures/KEY.png``."""
    p = done.paper
    out = [f"# {p.cite} {p.section}: {p.title}", ""]
    if done.quick:
        out += [f"> **{_quick_banner(done)}**", ""]
    out += [f"**{summary_line(done)}.** {_timing(done)}", ""]
    out += ["## Claims", "",
            "| claim | where | the paper | ours | verdict | why | depends on | figure |",
            "|---|---|---|---|---|---|---|---|"]
    for c in p.claims:
        o = done.outcomes[c.key]
        fig = f"[{c.figure}](figures/{c.figure}.png)" if c.figure else ""
        out.append("| " + " | ".join(_md_cell(x) for x in (
            c.key, c.where, f"{c.statement} ({c.paper})", _ours(o), f"**{o.verdict}**", o.reason,
            "; ".join(c.options), fig)) + " |")
    out += ["", "## Figures", ""]
    for f in p.figures:
        out += [f"### {f.title}", "", f"![{f.title}](figures/{f.key}.png)", ""]
    out += ["## Campaigns", "", "| campaign | database |", "|---|---|"]
    out += [f"| `{name}` | `{db.name}` |" for name, db in done.databases.items()]
    out += ["", f"Reproduced with `coschedule reproduce {p.key}{' --quick' if done.quick else ''}`; the "
            f"reproduction page: docs/{p.doc}.md.", ""]
    if done.quick:
        out += [f"> {_quick_banner(done)}", ""]
    return "\n".join(out)


def _png(path: Path) -> str:
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


_CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #222; }
table { border-collapse: collapse; width: 100%; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.35em 0.5em; vertical-align: top; text-align: left; }
th { background: #f3f3f3; }
.quick { background: #fff2cc; border: 1px solid #e0c060; padding: 0.6em 1em; }
.summary { font-size: 1.1em; }
figure { margin: 1.5em 0; }
figure img { max-width: 100%; border: 1px solid #ddd; }
code { background: #f6f6f6; padding: 0 0.2em; }
"""


def _html_banner(done: Reproduction) -> str:
    """The quick run's banner in HTML: the text escaped, the command in ``<code>``."""
    marker = "\x00{}\x01"
    text = html.escape(_quick_banner(done, marker))
    return text.replace("\x00", "<code>").replace("\x01", "</code>")


def html_report(done: Reproduction) -> str:
    """The report as one self-contained HTML page (figures embedded as PNG data URIs)."""
    p = done.paper
    e = html.escape
    body = [f"<h1>{e(p.cite)} {e(p.section)}: {e(p.title)}</h1>"]
    if done.quick:
        body.append(f'<p class="quick"><strong>{_html_banner(done)}</strong></p>')
    body.append(f'<p class="summary"><strong>{e(summary_line(done))}.</strong> {e(_timing(done))}</p>')
    body += ["<h2>Claims</h2>", "<table>", "<tr><th>claim</th><th>where</th><th>the paper</th><th>ours</th>"
             "<th>verdict</th><th>why</th><th>depends on</th><th>figure</th></tr>"]
    for c in p.claims:
        o = done.outcomes[c.key]
        fig = f'<a href="#fig-{e(c.figure)}">{e(c.figure)}</a>' if c.figure else ""
        body.append(
            f'<tr id="claim-{e(c.key)}"><td>{e(c.key)}</td><td>{e(c.where)}</td>'
            f"<td>{e(c.statement)} ({e(c.paper)})</td><td>{e(_ours(o))}</td>"
            f'<td style="background:{_COLOURS[o.verdict]}"><strong>{e(o.verdict)}</strong></td>'
            f"<td>{e(o.reason)}</td><td>{e('; '.join(c.options))}</td><td>{fig}</td></tr>")
    body += ["</table>", "<h2>Figures</h2>"]
    for f in p.figures:
        body.append(f'<figure id="fig-{e(f.key)}"><img src="{_png(done.figures[f.key])}" alt="{e(f.title)}">'
                    f"<figcaption>{e(f.title)}</figcaption></figure>")
    body += ["<h2>Campaigns</h2>", "<table><tr><th>campaign</th><th>database</th></tr>"]
    body += [f"<tr><td><code>{e(n)}</code></td><td><code>{e(db.name)}</code></td></tr>"
             for n, db in done.databases.items()]
    body.append("</table>")
    body.append(f"<p>Reproduced with <code>coschedule reproduce {e(p.key)}{' --quick' if done.quick else ''}"
                f"</code>; the reproduction page: docs/{e(p.doc)}.md.</p>")
    if done.quick:
        body.append(f'<p class="quick">{_html_banner(done)}</p>')
    title = f"{p.cite} {p.section}: reproduction{' (quick run)' if done.quick else ''}"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{e(title)}</title><style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")


def json_report(done: Reproduction) -> dict[str, Any]:
    """Every claim's numbers and verdict, the summary and the timing (``report.json``)."""
    p = done.paper
    return {
        "format": "coschedule/reproduction", "version": 1, "paper": p.key, "cite": p.cite, "quick": done.quick,
        "summary": summary_line(done), "counts": done.counts(), "seconds": round(done.seconds, 1),
        "campaign_seconds": round(done.campaign_seconds, 1),
        "computed": done.computed, "resumed": done.resumed,
        "claims": [{"key": c.key, "where": c.where, "statement": c.statement, "paper": c.paper,
                    "ours": done.outcomes[c.key].measured.to_dict(), "verdict": done.outcomes[c.key].verdict,
                    "reason": done.outcomes[c.key].reason, "rule": c.rule.describe(), "options": list(c.options),
                    "figure": c.figure, "stable": c.stable} for c in p.claims],
        "figures": {f.key: {"title": f.title, "file": f"figures/{f.key}.png"} for f in p.figures},
        "campaigns": {name: db.name for name, db in done.databases.items()},
    }


def write_reports(done: Reproduction, folder: Path) -> list[Path]:
    """Write ``report.md``, ``report.html`` and ``report.json`` into ``folder`` (each whole or
    not at all); return their paths."""
    from coschedule.io.files import write_text

    files = [folder / "report.md", folder / "report.html", folder / "report.json"]
    write_text(files[0], markdown_report(done))
    write_text(files[1], html_report(done))
    write_text(files[2], json.dumps(json_report(done), indent=2) + "\n")
    return files
