"""Campaign figures: one colour and marker per heuristic across side-by-side panels (Fig. 4), one
colour per priority across the panels of Figs. 5 and 6, one legend, error bars and bands from the
pooled standard deviation of T / L(f)."""

from __future__ import annotations

import dataclasses

import pytest

pytest.importorskip("matplotlib")

from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.colors import to_hex

from coschedule.campaign.report import (
    HEURISTIC_LINESTYLE,
    HEURISTIC_STYLE,
    PRETTY,
    Group,
    plot_groups,
    plot_side_by_side,
)
from coschedule.heuristics import RIGID_HEURISTICS

PRETTY_TO_KEY = {v: k for k, v in PRETTY.items()}


def _groups(heurs, prios, axis="qbar", values=(0.0, 0.3, 0.6)) -> list[Group]:
    out = []
    for k, h in enumerate(heurs):
        for j, p in enumerate(prios):
            for i, v in enumerate(values):
                q, P = (v, None) if axis == "qbar" else (0.3, int(v))
                mean = 1.0 + 0.1 * k + 0.01 * j + 0.02 * i
                out.append(Group("synthetic", P, q, h, p, 30, mean, 0.01, mean + 0.02, mean + 0.3, 5.0,
                                 0.05 + 0.01 * i, 10000 if P is None else P))
    return out


def test_fig4_side_by_side_one_colour_per_heuristic_and_error_bars(tmp_path):
    shelf = ["r-shelf-b", "r-shelf-nb", "r-shelffill-b", "r-shelffill-nb"]
    a = _groups(shelf, ["LPT"])
    b = _groups(shelf, ["LPT"], axis="P", values=(5000, 10000, 20000))
    fig = plot_side_by_side([(None, a), (None, b)], tmp_path / "fig4.pdf", title="Fig. 4")
    assert (tmp_path / "fig4.pdf").read_bytes()[:5] == b"%PDF-"
    left, right = fig.axes
    assert left.get_title() == "(a) LPT, $P$ = 10000" and right.get_title() == r"(b) LPT, $\bar{q}$ = 0.3"
    assert left.get_xlabel().startswith(r"$\bar{q}$") and right.get_xlabel().startswith("$P$")
    for ax in (left, right):
        curves = [ln for ln in ax.get_lines() if ln.get_label() in PRETTY_TO_KEY]
        assert len(curves) == 4
        for ln in curves:
            h = PRETTY_TO_KEY[ln.get_label()]
            assert to_hex(ln.get_color()) == to_hex(HEURISTIC_STYLE[h][0])
            assert ln.get_marker() == HEURISTIC_STYLE[h][1]
        assert len(ax.containers) == 4  # one error-bar container per heuristic
        assert ax.get_legend() is None
    assert len(fig.legends) == 1 and len(fig.legends[0].get_texts()) == 4
    assert "standard deviation" in fig.get_suptitle()
    with pytest.raises(ValueError, match="one priority"):
        plot_side_by_side([(None, _groups(shelf, ["LPT", "LA"]))])


def test_every_registry_name_has_a_name_colour_marker_and_line_style_of_its_own():
    assert set(PRETTY) == set(HEURISTIC_STYLE) == set(HEURISTIC_LINESTYLE) == set(RIGID_HEURISTICS)
    assert len(set(PRETTY.values())) == len(PRETTY)
    colours = [to_hex(c) for c, _ in HEURISTIC_STYLE.values()]
    assert len(set(colours)) == len(colours)
    assert not {to_hex("C7")} & set(colours)  # the fallback colour of an unknown name
    dashes = [repr(ls) for ls in HEURISTIC_LINESTYLE.values()]
    assert len(set(dashes)) == len(dashes)
    assert PRETTY["r-shelffill-nb-queue"] == "R-ShelfFill-NB (queue)"


def test_fig4_refill_eight_shelf_curves_eight_colours():
    shelf = ["r-shelf-b", "r-shelf-nb", "r-shelffill-b", "r-shelffill-nb", "r-shelffill-b-failed",
             "r-shelffill-nb-failed", "r-shelffill-b-queue", "r-shelffill-nb-queue"]
    fig = plot_side_by_side([(None, _groups(shelf, ["LPT"]))])
    (ax,) = [a for a in fig.axes if a.get_visible()]
    curves = [ln for ln in ax.get_lines() if ln.get_label() in PRETTY_TO_KEY]
    assert sorted(PRETTY_TO_KEY[ln.get_label()] for ln in curves) == sorted(shelf)
    assert len({(to_hex(ln.get_color()), ln.get_marker()) for ln in curves}) == 8
    assert len({to_hex(ln.get_color()) for ln in curves}) == 8
    for ln in curves:
        assert to_hex(ln.get_color()) == to_hex(HEURISTIC_STYLE[PRETTY_TO_KEY[ln.get_label()]][0])


def test_fig5_grid_priorities_keep_their_colour_in_every_panel():
    heurs = ["r-list-0", "r-list-1", "r-list-q", "r-shelffill-b", "r-shelffill-nb"]
    prios = ["LPT", "SPT", "LA"]
    fig = plot_groups(_groups(heurs, prios), title="Fig. 5")
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) == 6
    colour_of: dict[str, set] = {}
    for ax in visible[:5]:
        lines = [ln for ln in ax.get_lines() if ln.get_marker() not in (None, "None", "")]
        assert len(lines) == 3
        for ln in lines:
            colour_of.setdefault(ln.get_marker(), set()).add(ln.get_color())
        assert sum(isinstance(c, PolyCollection) for c in ax.collections) == 3  # one band per curve
        assert ax.get_legend() is None
    assert all(len(c) == 1 for c in colour_of.values()) and len(colour_of) == 3  # one colour per priority
    assert len(visible[5].get_lines()) == 5 and not visible[5].collections  # (f): every heuristic, no band
    assert len(fig.legends) == 1
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert set(prios) <= set(texts) and "R-List-0; LPT" in texts
    assert all(ax.get_xlabel().startswith(r"$\bar{q}$") for ax in visible)
    assert "Fig. 5" in fig.get_suptitle()


def test_one_priority_group_plot_is_one_panel_without_bands():
    fig = plot_groups(_groups(["r-list-0", "r-list-q"], ["LPT"]), bands=False)
    (ax,) = fig.axes
    assert len(ax.get_lines()) == 2 and not ax.containers
    assert not any(isinstance(c, LineCollection) for c in ax.collections)


def test_bars_and_bands_stop_at_one():
    """T / L(f) is never below 1: a mean of 1.05 with a standard deviation of 0.3 draws its bar
    and its band from 1, not from 0.75."""
    wide = [dataclasses.replace(g, mean=1.05, pooled_std=0.3) for g in _groups(["r-list-0", "r-list-1"], ["LPT", "LA"])]
    fig = plot_side_by_side([(None, [g for g in wide if g.priority == "LPT"])])
    (ax,) = fig.axes
    lows = [seg[:, 1].min() for c in ax.collections if isinstance(c, LineCollection) for seg in c.get_segments()]
    assert lows and min(lows) >= 1.0 - 1e-9
    fig = plot_groups(wide)
    bands = [c for ax in fig.axes for c in ax.collections if isinstance(c, PolyCollection)]
    assert bands and all(p.vertices[:, 1].min() >= 1.0 - 1e-9 for c in bands for p in c.get_paths())
