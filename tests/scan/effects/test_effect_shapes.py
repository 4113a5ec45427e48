"""Shapes of handlers and of the code they run, each on a small synthetic server: where a handler
is found, what is followed from it, and what is not a tool's effect."""

from __future__ import annotations

from pathlib import Path

from effect_servers import SERVERS, write

from pipeline.run.check import check
from pipeline.run.inputs import entries_of
from pipeline.scan.detect import Detector
from pipeline.scan.effects import model
from pipeline.scan.roles import RoleRules
from pipeline.scan.tree import scan_tree

_TS_HEAD = SERVERS["typescript"]["src/index.ts"].split("server.registerTool(")[0]
_PY_HEAD = 'from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP("x")\n\n'


def _kinds(root: Path) -> dict[str, set[str]]:
    """Each server tool's effect kinds, by name, as ``census run`` and ``census check`` read the tree."""
    detection = scan_tree(entries_of(root), (), Detector(effects=True), RoleRules()).detection
    assert detection is not None
    return {e.tool_name or "": set(e.kinds) for e in detection.effects}


def _python_server(tmp_path: Path, server: str) -> dict[str, model.ToolEffects]:
    """What ``census run`` reads of a Python server of one file: each server tool's handler and effects."""
    root = write(tmp_path / "py", {"pyproject.toml": SERVERS["python"]["pyproject.toml"], "app/server.py": server})
    detection = scan_tree(entries_of(root), (), Detector(effects=True), RoleRules()).detection
    assert detection is not None
    return {e.tool_name or "": e for e in detection.effects}


def test_a_typed_function_constant_in_a_handler_table_is_the_handler(tmp_path: Path) -> None:
    handlers = ('import { promises as fs } from "fs";\n'
                'import { ToolCallback } from "@modelcontextprotocol/sdk/server/mcp.js";\n'
                'export const dropNote: ToolCallback<{ params: typeof schema }> = async (args) => {\n'
                '  await fs.rm(args.path);\n  return { content: [] };\n};\n')
    table = 'import { dropNote } from "./drop.js";\nexport const HANDLERS = { drop_note: dropNote };\n'
    tools = 'export const dropNoteTool = {\n  name: "drop_note" as const,\n  description: "Drop a note",\n};\n'
    index = _TS_HEAD + ('import { HANDLERS } from "./handlers.js";\nimport { dropNoteTool } from "./tool.js";\n'
                        'for (const tool of [dropNoteTool]) {\n'
                        '  server.tool(tool.name, tool.description, {}, HANDLERS[tool.name]);\n}\n')
    files = {"package.json": SERVERS["typescript"]["package.json"], "src/index.ts": index, "src/drop.ts": handlers,
             "src/handlers.ts": table, "src/tool.ts": tools}
    assert _kinds(write(tmp_path / "ts", files))["drop_note"] == {model.DELETE_LOCAL}


def test_a_method_handed_to_a_thread_is_followed_into_its_class(tmp_path: Path) -> None:
    server = _PY_HEAD + ('import asyncio\n\nfrom app.client import Client\n\n\n@mcp.tool()\n'
                         'async def move_issue(key: str) -> str:\n    client = Client()\n'
                         '    return await asyncio.to_thread(client.move_issue, key)\n')
    client = ('import os\n\n\nclass Client:\n    def move_issue(self, key: str) -> str:\n'
              '        os.rename(key, key + ".moved")\n        return key\n')
    files = {"pyproject.toml": SERVERS["python"]["pyproject.toml"], "app/server.py": server, "app/client.py": client}
    assert _kinds(write(tmp_path / "py", files))["move_issue"] == {model.WRITE_LOCAL}


def test_the_servers_own_cache_is_not_a_tools_write_but_a_tool_that_clears_it_deletes(tmp_path: Path) -> None:
    server = _PY_HEAD + ('import os\nimport shutil\n\nimport httpx\n\n\ndef cache_dir() -> str:\n'
                         '    os.makedirs("/tmp/x-cache", exist_ok=True)\n    return "/tmp/x-cache"\n\n\n'
                         '@mcp.tool()\ndef search(query: str) -> str:\n    cache_dir()\n'
                         '    return httpx.get("https://api.example.com/search", params={"q": query}).text\n\n\n'
                         '@mcp.tool()\ndef clear_cache() -> str:\n    shutil.rmtree(cache_dir())\n    return "ok"\n')
    kinds = _kinds(write(tmp_path / "py", {"pyproject.toml": SERVERS["python"]["pyproject.toml"],
                                             "app/server.py": server}))
    assert kinds["search"] == {model.READ_REMOTE}
    assert kinds["clear_cache"] == {model.DELETE_LOCAL}


def test_a_document_saved_to_a_path_is_a_write_and_a_frame_rendered_to_text_is_not(tmp_path: Path) -> None:
    server = _PY_HEAD + ('import pandas as pd\nfrom PIL import Image\n\n\n@mcp.tool()\n'
                         'def thumbnail(source: str, target: str) -> str:\n    img = Image.open(source)\n'
                         '    img.save(target)\n    return target\n\n\n@mcp.tool()\n'
                         'def table(rows: list[dict]) -> str:\n    return pd.DataFrame(rows).to_csv()\n\n\n'
                         '@mcp.tool()\ndef export(rows: list[dict], path: str) -> str:\n'
                         '    pd.DataFrame(rows).to_csv(path)\n    return path\n')
    kinds = _kinds(write(tmp_path / "py", {"pyproject.toml": SERVERS["python"]["pyproject.toml"],
                                             "app/server.py": server}))
    assert model.WRITE_LOCAL in kinds["thumbnail"]
    assert kinds["table"] == {model.NONE}
    assert kinds["export"] == {model.WRITE_LOCAL}


def test_a_function_only_a_test_defines_is_not_followed(tmp_path: Path) -> None:
    server = _PY_HEAD + ('from app.helpers import tidy\n\n\n@mcp.tool()\ndef tidy_up(folder: str) -> str:\n'
                         '    return tidy(folder)\n')
    helpers = 'def tidy(folder: str) -> str:\n    return folder.strip()\n'
    fixture = 'import shutil\n\n\ndef tidy(folder: str) -> str:\n    shutil.rmtree(folder)\n    return folder\n'
    files = {"pyproject.toml": SERVERS["python"]["pyproject.toml"], "app/server.py": server,
             "app/helpers.py": helpers, "tests/test_tidy.py": fixture}
    assert _kinds(write(tmp_path / "py", files))["tidy_up"] == {model.NONE}


def test_a_rust_tool_struct_runs_the_method_of_its_impl_in_another_file(tmp_path: Path) -> None:
    tool = ('use rust_mcp_sdk::macros::mcp_tool;\n\n#[mcp_tool(name = "remove_file", description = "Remove a file",'
            ' read_only_hint = true)]\npub struct RemoveFile {\n    pub path: String,\n}\n')
    run = ('use crate::tools::RemoveFile;\n\nimpl RemoveFile {\n'
           '    pub async fn run_tool(params: Self, service: &Service) -> Result<(), String> {\n'
           '        service.remove(&params.path).await\n    }\n}\n')
    service = ('pub struct Service;\n\nimpl Service {\n'
               '    pub async fn remove(&self, path: &str) -> Result<(), String> {\n'
               '        tokio::fs::remove_file(path).await.map_err(|e| e.to_string())?;\n        Ok(())\n    }\n}\n')
    cargo = '[package]\nname = "fs"\nversion = "0.1.0"\n\n[dependencies]\nrust-mcp-sdk = "0.5"\n'
    report = check(write(tmp_path / "rs", {"Cargo.toml": cargo, "src/tools.rs": tool, "src/run.rs": run,
                                            "src/service.rs": service}))
    assert [(f.tool_name, f.evidence) for f in report.findings if f.kind == "contradiction"] == [
        ("remove_file", "src/service.rs:5")]


def test_an_http_method_constant_passed_down_names_the_request(tmp_path: Path) -> None:
    server = SERVERS["rust"]["src/main.rs"].split("#[tool_router]")[0] + (
        '#[tool_router]\nimpl Notes {\n    #[tool(description = "Delete a client")]\n'
        '    async fn delete_client(&self, Parameters(req): Parameters<Id>) -> Result<CallToolResult, ErrorData> {\n'
        '        self.api.send(Method::DELETE, &req.id).await\n    }\n\n    #[tool(description = "Get a client")]\n'
        '    async fn get_client(&self, Parameters(req): Parameters<Id>) -> Result<CallToolResult, ErrorData> {\n'
        '        let found = self.api.send(Method::GET, &req.id).await;\n        found.clone()\n    }\n}\n')
    api = ('use reqwest::{Client, Method};\n\npub struct Api {\n    client: Client,\n}\n\nimpl Api {\n'
           '    pub async fn send(&self, method: Method, id: &str) -> Result<CallToolResult, ErrorData> {\n'
           '        let url = format!("https://api.example.com/clients/{id}");\n'
           '        let answer = self.client.request(method, &url).send().await;\n        answer.clone()\n    }\n}\n')
    kinds = _kinds(write(tmp_path / "rs", {"Cargo.toml": SERVERS["rust"]["Cargo.toml"], "src/main.rs": server,
                                            "src/api.rs": api}))
    assert kinds == {"delete_client": {model.DELETE_REMOTE}, "get_client": {model.READ_REMOTE}}


def test_a_built_request_run_by_execute_is_what_its_own_call_says(tmp_path: Path) -> None:
    """``service.files().get(id).execute()`` reads: the verb is the request's (``get``), not the run's;
    ``...batchUpdate(body).execute()`` writes, and its evidence is the same call however the tools are
    ordered (the nearest, then the shortest call on the line)."""
    server = _PY_HEAD + ('from googleapiclient.discovery import build\n\nservice = build("sheets", "v4")\n\n\n'
                         '@mcp.tool()\ndef read_sheet(sheet_id: str) -> dict:\n'
                         '    return service.spreadsheets().get(spreadsheetId=sheet_id).execute()\n\n\n'
                         '@mcp.tool()\ndef rename_sheet(sheet_id: str, body: dict) -> dict:\n'
                         '    return service.spreadsheets().batchUpdate(spreadsheetId=sheet_id, body=body).execute()\n')
    found = _python_server(tmp_path, server)
    assert found["read_sheet"].kinds == {model.READ_REMOTE}
    (write_effect,) = found["rename_sheet"].effects
    assert write_effect.kind == model.WRITE_REMOTE
    assert write_effect.call == "service.spreadsheets().batchUpdate(spreadsheetId=sheet_id, body=body)"


def test_a_function_listed_for_a_loop_to_register_is_the_handler_of_its_row(tmp_path: Path) -> None:
    server = _PY_HEAD + ('import os\n\n\ndef drop_note(path: str) -> str:\n    os.remove(path)\n    return path\n\n\n'
                         'def read_note(path: str) -> str:\n    with open(path) as f:\n        return f.read()\n\n\n'
                         'def register(server: FastMCP) -> None:\n    tools = [\n        drop_note,\n'
                         '        read_note,\n    ]\n    for tool in tools:\n        server.add_tool(tool)\n\n\n'
                         'register(mcp)\n')
    found = _python_server(tmp_path, server)
    assert (found["drop_note"].handler.kind, found["drop_note"].handler.line) == ("reference", 8)
    assert set(found["drop_note"].kinds) == {model.DELETE_LOCAL}
    assert set(found["read_note"].kinds) == {model.READ_LOCAL}
