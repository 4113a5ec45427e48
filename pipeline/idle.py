"""Work a thread does while it would otherwise wait: jobs run in the scan's idle moments.

A scan spends much of its time waiting for the inflating thread (a third to two thirds of a
cold ``census count`` of a real repository), while the detector's first use of a language is
costly: its modules are imported and its expressions compiled. The detector ``submit``s such
jobs as files arrive, and ``Inflater`` runs them (``run_one``) whenever the next block is not
ready, instead of blocking. A second thread would do the same work only while holding the GIL
the scanning thread needs.

A job may only fill caches that later work would fill anyway (an import, say), so results
never depend on whether, or how far, jobs ran; a job that fails is dropped (the later work
meets the same failure and reports it). Jobs are kept per thread: each scan's jobs run in the
thread that scans.
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable

Job = Callable[[], object]
_LOCAL = threading.local()


def _jobs() -> deque[Job]:
    jobs: deque[Job] | None = getattr(_LOCAL, "jobs", None)
    if jobs is None:
        jobs = _LOCAL.jobs = deque()
    return jobs


def submit(job: Job) -> None:
    """Queue ``job`` for this thread's next idle moment (after the jobs queued before it)."""
    _jobs().append(job)


def run_one() -> bool:
    """Run this thread's oldest queued job, if any; whether one ran."""
    jobs = _jobs()
    if not jobs:
        return False
    job = jobs.popleft()
    with contextlib.suppress(Exception):  # the later work does the same again, and reports it
        job()
    return True


def discard() -> None:
    """Drop this thread's queued jobs (their work is no longer wanted, or is about to be done)."""
    _jobs().clear()
