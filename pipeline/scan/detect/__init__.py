"""The registration detector: every MCP tool a tree defines, with its declared annotations.

It runs in the scanner's single pass: ``Detector.wants`` says which members to keep,
``Detector.add`` takes each kept file's bytes, and ``Detector.finish`` runs the language
detectors in two phases over the kept files:

1. ``index``: every file of a language is indexed first (the project's wrappers, constants
   and annotation presets), so that
2. ``detect`` can follow them one level when it reads registrations; then
3. ``supplement`` reads what they leave over in any language: tools written as the protocol's own
   ``Tool`` objects (``literals``) and made by a project's definition factory (``factories``);
4. with ``effects``, each server tool's handler is read for what it does (``pipeline.scan.effects``).

Each language detector lives in its own module (``python``, ``typescript``, ``go``, ``rust``,
``jvm``, ``csharp``, ``php``, ``ruby``, ``swift``) and implements ``LanguageDetector``.
Registrations are attributed to an SDK by imports and package manifests (``deps``), never
by a variable's name; each found tool is marked conditional when it is registered only under a
configuration condition (``conditions``). Files under vendored, docs or build folders, and type
definitions, are left out and recorded as ``Exclusion`` rows when they mention MCP at all.
"""

from __future__ import annotations

import importlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Protocol

from pipeline.scan.count import TermCounter
from pipeline.scan.detect import conditions, deps, evidence, literals, paths
from pipeline.scan.detect.kept import (
    DETECTOR_WORD_SET,
    DETECTOR_WORDS,
    FIRST_WORDS,
    KEEP_WORDS,
    MAX_FILE_BYTES,
    MAX_KEPT_BYTES,
    SHIMS,
    kind_of,
    placed,
)
from pipeline.scan.detect.model import Detection as Detection
from pipeline.scan.detect.model import Exclusion, Tool
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.detect.source import SourceFile, language_of
from pipeline.scan.detect.supplement import supplement
from pipeline.scan.effects.model import ToolEffects
from pipeline.scan.effects.shelf import Shelf, keeps
from pipeline.scan.roles import RoleRules

#: below this much kept source, syntax trees stay in memory between the two phases
KEEP_TREES_BYTES = 16 << 20

#: language -> "module:class" of its detector (imported on first use)
LANGUAGES = {
    "python": "pipeline.scan.detect.python:PythonDetector",
    "typescript": "pipeline.scan.detect.typescript:TypeScriptDetector",
    "go": "pipeline.scan.detect.golang:GoDetector",
    "rust": "pipeline.scan.detect.rust:RustDetector",
    "java": "pipeline.scan.detect.jvm:JavaDetector",
    "kotlin": "pipeline.scan.detect.jvm:KotlinDetector",
    "csharp": "pipeline.scan.detect.csharp:CSharpDetector",
    "php": "pipeline.scan.detect.php:PhpDetector",
    "ruby": "pipeline.scan.detect.ruby:RubyDetector",
    "swift": "pipeline.scan.detect.swift:SwiftDetector",
}


class LanguageDetector(Protocol):
    """Finds tool definitions in the files of one language; one instance per tree."""

    def index(self, file: SourceFile) -> None:
        """Phase 1: learn the project's wrappers, constants and presets from ``file``."""

    def detect(self, file: SourceFile) -> Iterator[Tool | Exclusion]:
        """Phase 2: the tools ``file`` defines, or why it is left out."""


DetectorFactory = Callable[[deps.Dependencies], LanguageDetector]


def factory(language: str) -> DetectorFactory:
    """The detector class for ``language``."""
    module, name = LANGUAGES[language].split(":")
    made: DetectorFactory = getattr(importlib.import_module(module), name)
    return made


class Detector:
    """Collects one tree's relevant files during the scan pass, then detects its tools; with
    ``effects``, it keeps the source and reads each tool's handler (``pipeline.scan.effects``)."""

    def __init__(self, effects: bool = False) -> None:
        self._finder: TermCounter | None = None
        self.effects = effects
        self._reset()

    def _reset(self) -> None:
        self.dependencies = deps.Dependencies()
        self._files: dict[str, list[SourceFile]] = defaultdict(list)
        self._shims: dict[str, list[SourceFile]] = defaultdict(list)
        self._exclusions: list[Exclusion] = []
        self._conditions = conditions.Tree({})
        self._kept_bytes = 0
        self._sources = 0  # whether (or how many) source files of a parsed language the tree holds
        self._last: tuple[str, tuple[str, str] | None] = ("", None)
        self._shelf = Shelf()

    def wants(self, path: str, size_bytes: int) -> bool:
        """Whether the scan should hand this member's bytes to ``add`` (source files over
        ``MAX_FILE_BYTES`` are not kept; they are recorded as ``too-large``)."""
        kind = self._kind(path)
        self._sources += kind is not None and kind[0] == "source"
        if kind is not None and size_bytes > MAX_FILE_BYTES:
            if kind[0] == "source":
                self._exclusions.append(Exclusion(path, "too-large", f"{size_bytes} bytes > {MAX_FILE_BYTES}"))
            return False
        return kind is not None

    def always_reads(self, path: str, size_bytes: int = 0) -> bool:
        """Whether ``add`` reads this file whatever it holds (a manifest; a source file the effects keep)."""
        return deps.is_manifest(path) or (self.effects and keeps(path, size_bytes))

    def manifests(self, names: Iterable[bytes]) -> list[int]:
        """The positions in ``names`` (raw tar member names) of the files ``always_reads``: every run's names."""
        names = list(names)
        if not self._sources:
            self._sources = any((kind := kind_of(n.decode("utf-8", "replace"))) is not None and kind[0] == "source"
                                for n in names)
        kept = {i for i, n in enumerate(names) if self.effects and keeps(n.decode("utf-8", "replace"), 0)}
        return sorted(kept.union(deps.manifest_positions(names)))

    def prefilter_words(self) -> tuple[str, ...]:
        """Lower-case words the scan looks for in each wanted file and reports to ``add``: a file
        that names none of them is neither kept nor recorded (``KEEP_WORDS``, ``paths.ANCHORS``)."""
        return FIRST_WORDS

    def add(self, path: str, data: bytes, present: frozenset[str] | None = None) -> None:
        """Take one wanted file's content; ``present``, when given, holds the ``prefilter_words``
        it contains (the scan looked for them), so files that name none are set aside unread.
        The others are searched once more, for every word the language detectors read
        (``markers.PREFILTER``, read with ``SourceFile.has_any``)."""
        found = self._kind(path)
        if found is None:
            return
        kind, detail = found
        if self.effects and kind == "source":
            self._shelf.add(path, data)
        if kind == "manifest":
            self.dependencies.add(deps.parse(path, data))
            self._shelf.roots.add(path.rpartition("/")[0])
            return
        if present is not None and present.isdisjoint(FIRST_WORDS):
            return
        if kind == "literal":
            self._keep_literal(path, data, detail)
            return
        file = self._searched(path, data)
        if kind == "source" and self._kept_bytes + len(data) > MAX_KEPT_BYTES:
            kind, detail = "over-limit", f"more than {MAX_KEPT_BYTES} bytes of candidate source"
        if kind != "source":
            if (marker := paths.relevant(file)) is not None:
                self._exclusions.append(Exclusion(path, kind, f"{detail} (mentions {marker})"))
            if kind == "vendored" and (language := language_of(path)) in SHIMS and SHIMS[language](data):
                self._shims[language].append(file)
        elif file.has_any(KEEP_WORDS):
            self._files[detail].append(file)
            self._shelf.share(file)
            self._kept_bytes += len(data)

    def _keep_literal(self, path: str, data: bytes, language: str) -> None:
        """Keep a file no detector parses when it may hold a tool literal (``literals.SHAPE_WORDS``)."""
        if self._kept_bytes + len(data) <= MAX_KEPT_BYTES and any(w in data for w in literals.SHAPE_WORDS):
            self._files[language].append(self._searched(path, data))
            self._kept_bytes += len(data)

    def _searched(self, path: str, data: bytes) -> SourceFile:
        """The file, with the detectors' words it contains found in one native scan."""
        if self._finder is None:
            self._finder = TermCounter((), words=DETECTOR_WORDS)
        _, present = self._finder.count_and_find(data)
        return SourceFile(path, data, present, DETECTOR_WORD_SET)

    def _kind(self, path: str) -> tuple[str, str] | None:
        """(``manifest``, ''), (``source``, language), (exclusion reason, detail) or ``None``;
        the last answer is remembered, since ``wants`` and ``add`` ask about the same path."""
        if self._last[0] != path:
            self._last = (path, kind_of(path))
        return self._last[1]

    def finish(self, roles: RoleRules | None = None) -> Detection:
        """Run every language detector over the kept files, each tool given its role by ``roles``
        (default: the path rules alone); then start afresh for the next tree."""
        tools: list[Tool] = []
        rules = roles if roles is not None else RoleRules()
        self._conditions = conditions.Tree({file.path: file for group in self._files.values() for file in group})
        for language, files in sorted(self._files.items()):
            if language not in LANGUAGES:
                continue  # read for literals only, by ``supplement``
            tools.extend(self._run(factory(language)(self.dependencies), files, self._shims.get(language, []), rules))
        tools = supplement(tools, self._files, (x.path for x in self._exclusions), dependencies=self.dependencies,
                           roles=rules, place=lambda t, file: placed(self._versioned(t), file, rules, self._conditions))
        parsed = sum(len(files) for language, files in self._files.items() if language in LANGUAGES)
        notes = (*evidence.sdk_notes(self.dependencies),
                 *evidence.usage_notes(f for group in self._files.values() for f in group),
                 *evidence.no_source_note(self._sources))
        effects = self._effects_of(tools, rules) if self.effects else ()
        found = Detection(tuple(tools), tuple(self._exclusions), parsed, notes, effects)
        self._reset()
        return found

    def _effects_of(self, tools: list[Tool], rules: RoleRules) -> tuple[ToolEffects, ...]:
        from pipeline.scan.effects.analysis import analyse  # imports this package: not at the top
        found = analyse(tools, self._shelf, rules)
        for file in self._shelf.files.values():
            file.forget_tree()
        return found

    def _run(self, detector: LanguageDetector, files: list[SourceFile], shims: list[SourceFile],
             roles: RoleRules) -> Iterator[Tool]:
        """Both phases of one language detector over its files; the vendored ``shims`` are read in
        phase 1 only (they define no tool, but say what an import of them brings)."""

        def index(file: SourceFile) -> tuple[()]:
            detector.index(file)
            return ()

        for shim in shims:
            self._guarded(shim, index)

        keep_trees = self._kept_bytes <= KEEP_TREES_BYTES
        for file in files:
            self._guarded(file, index)
            if not keep_trees:
                file.forget_tree()
        for file in files:  # a detector may read another file's tree: kept trees stay to the end
            yield from (placed(self._versioned(t), file, roles, self._conditions)
                        for t in self._guarded(file, detector.detect))
            if not keep_trees:
                file.forget_tree()
        if keep_trees and not self.effects:  # with effects, kept trees serve the analysis too
            for file in files:
                file.forget_tree()

    def _guarded(self, file: SourceFile, phase: Callable[[SourceFile], Iterable[Tool | Exclusion]]) -> list[Tool]:
        """Run one phase over one file; a detector failure leaves that file out, with the reason."""
        try:
            found = list(phase(file))
        except (RecursionError, ValueError, LookupError, TypeError, AttributeError, UnicodeError) as exc:
            self._exclusions.append(Exclusion(file.path, "detector-error", f"{type(exc).__name__}: {exc}"[:300]))
            return []
        self._exclusions.extend(x for x in found if isinstance(x, Exclusion))
        return [x for x in found if isinstance(x, Tool)]

    def _versioned(self, tool: Tool) -> Tool:
        if tool.sdk_version is not None or tool.sdk not in SDKS:
            return tool
        version = self.dependencies.version(SDKS[tool.sdk].packages, tool.path)
        return replace(tool, sdk_version=version) if version else tool
