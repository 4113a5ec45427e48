"""Census manifests: a TOML file of repositories pinned at full commit SHAs.

``load`` validates the whole file (each ``[[repos]]`` entry by ``entries.read_entry``) before any
work starts and raises one
:class:`~pipeline.errors.ManifestError` whose lines each name the file and the entry.
``write_commits`` writes resolved commits back, keeping comments, order and layout
(``pipeline.manifest.tomltext``: a new commit goes on the line after ``repo``).
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.errors import ManifestError
from pipeline.manifest import terms as term_sets
from pipeline.manifest import tomltext
from pipeline.manifest.entries import RepoEntry, read_entry

CENSUS_KEYS = ("name", "description", "terms")


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
    """Write ``commits`` (entry index -> SHA) into ``path`` atomically, keeping the rest: a new
    ``commit`` goes on the line after the entry's ``repo`` (in an inline table, right after it)."""
    save(path, tomltext.with_commits(_read(path), commits, path))


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


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")  # not read_text: keep "\r\n" as it is
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError(f"{path}: cannot read the manifest: {exc}") from exc


def _parse(path: Path) -> Any:
    return tomltext.parse(_read(path), path)


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
        entry = read_entry(index, table, path.parent, problems)
        if entry is not None:
            entries.append(entry)
    return entries


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
