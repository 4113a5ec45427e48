"""Tree notes: the ``.gitattributes``, ``.gitmodules`` and Git LFS facts the scan records."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import duckdb
import polars as pl
from synth import tarball
from tree_census import tree_census

from pipeline.analysis import stats
from pipeline.archive.tarball import members
from pipeline.fetch.source import Fetched
from pipeline.scan import notes
from pipeline.scan.detect import Detector
from pipeline.scan.tree import scan_tree
from pipeline.store.database import Store

POINTER = (b"version https://git-lfs.github.com/spec/v1\n"
           b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n")
ATTRIBUTES = b"""# docs are not shipped
docs/** export-ignore
*.psd filter=lfs diff=lfs merge=lfs -text
*.py text eol=lf
# *.bin export-ignore   (commented out)
"""
MODULES = b"""[submodule "evaluation"]
\tpath = evaluation
\turl = https://github.com/acme/evaluation
[submodule "vendor/lib"]
    path = vendor/lib
    url = ../lib.git
"""
TREE: dict[str, bytes | tuple[str, str]] = {
    ".gitattributes": ATTRIBUTES,
    ".gitmodules": MODULES,
    "art/logo.psd": POINTER,
    "art/big.psd": POINTER + b"x" * 2000,  # too large to be a pointer
    "src/.gitattributes": b"*.go text\n",  # says nothing worth a note
    "src/main.py": b"readOnlyHint = True\n",
    "short.txt": b"version",
}


def test_notes_of_a_tree_in_one_pass(tmp_path: Path) -> None:
    path = tmp_path / "t.tar.gz"
    path.write_bytes(tarball(TREE, root="r"))
    scan = scan_tree(members(path, "r"), ("readOnlyHint",))
    assert sorted(scan.notes) == [
        (".gitattributes", "gitattributes", "docs/** export-ignore\n*.psd filter=lfs diff=lfs merge=lfs -text"),
        (".gitmodules", "gitmodules", "evaluation\nvendor/lib"),
        ("art/logo.psd", "lfs-pointer",
         "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393 size 12345"),
    ]
    assert scan.counts == (("src/main.py", "readOnlyHint", 1),)  # noting changes no count


def test_which_files_are_read_for_notes() -> None:
    assert notes.kind_of("a/b/.gitattributes", 10) == "gitattributes"
    assert notes.kind_of(".gitmodules", notes.READ_MAX_BYTES + 1) is None
    assert notes.kind_of("x.bin", 200) == "lfs"
    assert notes.kind_of("x.bin", notes.LFS_MAX_BYTES + 1) is None
    assert notes.kind_of("x.bin", 3) is None
    assert notes.note("x.bin", "lfs", b"not a pointer at all, just text" * 3) is None


def test_notes_are_stored_and_replaced_with_the_scan(tmp_path: Path) -> None:
    path = tmp_path / "t.tar.gz"
    path.write_bytes(tarball(TREE, root="r"))
    scan = scan_tree(members(path, "r"), ("readOnlyHint",))
    fetched = Fetched("0" * 64, 1, "r", datetime(2026, 1, 1))
    with Store(tmp_path / "c.duckdb") as store:
        for _ in range(2):  # a rescan replaces, never adds
            store.record_scan("o/n", "1" * 40, fetched=fetched, source="tarball", scan=scan, terms=("x",), version="3")
    with duckdb.connect(str(tmp_path / "c.duckdb"), read_only=True) as con:
        rows = con.execute("SELECT path, kind FROM tree_notes ORDER BY ALL").fetchall()
    assert rows == [(".gitattributes", "gitattributes"), (".gitmodules", "gitmodules"), ("art/logo.psd", "lfs-pointer")]


def test_caveats_read_the_notes(tmp_path: Path) -> None:
    lfs_only: dict[str, bytes | tuple[str, str]] = {
        ".gitattributes": b"*.onnx filter=lfs diff=lfs merge=lfs -text\n", "m.py": b"x = 1\n"}
    db, statuses = tree_census(tmp_path, "notes", {"acme/art": TREE, "acme/lfs-only": lfs_only})
    assert statuses == ["scanned", "scanned"]
    with duckdb.connect(str(db)) as con:
        found = {(r, c): (s, e) for r, _, c, s, e in stats.caveats(con, "notes").iter_rows() if c != "false-zero"}
        assert {key: status for key, (status, _) in found.items()} == {
            ("acme/art", "submodules"): "found", ("acme/art", "export-ignore"): "found",
            ("acme/art", "lfs-pointers"): "found", ("acme/lfs-only", "lfs-pointers"): "possible"}
        assert "evaluation, vendor/lib" in found["acme/art", "submodules"][1]
        assert "docs/**" in found["acme/art", "export-ignore"][1]
        assert "1 file (art/logo.psd)" in found["acme/art", "lfs-pointers"][1]
        assert "(*.onnx)" in found["acme/lfs-only", "lfs-pointers"][1]
        con.execute("UPDATE snapshots SET scanner_version = '2'; DELETE FROM tree_notes")  # before notes were kept
        older = stats.caveats(con, "notes").filter(pl.col("caveat") != "false-zero")
        assert older["status"].to_list() == ["not checked"] * 6
        assert all("scanned by scanner version 2" in e for e in older["evidence"])


MOVED_README = b"""# notes-mcp

> **This server has moved to https://github.com/acme/notes-server.** This repository is kept for
> its issues only.

See https://github.com/acme/other for something else.
"""


def test_evidence_of_what_a_tree_without_tools_is(tmp_path: Path) -> None:
    """The root README's pointer to where the project lives now, the MCP SDKs its package
    manifests declare (by folder), a file using MCP as a client and one serving prompts: a nested
    README, or one with no such sentence, says nothing."""
    tree: dict[str, bytes | tuple[str, str]] = {
        "README.md": MOVED_README,
        "docs/README.md": b"This guide has moved to https://github.com/acme/guide.\n",
        "package.json": b'{"name": "shim", "dependencies": {"@modelcontextprotocol/sdk": "^1.12.0"}}',
        "py/pyproject.toml": b'[project]\nname = "p"\ndependencies = ["fastmcp>=2.3", "httpx"]\n',
        "client/package.json": b'{"name": "c", "dependencies": {"left-pad": "1.0.0"}}',
        "index.js": b"console.log('forwarding to the hosted server')\n",
        "client/inspect.ts": b'import { Client } from "@modelcontextprotocol/sdk/client/index.js";\n',
        "tests/inspect.test.ts": b'import { Client } from "@modelcontextprotocol/sdk/client/index.js";\n',
        "py/prompts.py": b"from fastmcp import FastMCP\nmcp = FastMCP('p')\n\n@mcp.prompt()\ndef ask() -> str: ...\n",
    }
    path = tmp_path / "t.tar.gz"
    path.write_bytes(tarball(tree, root="r"))
    scan = scan_tree(members(path, "r"), ("readOnlyHint",), Detector())
    assert sorted(scan.notes) == [  # a client import in a test is no evidence of a client
        (".", "mcp-sdk", "ts-mcp: @modelcontextprotocol/sdk ^1.12.0"),
        ("README.md", "points-elsewhere", "https://github.com/acme/notes-server"),
        ("client/inspect.ts", "mcp-client", "@modelcontextprotocol/sdk/client/index.js"),
        ("py", "mcp-sdk", "python-fastmcp: fastmcp >=2.3"),
        ("py/prompts.py", "mcp-prompts", "@mcp.prompt("),
    ]
    assert notes.note("README.md", "readme", b"# A server\n\nSee https://github.com/acme/x.\n") is None
    assert notes.kind_of("README.rst", 5000) == "readme"
    assert notes.kind_of("docs/README.md", 5000) is None  # (a small file may still be an LFS pointer)
    assert notes.kind_of("mcp_extension/README.md", 5000) == "readme"  # the MCP part of a larger tree
    assert notes.note("pyproject.toml", "package", b'[project.urls]\nRepository = "https://github.com/o/n.git"\n') \
        == ("pyproject.toml", "package-repository", "https://github.com/o/n")
    assert notes.note("package.json", "package", b'{"repository": "https://github.com/o/n"}') == \
        ("package.json", "package-repository", "https://github.com/o/n")
    assert notes.note("package.json", "package", b'{"name": "x"}') is None
    docs_only = tmp_path / "docs.tar.gz"
    docs_only.write_bytes(tarball({"README.md": b"# docs\n", "docs/a.md": b"x\n", "src/vendor/x.ts": b"tool\n"},
                                  root="d"))
    assert ("." , "no-source", "no source file of a language the detector parses") in \
        scan_tree(members(docs_only, "d"), ("x",), Detector()).notes
    assert not any(n[1] == "no-source" for n in scan.notes)
