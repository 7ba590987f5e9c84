"""Figures of schedules: functions return a matplotlib Figure (no pyplot), save by suffix, Gantt
labels only where they fit, stacked schedules on one time axis with one colour per job."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from matplotlib.figure import Figure  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from coschedule.errors import SolverUnavailable  # noqa: E402
from coschedule.families import prop4_instance, prop4_witness_schedule  # noqa: E402
from coschedule.generators import synthetic_rigid  # noqa: E402
from coschedule.heuristics import pack_approx, r_list, r_shelf_fill  # noqa: E402
from coschedule.io import load_instance  # noqa: E402
from coschedule.plot import (  # noqa: E402
    figure_paths,
    plot_coschedule,
    plot_rigid_schedule,
    plot_rigid_schedules,
    save_figure,
)
from coschedule.rigid import SilentErrors  # noqa: E402


ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


def _labels(ax) -> list:
    return [t for t in ax.texts if t.get_gid() == "label"]


# ------------------------------------------------------------------------------ files


def test_figure_paths_follow_the_suffix(tmp_path):
    assert figure_paths(tmp_path / "a.pdf") == [tmp_path / "a.pdf"]
    assert figure_paths(tmp_path / "a.PNG") == [tmp_path / "a.PNG"]
    assert figure_paths(tmp_path / "a") == [tmp_path / "a.png", tmp_path / "a.svg"]
    assert figure_paths(tmp_path / "a.v2") == [tmp_path / "a.v2.png", tmp_path / "a.v2.svg"]


def test_save_figure_writes_each_format(tmp_path):
    inst, sched = prop4_instance(3)[0], prop4_witness_schedule(3)
    fig = plot_rigid_schedule(inst, sched)
    assert isinstance(fig, Figure)
    assert save_figure(fig, tmp_path / "g.pdf") == [tmp_path / "g.pdf"]
    assert (tmp_path / "g.pdf").read_bytes()[:5] == b"%PDF-"
    assert save_figure(fig, tmp_path / "sub" / "g.svg") == [tmp_path / "sub" / "g.svg"]
    assert b"<svg" in (tmp_path / "sub" / "g.svg").read_bytes()[:2000]
    outs = save_figure(fig, tmp_path / "g")
    assert [o.name for o in outs] == ["g.png", "g.svg"]
    assert outs[0].read_bytes()[:8] == PNG
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.pdf", "g.png", "g.svg", "sub"]


def test_path_argument_saves_and_still_returns_the_figure(tmp_path):
    inst = load_instance(ROOT / "instances" / "kinp" / "figure-1-1.json")
    fig = plot_coschedule(inst, pack_approx(inst, 3), tmp_path / "packs.pdf", title="t")
    assert isinstance(fig, Figure) and (tmp_path / "packs.pdf").read_bytes()[:5] == b"%PDF-"
    assert fig.axes[0].get_xlabel() == "time (s)" and fig.axes[0].get_title() == "t"


def test_no_pyplot_and_no_backend_switch():
    code = textwrap.dedent("""
        import sys, matplotlib
        matplotlib.use("svg")
        from coschedule.families import prop3_instance, prop3_witness_schedule
        from coschedule.plot import plot_rigid_schedule
        fig = plot_rigid_schedule(prop3_instance(4)[0], prop3_witness_schedule(4))
        assert "matplotlib.pyplot" not in sys.modules
        assert matplotlib.get_backend() == "svg", matplotlib.get_backend()
        print(type(fig).__name__)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "Figure"


def test_missing_matplotlib_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    inst, sched = prop4_instance(3)[0], prop4_witness_schedule(3)
    with pytest.raises(SolverUnavailable, match=r"coschedule-hpc\[plot\]"):
        plot_rigid_schedule(inst, sched)


# ------------------------------------------------------------------------------ Gantt charts


def test_sixty_job_gantt_labels_only_what_fits():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    inst = synthetic_rigid(60, 10000, seed=4)
    f = SilentErrors.from_qbar(inst, 0.2).scenarios(inst, size=1, seed=1)[0]
    sched = r_list(inst, f, priority="LA")
    fig = plot_rigid_schedule(inst, sched)
    (ax,) = fig.axes
    assert ax.get_xlabel() == "time (s)"
    rects = [p for p in ax.patches if isinstance(p, Rectangle)]
    labels = _labels(ax)
    assert len(rects) >= len(sched.executions) == 79
    assert 20 < len(labels) < len(sched.executions)  # the small rectangles go unlabelled
    # every label written lies inside its rectangle, measured by the real renderer
    renderer = FigureCanvasAgg(fig).get_renderer()
    boxes = [r.get_window_extent(renderer) for r in rects]
    for t in labels:
        tb = t.get_window_extent(renderer)
        assert any(b.x0 <= tb.x0 and tb.x1 <= b.x1 and b.y0 <= tb.y0 and tb.y1 <= b.y1 for b in boxes), t.get_text()


def test_stacked_schedules_share_the_time_axis_and_colours():
    inst, scenario = prop4_instance(3)
    heur = r_shelf_fill(inst, scenario, backfill=False)
    best = prop4_witness_schedule(3)
    fig = plot_rigid_schedules(inst, [("heuristic", heur), ("optimum", best)], title="prop4", time_unit=None)
    top, bottom = fig.axes
    assert [top.get_title(), bottom.get_title()] == ["heuristic", "optimum"]
    assert top.get_shared_x_axes().joined(top, bottom) and top.get_xlim() == bottom.get_xlim()
    assert bottom.get_xlabel() == "time" and top.get_xlabel() == ""
    assert fig.get_suptitle() == "prop4"
    assert len(fig.legends) + sum(ax.get_legend() is not None for ax in fig.axes) == 1

    def colours(ax):  # job -> the colours of its rectangles (alpha aside: failed attempts are lighter)
        out: dict[str, set] = {}
        for p in ax.patches:
            if p.get_gid():
                out.setdefault(p.get_gid().split(" attempt")[0], set()).add(tuple(p.get_facecolor()[:3]))
        return out

    up, down = colours(top), colours(bottom)
    assert up.keys() == down.keys() and len(up) == inst.n
    assert all(len(up[j]) == 1 and up[j] == down[j] for j in up)  # one colour per job, in both panels
    with pytest.raises(ValueError):
        plot_rigid_schedules(inst, [])


def test_stacked_coschedules_heuristic_above_optimum():
    from coschedule.exact import solve_kinp
    from coschedule.plot import plot_coschedules

    inst = load_instance(ROOT / "instances" / "kinp" / "figure-1-1.json")
    heur, best = pack_approx(inst, 3), solve_kinp(inst, 3).solution
    fig = plot_coschedules(inst, [("Pack-Approx", heur), ("optimum", best)])
    top, bottom = fig.axes
    assert top.get_xlim() == bottom.get_xlim() and bottom.get_xlabel() == "time (s)"
    assert len([p for p in top.patches if p.get_gid()]) == len([p for p in bottom.patches if p.get_gid()]) == inst.n
    assert _labels(top) and _labels(bottom)


@pytest.mark.parametrize(("lo", "hi", "origin", "label", "unit"), [
    (0.0, 29_363_626.0, None, "time (d)", 86400.0),  # KTH-SP2's 340 days
    (0.0, 20_000.0, None, "time (h)", 3600.0),
    (0.0, 600.0, None, "time (min)", 60.0),
    (0.0, 50.0, None, "time (s)", 1.0),
    (1_000_000.0, 1_500_000.0, None, "time (d from 11.6 d)", 86400.0),
    (1_000_000.0, 1_020_000.0, None, "time (h from 11.6 d)", 3600.0),
])
def test_seconds_axis_reads_in_a_unit_without_offsets(lo, hi, origin, label, unit):
    from coschedule.plot.figure import new_figure, seconds_axis

    fig = new_figure()
    ax = fig.add_subplot()
    ax.plot([lo, hi], [0, 1])
    ax.set_xlim(lo, hi)
    seconds_axis(ax, lo, hi, origin=origin)
    fig.canvas.draw()
    assert ax.get_xlabel() == label
    ticks = [t for t in ax.get_xticks() if lo <= t <= hi]
    texts = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert len(ticks) >= 2 and texts
    assert all("e" not in t and "+" not in t for t in texts)  # no scientific notation, no offset
    assert ax.xaxis.get_offset_text().get_text() == ""
    steps = {round((b - a) / unit, 9) for a, b in zip(ticks, ticks[1:])}
    assert len(steps) == 1 and next(iter(steps)) in (0.5, 1, 2, 2.5, 5, 10, 20, 25, 50, 100)  # round steps of the unit


def test_titles_wider_than_the_figure_are_wrapped_to_fit(tmp_path):
    from coschedule.plot.figure import new_figure, save_figure

    fig = new_figure(figsize=(4, 3))
    ax = fig.add_subplot()
    long = "Balancing: capacity utilized / unused / lost vs confidence, one failure seed per point, KTH-SP2"
    fig.suptitle(long)
    ax.set_title("KTH-SP2 on 4x4x8, 4000 failures, c = 1, migration, and more words to cut")
    save_figure(fig, tmp_path / "f.png")
    renderer = fig._get_renderer()
    for text, room in ((fig._suptitle, fig.bbox.width), (ax.title, ax.get_window_extent(renderer).width * 1.3)):
        assert "\n" in text.get_text()
        assert text.get_window_extent(renderer).width <= room
    assert " ".join(fig._suptitle.get_text().split()) == long  # the words, all of them, in order
