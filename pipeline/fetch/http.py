"""What the GitHub client makes of one HTTP answer: success, a retry (and whether it is a rate
limit), or a final error; and the checks on hosts that keep the token where it belongs."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import requests

from pipeline.errors import NotFoundError, SourceError, TransportError
from pipeline.fetch.ratelimit import primary_reset, retry_after

NETWORK_ERRORS = (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError)
#: getaddrinfo's answers that mean "no such host" (not "try again later")
UNKNOWN_HOST = {socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)}


class Retry(Exception):
    """A request worth asking again. A failure (``rate_limited`` false) uses an attempt and waits
    the backoff; a rate limit uses none and waits ``named`` (``Retry-After``) or until
    ``primary_until`` (the token's budget comes back then, for every client of the token)."""

    def __init__(self, reason: str, *, rate_limited: bool = False, named: float | None = None,
                 primary_until: float | None = None) -> None:
        super().__init__(reason)
        self.reason, self.rate_limited, self.named, self.primary_until = reason, rate_limited, named, primary_until


def check_status(response: requests.Response) -> None:
    """Nothing for a 200; ``Retry`` for what is worth asking again; the final error otherwise."""
    status = response.status_code
    if status == 200:
        return
    response.close()
    if status in (404, 410):
        raise NotFoundError("repository or commit not found")
    if status == 429 or (status == 403 and is_rate_limit(response)):
        raise rate_limited(f"rate limited (HTTP {status})", response)
    if status >= 500:
        raise Retry(f"HTTP {status} from {urlsplit(response.url).netloc}")
    raise SourceError(f"HTTP {status} from {urlsplit(response.url).netloc}")


def rate_limited(reason: str, response: requests.Response) -> Retry:
    """The retry a rate-limit answer asks for, from its headers."""
    headers = response.headers
    return Retry(reason, rate_limited=True, named=retry_after(headers), primary_until=primary_reset(headers))


def is_rate_limit(response: requests.Response) -> bool:
    """Whether a 403 is a rate limit (primary: nothing remains; secondary: a ``Retry-After``)."""
    headers = response.headers
    return headers.get("x-ratelimit-remaining") == "0" or "retry-after" in headers


def dns_error(exc: BaseException) -> socket.gaierror | None:
    """The failed name lookup behind ``exc``, if that is what it was."""
    seen: BaseException | None = exc
    for _depth in range(16):  # a chain is a few links long; never follow a cycle for ever
        if seen is None or isinstance(seen, socket.gaierror):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def same_origin(url: str, other: str) -> bool:
    """Whether ``url`` and ``other`` have one scheme, host and port."""
    a, b = urlsplit(url), urlsplit(other)
    return (a.scheme, a.hostname, a.port) == (b.scheme, b.hostname, b.port)


def network_retry(exc: requests.RequestException, url: str) -> Exception:
    """What a network error means: a retry, or (DNS says there is no such host) a final error."""
    dns = dns_error(exc)
    if dns is None:
        return Retry(f"{type(exc).__name__} talking to {urlsplit(url).netloc}")
    reason = f"cannot resolve host {urlsplit(url).hostname} ({dns.strerror})"
    return TransportError(reason) if dns.errno in UNKNOWN_HOST else Retry(reason)
