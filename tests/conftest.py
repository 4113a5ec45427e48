"""Shared pytest fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from github_server import GitHubServer  # for the loopback GitHub server block below

# --- loopback GitHub server (tests/github_server.py) -------------------------------------


@pytest.fixture
def github() -> Iterator[GitHubServer]:
    """A fresh loopback GitHub API + codeload server pair, stopped after the test."""
    with GitHubServer() as server:
        yield server


# --- end of loopback GitHub server ---------------------------------------------------------
