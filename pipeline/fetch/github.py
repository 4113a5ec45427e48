"""The GitHub client: resolve refs to commits, download archives, survive the network.

The endpoints::

    GET  {server}/{owner}/{name}/archive/{commit}.tar.gz   the public archive URL: no API request
    GET  {api}/repos/{owner}/{name}/tarball/{commit}       the API's, for a private repository
    GET  {api}/repos/{owner}/{name}/commits/{ref}          Accept: application/vnd.github.sha
    POST {graphql}                                         many pins at once (``pipeline.fetch.graphql``)

Redirects are followed by hand so that the token goes to the API and GraphQL origins only
(never to the web or archive hosts). A request is retried on 5xx, connection errors, truncated
or invalid bodies, with exponential backoff: these use the attempts. A rate-limit answer uses
none: it is waited out (``Retry-After``, ``X-RateLimit-Reset``; a secondary limit naming no
wait: a minute, doubled each time) and asked again, within ``Settings.max_wait_seconds`` for one
wait and the run's budget for all, and a primary limit pauses every client of the token on this
machine (``pipeline.fetch.ratelimit``). urllib3's own retry is not used: it honours ``Retry-After``
only for a few statuses and cannot check an archive before accepting it.

Final, never retried: 404/410, other 4xx, a redirect loop, a host name that DNS says does
not exist, and an archive over the limits (``Settings.limits``: a body or a decompressed
tree larger than ``max_archive_bytes``, more than ``max_members`` members).
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, urljoin

import requests

from pipeline import __version__
from pipeline.archive import tarball as archive
from pipeline.archive.limits import over_limit
from pipeline.archive.tarball import ArchiveInfo
from pipeline.errors import ArchiveError, ArchiveLimitError, NotFoundError, RateLimitError, SourceError, TransportError
from pipeline.fetch.http import NETWORK_ERRORS, Retry, check_status, network_retry, same_origin
from pipeline.fetch.ratelimit import SharedPause, primary_reset, secondary_wait
from pipeline.progress import SILENT, Observer
from pipeline.settings import Settings

T = TypeVar("T")
SHA_RE = re.compile(rb"^[0-9a-f]{40}$")
MAX_REDIRECTS = 5


class GitHubClient:
    """Talks to one GitHub (``settings.api_url``, its GraphQL and web hosts) with one token."""

    def __init__(self, settings: Settings, observer: Observer = SILENT,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self._settings = settings
        self._observer = observer
        self._sleep = sleep
        self._api = settings.api_url.rstrip("/")
        self._graphql = settings.graphql_endpoint
        self._server = settings.archive_server
        self._pause = SharedPause(settings.cache_dir, settings.api_url, settings.token, settings.run_id,
                                  settings.max_total_wait_seconds)
        self._waited_until = 0.0  # this client slept through every pause before this moment
        self._label = ""
        self._session = requests.Session()
        self._session.trust_env = False  # no ~/.netrc credentials, no proxy surprises
        self._session.headers.update(
            {"User-Agent": f"mcp-annotation-census/{__version__}", "X-GitHub-Api-Version": "2022-11-28"}
        )
        self.sent: Counter[str] = Counter()
        """requests sent, by kind: ``rest``, ``graphql`` (API requests) and ``archive`` (other hosts)."""

    @property
    def requests_sent(self) -> int:
        """Every request sent, of any kind."""
        return sum(self.sent.values())

    @property
    def has_token(self) -> bool:
        """Whether requests carry a token (GraphQL needs one)."""
        return bool(self._settings.token)

    def close(self) -> None:
        """Close the HTTP session and its pooled connections."""
        self._session.close()

    def resolve(self, repo: str, ref: str | None) -> str:
        """The commit SHA that ``ref`` names (the default branch when ``None``)."""
        url = f"{self._api}/repos/{repo}/commits/{quote(ref or 'HEAD', safe='')}"

        def attempt() -> str:
            with self._open(url, "application/vnd.github.sha") as response:
                body = self._read_small(response).strip().lower()
            if not SHA_RE.match(body):
                raise Retry("the API answered something that is not a commit SHA")
            return body.decode()

        return self._with_retries(f"{repo}@{ref or 'HEAD'}", attempt)

    def download(self, repo: str, commit: str, dest: Path) -> ArchiveInfo:
        """Download the archive of ``repo`` at ``commit`` into ``dest`` and verify it: from the
        public archive URL when the server is known (no API request), else, or when that answers
        404 (a private repository), from the API's tarball endpoint."""
        label = f"{repo}@{commit[:12]}"  # as the outcome lines name it
        if self._server is not None:
            try:
                return self._with_retries(label, self._saver(f"{self._server}/{repo}/archive/{commit}.tar.gz", dest))
            except NotFoundError:
                pass  # private, or only the API knows it
        return self._with_retries(label, self._saver(f"{self._api}/repos/{repo}/tarball/{commit}", dest))

    def post_json(self, label: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST ``body`` to the GraphQL endpoint; its JSON answer (a 401 or 404 is a ``SourceError``
        whose message starts with ``HTTP``; a rate-limited answer is waited out)."""

        def attempt() -> dict[str, Any]:
            response = self._request("POST", self._graphql, "application/json", body)
            if response.status_code in (401, 404):
                response.close()
                raise SourceError(f"HTTP {response.status_code} from the GraphQL endpoint")
            check_status(response)
            with response:
                try:
                    answer = response.json()
                except (ValueError, *NETWORK_ERRORS) as exc:
                    raise Retry("the GraphQL answer is not JSON") from exc
            if not isinstance(answer, dict):
                raise Retry("the GraphQL answer is not a JSON object")
            if any(isinstance(e, dict) and e.get("type") == "RATE_LIMITED" for e in answer.get("errors") or []):
                until = primary_reset(response.headers)
                raise Retry("rate limited (GraphQL)", rate_limited=True, primary_until=until,
                            named=None if until is not None else secondary_wait(None, 1))
            return answer

        return self._with_retries(label, attempt)

    def note(self, text: str) -> None:
        """Tell the observer something worth a line of its own."""
        self._observer.note(text)

    def _saver(self, url: str, dest: Path) -> Callable[[], ArchiveInfo]:
        def attempt() -> ArchiveInfo:
            with self._open(url, "application/vnd.github+json") as response:
                self._save(response, dest)
            try:
                return archive.verify(dest, self._settings.limits)
            except ArchiveLimitError:
                raise  # the same bytes would come again: final
            except ArchiveError as exc:
                raise Retry(f"the downloaded body is not a valid archive ({exc})") from exc

        return attempt

    def _with_retries(self, label: str, attempt: Callable[[], T]) -> T:
        """``attempt()`` until it succeeds: failures use attempts, rate limits only waiting."""
        self._label, failures, limited = label, 0, 0
        while True:
            try:
                return attempt()
            except Retry as retry:
                if retry.rate_limited:
                    limited += 1
                    self._wait_out(retry, limited)
                    continue
                failures, limited = failures + 1, 0
                if failures >= self._settings.attempts:
                    raise TransportError(f"gave up after {failures} attempts: {retry.reason}") from None
                self._rest(self._settings.backoff_seconds * 2 ** (failures - 1), retry.reason, budgeted=False)

    def _wait_out(self, retry: Retry, times: int) -> None:
        """Wait as a rate-limit answer asks; a primary limit first pauses every client of the token."""
        if retry.primary_until is not None:
            self._pause.pause(retry.primary_until)
            self._rest(max(0.0, retry.primary_until - time.time()), retry.reason)
        else:
            self._rest(secondary_wait(retry.named, times), retry.reason)

    def _hold(self) -> None:
        """Before an API request: wait while the token's budget is spent (another client learnt it)."""
        until = self._pause.paused_until()
        now = max(time.time(), self._waited_until)
        if until > now:
            when = datetime.fromtimestamp(until, UTC).strftime("%H:%M:%S UTC")
            self._rest(until - now, f"the token's rate limit is spent until {when} (another request learnt it)")

    def _rest(self, seconds: float, reason: str, budgeted: bool = True) -> None:
        """Sleep ``seconds`` (telling the observer), within the longest wait and the run's budget."""
        if budgeted and seconds > self._settings.max_wait_seconds:
            raise RateLimitError(f"{reason}; the wait of {seconds:.0f}s exceeds the maximum of "
                                 f"{self._settings.max_wait_seconds:.0f}s")
        now = max(time.time(), self._waited_until)  # a client's own waits follow one another
        if budgeted:
            try:
                self._pause.charge(now, now + seconds)
            except RateLimitError as spent:
                if spent.note:
                    self.note(spent.note)
                raise
        self._observer.waiting(self._label, seconds, reason)
        self._sleep(seconds)
        self._waited_until = max(self._waited_until, now + seconds)

    def _open(self, url: str, accept: str) -> requests.Response:
        """A 200 response for ``url``, following redirects by hand; raises on anything else."""
        for _hop in range(MAX_REDIRECTS + 1):
            response = self._request("GET", url, accept)
            if response.is_redirect and "location" in response.headers:
                response.close()
                url = urljoin(url, response.headers["location"])
                continue
            check_status(response)
            return response
        raise SourceError(f"more than {MAX_REDIRECTS} redirects (a redirect loop?)")

    def _request(self, method: str, url: str, accept: str, body: dict[str, Any] | None = None) -> requests.Response:
        """One request; the token goes to the API and GraphQL origins only, and an API request first
        waits out the token's shared pause."""
        api = same_origin(url, self._api) or same_origin(url, self._graphql)
        headers = {"Accept": accept}
        if api:
            self._hold()
            if self._settings.token:
                headers["Authorization"] = f"Bearer {self._settings.token}"
        self.sent["graphql" if method == "POST" else "rest" if api else "archive"] += 1
        try:
            response = self._session.request(method, url, headers=headers, json=body, stream=method == "GET",
                                             allow_redirects=False, timeout=self._settings.timeout_seconds)
        except NETWORK_ERRORS as exc:
            raise network_retry(exc, url) from exc
        if api and response.status_code < 400 and (until := primary_reset(response.headers)) is not None:
            self._pause.pause(until)  # the last request of the budget: hold the next one
        return response

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
            raise Retry(f"{broke} ({type(exc).__name__})") from exc
        if expected is not None and expected.isdigit() and written != int(expected):
            raise Retry(f"the body was truncated: {written} of {expected} bytes")

    def _read_small(self, response: requests.Response, limit: int = 4096) -> bytes:
        try:
            return response.raw.read(limit, decode_content=True) or b""
        except Exception as exc:  # urllib3 raises several types for a broken body
            raise Retry(f"the connection broke while reading the answer ({type(exc).__name__})") from exc
