"""``pipeline.report.plots``: frames in, figures out, drawn from the numbers given and nothing else."""

from __future__ import annotations

import sys

import numpy as np
import polars as pl
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from pipeline.report import plots

COVERAGE = pl.DataFrame(
    {
        "reading": ["declared in source"] * 5 + ["on the wire"] * 5,
        "field": ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "title"] * 2,
        "tools": [8] * 10,
        "annotated_tools": [4] * 5 + [5] * 5,
        "annotated_share": [0.5] * 5 + [0.625] * 5,
        "set": [3, 1, 1, 3, 2, 4, 2, 3, 4, 2],
        "set_true": [3, 1, 1, 1, None, 3, 2, 1, 2, None],
        "set_false": [0, 0, 0, 2, None, 1, 0, 2, 2, None],
        "set_dynamic": [0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
    }
)

PUBLISHED = pl.DataFrame(
    {
        "repo": ["a/x", "a/y", "a/x", "a/y", "a/x", "a/y"],
        "commit": ["c1", "c2"] * 3,
        "term": ["readOnlyHint", "readOnlyHint", "annotations", "annotations", "ToolAnnotations", "ToolAnnotations"],
        "published": [0, 0, 30, None, None, None],
        "measured": [0, 0, 9, 4, 0, None],
        "difference": [0, 0, -21, None, None, None],
        "in_server": [0, 0, 1, 0, 0, None],
        "in_examples": [0, 0, 3, 0, 0, None],
        "in_tests": [0, 0, 2, 0, 0, None],
        "in_docs": [0, 0, 3, 4, 0, None],
    }
)

TOOLS = pl.DataFrame(
    {
        "repo": ["a/x", "a/x", "a/y"],
        "commit": ["c1", "c1", "c2"],
        "sdk": ["python-mcp", "langchain", "go-official"],
        "language": ["python", "python", "go"],
        "is_mcp": [True, False, True],
        "tools": [5, 2, 13],
        "annotated_tools": [3, 0, 0],
        "via_wrapper": [0, 0, 0],
    }
)

AGREEMENT = pl.DataFrame(
    {
        "server": ["s1"] * 4 + ["s2"] * 4,
        "repo": ["a/x"] * 4 + ["a/y"] * 4,
        "hint": ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] * 2,
        "both": [4] * 4 + [2] * 4,
        "same": [2, 3, 3, 2, 2, 1, 2, 1],
        "added_on_wire": [1, 1, 1, 1, 0, 1, 0, 0],
        "dropped_on_wire": [1, 0, 0, 1, 0, 0, 0, 0],
        "differ": [0, 0, 0, 0, 0, 0, 0, 1],
        "resolved": [0] * 8,
        "as_expected": [3, 4, 3, 3, 2, 1, 2, 1],
        "source_only": [0] * 4 + [1] * 4,
        "runtime_only": [0] * 4 + [1] * 4,
    }
)


def bars(figure: Figure, panel: int = 0) -> list[Rectangle]:
    """The bars of one panel, in drawing order."""
    return [p for p in figure.axes[panel].patches if isinstance(p, Rectangle)]


def test_hint_coverage_chart_stacks_declared_true_false_and_dynamic() -> None:
    figure = plots.hint_coverage_chart(COVERAGE)

    assert isinstance(figure, Figure)
    assert len(figure.axes) == 2
    source = bars(figure)
    # four series of five bars each (true, false, dynamic, literal title), fields drawn bottom-up
    assert len(source) == 20
    true_widths = [b.get_width() for b in source[:5]][::-1]
    assert true_widths == [3, 1, 1, 1, 0]
    false_widths = [b.get_width() for b in source[5:10]][::-1]
    assert false_widths == [0, 0, 0, 2, 0]
    assert [b.get_width() for b in source[10:15]][::-1] == [0, 0, 0, 0, 1]  # the dynamic title
    assert [b.get_width() for b in source[15:20]][::-1] == [0, 0, 0, 0, 1]  # the literal title
    assert figure.axes[0].get_title() == "declared in source\n8 tools, 4 annotated (dashed)"
    assert figure.axes[1].get_title() == "on the wire\n8 tools, 5 annotated (dashed)"


def test_published_vs_measured_chart_draws_terms_with_a_non_zero_figure() -> None:
    figure = plots.published_vs_measured_chart(PUBLISHED)

    assert [ax.get_ylabel() for ax in figure.axes] == ["annotations\nmatches"]
    heights = [b.get_height() for b in bars(figure)]
    assert heights == [1, 0, 3, 0, 2, 0, 3, 4]  # server code, examples, tests, docs; for a/x then a/y
    published = np.asarray(figure.axes[0].collections[0].get_offsets()).tolist()
    assert published == [[0.0, 30.0]]  # a/y has no published figure
    assert figure.get_suptitle().splitlines()[1] == (
        "not drawn, every figure 0 or not published: readOnlyHint, ToolAnnotations")


def test_tools_by_sdk_chart_draws_every_row() -> None:
    figure = plots.tools_by_sdk_chart(TOOLS)
    ax = figure.axes[0]

    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["a/y · go-official", "a/x · langchain", "a/x · python-mcp"]
    widths = [b.get_width() for b in bars(figure)]
    assert widths == [13, 2, 5, 0, 0, 3]  # all tools, then annotated MCP ones
    assert [t.get_text() for t in figure.legends[0].get_texts()][2] == "look-alike tools (not MCP)"


ROLES = pl.DataFrame(
    {
        "repo": ["a/x", "a/x", "a/x", "a/y"],
        "commit": ["c1"] * 3 + ["c2"],
        "role": ["server", "example", "test", "test"],
        "mcp_tools": [5, 2, 7, 13],
        "annotated_tools": [3, 0, 1, 4],
        "lookalike_tools": [1, 0, 0, 2],
        "rules": [["default (6)"], ["folder:examples/ (2)"], ["folder:tests/ (7)"], ["file:*_test.go (15)"]],
    }
)


def test_tools_by_role_chart_stacks_server_example_and_test_tools() -> None:
    figure = plots.tools_by_role_chart(ROLES)
    ax = figure.axes[0]

    assert [t.get_text() for t in ax.get_yticklabels()] == ["a/y", "a/x"]  # top-down: a/x first
    widths = [b.get_width() for b in bars(figure)]
    # server, example, test (a/y then a/x), the annotated server tools, then the look-alikes after them
    assert widths == [0, 5, 0, 2, 13, 7, 0, 3, 2, 1]
    assert [b.get_x() for b in bars(figure)][8:] == [13, 14]  # look-alikes start where the MCP tools end
    assert [t.get_text() for t in figure.legends[0].get_texts()][:3] == ["server tools", "example tools", "test tools"]
    assert [t.get_text() for t in plots.tools_by_role_chart(ROLES.clear()).axes[0].texts] == [
        "no tool definition found"]


def test_runtime_agreement_chart_stacks_each_hint_per_server() -> None:
    figure = plots.runtime_agreement_chart(AGREEMENT)

    assert [ax.get_title() for ax in figure.axes] == ["readOnlyHint", "destructiveHint", "idempotentHint",
                                                      "openWorldHint"]
    assert [t.get_text() for t in figure.axes[0].get_yticklabels()] == ["s2", "s1"]  # top-down: s1 first
    # five series (same, added, dropped, differ, resolved) of two bars, servers drawn bottom-up
    widths = [b.get_width() for b in bars(figure, 3)]
    assert widths == [1, 2, 0, 1, 0, 1, 1, 0, 0, 0]
    assert [b.get_x() for b in bars(figure, 3)][6:8] == [1, 4]  # differ starts where the others end
    expected = np.asarray(figure.axes[0].collections[0].get_offsets()).tolist()
    assert expected == [[2.0, 0.0], [3.0, 1.0]]  # received as expected: s2 (bottom), s1
    assert figure.axes[0].get_xlabel() == "tools on both sides"
    labels = [t.get_text() for t in figure.legends[0].get_texts()]
    assert {"same", "added on wire", "dropped on wire", "differ", "received as expected on the wire"} <= set(labels)


def test_empty_frames_give_a_figure_that_says_so() -> None:
    tools = plots.tools_by_sdk_chart(TOOLS.clear())
    published = plots.published_vs_measured_chart(PUBLISHED.filter(pl.col("term") == "ToolAnnotations"))
    agreement = plots.runtime_agreement_chart(AGREEMENT.clear())

    assert [t.get_text() for t in tools.axes[0].texts] == ["no tool definition found"]
    assert [t.get_text() for t in published.axes[0].texts] == ["no term has a non-zero published figure or match"]
    assert [t.get_text() for t in agreement.axes[0].texts] == ["no captured server is paired with a scanned repository"]


def test_plots_leave_pyplot_alone() -> None:
    plots.hint_coverage_chart(COVERAGE)

    assert "matplotlib.pyplot" not in sys.modules
