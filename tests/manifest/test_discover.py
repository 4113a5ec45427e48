"""``census discover``: a manifest from the MCP registry's read API or from a list of repositories."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from registry_server import Registry, serving

from pipeline.errors import RegistryDumpError, SourceError, TransportError
from pipeline.manifest import discover
from pipeline.manifest import manifests as manifest
from pipeline.manifest.registry_dump import from_dump
from pipeline.settings import Settings

FAST = Settings(attempts=3, backoff_seconds=0.0, timeout_seconds=5.0)


def server(name: str, url: str | None = None, subfolder: str | None = None, version: str = "1.0.0") -> dict[str, Any]:
    """A server.json as the registry lists it."""
    item: dict[str, Any] = {"name": name, "description": "synthetic", "version": version}
    if url is not None:
        item["repository"] = {"url": url, "source": "github", **({"subfolder": subfolder} if subfolder else {})}
    return item


ITEMS = [
    server("io.github.acme/notes", "https://github.com/acme/monorepo", "servers/notes"),
    server("io.github.acme/notes", "https://github.com/acme/monorepo", "servers/notes", version="1.1.0"),
    server("io.github.acme/tasks", "https://github.com/Acme/MonoRepo.git", "/servers/tasks/"),
    server("com.example/remote-only"),
    server("org.gitlab/thing", "https://gitlab.com/org/thing"),
    server("io.github.solo/one", "git@github.com:solo/one.git"),
    server("io.github.solo/two", "https://github.com/solo/two/"),
]


@pytest.mark.parametrize("wrapped", [False, True], ids=["v0 items", "v0.1 wrapped items"])
def test_registry_pages_become_one_entry_per_repository(wrapped: bool) -> None:
    with serving(Registry(ITEMS, wrapped=wrapped)) as registry:
        found = discover.from_registry(registry.url, FAST)
    assert [(e.repo, e.server_paths, e.servers) for e in found.entries] == [
        ("acme/monorepo", ("servers/notes", "servers/tasks"), ("io.github.acme/notes", "io.github.acme/tasks")),
        ("solo/one", (), ("io.github.solo/one",)),
        ("solo/two", (), ("io.github.solo/two",)),
    ]
    assert [(s.name, s.reason) for s in found.left_out] == [
        ("com.example/remote-only", "no source repository (remote or package only)"),
        ("org.gitlab/thing", "repository not on GitHub: https://gitlab.com/org/thing"),
    ]
    cursors = [query.get("cursor") for _, query, _ in registry.requests]
    assert cursors == [None, ["2"], ["4"], ["6"]]  # 7 items, 2 per page, cursor followed to the end


def test_the_written_manifest_loads_and_lists_what_was_left_out(tmp_path: Path) -> None:
    with serving(Registry(ITEMS)) as registry:
        found = discover.from_registry(registry.url, FAST)
    path = tmp_path / "manifests" / "registry.toml"
    manifest.save(path, discover.render(found, "registry"))
    loaded = manifest.load(path)
    assert loaded.name == "registry"
    assert [(e.repo, e.commit, e.server_paths, e.servers) for e in loaded.repos] == [
        ("acme/monorepo", None, ("servers/notes", "servers/tasks"), ("io.github.acme/notes", "io.github.acme/tasks")),
        ("solo/one", None, (), ("io.github.solo/one",)),
        ("solo/two", None, (), ("io.github.solo/two",)),
    ]
    text = path.read_text()
    assert "# - com.example/remote-only: no source repository (remote or package only)" in text
    assert "# - org.gitlab/thing: repository not on GitHub: https://gitlab.com/org/thing" in text


def test_a_cursor_that_repeats_ends_the_listing() -> None:
    with serving(Registry(ITEMS, stuck_cursor=True)) as registry:
        found = discover.from_registry(registry.url, FAST)
    assert len(registry.requests) == 2  # the first page, then the cursor once; not forever
    assert [e.repo for e in found.entries] == ["acme/monorepo"]


def test_server_errors_are_retried_then_reported_in_one_line() -> None:
    with serving(Registry(ITEMS)) as registry:
        registry.fail(503, times=2)
        found = discover.from_registry(registry.url, FAST)
        assert len(found.entries) == 3
        registry.fail(500, times=3)
        with pytest.raises(TransportError) as failed:
            discover.from_registry(registry.url, FAST)
    assert str(failed.value) == f"{registry.url}/v0/servers: HTTP 500 (after 3 attempts)"


@pytest.mark.parametrize(("fault", "message"), [("html", "/v0/servers: the answer is not JSON"),
                                               (404, "/v0/servers: HTTP 404 \\(and URL/v0.1/servers\\)")])
def test_a_bad_answer_is_an_error_naming_the_url(fault: int | str, message: str) -> None:
    with serving(Registry(ITEMS)) as registry:
        registry.fail(fault)
        with pytest.raises(SourceError, match=f"^{registry.url}{message.replace('URL', registry.url)}$"):
            discover.from_registry(registry.url, FAST)


@pytest.mark.parametrize("root", ["", "/v0.1"], ids=["the root: v0, then v0.1", "a versioned root"])
def test_a_registry_that_serves_only_v0_1(root: str) -> None:
    with serving(Registry(ITEMS, wrapped=True, path="/v0.1/servers")) as registry:
        found = discover.from_registry(registry.url + root, FAST)
    assert [e.repo for e in found.entries] == ["acme/monorepo", "solo/one", "solo/two"]
    assert [path for path, _, _ in registry.requests][-1] == "/v0.1/servers"


def test_no_token_is_sent_to_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret_registry_test")
    with serving(Registry(ITEMS)) as registry:
        discover.from_registry(registry.url, Settings.from_env(attempts=1))
    assert all("authorization" not in headers for _, _, headers in registry.requests)


def test_a_list_of_repositories() -> None:
    lines = ["# our picks", "", "acme/one", "https://github.com/acme/two.git", "acme/one  # again",
             "not a repo", "gitlab.com/x/y"]
    found = discover.from_lines(lines, "picks.txt")
    assert [(e.repo, e.servers) for e in found.entries] == [("acme/one", ("acme/one",)), ("acme/two", ("acme/two",))]
    assert [(s.name, s.reason) for s in found.left_out] == [
        ("line 6: not a repo", "not owner/name or a GitHub URL"),
        ("line 7: gitlab.com/x/y", "not owner/name or a GitHub URL"),
    ]


def census(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``census ARGS`` as a user runs it."""
    return subprocess.run([sys.executable, "-m", "pipeline", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_command_writes_a_manifest_that_pin_can_read(tmp_path: Path) -> None:
    with serving(Registry(ITEMS, wrapped=True)) as registry:
        done = census("discover", "--registry", registry.url, "--out", "manifests/reg.toml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "manifests/reg.toml: 3 repositories, 2 servers left out"
    loaded = manifest.load(tmp_path / "manifests" / "reg.toml")
    assert (loaded.name, [e.repo for e in loaded.repos]) == ("reg", ["acme/monorepo", "solo/one", "solo/two"])
    (tmp_path / "list.txt").write_text("acme/one\nacme/two\n")
    done = census("discover", "--from-file", "list.txt", "--out", "l.toml", "--name", "picks", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert manifest.load(tmp_path / "l.toml").name == "picks"


def test_the_command_fails_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    with serving(Registry(ITEMS)) as registry:
        registry.fail("html", times=10)
        done = census("discover", "--registry", registry.url, "--out", "reg.toml", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip() == f"census: error: discover: {registry.url}/v0/servers: the answer is not JSON"
    assert not (tmp_path / "reg.toml").exists()
    done = census("discover", "--out", "reg.toml", cwd=tmp_path)
    assert done.returncode == 2
    assert "give one of --registry URL, --registry-file FILE, --from-file LIST or --from-captures" in done.stderr


def test_a_page_too_large_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discover, "MAX_PAGE_BYTES", 100)  # a real page is far below the default 32 MiB
    with serving(Registry(ITEMS)) as registry, pytest.raises(SourceError, match="a page of more than 100 bytes"):
        discover.from_registry(registry.url, FAST)


def _dump(tmp_path: Path, body: Any) -> Path:
    path = tmp_path / "dump.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    return path


SEED = [server("io.github.acme/notes", "https://github.com/acme/monorepo"),
        {"id": "", "name": "", "description": "", "repository": {"url": "", "source": "", "id": ""}},
        server("io.github.solo/one", "https://github.com/solo/one")]


@pytest.mark.parametrize("shape", ["seed list", "one answer", "list of pages"])
def test_a_dump_gives_the_manifest_its_registry_gives(tmp_path: Path, shape: str) -> None:
    """The seed's list of servers, one saved /v0/servers answer and a list of pages: the same
    entries as the live registry, a nameless item left out by its position."""
    pages = [{"servers": SEED[:2], "metadata": {"nextCursor": "2"}}, {"servers": SEED[2:]}]
    body: Any = {"seed list": SEED, "one answer": {"servers": SEED, "metadata": {}}, "list of pages": pages}[shape]
    found = from_dump(_dump(tmp_path, body))
    with serving(Registry(SEED)) as registry:
        live = discover.from_registry(registry.url, FAST)
    assert [(e.repo, e.servers) for e in found.entries] == [(e.repo, e.servers) for e in live.entries] == [
        ("acme/monorepo", ("io.github.acme/notes",)), ("solo/one", ("io.github.solo/one",))]
    where = "page 1 item 2" if shape == "list of pages" else "item 2"
    assert [(s.name, s.reason) for s in found.left_out] == [
        (f"{where} (unnamed)", "no source repository (remote or package only)")]


@pytest.mark.parametrize(("body", "message"), [
    ("[1, 2", "not JSON"),
    ('"servers"', "a string, not a list of servers or a registry answer"),
    ('{"servers": 3}', 'has no "servers" list'),
    ('[{"name": "a"}, 7]', "item 2: not a server object but a number"),
    ('[{"name": "a", "repository": "https://github.com/a/b"}]', 'item 1: "repository" is a string, not an object'),
    ('[{"servers": []}, {"name": "a"}]', "item 1: a page among servers"),
    ('[{"servers": [{"server": []}]}]', 'page 1 item 1: "server" is a list, not an object'),
])
def test_a_bad_dump_is_one_line_naming_the_file_and_item(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "dump.json"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(RegistryDumpError) as raised:
        from_dump(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)
    done = subprocess.run([sys.executable, "-m", "pipeline", "discover", "--registry-file", str(path),
                           "--out", str(tmp_path / "out.toml")], check=False, capture_output=True, text=True)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out.toml").exists()
