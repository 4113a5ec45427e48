"""Small synthetic repositories and real archives built from them, for tests.

Nothing here comes from another repository: every tree is written by these helpers.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import subprocess
import tarfile
from collections.abc import Mapping
from pathlib import Path

#: a tree: path -> file content (bytes), or ("symlink", target)
Tree = Mapping[str, bytes | tuple[str, str]]

FASTMCP_SERVER = b'''from mcp.server.fastmcp import FastMCP
from mcp.types import ToolAnnotations

mcp = FastMCP("notes")


@mcp.tool(annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False))
def list_notes() -> list[str]:
    """All notes."""
    return []


@mcp.tool(annotations={"destructiveHint": True, "idempotentHint": True})
def delete_note(note_id: str) -> str:
    """Delete one note."""
    return note_id
'''

GO_SERVER = b'''package main

import "github.com/modelcontextprotocol/go-sdk/mcp"

func main() {
\tserver := mcp.NewServer(&mcp.Implementation{Name: "search"}, nil)
\tmcp.AddTool(server, &mcp.Tool{
\t\tName:        "search",
\t\tAnnotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)},
\t}, search)
}
'''

SILENT_SERVER = b'''from mcp.server.fastmcp import FastMCP

mcp = FastMCP("memory")


@mcp.tool()
def save_memory(text: str) -> str:
    """Store a memory. Its annotations are left unset."""
    return text
'''


def fake_sha(seed: str) -> str:
    """A deterministic 40-hex string standing in for a commit SHA."""
    return hashlib.sha1(seed.encode()).hexdigest()


def tarball(tree: Tree, root: str | None = "owner-name-0000000", commit: str | None = None) -> bytes:
    """A GitHub-style tar.gz of ``tree``: pax global header with the commit, one top folder."""
    buffer = io.BytesIO()
    headers = {"comment": commit} if commit else {}
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT, pax_headers=headers) as tar:
        if root:
            info = tarfile.TarInfo(root)
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            tar.addfile(info)
        for path, content in tree.items():
            name = f"{root}/{path}" if root else path
            info = tarfile.TarInfo(name)
            if isinstance(content, tuple):
                info.type, info.linkname = tarfile.SYMTYPE, content[1]
                tar.addfile(info)
            else:
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
    return gzip.compress(buffer.getvalue(), mtime=0)


def git_repo(path: Path, tree: Tree, message: str = "synthetic") -> str:
    """A git repository at ``path`` holding ``tree`` in one commit; returns the commit SHA."""
    path.mkdir(parents=True, exist_ok=True)
    _git(path, "init", "-q", "-b", "main")
    for name, content in tree.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, tuple):
            os.symlink(content[1], target)
        else:
            target.write_bytes(content)
    _git(path, "add", "-A")
    _git(path, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", message)
    return _git(path, "rev-parse", "HEAD").strip()


def _git(path: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(["git", "-C", str(path), *args], capture_output=True, check=True, env=env)
    return done.stdout.decode()
