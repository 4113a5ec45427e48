"""Tasks in a pool of processes, a bounded number at a time, their results as they finish; and a
beat (``None``) when none has finished for a while, so that the driver can do its own work then."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def in_flight(pool: Any, work: Callable[[T], R], tasks: Iterable[T], limit: int,
              patience: float | None) -> Iterator[R | None]:
    """Submit ``tasks`` to ``pool``, at most ``limit`` at a time; yield each result as it completes
    (and ``None`` when none has come for ``patience`` seconds)."""
    pending: set[Any] = set()
    for task in tasks:
        pending.add(pool.submit(work, task))
        while len(pending) >= limit:
            done, pending = yield from _next_done(pending, patience)
            yield from (future.result() for future in done)
    while pending:
        done, pending = yield from _next_done(pending, patience)
        yield from (future.result() for future in done)


def _next_done(pending: set[Any], patience: float | None) -> Generator[None, None, tuple[set[Any], set[Any]]]:
    """Wait for the first of ``pending`` to finish: ``(done, still pending)``; ``None`` yielded once
    if ``patience`` seconds pass first."""
    from concurrent.futures import FIRST_COMPLETED, wait

    if patience is not None:
        done, rest = wait(pending, timeout=patience, return_when=FIRST_COMPLETED)
        if done:
            return done, rest
        yield None
    done, rest = wait(pending, return_when=FIRST_COMPLETED)
    return done, rest
