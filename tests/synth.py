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


def git_env() -> dict[str, str]:
    """The environment for git in tests: no system or global configuration."""
    return {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def git(path: Path, *args: str) -> str:
    """Run ``git -C path args`` with a test identity and no outside configuration; its stdout."""
    identity = ("-c", "user.name=t", "-c", "user.email=t@example.invalid")
    done = subprocess.run(["git", *identity, "-C", str(path), *args], capture_output=True, check=True, env=git_env())
    return done.stdout.decode()


def partial_clone(source: Path, dest: Path, limit: str = "1k") -> Path:
    """A bare ``--filter=blob:limit=LIMIT`` clone of ``source`` over file:// (blobs above it missing)."""
    git(source, "config", "uploadpack.allowFilter", "true")
    git(
        source.parent, "clone", "-q", "--bare", f"--filter=blob:limit={limit}", "--no-local",
        source.resolve().as_uri(), str(dest),
    )
    return dest


def missing_objects(repo: Path, commit: str) -> set[str]:
    """The objects reachable from ``commit`` that ``repo`` lacks (``?sha`` lines of rev-list)."""
    out = git(repo, "rev-list", "--objects", "--no-walk", "--missing=print", commit)
    return {line[1:] for line in out.splitlines() if line.startswith("?")}


def blob_sha(content: bytes) -> str:
    """The git blob id of ``content`` (computed here, without git)."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def tar_member(
    name: str | bytes, data: bytes = b"", *, kind: bytes = tarfile.REGTYPE, linkname: str = ""
) -> tuple[tarfile.TarInfo, bytes]:
    """One tar member; a ``bytes`` name may hold bytes that are not UTF-8."""
    text = name.decode("utf-8", "surrogateescape") if isinstance(name, bytes) else name
    info = tarfile.TarInfo(text)
    info.type, info.linkname, info.mode = kind, linkname, 0o755 if kind == tarfile.DIRTYPE else 0o644
    info.size = len(data) if kind in (tarfile.REGTYPE, tarfile.AREGTYPE) else 0
    return info, data


def raw_tarball(
    entries: list[tuple[tarfile.TarInfo, bytes]], commit: str | None = None, fmt: int = tarfile.PAX_FORMAT
) -> bytes:
    """A tar.gz of exactly ``entries``, in order (any kinds, names kept as given)."""
    buffer = io.BytesIO()
    headers = {"comment": commit} if commit else {}
    with tarfile.open(
        fileobj=buffer, mode="w", format=fmt, pax_headers=headers, encoding="utf-8", errors="surrogateescape"
    ) as tar:
        for info, data in entries:
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return gzip.compress(buffer.getvalue(), mtime=0)
