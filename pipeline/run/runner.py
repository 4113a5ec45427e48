"""Fetch and scan many repositories at once: in worker processes here, or on a Dask cluster.

The driver (``Census.run``) decides what needs doing and is the database's only writer; the
work of one repository (download or cache lookup, then one read of the archive) is a
``Task`` that any executor runs and answers with a ``TaskResult``:

- ``local`` with ``jobs == 1`` runs each task in this process, in manifest order;
- ``local`` with ``jobs > 1`` runs them in a pool of ``jobs`` worker processes (spawned, so
  no DuckDB or HTTP state is inherited); downloads overlap, scans use every core;
- ``dask://HOST:PORT`` submits them to a Dask distributed scheduler (``dask.distributed``).

At most ``2 * jobs`` tasks are in flight, so memory is bounded by the number of workers,
not by the size of the manifest. The token is not part of a task: each worker reads its own
``GITHUB_TOKEN``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, Protocol

from pipeline.archive.limits import limited
from pipeline.errors import SourceError
from pipeline.fetch.cache import ArchiveCache
from pipeline.fetch.github import GitHubClient
from pipeline.fetch.mirrors import source_for
from pipeline.fetch.source import Fetched
from pipeline.manifest.entries import RepoEntry
from pipeline.progress import SILENT, Observer, QueueWaits, StderrWaits
from pipeline.run.inflight import in_flight
from pipeline.scan.detect import Detector
from pipeline.scan.roles import RoleRules
from pipeline.scan.tree import TreeScan, scan_tree
from pipeline.settings import DEFAULT_JOBS, ENV, Settings

__all__ = ["DEFAULT_JOBS", "DaskExecutor", "Executor", "LocalExecutor", "Task", "TaskResult", "executor",
           "fetch_and_scan", "task_for"]


@dataclass(frozen=True)
class Task:
    """One repository to fetch and scan."""

    entry: RepoEntry
    commit: str
    terms: tuple[str, ...]
    settings: Settings
    """where to fetch from and cache into; ``token`` is always ``None`` here."""
    known_sha256: str | None = None
    """the archive already scanned with these terms and this scanner version, if any."""
    announce_waits: bool = False
    """report rate-limit and retry waits (the driver's observer is not silent): to the driver
    from a worker process of this machine, on the worker's stderr on a Dask cluster."""


@dataclass(frozen=True)
class TaskResult:
    """What a worker did with one ``Task``."""

    repo: str
    commit: str
    status: str
    """``scanned``, ``unchanged`` (same archive as ``known_sha256``) or ``skipped``."""
    source: str
    fetched: Fetched | None = None
    scan: TreeScan | None = None
    stage: str | None = None
    """``fetch`` or ``scan``: where a skipped task failed."""
    reason: str | None = None


def task_for(entry: RepoEntry, commit: str, terms: tuple[str, ...], settings: Settings, *,
             known_sha256: str | None = None, announce_waits: bool = False) -> Task:
    """A task that carries no token."""
    return Task(entry, commit, terms, replace(settings, token=None), known_sha256, announce_waits)


def fetch_and_scan(task: Task, client: GitHubClient | None = None) -> TaskResult:
    """Run one task: fetch (or find in the cache), then count and detect in one read.

    In a worker the task gets a client of its own, with the worker's ``GITHUB_TOKEN``; in the
    driver's process ``client`` is the driver's (its observer shows the waits).
    """
    settings = replace(task.settings, token=os.environ.get(ENV["token"]) or None)
    if client is not None:
        return _fetch_and_scan(task, settings, client)
    waits: Observer = SILENT
    if task.announce_waits:
        waits = QueueWaits(_DRIVER_WAITS) if _DRIVER_WAITS is not None else StderrWaits(settings.redact)
    own = GitHubClient(settings, waits)
    try:
        return _fetch_and_scan(task, settings, own)
    finally:
        own.close()


def _fetch_and_scan(task: Task, settings: Settings, client: GitHubClient) -> TaskResult:
    source = source_for(task.entry, client, ArchiveCache(settings.cache_dir, settings.api_url), settings)
    base = TaskResult(task.entry.repo, task.commit, "skipped", source.kind)
    try:
        fetched = source.fetch(task.commit)
    except Exception as exc:  # one bad repository never stops a census
        return replace(base, stage="fetch", reason=reason(exc, settings))
    base = replace(base, source=source.kind)  # a mirror lacking the commit hands it to GitHub
    if task.known_sha256 is not None and fetched.sha256 == task.known_sha256:
        return replace(base, status="unchanged", fetched=fetched)
    try:
        members = limited(source.members(task.commit, fetched), settings.limits)
        scan = scan_tree(members, task.terms, Detector(effects=True), RoleRules(task.entry.server_paths))
    except Exception as exc:  # one bad repository never stops a census
        return replace(base, fetched=fetched, stage="scan", reason=reason(exc, settings))
    return replace(base, status="scanned", fetched=fetched, scan=scan)


def reason(exc: Exception, settings: Settings) -> str:
    """A skip reason: a ``SourceError``'s message, or the type of an unexpected error."""
    text = str(exc) if isinstance(exc, SourceError) else f"unexpected {type(exc).__name__}: {exc}"
    return settings.redact(text)


class Executor(Protocol):
    """Runs tasks somewhere and hands back their results as they finish."""

    in_process: bool
    """whether tasks run in this process (then they may share its client)."""
    jobs: int
    """how many tasks run at once (also the driver's concurrent pin requests)."""

    def run(self, work: Callable[[Task], TaskResult], tasks: Iterable[Task], observer: Observer = SILENT,
            patience: float | None = None) -> Iterator[TaskResult | None]:
        """The results of ``work`` over ``tasks``, in completion order; ``observer`` is told of the
        waits of workers that can reach it. With ``patience``, ``None`` between results when none
        has come for that many seconds (the driver's moment to write what it keeps)."""

    def close(self) -> None:
        """Release workers and connections."""


def executor(spec: str, jobs: int) -> Executor:
    """``local`` (``jobs`` processes) or ``dask://HOST:PORT``."""
    if jobs < 1:
        raise ValueError(f"--jobs must be at least 1 (got {jobs})")
    if spec == "local":
        return LocalExecutor(jobs)
    if spec.startswith(("dask://", "tcp://")):
        return DaskExecutor(spec.removeprefix("dask://"), jobs)
    raise ValueError(f"unknown executor {spec!r} (use local or dask://HOST:PORT)")


class LocalExecutor:
    """This process for one job; a pool of spawned worker processes for more."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.in_process = jobs == 1
        self._pool: Any = None
        self._waits: Any = None
        self._relay_thread: Any = None
        self._observer: Observer = SILENT

    def run(self, work: Callable[[Task], TaskResult], tasks: Iterable[Task], observer: Observer = SILENT,
            patience: float | None = None) -> Iterator[TaskResult | None]:
        """Results in manifest order for one job (the driver is the worker: it never waits), in
        completion order otherwise; the workers' waits reach ``observer`` through a queue, drawn by
        this process alone."""
        if self.jobs == 1:
            yield from map(work, tasks)
            return
        self._observer = observer
        if self._pool is None:
            self._pool = self._start()
        yield from in_flight(self._pool, work, tasks, 2 * self.jobs, patience)

    def _start(self) -> Any:
        """The worker pool, and the thread that hands their waits to the observer."""
        import multiprocessing
        import threading
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("spawn")
        self._waits = context.SimpleQueue()
        self._relay_thread = threading.Thread(target=self._relay, args=(self._waits,), name="census-waits", daemon=True)
        self._relay_thread.start()
        return ProcessPoolExecutor(self.jobs, mp_context=context, initializer=_worker, initargs=(self._waits,))

    def _relay(self, waits: Any) -> None:
        while (message := waits.get()) is not None:
            kind, *details = message
            if kind == "note":
                self._observer.note(*details)
            else:
                self._observer.waiting(*details)

    def close(self) -> None:
        """Stop the worker processes (and the relay of their waits)."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
        if self._waits is not None:  # the relay ends, and the queue's locks are released before exit
            self._waits.put(None)
            self._relay_thread.join()
            self._waits.close()
            self._waits = self._relay_thread = None


class DaskExecutor:
    """Tasks on a Dask distributed cluster; the results come back to this driver."""

    def __init__(self, address: str, jobs: int) -> None:
        from dask.distributed import Client

        self.in_process = False
        self.jobs = jobs
        self._client = Client(address if "://" in address else f"tcp://{address}",
                              set_as_default=False)
        threads = self._client.nthreads()
        self._limit = max(2 * jobs, 2 * sum(threads.values()))

    def run(self, work: Callable[[Task], TaskResult], tasks: Iterable[Task], observer: Observer = SILENT,
            patience: float | None = None) -> Iterator[TaskResult | None]:
        """Results in completion order (a worker says its waits on its own stderr); with
        ``patience``, ``None`` before each wait for a result that is not ready."""
        from dask.distributed import as_completed

        finished = as_completed(loop=self._client.loop)
        for task in tasks:
            finished.add(self._client.submit(work, task, pure=False))
            if finished.count() >= self._limit:
                if patience is not None and not finished.has_ready():
                    yield None
                yield next(finished).result()
        while not finished.is_empty():
            if patience is not None and not finished.has_ready():
                yield None
            yield next(finished).result()

    def close(self) -> None:
        """Disconnect from the scheduler (the cluster keeps running)."""
        self._client.close()


#: in a worker process of ``LocalExecutor``: the queue its waits go to (set by ``_worker``)
_DRIVER_WAITS: Any = None


def _worker(waits: Any) -> None:
    """The initializer of a ``LocalExecutor`` worker: remember where waits go."""
    global _DRIVER_WAITS  # noqa: PLW0603 -- one per worker process, set before any task
    _DRIVER_WAITS = waits
