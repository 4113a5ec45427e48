"""Running one language detector by itself over a few in-memory files (both phases)."""

from __future__ import annotations

from pipeline.scan.detect import LanguageDetector
from pipeline.scan.detect.model import Exclusion, Tool
from pipeline.scan.detect.source import SourceFile


def run_language(detector: LanguageDetector, files: dict[str, str]) -> list[Tool | Exclusion]:
    """Index every file, then detect in each: what the detector yields, in order."""
    sources = [SourceFile(path, text.encode()) for path, text in files.items()]
    for source in sources:
        detector.index(source)
        source.forget_tree()
    return [found for source in sources for found in detector.detect(source)]
