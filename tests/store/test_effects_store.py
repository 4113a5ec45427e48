"""The effects analysis's rows in DuckDB: each server tool's handler, its effects with their
evidence, and the verdicts; a rescan replaces them."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from effect_servers import SERVERS, write

from pipeline.fetch.source import Fetched
from pipeline.run.inputs import entries_of
from pipeline.scan.detect import Detector
from pipeline.scan.roles import RoleRules
from pipeline.scan.tree import scan_tree
from pipeline.store.database import Store

FETCHED = Fetched("c" * 64, 10, "o-n-1", datetime(2026, 1, 2, tzinfo=UTC))
COMMIT = "2" * 40


def _record(store: Store, folder: Path) -> None:
    scan = scan_tree(entries_of(folder), ("readonlyhint",), Detector(effects=True), RoleRules())
    store.record_scan("o/n", COMMIT, fetched=FETCHED, source="github", scan=scan, terms=("readonlyhint",),
                      version="22")


def test_a_scan_stores_handlers_effects_and_verdicts(tmp_path: Path) -> None:
    folder = write(tmp_path / "go", SERVERS["go"])
    with Store(tmp_path / "e.duckdb") as store:
        _record(store, folder)
        con = store.connection
        handlers = con.execute("SELECT tool_name, handler_path, handler_kind FROM tool_handlers ORDER BY 1").fetchall()
        assert handlers == [("drop_key", "store.go", "reference"), ("get_key", "store.go", "reference"),
                            ("put_key", "store.go", "reference")]
        effects = dict(con.execute("SELECT tool_name, list(effect ORDER BY effect) FROM tool_effects"
                                   " GROUP BY 1").fetchall())
        assert effects == {"drop_key": ["delete-local"], "get_key": ["read-local"], "put_key": ["write-local"]}
        verdicts = con.execute("SELECT tool_name, verdict, hint, declared, evidence_path, evidence_line"
                               " FROM tool_verdicts ORDER BY 1").fetchall()
        assert verdicts == [("drop_key", "contradiction", "readOnlyHint", "true", "store.go", 12),
                            ("put_key", "suggestion", "annotations", "unset", "store.go", 23)]
        # every tools row of a server tool has its handler row
        missing = con.execute("SELECT count(*) FROM tools t ANTI JOIN tool_handlers h USING (repo, commit, path, line)"
                              " WHERE t.role = 'server' AND t.is_mcp").fetchone()
        assert missing == (0,)


def test_a_rescan_replaces_the_rows(tmp_path: Path) -> None:
    folder = write(tmp_path / "go", SERVERS["go"])
    with Store(tmp_path / "e.duckdb") as store:
        _record(store, folder)
        store_go = folder / "store.go"
        store_go.write_text(store_go.read_text(encoding="utf-8").replace("os.Remove", "os.Stat"), encoding="utf-8")
        _record(store, folder)
        con = store.connection
        assert con.execute("SELECT count(*) FROM tool_handlers").fetchone() == (3,)
        assert con.execute("SELECT count(*) FROM tool_verdicts WHERE verdict = 'contradiction'").fetchone() == (0,)
