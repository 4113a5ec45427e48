"""One ``[[repos]]`` entry of a manifest: ``RepoEntry``, and how ``read_entry`` reads and checks it.

Every problem is added to the caller's list as one line naming the entry (``entry 3: commit: ...``),
so a manifest reports all of its problems at once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# \Z, not $: "$" also matches before a trailing newline
COMMIT_RE = re.compile(r"^[0-9a-fA-F]{40}\Z")
REPO_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+\Z")
REPO_KEYS = ("repo", "commit", "ref", "server_paths", "server_repo", "servers", "note", "source", "published")


@dataclass(frozen=True)
class RepoEntry:
    """One ``[[repos]]`` entry of a manifest."""

    index: int
    """1-based position of the entry in the file, used in every message about it."""
    repo: str
    """``owner/name`` on GitHub (also the key of every table row)."""
    commit: str | None
    """full 40-hex commit, lower case; ``None`` until ``census pin`` resolves it."""
    ref: str | None
    """branch or tag that ``census pin`` resolves; the default branch when ``None``."""
    server_paths: tuple[str, ...] = ()
    """folders inside the tree where the MCP server lives."""
    server_repo: str | None = None
    """the repository holding the server, when it is not this one."""
    servers: tuple[str, ...] = ()
    """registry names of the MCP servers in this repository (``census discover``)."""
    note: str | None = None
    """free text carried into reports."""
    source: Path | None = None
    """local git repository or tarball read instead of GitHub (resolved path)."""
    published: tuple[tuple[str, int], ...] = ()
    """figures an article published for this tree, as (term, count) pairs."""

    @property
    def label(self) -> str:
        """``owner/name@commit`` (or ``@ref``) for messages."""
        return f"{self.repo}@{self.commit or self.ref or 'HEAD'}"


def read_entry(index: int, table: Any, base: Path, problems: list[str]) -> RepoEntry | None:
    """Entry ``index`` of a manifest (paths relative to ``base``), or ``None`` with its problems added."""
    where = f"entry {index}"
    if not isinstance(table, Mapping):
        problems.append(f"{where}: must be a table")
        return None
    if isinstance(table.get("repo"), str):
        shown = table["repo"] if table["repo"].isprintable() else repr(table["repo"])  # one line per problem
        where = f"entry {index} ({shown})"
    before = len(problems)
    for key in table:
        if key not in REPO_KEYS:
            problems.append(f"{where}: unknown key {key!r} (allowed: {', '.join(REPO_KEYS)})")
    repo = _repo_name(table, "repo", where, problems, required=True)
    commit = _string(table, "commit", where, problems)
    if commit is not None and not COMMIT_RE.match(commit):
        problems.append(f"{where}: commit {commit!r} is not 40 hexadecimal digits")
    ref = _string(table, "ref", where, problems)
    if ref is not None and (not ref.isprintable() or any(c.isspace() for c in ref)):
        problems.append(f"{where}: ref {ref!r} is not a branch or tag name")
    entry = RepoEntry(
        index=index,
        repo=repo or "",
        commit=commit.lower() if commit else None,
        ref=ref,
        server_paths=_strings(table, "server_paths", where, problems),
        server_repo=_repo_name(table, "server_repo", where, problems, required=False),
        servers=tuple(name.strip() for name in _strings(table, "servers", where, problems)),
        note=_string(table, "note", where, problems),
        source=_source(table, base, where, problems),
        published=_published(table, where, problems),
    )
    return None if len(problems) > before or repo is None else entry


def _string(table: Mapping[str, Any], key: str, where: str, problems: list[str]) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        problems.append(f"{where}: {key} must be a non-empty string")
        return None
    return str(value)


def _repo_name(
    table: Mapping[str, Any], key: str, where: str, problems: list[str], *, required: bool
) -> str | None:
    if key not in table:
        if required:
            problems.append(f"{where}: missing required key {key!r} (\"owner/name\")")
        return None
    value = _string(table, key, where, problems)
    if value is not None and not REPO_RE.match(value):
        problems.append(f"{where}: {key} {value!r} is not of the form \"owner/name\"")
        return None
    return value


def _strings(table: Mapping[str, Any], key: str, where: str, problems: list[str]) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        problems.append(f"{where}: {key} must be a list of non-empty strings")
        return ()
    return tuple(str(v).strip("/") for v in value)


def _source(table: Mapping[str, Any], base: Path, where: str, problems: list[str]) -> Path | None:
    value = _string(table, "source", where, problems)
    if value is None:
        return None
    try:
        return (base / Path(value).expanduser()).resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # NUL byte, unknown ~user, symlink loop
        reason = (str(exc).splitlines() or [type(exc).__name__])[0]
        problems.append(f"{where}: source {value!r} is not a usable path ({reason})")
        return None


def _published(table: Mapping[str, Any], where: str, problems: list[str]) -> tuple[tuple[str, int], ...]:
    value = table.get("published", {})
    ok = isinstance(value, Mapping) and all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value.values()
    )
    if not ok:
        problems.append(f"{where}: published must be a table of term = non-negative integer")
        return ()
    return tuple((str(k), int(v)) for k, v in value.items())
