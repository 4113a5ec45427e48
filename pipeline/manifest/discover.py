"""Build a manifest from the official MCP registry, or from a list of repositories.

The registry's read API lists servers page by page::

    GET {registry}/v0/servers?limit=100[&cursor=...]  ->  {"servers": [...], "metadata": {"nextCursor": ...}}

``/v0.1/servers`` is read when the registry has no ``v0``, and a versioned root such as
``https://host/v0.1`` is read as given.

Each item is a server (``server.json``), bare or wrapped as ``{"server": {...}, "_meta": ...}``
(the v0.1 shape). A server's ``repository.url`` on GitHub becomes the entry's ``repo`` and its
``repository.subfolder`` one of its ``server_paths``; several servers (and every version of
one) in one repository make one entry that keeps all their names. Servers without a GitHub
repository are not lost: the manifest lists them in a comment, each with its reason. The
entries are unpinned; ``census pin`` resolves their commits.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import requests
import tomlkit

from pipeline import __version__
from pipeline.errors import SourceError, TransportError
from pipeline.settings import Settings

#: a GitHub repository URL in any of the forms server.json files use
GITHUB_URL = re.compile(
    r"^(?:git\+)?(?:https?://|ssh://git@|git@)(?:www\.)?github\.com[/:]"
    r"(?P<owner>[A-Za-z0-9][A-Za-z0-9-]*)/(?P<name>[A-Za-z0-9._-]+?)(?:\.git)?/*(?:[?#].*)?$"
)
REPO_LINE = re.compile(r"^(?P<owner>[A-Za-z0-9][A-Za-z0-9-]*)/(?P<name>[A-Za-z0-9._-]+)$")
PAGE_LIMIT = 100
#: pages read at most (100 servers each): a registry that never stops paginating is an error
MAX_PAGES = 10_000
#: the read API's versions, in the order tried when the registry URL names none
API_VERSIONS = ("/v0", "/v0.1")
#: bytes of one page read at most: a registry that sends an endless body is an error
MAX_PAGE_BYTES = 32 << 20


class _NotFound(SourceError):
    """The registry has no such list (another API version may)."""


@dataclass(frozen=True)
class Listed:
    """One registry server (or list line): its repository, or why it has none to count."""

    name: str
    repo: str | None
    subfolder: str | None = None
    reason: str | None = None
    """why ``repo`` is ``None``."""


@dataclass(frozen=True)
class Candidate:
    """One manifest entry to write: a repository and every server found in it."""

    repo: str
    server_paths: tuple[str, ...]
    servers: tuple[str, ...]


@dataclass(frozen=True)
class Discovered:
    """What a discovery found: entries in first-seen order, and what was left out."""

    entries: tuple[Candidate, ...]
    left_out: tuple[Listed, ...]
    source: str
    """the registry URL or list file it came from."""


def from_registry(registry: str, settings: Settings) -> Discovered:
    """Every server of the registry at ``registry``, grouped by repository."""
    return group((listed(item) for page in registry_pages(registry, settings) for item in page), registry)


def from_lines(lines: Iterable[str], source: str) -> Discovered:
    """Entries from ``owner/name`` lines (or GitHub URLs); blank lines and ``#`` comments skipped."""
    found = []
    for number, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip() if not raw.strip().startswith("http") else raw.strip()
        if line:
            found.append(_line(line, f"line {number}"))
    return group(found, source)


def registry_pages(registry: str, settings: Settings) -> Iterator[list[dict[str, Any]]]:
    """The ``servers`` arrays of the registry's pages, following ``nextCursor``.

    ``registry`` is the registry's root (``/v0/servers`` is read, and ``/v0.1/servers`` when
    the root has no ``v0``) or a versioned root such as ``https://host/v0.1``.
    """
    with requests.Session() as session:
        session.trust_env = False
        session.headers["User-Agent"] = f"mcp-annotation-census/{__version__}"
        url, first = _first_page(session, registry, settings)
        yield from _pages(session, url, first, settings)


def _first_page(session: requests.Session, registry: str, settings: Settings) -> tuple[str, Any]:
    """The list URL the registry answers, and its first page."""
    root = registry.rstrip("/")
    urls = [f"{root}/servers"] if root.endswith(API_VERSIONS) else [f"{root}{v}/servers" for v in API_VERSIONS]
    for url in urls:
        try:
            return url, _get_json(session, url, {"limit": str(PAGE_LIMIT)}, settings)
        except _NotFound:
            continue
    raise SourceError(f"{urls[0]}: HTTP 404" + (f" (and {', '.join(urls[1:])})" if urls[1:] else ""))


def _pages(session: requests.Session, url: str, body: Any, settings: Settings) -> Iterator[list[dict[str, Any]]]:
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        yield _servers(body, url)
        cursor = _next_cursor(body)
        if not cursor or cursor in seen:
            return
        seen.add(cursor)
        body = _get_json(session, url, {"limit": str(PAGE_LIMIT), "cursor": cursor}, settings)
    raise SourceError(f"{url}: more than {MAX_PAGES} pages; stopped")


def listed(item: Any) -> Listed:
    """One registry item as a ``Listed`` server."""
    server = item.get("server", item) if isinstance(item, dict) else {}
    name = str(server.get("name") or "(unnamed)") if isinstance(server, dict) else "(not an object)"
    repository = server.get("repository") if isinstance(server, dict) else None
    url = repository.get("url") if isinstance(repository, dict) else None
    if not isinstance(url, str) or not url.strip():
        return Listed(name, None, reason="no source repository (remote or package only)")
    match = GITHUB_URL.match(url.strip())
    if match is None:
        return Listed(name, None, reason=f"repository not on GitHub: {url.strip()}")
    subfolder = repository.get("subfolder") if isinstance(repository, dict) else None
    folder = subfolder.strip().strip("/") if isinstance(subfolder, str) else ""
    return Listed(name, f"{match['owner']}/{match['name']}", folder or None)


def group(servers: Iterable[Listed], source: str) -> Discovered:
    """Servers grouped by repository (case-insensitive, first-seen order); the rest left out once each."""
    repos: dict[str, tuple[str, dict[str, None], dict[str, None]]] = {}
    left_out: dict[tuple[str, str | None], Listed] = {}
    for server in servers:
        if server.repo is None:
            left_out.setdefault((server.name, server.reason), server)
            continue
        _, paths, names = repos.setdefault(server.repo.lower(), (server.repo, {}, {}))
        names[server.name] = None
        if server.subfolder:
            paths[server.subfolder] = None
    entries = tuple(Candidate(repo, tuple(paths), tuple(names)) for repo, paths, names in repos.values())
    return Discovered(entries, tuple(left_out.values()), source)


def render(found: Discovered, name: str) -> str:
    """The manifest text: a ``[census]`` table, one ``[[repos]]`` per repository (unpinned), and a
    closing comment listing every server left out with its reason."""
    doc = tomlkit.document()
    doc.add(tomlkit.comment(f"Discovered by `census discover` from {found.source}: {len(found.entries)} repositories"))
    doc.add(tomlkit.comment("Unpinned: run `census pin` to resolve each entry to a commit."))
    doc.add(tomlkit.nl())
    census = tomlkit.table()
    census.update({"name": name, "description": f"Servers listed by {found.source}", "terms": "dialects"})
    doc.add("census", census)
    repos = tomlkit.aot()
    for entry in found.entries:
        table = tomlkit.table()
        table.add("repo", entry.repo)
        if entry.server_paths:
            table.add("server_paths", list(entry.server_paths))
        table.add("servers", list(entry.servers))
        repos.append(table)
    doc.add("repos", repos)
    text = tomlkit.dumps(doc)
    return text + "".join(_left_out_lines(found.left_out))


def _left_out_lines(left_out: tuple[Listed, ...]) -> Iterator[str]:
    if left_out:
        yield f"\n# Left out ({len(left_out)}): no GitHub repository to count\n"
    for server in left_out:
        yield f"# - {_one_line(server.name)}: {_one_line(server.reason or '')}\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


def _line(line: str, where: str) -> Listed:
    match = REPO_LINE.match(line) or GITHUB_URL.match(line)
    if match is None:
        return Listed(f"{where}: {line}", None, reason="not owner/name or a GitHub URL")
    repo = f"{match['owner']}/{match['name'].removesuffix('.git')}"
    return Listed(repo, repo)


def _get_json(session: requests.Session, url: str, params: dict[str, str], settings: Settings) -> Any:
    """One page, retried on connection errors and 5xx/429 with the settings' backoff."""
    reason = ""
    for attempt in range(settings.attempts):
        if attempt:
            time.sleep(min(settings.backoff_seconds * 2 ** (attempt - 1), settings.max_wait_seconds))
        try:
            with session.get(url, params=params, timeout=settings.timeout_seconds, stream=True) as response:
                if response.status_code >= 500 or response.status_code == 429:
                    reason = f"HTTP {response.status_code}"
                    continue
                return _decoded(response, url)
        except (requests.ConnectionError, requests.Timeout) as exc:
            reason = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    raise TransportError(f"{url}: {reason} (after {settings.attempts} attempts)")


def _decoded(response: requests.Response, url: str) -> Any:
    """The page's JSON, read up to ``MAX_PAGE_BYTES`` (a page of 100 servers is a few hundred KB)."""
    if response.status_code == 404:
        raise _NotFound(f"{url}: HTTP 404")
    if response.status_code != 200:
        raise SourceError(f"{url}: HTTP {response.status_code}")
    body = bytearray()
    for chunk in response.iter_content(1 << 16):
        body += chunk
        if len(body) > MAX_PAGE_BYTES:
            raise SourceError(f"{url}: a page of more than {MAX_PAGE_BYTES} bytes; stopped")
    try:
        return json.loads(body)
    except ValueError:
        raise SourceError(f"{url}: the answer is not JSON") from None


def _servers(body: Any, url: str) -> list[dict[str, Any]]:
    servers = body.get("servers") if isinstance(body, dict) else None
    if not isinstance(servers, list):
        raise SourceError(f"{url}: the answer has no \"servers\" list")
    return servers


def _next_cursor(body: dict[str, Any]) -> str | None:
    metadata = body.get("metadata")
    if not isinstance(metadata, dict):
        return None
    cursor = metadata.get("nextCursor", metadata.get("next_cursor"))
    return cursor if isinstance(cursor, str) and cursor else None
