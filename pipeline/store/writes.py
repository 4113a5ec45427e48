"""How rows get into DuckDB: a transaction, an insert of many rows, and the batch of scanned trees
that ``census run`` writes many at a time.

DuckDB binds a statement's values one by one, so a dozen small inserts per tree cost more than
the tree's whole scan would suggest (2 to 3 ms each). An Arrow table typed as the table is read
whole: a batch of trees goes in with one insert per table, for about the cost of one of them.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import duckdb


class Transaction:
    """BEGIN ... COMMIT, or ROLLBACK on any error."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con

    def __enter__(self) -> None:
        self._con.execute("BEGIN TRANSACTION")

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        self._con.execute("COMMIT" if kind is None else "ROLLBACK")


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[Sequence[Any]], batch: int = 256) -> None:
    """Insert ``rows`` (each a whole row, in the table's column order): many at once through one
    Arrow table typed as ``table``, a few (or values that do not fit the table's types as they
    are) with one statement of SQL values per ``batch`` rows (``executemany`` costs a round per row)."""
    if len(rows) >= _ARROW_ROWS and _insert_arrow(con, table, rows):
        return
    for start in range(0, len(rows), batch):
        chunk = rows[start : start + batch]
        values = ", ".join(f"({', '.join('?' * len(row))})" for row in chunk)
        con.execute(f"INSERT INTO {table} VALUES {values}", [value for row in chunk for value in row])


#: from this many rows an insert goes through Arrow (below it, SQL values cost less than the Arrow table)
_ARROW_ROWS = 64


def _insert_arrow(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[Sequence[Any]]) -> bool:
    """Insert ``rows`` as one Arrow table of ``table``'s own column types; False (nothing inserted)
    when a value does not have its column's type as it is (a number in a text column), so that the
    caller inserts them as SQL values, which DuckDB casts."""
    import pyarrow as pa  # only a large insert pays its import

    schema = con.sql(f"SELECT * FROM {table} LIMIT 0").to_arrow_table().schema
    try:
        arrow = pa.table([pa.array([row[i] for row in rows], type=field.type) for i, field in enumerate(schema)],
                         schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError, IndexError, TypeError, OverflowError):
        return False
    con.register("_census_rows", arrow)
    try:
        con.execute(f"INSERT INTO {table} SELECT * FROM _census_rows")
    finally:
        con.unregister("_census_rows")
    return True


class ScanBatch:
    """Scanned trees waiting to be written together, in one transaction.

    ``add`` keeps a tree's rows (table -> rows, its ``snapshots`` row among them); the batch is
    written when it holds ``size`` trees or its oldest has waited ``seconds``, and whenever its
    owner calls ``flush`` (``Store`` does before any other read or write, and on close). A tree is
    never half written: a crash loses the trees of the batch, which a rerun scans again.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, replaced: Sequence[str], *, size: int = 64,
                 seconds: float = 1.0) -> None:
        self._con = con
        self._replaced = tuple(replaced)
        self._size, self._seconds = size, seconds
        self._keys: dict[tuple[str, str], None] = {}
        self._rows: dict[str, list[Sequence[Any]]] = {}
        self._since = 0.0

    def __len__(self) -> int:
        """How many trees are kept, not yet written."""
        return len(self._keys)

    def add(self, repo: str, commit: str, rows: Mapping[str, Sequence[Sequence[Any]]]) -> None:
        """Keep the rows of ``repo`` at ``commit`` (they replace what is stored of it); write the
        batch when it is full or old."""
        if (repo, commit) in self._keys:  # the same tree twice: the later scan wins, as written one by one
            self.flush()
        if not self._keys:
            self._since = time.monotonic()
        self._keys[repo, commit] = None
        for table, found in rows.items():
            self._rows.setdefault(table, []).extend(found)
        if len(self._keys) >= self._size or time.monotonic() - self._since >= self._seconds:
            self.flush()

    def flush(self) -> None:
        """Write every tree kept, in one transaction: what was stored of them goes, their rows come."""
        if not self._keys:
            return
        keys, rows = list(self._keys), self._rows
        self._keys, self._rows = {}, {}
        repos = [repo for repo, _ in keys]
        with Transaction(self._con):
            self._con.execute("DELETE FROM snapshots WHERE commit IS NULL AND repo IN (SELECT unnest(?::VARCHAR[]))",
                              [repos])  # a repository known at a commit is no longer "could not be pinned"
            stored = self._con.execute("SELECT DISTINCT repo, commit FROM snapshots WHERE repo IN"
                                       " (SELECT unnest(?::VARCHAR[]))", [repos]).fetchall()
            for repo, commit in set(stored) & set(keys):  # a tree seen first has no rows to replace
                for table in self._replaced:
                    self._con.execute(f"DELETE FROM {table} WHERE repo = ? AND commit = ?", [repo, commit])
            for table, found in rows.items():
                insert_rows(self._con, table, found)
