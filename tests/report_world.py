"""A small census with known answers, for the tests of statistics, reports and notebooks.

Every file below is written here, and each says what it adds: the expected values in
``test_stats.py`` are worked out by hand from these trees, never copied from output.
Two manifests are run into one DuckDB file, so every statistic is also checked to keep to
the manifest it is asked about:

``golden`` (terms = "dialects"), in this order:

1. ``acme/notes`` (GitHub archive): a FastMCP server (2 tools), an mcp-go tool with no
   annotations and an official Go SDK tool under ``server/``; hint names also in a test, a doc
   and a script; a ``.gitattributes`` that mentions "annotations"; one symlink. Besides its four
   server tools, an example's tool (``examples/demo.py``) and a Go test's tool under the server
   path (``server/files/main_test.go``): roles example and test. Neither names a counted term.
2. ``acme/memory`` (GitHub archive): its one MCP tool sits outside its ``server_paths``; hint
   names only in a test and a doc; a ``.gitmodules`` that mentions "annotations"; a LangChain
   look-alike.
3. ``acme/wiki`` (GitHub archive): snake_case hints only (a false zero for the camelCase
   count) and two tools registered through the project's own wrapper.
4. ``acme/gone``: not served, so skipped (404).
5. ``acme/bridge`` (local git repository): its server lives in another repository, and it has
   a git submodule.

``plain`` (terms = "published"): ``acme/plain``, one official Go SDK tool.

``add_runtime`` then stores tools/list answers as if servers had been probed (see ``RUNTIME``),
for runtime truth: five captures, four ``ok`` (10 tools from 4 servers, 9 with an annotations
object) and one skipped.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from github_server import GitHubServer
from synth import FASTMCP_SERVER, GO_SERVER, SILENT_SERVER, Tree, fake_sha, git, git_repo, tarball

from pipeline.manifest import manifests
from pipeline.run.census import Census
from pipeline.runtime.ingest import SKIPPED, Capture, ingest_tools_list
from pipeline.settings import Settings
from pipeline.store.database import Store
from pipeline.store.runtime import record_capture, set_server_repo

#: mcp-go's NewTool with no annotation option: the SDK sends the four spec defaults
MCP_GO_SERVER = b'''package main

import (
\t"github.com/mark3labs/mcp-go/mcp"
\t"github.com/mark3labs/mcp-go/server"
)

func main() {
\ts := server.NewMCPServer("files", "1.0.0")
\ts.AddTool(mcp.NewTool("list_files", mcp.WithDescription("List files")), listFiles)
}
'''

#: an example's FastMCP tool, no annotations and no counted term (role example)
DEMO_SERVER = b'''from mcp.server.fastmcp import FastMCP

mcp = FastMCP("demo")


@mcp.tool()
def echo(text: str) -> str:
    """Say it back."""
    return text
'''

#: a Go test that builds an mcp-go tool as a fixture (role test, under the server path)
MCP_GO_TEST = b'''package main

import (
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func TestListFiles(t *testing.T) {
	s := server.NewMCPServer("files", "1.0.0")
	s.AddTool(mcp.NewTool("fixture_files"), listFiles)
}
'''

#: official mcp v2 with snake_case hints and a title (read_only_hint 1, open_world_hint 1,
#: ToolAnnotations 2, annotations 3) and two tools through the project's wrapper (no annotations)
WIKI_SERVER = b'''from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from .registry import Registry

mcp = MCPServer("wiki")
registry = Registry(mcp)


@mcp.tool(annotations=ToolAnnotations(title="Read a page", read_only_hint=True, open_world_hint=False))
def read_page(name: str) -> str:
    """One page."""
    return name


@registry.tool(group="edit")
def edit_page(name: str, text: str) -> str:
    """Replace a page."""
    return text


@registry.tool(group="edit")
def delete_page(name: str) -> str:
    """Remove a page."""
    return name
'''

WIKI_REGISTRY = b'''"""Groups the wiki's tools."""
from collections.abc import Callable
from typing import Any


class Registry:
    def __init__(self, mcp: Any) -> None:
        self._mcp = mcp
        self.groups: dict[str, str] = {}

    def tool(self, *, group: str) -> Callable[[Callable[..., Any]], Any]:
        def decorator(fn: Callable[..., Any]) -> Any:
            self.groups[fn.__name__] = group
            return self._mcp.tool(name=fn.__name__)(fn)

        return decorator
'''

LANGCHAIN_TOOL = b'''from langchain_core.tools import tool


@tool
def search(query: str) -> str:
    """Search the web."""
    return query
'''

GOLDEN = """\
[census]
name = "golden"
description = "synthetic trees with hand-counted answers"
terms = "dialects"

[[repos]]
repo = "acme/notes"
commit = "{notes}"
server_paths = ["server"]
published = {{ readOnlyHint = 2, annotations = 8 }}

[[repos]]
repo = "acme/memory"
commit = "{memory}"
server_paths = ["mcp"]
note = "the server moved to src/"

[[repos]]
repo = "acme/wiki"
commit = "{wiki}"
server_paths = ["server"]
published = {{ readOnlyHint = 0 }}

[[repos]]
repo = "acme/gone"
commit = "{gone}"

[[repos]]
repo = "acme/bridge"
commit = "{bridge}"
server_repo = "acme/bridge-mcp"
source = "bridge"
"""

PLAIN = """\
[census]
name = "plain"
terms = "published"

[[repos]]
repo = "acme/plain"
commit = "{plain}"
"""


def notes_tree() -> Tree:
    """acme/notes: 4 MCP tools under server/, hint names everywhere."""
    return {
        "server/notes.py": FASTMCP_SERVER,  # readOnly 1, destructive 1, idempotent 1, openWorld 1, TA 2, ann 4
        "server/search/main.go": GO_SERVER,  # readOnly 1, openWorld 1, ToolAnnotations 1, annotations 2
        "server/files/main.go": MCP_GO_SERVER,  # nothing
        "server/files/main_test.go": MCP_GO_TEST,  # nothing; a test's tool (fixture_files)
        "examples/demo.py": DEMO_SERVER,  # nothing; an example's tool (echo)
        "tests/test_notes.py": b"def test_hints():\n    assert tool.annotations.readOnlyHint is True\n",
        "docs/hints.md": b"Set `readOnlyHint` and `openWorldHint` on every tool.\n",
        "scripts/check.sh": b"grep -c readOnlyHint server/notes.py\n",
        ".gitattributes": b"*.bin export-ignore\n# keep annotations\n",  # annotations 1
        "link.py": ("symlink", "server/notes.py"),
    }


def memory_tree() -> Tree:
    """acme/memory: the tool sits in src/, not in its server path mcp/."""
    return {
        "src/memory.py": SILENT_SERVER,  # annotations 1 (in a docstring)
        "mcp/README.md": b"The server moved to src/.\n",
        "agents/lc.py": LANGCHAIN_TOOL,
        "tests/test_memory.py": b"# readOnlyHint and destructiveHint are left unset on purpose\n",
        "docs/notes.md": b"idempotentHint\n",
        ".gitmodules": b'[submodule "vendor/annotations"]\n\tpath = vendor/annotations\n'
                       b"\turl = ../annotations.git\n",  # annotations 3
    }


def wiki_tree() -> Tree:
    """acme/wiki: snake_case hints only, two tools through a wrapper."""
    return {"server/wiki.py": WIKI_SERVER, "server/registry.py": WIKI_REGISTRY}


@dataclass(frozen=True)
class ReportWorld:
    """A census database of the synthetic trees, and their commits."""

    db: Path
    commits: dict[str, str]


def build(tmp: Path) -> ReportWorld:
    """Serve the trees, run both manifests into ``tmp/census.duckdb``."""
    commits = {repo: fake_sha(repo) for repo in ("acme/notes", "acme/memory", "acme/wiki", "acme/gone", "acme/plain")}
    commits["acme/bridge"] = _bridge(tmp / "bridge")
    trees: dict[str, Tree] = {"acme/notes": notes_tree(), "acme/memory": memory_tree(), "acme/wiki": wiki_tree(),
                              "acme/plain": {"main.go": GO_SERVER}}
    db = tmp / "census.duckdb"
    with GitHubServer() as server:
        for repo, tree in trees.items():
            root = f"{repo.replace('/', '-')}-{commits[repo][:7]}"
            server.add_repo(repo, {commits[repo]: tarball(tree, root, commits[repo])})
        settings = Settings(db_path=db, cache_dir=tmp / "cache", api_url=server.api_url, attempts=1)
        for name, text in (("golden", GOLDEN), ("plain", PLAIN)):
            path = tmp / f"{name}.toml"
            path.write_text(text.format(**{r.split("/")[1]: c for r, c in commits.items()}), encoding="utf-8")
            _run(path, settings)
    return ReportWorld(db, commits)


def _run(path: Path, settings: Settings) -> None:
    census = Census(manifests.load(path), settings)
    try:
        with Store(settings.db_path) as store:
            list(census.run(store))
    finally:
        census.close()


def _bridge(path: Path) -> str:
    """acme/bridge: a README and a submodule (a gitlink), as a local git repository."""
    git_repo(path, {"README.md": b"The MCP server lives in acme/bridge-mcp.\n",
                    ".gitmodules": b'[submodule "vendor/sdk"]\n\tpath = vendor/sdk\n\turl = ../sdk.git\n'})
    git(path, "update-index", "--add", "--cacheinfo", f"160000,{fake_sha('sdk')},vendor/sdk")
    git(path, "commit", "-q", "-m", "add the sdk submodule")
    return git(path, "rev-parse", "HEAD").strip()


#: when every runtime capture below was taken
CAPTURED_AT = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def _tool(name: str, **annotations: Any) -> dict[str, Any]:
    """A tools/list tool object; no keyword arguments: no annotations key at all."""
    body: dict[str, Any] = {"name": name, "inputSchema": {"type": "object"}}
    return {**body, "annotations": annotations} if annotations else body


#: per server: its tools/list answer (a list is the pages, in order) and the repository paired
#: with ``--repo`` (None: none given). Against the source (see the trees above):
#:
#: - ``acme/notes`` (paired by its name, two JSON-RPC pages): list_notes and delete_note as
#:   declared; list_files arrives with mcp-go's four defaults (added on wire, as expected);
#:   search arrives without annotations (readOnlyHint and openWorldHint dropped on wire).
#: - ``wiki`` (--repo acme/wiki): read_page with openWorldHint true where the source declares
#:   false (differ); delete_page with destructiveHint true (added on wire, not expected);
#:   edit_page not sent (source only); search_pages built at run time (runtime only).
#: - ``plain-search`` (--repo acme/plain, of the other manifest) and ``weather`` (no source):
#:   counted at run time only; weather's readOnlyHint "yes" is set but not a boolean.
RUNTIME: dict[str, tuple[Any, str | None]] = {
    "acme/notes": ([
        {"jsonrpc": "2.0", "id": 2, "result": {"nextCursor": "2", "tools": [
            _tool("list_notes", readOnlyHint=True, openWorldHint=False),
            _tool("delete_note", destructiveHint=True, idempotentHint=True)]}},
        {"jsonrpc": "2.0", "id": 3, "result": {"tools": [
            _tool("list_files", readOnlyHint=False, destructiveHint=True, idempotentHint=False, openWorldHint=True),
            _tool("search")]}},
    ], None),
    "wiki": ({"tools": [
        _tool("read_page", title="Read a page", readOnlyHint=True, openWorldHint=True),
        _tool("delete_page", destructiveHint=True),
        _tool("search_pages", readOnlyHint=True),
    ]}, "acme/wiki"),
    "plain-search": ({"tools": [_tool("search", readOnlyHint=True, idempotentHint=False, openWorldHint=True)]},
                     "acme/plain"),
    "weather": ({"tools": [_tool("get_forecast", readOnlyHint=True, openWorldHint=True),
                           _tool("set_alert", readOnlyHint="yes")]}, None),
}
#: a server that never answered: a skipped capture, with its reason, paired with acme/memory
#: (``--repo``) yet compared with nothing, since nothing was received
SKIPPED_REPO = "acme/memory"
SKIPPED_SERVER = Capture(server="flaky", captured_at_utc=CAPTURED_AT, status=SKIPPED,
                         reason="initialize: no answer within 60 s", transport="stdio",
                         command_or_url="python flaky.py")


def add_runtime(db: Path, folder: Path) -> None:
    """Store ``RUNTIME``'s answers (written as JSON files into ``folder``) and ``SKIPPED_SERVER``
    in the census database ``db``, as ``census ingest-tools-list`` would."""
    folder.mkdir(parents=True, exist_ok=True)
    with Store(db) as store:
        for n, (server, (answer, repo)) in enumerate(RUNTIME.items()):
            path = folder / f"tools-list-{n}.json"
            path.write_text(json.dumps(answer), encoding="utf-8")
            record_capture(store.connection, ingest_tools_list(path, server, CAPTURED_AT))
            if repo is not None:
                set_server_repo(store.connection, server, repo)
        record_capture(store.connection, SKIPPED_SERVER)
        set_server_repo(store.connection, SKIPPED_SERVER.server, SKIPPED_REPO)


def with_runtime(world: ReportWorld, folder: Path) -> Path:
    """A copy of ``world``'s database, in ``folder``, with ``add_runtime``'s captures."""
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "census.duckdb"
    shutil.copyfile(world.db, db)
    add_runtime(db, folder / "answers")
    return db
