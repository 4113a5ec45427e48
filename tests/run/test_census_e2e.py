"""End to end, as a person runs it: the ``census`` command against the loopback GitHub server.

Each test writes a manifest shaped like ``manifests/published-2026.toml``, serves synthetic
archives whose counts are known by construction (every snippet written into a file says
what it adds), runs ``python -m pipeline`` in a subprocess and reads the DuckDB file.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import subprocess
import sys
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pytest
from github_server import GitHubServer, status
from synth import FASTMCP_SERVER, GO_SERVER, SILENT_SERVER, fake_sha, tarball

from pipeline.archive.tarball import CHUNK_BYTES
from pipeline.cli.tables import PUBLISHED_TITLE
from pipeline.manifest.manifests import load
from pipeline.scan import SCANNER_VERSION

TOKEN = "ghp_E2eSecretToken0123456789abcdefABCDEF"
TERMS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "annotations")
NOT_FOUND = "repository or commit not found"

#: lines written into files, each with what it adds to the counts (case-insensitive, no overlap)
SNIPPETS: list[tuple[bytes, dict[str, int]]] = [
    (b"\tAnnotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},\n",
     {"annotations": 2, "readOnlyHint": 1, "openWorldHint": 1}),
    (b"\t// READONLYHINT, DESTRUCTIVEHINT, IDEMPOTENTHINT and OPENWORLDHINT are only hints\n",
     {"readOnlyHint": 1, "destructiveHint": 1, "idempotentHint": 1, "openWorldHint": 1}),
    (b'@mcp.tool(annotations={"readOnlyHint": False, "destructiveHint": True})\n',
     {"annotations": 1, "readOnlyHint": 1, "destructiveHint": 1}),
    (b"\tIdempotentHint: ptr(true), destructivehint: nil,\n", {"idempotentHint": 1, "destructiveHint": 1}),
    (b"annotationsANNOTATIONS\n", {"annotations": 2}),
    (b"\x00\x9f\xffOpenWorldHint\x00\xc3\x28\n", {"openWorldHint": 1}),
]
#: lines that add nothing, near misses included
FILLER: list[bytes] = [b"func main() {}\n", b"readOnlyHin t, read_only_hint, openWorld Hint, annotation\n", b"\n"]


@dataclass
class Snapshot:
    """A synthetic tree at one commit, its archive, and the counts it must give."""

    repo: str
    commit: str
    files: dict[str, bytes] = field(default_factory=dict)
    symlinks: dict[str, str] = field(default_factory=dict)
    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    tools: list[tuple[str, str, str, bool]] = field(default_factory=list)
    """(path, tool name, sdk, annotated) of every MCP tool the tree defines."""

    def write(self, path: str, parts: list[int], filler: int = 0) -> None:
        """A file made of the ``SNIPPETS`` numbered in ``parts`` and ``filler`` filler lines."""
        lines = [SNIPPETS[i][0] for i in parts] + [FILLER[n % len(FILLER)] for n in range(filler)]
        random.Random(path).shuffle(lines)
        self.files[path] = b"".join(lines)
        for i in parts:
            for term, n in SNIPPETS[i][1].items():
                self.counts[path, term] += n

    def server(self, path: str, data: bytes, tools: list[tuple[str, str, bool]]) -> None:
        """A real server file, its counts by the reference definition, and its (name, sdk, annotated) tools."""
        self.files[path] = data
        for term in TERMS:
            self.counts[path, term] += data.lower().count(term.lower().encode())
        self.tools.extend((path, *tool) for tool in tools)

    def tool_counts(self) -> list[str]:
        """The table's tool cells: server tools (every tool here sits in server code), those annotated,
        example, test and look-alike tools."""
        return [str(len(self.tools)), str(sum(t[3] for t in self.tools)), "0", "0", "0"]

    @property
    def archive(self) -> bytes:
        """The GitHub-style tarball of the tree."""
        tree: dict[str, bytes | tuple[str, str]] = {**self.files}
        tree.update({path: ("symlink", target) for path, target in self.symlinks.items()})
        return tarball(tree, f"{self.repo.replace('/', '-')}-{self.commit[:7]}", self.commit)

    def totals(self) -> dict[str, int]:
        """Every term's total over the tree, zeros included."""
        return {term: sum(n for (_, t), n in self.counts.items() if t == term) for term in TERMS}


def go_project(repo: str, version: str, seed: int, commit: str | None = None) -> Snapshot:
    """A Go/Python MCP project with random (seeded) numbers of every snippet."""
    rng = random.Random(seed)
    snap = Snapshot(repo, commit or fake_sha(f"{repo}@{version}"))
    snap.write("mcp/server.go", [i for i in range(5) for _ in range(rng.randint(0, 4))], filler=7)
    snap.write("mcp/server.py", [i for i in (0, 2, 2, 3) for _ in range(rng.randint(1, 3))], filler=3)
    snap.write("assets/logo.bin", [5] * rng.randint(1, 5), filler=2)
    snap.write("docs/annotations-readOnlyHint.md", [], filler=4)  # terms in a path do not count
    snap.write("empty.txt", [])
    snap.symlinks["link.go"] = "mcp/server.go"
    snap.server("servers/notes.py", FASTMCP_SERVER, [("list_notes", "python-mcp", True),
                                                     ("delete_note", "python-mcp", True)])
    if seed % 2:
        snap.server("servers/search/main.go", GO_SERVER, [("search", "go-official", True)])
    return snap


def straddling(snap: Snapshot) -> Snapshot:
    """Add a file whose READONLYHINT straddles the scanner's read chunks."""
    snap.files["big/straddle.txt"] = b"x" * (CHUNK_BYTES - 5) + b"READONLYHINT and annotations\n"
    snap.counts["big/straddle.txt", "readOnlyHint"] += 1
    snap.counts["big/straddle.txt", "annotations"] += 1
    return snap


def silent_project(repo: str) -> Snapshot:
    """A project that mentions no term at all (every total is zero)."""
    snap = Snapshot(repo, fake_sha(f"{repo}@silent"))
    snap.write("annotations/README.md", [], filler=5)
    snap.write("memori/tool.py", [], filler=9)
    snap.server("memori/memory.py", SILENT_SERVER, [("save_memory", "python-mcp", False)])
    return snap


@dataclass
class World:
    """The served repositories and the manifest that lists them."""

    github: GitHubServer
    tmp: Path
    snapshots: dict[str, Snapshot]
    manifest: Path
    original: str
    pinned_text: str

    def run(self, *args: str, db: str = "census.duckdb", cache: str = "cache", strict: bool = False,
            manifest: Path | None = None) -> subprocess.CompletedProcess[str]:
        """``census ARGS MANIFEST --db --cache`` as a subprocess, with the token in its environment."""
        return census(self.github, self.tmp, *args, str(manifest or self.manifest), "--db", str(self.tmp / db),
                      "--cache", str(self.tmp / cache), *(["--strict"] if strict else []))


def census(github: GitHubServer, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the ``census`` command in a clean environment pointed at the loopback server."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CENSUS_"))}
    env.update(GITHUB_API_URL=github.api_url, GITHUB_SERVER_URL=github.web_url, GITHUB_TOKEN=TOKEN, NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "pipeline", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
        check=False,
    )


MANIFEST = """\
# A census shaped like manifests/published-2026.toml, served by the loopback server.
[census]
name = "loopback-2026"
description = "synthetic trees with known counts"
terms = "published"  # the four hints and the word "annotations"

# Pinned, like the published entries.
[[repos]]
repo = "acme/zep"
commit = "{zep}"
server_paths = ["mcp/zep-mcp-server"]
published = {{ annotations = 115 }}

# No commit: `census pin` resolves the default branch.
[[repos]]
repo = "acme/graphiti"   # keep this comment
server_paths = ["mcp_server"]
note = "pinned from the default branch"

# A tag; the default branch has moved on since.
[[repos]]
repo = "acme/cognee"
ref = "v0.3.0"  # the tag
server_paths = ["cognee-mcp"]

[[repos]]
repo = "acme/memori"
commit = "{memori}"
server_repo = "acme/memori-mcp"
published = {{ readOnlyHint = 0, annotations = 36 }}
{extra}"""


def make_world(github: GitHubServer, tmp: Path, extra: str = "") -> World:
    """Serve four repositories (one at two commits) and write a manifest listing them."""
    zep = straddling(go_project("acme/zep", "v1", seed=1))
    graphiti = go_project("acme/graphiti", "main", seed=2)
    cognee_old, cognee_new = go_project("acme/cognee", "v0.3.0", seed=3), go_project("acme/cognee", "main", seed=4)
    memori = silent_project("acme/memori")
    for snap in (zep, graphiti, memori):
        github.add_repo(snap.repo, {snap.commit: snap.archive})
    github.add_repo("acme/cognee", {s.commit: s.archive for s in (cognee_old, cognee_new)},
                    {"main": cognee_new.commit, "v0.3.0": cognee_old.commit})
    text = MANIFEST.format(zep=zep.commit, memori=memori.commit, extra=extra)
    pinned = text.replace('"acme/graphiti"   # keep this comment\n',
                          f'"acme/graphiti"   # keep this comment\ncommit = "{graphiti.commit}"\n')
    pinned = pinned.replace('"acme/cognee"\n', f'"acme/cognee"\ncommit = "{cognee_old.commit}"\n')
    manifest = tmp / "census.toml"
    manifest.write_text(text, encoding="utf-8")
    snapshots = {s.repo: s for s in (zep, graphiti, cognee_old, memori)}
    return World(github, tmp, snapshots, manifest, text, pinned)


def dump(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table and view, in a stable order."""
    with duckdb.connect(str(db), read_only=True) as con:
        names = [n for (n,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
        return {name: sorted(con.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr) for name in sorted(names)}


def query(db: Path, sql: str) -> list[tuple[Any, ...]]:
    """The rows of ``sql``, sorted."""
    with duckdb.connect(str(db), read_only=True) as con:
        return sorted(con.execute(sql).fetchall(), key=repr)


def assert_counts(world: World, db: Path, repos: list[str]) -> None:
    """``snapshots``, ``term_counts`` and ``repo_term_totals`` hold exactly the expected counts."""
    snaps = [world.snapshots[r] for r in repos]
    expected_counts = sorted(
        ((s.repo, s.commit, path, term, n) for s in snaps for (path, term), n in s.counts.items() if n), key=repr
    )
    assert query(db, "SELECT repo, commit, path, term, count FROM term_counts") == expected_counts
    expected_totals = sorted(((s.repo, s.commit, t, n) for s in snaps for t, n in s.totals().items()), key=repr)
    assert query(db, "SELECT repo, commit, term, count FROM repo_term_totals") == expected_totals
    rows = query(db, "SELECT repo, commit, archive_sha256, archive_size_bytes, regular_files, skipped_members,"
                     " content_bytes, scanner_version, skip_reason, terms FROM snapshots WHERE status = 'scanned'")
    assert rows == sorted(
        ((s.repo, s.commit, hashlib.sha256(s.archive).hexdigest(), len(s.archive), len(s.files), len(s.symlinks),
          sum(map(len, s.files.values())), SCANNER_VERSION, None, list(TERMS)) for s in snaps),
        key=repr,
    )
    assert query(db, "SELECT count(*) FROM snapshots WHERE status = 'scanned'"
                     " AND (fetched_at_utc IS NULL OR scanned_at_utc IS NULL)") == [(0,)]
    expected_tools = sorted(((s.repo, s.commit, *t) for s in snaps for t in s.tools), key=repr)
    assert query(db, "SELECT repo, commit, path, tool_name, sdk, annotations_source <> 'none' FROM tools") == (
        expected_tools)


def assert_no_token(*places: object, files: list[Path]) -> None:
    """The token is in none of ``places`` (as text) and in none of ``files`` (the manifest, the
    database, the cache: every file the census wrote)."""
    assert len(files) > 3
    for place in places:
        assert TOKEN not in repr(place)
    for path in files:
        assert TOKEN.encode() not in path.read_bytes(), path


def table_row(stdout: str, repo: str) -> list[str]:
    """The cells of ``repo``'s row in the printed tools-by-role table (cells hold no spaces), or in
    the published-vs-measured table when ``stdout`` starts there."""
    tools = stdout.split(PUBLISHED_TITLE, maxsplit=1)[0]
    [line] = [line for line in tools.splitlines() if line.startswith(f"{repo} ")]
    return line.split()


def wide_row(stdout: str, repo: str) -> list[str]:
    """The cells of ``repo``'s row in the table ``--wide`` prints."""
    [line] = [line for line in stdout.splitlines() if f" {repo} " in line]
    return [cell.strip() for cell in line.split("\u2502")[1:-1]]


def all_files(folder: Path) -> list[Path]:
    """Every file below ``folder``."""
    return sorted(p for p in folder.rglob("*") if p.is_file())


@pytest.fixture
def world(github: GitHubServer, tmp_path: Path) -> World:
    """Four served repositories and a manifest with two unpinned entries."""
    return make_world(github, tmp_path)


def test_run_counts_pins_and_reruns_without_requests(world: World, tmp_path: Path) -> None:
    db = tmp_path / "census.duckdb"
    first = world.run("run")

    assert first.returncode == 0, first.stderr
    assert world.manifest.read_text(encoding="utf-8") == world.pinned_text  # commits added, comments kept
    assert [e.commit for e in load(world.manifest).repos] == [s.commit for s in world.snapshots.values()]
    assert_counts(world, db, list(world.snapshots))
    assert query(db, "SELECT count(*) FROM snapshots") == [(4,)]
    assert first.stdout.splitlines()[0] == "loopback-2026: MCP tools by role, 4 repositories (4 scanned)"
    for snap in world.snapshots.values():
        assert table_row(first.stdout, snap.repo) == [snap.repo, snap.commit[:7], *snap.tool_counts()]
    published = first.stdout.split(PUBLISHED_TITLE)[1]
    assert table_row(published, "acme/zep") == ["acme/zep", "annotations", "115", str(world.snapshots[
        "acme/zep"].totals()["annotations"]), f"{world.snapshots['acme/zep'].totals()['annotations'] - 115:+d}"]

    api, web, codeload = (world.github.requests_to(server) for server in ("api", "web", "codeload"))
    assert [r.path for r in api] == [world.github.GRAPHQL_PATH]  # two pins in one query, no tarball from the API
    assert len(web) == len(codeload) == 4  # each archive from its public URL, redirected to codeload
    assert {r.headers.get("authorization") for r in api} == {f"Bearer {TOKEN}"}
    assert all("authorization" not in r.headers for r in web + codeload)

    tables = dump(db)
    before = len(world.github.requests)
    second = world.run("run")

    assert second.returncode == 0, second.stderr
    assert len(world.github.requests) == before  # nothing asked of the network
    assert dump(db) == tables  # timestamps included
    assert world.manifest.read_text(encoding="utf-8") == world.pinned_text
    assert second.stdout == first.stdout
    wide = world.run("scan", "--wide")
    assert wide.returncode == 0, wide.stderr
    assert dump(db) == tables  # scanned already: nothing rewritten
    for snap in world.snapshots.values():
        assert wide_row(wide.stdout, snap.repo) == [
            snap.repo, snap.commit[:12], "scanned", str(len(snap.files)), str(len(snap.symlinks)),
            *map(str, snap.totals().values()), *snap.tool_counts(), "",
        ]
    assert_no_token(first.stdout, first.stderr, second.stdout, second.stderr, tables, files=all_files(tmp_path))


def test_a_missing_repository_is_skipped_and_strict_fails(github: GitHubServer, tmp_path: Path) -> None:
    gone = fake_sha("vanished")
    world = make_world(github, tmp_path, extra=f'\n# Deleted upstream.\n[[repos]]\nrepo = "acme/vanished"\n'
                                               f'commit = "{gone}"\n')
    zep = world.snapshots["acme/zep"].commit
    github.fail(github.public_path("acme/zep", zep), status(429, {"Retry-After": "1"}))  # really waited, once
    db = tmp_path / "census.duckdb"
    done = world.run("run")

    assert done.returncode == 0, done.stderr
    assert f"acme/zep@{zep[:12]}: waiting 1.0s before retrying: rate limited (HTTP 429)" in done.stderr.splitlines()
    assert github.faults_left(github.public_path("acme/zep", zep)) == 0
    assert_counts(world, db, list(world.snapshots))
    assert query(db, "SELECT repo, commit, status, skip_reason, skipped_stage FROM snapshots WHERE status <> 'scanned'"
                 ) == [("acme/vanished", gone, "skipped", NOT_FOUND, "fetch")]
    assert query(db, "SELECT count(*) FROM repo_term_totals WHERE repo = 'acme/vanished'") == [(0,)]
    assert f"acme/vanished@{gone[:12]}: skipped: {NOT_FOUND}" in done.stderr
    assert table_row(done.stdout, "acme/vanished") == ["acme/vanished", gone[:7]]  # no numbers: not scanned
    assert f"skipped acme/vanished@{gone[:7]}: {NOT_FOUND}" in done.stdout.splitlines()
    assert "(4 scanned, 1 not)" in done.stdout.splitlines()[0]

    before = len(github.requests)
    strict = world.run("run", strict=True)

    assert strict.returncode == 1
    assert strict.stderr.splitlines()[-1] == "census: error: 1 repositories skipped (--strict)"
    assert [r.path for r in github.requests[before:]] == [github.public_path("acme/vanished", gone),
                                                          github.tarball_path("acme/vanished", gone)]
    assert_counts(world, db, list(world.snapshots))
    assert_no_token(done.stdout, done.stderr, strict.stdout, strict.stderr, dump(db), files=all_files(tmp_path))


def test_stages_one_by_one_equal_run(world: World, tmp_path: Path) -> None:
    staged_manifest = tmp_path / "staged.toml"
    staged_manifest.write_text(world.original, encoding="utf-8")
    # a `fetch` before `pin` records the unpinned entries as skipped; the later stages replace that
    steps = [world.run(stage, db="staged.duckdb", cache="staged-cache", manifest=staged_manifest)
             for stage in ("fetch", "pin", "fetch", "scan")]
    whole = world.run("run")

    assert [s.returncode for s in steps] == [0, 0, 0, 0], [s.stderr for s in steps]
    assert "acme/graphiti: skipped: no commit: run `census pin` first" in steps[0].stderr.splitlines()
    assert whole.returncode == 0, whole.stderr
    assert staged_manifest.read_text(encoding="utf-8") == world.pinned_text
    assert steps[3].stdout == whole.stdout  # `census scan` prints the same totals
    assert_counts(world, tmp_path / "staged.duckdb", list(world.snapshots))

    def timeless(db: Path) -> dict[str, list[tuple[Any, ...]]]:
        with duckdb.connect(str(db), read_only=True) as con:
            snapshots = con.execute("SELECT * EXCLUDE (fetched_at_utc, scanned_at_utc) FROM snapshots").fetchall()
        return {**dump(db), "snapshots": sorted(snapshots, key=repr)}

    assert timeless(tmp_path / "staged.duckdb") == timeless(tmp_path / "census.duckdb")


def test_the_published_manifest_against_the_loopback_server(github: GitHubServer, tmp_path: Path) -> None:
    published = Path(__file__).parents[2] / "manifests" / "published-2026.toml"
    text = published.read_text(encoding="utf-8")
    entries = tomllib.loads(text)["repos"]
    snaps = [go_project(e["repo"], "pinned", seed=n, commit=e["commit"]) for n, e in enumerate(entries)]
    for snap in snaps:
        github.add_repo(snap.repo, {snap.commit: snap.archive})
    manifest = tmp_path / published.name
    manifest.write_text(text, encoding="utf-8")
    world = World(github, tmp_path, {s.repo: s for s in snaps}, manifest, text, text)

    done = world.run("run", "--wide")

    assert done.returncode == 0, done.stderr
    assert manifest.read_text(encoding="utf-8") == text  # every entry is pinned: nothing to write
    assert_counts(world, tmp_path / "census.duckdb", list(world.snapshots))
    stored = query(tmp_path / "census.duckdb", "SELECT entry, repo, commit, server_paths, server_repo, note, published"
                                               " FROM manifest_entries WHERE manifest = 'published-2026'")
    assert stored == [
        (n, e["repo"], e["commit"], e.get("server_paths", []), e.get("server_repo"), e.get("note"),
         e.get("published", {}))
        for n, e in enumerate(entries, start=1)
    ]
    for snap in snaps:
        assert wide_row(done.stdout, snap.repo)[3:10] == [
            str(len(snap.files)), str(len(snap.symlinks)), *map(str, snap.totals().values())
        ]
    assert len(github.requests_to("codeload")) == len(entries) == 5


BAD_MANIFESTS = {
    "unknown-key": ('[[repos]]\nrepo = "acme/zep"\ncomit = "{sha}"\n', r"entry 1 \(acme/zep\): unknown key 'comit'"),
    "short-commit": ('[[repos]]\nrepo = "acme/zep"\ncommit = "{short}"\n',
                     r"entry 1 \(acme/zep\): commit '{short}' is not 40 hexadecimal digits"),
    "duplicate": ('[[repos]]\nrepo = "acme/zep"\n\n[[repos]]\nrepo = "ACME/Zep"\n',
                  r"entry 2 \(ACME/Zep\): duplicate repository, already listed as entry 1"),
    "missing-repo": ('[[repos]]\nrepo = "acme/zep"\n\n[[repos]]\ncommit = "{sha}"\n',
                     r"entry 2: missing required key 'repo'"),
}


@pytest.mark.parametrize(
    ("case", "stage"),
    [*((case, "run") for case in BAD_MANIFESTS), ("short-commit", "pin"), ("duplicate", "fetch"),
     ("missing-repo", "scan")],
)
def test_a_bad_manifest_is_one_line_exit_2_and_no_request(
    github: GitHubServer, tmp_path: Path, case: str, stage: str
) -> None:
    sha = fake_sha("zep")
    github.add_repo("acme/zep", {sha: tarball({"a.go": b"readOnlyHint"}, commit=sha)})
    text, pattern = BAD_MANIFESTS[case]
    short = sha[:39]
    manifest = tmp_path / "bad.toml"
    manifest.write_text('# a comment\n[census]\nname = "bad"\n\n' + text.format(sha=sha, short=short))

    done = census(github, tmp_path, stage, str(manifest), "--db", str(tmp_path / "db.duckdb"),
                  "--cache", str(tmp_path / "cache"))

    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(f"census: error: {manifest}: ")
    assert re.fullmatch(f"census: error: {re.escape(str(manifest))}: {pattern.format(short=short)}.*", line), line
    assert done.stdout == ""
    assert github.requests == []
    assert not (tmp_path / "db.duckdb").exists()
    assert not (tmp_path / "cache").exists()
