"""A loopback git host: git's own ``http-backend`` behind a threaded HTTP server, with faults.

Every repository under ``root`` (``OWNER/NAME.git``, bare) is served over git's smart HTTP
protocol at ``{url}/OWNER/NAME.git``, as GitHub serves its repositories. Every request is recorded
with its headers; :meth:`GitHost.fail` queues faults for the requests whose path holds a given
part (``info/refs``, ``git-upload-pack``), one per request: ``503`` and ``429`` answer that status,
``cut`` sends the headers and half the body, then closes the connection (a connection cut
mid-pack).
"""

from __future__ import annotations

import subprocess
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Seen:
    """One request the host received."""

    method: str
    path: str
    headers: dict[str, str]


class GitHost:
    """Serves the bare repositories under ``root`` until closed."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.seen: list[Seen] = []
        self.sent_bytes = 0
        """the bytes of every answer's body sent so far (what a client downloaded)."""
        self._faults: dict[str, deque[str]] = {}
        self._lock = threading.Lock()
        host = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return

            def do_GET(self) -> None:
                host._serve(self, b"")

            def do_POST(self) -> None:
                host._serve(self, _body(self))

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """The host's root, as ``--git-url`` takes it."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def fail(self, part: str, kind: str, times: int = 1) -> None:
        """Make the next ``times`` requests whose path holds ``part`` misbehave as ``kind``."""
        with self._lock:
            self._faults.setdefault(part, deque()).extend([kind] * times)

    def close(self) -> None:
        """Stop serving."""
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> GitHost:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _fault(self, path: str) -> str | None:
        with self._lock:
            for part, queue in self._faults.items():
                if part in path and queue:
                    return queue.popleft()
        return None

    def _serve(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        split = urlsplit(handler.path)
        self.seen.append(Seen(handler.command, split.path, {k.lower(): v for k, v in handler.headers.items()}))
        fault = self._fault(split.path)
        if fault in ("503", "429"):
            _reply(handler, int(fault), b"try later\n", {"Content-Type": "text/plain"})
            return
        env = {"GIT_PROJECT_ROOT": str(self.root), "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": split.path,
               "QUERY_STRING": split.query, "REQUEST_METHOD": handler.command, "REMOTE_ADDR": "127.0.0.1",
               "CONTENT_TYPE": handler.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
               "HTTP_CONTENT_ENCODING": handler.headers.get("Content-Encoding", ""),
               "HTTP_GIT_PROTOCOL": handler.headers.get("Git-Protocol", ""), "PATH": "/usr/bin:/bin",
               "GIT_CONFIG_NOSYSTEM": "1"}
        done = subprocess.run(["git", "http-backend"], input=body, capture_output=True, env=env, check=False)
        head, _, payload = done.stdout.partition(b"\r\n\r\n")
        headers, status = {}, 200
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            elif name:
                headers[name.strip()] = value.strip()
        cut = len(payload) // 2 if fault == "cut" else None
        with self._lock:
            self.sent_bytes += len(payload) if cut is None else cut
        _reply(handler, status, payload, headers, cut=cut)


def _body(handler: BaseHTTPRequestHandler) -> bytes:
    """The request's body, chunked or not."""
    if handler.headers.get("Transfer-Encoding", "").lower() != "chunked":
        return handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
    parts = []
    while size := int(handler.rfile.readline().strip().split(b";")[0] or b"0", 16):
        parts.append(handler.rfile.read(size))
        handler.rfile.readline()
    handler.rfile.readline()
    return b"".join(parts)


def _reply(handler: BaseHTTPRequestHandler, status: int, payload: bytes, headers: dict[str, str],
           cut: int | None = None) -> None:
    handler.send_response(status)
    for name, value in headers.items():
        if name.lower() not in ("content-length", "transfer-encoding"):
            handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload if cut is None else payload[:cut])
    handler.wfile.flush()
    if cut is not None:
        handler.close_connection = True
        handler.connection.shutdown(2)
