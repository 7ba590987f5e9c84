"""``coschedule reproduce PAPER``: a paper's experiments as one command, with a report of every claim.

* :mod:`.claims` -- a claim, what we measured, the verdict's rules;
* :mod:`.paper` -- a paper's campaigns (full and quick), figures and claims;
* :mod:`.papers` -- one module per paper (``aupy2017``, ...), :mod:`.registry` finds them;
* :mod:`.results` -- the campaigns' rows and summaries the claims read;
* :mod:`.run` -- :func:`reproduce`: run the campaigns (resumable), draw, judge, report;
* :mod:`.report` -- ``report.md``, ``report.html`` (self-contained) and ``report.json``.
"""

from typing import TYPE_CHECKING

from coschedule._lazy import attach

if TYPE_CHECKING:
    from .claims import VERDICTS, Claim, Measured, Outcome
    from .paper import Campaign, Figure, Paper
    from .registry import get_paper, paper_keys
    from .report import Reproduction
    from .run import reproduce

__all__ = ["VERDICTS", "Campaign", "Claim", "Figure", "Measured", "Outcome", "Paper", "Reproduction", "get_paper",
           "paper_keys", "reproduce"]

__getattr__, __dir__ = attach(__name__, {
    ".claims": ("VERDICTS", "Claim", "Measured", "Outcome"),
    ".paper": ("Campaign", "Figure", "Paper"),
    ".registry": ("get_paper", "paper_keys"),
    ".report": ("Reproduction",),
    ".run": ("reproduce",),
})
