"""Labelled corpora: run the detector over small trees and score it against expected rows.

A corpus is a folder of cases; each case is a folder holding a small tree and an
``expected.toml`` with one ``[[tool]]`` table per expected tool and one ``[[excluded]]``
table per expected exclusion::

    [[tool]]
    path = "server.py"          # required
    tool_name = "search"        # required (omit for a name that is not a literal)
    sdk = "python-fastmcp"      # required
    line = 12                   # optional; compared when given
    read_only_hint = "true"     # optional, default "unset" (same for the other hints)
    title = "Search"            # optional, default none
    is_mcp = true               # optional, default true
    via = "direct"              # optional, default "direct"
    annotations_source = "inline"  # optional; compared when given
    role = "test"               # optional (server, example, test); compared when given
    conditional = true          # optional, default false
    condition = "!config.readOnly"  # optional, default none (the condition's text when conditional)

A detected tool matches an expected one when every compared field agrees; precision and
recall are counted per SDK over those matches. Used by the tests and by
``benchmarks/detector_accuracy.py``.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.scan.detect import Detection, Detector
from pipeline.scan.detect.model import HINT_FIELDS, UNSET, Tool
from pipeline.scan.roles import RoleRules

EXPECTED = "expected.toml"


def detect_files(files: Mapping[str, bytes], server_paths: tuple[str, ...] = ()) -> Detection:
    """Run the detector over an in-memory tree (path -> content), as the scan pass would: the
    project files the roles read are read, and every tool gets its role."""
    detector, roles = Detector(), RoleRules(server_paths)
    for path, data in files.items():
        if roles.wants(path):
            roles.learn(path, data)
        if detector.wants(path, len(data)):
            detector.add(path, data)
    return detector.finish(roles)


def detect_directory(root: Path) -> Detection:
    """Run the detector over every regular file under ``root`` (``expected.toml`` aside)."""
    files = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not path.is_symlink() and rel != EXPECTED:
            files[rel] = path.read_bytes()
    return detect_files(files)


def cases(corpus: Path) -> Iterator[Path]:
    """Every case folder (one holding ``expected.toml``) under ``corpus``, sorted."""
    yield from sorted(p.parent for p in corpus.rglob(EXPECTED))


def expected_rows(case: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The expected tools and exclusions of a case, with defaults filled in."""
    doc = tomllib.loads((case / EXPECTED).read_text("utf-8"))
    tools = [_with_defaults(row) for row in doc.get("tool", [])]
    return tools, list(doc.get("excluded", []))


def _with_defaults(row: dict[str, Any]) -> dict[str, Any]:
    full = {"tool_name": None, "is_mcp": True, "via": "direct", "title": None, "conditional": False,
            "condition": None, **row}
    for hint in HINT_FIELDS:
        full.setdefault(hint, UNSET)
    return full


def as_row(tool: Tool) -> dict[str, Any]:
    """A detected tool in the shape of an expected row (every comparable field)."""
    row: dict[str, Any] = {
        "path": tool.path, "tool_name": tool.tool_name, "sdk": tool.sdk, "line": tool.line,
        "is_mcp": tool.is_mcp, "via": tool.via, "title": tool.annotations.title,
        "annotations_source": tool.annotations.source, "rule": tool.rule, "role": tool.role,
        "role_rule": tool.role_rule, "conditional": tool.conditional, "condition": tool.condition,
    }
    row.update({hint: getattr(tool.annotations, hint) for hint in HINT_FIELDS})
    return row


def _key(expected: dict[str, Any], detected: dict[str, Any]) -> bool:
    return all(detected.get(k) == v for k, v in expected.items())


@dataclass
class Score:
    """Matches, false positives and false negatives, per SDK."""

    true_positives: Counter[str] = field(default_factory=Counter)
    false_positives: Counter[str] = field(default_factory=Counter)
    false_negatives: Counter[str] = field(default_factory=Counter)
    mismatches: list[str] = field(default_factory=list)

    def add_case(self, case: str, expected: list[dict[str, Any]], detected: list[dict[str, Any]]) -> None:
        """Match one case's rows and record the outcome."""
        unmatched = list(detected)
        for want in expected:
            hit = next((d for d in unmatched if _key(want, d)), None)
            if hit is None:
                self.false_negatives[want["sdk"]] += 1
                self.mismatches.append(f"{case}: missed {want}")
            else:
                unmatched.remove(hit)
                self.true_positives[want["sdk"]] += 1
        for extra in unmatched:
            self.false_positives[extra["sdk"]] += 1
            self.mismatches.append(f"{case}: unexpected {extra}")

    def precision(self, sdk: str | None = None) -> float:
        """Share of detected rows that were expected (1.0 when nothing was detected)."""
        tp, fp = self._totals(sdk, self.false_positives)
        return tp / (tp + fp) if tp + fp else 1.0

    def recall(self, sdk: str | None = None) -> float:
        """Share of expected rows that were detected (1.0 when nothing was expected)."""
        tp, fn = self._totals(sdk, self.false_negatives)
        return tp / (tp + fn) if tp + fn else 1.0

    def _totals(self, sdk: str | None, errors: Counter[str]) -> tuple[int, int]:
        if sdk is None:
            return sum(self.true_positives.values()), sum(errors.values())
        return self.true_positives[sdk], errors[sdk]

    def sdks(self) -> list[str]:
        """Every SDK that appears in the score."""
        return sorted(set(self.true_positives) | set(self.false_positives) | set(self.false_negatives))


def score(corpus: Path) -> Score:
    """Run the detector over every case of ``corpus`` and score it."""
    result = Score()
    for case in cases(corpus):
        expected, _ = expected_rows(case)
        detected = [as_row(t) for t in detect_directory(case).tools]
        result.add_case(case.relative_to(corpus).as_posix(), expected, detected)
    return result
