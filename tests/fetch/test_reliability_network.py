"""Network faults that ``test_fetch`` leaves out: DNS, bodies that never end or stall, downloads
over the limit, 429 without a wait, partial downloads of killed processes, and the token
under DEBUG logging. Real sockets on 127.0.0.1 (the loopback server), real files, no mocks.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from github_server import FLOOD, HANG, LOOP, PAUSE, RESET, GitHubServer, status
from test_fetch import REPO, TOKEN, Harness, messages, publish

from pipeline.errors import ArchiveLimitError, CensusError, SourceError, TransportError
from pipeline.fetch.cache import HOST_TAG, ArchiveCache
from pipeline.fetch.ratelimit import DEFAULT_RATE_LIMIT_WAIT
from pipeline.manifest.manifests import load
from pipeline.run.census import Census
from pipeline.store.database import Store

UNKNOWN = "nonexistent.invalid"


def dns_says_no_such_host() -> bool:
    """Whether this machine's resolver answers "no such name" for ``UNKNOWN`` (else it fails for now)."""
    try:
        socket.getaddrinfo(UNKNOWN, 80)
    except socket.gaierror as exc:
        return exc.errno in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME))
    return False  # pragma: no cover - a resolver that invents addresses


@pytest.fixture
def harness(github: GitHubServer, tmp_path: Path) -> Harness:
    """A client with three attempts, 10 ms backoff and recorded sleeps."""
    return Harness(github, tmp_path)


def files_under(folder: Path) -> list[Path]:
    """Every file below ``folder``."""
    return sorted(p for p in folder.rglob("*") if p.is_file())


# --- DNS ------------------------------------------------------------------------------------


def test_an_unknown_api_host_is_a_skipped_row_with_a_clear_reason(github: GitHubServer, tmp_path: Path) -> None:
    manifest = tmp_path / "m.toml"
    pinned = "0123456789abcdef0123456789abcdef01234567"
    manifest.write_text(f'[[repos]]\nrepo = "acme/pinned"\ncommit = "{pinned}"\n\n[[repos]]\nrepo = "acme/loose"\n')
    before = manifest.read_text()
    harness = Harness(github, tmp_path, api_url=f"http://{UNKNOWN}")
    census = Census(load(manifest), harness.settings)
    census.client = harness.client  # the recording sleep
    with Store(harness.settings.db_path) as store:
        outcomes = list(census.run(store))
        rows = store.connection.execute("SELECT repo, commit, skipped_stage, skip_reason FROM snapshots").fetchall()
    census.close()

    expected = f"cannot resolve host {UNKNOWN} ("
    assert sorted((r, c, stage) for r, c, stage, _ in rows) == [("acme/loose", None, "pin"),
                                                                 ("acme/pinned", pinned, "fetch")]
    assert all(expected in reason for *_, reason in rows), rows
    assert [o.status for o in outcomes] == ["skipped", "skipped"]
    assert github.requests == []
    assert manifest.read_text() == before
    if dns_says_no_such_host():  # an answer, not a passing failure: final, no retry, no wait
        assert harness.client.sent == {"graphql": 1, "rest": 2}  # GraphQL's batch fails, REST pins, fetches
        assert harness.sleeps == []
        assert all(reason.startswith(("pin HEAD: cannot resolve", "cannot resolve")) for *_, reason in rows)
    else:  # pragma: no cover - a resolver that cannot answer now: retried like any network failure
        assert harness.client.requests_sent == 3 * harness.settings.attempts


def test_a_redirect_to_an_unknown_host_is_final(github: GitHubServer, harness: Harness, tmp_path: Path) -> None:
    commit, _ = publish(github)
    github.fail(github.tarball_path(REPO, commit), status(302, {"Location": f"http://{UNKNOWN}/archive.tar.gz"}))
    with pytest.raises(TransportError, match=f"cannot resolve host {UNKNOWN}") as caught:
        harness.client.download(REPO, commit, tmp_path / "a.tar.gz")
    assert len(github.requests) == 1
    assert TOKEN not in messages(caught.value)
    if dns_says_no_such_host():
        assert harness.sleeps == []


# --- rate limits ----------------------------------------------------------------------------


def test_a_429_without_retry_after_waits_githubs_minute(github: GitHubServer, harness: Harness) -> None:
    commit, _ = publish(github)
    github.fail(github.commits_path(REPO, "HEAD"), status(429))
    assert harness.client.resolve(REPO, None) == commit
    assert harness.sleeps == [DEFAULT_RATE_LIMIT_WAIT]
    assert harness.observer.waits == [(f"{REPO}@HEAD", DEFAULT_RATE_LIMIT_WAIT, "rate limited (HTTP 429)")]


# --- bodies that are too long, never end, or stall ----------------------------------------------


def test_a_download_larger_than_the_limit_is_refused_before_it_is_read(github: GitHubServer, tmp_path: Path) -> None:
    commit, data = publish(github)
    harness = Harness(github, tmp_path, max_archive_bytes=len(data) - 1)
    with pytest.raises(ArchiveLimitError) as caught:
        harness.source().fetch(commit)
    assert str(caught.value) == (f"over a limit: the download is {len(data)} bytes, more than {len(data) - 1}"
                                 " (CENSUS_MAX_ARCHIVE_BYTES)")
    assert len(github.requests_to("codeload")) == 1  # final: not asked again
    assert harness.sleeps == []
    assert files_under(tmp_path / "cache") == []


def test_a_body_that_never_ends_is_cut_at_the_limit(github: GitHubServer, tmp_path: Path) -> None:
    commit, _ = publish(github)
    harness = Harness(github, tmp_path, max_archive_bytes=4 << 20)
    github.fail(github.codeload_path(REPO, commit), FLOOD)
    with pytest.raises(ArchiveLimitError, match=r"^over a limit: the download goes on past 4194304 bytes"):
        harness.source().fetch(commit)
    assert len(github.requests_to("codeload")) == 1
    assert harness.sleeps == []
    assert files_under(tmp_path / "cache") == []


def test_a_body_that_stalls_midway_times_out_and_is_fetched_again(github: GitHubServer, tmp_path: Path) -> None:
    commit, data = publish(github)
    harness = Harness(github, tmp_path, timeout_seconds=0.3)
    github.fail(github.codeload_path(REPO, commit), PAUSE)  # half the body, then silence
    fetched = harness.source().fetch(commit)
    assert fetched.downloaded
    assert [p.read_bytes() for p in files_under(tmp_path / "cache" / "blobs")] == [data]
    assert harness.sleeps == [0.01]
    [(_, _, reason)] = harness.observer.waits
    assert reason.startswith("the connection broke mid-body after ")
    assert files_under(tmp_path / "cache" / "tmp") == []


# --- a download cut short by kill -9 -----------------------------------------------------------

HOLD_A_DOWNLOAD = """
import sys, time
from pathlib import Path
from pipeline.fetch.cache import ArchiveCache, HOST_TAG
with ArchiveCache(Path(sys.argv[1]), "http://x").download_file() as part:
    part.write_bytes(b"half an archive")
    print(part, flush=True)
    time.sleep(60)
"""


def test_the_partial_download_of_a_killed_process_is_swept_by_the_next_download(tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    hold = [sys.executable, "-c", HOLD_A_DOWNLOAD, str(cache_dir)]
    killed = subprocess.Popen(hold, stdout=subprocess.PIPE, text=True)
    alive = subprocess.Popen(hold, stdout=subprocess.PIPE, text=True)
    try:
        assert killed.stdout is not None
        assert alive.stdout is not None
        dead_part, live_part = Path(killed.stdout.readline().strip()), Path(alive.stdout.readline().strip())
        killed.send_signal(signal.SIGKILL)
        while not Path(f"/proc/{killed.pid}/stat").read_text().split(") ", 1)[1].startswith("Z"):
            time.sleep(0.01)  # dead but not reaped (as under an init that reaps late): still a pid
        assert dead_part.read_bytes() == b"half an archive"  # what kill -9 leaves behind
        with ArchiveCache(cache_dir, "http://x").download_file() as mine:
            assert not dead_part.exists()
            assert live_part.exists()  # another census's download in progress is left alone
            assert mine.name.startswith(f"{os.getpid()}-")
    finally:
        for child in (killed, alive):
            child.kill()
            child.wait(timeout=30)
            child.stdout.close()  # type: ignore[union-attr]
    assert ArchiveCache(cache_dir, "http://x").sweep() == [live_part]
    assert files_under(cache_dir) == []


# --- the token, under DEBUG logging --------------------------------------------------------


def test_the_token_is_in_no_log_record_at_debug_nor_in_any_error(
    github: GitHubServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    commit, _ = publish(github)
    caplog.set_level(logging.DEBUG)  # every logger, every level: urllib3 logs each request here
    harness = Harness(github, tmp_path, timeout_seconds=0.3, attempts=2)
    api, codeload = github.tarball_path(REPO, commit), github.codeload_path(REPO, commit)
    faults = [(api, status(500), 2), (codeload, RESET, 2), (api, status(401), 1), (codeload, status(404), 1),
              (api, LOOP, 6), (api, HANG, 2), (api, status(302, {"Location": f"http://{UNKNOWN}/a.tar.gz"}), 1),
              (api, status(422, {"X-Echo": TOKEN}), 1)]
    errors: list[BaseException] = []
    for path, fault, times in faults:  # each fault is used up by the attempts it gets
        github.fail(path, fault, times=times)
        with pytest.raises(CensusError) as caught:
            harness.client.download(REPO, commit, tmp_path / "a.tar.gz")
        errors.append(caught.value)
    assert len(errors) == len(faults)
    github.fail(api, status(403, {"Retry-After": "0", "X-Echo": TOKEN}), times=3)  # waited out: no error
    harness.client.download(REPO, commit, tmp_path / "a.tar.gz")
    assert [w for w in harness.observer.waits if "rate limited" in w[2]] == [(f"{REPO}@{commit[:12]}", 0.0,
                                                                             "rate limited (HTTP 403)")] * 3
    assert all(isinstance(e, SourceError) for e in errors)
    assert any("urllib3" in r.name for r in caplog.records)  # the log was really captured
    assert TOKEN not in caplog.text
    for record in caplog.records:
        assert TOKEN not in record.getMessage()
    assert TOKEN not in "\n".join(messages(e) for e in errors)
    assert TOKEN not in repr(harness.observer.waits)
    assert TOKEN not in repr(harness.settings)
    assert {r.headers.get("authorization") for r in github.requests_to("api")} == {f"Bearer {TOKEN}"}


def test_a_partial_download_of_another_machine_is_left_alone(tmp_path: Path) -> None:
    """A cluster may share one cache folder: a dead-looking pid on another host is not ours to judge."""
    tmp = tmp_path / "cache" / "tmp"
    tmp.mkdir(parents=True)
    theirs = tmp / f"999999999-{'0' * 8 if HOST_TAG != '0' * 8 else '1' * 8}-abc.part"
    ours = tmp / f"999999999-{HOST_TAG}-abc.part"  # no such pid here: a dead process of this machine
    for part in (theirs, ours):
        part.write_bytes(b"half")
    assert ArchiveCache(tmp_path / "cache", "http://x").sweep() == [ours]
    assert theirs.exists()
