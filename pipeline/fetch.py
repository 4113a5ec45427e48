"""The GitHub REST client: resolve refs to commits, download tarballs, survive the network.

Two endpoints are used::

    GET {api}/repos/{owner}/{name}/commits/{ref}    Accept: application/vnd.github.sha
    GET {api}/repos/{owner}/{name}/tarball/{commit} -> 302 to an archive host

Redirects are followed by hand so that the token goes to the API origin only. Every
request is retried on 5xx, connection errors, truncated or invalid bodies (with
exponential backoff) and waits out rate limits (``Retry-After``, ``X-RateLimit-*``),
telling the observer how long. urllib3's own retry is not used: it honours
``Retry-After`` only for a few statuses and cannot check an archive before accepting it.

Final, never retried: 404/410, other 4xx, a redirect loop, a host name that DNS says does
not exist, and an archive over the limits (``Settings.limits``: a body or a decompressed
tree larger than ``max_archive_bytes``, more than ``max_members`` members).
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import TypeVar
from urllib.parse import quote, urljoin, urlsplit

import requests

from pipeline import __version__, archive
from pipeline.archive import ArchiveInfo
from pipeline.errors import (
    ArchiveError,
    ArchiveLimitError,
    NotFoundError,
    RateLimitError,
    SourceError,
    TransportError,
)
from pipeline.limits import over_limit
from pipeline.progress import SILENT, Observer
from pipeline.settings import Settings

T = TypeVar("T")
SHA_RE = re.compile(rb"^[0-9a-f]{40}$")
MAX_REDIRECTS = 5
#: GitHub's advice when a secondary rate limit names no wait: at least one minute
DEFAULT_RATE_LIMIT_WAIT = 60.0
NETWORK_ERRORS = (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError)
#: getaddrinfo's answers that mean "no such host" (not "try again later")
UNKNOWN_HOST = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}


class _Retry(Exception):
    """A failure worth another try, after ``wait`` seconds (``None``: the backoff)."""

    def __init__(self, reason: str, wait: float | None = None, rate_limited: bool = False) -> None:
        super().__init__(reason)
        self.reason, self.wait, self.rate_limited = reason, wait, rate_limited


class GitHubClient:
    """Talks to one GitHub-compatible API (``settings.api_url``) with one token."""

    def __init__(
        self,
        settings: Settings,
        observer: Observer = SILENT,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._settings = settings
        self._observer = observer
        self._sleep = sleep
        self._api = settings.api_url.rstrip("/")
        self._session = requests.Session()
        self._session.trust_env = False  # no ~/.netrc credentials, no proxy surprises
        self._session.headers.update(
            {"User-Agent": f"mcp-annotation-census/{__version__}", "X-GitHub-Api-Version": "2022-11-28"}
        )
        self.requests_sent = 0

    def close(self) -> None:
        """Close the HTTP session and its pooled connections."""
        self._session.close()

    def resolve(self, repo: str, ref: str | None) -> str:
        """The commit SHA that ``ref`` names (the default branch when ``None``)."""
        url = f"{self._api}/repos/{repo}/commits/{quote(ref or 'HEAD', safe='')}"
        label = f"{repo}@{ref or 'HEAD'}"

        def attempt() -> str:
            with self._open(url, "application/vnd.github.sha") as response:
                body = self._read_small(response).strip().lower()
            if not SHA_RE.match(body):
                raise _Retry("the API answered something that is not a commit SHA")
            return body.decode()

        return self._with_retries(label, attempt)

    def download(self, repo: str, commit: str, dest: Path) -> ArchiveInfo:
        """Download the tarball of ``repo`` at ``commit`` into ``dest`` and verify it."""
        url = f"{self._api}/repos/{repo}/tarball/{commit}"

        def attempt() -> ArchiveInfo:
            with self._open(url, "application/vnd.github+json") as response:
                self._save(response, dest)
            try:
                return archive.verify(dest, self._settings.limits)
            except ArchiveLimitError:
                raise  # the same bytes would come again: final
            except ArchiveError as exc:
                raise _Retry(f"the downloaded body is not a valid archive ({exc})") from exc

        return self._with_retries(f"{repo}@{commit[:12]}", attempt)  # as the outcome lines name it

    def _with_retries(self, label: str, attempt: Callable[[], T]) -> T:
        last: _Retry | None = None
        for number in range(self._settings.attempts):
            try:
                return attempt()
            except _Retry as retry:
                last = retry
            if number + 1 < self._settings.attempts:
                self._pause(label, last, number)
        assert last is not None
        error = RateLimitError if last.rate_limited else TransportError
        raise error(f"gave up after {self._settings.attempts} attempts: {last.reason}")

    def _pause(self, label: str, retry: _Retry, number: int) -> None:
        wait = retry.wait if retry.wait is not None else self._settings.backoff_seconds * 2**number
        if wait > self._settings.max_wait_seconds:
            raise RateLimitError(
                f"{retry.reason}; the wait of {wait:.0f}s exceeds the maximum of "
                f"{self._settings.max_wait_seconds:.0f}s"
            )
        self._observer.waiting(label, wait, retry.reason)
        self._sleep(wait)

    def _open(self, url: str, accept: str) -> requests.Response:
        """A 200 response for ``url``, following redirects by hand; raises on anything else."""
        for _hop in range(MAX_REDIRECTS + 1):
            response = self._get(url, accept)
            if response.is_redirect and "location" in response.headers:
                response.close()
                url = urljoin(url, response.headers["location"])
                continue
            _check_status(response)
            return response
        raise SourceError(f"more than {MAX_REDIRECTS} redirects (a redirect loop?)")

    def _get(self, url: str, accept: str) -> requests.Response:
        headers = {"Accept": accept}
        if self._settings.token and _same_origin(url, self._api):
            headers["Authorization"] = f"Bearer {self._settings.token}"
        self.requests_sent += 1
        timeout = self._settings.timeout_seconds
        try:
            return self._session.get(url, headers=headers, stream=True, allow_redirects=False, timeout=timeout)
        except NETWORK_ERRORS as exc:
            dns = _dns_error(exc)
            if dns is None:
                raise _Retry(f"{type(exc).__name__} talking to {urlsplit(url).netloc}") from exc
            reason = f"cannot resolve host {urlsplit(url).hostname} ({dns.strerror})"
            if dns.errno in UNKNOWN_HOST:  # DNS answered: no such name
                raise TransportError(reason) from exc
            raise _Retry(reason) from exc

    def _save(self, response: requests.Response, dest: Path) -> None:
        """Write the body to ``dest``: whole (as long as its Content-Length), and within the limit."""
        expected = response.headers.get("content-length")
        limit = self._settings.max_archive_bytes
        if expected is not None and expected.isdigit() and int(expected) > limit:
            raise over_limit(f"the download is {expected} bytes, more than {limit}", "max_archive_bytes")
        written = 0
        try:
            with dest.open("wb") as out:
                for chunk in response.iter_content(archive.CHUNK_BYTES):
                    written += out.write(chunk)
                    if written > limit:
                        raise over_limit(f"the download goes on past {limit} bytes", "max_archive_bytes")
        except NETWORK_ERRORS as exc:
            broke = f"the connection broke mid-body after {written} bytes were saved"
            raise _Retry(f"{broke} ({type(exc).__name__})") from exc
        if expected is not None and expected.isdigit() and written != int(expected):
            raise _Retry(f"the body was truncated: {written} of {expected} bytes")

    def _read_small(self, response: requests.Response, limit: int = 4096) -> bytes:
        try:
            return response.raw.read(limit, decode_content=True) or b""
        except Exception as exc:  # urllib3 raises several types for a broken body
            raise _Retry(f"the connection broke while reading the answer ({type(exc).__name__})") from exc


def _check_status(response: requests.Response) -> None:
    status = response.status_code
    if status == 200:
        return
    response.close()
    if status in (404, 410):
        raise NotFoundError("repository or commit not found")
    if status == 429 or (status == 403 and _is_rate_limit(response)):
        raise _Retry(f"rate limited (HTTP {status})", _rate_limit_wait(response), rate_limited=True)
    if status >= 500:
        raise _Retry(f"HTTP {status} from {urlsplit(response.url).netloc}")
    raise SourceError(f"HTTP {status} from {urlsplit(response.url).netloc}")


def _is_rate_limit(response: requests.Response) -> bool:
    headers = response.headers
    return headers.get("x-ratelimit-remaining") == "0" or "retry-after" in headers


def _rate_limit_wait(response: requests.Response, now: float | None = None) -> float:
    """Seconds to wait, from ``Retry-After`` or ``X-RateLimit-Reset``; GitHub's minute otherwise."""
    headers = response.headers
    retry_after = headers.get("retry-after", "").strip()
    if retry_after:
        if retry_after.isdigit():
            return float(retry_after)
        try:
            return max(0.0, parsedate_to_datetime(retry_after).timestamp() - (now or time.time()))
        except (TypeError, ValueError):
            pass
    reset = headers.get("x-ratelimit-reset", "").strip()
    if headers.get("x-ratelimit-remaining") == "0" and reset.isdigit():
        return max(0.0, int(reset) - (now or time.time())) + 1.0
    return DEFAULT_RATE_LIMIT_WAIT


def _dns_error(exc: BaseException) -> socket.gaierror | None:
    """The failed name lookup behind ``exc``, if that is what it was."""
    seen: BaseException | None = exc
    for _depth in range(16):  # a chain is a few links long; never follow a cycle for ever
        if seen is None or isinstance(seen, socket.gaierror):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _same_origin(url: str, api: str) -> bool:
    a, b = urlsplit(url), urlsplit(api)
    return (a.scheme, a.hostname, a.port) == (b.scheme, b.hostname, b.port)
