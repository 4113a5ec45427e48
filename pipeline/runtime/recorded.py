"""A package catalog's own record of what its servers listed, read as captures.

toolsdk-ai/awesome-mcp-registry validates the servers it lists by starting them, and keeps what
each listed in its index, ``indexes/packages-list.json``: ``{packageName: {"path":
"<category>/<server>.json", "validated": true, "tools": {name: {"name", "description"}}}}``.
That is a third party's runtime capture of the tool names (names and descriptions only: it
keeps no annotations, so a recorded list says nothing about hints). The index says neither
when a list was recorded nor from which version, so the date comes from the catalog's
history: a list was recorded by the first commit of the index's first-parent line from which
it stayed as it is now (:func:`recorded`). The server's source is compared at the last commit
before that date (``census discover --from-captures``, rule ``by-date``).

:func:`captures` pairs each record with the catalog's entry for the package
(``pipeline.manifest.catalog``: registry, name, repository and subfolder) and makes the capture
``census ingest-catalog`` stores: transport ``recorded``, the record's date as both the capture's
and the package's date, no version. The catalog is read through git (a clone, bare or not);
nothing is fetched.
"""

from __future__ import annotations

import io
import json
import random
import tarfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline.errors import CensusError, RegistryDumpError, SourceError
from pipeline.fetch.gitrepo import GitRepo
from pipeline.manifest import catalog
from pipeline.runtime.ingest import OK, RECORDED, Capture, tool_row
from pipeline.runtime.packages import Package, packages

#: the catalog's index of validated packages and the tools each listed
INDEX = "indexes/packages-list.json"
#: the cause a recorded capture carries (``pipeline.runtime.causes``): the server answered the catalog
ANSWERED = "answered"


@dataclass(frozen=True)
class Record:
    """One package's recorded tools/list, and the catalog commit that recorded it."""

    server: str
    """the catalog's name for the server: its file under ``packages/`` without ``.json``."""
    package: str
    tools: tuple[Mapping[str, Any], ...]
    """``{"name", "description"}`` per tool, in the index's order."""
    commit: str
    recorded_at_utc: datetime


def recorded(catalog: Path) -> dict[str, Record]:
    """Every package the index at ``HEAD`` records a tools list for, by server (module doc)."""
    repo = GitRepo(catalog)
    try:
        log = repo.output("log", "--first-parent", "--reverse", "--format=%H %ct", "HEAD", "--", INDEX).decode()
    except SourceError as exc:
        raise RegistryDumpError(f"{catalog}: not a git clone of a package catalog: {exc}") from None
    since: dict[str, tuple[str, tuple[Mapping[str, Any], ...], str, int]] = {}
    lines = [line.split() for line in log.splitlines() if line.strip()]
    if not lines:
        raise RegistryDumpError(f"{catalog}: no {INDEX} in its history: not a catalog that records tools")
    kept: set[str] = set()
    for number, (commit, stamp) in enumerate(lines, start=1):
        kept = set()
        for package, server, tools in _lists(repo, commit, strict=number == len(lines)):
            kept.add(package)
            before = since.get(package)
            if before is None or before[1] != tools or before[0] != server:
                since[package] = (server, tools, commit, int(stamp))
        for gone in set(since) - kept:  # a list dropped, then recorded again, dates from its return
            del since[gone]
    return {server: Record(server, package, tools, commit, datetime.fromtimestamp(stamp, UTC))
            for package, (server, tools, commit, stamp) in sorted(since.items()) if package in kept}


def _lists(repo: GitRepo, commit: str, *, strict: bool) -> Iterator[tuple[str, str, tuple[Mapping[str, Any], ...]]]:
    """(package, server, tools) of each entry of the index at ``commit`` that records tools; an entry
    that is not of the index's shape is an error at ``HEAD`` (``strict``) and passed over before."""
    where = f"{INDEX}@{commit[:12]}"
    try:
        index = json.loads(repo.output("show", f"{commit}:{INDEX}"))
    except (SourceError, ValueError) as exc:
        if strict:
            raise RegistryDumpError(f"{where}: not the catalog's index: {exc}") from None
        return
    if not isinstance(index, dict):
        if strict:
            raise RegistryDumpError(f"{where}: not the catalog's index: not a JSON object")
        return
    for package, entry in index.items():
        if not isinstance(entry, dict) or not entry.get("tools"):
            continue
        path, tools = entry.get("path"), entry["tools"]
        if not isinstance(path, str) or not path.endswith(".json") or not isinstance(tools, dict) or \
                not all(isinstance(t, dict) for t in tools.values()):
            if strict:
                raise RegistryDumpError(f'{where}: entry "{package}": expected a "path" to a .json file and '
                                        '"tools" as an object of tool objects')
            continue
        yield package, path.removesuffix(".json"), tuple(
            {"name": str(t.get("name") or name), **({"description": t["description"]}
                                                     if isinstance(t.get("description"), str) else {})}
            for name, t in tools.items())


def captures(clone: Path, sample: int | None = None,
             seed: int = 2026) -> tuple[int, list[tuple[Package, Capture, Record]]]:
    """How many npm and PyPI packages of the catalog at ``clone`` have a recorded list, and their
    captures, each with its package and record; with ``sample``, that many drawn in the order of
    ``random.Random(seed)``."""
    records = recorded(clone)
    found = [(p, records[p.server]) for p in packages(entry for _, entry in items_at(clone))
             if p.server in records]
    offered = len(found)
    if sample is not None:
        random.Random(seed).shuffle(found)
        found = found[:sample]
    return offered, [(package, capture_of(record, f"{clone.name}:{INDEX}@{record.commit[:12]}"), record)
                     for package, record in found]


def items_at(clone: Path, commit: str = "HEAD") -> Iterator[tuple[str, dict[str, Any]]]:
    """As ``pipeline.manifest.catalog.items``, for the catalog's files at ``commit`` of the git clone
    ``clone`` (bare or not)."""
    try:
        data = GitRepo(clone).output("archive", "--format=tar", commit, "packages")
    except CensusError as exc:
        raise RegistryDumpError(f"{clone}: no packages/ at {commit}: {exc}") from None
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        files = sorted((m for m in archive.getmembers() if m.isfile() and m.name.endswith(".json")),
                       key=lambda m: m.name)
        for member in files:
            where = member.name.removeprefix("packages/").removesuffix(".json")
            body = archive.extractfile(member)
            yield from catalog.item(f"{clone}:{member.name}@{commit}", where,
                             body.read(catalog.MAX_FILE_BYTES + 1) if body is not None else b"")


def capture_of(record: Record, origin: str) -> Capture:
    """``record`` as an ``ok`` capture of one page, dated when it was recorded."""
    page = {"tools": list(record.tools)}
    return Capture(server=record.server, captured_at_utc=record.recorded_at_utc, status=OK, reason=None,
                   transport=RECORDED, command_or_url=origin, pages=(page,),
                   tools=tuple(tool_row(tool) for tool in record.tools))
