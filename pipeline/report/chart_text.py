"""The texts of the charts, made to fit: counts with few ticks and thousands separators, names
shortened in the middle, repository names over two lines.

``pipeline.report.plots`` and ``pipeline.report.population_plots`` use them so that every chart
reads at 100% zoom whatever the numbers and names (``pipeline.report.legibility`` checks it).
"""

from __future__ import annotations

from matplotlib.axis import Axis
from matplotlib.ticker import MaxNLocator, StrMethodFormatter

#: the format of a count on an axis or a bar: thousands separated (7,933)
COUNT = "{:,.0f}"
#: the most characters of a name on an axis (a longer one loses its middle)
NAME_CHARACTERS = 48


def count_axis(axis: Axis, bins: int) -> None:
    """Whole-number ticks on ``axis``, at most ``bins`` intervals, thousands separated: a narrow
    panel takes fewer bins, so that ``800`` and ``1600`` do not run together."""
    axis.set_major_locator(MaxNLocator(nbins=bins, integer=True))
    axis.set_major_formatter(StrMethodFormatter(COUNT.replace("{", "{x")))


def count(value: int) -> str:
    """``value`` thousands separated, as the axes write it."""
    return COUNT.format(value)


def short(name: str, characters: int = NAME_CHARACTERS) -> str:
    """``name`` in at most ``characters`` characters: a longer one keeps its start and end around
    an ellipsis (``an-organisation…servers · python-mcp``)."""
    if len(name) <= characters:
        return name
    head = (characters - 1) // 2
    return name[:head] + "\N{HORIZONTAL ELLIPSIS}" + name[len(name) - (characters - 1 - head):]


def repo_lines(repo: str, characters: int) -> str:
    """``owner/name`` on two lines (``owner/`` above ``name``) when it is longer than
    ``characters``, each line shortened to that."""
    if len(repo) <= characters or "/" not in repo:
        return short(repo, characters)
    owner, name = repo.split("/", 1)
    return f"{short(owner + '/', characters)}\n{short(name, characters)}"
