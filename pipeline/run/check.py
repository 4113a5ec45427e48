"""``census check PATH``: the detector and the effects analysis over a local working tree, for a
server's maintainer (a CI gate): every contradiction and doubt between what a tool declares and
what its handler does, and the hints its effects suggest for each tool that declares none.

The tree is read as ``census count`` reads it (``inputs.entries_of``: a folder, an archive); only
the server's own tools are judged (``role`` ``server``), not its examples and tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import ArchiveError, CheckPathError
from pipeline.run.inputs import entries_of
from pipeline.scan.roles import RoleRules
from pipeline.scan.tree import scan_tree


@dataclass(frozen=True)
class Finding:
    """One line of ``census check``."""

    kind: str
    """``contradiction``, ``doubt`` or ``suggestion``."""
    path: str
    """the tool's registration file."""
    line: int
    """its registration line."""
    tool_name: str | None
    """the tool's name."""
    hint: str
    """the hint at issue (``readOnlyHint``), ``annotations`` for a suggestion."""
    declared: str
    """what the tool declares."""
    detail: str
    """what the handler does, or the suggested hints."""
    evidence: str | None
    """``path:line`` of the call behind it."""

    def text(self) -> str:
        """The finding on one line, as the command prints it."""
        name = self.tool_name or "(unnamed)"
        where = f" at {self.evidence}" if self.evidence else ""
        if self.kind == "suggestion":
            return f"{self.path}:{self.line} {name} declares no annotations; its handler suggests {self.detail}{where}"
        return f"{self.path}:{self.line} {name} {self.hint}: declared {self.declared}, but {self.detail}{where}"


@dataclass(frozen=True)
class CheckReport:
    """What ``census check`` found in one tree."""

    root: str
    """the path checked, as given."""
    tools: int
    """server tools found."""
    located: int
    """of them, those whose handler was found."""
    findings: tuple[Finding, ...]
    """contradictions first, then doubts, then suggestions, each in file order."""

    @property
    def contradictions(self) -> int:
        """How many contradictions (the command exits 1 when there is one)."""
        return sum(f.kind == "contradiction" for f in self.findings)


_ORDER = {"contradiction": 0, "doubt": 1, "suggestion": 2}


def check(path: Path, server_paths: tuple[str, ...] = ()) -> CheckReport:
    """Detect the tools of the tree at ``path``, read their handlers and judge their hints."""
    from pipeline.scan.detect import Detector  # tree-sitter is imported only when asked
    from pipeline.scan.effects.verdicts import judge

    try:
        scan = scan_tree(entries_of(path), (), Detector(effects=True), RoleRules(server_paths))
    except (ArchiveError, OSError) as exc:
        raise CheckPathError(f"{path}: cannot be read: {exc}") from exc
    detection = scan.detection
    assert detection is not None
    effects = {(e.path, e.line, e.tool_name): e for e in detection.effects}
    findings: list[Finding] = []
    tools = located = 0
    for tool in detection.tools:
        if not tool.is_mcp or tool.role != "server":
            continue
        tools += 1
        found = effects.get((tool.path, tool.line, tool.tool_name))
        if found is None or not found.handler.located:
            continue
        located += 1
        for verdict in judge(tool, found):
            evidence = f"{verdict.evidence.path}:{verdict.evidence.line}" if verdict.evidence else None
            findings.append(Finding(verdict.kind, tool.path, tool.line, tool.tool_name, verdict.hint,
                                    verdict.declared, verdict.detail, evidence))
    findings.sort(key=lambda f: (_ORDER[f.kind], f.path, f.line, f.tool_name or ""))
    return CheckReport(str(path), tools, located, tuple(findings))
