"""The campaign chart: one line per gang over the battles, drawn by matplotlib.

Only the object-oriented API with the Agg canvas is used (never pyplot), so
nothing needs a display and no global figure list grows. Gang names may be
in any script: the font list falls back from DejaVu Sans to the bundled CJK
font to Last Resort, glyph by glyph (matplotlib >= 3.6).
"""

from __future__ import annotations

import io
import logging
from collections.abc import Sequence
from functools import cache
from itertools import cycle
from typing import TYPE_CHECKING, Any

from bot.pictures import canvas
from bot.pictures.canvas import hex_colour
from bot.pictures.fonts import CJK_FONT
from bot.pictures.series import GangSeries, Measure

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CHART_WIDTH = 1200
CHART_HEIGHT = 720
DPI = 150
FONTS = ["DejaVu Sans", "WenQuanYi Micro Hei", "Last Resort High-Efficiency"]
# Colour and marker both change, so lines stay apart in grey print too.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "h", "<")
# matplotlib's "tab10": distinct, and readable on the paper colour.
COLOURS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)
PAPER = hex_colour(canvas.PAPER)
INK = hex_colour(canvas.INK)
MUTED = hex_colour(canvas.MUTED)
STYLE: dict[Any, Any] = {
    "font.family": FONTS,
    "font.size": 13,
    "axes.edgecolor": MUTED,
    "axes.labelcolor": INK,
    "xtick.color": INK,
    "ytick.color": INK,
    "text.color": INK,
    # Names are players' text: "$x$" must stay dollars, not become (or break) maths.
    "text.parse_math": False,
}


@cache
def _register_fonts() -> None:
    from matplotlib import font_manager

    font_manager.fontManager.addfont(str(CJK_FONT))
    # The fallback fonts have no bold face; matplotlib says so for every bold title.
    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)


def _battle_label(value: float, _position: int) -> str:
    return "start" if value == 0 else f"{value:.0f}"


def chart_figure(
    series: Sequence[GangSeries], measure: Measure, *, title: str | None = None
) -> Figure:
    """The chart as a matplotlib figure (1200 x 720 at 150 dpi): one line of ``measure``
    per gang in ``series`` with points, titled and labelled with the measure."""
    # matplotlib takes about a second to import: only the process that draws a chart
    # pays for it, on the picture worker's thread (its warm-up draws one).
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    _register_fonts()
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(CHART_WIDTH / DPI, CHART_HEIGHT / DPI), dpi=DPI,
                        facecolor=PAPER, layout="constrained")
        FigureCanvasAgg(figure)
        axes = figure.add_subplot()
        axes.set_facecolor(PAPER)
        axes.set_title(title or f"{measure.value} over the campaign", fontsize=16,
                       fontweight="bold", loc="left")
        drawn = [line for line in series if line.points]
        colours = cycle(COLOURS)
        handles = []
        for line, marker in zip(drawn, cycle(MARKERS), strict=False):
            xs, ys = zip(*line.values(measure), strict=True)
            handles += axes.plot(xs, ys, marker=marker, linewidth=2.2, markersize=6,
                                 color=next(colours))
        if drawn:
            # Labels given outright: a name starting with "_" would otherwise be left out.
            figure.legend(handles, [line.gang_name for line in drawn], loc="outside lower center",
                          ncols=min(3, len(drawn)), frameon=False, fontsize=12)
        else:
            axes.text(0.5, 0.5, "No battles fought yet", transform=axes.transAxes,
                      ha="center", va="center", color=MUTED, fontsize=16)
        axes.set_xlabel("Battle")
        axes.set_ylabel(measure.value)
        axes.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
        axes.xaxis.set_major_formatter(FuncFormatter(_battle_label))
        axes.yaxis.set_major_locator(MaxNLocator(integer=True))
        axes.grid(True, color="#d9cfbe", linewidth=0.8)
        axes.spines[["top", "right"]].set_visible(False)
    return figure


def campaign_chart(
    series: Sequence[GangSeries], measure: Measure, *, title: str | None = None,
    scale: float = 1.0,
) -> bytes:
    """A PNG line chart (1200 x 720) of ``measure`` for each gang in ``series``.

    ``scale`` shrinks or enlarges it whole, text and lines with it (0.5: a
    600 x 360 thumbnail laid out exactly like the full chart).
    """
    import matplotlib

    figure = chart_figure(series, measure, title=title)
    out = io.BytesIO()
    with matplotlib.rc_context(STYLE):
        figure.savefig(out, format="png", dpi=DPI * scale, facecolor=PAPER)
    return out.getvalue()
