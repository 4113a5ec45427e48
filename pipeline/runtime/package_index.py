"""Which version of a package to install, and when it was released: asked of npm and PyPI.

- npm: the package document, ``GET {npm_registry}/{name}`` (``@scope%2fname``): its
  ``versions``, ``dist-tags.latest`` and ``time`` (each version's release date);
- PyPI: the JSON simple API (PEP 691, with PEP 700's ``versions`` and ``upload-time``),
  ``GET {pypi_index}/{normalized-name}/``: a version's release date is its first file's upload,
  its ``Requires-Python`` its files' ``requires-python``.

A package or version the index lacks is a :class:`PackageError` naming it and what the
index has instead; it becomes a skipped capture, never a stop. Only these hosts are asked,
and no credential is ever sent.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import requests
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

from pipeline import __version__
from pipeline.errors import CensusError
from pipeline.runtime.packages import NPM, Package

DEFAULT_NPM_REGISTRY = "https://registry.npmjs.org"
DEFAULT_PYPI_INDEX = "https://pypi.org/simple"
#: environment variables for the two hosts
ENV = {"npm_registry": "CENSUS_NPM_REGISTRY", "pypi_index": "CENSUS_PYPI_INDEX"}
PYPI_JSON = "application/vnd.pypi.simple.v1+json"
#: an npm name: lower case, optionally scoped; a PyPI name: PEP 508's
NPM_NAME = re.compile(r"^(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9._~-][a-z0-9._~-]*$")
PYPI_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$")
TIMEOUT = (10, 60)


class PackageError(CensusError):
    """The index has no such package or version, or answered something else; the message says which."""


@dataclass(frozen=True)
class Hosts:
    """The package indexes asked and installed from."""

    npm_registry: str = DEFAULT_NPM_REGISTRY
    """``CENSUS_NPM_REGISTRY``."""
    pypi_index: str = DEFAULT_PYPI_INDEX
    """a PEP 503/691 simple index (``CENSUS_PYPI_INDEX``)."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Hosts:
        """The hosts the environment names (defaults otherwise)."""
        environ = os.environ if environ is None else environ
        return cls(**{f: environ[v].rstrip("/") for f, v in ENV.items() if environ.get(v, "").strip()})


@dataclass(frozen=True)
class Release:
    """The version that will be installed, and its release date (None where the index gives none)."""

    version: str
    released_at_utc: datetime | None
    newest: str
    """the index's newest version, for the record."""
    requires_python: str | None = None
    """the version's ``Requires-Python`` (PyPI's ``requires-python`` of its files; None for npm or where not given)."""


def resolve(package: Package, hosts: Hosts, *, latest: bool = False) -> Release:
    """The version of ``package`` to install: the registry entry's, or the newest (``latest``,
    or an entry without one); ``PackageError`` when the index lacks it."""
    if package.registry == NPM:
        return _npm(package, hosts, latest)
    return _pypi(package, hosts, latest)


def _npm(package: Package, hosts: Hosts, latest: bool) -> Release:
    if not NPM_NAME.match(package.name):
        raise PackageError(f"{package.name!r} is not an npm package name (a GitHub shorthand is not installed)")
    document = _get(f"{hosts.npm_registry}/{quote(package.name, safe='@')}", package, "npm registry")
    versions = document.get("versions")
    tags = document.get("dist-tags")
    newest = tags.get("latest") if isinstance(tags, Mapping) else None
    if not isinstance(versions, Mapping) or not versions or not isinstance(newest, str):
        raise PackageError(f"the npm registry lists no version of {package.name}")
    version = newest if latest or package.version is None else package.version
    if version not in versions:
        raise PackageError(f"the npm registry has no version {version} of {package.name} (newest: {newest})")
    times = document.get("time")
    stamp = times.get(version) if isinstance(times, Mapping) else None
    return Release(version, _when(stamp), newest)


def _pypi(package: Package, hosts: Hosts, latest: bool) -> Release:
    if not PYPI_NAME.match(package.name):
        raise PackageError(f"{package.name!r} is not a PyPI project name")
    document = _get(f"{hosts.pypi_index}/{canonicalize_name(package.name)}/", package, "PyPI index",
                    {"Accept": PYPI_JSON})
    files = [f for f in document.get("files") or () if isinstance(f, Mapping) and not f.get("yanked")]
    released: dict[Version, datetime | None] = {}
    for file in files:
        version = _file_version(str(file.get("filename", "")))
        if version is not None:
            stamp = _when(file.get("upload-time"))
            earlier = released.get(version)
            released[version] = stamp if earlier is None or (stamp is not None and stamp < earlier) else earlier
    final = sorted(v for v in released if not v.is_prerelease) or sorted(released)
    if not final:
        raise PackageError(f"the PyPI index lists no file of {package.name}")
    newest = final[-1]
    wanted = newest if latest or package.version is None else _version(package.version)
    if wanted is None or wanted not in released:
        raise PackageError(f"the PyPI index has no version {package.version} of {package.name} (newest: {newest})")
    requires = [str(f["requires-python"]) for f in files if f.get("requires-python")
                and _file_version(str(f.get("filename", ""))) == wanted]
    return Release(str(wanted), released[wanted], str(newest), requires[0] if requires else None)


def git_head(package: Package, version: str, hosts: Hosts) -> str | None:
    """The commit npm's metadata says ``version`` of an npm ``package`` was published from
    (``gitHead``), or None: none recorded, or a PyPI package (its index records none)."""
    if package.registry != NPM or not NPM_NAME.match(package.name):
        return None
    document = _get(f"{hosts.npm_registry}/{quote(package.name, safe='@')}", package, "npm registry")
    versions = document.get("versions")
    entry = versions.get(version) if isinstance(versions, Mapping) else None
    head = entry.get("gitHead") if isinstance(entry, Mapping) else None
    return head.strip().lower() if isinstance(head, str) and head.strip() else None


def _get(url: str, package: Package, host: str, headers: Mapping[str, str] | None = None) -> Mapping[str, Any]:
    try:
        response = requests.get(url, headers={"User-Agent": f"mcp-annotation-census/{__version__}", **(headers or {})},
                                timeout=TIMEOUT)
    except requests.RequestException as exc:
        raise PackageError(f"the {host} could not be reached for {package.name}: {type(exc).__name__}") from None
    if response.status_code == 404:
        raise PackageError(f"the {host} has no package {package.name} (HTTP 404)")
    if response.status_code != 200:
        raise PackageError(f"the {host} answered HTTP {response.status_code} for {package.name}")
    try:
        body = response.json()
    except ValueError:
        raise PackageError(f"the {host} answered {package.name} with something that is not JSON") from None
    if not isinstance(body, Mapping):
        raise PackageError(f"the {host} answered {package.name} with JSON that is not an object")
    return body


def _file_version(filename: str) -> Version | None:
    try:
        if filename.endswith(".whl"):
            return parse_wheel_filename(filename)[1]
        return parse_sdist_filename(filename)[1]
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        return None


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _when(stamp: Any) -> datetime | None:
    if not isinstance(stamp, str):
        return None
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
