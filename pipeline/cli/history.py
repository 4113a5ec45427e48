"""``census history``: a published figure against every commit of a local git repository.

Walks the range (``pipeline.scan.history``), stores the totals (``pipeline.store.history``: a rerun
walks only new commits), and prints the change points (each commit where a count changes, with
the files that changed it) and, with ``--match TERM=N``, every run of commits where each term has
its figure, or the nearest commits when none does.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pipeline.cli.args import env_option, existing_dir, existing_file
from pipeline.cli.commands import EXIT_FAILED, UsageError, fail
from pipeline.errors import CensusError
from pipeline.scan import history
from pipeline.settings import DEFAULT_CACHE, DEFAULT_DB, DEFAULT_GIT_URL, ENV, Settings


def arguments(parser: argparse.ArgumentParser) -> None:
    """``history``: the repository, its local clone, the range, the terms and the figures."""
    parser.add_argument("repo", nargs="?", metavar="OWNER/NAME", help="the repository the clone is of (the rows' name)")
    parser.add_argument("--source", type=existing_dir, metavar="GITDIR",
                        help="with OWNER/NAME: a local git repository (a clone, bare or not: git clone --bare URL); "
                             "without it, the history is cloned into the cache from --git-url")
    parser.add_argument("--manifest", type=existing_file, metavar="FILE",
                        help="instead of OWNER/NAME: check each entry's published figures over its history")
    parser.add_argument("--source-dir", type=existing_dir, metavar="DIR",
                        help="with --manifest: the folder of clones (DIR/OWNER/NAME.git or DIR/OWNER/NAME)")
    refs = parser.add_mutually_exclusive_group()
    refs.add_argument("--ref", metavar="REF", help="the ref to walk back from (default: HEAD)")
    refs.add_argument("--all-refs", action="store_true", help="walk every ref")
    parser.add_argument("--first-parent", action="store_true", help="follow only the first parent of merges")
    parser.add_argument("--since", metavar="DATE", help="only commits after DATE (as git log --since)")
    parser.add_argument("--until", metavar="DATE", help="only commits before DATE (as git log --until)")
    parser.add_argument("--terms", dest="terms_spec", default="published", metavar="SET|LIST",
                        help="a term set (published, hints, dialects) or a comma-separated list (default: published)")
    parser.add_argument("--match", dest="figures", action="append", default=[], metavar="TERM=N",
                        help="a published figure to find; repeatable (all must hold at once)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    env_option(parser, "--db", ENV["db_path"], default=DEFAULT_DB, type=Path, dest="db_path", metavar="PATH",
               help="DuckDB database file")
    env_option(parser, "--git-url", ENV["git_url"], default=DEFAULT_GIT_URL, metavar="URL",
               help="the git host OWNER/NAME is cloned from when no --source is given")
    env_option(parser, "--cache", ENV["cache_dir"], default=DEFAULT_CACHE, type=Path, dest="cache_dir",
               metavar="DIR", help="where a cloned history is kept (DIR/clones)")
    parser.add_argument("--offline", action="store_true", default=None,
                        help=f"clone nothing: give --source [env: {ENV['offline']}=1]")


def run(args: argparse.Namespace) -> None:
    """Walk, store, print (DuckDB is imported here: ``census count`` must not load it)."""
    import duckdb

    from pipeline.manifest import terms as term_sets
    from pipeline.run import history as history_published
    from pipeline.store import history as history_store

    settings = Settings.from_env(db_path=args.db_path, git_url=args.git_url, cache_dir=args.cache_dir,
                                 offline=args.offline)
    window = {"ref": args.ref, "all_refs": args.all_refs, "first_parent": args.first_parent,
              "since": args.since, "until": args.until}
    if args.manifest is not None:
        if args.repo or args.source or args.source_dir is None:
            raise UsageError("give --manifest FILE with --source-dir DIR, or OWNER/NAME with --source GITDIR",
                             "--manifest")
        _published(args, settings, window)
        return
    if not args.repo:
        raise UsageError("give OWNER/NAME (with --source GITDIR, or none to clone it), or --manifest FILE with "
                         "--source-dir DIR", "--source")
    if args.source is None:
        from pipeline.fetch.histories import fetch_history

        try:
            args.source = fetch_history(args.repo, None, settings, whole=True)
        except CensusError as exc:
            fail(settings, f"history: {exc}", EXIT_FAILED)
    try:
        terms = term_sets.resolve(args.terms_spec if args.terms_spec in term_sets.TERM_SETS
                                  else args.terms_spec.split(","))
    except ValueError as exc:
        raise UsageError(str(exc), "--terms") from exc
    figures = _figures(args.figures, terms)
    try:
        args.db_path.parent.mkdir(parents=True, exist_ok=True)
        with duckdb.connect(str(args.db_path)) as con:
            history_store.install(con)
            series, walked = history_published.series(con, args.repo, args.source, terms, window)
    except (CensusError, OSError, duckdb.Error) as exc:
        fail(settings, f"history: {args.repo}: {exc}", EXIT_FAILED)
    runs = history.matches(series, terms, figures) if figures else []
    if args.json:
        print(json.dumps(_as_json(args.repo, terms, series, figures, runs), indent=2))
        return
    missing = sorted({path for c in walked for path in c.missing})
    note = [f"note: {len(missing)} files' blobs are missing from this clone and count as nothing: "
            f"{', '.join(missing[:3])}{' ...' if len(missing) > 3 else ''}"] if missing else []
    for line in [*_text(args.repo, terms, series, len(walked)), *note,
                 *(_match_lines(terms, series, figures, runs) if figures else [])]:
        print(line)


def _published(args: argparse.Namespace, settings: Settings, window: dict[str, object]) -> None:
    """``--manifest``: every entry's published figures against its history, stored and printed."""
    import duckdb

    from pipeline.manifest import manifests
    from pipeline.run import history as history_published
    from pipeline.store import history as history_store

    try:
        manifest = manifests.load(args.manifest)
        args.db_path.parent.mkdir(parents=True, exist_ok=True)
        with duckdb.connect(str(args.db_path)) as con:
            history_store.install(con)
            findings, absent = history_published.check(con, manifest, args.source_dir, window)
    except (CensusError, OSError, duckdb.Error) as exc:
        fail(settings, f"history: {exc}", EXIT_FAILED)
    for finding in findings:
        print(history_published.describe(finding))
    for repo in absent:
        print(f"{repo}: no clone under {args.source_dir}: not checked")


def _figures(specs: list[str], terms: tuple[str, ...]) -> dict[str, int]:
    figures: dict[str, int] = {}
    for spec in specs:
        term, _, value = spec.partition("=")
        if term not in terms or not value.strip().lstrip("-").isdigit():
            raise UsageError(f"{spec!r}: give TERM=N with TERM one of {', '.join(terms)}", "--match")
        figures[term] = int(value)
    return figures


def _text(repo: str, terms: tuple[str, ...], series: list[history.CommitCounts], walked: int) -> list[str]:
    """The heading and the change points: each commit where a count changes, with the files."""
    if not series:
        return [f"{repo}: no commit in this range"]
    lines = [f"{repo}: {len(series)} commits from {series[0].committed_at_utc:%Y-%m-%d} to "
             f"{series[-1].committed_at_utc:%Y-%m-%d} ({walked} walked now, the rest stored before); "
             f"terms: {', '.join(terms)}"]
    before: tuple[int, ...] = (0,) * len(terms)
    for c in series:
        changed = [f"{t} {b} -> {n}" for t, b, n in zip(terms, before, c.totals, strict=True) if b != n]
        if changed:
            files = ", ".join(f"{p} {sum(d):+d}" for p, d in c.moved[:3]) + (" ..." if len(c.moved) > 3 else "")
            lines.append(f"{c.committed_at_utc:%Y-%m-%d}  {c.commit[:12]}  {'; '.join(changed)}  ({files})")
        before = c.totals
    return lines


def _match_lines(terms: tuple[str, ...], series: list[history.CommitCounts], figures: dict[str, int],
                 runs: list[history.Match]) -> list[str]:
    """Each run of commits with the figures, or the nearest commit by each term when none has them."""
    wanted = " ".join(f"{t}={n}" for t, n in figures.items())
    lines = [f"{wanted}: matched at {r.first.commit[:12]}..{r.last.commit[:12]} ({r.first.committed_at_utc:%Y-%m-%d}"
             f" .. {r.last.committed_at_utc:%Y-%m-%d}), {r.commits} commits" for r in runs]
    if runs or not series:
        return lines or [f"{wanted}: no commit in this range"]
    lines.append(f"{wanted}: no commit in this range gives these figures")
    for term, figure in figures.items():
        near = history.nearest(series, terms, term, figure)
        if near is not None:
            lines.append(f"  nearest by {term}: {near.totals[terms.index(term)]} at {near.commit[:12]} "
                         f"({near.committed_at_utc:%Y-%m-%d})")
    return lines


def _as_json(repo: str, terms: tuple[str, ...], series: list[history.CommitCounts], figures: dict[str, int],
             runs: list[history.Match]) -> dict[str, object]:
    return {
        "repo": repo, "terms": list(terms),
        "commits": [{"commit": c.commit, "parent": c.parent, "committed_at_utc": c.committed_at_utc.isoformat(),
                     "totals": dict(zip(terms, c.totals, strict=True))} for c in series],
        "figures": figures,
        "matches": [{"first": r.first.commit, "last": r.last.commit, "commits": r.commits} for r in runs],
    }
