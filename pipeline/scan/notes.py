"""Facts about a tree that change how its counts read, noted in the scan's one pass:

- ``.gitattributes`` lines that leave files out of GitHub's archives (``export-ignore``) or
  store them in Git LFS (``filter=lfs``);
- ``.gitmodules`` paths: submodules, whose files live in other repositories and are never
  in an archive;
- Git LFS pointer files: a few lines of text counted in place of the file they stand for;
- the pointer of the root README, or of a README in a folder named for MCP (``mcp_extension/``),
  to another repository the project moved to (``points-elsewhere``: "has moved to
  https://github.com/o/n", "now lives in ...", "deprecated in favour of ...");
- the repository the root's package metadata names (``package-repository``: package.json's
  ``repository``, pyproject's ``[project.urls]``), which may be another one than the tree's.
  The detector adds ``mcp-sdk`` notes: the MCP SDKs the tree's package manifests declare.

Each note is ``(path, kind, detail)``; reports turn them into caveats.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pipeline.archive.entries import Raw

#: file name -> note kind
GIT_FILES = {".gitattributes": "gitattributes", ".gitmodules": "gitmodules"}
#: the first bytes of every Git LFS pointer (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md)
LFS_MAGIC = b"version https://git-lfs.github.com/spec/"
#: pointers are about 130 bytes; the spec caps them at 1024
LFS_MAX_BYTES = 1024
_LFS_MIN_BYTES = len(LFS_MAGIC)
_GIT_SUFFIXES = tuple(GIT_FILES)
_GIT_SUFFIXES_RAW = tuple(name.encode() for name in GIT_FILES)
#: a ``.gitattributes`` or ``.gitmodules`` larger than this is noted by its first bytes only
NOTE_MAX_BYTES = 64 << 10
#: a larger ``.gitattributes`` or ``.gitmodules`` is not read for notes (no real one comes near)
READ_MAX_BYTES = 1 << 20
#: ``.gitattributes`` attributes worth a note
ATTRIBUTES = ("export-ignore", "filter=lfs")


#: what a root README says when the project lives elsewhere now, and the repository it names
_MOVED = re.compile(
    r"(?i)\b(?:has been moved|have moved|has moved|moved (?:to|into)|migrated (?:to|into)|relocated to"
    r"|now lives?(?: in| at)?|now (?:hosted|maintained|developed|located) (?:in|at)|is now part of"
    r"|deprecated in favou?r of|no longer maintained here|been archived in favou?r of)\b"
    r"[^\n]{0,160}?(https?://github\.com/[\w.-]+/[\w.-]+)")


#: root package metadata that may name the project's repository
_PACKAGE_FILES = ("package.json", "pyproject.toml")
_PACKAGE_FILES_RAW = tuple(name.encode() for name in _PACKAGE_FILES)
#: the repository a package names: package.json's ``repository`` (a string or ``{"url": ...}``),
#: pyproject's ``[project.urls]`` Repository / Source / Homepage
_PACKAGE_REPOSITORY = re.compile(
    r'(?im)"repository"\s*:\s*(?:\{[^}]*?"url"\s*:\s*)?"(?:git\+)?(https?://github\.com/[\w.-]+/[\w.-]+)'
    r'|^\s*["\']?(?:repository|source|source code|homepage)["\']?\s*=\s*"(https?://github\.com/[\w.-]+/[\w.-]+)')


def candidates(files: list[Raw], buffer: bytes) -> list[int]:
    """The indexes of the files of a tar run (raw names, content at its offset in ``buffer``)
    that may give a note; ``kind_of`` then says which, by path."""
    return [index for index, (name, _, size, offset) in enumerate(files) if name.endswith(_GIT_SUFFIXES_RAW)
            or (_LFS_MIN_BYTES <= size <= LFS_MAX_BYTES and buffer.startswith(LFS_MAGIC, offset))
            or name.rpartition(b"/")[2][:6].lower() == b"readme" or name.endswith(_PACKAGE_FILES_RAW)]


def kind_of(path: str, size_bytes: int, buffer: bytes | None = None, offset: int = 0) -> str | None:
    """The note a regular file may give (``gitattributes``, ``gitmodules``, ``lfs``), by name and
    size; when its content is at hand (at ``offset`` in ``buffer``), ``lfs`` only for a pointer."""
    if path.endswith(_GIT_SUFFIXES):  # most paths stop here: one C call
        kind = GIT_FILES.get(path.rpartition("/")[2])
        if kind is not None:
            return kind if size_bytes <= READ_MAX_BYTES else None
    if path in _PACKAGE_FILES:  # the root's package metadata
        return "package" if size_bytes <= READ_MAX_BYTES else None
    if path[:6].lower() == "readme" or path.rpartition("/")[2][:6].lower() == "readme":
        folder = path.rpartition("/")[0].rpartition("/")[2].lower()
        if "/" not in path or "mcp" in folder:  # the root README, or the MCP part's (mcp_extension/)
            return "readme" if size_bytes <= READ_MAX_BYTES else None
    if not _LFS_MIN_BYTES <= size_bytes <= LFS_MAX_BYTES:
        return None
    return "lfs" if buffer is None or buffer.startswith(LFS_MAGIC, offset) else None


def note(path: str, kind: str, data: bytes) -> tuple[str, str, str] | None:
    """The note for a file of ``kind`` with content ``data``, or ``None`` if it says nothing."""
    if kind == "lfs":
        return (path, "lfs-pointer", _lfs_detail(data)) if data.startswith(LFS_MAGIC) else None
    text = data[:NOTE_MAX_BYTES].decode("utf-8", "replace")
    if kind == "package":
        named = _PACKAGE_REPOSITORY.search(text)
        url = (named.group(1) or named.group(2)) if named else None
        return (path, "package-repository", url.removesuffix(".git").rstrip("/")) if url else None
    if kind == "readme":
        moved = _MOVED.search(text)
        return (path, "points-elsewhere", moved.group(1).rstrip(".").removesuffix(".git")) if moved else None
    if kind == "gitmodules":
        lines = [line.split("=", 1)[1].strip() for line in text.splitlines()
                 if line.strip().startswith("path") and "=" in line]
    else:
        lines = [line.strip() for line in text.splitlines()
                 if not line.lstrip().startswith("#") and any(a in line for a in ATTRIBUTES)]
    return (path, kind, "\n".join(lines)) if lines else None


def _lfs_detail(data: bytes) -> str:
    """The pointer's ``oid`` and ``size`` lines."""
    lines = data.decode("ascii", "replace").splitlines()
    return " ".join(line for line in lines if line.startswith(("oid ", "size ")))
