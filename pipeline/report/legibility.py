"""Whether a chart reads at 100% zoom: no two of its texts run together and none leaves the figure.

``problems`` draws a matplotlib Figure with the Agg renderer, at the figure's dpi (the 100 that
``pipeline.report.tables.png_bytes`` saves at), and takes the window extent of every visible,
non-empty text drawn: the tick labels of the ticks inside the view, titles, the suptitle, axis
labels, legend texts, bar labels and any other text. Each problem is one line naming its texts:
two extents closer than ``GAP`` pixels (overlapping, or touching so that ``800`` and ``1600``
read as ``8001600``), or an extent past the figure's edge (a clipped title).
"""

from __future__ import annotations

from itertools import combinations

from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Text
from matplotlib.transforms import Bbox

#: the least room, in pixels, between two texts' extents: closer, they read as one
GAP = 2.0
#: how far, in pixels, an extent may reach past the figure's edge (rounding of the renderer)
EDGE_SLACK = 0.5
#: how many characters of a text a problem quotes
QUOTED = 40


def problems(figure: Figure) -> list[str]:
    """Draw ``figure`` and return its legibility problems, one line each (none: it reads)."""
    FigureCanvasAgg(figure)  # the figure's canvas from now on: savefig's PNG renderer measures the texts
    figure.canvas.draw()
    edges = Bbox.from_extents(0, 0, figure.bbox.width, figure.bbox.height)
    texts = [(name, text.get_window_extent()) for text, name in drawn_texts(figure).items()]
    found = [f"{name} leaves the figure ({_past(extent, edges)})" for name, extent in texts if _past(extent, edges)]
    found += [f"{a} and {b} overlap" for (a, box_a), (b, box_b) in combinations(texts, 2) if _close(box_a, box_b)]
    return found


def drawn_texts(figure: Figure) -> dict[Text, str]:
    """Every visible, non-empty text a draw of ``figure`` shows, with a name saying what it is
    (``axes 2 x tick label '800'``); a tick label of a tick outside the view is not drawn."""
    names: dict[Text, str] = {}
    for number, ax in enumerate(figure.axes, start=1):
        if ax.get_visible():
            names |= _axes_texts(ax, f"axes {number}")
    for legend in figure.legends:
        names |= _legend_texts(legend, "figure legend")
    for text in figure.get_children():  # figure.texts, and the suptitle (no figure.texts)
        if isinstance(text, Text):
            names[text] = f"{'suptitle' if text.get_text() == figure.get_suptitle() else 'text'} {_quote(text)}"
    return {text: name for text, name in names.items() if text.get_visible() and text.get_text().strip()}


def _axes_texts(ax: Axes, where: str) -> dict[Text, str]:
    names: dict[Text, str] = {}
    if ax.axison:
        for letter, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if axis.get_visible():
                names |= {label: f"{where} {letter} tick label {_quote(label)}" for label in _tick_labels(axis)}
                names[axis.label] = f"{where} {letter} label {_quote(axis.label)}"
                names[axis.get_offset_text()] = f"{where} {letter} offset {_quote(axis.get_offset_text())}"
    titles = {ax.get_title(loc) for loc in ("left", "center", "right")} - {""}
    for text in ax.get_children():  # the titles, and ax.texts (bar labels among them)
        if isinstance(text, Text):
            names[text] = f"{where} {'title' if text.get_text() in titles else 'text'} {_quote(text)}"
    legend = ax.get_legend()
    return names | (_legend_texts(legend, f"{where} legend") if legend and legend.get_visible() else {})


def _tick_labels(axis: Axis) -> list[Text]:
    """The labels of ``axis``'s ticks inside its view (those a draw shows)."""
    low, high = sorted(axis.get_transform().transform(list(axis.get_view_interval())).tolist())
    slack = 1e-10 * max(abs(high - low), 1.0)
    ticks = [*axis.get_major_ticks(len(axis.get_majorticklocs())), *axis.get_minor_ticks(len(axis.get_minorticklocs()))]
    inside = [tick for tick in ticks if tick.get_visible()
              and low - slack <= float(axis.get_transform().transform([tick.get_loc()])[0]) <= high + slack]
    return [label for tick in inside for label in (tick.label1, tick.label2) if label.get_visible()]


def _legend_texts(legend: Legend, where: str) -> dict[Text, str]:
    return {text: f"{where} {what} {_quote(text)}" for what, text in
            [("title", legend.get_title()), *(("text", t) for t in legend.get_texts())]}


def _quote(text: Text) -> str:
    words = " ".join(text.get_text().split())
    return repr(words if len(words) <= QUOTED else words[: QUOTED - 1] + "\N{HORIZONTAL ELLIPSIS}")


def _past(extent: Bbox, edges: Bbox) -> str:
    """Which edges of ``edges`` the ``extent`` reaches past, by how many pixels ('' if none)."""
    over = {"left": edges.x0 - extent.x0, "right": extent.x1 - edges.x1,
            "bottom": edges.y0 - extent.y0, "top": extent.y1 - edges.y1}
    return ", ".join(f"{side} by {px:.0f} px" for side, px in over.items() if px > EDGE_SLACK)


def _close(a: Bbox, b: Bbox) -> bool:
    """Whether two extents overlap or come closer than ``GAP`` pixels."""
    return bool(a.x0 < b.x1 + GAP and b.x0 < a.x1 + GAP and a.y0 < b.y1 + GAP and b.y0 < a.y1 + GAP)
