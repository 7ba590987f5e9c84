"""The reproduction pages of the documentation embed the full runs' reports, generated, not typed.

A full run's ``report.json`` is kept as ``docs/reports/KEY.json``; its page (``docs/DOC.md``, the
paper's :attr:`~coschedule.reproduce.paper.Paper.doc`) holds the claims table between two marker
lines, which :func:`embed` rewrites from it::

    <!-- reproduce aupy2017: generated from docs/reports/aupy2017.json; do not edit -->
    ...the table...
    <!-- end reproduce aupy2017 -->

The prose around the markers is kept. ``coschedule reproduce KEY --update-docs`` (after a full
run, in a clone) copies the report and rewrites the page; the tests check that each page's table
is the one its stored report gives and that the stored report has every claim of the registry,
so a page cannot drift from the code.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from coschedule.errors import CoscheduleError

__all__ = ["begin_marker", "claims_table", "embed", "end_marker", "update_docs"]


def begin_marker(key: str) -> str:
    return f"<!-- reproduce {key}: generated from docs/reports/{key}.json; do not edit -->"


def end_marker(key: str) -> str:
    return f"<!-- end reproduce {key} -->"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def claims_table(report: dict[str, Any]) -> str:
    """The claims of a stored report as a Markdown table, with its summary line above and the
    wall time of the run below."""
    if report.get("quick"):
        raise CoscheduleError(f"{report.get('paper')}: a quick run's report; the pages embed full runs only")
    lines = [f"**{report['summary']}** (the full run of `coschedule reproduce {report['paper']}`)", "",
             "| claim | where | the paper | ours | verdict | why |", "|---|---|---|---|---|---|"]
    for c in report["claims"]:
        lines.append("| " + " | ".join(_cell(x) for x in (
            c["key"], c["where"], f"{c['statement']} ({c['paper']})", c["ours"]["text"], f"**{c['verdict']}**",
            c["reason"])) + " |")
    lines += ["", f"Its campaigns took {_wall(report['campaign_seconds'])} of wall time on 2 cores "
              f"({report['computed'] + report['resumed']:,} cells)."]
    return "\n".join(lines)


def _wall(seconds: float) -> str:
    from .report import format_seconds_wall

    return format_seconds_wall(seconds)


def embed(page: str, key: str, report: dict[str, Any]) -> str:
    """``page`` with the block of ``key`` rewritten from ``report``; an error when the page has no
    such block (or two)."""
    begin, end = begin_marker(key), end_marker(key)
    pattern = re.compile(rf"^{re.escape(begin)}\n.*?^{re.escape(end)}$", flags=re.S | re.M)
    found = pattern.findall(page)
    if len(found) != 1:
        raise CoscheduleError(f"the page has {len(found)} blocks of reproduce {key} (it needs one: {begin} ... {end})")
    return pattern.sub(lambda _: f"{begin}\n{claims_table(report)}\n{end}", page)


def update_docs(key: str, report_file: Path, docs: Path, page: str) -> list[Path]:
    """Copy ``report_file`` (a full run's report.json) to ``docs/reports/KEY.json`` and rewrite the
    block of ``docs/PAGE.md``; return the two files."""
    from coschedule.io.files import write_text

    report = json.loads(report_file.read_text(encoding="utf-8"))
    if report.get("paper") != key:
        raise CoscheduleError(f"{report_file}: the report of {report.get('paper')!r}, not of {key}")
    stored = docs / "reports" / f"{key}.json"
    doc = docs / f"{page}.md"
    text = embed(doc.read_text(encoding="utf-8"), key, report)
    stored.parent.mkdir(exist_ok=True)
    write_text(stored, json.dumps(report, indent=2) + "\n")
    write_text(doc, text)
    return [stored, doc]
