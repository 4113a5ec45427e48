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
