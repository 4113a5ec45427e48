"""The table of the commits runtime captures were built from (``pipeline.runtime.built_from``), and
the captures it is made from: every package that answered, with its registry entry's repository."""

from __future__ import annotations

import re
from collections.abc import Iterable

import duckdb

from pipeline.runtime.built_from import BuiltFrom, Release
from pipeline.store.runtime import ensure_readable
from pipeline.store.timestamps import naive_utc

#: the columns :func:`save` writes, in order
COLUMNS = ("server", "registry", "package", "version", "released_at_utc", "repo", "subfolder", "rule", "ref", "commit",
           "committed_at_utc", "days_apart", "reason", "names_sent", "names_absent")
#: ``owner/name`` as a package's metadata gives a GitHub repository (``package_metadata.github_repo``)
REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$")


def answered(con: duckdb.DuckDBPyConnection) -> list[Release]:
    """Every package capture that answered, with the repository it was built from: the one its own
    metadata names when that is on GitHub, else its registry entry's; servers with neither are left out.
    A catalog's record (``pipeline.runtime.recorded``) names no version: its ``version`` is empty."""
    ensure_readable(con)
    rows = con.execute("""
        SELECT c.server, c.package_registry, c.package_name, c.package_version, c.package_released_at_utc,
               c.package_repository, s.repo, s.subfolder,
               (SELECT list(DISTINCT t.tool_name ORDER BY t.tool_name) FROM runtime_tools t
                WHERE t.server = c.server AND t.tool_name IS NOT NULL) AS names
        FROM runtime_captures c LEFT JOIN runtime_servers s USING (server)
        WHERE c.status = 'ok' AND c.package_name IS NOT NULL
          AND (c.package_version IS NOT NULL OR c.transport = 'recorded')
        ORDER BY c.server""").fetchall()
    found = []
    for server, registry, package, version, released, own, listed, subfolder, names in rows:
        repo = own if isinstance(own, str) and REPO.match(own) else listed
        if repo:
            same = listed is not None and repo.lower() == str(listed).lower()
            found.append(Release(server, registry or "", package, version or "", released, repo,
                                 subfolder if same else None, names=tuple(names or ())))
    return found


def save(con: duckdb.DuckDBPyConnection, rows: Iterable[BuiltFrom]) -> int:
    """Store ``rows``, each replacing the server's row from before; how many."""
    ensure_readable(con)
    values = [(r.release.server, r.release.registry, r.release.package, r.release.version,
               naive_utc(r.release.released_at_utc), r.release.repo, r.release.subfolder, r.rule, r.ref, r.commit,
               naive_utc(r.committed_at_utc), r.days_apart, r.reason,
               len(r.release.names) if r.names_absent is not None else None,
               sorted(r.names_absent) if r.names_absent is not None else None) for r in rows]
    if values:
        con.executemany(f"INSERT OR REPLACE INTO runtime_built_from ({', '.join(COLUMNS)}) "
                        f"VALUES ({', '.join('?' * len(COLUMNS))})", values)
    return len(values)

