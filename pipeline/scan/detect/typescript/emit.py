"""The rows of the TypeScript detector: each definition once, with its SDK's version from the
nearest package manifest (``Emitter``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from posixpath import dirname

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.model import Tool
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.detect.typescript.forms import Found
from pipeline.scan.detect.typescript.rows import line_node


class Emitter:
    """Makes the tree's ``Tool`` rows; one per tree, so a definition is given once."""

    def __init__(self, dependencies: Dependencies) -> None:
        self.dependencies = dependencies
        self._seen: set[tuple[str, int, str]] = set()
        self._versions: dict[tuple[str, str], str | None] = {}

    def emit(self, sdk: str, form: str, found: Found, via: str | None = None,
             name: str | None = None) -> Iterator[Tool]:
        """One row per definition of ``found`` not given before (a definition two forms read is one
        row); ``via`` says how it was reached, ``name`` overrides the name it was read with."""
        named: dict[tuple[str, int, str], set[str | None]] = {}  # this call's sites: a loop's several names
        for where, info in found:
            at = line_node(where.node)
            key = (where.file.path, at.start_byte, sdk)
            if key in self._seen and (key not in named or info.name in named[key] or None in named[key]):
                continue
            self._seen.add(key)
            named.setdefault(key, set()).add(info.name)
            kind = via or (f"preset:{info.preset}" if info.preset else "direct")
            yield Tool(where.file.path, at.start_point[0] + 1, sdk, name or info.name,
                       f"typescript.{sdk}.{form}", info.annotations, kind, info.title,
                       self._version(sdk, where.file.path), SDKS[sdk].is_mcp)

    def _version(self, sdk: str, path: str) -> str | None:
        """The SDK's version from the nearest manifest, looked up once per folder."""
        key = (sdk, dirname(path))
        if key not in self._versions:
            found = self.dependencies.find(SDKS[sdk].packages, path)
            self._versions[key] = found.version if found else None
        return self._versions[key]


def sited(tools: Iterator[Tool], site: tuple[str, int]) -> Iterator[Tool]:
    """``tools`` with the registration call's place (file, line) as their ``site`` where they are
    placed elsewhere (at a list's elements, at a class): its conditions are theirs too."""
    for tool in tools:
        yield tool if (tool.path, tool.line) == site else replace(tool, site=site)
