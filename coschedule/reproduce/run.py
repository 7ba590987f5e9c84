"""Run a paper's reproduction: its campaigns (resumable), its figures, its claims, its report.

:func:`reproduce` runs each campaign of the paper into ``DIR/NAME.sqlite`` through
:func:`~coschedule.campaign.run_campaign` (a second call computes only the cells missing, so an
interrupted reproduction resumes where it stopped), draws each figure into
``DIR/figures/KEY.png``, evaluates every claim on the results and writes ``DIR/report.md``,
``DIR/report.html`` (figures embedded) and ``DIR/report.json`` (:mod:`.report`).

The quick run (``quick=True``) runs each campaign's reduced grid (:attr:`.paper.Campaign.quick`)
into ``DIR/NAME-quick.sqlite``; its report says on every page that it is the quick run.
"""

from __future__ import annotations

import json
import sys
import time
import tomllib
from pathlib import Path
from typing import Any, TextIO

from .paper import Campaign, Paper
from .report import Reproduction, write_reports
from .results import Results

__all__ = ["campaign_spec", "reproduce"]


def campaign_spec(campaign: Campaign, quick: bool) -> Any:
    """The spec of ``campaign``: the bundled TOML file, with the quick run's changes (and the
    name ``NAME-quick``) when ``quick``."""
    from coschedule.campaign.spec import spec_from_dict
    from coschedule.data import spec_path

    path = spec_path(campaign.name)
    with open(path, "rb") as f:
        data = tomllib.load(f)
    data.setdefault("name", campaign.name)
    if quick:
        data = {**data, **campaign.quick, "name": f"{data['name']}-quick"}
    return spec_from_dict(data, where=str(path), base=path.parent)


def reproduce(paper: Paper, out: str | Path, *, quick: bool = False, workers: int | None = None,
              dask: str | None = None, progress: bool = False, stream: TextIO | None = None) -> Reproduction:
    """Run ``paper``'s reproduction into the folder ``out`` (module docstring)."""
    from coschedule.campaign import run_campaign

    stream = sys.stderr if stream is None else stream
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    databases: dict[str, Path] = {}
    spec_names: list[str] = []
    computed = resumed = 0
    timing = _Timing(folder / "campaign-seconds.json")
    for k, campaign in enumerate(paper.campaigns, 1):
        spec = campaign_spec(campaign, quick).normalized()
        db = folder / f"{spec.name}.sqlite"
        spec_names.append(spec.name)
        print(f"reproduce {paper.key}: campaign {k} of {len(paper.campaigns)}, {spec.name} "
              f"({spec.n_cells():,} cells) -> {db}", file=stream, flush=True)
        began = time.perf_counter()
        try:
            summary = run_campaign(spec, str(db), workers=workers, dask=dask, progress=progress,
                                   progress_stream=stream)
        finally:  # an interrupted call's time counts too: its cells are kept, the next call resumes
            timing.add(spec.name, time.perf_counter() - began)
        computed += summary.computed
        resumed += summary.skipped
        databases[campaign.name] = db
    results = Results(databases, quick=quick)
    figures = draw_figures(paper, results, folder / "figures", stream)
    outcomes = {c.key: c.evaluate(results) for c in paper.claims}
    seconds = time.perf_counter() - start
    done = Reproduction(paper, quick, outcomes, figures, databases, seconds, computed, resumed,
                        campaign_seconds=timing.total(spec_names))
    done.files = write_reports(done, folder)
    return done


class _Timing:
    """The wall seconds each campaign has taken, summed over every call that ran it
    (``DIR/campaign-seconds.json``, rewritten after each campaign, and when a call is interrupted
    by Ctrl-C, SIGTERM or an error): a resumed reproduction's report gives the whole run's time,
    not only its last call's. A call killed outright (SIGKILL, a power cut) is not counted."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.seconds: dict[str, float] = {str(k): float(v) for k, v in json.loads(path.read_text()).items()}
        except (OSError, ValueError, AttributeError):
            self.seconds = {}

    def add(self, name: str, seconds: float) -> None:
        from coschedule.io.files import write_text

        self.seconds[name] = self.seconds.get(name, 0.0) + seconds
        write_text(self.path, json.dumps(self.seconds, indent=1) + "\n")

    def total(self, names: list[str]) -> float:
        return sum(self.seconds.get(n, 0.0) for n in names)


def draw_figures(paper: Paper, results: Results, folder: Path, stream: TextIO) -> dict[str, Path]:
    """Each figure of ``paper`` as ``folder/KEY.png``."""
    from coschedule.plot.figure import save_figure

    out = {}
    for figure in paper.figures:
        print(f"reproduce {paper.key}: drawing {figure.key}", file=stream, flush=True)
        (path,) = save_figure(figure.draw(results), folder / f"{figure.key}.png")
        out[figure.key] = path
    return out
