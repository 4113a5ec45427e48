"""The GitHub client, the archive source and its cache, against the loopback GitHub server.

Nothing is mocked: real sockets on 127.0.0.1, real archives, real files. Waits are not
slept: the client gets a recording ``sleep``, so every wait is asserted instead.
"""

from __future__ import annotations

import hashlib
import time
from email.utils import formatdate
from pathlib import Path

import pytest
from github_server import HANG, HTML, LOOP, RESET, TRUNCATE, Fault, GitHubServer, status
from synth import FASTMCP_SERVER, GO_SERVER, fake_sha, tarball

from pipeline.errors import NotFoundError, RateLimitError, SourceError, TransportError
from pipeline.fetch.cache import ArchiveCache
from pipeline.fetch.github import MAX_REDIRECTS, GitHubClient
from pipeline.fetch.source import GitHubArchiveSource
from pipeline.manifest.manifests import load
from pipeline.run.census import Census
from pipeline.settings import Settings
from pipeline.store.database import Store

TOKEN = "ghp_LoopbackSecret0123456789abcdefABCDEF"
REPO = "acme/notes"
NOT_FOUND = "repository or commit not found"


class Recorder:
    """An observer that remembers what it was told."""

    def __init__(self) -> None:
        self.waits: list[tuple[str, float, str]] = []
        self.advances: list[tuple[str, str, str]] = []
        self.notes: list[str] = []

    def stage(self, name: str, total: int) -> None:
        """Ignore stage starts."""

    def advance(self, label: str, outcome: str, detail: str = "", size_bytes: int = 0) -> None:
        """Remember a finished repository."""
        self.advances.append((label, outcome, detail))

    def waiting(self, label: str, seconds: float, reason: str) -> None:
        """Remember a wait."""
        self.waits.append((label, seconds, reason))

    def note(self, text: str) -> None:
        """Remember a note."""
        self.notes.append(text)


class Harness:
    """A client wired to the loopback server, with its sleeps and observer recorded."""

    def __init__(self, github: GitHubServer, tmp_path: Path, **overrides: object) -> None:
        values: dict[str, object] = {
            "api_url": github.api_url, "cache_dir": tmp_path / "cache", "db_path": tmp_path / "census.duckdb",
            "token": TOKEN, "backoff_seconds": 0.01, "attempts": 3, "timeout_seconds": 5.0,
        }
        values.update(overrides)
        self.settings = Settings(**values)  # type: ignore[arg-type]
        self.sleeps: list[float] = []
        self.observer = Recorder()
        self.client = GitHubClient(self.settings, self.observer, sleep=self.sleeps.append)
        self.cache = ArchiveCache(self.settings.cache_dir, self.settings.api_url)

    def source(self, repo: str = REPO) -> GitHubArchiveSource:
        """The archive source of ``repo`` through this client and cache."""
        return GitHubArchiveSource(repo, self.client, self.cache)


def publish(github: GitHubServer, repo: str = REPO, seed: str = "one") -> tuple[str, bytes]:
    """Serve a small synthetic tree of ``repo`` at a fresh commit; its commit and archive bytes."""
    commit = fake_sha(f"{repo}@{seed}")
    root = f"{repo.replace('/', '-')}-{commit[:7]}"
    data = tarball({"server.py": FASTMCP_SERVER, "go/main.go": GO_SERVER, "README.md": b"# notes\n"}, root, commit)
    github.add_repo(repo, {commit: data})
    return commit, data


def messages(exc: BaseException) -> str:
    """The text of an exception and of every exception it was raised from."""
    parts: list[str] = []
    seen: BaseException | None = exc
    while seen is not None:
        parts += [str(seen), repr(seen)]
        seen = seen.__cause__ or seen.__context__
    return "\n".join(parts)


@pytest.fixture
def harness(github: GitHubServer, tmp_path: Path) -> Harness:
    """A client with three attempts and 10 ms backoff."""
    return Harness(github, tmp_path)


@pytest.fixture
def served(github: GitHubServer) -> tuple[str, bytes]:
    """``REPO`` served at one commit."""
    return publish(github)


# --- resolving refs ------------------------------------------------------------------------


def test_resolve_default_branch_branch_and_tag(github: GitHubServer, harness: Harness) -> None:
    old, new, feature = (fake_sha(s) for s in ("old", "new", "feature"))
    archives = {c: tarball({"a": c.encode()}, commit=c) for c in (old, new, feature)}
    github.add_repo(REPO, archives, {"trunk": new, "v1.0": old, "feature/x": feature}, default_branch="trunk")

    assert harness.client.resolve(REPO, None) == new
    assert harness.client.resolve(REPO, "v1.0") == old
    assert harness.client.resolve(REPO, "feature/x") == feature  # the slash is quoted, not a path
    assert harness.client.resolve(REPO, old) == old

    paths = [r.path for r in github.requests]
    assert paths[0] == github.commits_path(REPO, "HEAD")
    assert paths[2] == github.commits_path(REPO, "feature%2Fx")
    assert {r.headers["accept"] for r in github.requests} == {"application/vnd.github.sha"}
    assert harness.sleeps == []


@pytest.mark.parametrize(("repo", "ref"), [("acme/nothing", None), (REPO, "no-such-branch")])
def test_resolve_unknown_is_not_found(
    github: GitHubServer, harness: Harness, served: tuple[str, bytes], repo: str, ref: str | None
) -> None:
    with pytest.raises(NotFoundError) as caught:
        harness.client.resolve(repo, ref)
    assert str(caught.value) == NOT_FOUND
    assert len(github.requests) == 1  # a 404 is an answer, not a failure to retry
    assert harness.sleeps == []


@pytest.mark.parametrize("fault", [HTML, TRUNCATE, RESET, status(502)], ids=["html", "truncated", "reset", "502"])
def test_resolve_retries_a_bad_answer(
    github: GitHubServer, harness: Harness, served: tuple[str, bytes], fault: Fault
) -> None:
    commit, _ = served
    github.fail(github.commits_path(REPO, "HEAD"), fault, times=2)
    assert harness.client.resolve(REPO, None) == commit
    assert harness.sleeps == pytest.approx([0.01, 0.02])
    assert len(github.requests) == 3


# --- downloading ---------------------------------------------------------------------------


def test_download_follows_the_redirect_and_verifies(
    github: GitHubServer, harness: Harness, served: tuple[str, bytes], tmp_path: Path
) -> None:
    commit, data = served
    info = harness.client.download(REPO, commit, tmp_path / "a.tar.gz")

    assert (tmp_path / "a.tar.gz").read_bytes() == data
    assert info.sha256 == hashlib.sha256(data).hexdigest()
    assert info.size_bytes == len(data)
    assert info.root == f"acme-notes-{commit[:7]}"
    assert [(r.server, r.path) for r in github.requests] == [
        ("api", github.tarball_path(REPO, commit)),
        ("codeload", github.codeload_path(REPO, commit)),
    ]
    assert harness.client.requests_sent == 2
    assert harness.sleeps == []


def test_token_goes_to_the_api_only(
    github: GitHubServer, harness: Harness, served: tuple[str, bytes], tmp_path: Path
) -> None:
    commit, _ = served
    github.fail(github.codeload_path(REPO, commit), RESET)  # a retry crosses the redirect twice
    harness.client.resolve(REPO, None)
    harness.client.download(REPO, commit, tmp_path / "a.tar.gz")

    api, codeload = github.requests_to("api"), github.requests_to("codeload")
    assert len(api) == 3
    assert len(codeload) == 2
    assert {r.headers.get("authorization") for r in api} == {f"Bearer {TOKEN}"}
    assert {r.headers["host"] for r in codeload}.isdisjoint(r.headers["host"] for r in api)
    for request in codeload:
        assert "authorization" not in request.headers
        assert not any(TOKEN in value for value in request.headers.values())


def test_no_token_no_authorization(github: GitHubServer, served: tuple[str, bytes], tmp_path: Path) -> None:
    commit, _ = served
    Harness(github, tmp_path, token=None).client.download(REPO, commit, tmp_path / "a.tar.gz")
    assert len(github.requests) == 2
    assert all("authorization" not in r.headers for r in github.requests)


@pytest.mark.parametrize(
    ("where", "faults", "reason"),
    [
        ("api", [status(500), status(502), status(503)], "HTTP 50"),
        ("codeload", [status(502), status(503)], "HTTP 50"),
        ("codeload", [RESET], "connection broke"),
        ("codeload", [RESET, RESET, RESET], "connection broke"),
        ("codeload", [TRUNCATE], "connection broke"),
        ("codeload", [HTML], "not a valid archive"),
        ("codeload", [TRUNCATE, HTML, status(500)], ""),
    ],
    ids=["api-5xx-burst", "codeload-5xx", "reset", "resets", "truncated", "html", "mixed"],
)
def test_transient_faults_are_retried_with_backoff(
    github: GitHubServer, served: tuple[str, bytes], tmp_path: Path, where: str, faults: list[Fault], *, reason: str
) -> None:
    commit, data = served
    harness = Harness(github, tmp_path, attempts=len(faults) + 1)
    path = github.tarball_path(REPO, commit) if where == "api" else github.codeload_path(REPO, commit)
    for fault in faults:
        github.fail(path, fault)

    info = harness.client.download(REPO, commit, tmp_path / "a.tar.gz")

    assert (tmp_path / "a.tar.gz").read_bytes() == data
    assert info.sha256 == hashlib.sha256(data).hexdigest()
    assert github.faults_left(path) == 0
    backoff = [0.01 * 2**n for n in range(len(faults))]
    assert harness.sleeps == pytest.approx(backoff)
    assert [seconds for _, seconds, _ in harness.observer.waits] == pytest.approx(backoff)
    assert {label for label, _, _ in harness.observer.waits} == {f"{REPO}@{commit[:12]}"}
    assert all(reason in why for _, _, why in harness.observer.waits)


@pytest.mark.parametrize("fault", [RESET, TRUNCATE, HTML, status(503)], ids=["reset", "truncated", "html", "503"])
def test_persistent_faults_give_up_after_the_attempts(
    github: GitHubServer, harness: Harness, served: tuple[str, bytes], tmp_path: Path, fault: Fault
) -> None:
    commit, _ = served
    path = github.codeload_path(REPO, commit)
    github.fail(path, fault, times=3)
    with pytest.raises(TransportError, match=r"^gave up after 3 attempts: ") as caught:
        harness.client.download(REPO, commit, tmp_path / "a.tar.gz")
    assert github.faults_left(path) == 0
    assert harness.sleeps == pytest.approx([0.01, 0.02])
    assert TOKEN not in messages(caught.value)


def test_always_html_is_a_skip_with_its_reason(
    github: GitHubServer, harness: Harness, served: tuple[str, bytes], tmp_path: Path
) -> None:
    commit, _ = served
    manifest = tmp_path / "m.toml"
    manifest.write_text(f'[census]\nname = "t"\n\n[[repos]]\nrepo = "{REPO}"\ncommit = "{commit}"\n')
    github.fail(github.codeload_path(REPO, commit), HTML, times=3)
    census = Census(load(manifest), harness.settings, harness.observer)
    census.client = harness.client  # the recording sleep

    with Store(harness.settings.db_path) as store:
        outcomes = list(census.fetch(store))
        row = store.snapshot(REPO, commit)

    assert [o.status for o in outcomes] == ["skipped"]
    assert row is not None
    assert row["status"] == "skipped"
    assert row["skipped_stage"] == "fetch"
    assert row["skip_reason"].startswith("gave up after 3 attempts: the downloaded body is not a valid archive")
    assert outcomes[0].reason == row["skip_reason"]
    assert TOKEN not in row["skip_reason"]
    assert harness.sleeps == pytest.approx([0.01, 0.02])


# --- rate limits ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fault",
    [status(429, {"Retry-After": "7"}), status(403, {"Retry-After": "7"})],
    ids=["429", "403-secondary"],
)
def test_retry_after_is_honoured(
    github: GitHubServer, harness: Harness, served: tuple[str, bytes], tmp_path: Path, fault: Fault
) -> None:
    commit, data = served
    github.fail(github.tarball_path(REPO, commit), fault)
    harness.client.download(REPO, commit, tmp_path / "a.tar.gz")
    assert (tmp_path / "a.tar.gz").read_bytes() == data
    assert harness.sleeps == [7.0]
    assert harness.observer.waits == [(f"{REPO}@{commit[:12]}", 7.0, f"rate limited (HTTP {fault.status})")]


def test_retry_after_as_a_date(github: GitHubServer, harness: Harness, served: tuple[str, bytes]) -> None:
    commit, _ = served
    until = int(time.time()) + 90
    github.fail(github.commits_path(REPO, "HEAD"), status(429, {"Retry-After": formatdate(until, usegmt=True)}))
    before = time.time()
    assert harness.client.resolve(REPO, None) == commit
    after = time.time()
    [wait] = harness.sleeps
    assert until - after <= wait <= until - before


def test_primary_rate_limit_waits_for_the_reset(
    github: GitHubServer, harness: Harness, served: tuple[str, bytes], tmp_path: Path
) -> None:
    commit, _ = served
    reset = int(time.time()) + 120
    headers = {"X-RateLimit-Limit": "60", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)}
    github.fail(github.commits_path(REPO, "HEAD"), status(403, headers))
    before = time.time()
    assert harness.client.resolve(REPO, None) == commit
    after = time.time()
    [wait] = harness.sleeps
    assert reset - after + 1 <= wait <= reset - before + 1  # until the reset, plus a second
    assert [seconds for _, seconds, _ in harness.observer.waits] == [wait]


def test_a_plain_403_is_not_retried(
    github: GitHubServer, harness: Harness, served: tuple[str, bytes], tmp_path: Path
) -> None:
    commit, _ = served
    github.fail(github.tarball_path(REPO, commit), status(403, {"X-RateLimit-Remaining": "4999"}))
    with pytest.raises(SourceError, match="HTTP 403") as caught:
        harness.client.download(REPO, commit, tmp_path / "a.tar.gz")
    assert not isinstance(caught.value, RateLimitError | TransportError)
    assert len(github.requests) == 1
    assert harness.sleeps == []
    assert TOKEN not in messages(caught.value)


@pytest.mark.parametrize(
    "headers",
    [{"Retry-After": "3600"}, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 7200)}],
    ids=["retry-after", "reset"],
)
def test_a_wait_longer_than_the_maximum_gives_up(
    github: GitHubServer, served: tuple[str, bytes], tmp_path: Path, headers: dict[str, str]
) -> None:
    commit, _ = served
    harness = Harness(github, tmp_path, max_wait_seconds=60.0)
    github.fail(github.tarball_path(REPO, commit), status(403 if "X-RateLimit-Reset" in headers else 429, headers))
    with pytest.raises(RateLimitError, match=r"exceeds the maximum of 60s") as caught:
        harness.client.download(REPO, commit, tmp_path / "a.tar.gz")
    assert harness.sleeps == []
    assert harness.observer.waits == []
    assert len(github.requests) == 1
    assert TOKEN not in messages(caught.value)


def test_rate_limits_use_no_attempt(github: GitHubServer, harness: Harness, served: tuple[str, bytes]) -> None:
    commit, _ = served
    github.fail(github.commits_path(REPO, "HEAD"), status(429, {"Retry-After": "2"}), times=5)  # attempts: 3

    assert harness.client.resolve(REPO, None) == commit
    assert harness.sleeps == [2.0] * 5
    assert harness.client.sent == {"rest": 6}


# --- answers that are final ----------------------------------------------------------------


@pytest.mark.parametrize("case", ["unknown-commit", "unknown-repo", "codeload-404"])
def test_not_found(
    github: GitHubServer, harness: Harness, served: tuple[str, bytes], tmp_path: Path, case: str
) -> None:
    commit, _ = served
    repo, wanted = (REPO, fake_sha("absent")) if case == "unknown-commit" else (REPO, commit)
    if case == "unknown-repo":
        repo = "acme/absent"
    if case == "codeload-404":
        github.fail(github.codeload_path(REPO, commit), status(404))
    with pytest.raises(NotFoundError) as caught:
        harness.client.download(repo, wanted, tmp_path / "a.tar.gz")
    assert str(caught.value) == NOT_FOUND
    assert len(github.requests) == (2 if case == "codeload-404" else 1)
    assert harness.sleeps == []
    assert TOKEN not in messages(caught.value)


def test_redirect_loop(github: GitHubServer, harness: Harness, served: tuple[str, bytes], tmp_path: Path) -> None:
    commit, _ = served
    path = github.tarball_path(REPO, commit)
    github.fail(path, LOOP, times=20)
    with pytest.raises(SourceError, match="redirect") as caught:
        harness.client.download(REPO, commit, tmp_path / "a.tar.gz")
    assert [r.path for r in github.requests] == [path] * (MAX_REDIRECTS + 1)
    assert harness.sleeps == []
    assert TOKEN not in messages(caught.value)


def test_a_server_that_never_answers_times_out(
    github: GitHubServer, served: tuple[str, bytes], tmp_path: Path
) -> None:
    commit, _ = served
    harness = Harness(github, tmp_path, attempts=2, timeout_seconds=0.2)
    github.fail(github.tarball_path(REPO, commit), HANG, times=2)
    with pytest.raises(TransportError, match=r"^gave up after 2 attempts: .*Timeout") as caught:
        harness.client.download(REPO, commit, tmp_path / "a.tar.gz")
    assert len(github.requests) == 2
    assert harness.sleeps == [0.01]
    assert TOKEN not in messages(caught.value)


# --- the cache -----------------------------------------------------------------------------


def files_under(folder: Path) -> list[Path]:
    """Every file below ``folder`` (none if it does not exist)."""
    return sorted(p for p in folder.rglob("*") if p.is_file())


def test_a_cached_archive_is_reused_without_any_request(
    github: GitHubServer, harness: Harness, served: tuple[str, bytes], tmp_path: Path
) -> None:
    commit, data = served
    first = harness.source().fetch(commit)
    assert first.downloaded
    assert first.sha256 == hashlib.sha256(data).hexdigest()
    assert len(github.requests) == 2

    again = harness.source().fetch(commit)
    fresh = Harness(github, tmp_path).source().fetch(commit)  # another process, same cache

    assert len(github.requests) == 2
    assert not again.downloaded
    assert not fresh.downloaded
    assert again.sha256 == fresh.sha256 == first.sha256
    assert again.fetched_at_utc == fresh.fetched_at_utc == first.fetched_at_utc
    assert files_under(tmp_path / "cache" / "tmp") == []
    [blob] = files_under(tmp_path / "cache" / "blobs")
    assert blob.read_bytes() == data


@pytest.mark.parametrize("damage", ["flip", "truncate", "delete"])
def test_a_damaged_cached_archive_is_fetched_again(
    github: GitHubServer, harness: Harness, served: tuple[str, bytes], damage: str
) -> None:
    commit, data = served
    harness.source().fetch(commit)
    blob = harness.cache.locate(REPO, commit)
    assert blob is not None
    if damage == "flip":
        raw = bytearray(blob.path.read_bytes())
        raw[len(raw) // 2] ^= 0xFF
        blob.path.write_bytes(bytes(raw))
    elif damage == "truncate":
        blob.path.write_bytes(data[:-10])
    else:
        blob.path.unlink()

    again = harness.source().fetch(commit)

    assert again.downloaded
    assert len(github.requests) == 4
    assert blob.path.read_bytes() == data
    assert again.sha256 == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("fault", [RESET, TRUNCATE, HTML], ids=["reset", "truncated", "html"])
def test_a_failed_download_leaves_no_file_in_the_cache(
    github: GitHubServer, harness: Harness, served: tuple[str, bytes], tmp_path: Path, fault: Fault
) -> None:
    commit, data = served
    github.fail(github.codeload_path(REPO, commit), fault, times=3)
    with pytest.raises(TransportError):
        harness.source().fetch(commit)

    cache = tmp_path / "cache"
    assert files_under(cache / "blobs") == []
    assert files_under(cache / "refs") == []
    assert (cache / "tmp").is_dir()
    assert files_under(cache / "tmp") == []
    assert harness.cache.lookup(REPO, commit) is None
    with pytest.raises(SourceError, match="not fetched yet"):
        harness.source().locate(commit)

    assert harness.source().fetch(commit).downloaded  # the server recovered: now it is cached
    assert [p.read_bytes() for p in files_under(cache / "blobs")] == [data]
    assert files_under(cache / "tmp") == []


def test_the_cache_does_not_hold_the_token(
    github: GitHubServer, harness: Harness, served: tuple[str, bytes], tmp_path: Path
) -> None:
    commit, _ = served
    harness.source().fetch(commit)
    assert files_under(tmp_path / "cache")
    for path in files_under(tmp_path / "cache"):
        assert TOKEN.encode() not in path.read_bytes()
        assert TOKEN not in str(path)

