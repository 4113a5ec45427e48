"""Loopback npm and PyPI hosts serving small synthetic packages, for ``census probe-registry``.

One HTTP server answers both:

- npm: ``GET /npm/<name>`` (``@scope%2fname``) is the package document (``versions``,
  ``dist-tags``, ``time``), ``GET /npm-tarballs/<file>`` the ``.tgz``;
- PyPI: ``GET /simple/<name>/`` is the PEP 691 JSON page (files with ``upload-time``),
  ``GET /files/<wheel>`` the wheel.

Packages are built here from text: an npm tarball (``package/package.json`` and its scripts)
and a wheel (its modules, ``*.dist-info`` with ``METADATA``, ``WHEEL``, ``entry_points.txt``
and ``RECORD``). Every request's headers are kept, so a test can check what was sent.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import unquote

from loopback import serving_handler

RELEASED = "2025-04-01T12:00:00.000Z"


@dataclass
class Hosts:
    """What the loopback hosts serve, and what they were asked."""

    npm: dict[str, dict[str, Any]] = field(default_factory=dict)
    tarballs: dict[str, bytes] = field(default_factory=dict)
    pypi: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    wheels: dict[str, bytes] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    url: str = ""

    @property
    def npm_registry(self) -> str:
        return f"{self.url}/npm"

    @property
    def pypi_index(self) -> str:
        return f"{self.url}/simple"

    def add_npm(self, name: str, version: str, files: Mapping[str, str], *, bin_: Any = None,
                released: str = RELEASED, repository: Any = None, engines: Mapping[str, str] | None = None) -> None:
        """Publish ``name@version`` whose tarball holds ``files`` (paths under ``package/``)."""
        manifest = {"name": name, "version": version, "bin": bin_, "repository": repository,
                    **({"engines": dict(engines)} if engines else {})}
        archive = _tarball({"package.json": json.dumps(manifest), **files})
        file = f"{name.replace('/', '-')}-{version}.tgz"
        self.tarballs[file] = archive
        document = self.npm.setdefault(name, {"name": name, "versions": {}, "dist-tags": {}, "time": {}})
        integrity = "sha512-" + base64.b64encode(hashlib.sha512(archive).digest()).decode()
        document["versions"][version] = {**manifest, "dist": {
            "tarball": f"{self.url}/npm-tarballs/{file}", "shasum": hashlib.sha1(archive).hexdigest(),
            "integrity": integrity}}
        document["dist-tags"]["latest"] = version
        document["time"].update({version: released, "created": released, "modified": released})

    def add_wheel(self, name: str, version: str, modules: Mapping[str, str], scripts: Mapping[str, str], *,
                  released: str = RELEASED, urls: Mapping[str, str] | None = None,
                  requires_python: str = ">=3.8", requires: tuple[str, ...] = ()) -> None:
        """Publish a wheel of ``name==version`` holding ``modules`` with console ``scripts``,
        ``Project-URL`` entries ``urls`` (label -> URL), ``Requires-Python`` and ``Requires-Dist`` ``requires``."""
        normal = name.replace("-", "_")
        file = f"{normal}-{version}-py3-none-any.whl"
        wheel = _wheel(normal, version, modules, scripts, urls=urls or {}, requires_python=requires_python,
                       requires=requires)
        self.wheels[file] = wheel
        self.pypi.setdefault(name, []).append({
            "filename": file, "url": f"{self.url}/files/{file}",
            "hashes": {"sha256": hashlib.sha256(wheel).hexdigest()},
            "upload-time": released, "requires-python": requires_python, "yanked": False})


def _tarball(files: Mapping[str, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path, text in files.items():
            data = text.encode()
            member = tarfile.TarInfo(f"package/{path}")
            member.size, member.mode, member.mtime = len(data), 0o755, 1_700_000_000
            archive.addfile(member, io.BytesIO(data))
    return buffer.getvalue()


def _wheel(normal: str, version: str, modules: Mapping[str, str], scripts: Mapping[str, str], *,
           urls: Mapping[str, str], requires_python: str, requires: tuple[str, ...] = ()) -> bytes:
    info = f"{normal}-{version}.dist-info"
    links = "".join(f"Project-URL: {label}, {url}\n" for label, url in urls.items())
    files = {**modules,
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {normal}\nVersion: {version}\n"
                                 f"Requires-Python: {requires_python}\n{links}"
                                 + "".join(f"Requires-Dist: {r}\n" for r in requires),
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: census-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
             f"{info}/entry_points.txt": "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items())}
    record = "".join(
        f"{path},sha256={base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b'=').decode()},"
        f"{len(text.encode())}\n" for path, text in files.items()) + f"{info}/RECORD,,\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, text in {**files, f"{info}/RECORD": record}.items():
            archive.writestr(path, text)
    return buffer.getvalue()


def _handler(hosts: Hosts) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: Any) -> None:
            pass

        def do_HEAD(self) -> None:
            self._head = True
            self.do_GET()

        def do_GET(self) -> None:
            hosts.requests.append((self.path, dict(self.headers.items())))
            path = unquote(self.path.split("?", 1)[0])
            if path.startswith("/npm/") and path[5:] in hosts.npm:
                self._send(json.dumps(hosts.npm[path[5:]]).encode(), "application/json")
            elif path.startswith("/npm-tarballs/") and path[14:] in hosts.tarballs:
                self._send(hosts.tarballs[path[14:]], "application/octet-stream")
            elif path.startswith("/simple/") and path[8:].strip("/") in hosts.pypi:
                name = path[8:].strip("/")
                versions = sorted({f["filename"].split("-")[1] for f in hosts.pypi[name]})
                body = {"meta": {"api-version": "1.1"}, "name": name, "versions": versions, "files": hosts.pypi[name]}
                self._send(json.dumps(body).encode(), "application/vnd.pypi.simple.v1+json")
            elif path.startswith("/files/") and path[7:] in hosts.wheels:
                self._send(hosts.wheels[path[7:]], "application/octet-stream")
            else:
                self._send(b'{"error": "Not found"}', "application/json", 404)

        def _send(self, body: bytes, kind: str, status: int = 200) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not getattr(self, "_head", False):
                self.wfile.write(body)

    return Handler


@contextmanager
def serve() -> Iterator[Hosts]:
    """A running pair of loopback package hosts."""
    hosts = Hosts()
    with serving_handler(_handler(hosts)) as url:
        hosts.url = url
        yield hosts
