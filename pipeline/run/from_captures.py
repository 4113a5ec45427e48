"""``census discover --from-captures``: the commit each package that answered was built from,
stored in ``runtime_built_from`` and written as a manifest that scans the source at that commit.

Every capture of ``census probe-registry`` that answered names its package, version and release
date; its repository is the one the package's own metadata names on GitHub, else the registry
entry's. The repository's history is read from a local mirror (``--mirrors DIR``, the layout of
``pipeline.fetch.mirrors``); npm's ``gitHead`` comes from the npm registry. The rule of
``pipeline.runtime.built_from`` gives the commit; a package it gives none for is a row with its
reason, and the manifest lists it in a comment. Which of the names the capture holds occur nowhere
in the tree at that commit is kept too (``names_absent``): a server most of whose names occur
nowhere in its tree ran other code than the source, and a name absent from a tree whose other
names are there changed between the release and the commit (``pipeline.analysis.source_vs_wire``).
A manifest holds one commit per repository: where
servers of one repository were built from different commits, the most telling rule's (then the
newest release's) is kept and the others are listed as left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path

import duckdb
import tomlkit

from pipeline.errors import CensusError
from pipeline.fetch.mirror_history import MirrorHistory
from pipeline.fetch.mirrors import locate
from pipeline.runtime.built_from import RULES, BuiltFrom, Release, built_from
from pipeline.runtime.package_index import Hosts, PackageError, git_head
from pipeline.runtime.packages import Package
from pipeline.store import built_from as stored


def pin_captures(con: duckdb.DuckDBPyConnection, mirrors: Path, hosts: Hosts,
                 heads: Callable[[Release], str | None] | None = None) -> list[BuiltFrom]:
    """The commit each answered capture in ``con`` was built from (module doc), stored."""
    found = []
    for release in stored.answered(con):
        mirror = locate(mirrors, release.repo)
        if mirror is None:
            found.append(BuiltFrom(release, None, None, reason=f"no mirror of {release.repo} under {mirrors}"))
            continue
        head = (heads or (lambda r: _npm_head(r, hosts)))(release)
        try:
            history = MirrorHistory(mirror)
            row = built_from(replace(release, git_head=head), history)
            if row.commit and release.names:
                row = replace(row, names_absent=frozenset(release.names) - history.occurring(row.commit, release.names))
            found.append(row)
        except CensusError as exc:
            found.append(BuiltFrom(release, None, None, reason=f"{release.repo}: {exc}"))
    stored.save(con, found)
    return found


def _npm_head(release: Release, hosts: Hosts) -> str | None:
    if not release.version:
        return None
    package = Package(release.server, release.registry, release.package, None, (), (), "stdio", release.repo, None)
    try:
        return git_head(package, release.version, hosts)
    except PackageError:
        return None


def render(found: Sequence[BuiltFrom], name: str, source: str) -> str:
    """The manifest: one pinned entry per repository (module doc), then what was left out and why."""
    kept, left_out = _one_per_repo(found)
    doc = tomlkit.document()
    doc.add(tomlkit.comment(f"Written by `census discover --from-captures` from {source}: the commit each package "
                            f"that answered was built from ({len(kept)} repositories)"))
    doc.add(tomlkit.nl())
    census = tomlkit.table()
    census.update({"name": name, "description": f"Sources of the packages that answered in {source}, at the commit "
                                               "each was built from", "terms": "dialects"})
    doc.add("census", census)
    repos = tomlkit.aot()
    for row in kept:
        table = tomlkit.table()
        table.add("repo", row.release.repo)
        table.add("commit", row.commit)
        if row.release.subfolder:
            table.add("server_paths", [row.release.subfolder])
        table.add("servers", [row.release.server])
        table.add("note", note(row))
        repos.append(table)
    doc.add("repos", repos)
    lines = [f"# - {row.release.server} ({label(row.release)}): {why}\n"
             for row, why in left_out]
    return tomlkit.dumps(doc) + (f"\n# Left out ({len(lines)})\n" + "".join(lines) if lines else "")


def note(row: BuiltFrom) -> str:
    """How the commit was found, for the manifest and the reports."""
    tag = f" {row.ref}" if row.ref else ""
    moment = "its release" if row.release.version else "the record"
    apart = f", {row.days_apart:g} days before {moment}" if row.days_apart is not None else ""
    return f"{row.rule}{tag}: {label(row.release)}{apart}"


def label(release: Release) -> str:
    """``package@version``, or ``package as recorded`` for a catalog's record (no version)."""
    return f"{release.package}@{release.version}" if release.version else f"{release.package} as recorded"


def _one_per_repo(found: Iterable[BuiltFrom]) -> tuple[list[BuiltFrom], list[tuple[BuiltFrom, str]]]:
    chosen: dict[str, BuiltFrom] = {}
    left_out: list[tuple[BuiltFrom, str]] = []
    rank = {rule: i for i, rule in enumerate(RULES)}
    ordered = sorted((r for r in found if r.commit), key=lambda r: (
        rank.get(r.rule or "", 9), -(r.release.released_at_utc.timestamp() if r.release.released_at_utc else 0)))
    for row in ordered:
        key = row.release.repo.lower()
        if key in chosen:
            left_out.append((row, f"{row.rule} {row.commit}: the manifest keeps {chosen[key].commit} "
                                  f"({chosen[key].release.server}) for {row.release.repo}"))
        else:
            chosen[key] = row
    left_out += [(r, r.reason) for r in found if not r.commit]
    return sorted(chosen.values(), key=lambda r: r.release.repo.lower()), left_out
