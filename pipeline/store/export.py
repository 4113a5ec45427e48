"""Open dumps of a census database: every table and view as Parquet or CSV files.

``census export --format parquet|csv --out DIR`` writes ``DIR/<table>.<format>`` for each
table and view of the schema, rows sorted so that two exports of one database are equal
file for file. The database is opened read-only; each file is written under a temporary
name and renamed, so an interrupted export never leaves a half-written dump.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from pipeline.errors import StoreError, StoreLockedError

FORMATS = {"parquet": "(FORMAT parquet, COMPRESSION zstd)", "csv": "(FORMAT csv, HEADER true)"}


def export(db_path: Path, out: Path, fmt: str) -> list[Path]:
    """Write every table and view of the database at ``db_path`` into ``out``; the files written."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r} (known: {', '.join(FORMATS)})")
    if not db_path.is_file():
        raise StoreError(f"{db_path}: no census database here (run `census run` first)")
    out.mkdir(parents=True, exist_ok=True)
    with _read_only(db_path) as con:
        return [_dump(con, name, out / f"{name}.{fmt}", FORMATS[fmt]) for name in relations(con)]


def relations(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The tables and views of the main schema, by name."""
    rows = con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY table_name"
    ).fetchall()
    return [str(name) for (name,) in rows]


def _dump(con: duckdb.DuckDBPyConnection, name: str, path: Path, options: str) -> Path:
    temporary = path.with_name(f".{path.name}.partial")
    quoted, target = '"' + name.replace('"', '""') + '"', str(temporary).replace("'", "''")
    con.execute(f"COPY (SELECT * FROM {quoted} ORDER BY ALL) TO '{target}' {options}")
    os.replace(temporary, path)
    return path


def _read_only(db_path: Path) -> duckdb.DuckDBPyConnection:
    try:
        return duckdb.connect(str(db_path), read_only=True)
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            raise StoreLockedError(f"{db_path}: the database is in use by another census process") from exc
        raise StoreError(f"{db_path}: cannot open the database: {str(exc).splitlines()[0]}") from exc
    except duckdb.Error as exc:
        raise StoreError(f"{db_path}: not a census database: {str(exc).splitlines()[0]}") from exc
