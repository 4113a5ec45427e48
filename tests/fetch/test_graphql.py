"""Pins in batches through GraphQL, and the REST fallback, against the loopback server's
``POST /graphql`` (its answers follow GitHub's: aliased blocks, ``NOT_FOUND`` errors, 401)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from github_server import HTML, GitHubServer, status
from synth import fake_sha
from test_fetch import TOKEN, Harness

from pipeline.fetch.graphql import BATCH, build_query, read_answer
from pipeline.fetch.pinning import NO_TOKEN
from pipeline.manifest.manifests import load
from pipeline.run.census import Census


def serve(github: GitHubServer, count: int, prefix: str = "acme/r") -> dict[str, str]:
    """Serve ``count`` repositories (their archives are never asked for); repo -> default branch's commit."""
    commits = {f"{prefix}{n:03d}": fake_sha(f"{prefix}{n}") for n in range(count)}
    for repo, commit in commits.items():
        github.add_repo(repo, {commit: b""}, branches={"main": commit, "v1": fake_sha(f"{repo}@v1")})
    return commits


def manifest(tmp_path: Path, repos: list[str], refs: dict[str, str] | None = None) -> Path:
    path = tmp_path / "m.toml"
    blocks = [f'[[repos]]\nrepo = "{r}"\n' + (f'ref = "{(refs or {})[r]}"\n' if r in (refs or {}) else "")
              for r in repos]
    path.write_text("\n".join(blocks), encoding="utf-8")
    return path


def pin(github: GitHubServer, tmp_path: Path, path: Path, **settings: object) -> tuple[Census, Harness]:
    harness = Harness(github, tmp_path, **settings)
    census = Census(load(path), harness.settings, harness.observer)
    census.client = type(harness.client)(census.settings, harness.observer, sleep=harness.sleeps.append)
    census.pin()
    return census, harness


@pytest.mark.parametrize("count", [1, 100, 250])
def test_pins_are_batched_a_hundred_to_a_query(github: GitHubServer, tmp_path: Path, count: int) -> None:
    commits = serve(github, count)
    path = manifest(tmp_path, list(commits))

    census, _ = pin(github, tmp_path, path)

    assert census.commits == commits
    assert [e.commit for e in load(path).repos] == list(commits.values())  # written into the manifest
    posts = github.requests_to("api")
    assert [r.path for r in posts] == [github.GRAPHQL_PATH] * -(-count // BATCH)  # no REST request at all
    assert {r.headers.get("authorization") for r in posts} == {f"Bearer {TOKEN}"}
    sizes = [len(json.loads(r.body)["variables"]) // 2 for r in posts]
    assert sizes == [min(BATCH, count - start) for start in range(0, count, BATCH)]


def test_a_missing_repository_in_the_middle_is_its_own_skip(github: GitHubServer, tmp_path: Path) -> None:
    commits = serve(github, 5)
    repos = list(commits)
    repos.insert(2, "acme/gone")
    path = manifest(tmp_path, repos, {"acme/r003": "v1"})

    census, harness = pin(github, tmp_path, path)

    assert census.commits["acme/gone"] is None
    assert ("acme/gone", "skipped", "pin HEAD: repository not found") in harness.observer.advances
    assert census.commits["acme/r003"] == fake_sha("acme/r003@v1")  # the ref, not the default branch
    assert {r: c for r, c in census.commits.items() if r not in ("acme/gone", "acme/r003")} == {
        r: c for r, c in commits.items() if r != "acme/r003"}
    assert [r.path for r in github.requests] == [github.GRAPHQL_PATH]  # the batch stands


def test_a_malformed_answer_is_retried_then_the_batch_falls_back_to_rest(github: GitHubServer, tmp_path: Path) -> None:
    commits = serve(github, 3)
    github.fail(github.GRAPHQL_PATH, HTML, times=3)  # every attempt answers a captive portal's page

    census, harness = pin(github, tmp_path, manifest(tmp_path, list(commits)))

    assert census.commits == commits
    assert [r.path for r in github.requests] == [github.GRAPHQL_PATH] * 3 + [
        github.commits_path(repo, "HEAD") for repo in commits]
    assert harness.observer.notes == [
        "a GraphQL batch of 3 pins failed (gave up after 3 attempts: the GraphQL answer is not JSON): they are "
        "resolved with REST"]


@pytest.mark.parametrize("code", [401, 404])
def test_an_endpoint_that_is_not_there_falls_back_to_rest_said_once(
    github: GitHubServer, tmp_path: Path, code: int
) -> None:
    commits = serve(github, BATCH + 1)
    github.fail(github.GRAPHQL_PATH, status(code))

    census, harness = pin(github, tmp_path, manifest(tmp_path, list(commits)), attempts=1)

    assert census.commits == commits
    graphql = [r for r in github.requests if r.path == github.GRAPHQL_PATH]
    assert len(graphql) == 1  # the second batch is not tried
    assert len(github.requests) == 1 + BATCH + 1
    assert harness.observer.notes == [f"GraphQL is not available (HTTP {code} from the GraphQL endpoint): commits "
                                      "are resolved with REST, one request per repository"]


def test_without_a_token_pins_are_rest_said_once(github: GitHubServer, tmp_path: Path) -> None:
    commits = serve(github, 3)

    census, harness = pin(github, tmp_path, manifest(tmp_path, list(commits)), token=None)

    assert census.commits == commits
    assert [r.path for r in github.requests] == [github.commits_path(repo, "HEAD") for repo in commits]
    assert harness.observer.notes == [NO_TOKEN]


def test_a_rate_limited_query_is_waited_out(github: GitHubServer, tmp_path: Path) -> None:
    commits = serve(github, 2)
    github.fail(github.GRAPHQL_PATH, status(403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1"}))

    census, harness = pin(github, tmp_path, manifest(tmp_path, list(commits)), attempts=1)

    assert census.commits == commits
    assert [r.path for r in github.requests] == [github.GRAPHQL_PATH] * 2
    assert [reason for _, _, reason in harness.observer.waits] == ["rate limited (HTTP 403)"]


def test_answers_are_read_alias_by_alias() -> None:
    batch = [("o/a", None), ("o/b", "v2"), ("o/c", "v3"), ("o/empty", None), ("o/d", "x"), ("o/e", None)]
    query, variables = build_query(batch)
    assert 'r1: repository(owner: $o1, name: $n1) { object(expression: $e1)' in query
    assert variables["e1"] == "v2"
    assert variables["o0"] == "o"
    tag = {"__typename": "Tag", "oid": "f" * 40, "target": {"__typename": "Commit", "oid": "B" * 40}}
    answer = {"data": {"r0": {"defaultBranchRef": {"target": {"oid": "a" * 40}}}, "r1": {"object": tag},
                       "r2": {"object": None}, "r3": {"defaultBranchRef": None},
                       "r4": {"object": {"__typename": "Tree", "oid": "c" * 40}}, "r5": None},
              "errors": [{"type": "FORBIDDEN", "path": ["r5"], "message": "SAML"}]}

    pins = read_answer(answer, batch)

    assert pins["o/a"] == "a" * 40
    assert pins["o/b"] == "b" * 40  # an annotated tag, peeled to its commit
    assert str(pins["o/c"]) == "ref 'v3' not found"
    assert str(pins["o/empty"]) == "the repository has no default branch (is it empty?)"
    assert pins["o/d"] is None  # a tree: REST says what it is
    assert pins["o/e"] is None  # another error than NOT_FOUND: REST tries
