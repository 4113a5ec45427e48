"""Every external location and limit of a census, with one default and one variable each.

A test points the whole pipeline at a loopback server with ``Settings(api_url=...)``;
a user does the same with ``--api-url`` or ``GITHUB_API_URL``. The limits against hostile
archives (:class:`Limits`) are read from ``CENSUS_MAX_ARCHIVE_BYTES`` and
``CENSUS_MAX_MEMBERS``; an archive over one is a skipped repository, never a crash.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.errors import SettingsError

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_GRAPHQL_URL = "https://api.github.com/graphql"
DEFAULT_SERVER_URL = "https://github.com"
#: where histories are cloned from (``pipeline.fetch.histories``)
DEFAULT_GIT_URL = "https://github.com"
DEFAULT_DB = Path("data/census.duckdb")
DEFAULT_CACHE = Path("data/archives")
#: repositories fetched and scanned at once by `census run` (downloads overlap; scans use the cores)
DEFAULT_JOBS = 4
#: 4 GiB: far above any MCP repository's tree, far below a gzip bomb's
DEFAULT_MAX_ARCHIVE_BYTES = 4 << 30
#: a million members: the largest public trees hold a few hundred thousand files
DEFAULT_MAX_MEMBERS = 1_000_000
#: six hours of waiting out rate limits in one run: more than a day's census ever needs
DEFAULT_MAX_TOTAL_WAIT_SECONDS = 6 * 3600

#: environment variable for each setting (the token has no flag: it is read from here only)
ENV = {
    "api_url": "GITHUB_API_URL",
    "graphql_url": "GITHUB_GRAPHQL_URL",
    "server_url": "GITHUB_SERVER_URL",
    "git_url": "CENSUS_GIT_URL",
    "db_path": "CENSUS_DB",
    "cache_dir": "CENSUS_CACHE",
    "token": "GITHUB_TOKEN",
    "max_archive_bytes": "CENSUS_MAX_ARCHIVE_BYTES",
    "max_members": "CENSUS_MAX_MEMBERS",
    "max_total_wait_seconds": "CENSUS_MAX_TOTAL_WAIT",
    "mirrors_dir": "CENSUS_MIRRORS",
    "offline": "CENSUS_OFFLINE",
}
#: what ``CENSUS_OFFLINE`` may say
SWITCH_WORDS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}
#: the settings that are whole numbers, read from text in the environment
LIMIT_NAMES = ("max_archive_bytes", "max_members", "max_total_wait_seconds")
#: the limits of one archive (``Limits``)
ARCHIVE_LIMITS = ("max_archive_bytes", "max_members")


@dataclass(frozen=True)
class Limits:
    """How much one archive may hold; past a limit the repository is skipped with the reason."""

    max_archive_bytes: int = DEFAULT_MAX_ARCHIVE_BYTES
    """most bytes of one tree: downloaded, decompressed (the tar stream), and summed over its
    files' sizes (sparse holes included) (``CENSUS_MAX_ARCHIVE_BYTES``)."""
    max_members: int = DEFAULT_MAX_MEMBERS
    """most members of one tree: files, folders, links and the rest (``CENSUS_MAX_MEMBERS``)."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The limits the environment sets (defaults otherwise); ``SettingsError`` if unusable."""
        values, problems = _limits_from(os.environ if environ is None else environ)
        if problems:
            raise SettingsError("; ".join(problems))
        return cls(**{name: value for name, value in values.items() if name in ARCHIVE_LIMITS})


@dataclass(frozen=True)
class Settings:
    """Where a census reads and writes, and how patient it is with the network."""

    db_path: Path = DEFAULT_DB
    """DuckDB database file (``--db``, ``CENSUS_DB``)."""
    cache_dir: Path = DEFAULT_CACHE
    """content-addressed archive cache (``--cache``, ``CENSUS_CACHE``)."""
    api_url: str = DEFAULT_API_URL
    """GitHub REST API root (``--api-url``, ``GITHUB_API_URL``)."""
    graphql_url: str | None = None
    """GitHub GraphQL endpoint (``--graphql-url``, ``GITHUB_GRAPHQL_URL``); ``None``: github.com's
    for github.com's API, else derived from ``api_url`` (see :attr:`graphql_endpoint`)."""
    server_url: str | None = None
    """GitHub web root whose public archive URLs serve pinned commits (``--server-url``,
    ``GITHUB_SERVER_URL``); ``None``: github.com for github.com's API, else derived from a GitHub
    Enterprise ``api_url`` (see :attr:`archive_server`)."""
    git_url: str = DEFAULT_GIT_URL
    """the git host a repository's history is cloned from when no local clone holds it
    (``--git-url``, ``CENSUS_GIT_URL``): ``{git_url}/{owner}/{name}.git`` (``pipeline.fetch.histories``)."""
    token: str | None = field(default=None, repr=False)
    """GitHub token, from ``GITHUB_TOKEN`` only; never printed (``repr=False``)."""
    attempts: int = 5
    """tries per HTTP request before the repository is skipped."""
    backoff_seconds: float = 1.0
    """first retry delay; doubled on each further try."""
    max_wait_seconds: float = 900.0
    """longest single rate-limit wait accepted; a longer one skips the repository."""
    max_total_wait_seconds: float = DEFAULT_MAX_TOTAL_WAIT_SECONDS
    """most seconds one run waits out rate limits, each shared pause counted once
    (``CENSUS_MAX_TOTAL_WAIT``); once spent, a rate-limited repository is skipped."""
    run_id: str | None = None
    """the run whose waits count against ``max_total_wait_seconds`` (set by ``Census``; ``None``:
    each client counts its own)."""
    timeout_seconds: float = 60.0
    """connect and read timeout for one HTTP request."""
    max_archive_bytes: int = DEFAULT_MAX_ARCHIVE_BYTES
    """see :attr:`Limits.max_archive_bytes` (``CENSUS_MAX_ARCHIVE_BYTES``)."""
    max_members: int = DEFAULT_MAX_MEMBERS
    """see :attr:`Limits.max_members` (``CENSUS_MAX_MEMBERS``)."""
    mirrors_dir: Path | None = None
    """a folder of local git mirrors, ``DIR/OWNER/NAME.git`` or ``DIR/OWNER/NAME``, read before
    GitHub (``--mirrors``, ``CENSUS_MIRRORS``; see ``pipeline.fetch.mirrors``)."""
    offline: bool = False
    """send no request at all: what no mirror or local source holds is skipped with the reason
    (``--offline``, ``CENSUS_OFFLINE=1``)."""
    problems: tuple[str, ...] = ()
    """environment values that could not be used; :meth:`check` raises while there are any."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Settings from the environment, then explicit ``overrides`` (``None`` ignored).

        An unusable value (a limit that is not a positive whole number) does not raise here:
        it is kept in ``problems``, and the census refuses to start (:meth:`check`).
        """
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for name, variable in ENV.items():
            if env.get(variable) and name not in LIMIT_NAMES:
                values[name] = env[variable]
        limits, problems = _limits_from(env)
        if "offline" in values:
            word = str(values.pop("offline")).strip().lower()
            if word in SWITCH_WORDS:
                values["offline"] = SWITCH_WORDS[word]
            else:
                problems.append(f"{ENV['offline']}={word[:40]!r} is not one of {', '.join(SWITCH_WORDS)}")
        values.update(limits, problems=tuple(problems))
        values.update({k: v for k, v in overrides.items() if v is not None})
        for name in ("db_path", "cache_dir", "mirrors_dir"):
            if name in values:
                values[name] = Path(str(values[name]))
        return cls(**values)  # type: ignore[arg-type]

    @property
    def graphql_endpoint(self) -> str:
        """Where GraphQL queries go: ``graphql_url``, else github.com's for github.com's API, GitHub
        Enterprise's ``/api/graphql`` for its ``/api/v3``, else ``{api_url}/graphql``."""
        if self.graphql_url:
            return self.graphql_url.rstrip("/")
        api = self.api_url.rstrip("/")
        if api == DEFAULT_API_URL:
            return DEFAULT_GRAPHQL_URL
        return api.removesuffix("/v3") + "/graphql" if api.endswith("/api/v3") else api + "/graphql"

    @property
    def archive_server(self) -> str | None:
        """Where public archive URLs (``{server}/{owner}/{name}/archive/{sha}.tar.gz``) are asked:
        ``server_url``, else github.com for github.com's API, the host of a GitHub Enterprise
        ``https://HOST/api/v3``; ``None`` (archives from the API only) for any other API."""
        if self.server_url:
            return self.server_url.rstrip("/")
        api = self.api_url.rstrip("/")
        if api == DEFAULT_API_URL:
            return DEFAULT_SERVER_URL
        return api.removesuffix("/api/v3") if api.endswith("/api/v3") else None

    @property
    def limits(self) -> Limits:
        """The limits every archive of this census is held to."""
        return Limits(self.max_archive_bytes, self.max_members)

    def check(self) -> None:
        """Raise ``SettingsError`` if a setting from the environment was unusable."""
        if self.problems:
            raise SettingsError("; ".join(self.problems))

    def redact(self, text: str) -> str:
        """``text`` with the token, if any, replaced by ``***``."""
        return text.replace(self.token, "***") if self.token else text


def _limits_from(env: Mapping[str, str]) -> tuple[dict[str, int], list[str]]:
    """The limits set in ``env`` as numbers, and a message for each value that is not one."""
    values: dict[str, int] = {}  # the wait budget too: whole seconds
    problems: list[str] = []
    for name in LIMIT_NAMES:
        text = env.get(ENV[name], "").strip()
        if not text:
            continue
        number = int(text) if text.isdigit() and text.isascii() else 0
        if number > 0:
            values[name] = number
        else:
            problems.append(f"{ENV[name]}={text[:40]!r} is not a positive whole number")
    return values, problems
