"""What every picture of the toolkit shares: a figure without pyplot (:func:`new_figure`), the files
it is saved as (:func:`figure_paths`, :func:`save_figure`), labels written only where they fit
inside their rectangle (:func:`_finish`), and the colours of failures, downtimes and jobs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coschedule.errors import SolverUnavailable

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


__all__ = ["DEFAULT_FORMATS", "DPI", "LABEL_FONTSIZE", "figure_paths", "new_figure", "save_figure"]


#: the formats a name without a known image suffix is saved in
DEFAULT_FORMATS = ("png", "svg")

#: resolution of raster formats (PNG, ...), dots per inch
DPI = 130

#: font size of the labels inside rectangles, points
LABEL_FONTSIZE = 7.0

_FAILED_EDGE = "#d62728"

_DOWN_COLOUR = "#9e9e9e"

_STOLEN_EDGE = "#7b3294"  # attempts stopped by node stealing, nodes kept for a stolen one

#: tab20 indices for jobs: the dark colours first, then the light ones (neighbours in the workload
#: differ), without the reds of failures
_BATCH_COLOURS = (0, 2, 4, 8, 10, 12, 14, 16, 18, 1, 3, 5, 9, 11, 13, 15, 17, 19)


def new_figure(**kwargs: Any) -> Figure:
    """A :class:`matplotlib.figure.Figure` (``kwargs`` go to its constructor).

    Raises
    ------
    SolverUnavailable
        when matplotlib is not installed (it is the optional extra ``plot``).
    """
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise SolverUnavailable(
            f"plots need matplotlib ({e}); install it with: pip install 'coschedule-hpc[plot]'"
        ) from None
    return Figure(**kwargs)


def _formats() -> frozenset[str]:
    from matplotlib.backend_bases import FigureCanvasBase

    return frozenset(FigureCanvasBase.get_supported_filetypes())


def figure_paths(path: str | Path) -> list[Path]:
    """The files :func:`save_figure` writes for ``path``.

    A suffix matplotlib knows (``.png``, ``.svg``, ``.pdf``, ``.eps``, ...) names one file in
    that format; any other name (``fig5``, ``fig.v2``) gets ``.png`` and ``.svg`` appended.

    >>> [str(p) for p in figure_paths("out/fig4.pdf")], [str(p) for p in figure_paths("fig4")]
    (['out/fig4.pdf'], ['fig4.png', 'fig4.svg'])
    """
    p = Path(path)
    if p.suffix.lower().lstrip(".") in _formats():
        return [p]
    return [p.with_name(f"{p.name}.{fmt}") for fmt in DEFAULT_FORMATS]


def fit_titles(fig: Figure) -> None:
    """Wrap the figure's title and every panel's title whose line is wider than the figure (or
    the panel) so that no title is cut at the edges."""
    import textwrap

    renderer = fig._get_renderer()  # the canvas of the format saved: Agg unless one was set
    texts = [(t, fig.bbox.width) for t in ([fig._suptitle] if fig._suptitle is not None else [])]
    texts += [(ax.title, max(ax.get_window_extent(renderer).width * 1.3, 1.0)) for ax in fig.axes]  # the gap beside
    for text, room in texts:
        content = text.get_text()
        if not content:
            continue
        width = text.get_window_extent(renderer).width
        if width <= 0.98 * room:
            continue
        longest = max(len(line) for line in content.splitlines())
        chars = max(20, int(longest * 0.95 * room / width))
        text.set_text("\n".join(part for line in content.splitlines() for part in (textwrap.wrap(line, chars) or [""])))


def save_figure(fig: Figure, path: str | Path) -> list[Path]:
    """Save ``fig`` as :func:`figure_paths` says (parent folders created; titles wrapped to fit,
    :func:`fit_titles`); return the files."""
    fit_titles(fig)
    outs = figure_paths(path)
    for out in outs:
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, dpi=DPI)
    return outs


def _time_label(time_unit: str | None) -> str:
    return f"time ({time_unit})" if time_unit else "time"


#: (unit, seconds) a time axis in seconds may read in, largest first
_TIME_UNITS = (("d", 86400.0), ("h", 3600.0), ("min", 60.0), ("s", 1.0))


def seconds_axis(ax: Axes, lo: float, hi: float, *, origin: float | None = None) -> str:
    """Label the x axis of seconds ``[lo, hi]`` in the unit a person reads: days over a span of
    two days, hours over two hours, minutes over two minutes, else seconds, counted from
    ``origin`` (default ``lo``): ``time (h)``, or ``time (h from 12.3 d)`` when the window does
    not start at 0 -- no ``1e6`` offset. The data stay in seconds; returns the unit."""
    from matplotlib.ticker import FuncFormatter, Locator, MaxNLocator

    from coschedule.units import format_duration

    origin = lo if origin is None else origin
    span = max(hi - lo, 1e-9)
    unit, size = next(((u, s) for u, s in _TIME_UNITS if span >= 2 * s), ("s", 1.0))
    rounded = MaxNLocator(nbins=8, steps=[1, 2, 2.5, 5, 10])

    class RoundInUnit(Locator):  # type: ignore[misc]
        """Ticks at round numbers of the unit, counted from the origin."""

        def __call__(self) -> Any:
            vmin, vmax = self.axis.get_view_interval()
            return self.tick_values(vmin, vmax)

        def tick_values(self, vmin: float, vmax: float) -> Any:
            return [origin + t * size for t in rounded.tick_values((vmin - origin) / size, (vmax - origin) / size)]

    ax.xaxis.set_major_locator(RoundInUnit())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{(x - origin) / size:,.6g}"))
    ax.set_xlabel(f"time ({unit})" if origin == 0 else f"time ({unit} from {format_duration(origin)})")
    return unit


def _text_size(text: str, fontsize: float) -> tuple[float, float]:
    """Width and height of ``text`` (lines separated by newlines) in points."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import text_to_path

    prop = FontProperties(size=fontsize)
    lines = text.split("\n")
    width = max(text_to_path.get_text_width_height_descent(line, prop, ismath=False)[0] for line in lines)
    return width, 1.25 * fontsize * len(lines)


def _points_per_unit(fig: Figure, ax: Axes) -> tuple[float, float]:
    """Points per data unit along x and y, with the axes where the layout put them."""
    box = ax.get_position()
    w_in, h_in = fig.get_size_inches()
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    return box.width * w_in * 72 / (x1 - x0), box.height * h_in * 72 / (y1 - y0)


def _fit_label(ax: Axes, scale: tuple[float, float], x: float, y: float, w: float, h: float,
               candidates: Sequence[str]) -> bool:
    """Write the first of ``candidates`` that fits in the ``w x h`` rectangle at ``(x, y)``
    (data units), centred; write nothing when none fits. Returns whether one was written."""
    w_pt, h_pt = w * scale[0], h * scale[1]
    for text in candidates:
        tw, th = _text_size(text, LABEL_FONTSIZE)
        if tw + 3 <= w_pt and th + 1 <= h_pt:
            t = ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=LABEL_FONTSIZE,
                        clip_on=True, gid="label")
            t.set_in_layout(False)
            return True
    return False


def _finish(fig: Figure, panels: Sequence[tuple[Axes, Sequence[tuple[float, float, float, float, Sequence[str]]]]],
            path: str | Path | None) -> Figure:
    """Lay ``fig`` out, then write each panel's labels where they fit (:func:`_fit_label` needs the
    final layout), and save it when ``path`` is given."""
    fig.tight_layout()
    for ax, boxes in panels:
        scale = _points_per_unit(fig, ax)
        for x, y, w, h, texts in boxes:
            _fit_label(ax, scale, x, y, w, h, texts)
    if path is not None:
        save_figure(fig, path)
    return fig


def _colour(cmap: Any, k: int) -> Any:
    return cmap(k % 20)


def _integer_locator() -> Any:
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def _runs(nodes: Sequence[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive indices as ``(first, count)``."""
    out: list[tuple[int, int]] = []
    for x in sorted(nodes):
        if out and x == out[-1][0] + out[-1][1]:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((x, 1))
    return out


def _hours(seconds: float) -> str:
    if seconds >= 86400 and seconds % 86400 == 0:
        return f"{seconds / 86400:g} d"
    if seconds >= 3600:
        return f"{seconds / 3600:g} h"
    return f"{seconds / 60:g} min"


def _tab10() -> Any:
    from matplotlib import colormaps

    return colormaps["tab10"]
