"""A loopback stand-in for the GitHub endpoints the census uses, with fault injection.

Three threaded HTTP servers listen on 127.0.0.1, each on its own port (so their origins differ):

- the *API* answers ``GET /repos/{owner}/{name}/commits/{ref}`` (``Accept:
  application/vnd.github.sha``: the 40-hex SHA as text; ``HEAD`` is the default branch),
  ``GET /repos/{owner}/{name}/tarball/{commit}`` (a 302 to the codeload server) and
  ``POST /graphql`` (the aliased ``repository(owner:, name:)`` blocks of ``pipeline.fetch.graphql``:
  ``defaultBranchRef { target { oid } }`` or ``object(expression:)``, with ``NOT_FOUND`` errors;
  401 without a token);
- the *web* server answers the public archive URL ``GET /{owner}/{name}/archive/{commit}.tar.gz``
  (a 302 to the codeload server; 404 for a private repository);
- the *codeload* server answers ``GET /{owner}/{name}/legacy.tar.gz/{commit}`` and
  ``/{owner}/{name}/tar.gz/{commit}`` with the bytes.

Unknown repositories, refs and commits are 404. Every request to any server is recorded (with its
headers and the time it arrived), and :meth:`GitHubServer.fail` queues faults per request path,
consumed one per request: the next request to that path misbehaves instead of being served.
``GitHubServer.latency_seconds`` delays every answer, as a distant server would;
:meth:`GitHubServer.limit_rate` makes the API enforce an hourly budget per token, scaled down.
"""

from __future__ import annotations

import json
import re
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import cast
from urllib.parse import unquote, urlsplit

SHA_MEDIA_TYPE = "application/vnd.github.sha"
HTML_PAGE = b"<!DOCTYPE html><html><body><h1>Sign in to the network</h1></body></html>\n"
COMMITS = re.compile(r"^/repos/([^/]+)/([^/]+)/commits/([^/]+)$")
TARBALL = re.compile(r"^/repos/([^/]+)/([^/]+)/tarball/([^/]+)$")
CODELOAD = re.compile(r"^/([^/]+)/([^/]+)/(?:legacy\.)?tar\.gz/([^/]+)$")
PUBLIC_ARCHIVE = re.compile(r"^/([^/]+)/([^/]+)/archive/([0-9a-f]{40})\.tar\.gz$")
#: one aliased block of a GraphQL pin query: alias, owner variable, name variable, and the field asked
GRAPHQL_BLOCK = re.compile(
    r"(\w+)\s*:\s*repository\(\s*owner:\s*\$(\w+)\s*,\s*name:\s*\$(\w+)\s*\)\s*\{\s*"
    r"(defaultBranchRef|object\(\s*expression:\s*\$(\w+)\s*\))")


@dataclass(frozen=True)
class Fault:
    """One misbehaviour, used up by one request.

    ``kind`` is ``status`` (answer ``status`` with ``headers`` and a JSON error body that
    echoes the request's ``Authorization``, so a client quoting error bodies would leak it),
    ``reset`` (send the headers and half the body, then a TCP reset), ``truncate`` (promise the
    full Content-Length, send half, close cleanly), ``html`` (a 200 HTML page instead of the
    answer), ``loop`` (a 302 back to the same path), ``hang`` (accept, never answer), ``pause``
    (send half the body, wait for :meth:`GitHubServer.release`, then send the rest) or ``flood``
    (a 200 without Content-Length that streams zeros until the client hangs up).
    """

    kind: str
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()


def status(code: int, headers: Mapping[str, str] | None = None) -> Fault:
    """A fault answering HTTP ``code`` with ``headers`` (e.g. ``Retry-After``)."""
    return Fault("status", code, tuple((headers or {}).items()))


RESET, TRUNCATE, HTML, LOOP, HANG, PAUSE, FLOOD = (
    Fault(kind) for kind in ("reset", "truncate", "html", "loop", "hang", "pause", "flood")
)
#: the most a ``flood`` sends before giving up on a client that never hangs up
FLOOD_MAX_BYTES = 1 << 30


@dataclass(frozen=True)
class Recorded:
    """One request as a server saw it; header names are lower case."""

    server: str
    """``api``, ``web`` or ``codeload``."""
    path: str
    headers: Mapping[str, str]
    at: float = 0.0
    """when it arrived (``time.time()``)."""
    body: bytes = b""
    """what was posted (GraphQL queries)."""


@dataclass
class _Reply:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # server_close() joins every handler thread

    def __init__(self, owner: GitHubServer, name: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.owner, self.name = owner, name

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def handle_error(self, request: object, client_address: object) -> None:
        """Clients that hang up early are part of the tests: stay quiet."""


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as GitHub; every reply has a Content-Length

    def setup(self) -> None:
        super().setup()
        # headers and body go in two writes: without this, Nagle holds the body for the client's delayed ACK (40 ms)
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._server().owner._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self._server().owner._track(self.connection, add=False)

    def log_message(self, format: str, *args: object) -> None:
        """No access log on stderr."""

    def do_GET(self) -> None:
        self._answer(b"")

    def do_POST(self) -> None:
        length = self.headers.get("content-length", "0")
        self._answer(self.rfile.read(int(length)) if length.isdigit() else b"")

    def _answer(self, body: bytes) -> None:
        server = self._server()
        path = urlsplit(self.path).path
        headers = {k.lower(): v for k, v in self.headers.items()}
        owner = server.owner
        fault = owner._record_and_take(Recorded(server.name, path, headers, time.time(), body))
        if owner.latency_seconds > 0:
            owner._stopping.wait(owner.latency_seconds)
        limited = owner._spend(server.name, headers) if fault is None else None
        if limited is not None:
            self._send(limited)
            return
        reply = owner._graphql(headers, body) if self.command == "POST" else owner._route(server.name, path, headers)
        if server.name == "api":
            reply.headers.update(owner._budget_headers(headers))
        if fault is None:
            self._send(reply)
        elif fault.kind == "status":  # the body echoes the credentials, to catch a client quoting it
            echo = {"message": f"injected HTTP {fault.status}", "authorization": headers.get("authorization")}
            self._send(_Reply(fault.status, {"Content-Type": "application/json", **dict(fault.headers)},
                              json.dumps(echo).encode()))
        elif fault.kind == "html":
            self._send(_Reply(200, {"Content-Type": "text/html; charset=utf-8"}, HTML_PAGE))
        elif fault.kind == "loop":
            self._send(_Reply(302, {"Location": path}))
        elif fault.kind == "hang":
            server.owner._stopping.wait(30)
            self.close_connection = True
        elif fault.kind == "pause":
            self._pause(reply, server.owner)
        elif fault.kind == "flood":
            self._flood()
        else:  # reset or truncate: promise the whole body, deliver half
            self._send(reply, len(reply.body) // 2)
            self.close_connection = True
            if fault.kind == "reset":
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.rfile.close()
                self.connection.close()  # linger 0: the peer gets RST, not FIN

    def _pause(self, reply: _Reply, owner: GitHubServer) -> None:
        """Half the body, then the rest once the test releases paused requests (or the server stops)."""
        half = len(reply.body) // 2
        self._send(reply, half)
        self.wfile.flush()
        owner._paused.release()
        owner._resume.wait(60)
        with suppress(OSError):  # the client may have been killed meanwhile
            self.wfile.write(reply.body[half:])
        self.close_connection = True

    def _flood(self) -> None:
        """A body with no end but the client's patience: no Content-Length, closed by the client."""
        self.send_response(200)
        self.send_header("Content-Type", "application/x-gzip")
        self.send_header("Connection", "close")
        self.end_headers()
        block = bytes(1 << 16)
        with suppress(OSError):
            for _ in range(FLOOD_MAX_BYTES // len(block)):
                self.wfile.write(block)
        self.close_connection = True

    def _send(self, reply: _Reply, cut: int | None = None) -> None:
        """Send ``reply`` with its full Content-Length, but only ``cut`` bytes of its body if given."""
        self.send_response(reply.status)
        for name, value in {**reply.headers, "Content-Length": str(len(reply.body))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(reply.body[:cut])

    def _server(self) -> _Server:
        return cast(_Server, self.server)


class GitHubServer:
    """The API and codeload servers; use as a context manager (the pytest fixture does)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()  # the budget headers are read under it while a request is counted
        self._stopping = threading.Event()
        self._resume = threading.Event()
        self._paused = threading.Semaphore(0)
        self._open: set[socket.socket] = set()
        self._repos: dict[str, tuple[dict[str, bytes], dict[str, str], str]] = {}
        self._faults: dict[str, deque[Fault]] = {}
        self.requests: list[Recorded] = []
        """every request to either server, in arrival order."""
        self.latency_seconds = 0.0
        """seconds every answer waits before it is sent (0: none)."""
        self._servers = [_Server(self, "api"), _Server(self, "codeload"), _Server(self, "web")]
        self._private: set[str] = set()
        self._rate: tuple[int, float] | None = None
        self._spent: dict[tuple[str, int], int] = {}
        self.rate_limited_answers = 0
        """how many API requests were answered 403 for a spent budget (``limit_rate``)."""
        self._threads = [
            threading.Thread(target=s.serve_forever, kwargs={"poll_interval": 0.01}) for s in self._servers
        ]
        for thread in self._threads:
            thread.start()

    @property
    def api_url(self) -> str:
        """Root of the API, for ``Settings(api_url=...)`` and ``GITHUB_API_URL``."""
        return self._servers[0].url

    @property
    def codeload_url(self) -> str:
        """Root of the codeload server that tarball requests redirect to."""
        return self._servers[1].url

    @property
    def web_url(self) -> str:
        """Root of the web server whose public archive URLs redirect to codeload (``GITHUB_SERVER_URL``)."""
        return self._servers[2].url

    @property
    def graphql_url(self) -> str:
        """The GraphQL endpoint (``GITHUB_GRAPHQL_URL``; also what the client derives from the API root)."""
        return self.api_url + "/graphql"

    def limit_rate(self, requests: int, window_seconds: float) -> None:
        """Let each token (or no token) make ``requests`` API requests (REST and GraphQL) per window of
        ``window_seconds``, as GitHub's hourly budget scaled down; past it: 403 with
        ``X-RateLimit-Remaining: 0`` and the window's end as ``X-RateLimit-Reset``."""
        with self._lock:
            self._rate, self._spent = (requests, window_seconds), {}

    def add_repo(
        self, repo: str, archives: Mapping[str, bytes], branches: Mapping[str, str] | None = None,
        default_branch: str = "main", private: bool = False,
    ) -> None:
        """Serve ``repo``: ``archives`` maps commit -> tar.gz bytes; ``branches`` maps branch or
        tag -> commit (default: ``default_branch`` at the last commit of ``archives``); a
        ``private`` repository has no public archive URL."""
        refs = dict(branches) if branches is not None else {default_branch: list(archives)[-1]}
        with self._lock:
            self._repos[repo.lower()] = (dict(archives), refs, default_branch)
            (self._private.add if private else self._private.discard)(repo.lower())

    def fail(self, path: str, fault: Fault, times: int = 1) -> None:
        """Queue ``fault`` for the next ``times`` requests to ``path`` (after any queued ones)."""
        with self._lock:
            self._faults.setdefault(path, deque()).extend([fault] * times)

    def faults_left(self, path: str) -> int:
        """How many queued faults for ``path`` no request has used yet."""
        with self._lock:
            return len(self._faults.get(path, ()))

    def wait_paused(self, timeout: float = 60.0) -> bool:
        """Wait until a ``pause`` fault has sent its first half; whether one did within ``timeout``."""
        return self._paused.acquire(timeout=timeout)

    def release(self) -> None:
        """Let every paused request (and any later one) send the rest of its body."""
        self._resume.set()

    def requests_to(self, server: str) -> list[Recorded]:
        """The recorded requests to ``api``, ``web`` or ``codeload``."""
        with self._lock:
            return [r for r in self.requests if r.server == server]

    @staticmethod
    def commits_path(repo: str, ref: str) -> str:
        """The API path that resolves ``ref``."""
        return f"/repos/{repo}/commits/{ref}"

    @staticmethod
    def tarball_path(repo: str, commit: str) -> str:
        """The API path of the tarball of ``repo`` at ``commit`` (it redirects)."""
        return f"/repos/{repo}/tarball/{commit}"

    @staticmethod
    def codeload_path(repo: str, commit: str) -> str:
        """The codeload path that serves the bytes of the tarball."""
        return f"/{repo}/legacy.tar.gz/{commit}"

    @staticmethod
    def public_path(repo: str, commit: str) -> str:
        """The web server's public archive path of ``repo`` at ``commit`` (it redirects)."""
        return f"/{repo}/archive/{commit}.tar.gz"

    GRAPHQL_PATH = "/graphql"

    def close(self) -> None:
        """Stop both servers: release hung handlers, drop kept-alive connections, join threads."""
        self._stopping.set()
        self._resume.set()
        for server in self._servers:
            server.shutdown()
        with self._lock:
            still_open = list(self._open)
        for connection in still_open:
            with suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        for server, thread in zip(self._servers, self._threads, strict=True):
            thread.join()
            server.server_close()

    def __enter__(self) -> GitHubServer:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _track(self, connection: socket.socket, add: bool) -> None:
        with self._lock:
            (self._open.add if add else self._open.discard)(connection)

    def _record_and_take(self, request: Recorded) -> Fault | None:
        with self._lock:
            self.requests.append(request)
            queue = self._faults.get(request.path)
            return queue.popleft() if queue else None

    def _spend(self, server: str, headers: Mapping[str, str]) -> _Reply | None:
        """Count one API request against its token's window; the 403 to send once it is spent."""
        if server != "api" or self._rate is None:
            return None
        limit, window = self._rate
        key = (headers.get("authorization", ""), int(time.time() // window))
        with self._lock:
            used = self._spent.get(key, 0)
            if used >= limit:
                self.rate_limited_answers += 1
                return _Reply(403, {"Content-Type": "application/json", **self._budget_headers(headers)},
                              b'{"message": "API rate limit exceeded"}')
            self._spent[key] = used + 1
        return None

    def _budget_headers(self, headers: Mapping[str, str]) -> dict[str, str]:
        """``X-RateLimit-*`` of the token's current window (none when no budget is enforced)."""
        if self._rate is None:
            return {}
        limit, window = self._rate
        index = int(time.time() // window)
        with self._lock:
            used = self._spent.get((headers.get("authorization", ""), index), 0)
        reset = int((index + 1) * window + 0.999)  # GitHub gives whole epoch seconds
        return {"X-RateLimit-Limit": str(limit), "X-RateLimit-Remaining": str(max(0, limit - used)),
                "X-RateLimit-Reset": str(reset)}

    def _graphql(self, headers: Mapping[str, str], body: bytes) -> _Reply:
        """The answer to a pin query: each aliased block's commit, or ``null`` with a ``NOT_FOUND``."""
        if not headers.get("authorization"):
            return _Reply(401, {"Content-Type": "application/json"}, b'{"message": "Requires authentication"}')
        try:
            request = json.loads(body)
            query, variables = request["query"], request.get("variables") or {}
        except (ValueError, KeyError, TypeError):
            return _Reply(400, {"Content-Type": "application/json"}, b'{"message": "Problems parsing JSON"}')
        data: dict[str, object] = {}
        errors: list[dict[str, object]] = []
        for alias, owner_var, name_var, field_asked, ref_var in GRAPHQL_BLOCK.findall(query):
            repo = f"{variables.get(owner_var)}/{variables.get(name_var)}".lower()
            with self._lock:
                known = self._repos.get(repo)
            if known is None:
                data[alias] = None
                errors.append({"type": "NOT_FOUND", "path": [alias],
                               "message": f"Could not resolve to a Repository with the name '{repo}'."})
                continue
            archives, refs, default_branch = known
            if field_asked == "defaultBranchRef":
                data[alias] = {"defaultBranchRef": {"target": {"oid": refs[default_branch]}}}
                continue
            ref = str(variables.get(ref_var))
            commit = refs.get(ref) or (ref if ref in archives else None)
            data[alias] = {"object": {"__typename": "Commit", "oid": commit} if commit else None}
        answer = {"data": data, **({"errors": errors} if errors else {})}
        return _Reply(200, {"Content-Type": "application/json"}, json.dumps(answer).encode())

    def _route(self, server: str, path: str, headers: Mapping[str, str]) -> _Reply:
        """The answer a healthy GitHub would give."""
        if server == "web":
            return _public_reply(self, path)
        pattern = COMMITS if server == "api" else CODELOAD
        match = pattern.match(path) or (TARBALL.match(path) if server == "api" else None)
        if match is None:
            return _not_found()
        owner, name, last = (unquote(part) for part in match.groups())
        with self._lock:
            known = self._repos.get(f"{owner}/{name}".lower())
        if known is None:
            return _not_found()
        archives, refs, default_branch = known
        if match.re is COMMITS:
            commit = refs.get(default_branch if last == "HEAD" else last) or (last if last in archives else None)
            if commit is None:
                return _not_found()
            if headers.get("accept") != SHA_MEDIA_TYPE:
                return _Reply(415, {"Content-Type": "application/json"}, b'{"message": "ask for the sha"}')
            return _Reply(200, {"Content-Type": "text/plain; charset=utf-8"}, commit.encode())
        if last not in archives:
            return _not_found()
        if match.re is TARBALL:
            return _Reply(302, {"Location": self.codeload_url + self.codeload_path(f"{owner}/{name}", last)})
        disposition = f"attachment; filename={owner}-{name}-{last[:7]}.tar.gz"
        return _Reply(200, {"Content-Type": "application/x-gzip", "Content-Disposition": disposition}, archives[last])


def _public_reply(owner: GitHubServer, path: str) -> _Reply:
    """The web server's answer: a public archive URL redirects to codeload."""
    match = PUBLIC_ARCHIVE.match(path)
    if match is None:
        return _not_found()
    repo, commit = f"{unquote(match.group(1))}/{unquote(match.group(2))}", match.group(3)
    with owner._lock:
        known, private = owner._repos.get(repo.lower()), repo.lower() in owner._private
    if known is None or private or commit not in known[0]:
        return _not_found()
    return _Reply(302, {"Location": f"{owner.codeload_url}/{repo}/tar.gz/{commit}"})


def _not_found() -> _Reply:
    return _Reply(404, {"Content-Type": "application/json"}, b'{"message": "Not Found"}')
