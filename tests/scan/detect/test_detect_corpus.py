"""The labelled detector corpus: every case's tools are found exactly, nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.scan.detect.corpus import Score, as_row, cases, detect_directory, expected_rows
from pipeline.scan.detect.model import HINT_FIELDS, HINT_VALUES
from pipeline.scan.detect.sdks import SDKS

CORPUS = Path(__file__).parents[2] / "fixtures" / "detector"
CASES = list(cases(CORPUS))


def _id(case: Path) -> str:
    return case.relative_to(CORPUS).as_posix()


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_case_rows_match_exactly(case: Path) -> None:
    expected, excluded = expected_rows(case)
    detection = detect_directory(case)
    score = Score()
    score.add_case(_id(case), expected, [as_row(t) for t in detection.tools])
    assert score.mismatches == []
    found = {(e.path, e.reason) for e in detection.exclusions}
    missing = [x for x in excluded if (x["path"], x["reason"]) not in found]
    assert missing == [], f"exclusions not recorded; recorded: {sorted(found)}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_every_row_is_explained(case: Path) -> None:
    for tool in detect_directory(case).tools:
        assert tool.sdk in SDKS
        assert tool.is_mcp == SDKS[tool.sdk].is_mcp
        language = SDKS[tool.sdk].language  # "any" for tools written without an SDK
        assert tool.rule.startswith(language + ".") or (language == "any" and f".{tool.sdk}." in tool.rule), tool.rule
        assert all(getattr(tool.annotations, h) in HINT_VALUES for h in HINT_FIELDS)
        assert tool.via == "direct" or tool.via.startswith(("wrapper:", "preset:"))


def test_corpus_is_large_enough() -> None:
    files = [p for c in CASES for p in c.rglob("*") if p.is_file() and p.name != "expected.toml"]
    assert len(files) >= 60
    languages = {SDKS[row["sdk"]].language for c in CASES for row in expected_rows(c)[0]}
    assert languages >= {"python", "typescript", "go", "rust", "java", "kotlin", "csharp", "php", "ruby", "swift"}
