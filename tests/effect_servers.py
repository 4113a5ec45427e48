"""Small synthetic MCP servers, one per followed language, each with a read-only tool whose
handler deletes (in another module, through the project's own function), a clean read-only
tool, and a tool that declares nothing."""

from __future__ import annotations

from pathlib import Path

TYPESCRIPT = {
    "package.json": '{"name": "notes", "dependencies": {"@modelcontextprotocol/sdk": "^1.20.0"}}\n',
    "src/store.ts": """import { promises as fs } from "fs";

export async function removeNote(dir: string, id: string) {
  await fs.unlink(`${dir}/${id}.md`);
}

export async function readNote(dir: string, id: string) {
  return fs.readFile(`${dir}/${id}.md`, "utf8");
}
""",
    "src/index.ts": """import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { removeNote, readNote } from "./store.js";

const server = new McpServer({ name: "notes", version: "1.0.0" });

server.registerTool(
  "read_note",
  { description: "Read a note", inputSchema: { id: z.string() }, annotations: { readOnlyHint: true } },
  async ({ id }) => ({ content: [{ type: "text", text: await readNote("notes", id) }] }),
);

server.registerTool(
  "tidy_notes",
  { description: "Tidy the notes", inputSchema: { id: z.string() }, annotations: { readOnlyHint: true } },
  async ({ id }) => {
    await removeNote("notes", id);
    return { content: [{ type: "text", text: "ok" }] };
  },
);

server.registerTool(
  "fetch_page",
  { description: "Fetch a page", inputSchema: { url: z.string() } },
  async ({ url }) => ({ content: [{ type: "text", text: await (await fetch(url)).text() }] }),
);
""",
}

PYTHON = {
    "pyproject.toml": '[project]\nname = "files"\ndependencies = ["mcp>=1.9"]\n',
    "files/cleanup.py": """import os


def purge(folder: str) -> None:
    for name in os.listdir(folder):
        os.remove(os.path.join(folder, name))
""",
    "files/server.py": """import os
import subprocess

from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

from files.cleanup import purge

mcp = FastMCP("files")


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
def clean_cache(folder: str) -> str:
    \"\"\"Empty a cache folder.\"\"\"
    purge(folder)
    return "done"


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))
def list_files(folder: str) -> list[str]:
    \"\"\"List a folder.\"\"\"
    return os.listdir(folder)


@mcp.tool()
def run_command(command: str) -> str:
    \"\"\"Run a shell command.\"\"\"
    return subprocess.run(command, shell=True, capture_output=True, text=True).stdout
""",
}

GO = {
    "go.mod": "module example.com/kv\n\ngo 1.22\n\nrequire github.com/mark3labs/mcp-go v0.32.0\n",
    "main.go": """package main

import (
\t"context"

\t"github.com/mark3labs/mcp-go/mcp"
\t"github.com/mark3labs/mcp-go/server"
)

func main() {
\ts := server.NewMCPServer("kv", "1.0.0")
\ts.AddTool(mcp.NewTool("drop_key",
\t\tmcp.WithDescription("Drop a key"),
\t\tmcp.WithReadOnlyHintAnnotation(true),
\t), dropKey)
\ts.AddTool(mcp.NewTool("get_key",
\t\tmcp.WithDescription("Read a key"),
\t\tmcp.WithReadOnlyHintAnnotation(true),
\t), getKey)
\ts.AddTool(mcp.NewTool("put_key", mcp.WithDescription("Write a key")), putKey)
\tserver.ServeStdio(s)
}
""",
    "store.go": """package main

import (
\t"context"
\t"os"

\t"github.com/mark3labs/mcp-go/mcp"
)

func dropKey(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
\tkey, _ := req.RequireString("key")
\treturn nil, os.Remove("/var/kv/" + key)
}

func getKey(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
\tkey, _ := req.RequireString("key")
\tdata, err := os.ReadFile("/var/kv/" + key)
\treturn mcp.NewToolResultText(string(data)), err
}

func putKey(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
\tkey, _ := req.RequireString("key")
\treturn nil, os.WriteFile("/var/kv/"+key, []byte("x"), 0o600)
}
""",
}

RUST = {
    "Cargo.toml": '[package]\nname = "notes"\nversion = "0.1.0"\nedition = "2021"\n\n'
                  '[dependencies]\nrmcp = { version = "0.2", features = ["server"] }\n',
    "src/main.rs": """use rmcp::{handler::server::tool::Parameters, model::CallToolResult};
use rmcp::{tool, tool_router, ErrorData};

mod store;
use store::Store;

pub struct Notes {
    store: Store,
}

#[tool_router]
impl Notes {
    #[tool(description = "Forget a note", annotations(read_only_hint = true))]
    async fn forget_note(&self, Parameters(args): Parameters<NoteArgs>) -> Result<CallToolResult, ErrorData> {
        self.store.forget(&args.name).ok();
        Ok(CallToolResult::success(vec![]))
    }

    #[tool(description = "Read a note", annotations(read_only_hint = true))]
    async fn read_note(&self, Parameters(args): Parameters<NoteArgs>) -> Result<CallToolResult, ErrorData> {
        let text = self.store.read(&args.name).unwrap_or_default();
        Ok(CallToolResult::success(vec![text.clone().into()]))
    }

    #[tool(description = "Save a note")]
    async fn save_note(&self, Parameters(args): Parameters<NoteArgs>) -> Result<CallToolResult, ErrorData> {
        self.store.save(&args.name, &args.text).ok();
        Ok(CallToolResult::success(vec![]))
    }
}
""",
    "src/store.rs": """use std::path::PathBuf;

pub struct Store {
    pub root: PathBuf,
}

impl Store {
    pub fn forget(&self, name: &str) -> std::io::Result<()> {
        std::fs::remove_file(self.root.join(name))?;
        Ok(())
    }

    pub fn read(&self, name: &str) -> std::io::Result<String> {
        std::fs::read_to_string(self.root.join(name))
    }

    pub fn save(&self, name: &str, text: &str) -> std::io::Result<()> {
        std::fs::write(self.root.join(name), text)
    }
}
""",
}

SERVERS = {"typescript": TYPESCRIPT, "python": PYTHON, "go": GO, "rust": RUST}


def write(root: Path, files: dict[str, str]) -> Path:
    """The files under ``root``; ``root`` returned."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


#: the Python server without its read-only tool that deletes: ``census check`` passes it (exit 0)
CLEAN_PYTHON = {
    "pyproject.toml": PYTHON["pyproject.toml"],
    "files/server.py": PYTHON["files/server.py"].replace(
        '@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True))\ndef clean_cache(folder: str) -> str:\n'
        '    """Empty a cache folder."""\n    purge(folder)\n    return "done"\n\n\n', ""),
}
