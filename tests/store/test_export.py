"""``census export``: every table and view of a real census database as Parquet or CSV."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest
from synth import FASTMCP_SERVER, fake_sha, tarball

from pipeline.errors import StoreError
from pipeline.manifest.manifests import load
from pipeline.run.census import Census
from pipeline.settings import Settings
from pipeline.store import export
from pipeline.store.database import Store

COMMIT = fake_sha("export")


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A census of one local tarball (a FastMCP server with hints in a test file)."""
    root = tmp_path_factory.mktemp("export")
    tree = {"server.py": FASTMCP_SERVER, "tests/test_hints.py": b"assert tool.annotations.readOnlyHint\n"}
    (root / "acme.tar.gz").write_bytes(tarball(tree, root="acme-srv-1", commit=COMMIT))
    (root / "m.toml").write_text(
        f'[census]\nname = "export"\n\n[[repos]]\nrepo = "acme/srv"\ncommit = "{COMMIT}"\nsource = "acme.tar.gz"\n'
    )
    settings = Settings(db_path=root / "census.duckdb", cache_dir=root / "cache", api_url="http://127.0.0.1:9")
    census = Census(load(root / "m.toml"), settings)
    with Store(settings.db_path) as store:
        outcomes = list(census.run(store))
    census.close()
    assert [o.skipped for o in outcomes] == [False]
    return settings.db_path


def test_parquet_dumps_equal_the_tables(database: Path, tmp_path: Path) -> None:
    written = export.export(database, tmp_path / "dump", "parquet")
    with duckdb.connect(str(database), read_only=True) as con:
        names = export.relations(con)
        assert {"snapshots", "term_counts", "tools", "tool_hints_on_wire", "repo_term_totals"} <= set(names)
        assert [p.name for p in written] == [f"{name}.parquet" for name in names]
        for name, path in zip(names, written, strict=True):
            table = con.sql(f"SELECT * FROM {name} ORDER BY ALL").pl()
            assert pl.read_parquet(path).equals(table), name
    tools = pl.read_parquet(tmp_path / "dump" / "tools.parquet")
    assert tools.height >= 1
    assert set(tools["sdk"]) == {"python-mcp"}
    assert set(tools["conditional"]) == {False}  # registered unconditionally, so no condition
    assert tools["condition"].null_count() == tools.height


def test_csv_dumps_have_headers_and_every_row(database: Path, tmp_path: Path) -> None:
    export.export(database, tmp_path / "csv", "csv")
    with duckdb.connect(str(database), read_only=True) as con:
        counts = dict(con.execute("SELECT term, sum(count) FROM term_counts GROUP BY term").fetchall())
    with (tmp_path / "csv" / "term_counts.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {"repo", "commit", "path", "term", "count"} <= set(rows[0])
    summed: dict[str, int] = {}
    for row in rows:
        summed[row["term"]] = summed.get(row["term"], 0) + int(row["count"])
    assert summed == counts
    assert counts.get("readOnlyHint", 0) >= 1


def test_two_exports_are_identical(database: Path, tmp_path: Path) -> None:
    first = export.export(database, tmp_path / "a", "csv")
    second = export.export(database, tmp_path / "b", "csv")
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]
    assert not list((tmp_path / "a").glob(".*"))  # no partial files left behind


def test_bad_inputs_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no census database here"):
        export.export(tmp_path / "absent.duckdb", tmp_path / "out", "csv")
    (tmp_path / "junk.duckdb").write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match=r"junk\.duckdb") as failed:
        export.export(tmp_path / "junk.duckdb", tmp_path / "out", "csv")
    assert "\n" not in str(failed.value)
    with pytest.raises(ValueError, match="unknown export format 'xlsx'"):
        export.export(tmp_path / "absent.duckdb", tmp_path / "out", "xlsx")


def test_the_command(database: Path, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pipeline", "export", "--db", str(database), "--format", "csv",
                           "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{tmp_path / 'o'}: ")
    assert (tmp_path / "o" / "tools.csv").read_text().startswith("repo,commit,path,line,sdk")
    done = subprocess.run([sys.executable, "-m", "pipeline", "export", "--db", str(tmp_path / "none.duckdb"),
                           "--out", str(tmp_path / "p")], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert "no census database here" in done.stderr
