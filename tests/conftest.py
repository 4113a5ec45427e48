"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import pytest
from github_server import GitHubServer  # for the loopback GitHub server block below
from report_world import ReportWorld, build

from pipeline.analysis import stats

# --- loopback GitHub server (tests/github_server.py) -------------------------------------


@pytest.fixture
def github() -> Iterator[GitHubServer]:
    """A fresh loopback GitHub API + codeload server pair, stopped after the test."""
    with GitHubServer() as server:
        yield server


# --- end of loopback GitHub server ---------------------------------------------------------


# --- the census of synthetic trees that stats, reports and notebooks read (tests/report_world.py)


@pytest.fixture(scope="session")
def world(tmp_path_factory: pytest.TempPathFactory) -> ReportWorld:
    """The census database of the synthetic trees (two manifests: golden and plain), built once
    per session and only read (a test that adds to it works on a copy: ``with_runtime``)."""
    return build(tmp_path_factory.mktemp("world"))


@pytest.fixture(scope="module")
def con(world: ReportWorld) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to ``world``'s database."""
    connection = stats.connect(world.db)
    yield connection
    connection.close()


# --- the documented commands and their verdicts (tests/test_doc_commands.py) ----------------


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Note whether the documented commands are among the tests, for the summary below."""
    config.stash[_DOC_COMMANDS] = any(item.path.name == "test_doc_commands.py" for item in items)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Every fenced command of the README and docs with its verdict: run by the suite, or needs the network."""
    if not config.stash.get(_DOC_COMMANDS, False):
        return
    from doc_commands import commands

    found = commands()
    ran = sum(c.network is None for c in found)
    terminalreporter.section(f"documented commands: {ran} run, {len(found) - ran} need the network")
    for command in found:
        first = command.text.splitlines()[0].split("  #")[0].strip()
        terminalreporter.write_line(f"{command.where:20} {command.verdict[:58]:58} {first[:70]}")


_DOC_COMMANDS = pytest.StashKey[bool]()
