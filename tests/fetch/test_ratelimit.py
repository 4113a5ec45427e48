"""Rate limits are waits, not failures; one token pauses once for every worker; a run's waiting
is bounded. Against the loopback GitHub server, with recorded sleeps except where the test is
about real time (two workers on one token)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from github_server import RESET, TRUNCATE, GitHubServer, status
from test_fetch import REPO, TOKEN, Harness, publish

from pipeline.errors import RateLimitError, TransportError
from pipeline.fetch.ratelimit import DEFAULT_RATE_LIMIT_WAIT, SharedPause


@pytest.fixture
def harness(github: GitHubServer, tmp_path: Path) -> Harness:
    """A client with three attempts, 10 ms backoff and recorded sleeps."""
    return Harness(github, tmp_path)


def primary(reset: float) -> dict[str, str]:
    """The headers of a primary rate limit whose budget comes back at ``reset``."""
    return {"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(reset))}


def test_rate_limits_interleaved_with_every_failure_use_attempts_only_for_the_failures(
    github: GitHubServer, tmp_path: Path
) -> None:
    commit, data = publish(github)
    api, codeload = github.tarball_path(REPO, commit), github.codeload_path(REPO, commit)
    # four attempts: three failures (a 500, a reset connection, a cut body) and three rate limits between them
    github.fail(api, status(429, {"Retry-After": "3"}))
    github.fail(api, status(500))
    github.fail(api, status(403, {"Retry-After": "4"}))
    github.fail(codeload, RESET)
    github.fail(api, status(403, primary(time.time())), times=1)
    github.fail(codeload, TRUNCATE)
    harness = Harness(github, tmp_path, attempts=4)

    info = harness.client.download(REPO, commit, tmp_path / "a.tar.gz")

    assert (tmp_path / "a.tar.gz").read_bytes() == data
    assert info.sha256 == hashlib.sha256(data).hexdigest()
    waits = [(seconds, reason) for _, seconds, reason in harness.observer.waits]
    rate_limits = [w for w in waits if w[1].startswith("rate limited")]
    failures = [w for w in waits if not w[1].startswith("rate limited")]
    assert [r for _, r in rate_limits] == ["rate limited (HTTP 429)", "rate limited (HTTP 403)",
                                           "rate limited (HTTP 403)"]
    assert rate_limits[0][0] == 3.0
    assert rate_limits[1][0] == 4.0
    assert [s for s, _ in failures] == pytest.approx([0.01, 0.02, 0.04])  # three failures: the backoff doubles
    assert github.faults_left(api) == github.faults_left(codeload) == 0

    for path, fault in ((api, status(500)), (codeload, RESET), (api, status(429, {"Retry-After": "0"})),
                        (codeload, TRUNCATE)):
        github.fail(path, fault)
    with pytest.raises(TransportError, match=r"^gave up after 3 attempts: ") as caught:  # three failures
        Harness(github, tmp_path / "3", attempts=3).client.download(REPO, commit, tmp_path / "b.tar.gz")
    assert "rate limited" not in str(caught.value)
    assert github.faults_left(api) == github.faults_left(codeload) == 0  # the rate limit was waited out between


def test_a_secondary_limit_that_names_no_wait_waits_a_minute_then_backs_off(
    github: GitHubServer, harness: Harness
) -> None:
    commit, _ = publish(github)
    github.fail(github.commits_path(REPO, "HEAD"), status(429), times=3)

    assert harness.client.resolve(REPO, None) == commit
    assert harness.sleeps == [DEFAULT_RATE_LIMIT_WAIT, 2 * DEFAULT_RATE_LIMIT_WAIT, 4 * DEFAULT_RATE_LIMIT_WAIT]


def test_a_spent_wait_budget_is_a_skip_with_its_reason_said_once(github: GitHubServer, tmp_path: Path) -> None:
    _commit, _ = publish(github)
    harness = Harness(github, tmp_path, max_total_wait_seconds=5.0)
    github.fail(github.commits_path(REPO, "HEAD"), status(429, {"Retry-After": "3"}), times=3)

    with pytest.raises(RateLimitError) as caught:
        harness.client.resolve(REPO, None)
    with pytest.raises(RateLimitError, match="budget of 5s is spent"):
        harness.client.resolve(REPO, None)  # the next one is refused too, without a second note

    assert str(caught.value) == "the run's rate-limit wait budget of 5s is spent (CENSUS_MAX_TOTAL_WAIT)"
    assert harness.sleeps == [3.0]
    assert harness.observer.notes == [
        "the run's rate-limit wait budget of 5s is spent (CENSUS_MAX_TOTAL_WAIT): every repository rate "
        "limited from now on is skipped; rerun later to fetch them"]
    assert len(github.requests) == 3  # the third rate limit is refused at once: no wait, no further request


def test_a_run_counts_a_pause_once_however_many_workers_wait_it_out(tmp_path: Path) -> None:
    first = SharedPause(tmp_path, "https://api.github.com", TOKEN, "run-1", budget_seconds=100.0)
    second = SharedPause(tmp_path, "https://api.github.com", TOKEN, "run-1", budget_seconds=100.0)
    other_run = SharedPause(tmp_path, "https://api.github.com", TOKEN, "run-2", budget_seconds=100.0)

    first.charge(1000.0, 1060.0)
    second.charge(1010.0, 1060.0)  # the same pause, waited out by another worker: not counted again
    second.charge(1050.0, 1090.0)  # only its last 30 s are new
    other_run.charge(1000.0, 1090.0)  # another run has a ledger of its own
    with pytest.raises(RateLimitError, match="budget of 100s is spent"):
        first.charge(1090.0, 1101.0)  # 90 + 11 > 100

    state = json.loads(first.path.read_text(encoding="utf-8"))
    assert state["runs"]["run-1"]["waited"] == 90.0
    assert state["runs"]["run-2"]["waited"] == 90.0
    assert TOKEN not in first.path.read_text(encoding="utf-8") + first.path.name


#: a second worker process: a client of the same token and cache folder resolving one repository
WORKER = """
import sys
from pathlib import Path
from pipeline.fetch.github import GitHubClient
from pipeline.settings import Settings
settings = Settings(api_url=sys.argv[1], cache_dir=Path(sys.argv[2]), token=sys.argv[3], attempts=1)
print(GitHubClient(settings).resolve(sys.argv[4], None))
"""


def test_after_one_worker_meets_a_primary_limit_another_sends_nothing_until_the_reset(
    github: GitHubServer, tmp_path: Path
) -> None:
    commit, _ = publish(github)
    other_commit, _ = publish(github, "acme/other")
    reset = int(time.time()) + 2
    github.fail(github.commits_path(REPO, "HEAD"), status(403, primary(reset)))
    first = Harness(github, tmp_path, attempts=1)
    first.client = type(first.client)(first.settings, first.observer)  # real sleeps: real time is the point
    found: list[str] = []
    worker = threading.Thread(target=lambda: found.append(first.client.resolve(REPO, None)))
    worker.start()
    pause = SharedPause(tmp_path / "cache", github.api_url, TOKEN, None, 1.0)
    deadline = time.time() + 10
    while pause.paused_until() == 0.0 and time.time() < deadline:  # the first worker has learnt the limit
        time.sleep(0.01)
    learnt = time.time()

    done = subprocess.run([sys.executable, "-c", WORKER, github.api_url, str(tmp_path / "cache"), TOKEN, "acme/other"],
                          capture_output=True, text=True, timeout=60, check=True)
    worker.join(30)

    assert found == [commit]
    assert done.stdout.strip() == other_commit
    after = [r for r in github.requests if r.at >= learnt]
    assert {r.path for r in after} == {github.commits_path(REPO, "HEAD"), github.commits_path("acme/other", "HEAD")}
    assert all(r.at >= reset for r in after), [(r.path, r.at - reset) for r in after]  # held until the reset
    assert pause.paused_until() == reset + 1.0


def test_a_last_request_of_the_budget_pauses_the_next_before_it_fails(github: GitHubServer, tmp_path: Path) -> None:
    commit, _ = publish(github)
    github.limit_rate(requests=1, window_seconds=2)  # one request per window of two seconds
    first = Harness(github, tmp_path)
    assert first.client.resolve(REPO, None) == commit  # answered with X-RateLimit-Remaining: 0
    second = Harness(github, tmp_path)
    second.client = type(second.client)(second.settings, second.observer)  # real sleeps

    assert second.client.resolve(REPO, None) == commit  # held until the window's end, then asked once

    [held] = second.observer.waits
    assert held[2].startswith("the token's rate limit is spent until ")
    assert len(github.requests) == 2  # no request was sent to find out by failing
    assert github.requests[1].at >= int(github.requests[0].at // 2 + 1) * 2  # in the next window
