"""``census count``: local archives, zips, folders and files, counted by the scan pass itself."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from synth import FASTMCP_SERVER, GO_SERVER, tarball

from pipeline.manifest.terms import TERM_SETS

TREE: dict[str, bytes] = {
    "server.py": FASTMCP_SERVER,
    "cmd/main.go": GO_SERVER,
    "docs/notes.md": b"READONLYHINT and ReadOnlyHint, annotations annotationsannotations\n",
    "bin/blob": bytes(range(256)) * 40 + b"openWorldHint",
    "empty.txt": b"",
}


def reference(tree: dict[str, bytes], terms: tuple[str, ...]) -> dict[str, int]:
    """The definition: lower-case each file, count non-overlapping occurrences, sum."""
    return {t: sum(data.lower().count(t.lower().encode()) for data in tree.values()) for t in terms}


def census(*args: str, **settings: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CENSUS_"))} | settings
    return subprocess.run([sys.executable, "-m", "pipeline", "count", *args], capture_output=True, text=True,
                          env=env, timeout=120, check=False)


def as_tar(tree: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, data in tree.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def as_zip(tree: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in tree.items():
            archive.writestr(name, data)
    return buffer.getvalue()


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "tree"
    for name, data in TREE.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    (folder / "link.py").symlink_to("server.py")  # never followed
    made = {"folder": folder}
    for name, data in {"a.tar.gz": tarball(dict(TREE)), "a.tgz": tarball(dict(TREE)), "a.tar": as_tar(TREE),
                       "a.zip": as_zip(TREE)}.items():
        made[name] = tmp_path / name
        made[name].write_bytes(data)
    return made


@pytest.mark.parametrize("kind", ["folder", "a.tar.gz", "a.tgz", "a.tar", "a.zip"])
def test_every_input_kind_gives_the_reference_counts(inputs: dict[str, Path], kind: str) -> None:
    done = census("--json", "--terms", "dialects", str(inputs[kind]))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["totals"] == reference(TREE, TERM_SETS["dialects"])
    assert report["regular_files"] == len(TREE)
    assert report["content_bytes"] == sum(map(len, TREE.values()))


def test_per_file_text_and_totals_over_several_inputs(inputs: dict[str, Path], tmp_path: Path) -> None:
    single = tmp_path / "one.go"
    single.write_bytes(GO_SERVER)
    done = census("--per-file", "--terms", "readOnlyHint,annotations", str(inputs["a.zip"]), str(single))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    expected = reference({**TREE, "one.go": GO_SERVER}, ("readOnlyHint", "annotations"))
    assert f"readOnlyHint\t{expected['readOnlyHint']}" in lines
    assert f"annotations\t{expected['annotations']}" in lines
    assert f"{single}:one.go\treadOnlyHint\t1" in lines
    assert f"{inputs['a.zip']}:docs/notes.md\treadOnlyHint\t2" in lines


def test_detect_counts_the_tools(inputs: dict[str, Path]) -> None:
    report = json.loads(census("--json", "--detect", str(inputs["a.tar.gz"])).stdout)
    assert report["tools"] == {"server_tools": 3, "annotated_server_tools": 3, "example_tools": 0, "test_tools": 0,
                               "lookalike_tools": 0}


def test_detect_counts_the_tools_by_role_and_a_server_path_wins(tmp_path: Path) -> None:
    archive = tmp_path / "roles.tar.gz"
    archive.write_bytes(tarball({
        "server.py": FASTMCP_SERVER,  # 2 server tools, both annotated
        "examples/demo/server.py": FASTMCP_SERVER,  # 2 example tools
        "examples/demo/tests/test_tools.py": FASTMCP_SERVER,  # 2 test tools, in the example's tests
        "pkg/notes_test.go": GO_SERVER,  # a Go test file: 1 test tool
        "latest/main.go": GO_SERVER,  # a near miss: server code
    }, "o-r-1"))

    plain = json.loads(census("--json", "--detect", str(archive)).stdout)["tools"]
    moved = json.loads(census("--json", "--detect", "--server-path", "./examples/demo/", str(archive)).stdout)["tools"]
    text = census("--detect", str(archive)).stdout.splitlines()

    assert plain == {"server_tools": 3, "annotated_server_tools": 3, "example_tools": 2, "test_tools": 3,
                     "lookalike_tools": 0}
    assert moved == {**plain, "server_tools": 5, "annotated_server_tools": 5, "example_tools": 0}
    assert text[-6:-1] == ["server_tools\t3", "annotated_server_tools\t3", "example_tools\t2", "test_tools\t3",
                           "lookalike_tools\t0"]


def test_a_bad_input_is_named_and_the_others_still_count(inputs: dict[str, Path], tmp_path: Path) -> None:
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(inputs["a.tar.gz"].read_bytes()[:-40])
    done = census("--json", str(broken), str(inputs["folder"]))
    assert done.returncode == 1
    assert json.loads(done.stdout)["totals"] == reference(TREE, TERM_SETS["published"])
    assert f"census: error: {broken}:" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("kind", ["a.tar.gz", "a.zip"])
@pytest.mark.parametrize(("setting", "value", "why"), [
    ("CENSUS_MAX_MEMBERS", "3", "the tree has more than 3 members (CENSUS_MAX_MEMBERS)"),
    ("CENSUS_MAX_ARCHIVE_BYTES", "5000", "more than 5000 bytes (CENSUS_MAX_ARCHIVE_BYTES)"),
])
def test_an_archive_over_a_limit_is_named_with_the_limit(
    inputs: dict[str, Path], kind: str, setting: str, value: str, why: str
) -> None:
    """A zip is held to the limits a tar is held to (a zip bomb is not counted to its end); the
    folder beside it, the user's own files, is counted whole."""
    done = census("--json", str(inputs[kind]), str(inputs["folder"]), **{setting: value})
    assert done.returncode == 1
    (line,) = done.stderr.splitlines()
    # a tar may pass the bound on its decompressed stream (headers included) before the one on its files
    assert line.startswith(f"census: error: {inputs[kind]}: over a limit: ")
    assert line.endswith(why)
    report = json.loads(done.stdout)
    assert report["totals"] == reference(TREE, TERM_SETS["published"])
    assert report["failed"][str(inputs[kind])].endswith(why)


@pytest.mark.parametrize(("spec", "why"), [(",", "non-empty"), ("readOnlyHint,READONLYHINT", "same ignoring case")])
def test_bad_terms_are_a_usage_error(inputs: dict[str, Path], spec: str, why: str) -> None:
    done = census("--terms", spec, str(inputs["folder"]))
    assert done.returncode == 2
    assert "--terms" in done.stderr
    assert why in done.stderr


def test_a_single_word_that_is_not_a_set_is_one_term(inputs: dict[str, Path]) -> None:
    done = census("--terms", "annotationsannotations", str(inputs["folder"]))
    assert done.stdout.splitlines()[0] == "annotationsannotations\t1"


def test_count_imports_neither_duckdb_nor_polars(inputs: dict[str, Path]) -> None:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "pipeline", "count", str(inputs["a.tar.gz"])],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert not {m for m in imported if m.split(".")[0] in ("duckdb", "polars", "pyarrow", "tree_sitter")}
