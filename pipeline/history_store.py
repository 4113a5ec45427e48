"""The ``history`` tables: what ``pipeline.history`` found, kept so that a rerun walks only new commits.

- ``history``: (repo, commit, committed_at_utc, parent, term, count): each walked commit's totals;
- ``history_moves``: (repo, commit, path, term, change): the files whose change moved a count
  against the first parent, and by how much.

``known`` gives the stored totals of a repository for a term list (a walk takes them as the
bases of new commits and yields only those); ``record`` adds the new commits' rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import duckdb

from pipeline.history import CommitCounts

SCHEMA = """
CREATE TABLE IF NOT EXISTS history (
    repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, committed_at_utc TIMESTAMP, parent VARCHAR,
    term VARCHAR NOT NULL, count BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS history_moves (
    repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, path VARCHAR NOT NULL, term VARCHAR NOT NULL,
    change BIGINT NOT NULL
);
"""


def install(con: duckdb.DuckDBPyConnection) -> None:
    """Create the tables when missing."""
    con.execute(SCHEMA)


def known(con: duckdb.DuckDBPyConnection, repo: str, terms: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """The stored totals of ``repo``'s commits that hold every one of ``terms``, by commit."""
    rows = con.execute("SELECT commit, term, count FROM history WHERE repo = ? AND list_contains(?, term)",
                       [repo, list(terms)]).fetchall()
    found: dict[str, dict[str, int]] = {}
    for commit, term, count in rows:
        found.setdefault(commit, {})[term] = count
    return {commit: tuple(counts[t] for t in terms) for commit, counts in found.items() if len(counts) == len(terms)}


def record(con: duckdb.DuckDBPyConnection, repo: str, terms: Sequence[str], walked: Iterable[CommitCounts]) -> int:
    """Add the rows of ``walked`` (commits not stored yet); how many commits were added."""
    added = 0
    con.execute("BEGIN")
    try:
        for c in walked:
            moment = c.committed_at_utc.replace(tzinfo=None)
            con.executemany("INSERT INTO history VALUES (?, ?, ?, ?, ?, ?)",
                            [(repo, c.commit, moment, c.parent, t, n) for t, n in zip(terms, c.totals, strict=True)])
            moves = [(repo, c.commit, path, t, d) for path, change in c.moved
                     for t, d in zip(terms, change, strict=True) if d]
            if moves:
                con.executemany("INSERT INTO history_moves VALUES (?, ?, ?, ?, ?)", moves)
            added += 1
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return added
