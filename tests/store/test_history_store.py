"""``pipeline.store.history``: the rows of a walk, stored in batches of commits, are a row per commit and term
and a row per moved count, in walk order, across the batch boundary; a rollback leaves nothing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import duckdb
import pytest

from pipeline.scan.history import CommitCounts
from pipeline.store import history as history_store

TERMS = ("readOnlyHint", "destructiveHint")


def walk(n: int) -> list[CommitCounts]:
    """``n`` made-up commits: a root, then each one a child of the one before, some moving counts."""
    found = []
    for i in range(n):
        moved = ((f"dir/{i}.py", (1, 0)), ("b.py", (0, -1))) if i % 3 == 0 else ()
        found.append(CommitCounts(f"{i:040x}", f"{i - 1:040x}" if i else None,
                                  datetime.fromtimestamp(1_700_000_000 + i, UTC), (i, i % 7), moved, ()))
    return found


def test_a_walk_longer_than_a_batch_is_stored_row_for_row_in_order() -> None:
    walked = walk(history_store._BATCH_COMMITS + 5)
    with duckdb.connect() as con:
        history_store.install(con)
        assert history_store.record(con, "acme/notes", TERMS, iter(walked)) == len(walked)
        rows = con.execute("SELECT * FROM history").fetchall()
        moves = con.execute("SELECT * FROM history_moves").fetchall()
        assert history_store.known(con, "acme/notes", TERMS) == {c.commit: c.totals for c in walked}
    assert rows == [("acme/notes", c.commit, c.committed_at_utc.replace(tzinfo=None), c.parent, t, n)
                    for c in walked for t, n in zip(TERMS, c.totals, strict=True)]
    assert moves == [("acme/notes", c.commit, path, t, d) for c in walked for path, change in c.moved
                     for t, d in zip(TERMS, change, strict=True) if d]


def test_a_walk_that_fails_stores_nothing() -> None:
    def failing() -> Iterator[CommitCounts]:
        yield from walk(history_store._BATCH_COMMITS + 1)
        raise RuntimeError("git log failed")

    with duckdb.connect() as con:
        history_store.install(con)
        with pytest.raises(RuntimeError, match="git log failed"):
            history_store.record(con, "acme/notes", TERMS, failing())
        assert con.execute("SELECT count(*) FROM history").fetchone() == (0,)
