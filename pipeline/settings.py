"""Every external location and limit of a census, with one default and one variable each.

A test points the whole pipeline at a loopback server with ``Settings(api_url=...)``;
a user does the same with ``--api-url`` or ``GITHUB_API_URL``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_DB = Path("data/census.duckdb")
DEFAULT_CACHE = Path("data/archives")

#: environment variable for each setting (the token has no flag: it is read from here only)
ENV = {
    "api_url": "GITHUB_API_URL",
    "db_path": "CENSUS_DB",
    "cache_dir": "CENSUS_CACHE",
    "token": "GITHUB_TOKEN",
}


@dataclass(frozen=True)
class Settings:
    """Where a census reads and writes, and how patient it is with the network."""

    db_path: Path = DEFAULT_DB
    """DuckDB database file (``--db``, ``CENSUS_DB``)."""
    cache_dir: Path = DEFAULT_CACHE
    """content-addressed archive cache (``--cache``, ``CENSUS_CACHE``)."""
    api_url: str = DEFAULT_API_URL
    """GitHub REST API root (``--api-url``, ``GITHUB_API_URL``)."""
    token: str | None = field(default=None, repr=False)
    """GitHub token, from ``GITHUB_TOKEN`` only; never printed (``repr=False``)."""
    attempts: int = 5
    """tries per HTTP request before the repository is skipped."""
    backoff_seconds: float = 1.0
    """first retry delay; doubled on each further try."""
    max_wait_seconds: float = 900.0
    """longest rate-limit wait accepted; a longer one skips the repository."""
    timeout_seconds: float = 60.0
    """connect and read timeout for one HTTP request."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Settings from the environment, then explicit ``overrides`` (``None`` ignored)."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for name, variable in ENV.items():
            if env.get(variable):
                values[name] = env[variable]
        values.update({k: v for k, v in overrides.items() if v is not None})
        for name in ("db_path", "cache_dir"):
            if name in values:
                values[name] = Path(str(values[name]))
        return cls(**values)  # type: ignore[arg-type]

    def redact(self, text: str) -> str:
        """``text`` with the token, if any, replaced by ``***``."""
        return text.replace(self.token, "***") if self.token else text
