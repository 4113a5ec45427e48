"""Conditional registrations (``pipeline.scan.detect.conditions``): which conditions read the
server's configuration, how a condition is written down, and the walk's limits. The labelled corpus
(``*/conditional-registrations``) holds the whole cases, one per language."""

from __future__ import annotations

import pytest

from pipeline.scan.detect.conditions.branches import MOST_CHARACTERS, negation, one_line
from pipeline.scan.detect.conditions.reading import binder, reads_configuration
from pipeline.scan.detect.corpus import detect_files

READS = [
    'process.env.ENABLE_EXPORT === "true"', 'os.getenv("X")', 'os.Getenv("X") != ""', 'ENV["X"]',
    'System.getenv("X") != null', 'Environment.GetEnvironmentVariable("X") == "1"', "std::env::var(\"X\").is_ok()",
    "argv.admin", "args.read_only", "*readOnly", "options.write", "flag.Bool(\"x\", false, \"\")",
    "config.features.search", "settings.enable_search", "cfg.EnableSearch", "this.config.write", "$config['x']",
    'toolsets.includes("tags")', '"tags" in enabled_tools', 'slices.Contains(toolsets, "tags")', 'enabled["x"]',
    "isEnabled(\"search\")", "enableSearch", "ENABLE_EXPORT",
    "!readOnly", "not self.read_only", "allowWrites", "switch config.mode: case \"a\"",
]
READS_NOTHING = [
    "x === undefined", "server === undefined", "limit > 10", "tools.length > 0", '__name__ == "__main__"',
    'name === "config"', 'kind === "pin"', "err != nil", "typeof fn === \"function\"", "tool.annotations.readOnlyHint",
    "process.platform === \"win32\"", "kwargs.get(\"annotations\")", "t.enabled",
]


@pytest.mark.parametrize("condition", READS)
def test_a_condition_on_configuration_reads_it(condition: str) -> None:
    assert reads_configuration(condition)


@pytest.mark.parametrize("condition", READS_NOTHING)
def test_a_condition_on_anything_else_does_not(condition: str) -> None:
    assert not reads_configuration(condition)


def test_a_bare_name_is_read_where_the_file_binds_it_once() -> None:
    source = """
const apiKey = process.env.API_KEY;
const limit = computeLimit();
for (const ts of config.toolsets) {}
for (const kind of ["pin", "star"]) {}
err = a(settings); err = b(); err = c(); err = d(options);
"""
    bindings = binder(source)
    assert reads_configuration("apiKey", bindings)
    assert reads_configuration('ts === "repos"', bindings)  # a loop over a setting
    assert not reads_configuration("limit > 10", bindings)
    assert not reads_configuration('kind === "pin"', bindings)  # a loop over a literal list
    assert not reads_configuration("err != nil", bindings)  # an error, however it is bound


def test_a_name_bound_to_many_values_is_not_followed() -> None:
    source = "\n".join(f"mode = pick{n}(settings)" for n in range(5))
    assert not reads_configuration("mode", binder(source))
    assert reads_configuration("mode", binder("mode = settings.mode\n"))


def test_a_condition_is_written_on_one_line_and_cut() -> None:
    assert one_line("(process.env.A &&\n      process.env.B)") == "process.env.A && process.env.B"
    assert one_line("(a) || (b)") == "(a) || (b)"
    long = one_line("config." + "x" * 300)
    assert len(long) == MOST_CHARACTERS
    assert long.endswith("...")


@pytest.mark.parametrize(("condition", "negated"), [
    ("!readOnly", "readOnly"), ("not settings.read_only", "settings.read_only"), ("!*readOnly", "*readOnly"),
    ("else: x", "x"), ("!a && b", "else: !a && b"), ("x == 1", "else: x == 1"),
])
def test_the_else_branch_negates_the_condition(condition: str, negated: str) -> None:
    assert negation(condition) == negated


SDK = b'{"type": "module", "dependencies": {"@modelcontextprotocol/sdk": "^1.20.0"}}'
IMPORT = b'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";\nconst server = new McpServer({});\n'


def _conditions(source: bytes, **others: bytes) -> dict[str | None, str | None]:
    files = {"package.json": SDK, "src/server.ts": IMPORT + source, **{f"src/{k}.ts": v for k, v in others.items()}}
    return {t.tool_name: t.condition for t in detect_files(files).tools}


def test_a_function_used_on_both_sides_of_a_branch_is_not_conditional() -> None:
    source = b"""
function register(s) { s.tool("a", "A", async () => ({ content: [] })); }
if (process.env.HTTP) { register(server); } else { register(server); }
function registerWrite(s) { s.tool("b", "B", async () => ({ content: [] })); }
if (process.env.HTTP) { registerWrite(server); }
registerWrite;
"""
    assert _conditions(source) == {"a": None, "b": None}


def test_a_function_used_in_another_file_is_not_followed() -> None:
    source = b'export function registerWrite(s) { s.tool("b", "B", async () => ({ content: [] })); }\n'
    main = b'import { registerWrite } from "./server.js";\nif (process.env.WRITE) registerWrite(server);\n'
    assert _conditions(source, main=main) == {"b": None}


def test_an_exit_from_main_or_on_a_version_flag_makes_nothing_conditional() -> None:
    source = b"""
async function main() {
  if (process.env.DRY_RUN) return;
  server.tool("a", "A", async () => ({ content: [] }));
}
function setup() {
  if (args.version) { console.log("1.0"); return; }
  server.tool("b", "B", async () => ({ content: [] }));
  if (!config.write) return;
  server.tool("c", "C", async () => ({ content: [] }));
}
"""
    assert _conditions(source) == {"a": None, "b": None, "c": "config.write"}


def test_a_server_built_for_each_transport_is_not_conditional() -> None:
    """``if`` / ``else if`` over a transport setting builds the same server either way; a wrapper that
    registers in both branches of a read-only check registers either way too."""
    source = b"""
function build() { const s = new McpServer({}); s.tool("a", "A", async () => ({ content: [] })); return s; }
if (config.transport === "http") { serveHttp(build()); } else if (config.transport === "sse") { serveSse(build()); }
function add(name, annotations) {
  if (readOnly) { server.registerTool(name, { annotations: { ...annotations, readOnlyHint: true } }, done); }
  else { server.registerTool(name, { annotations }, done); }
}
add("b", {});
"""
    assert _conditions(source) == {"a": None, "b": None}
