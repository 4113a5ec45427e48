"""Every chart the reports write reads at 100% zoom (``pipeline.report.legibility``): no two texts
run together and none leaves the figure. The charts are drawn by each report's own builder from
the committed reports' data, and from frames with extreme values (counts in the thousands and
millions, long repository and SDK names, years of history, ten years of monthly timeline with events
days apart); a crowded figure shows the check fails
where it should."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import date, datetime, timedelta
from pathlib import Path

import polars as pl
import pytest
from matplotlib.figure import Figure

from pipeline.report import census, population, runtime_census
from pipeline.report.legibility import drawn_texts, problems
from pipeline.report.population_data import PopulationData
from pipeline.report.population_runtime import CHART as POPULATION_FUNNEL
from pipeline.report.tables import CHARTS
from pipeline.report.timeline_plots import CHART as TIMELINE_CHART

REPORTS = Path(__file__).resolve().parents[2] / "reports"
COMMITTED = sorted(p.parent.parent for p in REPORTS.glob("*/data/report.json"))
HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]
#: repository names as long as GitHub's are in practice, and one at its limits
LONG_REPOS = [f"an-organisation-with-a-long-name-{n}/model-context-protocol-server-for-{n}-things" for n in range(7)]
LONG_REPOS.append("o" * 39 + "/" + "r" * 100)


def _counts(n: int, top: int) -> list[int]:
    """``n`` counts falling from ``top`` (some of them 0)."""
    return [top // (k + 1) if k % 4 != 3 else 0 for k in range(n)]


def _published_vs_measured() -> pl.DataFrame:
    terms = [*HINTS, "annotations"]
    rows: list[dict[str, object]] = [
        {"repo": repo, "commit": "c" * 40, "term": term, "published": published, "measured": measured,
         "difference": None if published is None else measured - published, "in_server": measured // 2,
         "in_examples": measured // 8, "in_tests": measured // 4,
         "in_docs": measured - measured // 2 - measured // 8 - measured // 4}
        for k, repo in enumerate(LONG_REPOS) for t, term in enumerate(terms)
        for measured in [48_213 // (k + t + 1)] for published in [None if k == 3 else measured * 11 // 10]]
    return pl.DataFrame(rows)


def _hint_coverage(tools: int, annotated: int) -> pl.DataFrame:
    readings = {"declared in source": annotated, "on the wire": annotated * 21 // 20}
    return pl.DataFrame([{"reading": reading, "field": field, "tools": tools, "annotated_tools": marked,
                          "annotated_share": marked / tools, "set": marked - k, "set_true": marked // 2 - k,
                          "set_false": marked // 4, "set_dynamic": marked - marked // 2 - marked // 4}
                         for reading, marked in readings.items()
                         for k, field in enumerate([*HINTS, "title"])])


def _runtime_agreement() -> pl.DataFrame:
    servers = [repo.split("/")[1] for repo in LONG_REPOS[:5]]
    return pl.DataFrame([{"server": server, "repo": repo, "hint": hint, "both": 9_400 // (k + 1),
                          "same": 8_000 // (k + 1), "added_on_wire": 900 // (k + 1), "dropped_on_wire": 300,
                          "differ": 150, "resolved": 50, "as_expected": 8_500 // (k + 1), "source_only": 3,
                          "runtime_only": 4}
                         for k, (server, repo) in enumerate(zip(servers, LONG_REPOS, strict=False)) for hint in HINTS])


def _history() -> pl.DataFrame:
    start = datetime(2021, 1, 4)
    rows = [{"repo": repo, "commit": f"{n:040x}", "committed_at_utc": start + timedelta(days=5 * n), "term": term,
             "count": 40 * n + 7 * t, "published": 4_000 + 100 * t, "pinned": n == 150}
            for repo in LONG_REPOS[6:] for t, term in enumerate([*HINTS, "annotations"]) for n in range(220)]
    return pl.DataFrame(rows).cast({"committed_at_utc": pl.Datetime("us")})


def _extreme_census() -> census.ReportData:
    data = census.load(REPORTS / "published-2026")
    roles = pl.DataFrame([{"repo": repo, "commit": "c" * 40, "role": role, "mcp_tools": 5_000 // (k + 1) * (r + 1),
                           "annotated_tools": 3_000 // (k + 1) if role == "server" else 0,
                           "lookalike_tools": 1_200 // (k + 1), "rules": ["default"]}
                          for k, repo in enumerate(LONG_REPOS) for r, role in enumerate(["server", "example", "test"])])
    sdks = ["python-mcp", "ts-mcp", "a-look-alike-framework-with-a-long-name", "go-official"]
    by_sdk = pl.DataFrame([{"repo": repo, "commit": "c" * 40, "sdk": sdk, "language": "python", "is_mcp": s != 2,
                            "tools": 41_000 // (k + s + 1), "annotated_tools": 9_000 // (k + s + 1), "via_wrapper": 0}
                           for k, repo in enumerate(LONG_REPOS) for s, sdk in enumerate(sdks)])
    return replace(data, published_vs_measured=_published_vs_measured(), tools_by_role=roles, tools_by_sdk=by_sdk,
                   hint_coverage=_hint_coverage(48_213, 29_640), runtime_agreement=_runtime_agreement(),
                   history_series=_history())


def _timeline() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Ten years of months, up to 41,000 servers and millions of matches; eight events, some days apart,
    one before the first month, with long names."""
    months = [datetime(2016 + n // 12, n % 12 + 1, 1) for n in range(121)]
    ends = [later - timedelta(seconds=1) for later in months[1:]]
    adoption = pl.DataFrame({
        "period": [f"{m:%Y-%m}" for m in months[:-1]], "period_end_utc": ends,
        "servers_alive": [340 * n for n in range(120)], "servers_annotating": [n * n for n in range(120)],
        "servers_read_only_matches": [n * n + 900 for n in range(120)],
        "read_only_tools": [18_000 * n for n in range(120)], "read_only_matches": [2_100_000 - 17_000 * n
                                                                                   for n in range(120)]})
    names = ["the-model-context-protocol-specification-of-a-long-name", "python-sdk (mcp)", "fastmcp (jlowin)",
             "typescript-sdk", "go-sdk", "mcp-go (mark3labs)", "fastmcp (punkpeye)", "rust-sdk (rmcp)"]
    days = [-40, 3000, 3001, 3002, 3010, 3300, 3301, 3600]
    events = pl.DataFrame({"date": [date(2016, 1, 1) + timedelta(days=d) for d in days], "what": names,
                           "version": [f"{k}.{k * 7}.{k * 13}-a-long-prerelease-tag" for k in range(8)],
                           "source": ["somewhere"] * 8, "bound": [k % 2 == 0 for k in range(8)]})
    return adoption, events


def _extreme_population() -> PopulationData:
    data = population.load(REPORTS / "registry-seed-2025-05")
    shares = [0.0, 0.1, 0.3, 0.6, 0.8, 1.0]
    servers = pl.DataFrame({"repo": [f"o/r{n}" for n in range(41_000)], "commit": ["c" * 40] * 41_000,
                            "server_tools": [10] * 41_000, "annotated_tools": [0] * 41_000,
                            "annotated_share": [shares[n % 7 % 6] for n in range(41_000)],
                            "annotates": ["some"] * 41_000})
    names = [f"sdk-{n}-{'with-a-very-long-name-' * (n % 3)}x" for n in range(16)]
    by_sdk = pl.DataFrame({"sdk": names, "language": ["python"] * 16, "repositories": _counts(16, 900),
                           "server_tools": [c + 5 for c in _counts(16, 1_250_000)],
                           "annotated_tools": _counts(16, 400_000), "annotated_share": [0.3] * 16})
    steps = ["resolve", "variables", "transport", "install", "start", "initialize", "tools/list", "ok"]
    funnel = pl.DataFrame({"step": steps, "packages": _counts(8, 48_000), "tools": [0] * 7 + [290_000]})
    adoption, events = _timeline()
    return replace(data, servers=servers, by_sdk=by_sdk, hint_coverage=_hint_coverage(1_048_213, 729_640),
                   runtime_funnel=funnel, timeline_adoption=adoption, timeline_events=events)


def _extreme_runtime_census() -> runtime_census.RuntimeCensusData:
    folder = next(p for p in COMMITTED
                  if json.loads((p / "data" / "report.json").read_text()).get("layout") == runtime_census.LAYOUT)
    data = runtime_census.load(folder)
    funnel = data.cause_funnel.with_columns(packages=pl.Series(_counts(data.cause_funnel.height, 1_269_000)))
    return replace(data, cause_funnel=funnel)


def _unreadable(figures: dict[str, Figure]) -> dict[str, list[str]]:
    """The problems of each figure that has any, by file name."""
    return {name: found for name, figure in figures.items() if (found := problems(figure))}


@pytest.mark.parametrize("folder", COMMITTED, ids=lambda p: p.name)
def test_every_chart_of_a_committed_report_reads(folder: Path) -> None:
    figures = census.rebuilt_charts(folder)

    assert figures
    assert _unreadable(figures) == {}


def test_the_census_charts_read_with_extreme_values() -> None:
    figures = census.charts(_extreme_census())

    assert set(figures) == set(CHARTS)  # the runtime agreement and history too
    assert _unreadable(figures) == {}


def test_the_population_charts_read_with_extreme_values() -> None:
    figures = population.charts(_extreme_population())

    assert POPULATION_FUNNEL in figures
    assert TIMELINE_CHART in figures
    assert _unreadable(figures) == {}


def test_the_runtime_census_chart_reads_with_extreme_values() -> None:
    figures = runtime_census.charts(_extreme_runtime_census())

    assert _unreadable(figures) == {}


def _crowded() -> Figure:
    """Twenty-one tick labels of five digits on a narrow axis under a title wider than the figure."""
    figure = Figure(figsize=(3, 2), layout="constrained")
    ax = figure.subplots()
    ax.plot([0, 20_000], [0, 1])
    ax.set_xticks(range(0, 20_001, 1_000))
    ax.set_title("a title much wider than the three inches of the figure it stands in")
    return figure


def test_a_crowded_figure_has_problems_naming_its_texts() -> None:
    found = problems(_crowded())

    assert "axes 1 x tick label '1000' and axes 1 x tick label '2000' overlap" in found
    title = "axes 1 title 'a title much wider than the three inche…' leaves the figure (left by "
    assert any(p.startswith(title) and ", right by " in p for p in found), found
    assert all(" and " in p or "leaves the figure" in p for p in found)


def test_texts_that_are_not_drawn_are_not_checked() -> None:
    figure = _crowded()
    ax = figure.axes[0]
    ax.set_xlim(0, 1_500)  # the ticks past 1500 are not drawn
    ax.set_title("")
    ax.yaxis.set_visible(False)

    assert problems(figure) == []
    assert sorted(drawn_texts(figure).values()) == ["axes 1 x tick label '0'", "axes 1 x tick label '1000'"]
