"""The ``history`` tables: what ``pipeline.scan.history`` found, kept so that a rerun walks only new commits.

- ``history``: (repo, commit, committed_at_utc, parent, term, count): each walked commit's totals;
- ``history_moves``: (repo, commit, path, term, change): the files whose change moved a count
  against the first parent, and by how much;
- ``history_matches``: (repo, term, figure, first, last, first_at_utc, last_at_utc, commits): per
  published figure, each run of commits that gives it, or one row with no commit (``first``
  NULL) over the dates walked, when none does (``census history --manifest``).

``known`` gives the stored totals of a repository for a term list (a walk takes them as the
bases of new commits and yields only those); ``record`` adds the new commits' rows.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

import duckdb

from pipeline.scan.history import CommitCounts

#: commits inserted by one statement (each one's rows passed as lists)
_BATCH_COMMITS = 2048

SCHEMA = """
CREATE TABLE IF NOT EXISTS history (
    repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, committed_at_utc TIMESTAMP, parent VARCHAR,
    term VARCHAR NOT NULL, count BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS history_moves (
    repo VARCHAR NOT NULL, commit VARCHAR NOT NULL, path VARCHAR NOT NULL, term VARCHAR NOT NULL,
    change BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS history_matches (
    repo VARCHAR NOT NULL, term VARCHAR NOT NULL, figure BIGINT NOT NULL, first VARCHAR, last VARCHAR,
    first_at_utc TIMESTAMP, last_at_utc TIMESTAMP, commits BIGINT NOT NULL
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
    """Add the rows of ``walked`` (commits not stored yet), in order, a few thousand commits a statement;
    how many commits were added."""
    added = 0
    con.execute("BEGIN")
    try:
        commits = iter(walked)
        while batch := list(itertools.islice(commits, _BATCH_COMMITS)):
            _insert(con, repo, terms, batch)
            added += len(batch)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return added


def _insert(con: duckdb.DuckDBPyConnection, repo: str, terms: Sequence[str], batch: Sequence[CommitCounts]) -> None:
    """The rows of ``batch``: a row per commit and term in ``history``, per moved count in ``history_moves``."""
    totals = [(c.commit, c.committed_at_utc.replace(tzinfo=None), c.parent, t, n)
              for c in batch for t, n in zip(terms, c.totals, strict=True)]
    moves = [(c.commit, path, t, d) for c in batch for path, change in c.moved
             for t, d in zip(terms, change, strict=True) if d]
    con.execute("INSERT INTO history SELECT ?, unnest(?::VARCHAR[]), unnest(?::TIMESTAMP[]), unnest(?::VARCHAR[]),"
                " unnest(?::VARCHAR[]), unnest(?::BIGINT[])", [repo, *_columns(totals, 5)])
    con.execute("INSERT INTO history_moves SELECT ?, unnest(?::VARCHAR[]), unnest(?::VARCHAR[]), unnest(?::VARCHAR[]),"
                " unnest(?::BIGINT[])", [repo, *_columns(moves, 4)])


def _columns(rows: Sequence[tuple[object, ...]], width: int) -> list[list[object]]:
    return [list(column) for column in zip(*rows, strict=True)] if rows else [[] for _ in range(width)]


def moves(con: duckdb.DuckDBPyConnection, repo: str,
          terms: Sequence[str]) -> dict[str, tuple[tuple[str, tuple[int, ...]], ...]]:
    """The stored moves of ``repo``'s commits: commit -> (path, change per term of ``terms``)."""
    found: dict[str, dict[str, list[int]]] = {}
    for commit, path, term, change in con.execute(
            "SELECT commit, path, term, change FROM history_moves WHERE repo = ? ORDER BY path", [repo]).fetchall():
        if term in terms:
            found.setdefault(commit, {}).setdefault(path, [0] * len(terms))[list(terms).index(term)] = change
    return {commit: tuple((path, tuple(c)) for path, c in paths.items()) for commit, paths in found.items()}


def record_matches(con: duckdb.DuckDBPyConnection, repo: str,
                   rows: Iterable[tuple[str, int, str | None, str | None, object, object, int]]) -> None:
    """Replace ``repo``'s stored matches with ``rows`` ((term, figure, first, last, first at, last at, commits))."""
    con.execute("DELETE FROM history_matches WHERE repo = ?", [repo])
    con.executemany("INSERT INTO history_matches VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [(repo, *row) for row in rows])
