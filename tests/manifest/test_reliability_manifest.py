"""Manifests written by anyone: random TOML documents and mutated files never give a traceback.

The library raises ``ManifestError`` (one line per problem, each naming the file) or returns
a manifest; the command exits 2 with those lines on stderr, or, for a manifest that loads,
goes on to the next step (here it fails on purpose at opening the database: exit 1). The
documents are real TOML (written by tomlkit from random values) shaped like manifests, so
the validator's type checks are what gets exercised, not just the parser.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.cli import main as cli
from pipeline.errors import ManifestError
from pipeline.manifest import manifests as manifest

ROOT = Path(__file__).resolve().parents[2]
PUBLISHED = (ROOT / "manifests" / "published-2026.toml").read_bytes()
SHA = "0123456789abcdef0123456789abcdef01234567"
KEYS = ["repo", "commit", "ref", "server_paths", "server_repo", "note", "source", "published", "comit", "x"]
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

scalars = st.one_of(
    st.text(max_size=12), st.sampled_from(["acme/zep", "a/b", SHA, SHA.upper(), "published", "hints", "~/x", "../x"]),
    st.integers(min_value=-(2**63), max_value=2**63 - 1), st.floats(), st.booleans(), st.datetimes(), st.dates(),
)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from([*KEYS, "annotations"]), inner, max_size=3)
), max_leaves=8)
repo_tables = st.dictionaries(st.sampled_from(KEYS), st.one_of(scalars, values), max_size=5)
census_tables = st.dictionaries(st.sampled_from(["name", "description", "terms", "extra"]), values, max_size=3)
documents = st.fixed_dictionaries(
    {}, optional={"census": st.one_of(census_tables, values), "repos": st.one_of(st.lists(repo_tables, max_size=4),
                                                                                   values),
                  "colour": values},
)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """The project's published manifest with a few bytes flipped, inserted or deleted."""
    data = bytearray(PUBLISHED)
    for _ in range(draw(st.integers(min_value=1, max_value=6))):
        at = draw(st.integers(min_value=0, max_value=len(data) - 1))
        op = draw(st.sampled_from(["flip", "insert", "delete"]))
        byte = draw(st.sampled_from([*b'[]{}="\'#.,\\\n\r\t -_/:09afxz', 0x00, 0x80, 0xC3, 0xFF]))
        if op == "flip":
            data[at] = byte
        elif op == "insert":
            data.insert(at, byte)
        else:
            del data[at]
    return bytes(data)


def dump(document: dict[str, Any]) -> bytes:
    """``document`` as TOML; documents tomlkit cannot write are written as its error (also not TOML)."""
    try:
        return tomlkit.dumps(document).encode("utf-8", "surrogatepass")
    except Exception as exc:  # an unwritable document still makes a test input
        return f"# {type(exc).__name__}\n= broken\n".encode()


def library_lines(path: Path) -> list[str] | None:
    """The problems ``pipeline.manifest.manifests.load`` reports, each checked to be one line naming
    the file; ``None`` if valid."""
    try:
        loaded = manifest.load(path)
    except ManifestError as exc:
        message = str(exc)
    else:
        assert all(isinstance(entry.repo, str) and entry.repo for entry in loaded.repos)
        assert loaded.terms
        return None
    lines = message.split("\n")
    assert lines == message.splitlines(), "a problem broke across lines"
    assert all(line.startswith(f"{path}: ") and len(line) > len(f"{path}: ") for line in lines), lines
    return lines


def cli_result(path: Path, tmp: Path, capsys: pytest.CaptureFixture[str],
               monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[str]]:
    """``census scan PATH`` in this process, with a database that cannot be opened; exit code and stderr lines."""
    blocker = tmp / "not-a-folder"
    blocker.touch()
    monkeypatch.setenv("GITHUB_TOKEN", "")
    capsys.readouterr()
    try:  # any exception but SystemExit fails the test
        cli.main(["scan", str(path), "--db", str(blocker / "c.duckdb"), "--cache", str(tmp / "cache"),
                  "--api-url", "http://127.0.0.1:9"])
        code = 0
    except SystemExit as exc:
        code = 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, err.splitlines()


def check(path: Path, data: bytes, tmp: Path, capsys: pytest.CaptureFixture[str],
          monkeypatch: pytest.MonkeyPatch) -> None:
    """The library and the command agree: a bad manifest is exit 2 and its problem lines, nothing else."""
    path.write_bytes(data)
    problems = library_lines(path)
    code, stderr = cli_result(path, tmp, capsys, monkeypatch)
    if problems is None:
        assert code == 1
        assert stderr[0].startswith("census: error: ")
        assert "cannot open the database" in stderr[0]
        return
    assert code == 2
    assert stderr == [f"census: error: {problems[0]}", *problems[1:]]
    assert not (tmp / "cache").exists()


@FUZZ
@given(document=documents)
def test_random_toml_documents(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                               document: dict[str, Any]) -> None:
    check(tmp_path / "random.toml", dump(document), tmp_path, capsys, monkeypatch)


@FUZZ
@given(data=mutated())
def test_mutated_published_manifest(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                    data: bytes) -> None:
    check(tmp_path / "mutated.toml", data, tmp_path, capsys, monkeypatch)


def test_a_well_formed_entry_list_is_valid(tmp_path: Path) -> None:
    path = tmp_path / "ok.toml"
    path.write_bytes(dump({"census": {"terms": "hints"}, "repos": [{"repo": "acme/zep", "commit": SHA}]}))
    assert library_lines(path) is None  # the generator can produce valid manifests: both branches run


def test_one_problem_is_one_line_from_the_real_command(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_bytes(b'[[repos]]\nrepo = "acme/zep"\ncommit = 40\n\xff')
    done = subprocess.run([sys.executable, "-m", "pipeline", "run", str(path), "--db", str(tmp_path / "c.duckdb")],
                          capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path)
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert re.fullmatch(rf"census: error: {re.escape(str(path))}: cannot read the manifest: .*", line), line
    assert done.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.toml"]
