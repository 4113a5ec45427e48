"""Registry dumps read from a file (``census discover --registry-file FILE``).

Three shapes are read, all JSON:

- a list of server objects, as the registry's seed (``data/seed_2025_05_16.json``);
- one saved list answer, ``{"servers": [...], "metadata": {...}}`` (``/v0`` or ``/v0.1``);
- a list of such answers, one per page.

Items are read as :func:`pipeline.manifest.discover.listed` reads a live page's, and grouped the same way,
so a dump and the registry it was saved from give the same manifest. A server with no
repository is left out with its reason, named by its position when it has no name. A dump of
any other shape is a :class:`RegistryDumpError` naming the file, and the page and item.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pipeline.errors import RegistryDumpError
from pipeline.manifest.discover import Discovered, Listed, group, listed

#: a dump is read whole; the registry's full list is a few MB
MAX_DUMP_BYTES = 256 << 20


def from_dump(path: Path) -> Discovered:
    """Every server of the dump at ``path``, grouped by repository."""
    return group(servers(path), str(path))


def items(path: Path, *, with_packages: bool = False) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, item) of each server object of the dump, in order; ``RegistryDumpError`` for a dump
    of no known shape, or an item, ``server`` or ``repository`` (and with ``with_packages``, a
    ``packages`` and its items) of the wrong kind."""
    for where, item in _items(path, _load(path)):
        if not isinstance(item, dict):
            raise RegistryDumpError(f"{path}: {where}: not a server object but {_kind(item)}")
        server = item.get("server", item)
        if not isinstance(server, dict):
            raise RegistryDumpError(f"{path}: {where}: \"server\" is {_kind(server)}, not an object")
        repository = server.get("repository")
        if repository is not None and not isinstance(repository, dict):
            raise RegistryDumpError(f"{path}: {where}: \"repository\" is {_kind(repository)}, not an object")
        if with_packages:
            _check_packages(path, where, server.get("packages"))
        yield where, item


def _check_packages(path: Path, where: str, packages: Any) -> None:
    if packages is not None and not isinstance(packages, list):
        raise RegistryDumpError(f"{path}: {where}: \"packages\" is {_kind(packages)}, not a list")
    for number, package in enumerate(packages or (), start=1):
        if not isinstance(package, dict):
            raise RegistryDumpError(f"{path}: {where}: package {number} is {_kind(package)}, not an object")


def servers(path: Path) -> Iterator[Listed]:
    """The dump's servers, in order; ``RegistryDumpError`` for a dump of no known shape."""
    for where, item in items(path):
        server = item.get("server", item)
        found = listed(item)
        yield found if server.get("name") else Listed(f"{where} (unnamed)", found.repo, found.subfolder, found.reason)


def _load(path: Path) -> Any:
    try:
        with path.open("rb") as file:
            data = file.read(MAX_DUMP_BYTES + 1)
    except OSError as exc:
        raise RegistryDumpError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_DUMP_BYTES:
        raise RegistryDumpError(f"{path}: more than {MAX_DUMP_BYTES} bytes; not a registry dump")
    try:
        return json.loads(data)
    except ValueError as exc:
        raise RegistryDumpError(f"{path}: not JSON ({exc})") from None


def _items(path: Path, body: Any) -> Iterator[tuple[str, Any]]:
    """(where, item) of every server: ``item N`` of a bare list, ``page P item N`` of pages."""
    if isinstance(body, dict):
        yield from _page_items(path, body, "")
    elif isinstance(body, list) and body and all(_is_page(page) for page in body):
        for number, page in enumerate(body, start=1):
            yield from _page_items(path, page, f"page {number} ")
    elif isinstance(body, list):
        pages = [n for n, page in enumerate(body, start=1) if _is_page(page)]
        if pages:
            raise RegistryDumpError(f"{path}: item {pages[0]}: a page among servers; "
                                    "give a list of servers or a list of pages")
        yield from ((f"item {number}", item) for number, item in enumerate(body, start=1))
    else:
        raise RegistryDumpError(f"{path}: {_kind(body)}, not a list of servers or a registry answer")


def _page_items(path: Path, page: dict[str, Any], where: str) -> Iterator[tuple[str, Any]]:
    items = page.get("servers")
    if not isinstance(items, list):
        raise RegistryDumpError(f"{path}: {where or 'the answer '}has no \"servers\" list")
    yield from ((f"{where}item {number}", item) for number, item in enumerate(items, start=1))


def _is_page(value: Any) -> bool:
    return isinstance(value, dict) and "servers" in value and "name" not in value


def _kind(value: Any) -> str:
    kinds = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return kinds.get(type(value), "a number")
