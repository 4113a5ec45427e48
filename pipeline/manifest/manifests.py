"""Census manifests: a TOML file of repositories pinned at full commit SHAs.

``load`` validates the whole file before any work starts and raises one
:class:`~pipeline.errors.ManifestError` whose lines each name the file and the entry.
``write_commits`` writes resolved commits back, keeping comments, order and layout.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit

from pipeline.errors import ManifestError
from pipeline.manifest import terms as term_sets

# \Z, not $: "$" also matches before a trailing newline
COMMIT_RE = re.compile(r"^[0-9a-fA-F]{40}\Z")
REPO_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+\Z")
CENSUS_KEYS = ("name", "description", "terms")
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


@dataclass(frozen=True)
class Manifest:
    """A validated manifest file."""

    path: Path
    """the file it was read from."""
    name: str
    """``[census].name``, or the file's stem."""
    description: str
    """``[census].description``."""
    terms: tuple[str, ...]
    """the terms to count, resolved from a set name or a list."""
    repos: tuple[RepoEntry, ...]
    """the entries, in file order."""


def load(path: Path) -> Manifest:
    """Read and validate ``path``; raise ``ManifestError`` listing every problem."""
    doc = _parse(path)
    problems: list[str] = []
    census = _census_table(doc, problems)
    repos = _entries(doc, path, problems)
    terms = _terms(census.get("terms", term_sets.DEFAULT_TERM_SET), problems)
    _check_duplicates(repos, problems)
    if problems:
        raise ManifestError("\n".join(f"{path}: {p}" for p in problems))
    return Manifest(
        path=path,
        name=str(census.get("name") or path.stem),
        description=str(census.get("description") or ""),
        terms=terms,
        repos=tuple(repos),
    )


def write_commits(path: Path, commits: Mapping[int, str]) -> None:
    """Write ``commits`` (entry index -> SHA) into ``path`` atomically, keeping the rest."""
    doc = _parse(path)
    entries = doc.get("repos")
    newline = "\r\n" if "\r\n" in doc.as_string() else "\n"
    for index, commit in commits.items():
        _set_commit(entries[index - 1], commit, newline)
    save(path, tomlkit.dumps(doc))


def save(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a crash leaves the old file or the new one),
    keeping the mode of the file it replaces."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.chmod(tmp, mode)  # mkstemp makes it 0600
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:  # newline="": write the text as it is
        out.write(text)
    os.replace(tmp, path)


def _set_commit(table: Any, commit: str, newline: str) -> None:
    """Set ``commit`` in place, or on the line after ``repo`` when it is new."""
    if "commit" in table:
        table["commit"] = commit
        return
    try:  # tomlkit has no public "insert after"; its container method keeps the layout
        value = tomlkit.item(commit)
        if not isinstance(table, tomlkit.items.InlineTable):  # a line of its own, laid out like `repo`'s
            value.trivia.indent = table.value.item("repo").trivia.indent
            value.trivia.trail = newline
        table.value._insert_after("repo", "commit", value)
    except (AttributeError, KeyError):  # pragma: no cover - a future tomlkit
        table["commit"] = commit


def _parse(path: Path) -> Any:
    try:
        text = path.read_bytes().decode("utf-8")  # not read_text: keep "\r\n" as it is
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(f"{path}: cannot read the manifest: {exc}") from exc
    try:
        return tomlkit.parse(text)
    except Exception as exc:  # tomlkit raises several types; all mean "not TOML"
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ManifestError(f"{path}: not valid TOML: {message}") from exc


def _census_table(doc: Any, problems: list[str]) -> dict[str, Any]:
    for key in doc:
        if key not in ("census", "repos"):
            problems.append(f"unknown top-level key {key!r} (allowed: census, repos)")
    census = doc.get("census", {})
    if not isinstance(census, Mapping):
        problems.append("[census] must be a table")
        return {}
    for key in census:
        if key not in CENSUS_KEYS:
            problems.append(f"[census]: unknown key {key!r} (allowed: {', '.join(CENSUS_KEYS)})")
    for key in ("name", "description"):
        if key in census and not isinstance(census[key], str):
            problems.append(f"[census]: {key} must be a string")
    return dict(census)


def _terms(spec: Any, problems: list[str]) -> tuple[str, ...]:
    if not isinstance(spec, (str, list)):
        problems.append("[census]: terms must be a term set name or a list of strings")
        return ()
    try:
        return term_sets.resolve(spec if isinstance(spec, str) else [*spec])
    except ValueError as exc:
        problems.append(f"[census]: terms: {exc}")
        return ()


def _entries(doc: Any, path: Path, problems: list[str]) -> list[RepoEntry]:
    raw = doc.get("repos", [])
    if not isinstance(raw, list):
        problems.append("repos must be an array of tables ([[repos]])")
        return []
    entries = []
    for index, table in enumerate(raw, start=1):
        entry = _entry(index, table, path.parent, problems)
        if entry is not None:
            entries.append(entry)
    return entries


def _entry(index: int, table: Any, base: Path, problems: list[str]) -> RepoEntry | None:
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


def _check_duplicates(entries: list[RepoEntry], problems: list[str]) -> None:
    first: dict[str, int] = {}
    for entry in entries:
        key = entry.repo.lower()
        if key in first:
            problems.append(
                f"entry {entry.index} ({entry.repo}): duplicate repository, "
                f"already listed as entry {first[key]}"
            )
        else:
            first[key] = entry.index
