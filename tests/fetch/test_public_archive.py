"""Archives from the public archive URL: no API request, no token on another host, the API's
tarball for a private repository, and one cache whichever URL served the archive."""

from __future__ import annotations

from pathlib import Path

from github_server import GitHubServer, status
from test_fetch import REPO, TOKEN, Harness, publish

from pipeline.settings import Settings


def test_the_public_url_redirects_to_the_archive_host_and_carries_no_token(
    github: GitHubServer, tmp_path: Path
) -> None:
    commit, _data = publish(github)
    harness = Harness(github, tmp_path, server_url=github.web_url)

    fetched = harness.source().fetch(commit)

    assert fetched.downloaded
    assert [(r.server, r.path) for r in github.requests] == [
        ("web", github.public_path(REPO, commit)), ("codeload", f"/{REPO}/tar.gz/{commit}")]
    assert all("authorization" not in r.headers for r in github.requests)
    assert harness.client.sent == {"archive": 2}  # not one API request
    assert harness.cache.lookup(REPO, commit) is not None


def test_a_private_repository_falls_back_to_the_api_with_the_token(github: GitHubServer, tmp_path: Path) -> None:
    commit, data = publish(github)
    github.add_repo(REPO, {commit: data}, private=True)
    harness = Harness(github, tmp_path, server_url=github.web_url)

    harness.source().fetch(commit)

    assert [(r.server, r.path) for r in github.requests] == [
        ("web", github.public_path(REPO, commit)), ("api", github.tarball_path(REPO, commit)),
        ("codeload", github.codeload_path(REPO, commit))]
    assert [r.headers.get("authorization") for r in github.requests] == [None, f"Bearer {TOKEN}", None]
    assert harness.client.sent == {"archive": 2, "rest": 1}


def test_a_rate_limited_archive_host_is_waited_out(github: GitHubServer, tmp_path: Path) -> None:
    commit, _data = publish(github)
    github.fail(github.public_path(REPO, commit), status(429, {"Retry-After": "5"}))
    harness = Harness(github, tmp_path, server_url=github.web_url)

    harness.source().fetch(commit)

    assert harness.sleeps == [5.0]
    assert [r.server for r in github.requests] == ["web", "web", "codeload"]


def test_the_cache_serves_either_url_without_a_request(github: GitHubServer, tmp_path: Path) -> None:
    commit, _data = publish(github)
    public = Harness(github, tmp_path, server_url=github.web_url)
    public.source().fetch(commit)
    before = len(github.requests)

    from_api = Harness(github, tmp_path)  # no server: archives would come from the API
    again = from_api.source().fetch(commit)

    assert not again.downloaded
    assert len(github.requests) == before
    assert from_api.cache.lookup(REPO, commit) is not None


def test_which_hosts_serve_archives_follows_github_actions_variables() -> None:
    assert Settings().archive_server == "https://github.com"
    assert Settings().graphql_endpoint == "https://api.github.com/graphql"
    enterprise = Settings.from_env({"GITHUB_API_URL": "https://ghe.example.com/api/v3"})
    assert enterprise.archive_server == "https://ghe.example.com"
    assert enterprise.graphql_endpoint == "https://ghe.example.com/api/graphql"
    stand_in = Settings(api_url="http://127.0.0.1:9")
    assert stand_in.archive_server is None  # unknown: archives from the API, as before
    assert stand_in.graphql_endpoint == "http://127.0.0.1:9/graphql"
    given = Settings.from_env({"GITHUB_API_URL": "http://127.0.0.1:9", "GITHUB_SERVER_URL": "http://127.0.0.1:8/",
                               "GITHUB_GRAPHQL_URL": "http://127.0.0.1:7/q"})
    assert (given.archive_server, given.graphql_endpoint) == ("http://127.0.0.1:8", "http://127.0.0.1:7/q")
