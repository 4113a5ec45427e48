"""The detector's shared parts: spellings, package manifests, path exclusions, the engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from synth import FASTMCP_SERVER, tarball

from pipeline.archive.tarball import CHUNK_BYTES, members
from pipeline.manifest.terms import TERM_SETS
from pipeline.scan.count import TermCounter
from pipeline.scan.detect import LANGUAGES, Detector, corpus
from pipeline.scan.detect.deps import Dependencies, is_manifest, parse
from pipeline.scan.detect.kept import MAX_FILE_BYTES
from pipeline.scan.detect.model import Exclusion, Tool, hint_field
from pipeline.scan.detect.paths import exclusion
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import boolean, unquote
from pipeline.scan.tree import scan_tree

CORPUS = Path(__file__).parents[2] / "fixtures" / "detector"


@pytest.mark.parametrize(
    ("spelling", "field"),
    [
        ("readOnlyHint", "read_only_hint"), ("ReadOnlyHint", "read_only_hint"), ("read_only_hint", "read_only_hint"),
        ("ReadOnly", "read_only_hint"), ("with_read_only", "read_only_hint"), ("IsReadOnly", "read_only_hint"),
        ("WithReadOnlyHintAnnotation", "read_only_hint"), (".readOnly", "read_only_hint"),
        ("Destructive", "destructive_hint"), ("idempotent", "idempotent_hint"), ("openWorld", "open_world_hint"),
        ("OPEN_WORLD_HINT", "open_world_hint"), ("title", None), ("readonlyx", None), ("Hint", None),
    ],
)
def test_every_source_spelling_maps_to_its_canonical_hint(spelling: str, field: str | None) -> None:
    assert hint_field(spelling) == field


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        ("package.json", '{"dependencies": {"@modelcontextprotocol/sdk": "^1.12.0"}}',
         [("@modelcontextprotocol/sdk", "^1.12.0")]),
        ("pyproject.toml", '[project]\ndependencies = ["fastmcp>=2.3", "Mcp[cli] ==1.9 ; python_version>\'3\'"]',
         [("fastmcp", ">=2.3"), ("mcp", "==1.9")]),
        ("requirements-dev.txt", "# c\n-r base.txt\nmcp==2.0.0\n", [("mcp", "==2.0.0")]),
        ("go.mod", "module x\n\nrequire (\n\tgithub.com/mark3labs/mcp-go v0.32.0\n\tgolang.org/x/y v1.0.0 // c\n)\n",
         [("github.com/mark3labs/mcp-go", "v0.32.0"), ("golang.org/x/y", "v1.0.0")]),
        ("go.mod", "module x\nrequire github.com/modelcontextprotocol/go-sdk v1.1.0\n",
         [("github.com/modelcontextprotocol/go-sdk", "v1.1.0")]),
        ("Cargo.toml", '[dependencies]\nrmcp = { version = "0.8", features = ["server"] }\nserde = "1"\n',
         [("rmcp", "0.8"), ("serde", "1")]),
        ("src/App.csproj", '<PackageReference Include="ModelContextProtocol" Version="0.4.0-preview" />',
         [("ModelContextProtocol", "0.4.0-preview")]),
        ("pom.xml", "<dependency><groupId>io.modelcontextprotocol.sdk</groupId><artifactId>mcp</artifactId>"
         "<version>0.11.0</version></dependency>", [("io.modelcontextprotocol.sdk:mcp", "0.11.0")]),
        ("build.gradle.kts", 'implementation("io.modelcontextprotocol:kotlin-sdk:0.7.7")',
         [("io.modelcontextprotocol:kotlin-sdk", "0.7.7")]),
        ("build.gradle.kts", 'val mcpVersion = "0.8.4"\n'
         'implementation("io.modelcontextprotocol:kotlin-sdk:$mcpVersion")\nimplementation("a:b:${unknown}")',
         [("io.modelcontextprotocol:kotlin-sdk", "0.8.4"), ("a:b", None)]),
        ("gradle/libs.versions.toml", '[versions]\nmcp = "0.7.2"\n[libraries]\n'
         'k = { module = "io.modelcontextprotocol:kotlin-sdk", version.ref = "mcp" }\nx = "g:a:1.0"\n',
         [("io.modelcontextprotocol:kotlin-sdk", "0.7.2"), ("g:a", "1.0")]),
        ("Gemfile.lock", "PATH\n  remote: .\n  specs:\n    fast-mcp (1.5.0)\n\nGEM\n  specs:\n    mcp (0.9.2)\n"
         "      json-schema (>= 4.1)\n", [("mcp", "0.9.2")]),
        ("composer.json", '{"require": {"laravel/mcp": "^0.2"}}', [("laravel/mcp", "^0.2")]),
        ("Gemfile", "source 'x'\ngem 'mcp', '~> 0.4'\ngem \"rails\"\n", [("mcp", "~> 0.4"), ("rails", None)]),
        ("Package.swift", '.package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", from: "0.9.0")',
         [("modelcontextprotocol/swift-sdk", "0.9.0")]),
        ("package.json", "{not json", []),
        ("Cargo.toml", "[dependencies\n", []),
        ("pyproject.toml", '[project]\ndependencies = ["mcp"\n', []),
    ],
)
def test_package_manifests_give_names_and_versions(path: str, text: str, expected: list[tuple[str, str]]) -> None:
    assert is_manifest(path)
    assert [(d.name, d.version) for d in parse(path, text.encode())] == expected


def test_a_version_catalog_serves_the_build_around_its_gradle_folder() -> None:
    (dep,) = parse("app/gradle/libs.versions.toml", b'[libraries]\nk = "io.modelcontextprotocol:kotlin-sdk:0.7.2"\n')
    assert dep.directory == "app"


def test_the_nearest_manifest_that_holds_the_file_wins() -> None:
    deps = Dependencies(parse("go.mod", b"require github.com/mark3labs/mcp-go v0.20.0\n"))
    deps.add(parse("svc/go.mod", b"require github.com/mark3labs/mcp-go v0.33.0\n"))
    deps.add(parse("tools/x/package.json", b'{"dependencies": {"openclaw": "1"}}'))
    names = ("github.com/mark3labs/mcp-go",)
    versions = [found.version if (found := deps.find(names, p)) else None for p in ("svc/main.go", "cmd/main.go",
                                                                                    "svcx/m.go")]
    assert versions == ["v0.33.0", "v0.20.0", "v0.20.0"]
    assert deps.find(("openclaw",), "tools/y/index.ts") is None  # a sibling package's manifest does not count
    assert deps.find(("openclaw",), "tools/x/src/index.ts") is not None
    assert deps.find(("openclaw",)) is not None  # anywhere in the tree
    assert deps.find(("rmcp",)) is None
    deps.add(parse("Cargo.toml", b'[workspace.dependencies]\nrmcp = "0.8"\n'))
    deps.add(parse("crates/s/Cargo.toml", b'[dependencies]\nrmcp = { workspace = true }\n'))
    assert deps.version(("rmcp",), "crates/s/src/main.rs") == "0.8"
    assert not is_manifest("src/package.json.bak")


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("node_modules/@modelcontextprotocol/sdk/dist/server/mcp.js", "vendored"),
        ("app/vendor/bundle/ruby/mcp/tool.rb", "vendored"), ("lib/python3.11/site-packages/mcp/types.py", "vendored"),
        ("types/index.d.ts", "type-definition"), ("README.md", "docs"), ("docs/examples/server.py", "docs"),
        ("dist/index.js", "build-output"), ("static/app.min.js", "generated"),
        ("src/server.py", None), ("tests/test_server.py", None), ("examples/go/main.go", None),
        ("dist/server.py", None), ("src/tools/docs/search-docs.ts", None), ("website/src/docs/demo.ts", None),
        ("operations/website/list.go", None),
        ("packages/api/docs/example.py", "docs"),
    ],
)
def test_paths_left_out_name_their_reason(path: str, reason: str | None) -> None:
    found = exclusion(path)
    assert (found[0] if found else None) == reason


def test_engine_records_relevant_exclusions_only_and_skips_large_files() -> None:
    detector = Detector()
    for path, data in [
        ("node_modules/sdk/mcp.js", b"annotations: { readOnlyHint: true }"),
        ("node_modules/left-pad/index.js", b"module.exports = pad"),
        ("docs/guide.md", b"Set `readOnlyHint` on every tool"),
        ("NOTES.txt", b"nothing here"),
    ]:
        assert detector.wants(path, len(data))
        detector.add(path, data)
    assert not detector.wants("gen/huge.py", MAX_FILE_BYTES + 1)
    assert not detector.wants("logo.png", 10)
    found = detector.finish()
    assert [(e.path, e.reason) for e in found.exclusions] == [
        ("node_modules/sdk/mcp.js", "vendored"), ("docs/guide.md", "docs"), ("gen/huge.py", "too-large")]
    assert (found.tools, found.files_parsed) == ((), 0)


@pytest.mark.parametrize(
    ("text", "value"),
    [('"a"', "a"), ("'b'", "b"), ("`c`", "c"), ("`x${y}`", None), ('f"x{y}"', None), ('r"a\\b"', "a\\b"),
     ('"a\\nb"', "a\nb"), ('@"v"', "v"), ('$"i{x}"', None), ("name", None), ('"""doc"""', "doc")],
)
def test_string_literals_are_read_and_interpolations_refused(text: str, value: str | None) -> None:
    assert unquote(text) == value


def test_booleans_in_every_spelling() -> None:
    assert [boolean(t) for t in ("True", "false", " true ", "Some(x)", "FALSE")] == [
        "true", "false", "true", "dynamic", "false"]


class _Broken:
    """A language detector whose second phase fails on one file (a bug we must survive)."""

    def __init__(self, dependencies: object) -> None:
        self.indexed: list[str] = []

    def index(self, file: SourceFile) -> None:
        self.indexed.append(file.path)

    def detect(self, file: SourceFile) -> Iterator[Tool | Exclusion]:
        if "bad" in file.path:
            raise ValueError("cannot read this tree")
        yield Tool(file.path, 1, "python-mcp", "ok", "python.python-mcp.test")


def test_a_detector_failure_on_one_file_is_recorded_and_the_rest_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(LANGUAGES, "python", f"{__name__}:_Broken")
    detector = Detector()
    for path in ("a.py", "bad.py", "z.py"):
        detector.add(path, b"tool = 1\n")
    found = detector.finish()
    assert [t.path for t in found.tools] == ["a.py", "z.py"]
    assert [(e.path, e.reason, e.detail) for e in found.exclusions] == [
        ("bad.py", "detector-error", "ValueError: cannot read this tree")]


@pytest.mark.parametrize(
    ("snippet", "term"),
    [
        (b'[McpServerTool(Name = "get", ReadOnly = true)]', "[McpServerTool("),
        (b"#[tool(annotations(read_only_hint = true))]", "read_only_hint"),
        (b"annotations(open_world_hint: false)", "open_world_hint"),
        (b"#[IsReadOnly]\nclass Q extends Tool {}", "#[IsReadOnly"),
        (b"@MCPTool(hints: [.readOnly])", "@MCPTool(hints:"),
        (b'new McpSchema.ToolAnnotations("T", true, false, true, false, null)', "ToolAnnotations"),
    ],
)
def test_dialects_find_what_the_published_count_calls_zero(snippet: bytes, term: str) -> None:
    published = dict(zip(TERM_SETS["hints"], TermCounter(TERM_SETS["hints"]).count_bytes(snippet), strict=True))
    dialects = dict(zip(TERM_SETS["dialects"], TermCounter(TERM_SETS["dialects"]).count_bytes(snippet), strict=True))
    assert set(published.values()) == {0}
    assert dialects[term] >= 1


def test_the_scan_pass_detects_what_a_directory_walk_detects(tmp_path: Path) -> None:
    """Every labelled case, packed in one GitHub archive and read as a stream in 1 MiB chunks,
    gives the same tools as reading the same files directly; a registration past the first chunk
    of a large file is found too (the detector joins the counter's chunks). Merged, each case
    still gives every row it gives alone (facts about the whole tree, such as a Python list_tools
    handler somewhere in it, may add rows; a literal with no schema key counts only in a tree where
    nothing else registers tools of its language, and a call handler's names only in a tree that
    lists no tool, so the merged tree drops those)."""
    cases = list(corpus.cases(CORPUS))
    tree: dict[str, bytes | tuple[str, str]] = {}
    for case in cases:
        for path in case.rglob("*"):
            if path.is_file() and path.name != corpus.EXPECTED:
                tree[f"{case.parent.name}/{case.name}/{path.relative_to(case).as_posix()}"] = path.read_bytes()
    padding = b"# " + b"x" * 77 + b"\n"
    tree["big/server.py"] = padding * (CHUNK_BYTES // len(padding) + 1) + FASTMCP_SERVER
    archive = tmp_path / "a.tar.gz"
    archive.write_bytes(tarball(tree))
    scan = scan_tree(members(archive, "owner-name-0000000"), ("annotations",), Detector())
    assert scan.detection is not None
    streamed = sorted((t.path, t.line, t.tool_name, t.sdk, t.annotations) for t in scan.detection.tools)
    direct = corpus.detect_files({path: data for path, data in tree.items() if isinstance(data, bytes)})
    assert streamed == sorted((t.path, t.line, t.tool_name, t.sdk, t.annotations) for t in direct.tools)
    big = [(path, name) for path, _, name, _, _ in streamed if path == "big/server.py"]
    assert big == [("big/server.py", "list_notes"), ("big/server.py", "delete_note")]
    alone = {(f"{c.parent.name}/{c.name}/{t.path}", t.line, t.tool_name, t.sdk, t.annotations)
             for c in cases for t in corpus.detect_directory(c).tools}
    tree_wide = ("rust/schemaless-spec-literals/", "typescript/call-handler-only/")  # see the docstring
    dropped = {row for row in alone if row[0].startswith(tree_wide)}
    assert len(dropped) == 4
    assert not dropped & set(streamed)
    assert alone - dropped <= set(streamed)


def test_every_relevance_marker_contains_an_anchor_word() -> None:
    """``paths.relevant`` (and the scan's prefilter) skip files without an anchor word."""
    from pipeline.scan.detect.paths import ANCHORS, MARKERS

    assert all(any(anchor.encode() in marker for anchor in ANCHORS) for marker in MARKERS)


def test_trees_dropped_between_the_phases_are_parsed_again_to_the_same_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``KEEP_TREES_BYTES`` of parsed source, trees are dropped after phase 1: same findings."""
    from pipeline.scan import detect

    cases = list(corpus.cases(CORPUS))
    kept = [corpus.detect_directory(case) for case in cases]
    monkeypatch.setattr(detect, "KEEP_TREES_BYTES", 0)
    assert [corpus.detect_directory(case) for case in cases] == kept
    assert sum(len(found.tools) for found in kept) > 250


def test_what_is_derived_from_a_tree_is_kept_until_the_tree_is_forgotten() -> None:
    """A file read in both phases is queried once; forgetting its tree forgets what came from it."""
    file = SourceFile("server.py", b"from mcp.server.fastmcp import FastMCP\n")
    made: list[int] = []

    def make() -> int:
        made.append(file.tree.root_node.end_byte)
        return len(made)

    assert file.kept("query", make) == file.kept("query", make) == 1
    assert file.kept("other", make) == 2
    file.forget_tree()
    assert file.kept("query", make) == 3
    assert made == [39, 39, 39]
