"""A manifest's published figures against the histories of its trees (``census history --manifest``).

For each entry with ``published`` figures and a local clone under the sources folder (the
layout of ``--mirrors``: ``DIR/OWNER/NAME.git`` or ``DIR/OWNER/NAME``), the history is walked
(``pipeline.scan.history``, stored by ``pipeline.store.history``) and each figure is looked for on its
own: every run of commits whose count equals it, or none over the dates walked, with the commit
nearest to it. What is found is stored (``history_matches``) for the report to say, per figure,
"matched at commits A..B (dates)" or "matched by no commit from D1 to D2".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import duckdb

from pipeline.fetch.mirrors import locate
from pipeline.manifest.manifests import Manifest
from pipeline.scan import history
from pipeline.store import history as history_store


@dataclass(frozen=True)
class Finding:
    """One published figure of one repository, against its history."""

    repo: str
    term: str
    figure: int
    runs: tuple[history.Match, ...]
    """the runs of commits that give the figure (none: no commit does)."""
    first_at: datetime | None
    last_at: datetime | None
    """the dates of the first and last commits walked."""
    nearest: tuple[int, str, datetime] | None
    """(count, commit, date) of the commit nearest to the figure (the newest among equals)."""


def series(con: duckdb.DuckDBPyConnection, repo: str, source: Path, terms: tuple[str, ...],
           window: Mapping[str, object]) -> tuple[list[history.CommitCounts], list[history.CommitCounts]]:
    """The range's commits with their totals and moves (stored ones read back), and those walked now."""
    stored = history_store.known(con, repo, terms)
    walked = list(history.walk(source, terms, known=stored, **window))  # type: ignore[arg-type]
    history_store.record(con, repo, terms, walked)
    totals = {**stored, **{c.commit: c.totals for c in walked}}
    moves = history_store.moves(con, repo, terms)
    order = history.commits(source, **window)  # type: ignore[arg-type]
    return [history.CommitCounts(sha, parents[0] if parents else None, when, totals[sha], moves.get(sha, ()), ())
            for sha, when, parents in order], walked


def check(con: duckdb.DuckDBPyConnection, manifest: Manifest, source_dir: Path,
          window: Mapping[str, object]) -> tuple[list[Finding], list[str]]:
    """The findings of every entry with published figures, and the repositories no clone was found for."""
    findings: list[Finding] = []
    absent: list[str] = []
    terms = manifest.terms
    for entry in manifest.repos:
        if not entry.published:
            continue
        source = locate(source_dir, entry.repo)
        if source is None:
            absent.append(entry.repo)
            continue
        commits, _ = series(con, entry.repo, source, terms, window)
        found = [_finding(entry.repo, terms, commits, term, figure) for term, figure in entry.published
                 if term in terms]
        history_store.record_matches(con, entry.repo, [row for f in found for row in _rows(f)])
        findings += found
    return findings, absent


def _finding(repo: str, terms: tuple[str, ...], commits: list[history.CommitCounts], term: str,
             figure: int) -> Finding:
    at = terms.index(term)
    runs = tuple(history.matches(commits, terms, {term: figure}))
    near = history.nearest(commits, terms, term, figure)
    return Finding(repo, term, figure, runs, commits[0].committed_at_utc if commits else None,
                   commits[-1].committed_at_utc if commits else None,
                   (near.totals[at], near.commit, near.committed_at_utc) if near is not None else None)


def _rows(f: Finding) -> list[tuple[str, int, str | None, str | None, object, object, int]]:
    if not f.runs:
        return [(f.term, f.figure, None, None, _naive(f.first_at), _naive(f.last_at), 0)]
    return [(f.term, f.figure, r.first.commit, r.last.commit, _naive(r.first.committed_at_utc),
             _naive(r.last.committed_at_utc), r.commits) for r in f.runs]


def _naive(moment: datetime | None) -> datetime | None:
    return moment.replace(tzinfo=None) if moment is not None else None


def describe(f: Finding) -> str:
    """One line a reader can check: where the figure holds, or that no commit gives it."""
    head = f"{f.repo} {f.term}={f.figure}"
    if f.runs:
        spans = "; ".join(f"{r.first.commit[:12]}..{r.last.commit[:12]} ({r.first.committed_at_utc:%Y-%m-%d} .. "
                          f"{r.last.committed_at_utc:%Y-%m-%d}, {r.commits} commits)" for r in f.runs)
        return f"{head}: matched at {spans}"
    if f.first_at is None or f.nearest is None:
        return f"{head}: no commit in this range"
    count, commit, when = f.nearest
    return (f"{head}: matched by no commit from {f.first_at:%Y-%m-%d} to {f.last_at:%Y-%m-%d} "
            f"(nearest: {count} at {commit[:12]}, {when:%Y-%m-%d})")
