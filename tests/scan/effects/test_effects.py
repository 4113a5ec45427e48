"""The effects analysis on synthetic servers: handlers located, effects classified with their
evidence, verdicts, and ``census check`` as a maintainer's CI gate runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from effect_servers import SERVERS, write

from pipeline.run.check import check
from pipeline.scan.effects import model
from pipeline.scan.effects.verdicts import suggest

#: per language: (the read-only tool that deletes, the clean one, the undeclared one, the line that deletes)
EXPECTED = {
    "typescript": ("tidy_notes", "read_note", "fetch_page", "src/store.ts:4"),
    "python": ("clean_cache", "list_files", "run_command", "files/cleanup.py:6"),
    "go": ("drop_key", "get_key", "put_key", "store.go:12"),
    "rust": ("forget_note", "read_note", "save_note", "src/store.rs:9"),
}


@pytest.mark.parametrize("language", sorted(SERVERS))
def test_a_read_only_tool_that_deletes_is_a_contradiction_naming_the_line(tmp_path: Path, language: str) -> None:
    root = write(tmp_path / language, SERVERS[language])
    liar, clean, silent, line = EXPECTED[language]
    report = check(root)
    assert report.tools == 3
    assert report.located == 3
    contradictions = [f for f in report.findings if f.kind == "contradiction"]
    assert [(f.tool_name, f.hint, f.declared, f.evidence) for f in contradictions] == [
        (liar, "readOnlyHint", "true", line)]
    assert "deletes a local file" in contradictions[0].text()
    assert not any(f.tool_name == clean for f in report.findings)
    suggestion = [f for f in report.findings if f.kind == "suggestion"]
    assert [f.tool_name for f in suggestion] == [silent]


def test_suggested_hints_follow_the_effects(tmp_path: Path) -> None:
    report = check(write(tmp_path / "py", SERVERS["python"]))
    run_command = next(f for f in report.findings if f.tool_name == "run_command")
    assert run_command.detail == "readOnlyHint: false, destructiveHint: true, openWorldHint: false"
    report = check(write(tmp_path / "ts", SERVERS["typescript"]))
    fetch_page = next(f for f in report.findings if f.tool_name == "fetch_page")
    assert fetch_page.detail.endswith("openWorldHint: true")
    assert suggest(frozenset({model.READ_LOCAL})) == "readOnlyHint: true, openWorldHint: false"
    assert suggest(frozenset({model.WRITE_REMOTE})).startswith("readOnlyHint: false, destructiveHint: false")


def _census(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pipeline", *args], cwd=cwd, capture_output=True, text=True,
                          check=False, timeout=120)


@pytest.mark.parametrize("language", sorted(SERVERS))
def test_census_check_exits_1_on_a_contradiction_and_0_when_clean(tmp_path: Path, language: str) -> None:
    root = write(tmp_path / "server", SERVERS[language])
    liar, _, silent, line = EXPECTED[language]
    done = _census("check", "server", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.split(" ")[1:3] == [liar, "readOnlyHint:"]
    assert first.endswith(f"at {line}")
    assert any(silent in row and "suggests" in row for row in done.stdout.splitlines())
    assert done.stdout.splitlines()[-1] == "3 server tools, 3 handlers read, 1 contradiction"
    delete_line = line.split(":")
    target = root / delete_line[0]
    lines = target.read_text(encoding="utf-8").splitlines()
    lines[int(delete_line[1]) - 1] = "    pass" if language == "python" else ""
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if language == "go":  # keep the file valid Go: the handler returns without deleting
        target.write_text(target.read_text(encoding="utf-8").replace("key, _ := req.RequireString(\"key\")\n\n",
                                                                     "_ = key\n"), encoding="utf-8")
    clean = _census("check", "--json", "server", cwd=tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    found = json.loads(clean.stdout)
    assert found["contradictions"] == 0
    assert found["server_tools"] == 3
    assert all(f["kind"] != "contradiction" for f in found["findings"])


def test_census_check_of_a_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    done = _census("check", "nowhere", cwd=tmp_path)
    assert done.returncode == 2
    assert "nowhere" in done.stderr


def test_keeping_the_source_changes_nothing_the_detector_records(tmp_path: Path) -> None:
    from synth import tarball

    from pipeline.archive.tarball import stream
    from pipeline.scan.detect import Detector
    from pipeline.scan.tree import scan_tree

    tree: dict[str, bytes | tuple[str, str]] = {name: text.encode() for name, text in SERVERS["typescript"].items()}
    tree["src/generated.ts"] = b"export const blob = '" + b"x" * (3 << 20) + b"';\n"  # large, names no MCP word
    path = tmp_path / "t.tar.gz"
    path.write_bytes(tarball(tree, root="r", commit="a" * 40))
    plain, read = (scan_tree(stream(path, "r"), ("readonlyhint",), Detector(effects=effects)).detection
                   for effects in (False, True))
    assert plain is not None
    assert read is not None
    assert read.tools == plain.tools
    assert read.exclusions == plain.exclusions
    assert {e.tool_name for e in read.effects} == {"read_note", "tidy_notes", "fetch_page"}


def test_an_aliased_import_is_read_as_its_package_and_a_cast_is_not_an_alias(tmp_path: Path) -> None:
    files = {**SERVERS["typescript"], "src/store.ts": SERVERS["typescript"]["src/store.ts"].replace(
        'import { promises as fs } from "fs";', 'import { unlink as drop, readFile as slurp } from "fs/promises";\n'
        'const fs = { unlink: drop as unknown as typeof drop, readFile: slurp };').replace(
        "await fs.unlink(", "await drop(").replace("return fs.readFile(", "return slurp(")}
    report = check(write(tmp_path / "aliased", files))
    assert [(f.tool_name, f.evidence) for f in report.findings if f.kind == "contradiction"] == [
        ("tidy_notes", "src/store.ts:5")]
    assert not any(f.tool_name == "read_note" for f in report.findings)
    from pipeline.scan.detect.source import SourceFile
    from pipeline.scan.effects.imports import aliases

    store = SourceFile("src/store.ts", files["src/store.ts"].encode())
    assert aliases(store) == {"drop": "unlink", "slurp": "readFile"}  # `drop as unknown` is a cast
    python = SourceFile("s.py", b"import requests as rq\nfrom subprocess import run as sh\n"
                                b"with open(p) as f:\n    pass\n")
    assert aliases(python) == {"rq": "requests", "sh": "run"}


@pytest.mark.parametrize(("query", "effect"), [
    ("CALL db.index.fulltext.queryNodes($f) YIELD node OPTIONAL MATCH (node)-[r]-(o) RETURN node", "read-remote"),
    ('CALL apoc.create.node(["A"], {})', "write-remote"),
    ("MATCH (n) DETACH DELETE n", "delete-remote"),
    ("WITH $rel AS rel MATCH (a), (b) MERGE (a)-[:R]->(b)", "write-remote"),
])
def test_a_query_is_read_by_its_verbs_and_a_procedure_by_its_name(query: str, effect: str) -> None:
    from pipeline.scan.effects.classify import _query_effect
    from pipeline.scan.effects.knowledge import knowledge

    assert _query_effect(knowledge("python"), query, "remote") == effect


@pytest.mark.parametrize(("name", "client"), [("knowledgeClient", True), ("dynamicClient", True), ("s3", True),
                                              ("clientRefreshPromises", False), ("apiKey", False), ("coll", True)])
def test_a_receiver_is_a_client_when_a_client_word_ends_its_name(name: str, client: bool) -> None:
    from pipeline.scan.effects.imports import CLIENTISH

    assert bool(CLIENTISH.match(name)) is client


def test_a_fixed_command_that_only_reads_is_no_contradiction_and_one_that_deletes_is(tmp_path: Path) -> None:
    server = SERVERS["typescript"]["src/index.ts"].split("server.registerTool(")[0] + """
import { execFileSync } from "child_process";

server.registerTool("describe_pod", { annotations: { readOnlyHint: true } },
  async () => ({ content: [{ type: "text", text: String(execFileSync("kubectl", ["describe", "pod", "web"])) }] }));

server.registerTool("drop_pod", { annotations: { readOnlyHint: true } },
  async () => ({ content: [{ type: "text", text: String(execFileSync("kubectl", ["delete", "pod", "web"])) }] }));
"""
    files = {**SERVERS["typescript"], "src/index.ts": server}
    report = check(write(tmp_path / "kube", files))
    assert [f.tool_name for f in report.findings if f.kind == "contradiction"] == ["drop_pod"]


def test_a_request_context_is_not_the_tools_input(tmp_path: Path) -> None:
    store = """package main

import (
\t"context"
\t"net/http"

\t"github.com/mark3labs/mcp-go/mcp"
)

func fixedPage(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
\tr, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://api.example.com/status", nil)
\t_, err := http.DefaultClient.Do(r)
\treturn nil, err
}

func anyPage(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
\tpage, _ := req.RequireString("url")
\tr, _ := http.NewRequestWithContext(ctx, http.MethodGet, page, nil)
\t_, err := http.DefaultClient.Do(r)
\treturn nil, err
}
"""
    main = SERVERS["go"]["main.go"].split("\ts.AddTool(")[0] + (
        '\ts.AddTool(mcp.NewTool("status", mcp.WithOpenWorldHintAnnotation(false)), fixedPage)\n'
        '\ts.AddTool(mcp.NewTool("fetch", mcp.WithOpenWorldHintAnnotation(false)), anyPage)\n}\n')
    report = check(write(tmp_path / "web", {"go.mod": SERVERS["go"]["go.mod"], "main.go": main, "store.go": store}))
    assert [(f.tool_name, f.hint) for f in report.findings if f.kind == "contradiction"] == [
        ("fetch", "openWorldHint")]


def test_a_monorepo_package_calls_its_own_functions_not_a_siblings(tmp_path: Path) -> None:
    server = SERVERS["typescript"]["src/index.ts"].split("server.registerTool(")[0].replace(
        'import { removeNote, readNote } from "./store.js";', 'import { tidy } from "./tidy.js";') + (
        'server.registerTool("tidy", { annotations: { readOnlyHint: true } }, async () => {\n'
        '  await tidy();\n  return { content: [] };\n});\n')
    files = {
        "servers/notes/package.json": SERVERS["typescript"]["package.json"],
        "servers/notes/src/index.ts": server,
        "servers/notes/src/tidy.ts": 'import { promises as fs } from "fs";\n'
                                     'export async function tidy() { return fs.readFile("notes/index.md", "utf8"); }\n',
        "servers/files/package.json": SERVERS["typescript"]["package.json"],
        "servers/files/src/tidy.ts": 'import { promises as fs } from "fs";\n'
                                     'export async function tidy() { await fs.rm("files", { recursive: true }); }\n',
    }
    report = check(write(tmp_path / "mono", files))
    assert report.located == 1
    assert not [f for f in report.findings if f.kind == "contradiction"]
