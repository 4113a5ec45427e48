"""``census timeline``: every repository of a manifest at the end of every period, scanned as ``census run``
scans a pinned commit.

For each entry with a local clone (its ``source`` folder, or its mirror under ``--mirrors``), the
first-parent line of its pinned commit (``HEAD`` when unpinned) is read once
(``pipeline.fetch.first_parent``); each period's commit is the last one of that line committed at
or before the period's end, as ``git rev-list -1 --first-parent --before=END TIP`` names it. A period
before the first commit has no row: the repository did not exist yet. Each tree new to the
timeline is fetched and scanned by the runner's own task (``runner.fetch_and_scan``: the same
limits, detector and role rules as ``census run``), in worker processes with ``jobs > 1``; a period
whose tree is an earlier period's (it did not change) reuses that scan (``reused``), and a tree a
previous run stored is not scanned again. This process is the database's only writer: each scan is
one transaction, each repository's periods one more once its scans are in, so a timeline killed at
any point (even ``kill -9``) resumes where it stopped. A repository with no local clone has its
history fetched into the cache first (``pipeline.fetch.histories``: commits and trees), then the
files of the trees to scan, which are read from that clone; offline, it is a ``no-mirror`` row.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from pipeline.errors import SourceError
from pipeline.fetch.first_parent import LineCommit, at_or_before, first_parent_line
from pipeline.fetch.github import GitHubClient
from pipeline.fetch.histories import fetch_files
from pipeline.fetch.mirrors import locate
from pipeline.manifest.entries import RepoEntry
from pipeline.manifest.manifests import Manifest
from pipeline.progress import SILENT, Observer
from pipeline.run.histories import fetch_all
from pipeline.run.periods import Period, periods
from pipeline.run.runner import Executor, LocalExecutor, Task, TaskResult, fetch_and_scan, reason, task_for
from pipeline.scan import SCANNER_VERSION
from pipeline.settings import Settings
from pipeline.store import timeline as timeline_store
from pipeline.store.database import Store
from pipeline.store.timeline import PeriodRow, RepoRow, ScanKey, TreeAt


@dataclass(frozen=True)
class Window:
    """Which periods a timeline covers."""

    every: str
    """``month``, ``quarter`` or ``year`` (``pipeline.run.periods.EVERY``)."""
    since: str
    """the first period: ``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` in it."""
    until: str | None = None
    """the last period (the same forms); ``None``: the one the newest tip commit falls in."""


@dataclass(frozen=True)
class RepoOutcome:
    """What the timeline did with one repository."""

    repo: str
    status: str
    """``walked``, ``no-mirror`` (no local clone) or ``skipped`` (its history could not be read)."""
    periods: int = 0
    """the periods it existed in (a row each)."""
    scanned: int = 0
    """periods whose tree was new to the timeline: scanned, by this run or a stored one."""
    reused: int = 0
    """periods whose tree an earlier period had: its rows reused, nothing read."""
    skipped: int = 0
    """periods whose tree could not be scanned."""
    scans_run: int = 0
    """trees this run scanned (the others were stored by an earlier run)."""
    reason: str | None = None


@dataclass
class _Plan:
    """One walked repository, while its scans are running."""

    entry: RepoEntry
    row: RepoRow
    picks: list[tuple[Period, LineCommit, str]]
    """each period with its commit and its status (``scanned`` or ``reused``)."""
    rows_from: dict[str, str]
    """tree -> the commit whose scan stands for it."""
    waiting: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    scans_run: int = 0
    size_bytes: int = 0


class Timeline:
    """One manifest's timeline over one window, read from local clones or fetched histories."""

    def __init__(self, manifest: Manifest, settings: Settings, window: Window, observer: Observer = SILENT) -> None:
        settings.check()
        self.manifest, self.window, self.observer = manifest, window, observer
        self.settings = settings
        self.client = GitHubClient(self.settings, observer)
        self.periods: tuple[Period, ...] = ()
        self.history_jobs = 4
        """histories fetched at once (``census timeline --jobs``)."""
        self._fetched: dict[str, Path | str] = {}

    def run(self, store: Store, executor: Executor | None = None) -> Iterator[RepoOutcome]:
        """Walk every repository, scan each new tree (``executor``: here, one at a time, by default)
        and store the periods; one outcome per repository, as each is finished."""
        runner, con = executor or LocalExecutor(1), store.connection
        timeline_store.install(con)
        self._fetch_histories()
        self.observer.stage("timeline", len(self.manifest.repos))
        walked: list[tuple[RepoEntry, RepoRow, tuple[LineCommit, ...]]] = []
        for entry in self.manifest.repos:
            row, line = self._walk(entry)
            if row.status == "walked":
                walked.append((entry, row, line))
            else:
                yield self._finish(store, _Plan(entry, row, [], {}))
        newest = max((line[0].committed_at_utc for _, _, line in walked), default=None)
        self.periods = periods(self.window.every, self.window.since, self.window.until, newest)
        timeline_store.record_grid(con, self.manifest.name, self.window.every,
                                   [(p.label, p.end_utc) for p in self.periods])
        plans: dict[str, _Plan] = {}
        tasks: list[Task] = []
        for entry, row, line in walked:
            plan, todo = self._plan(store, entry, row, line)
            todo = self._files(plan, todo)
            if not todo:
                yield self._finish(store, plan)
                continue
            plans[entry.repo] = plan
            tasks += todo
        work = partial(fetch_and_scan, client=self.client) if runner.in_process else fetch_and_scan
        for result in runner.run(work, tasks, self.observer):
            if result is None:
                continue
            plan = plans[result.repo]
            self._record(store, plan, result)
            if plan.waiting == 0:
                yield self._finish(store, plan)

    def close(self) -> None:
        """Release the (unused) network session."""
        self.client.close()

    def _walk(self, entry: RepoEntry) -> tuple[RepoRow, tuple[LineCommit, ...]]:
        """The entry's row (``walked``, ``no-mirror`` or ``skipped``) and its first-parent line."""
        base = RepoRow(entry.repo, entry.index, "no-mirror")
        if entry.source is not None and not entry.source.is_dir():
            return replace(base, status="skipped", reason="its source is an archive: no history to walk"), ()
        clone = self._local(entry) or self._fetched.get(entry.repo)
        if isinstance(clone, str):  # its history could not be fetched: the reason
            return replace(base, status="skipped", tip=entry.commit, reason=clone), ()
        if clone is None:
            where = f"no mirror in {self.settings.mirrors_dir}" if self.settings.mirrors_dir else "no local clone"
            return replace(base, reason=where + " (--offline: no history fetched)"), ()
        tip = entry.commit or "HEAD"
        try:
            line = first_parent_line(clone, tip)
        except SourceError as exc:
            return replace(base, status="skipped", tip=entry.commit, reason=reason(exc, self.settings)), ()
        if not line:
            return replace(base, status="skipped", tip=entry.commit, reason=f"no commit at {tip}"), ()
        return replace(base, status="walked", tip=line[0].commit, born_at_utc=line[-1].committed_at_utc,
                       line_commits=len(line)), line

    def _local(self, entry: RepoEntry) -> Path | None:
        """The entry's own clone: its ``source`` folder, else its mirror under ``--mirrors``."""
        if entry.source is not None:
            return entry.source
        return locate(self.settings.mirrors_dir, entry.repo) if self.settings.mirrors_dir is not None else None

    def _fetch_histories(self) -> None:
        """The history of every entry no local clone holds, fetched (``histories.fetch_all``)."""
        wanted = [e for e in self.manifest.repos if self._local(e) is None]
        if not self.settings.offline and wanted:
            self._fetched = fetch_all(wanted, self.settings, self.observer, self.history_jobs)

    def _files(self, plan: _Plan, todo: list[Task]) -> list[Task]:
        """For a fetched history, the files of the trees to scan (``fetch_files``), and the tasks set to
        read them from the clone; a failure is each tree's reason, and no task is left."""
        clone = self._fetched.get(plan.entry.repo)
        if not isinstance(clone, Path) or not todo:
            return todo
        try:
            fetch_files(clone, plan.entry.repo, [t.commit for t in todo], self.settings)
        except SourceError as exc:
            trees = {c.commit: c.tree for _, c, _ in plan.picks}
            plan.failed.update({trees[t.commit]: f"fetch: {reason(exc, self.settings)}" for t in todo})
            plan.waiting = 0
            return []
        return [replace(t, entry=replace(t.entry, source=clone)) for t in todo]

    def _plan(self, store: Store, entry: RepoEntry,
              row: RepoRow, line: tuple[LineCommit, ...]) -> tuple[_Plan, list[Task]]:
        """Each period's commit and status, and a task for each tree neither an earlier period nor an
        earlier run scanned."""
        plan, tasks = _Plan(entry, row, [], {}), list[Task]()
        key = self._key(entry)
        for period in self.periods:
            commit = at_or_before(line, period.end_utc)
            if commit is None:
                continue  # the repository did not exist yet: no row
            known = commit.tree in plan.rows_from
            plan.picks.append((period, commit, "reused" if known else "scanned"))
            if known:
                continue
            stored = timeline_store.stored_scan(store.connection, entry.repo, commit.tree, key)
            plan.rows_from[commit.tree] = stored or commit.commit
            if stored is None:
                tasks.append(task_for(entry, commit.commit, self.manifest.terms, self.settings))
        plan.waiting = len(tasks)
        return plan, tasks

    def _key(self, entry: RepoEntry) -> ScanKey:
        return ScanKey(self.manifest.terms, SCANNER_VERSION, tuple(entry.server_paths))

    def _record(self, store: Store, plan: _Plan, result: TaskResult) -> None:
        """Store one tree's scan (or why it failed)."""
        picked = next(c for _, c, _ in plan.picks if c.commit == result.commit)
        at = TreeAt(result.repo, result.commit, picked.tree, picked.committed_at_utc)
        key, con = self._key(plan.entry), store.connection
        if result.status == "scanned" and result.scan is not None:
            timeline_store.record_scan(con, at, key, result.scan)
            plan.size_bytes += result.scan.content_bytes
        else:
            why = f"{result.stage or 'scan'}: {result.reason or 'failed'}"
            timeline_store.record_scan_skip(con, at, key, why)
            plan.failed[picked.tree] = why
        plan.scans_run += 1
        plan.waiting -= 1

    def _finish(self, store: Store, plan: _Plan) -> RepoOutcome:
        """Store the repository's row and its periods; say so."""
        rows = [PeriodRow(period.label, period.end_utc, c.commit, c.tree, c.committed_at_utc,
                          "skipped" if c.tree in plan.failed else status,
                          None if c.tree in plan.failed else plan.rows_from[c.tree], plan.failed.get(c.tree))
                for period, c, status in plan.picks]
        timeline_store.record_repo(store.connection, self.manifest.name, self.window.every, plan.row,
                                   periods=[p.label for p in self.periods], rows=rows)
        outcome = RepoOutcome(plan.entry.repo, plan.row.status, len(rows),
                              sum(r.status == "scanned" for r in rows), sum(r.status == "reused" for r in rows),
                              sum(r.status == "skipped" for r in rows), plan.scans_run, plan.row.reason)
        detail = (f"{outcome.periods} periods: {outcome.scanned} scanned, {outcome.reused} reused"
                  + (f", {outcome.skipped} skipped" if outcome.skipped else "")) if outcome.status == "walked" \
            else outcome.reason or ""
        self.observer.advance(plan.entry.repo, outcome.status, detail, plan.size_bytes)
        return outcome

