"""``census probe`` and ``census ingest-tools-list`` as a user runs them (subprocesses, a real DuckDB)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb

SERVERS = Path(__file__).resolve().parents[1] / "probe_servers"


def census(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pipeline", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)


def test_probe_a_stdio_server_then_a_crashing_one(tmp_path: Path) -> None:
    done = census("probe", "raw-odd", "--db", "c.duckdb", "--repo", "acme/odd", "--",
                  sys.executable, str(SERVERS / "raw_server.py"), "odd", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("raw-odd: ")
    assert " tools (" in done.stdout
    done = census("probe", "raw-crash", "--db", "c.duckdb", "--strict", "--timeout", "20", "--",
                  sys.executable, str(SERVERS / "raw_server.py"), "crash", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout.startswith("raw-crash: skipped: ")
    assert done.stderr.strip() == "census: error: raw-crash skipped (--strict)"
    with duckdb.connect(str(tmp_path / "c.duckdb"), read_only=True) as con:
        statuses = con.execute("SELECT server, status FROM runtime_captures ORDER BY server").fetchall()
        pairs = con.execute("SELECT server, repo FROM runtime_servers").fetchall()
        tools = con.execute("SELECT count(*) FROM runtime_tools WHERE server = 'raw-odd'").fetchone()
    assert statuses == [("raw-crash", "skipped"), ("raw-odd", "ok")]
    assert pairs == [("raw-odd", "acme/odd")]
    assert tools is not None
    assert tools[0] >= 1


def test_ingest_a_saved_answer_and_bad_usage(tmp_path: Path) -> None:
    answer = {"jsonrpc": "2.0", "id": 2, "result": {"tools": [
        {"name": "read", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
        {"name": "wipe", "inputSchema": {"type": "object"}}]}}
    (tmp_path / "answer.json").write_text(json.dumps(answer))
    done = census("ingest-tools-list", "answer.json", "--server", "saved", "--db", "c.duckdb", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "saved: 2 tools (1 annotated) in 1 page"
    with duckdb.connect(str(tmp_path / "c.duckdb"), read_only=True) as con:
        query = "SELECT tool_name, read_only_hint, destructive_hint FROM runtime_tools ORDER BY 1"
        rows = con.execute(query).fetchall()
    assert rows == [("read", "true", "unset"), ("wipe", "unset", "unset")]
    (tmp_path / "junk.json").write_text("{not json")
    done = census("ingest-tools-list", "junk.json", "--server", "x", "--db", "c.duckdb", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert "junk.json" in done.stderr
    done = census("probe", "both", "--url", "http://127.0.0.1:9/mcp", "--db", "c.duckdb", "--", "x", cwd=tmp_path)
    assert done.returncode == 2
    assert "not both" in done.stderr
