"""A community package catalog read as a registry (``census probe-registry --registry-file DIR``).

Some community registries keep one JSON file per server rather than a list: a checkout whose
``packages/<category>/<server>.json`` each hold ``packageName`` (the npm or PyPI name),
``runtime`` (``node``, ``python``, ``go``, ``java``...), ``url`` (the source repository),
``env`` (``{NAME: {"description": ..., "required": ...}}``) and ``name``; a ``url`` to a folder
of a repository (``.../tree/REF/FOLDER``) names the server's subfolder; the
toolsdk-ai/awesome-mcp-registry checkout is one. :func:`items` gives each as a server object of
the launch seed's shape, so the probe reads it as it reads the seed: ``node`` becomes an npm
package, ``python`` a PyPI one, any other runtime a package of that runtime (which the probe,
starting only npm and PyPI packages, leaves out). The server's name is the file's path under
``packages/`` without ``.json``, which is unique in the checkout.

A file that is not such an object is a :class:`RegistryDumpError` naming it; files of another
``type`` (not ``mcp-server``) and the folders' READMEs are passed over.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pipeline.errors import RegistryDumpError

#: the catalog's runtimes that the probe installs, as the registry names their package registries
RUNTIMES = {"node": "npm", "python": "pypi"}
#: a repository's folder on GitHub (``https://github.com/OWNER/NAME/tree/REF/FOLDER``): the server's subfolder
TREE_URL = re.compile(r"^(?P<repository>https?://(?:www\.)?github\.com/[^/]+/[^/]+)/(?:tree|blob)/[^/]+/"
                      r"(?P<folder>[^?#]+?)/*(?:[?#].*)?$")
#: a catalog file is small; more than this is not one
MAX_FILE_BYTES = 1 << 20


def is_catalog(path: Path) -> bool:
    """Whether ``path`` is a catalog checkout (a folder with ``packages/``)."""
    return path.is_dir() and (path / "packages").is_dir()


def items(folder: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, server object) for every server file of the catalog at ``folder``, in path order."""
    root = folder / "packages"
    for path in sorted(root.rglob("*.json")):
        try:
            data = path.read_bytes()[: MAX_FILE_BYTES + 1]
        except OSError as exc:
            raise RegistryDumpError(f"{path}: not a catalog entry: {exc}") from None
        yield from item(str(path), path.relative_to(root).with_suffix("").as_posix(), data)


def item(path: str, where: str, data: bytes) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, server object) of one catalog file's bytes, read from ``path`` (none for another ``type``)."""
    entry = _load(path, data)
    if entry.get("type", "mcp-server") == "mcp-server":
        yield where, _server(path, where, entry)


def _load(path: str, data: bytes) -> dict[str, Any]:
    try:
        entry = json.loads(data) if len(data) <= MAX_FILE_BYTES else None
    except ValueError as exc:
        raise RegistryDumpError(f"{path}: not a catalog entry: {exc}") from None
    if not isinstance(entry, dict):
        raise RegistryDumpError(f"{path}: not a catalog entry: not a JSON object of at most {MAX_FILE_BYTES} bytes")
    return entry


def _server(path: str, where: str, entry: dict[str, Any]) -> dict[str, Any]:
    """The entry as a server object of the launch seed's shape."""
    name, runtime = entry.get("packageName"), entry.get("runtime")
    if not isinstance(name, str) or not name.strip() or not isinstance(runtime, str):
        raise RegistryDumpError(f"{path}: a catalog entry needs a packageName and a runtime (strings)")
    env = entry.get("env", {}) if entry.get("env") is not None else {}
    if not isinstance(env, dict) or not all(isinstance(v, dict | str) for v in env.values()):
        raise RegistryDumpError(f"{path}: \"env\" is not an object of variables")
    variables = [{"name": str(key), "description": str(value.get("description") or "") if isinstance(value, dict)
                  else value, **({"is_required": value["required"]} if isinstance(value, dict) and
                                 isinstance(value.get("required"), bool) else {})}
                 for key, value in env.items()]
    server: dict[str, Any] = {"name": where, "packages": [{"registry_name": RUNTIMES.get(runtime, runtime),
                                                           "name": name.strip(), "environment_variables": variables}]}
    if isinstance(entry.get("url"), str) and entry["url"].strip():
        url = entry["url"].strip()
        folder = TREE_URL.match(url)
        server["repository"] = {"url": folder["repository"], "source": "github", "subfolder": folder["folder"]} \
            if folder else {"url": url, "source": "github"}
    return server
