"""``census timeline``: every repository of a manifest at the end of every month (or quarter, or year),
scanned as ``census run`` scans a pinned commit, from local clones or histories it fetches.

Walks and scans (``pipeline.run.timeline``), stores the ``timeline_*`` tables (a rerun scans only what
is missing), then prints what it covered and the adoption per period (``stats.timeline_adoption``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pipeline.cli.args import env_option, existing_dir, positive_int
from pipeline.cli.commands import EXIT_FAILED, UsageError, exit_codes, fail
from pipeline.settings import DEFAULT_CACHE, DEFAULT_DB, DEFAULT_GIT_URL, DEFAULT_JOBS, ENV, Settings

#: the first period when none is given: the month MCP was published (November 2024)
DEFAULT_SINCE = "2024-11"
#: ``timeline_adoption`` columns -> their header in the terminal table (two short lines each)
HEADERS = {"period": "period", "servers_alive": "alive", "servers_with_tools": "with\ntools",
           "servers_annotating": "annot-\nating", "annotating_share": "share", "server_tools": "server\ntools",
           "annotated_tools": "annot-\nated", "servers_read_only_matches": "readOnly\nmatches", "scanned": "scan-\nned",
           "reused": "re-\nused"}
NOTE = ("alive: repositories with a commit by the period's end; with tools: with MCP server tools; annotating: "
        "declaring an annotations object on at least one (share: of those read); readOnly matches: repositories "
        "whose tree holds readOnlyHint at all (a byte count); scanned / reused: periods whose tree was new, or an "
        "earlier period's. Charts and the rest: census report.")


def arguments(parser: argparse.ArgumentParser) -> None:
    """``timeline``: MANIFEST, the periods, the mirrors, the workers and the database."""
    from pipeline.run.periods import EVERY

    parser.add_argument("manifest", type=Path, metavar="MANIFEST", help="the manifest file (TOML)")
    parser.add_argument("--every", choices=tuple(EVERY), default="month",
                        help="one period a month, a quarter or a year (default: %(default)s)")
    parser.add_argument("--since", default=DEFAULT_SINCE, metavar="DATE",
                        help="the first period: YYYY, YYYY-MM or YYYY-MM-DD in it (default: %(default)s, the month "
                             "MCP was published)")
    parser.add_argument("--until", metavar="DATE",
                        help="the last period (the same forms; default: the one the newest commit falls in)")
    env_option(parser, "--mirrors", ENV["mirrors_dir"], default=None, type=existing_dir, dest="mirrors_dir",
               metavar="DIR", help="a folder of local git mirrors (DIR/OWNER/NAME.git or DIR/OWNER/NAME); an entry's "
                                   "own source folder is read first")
    env_option(parser, "--git-url", ENV["git_url"], default=DEFAULT_GIT_URL, metavar="URL",
               help="the git host a history no local clone holds is fetched from (commits and trees, then the files "
                    "of the trees scanned)")
    env_option(parser, "--cache", ENV["cache_dir"], default=DEFAULT_CACHE, type=Path, dest="cache_dir",
               metavar="DIR", help="the cache of fetched histories (DIR/histories) and archives")
    parser.add_argument("--offline", action="store_true", default=None,
                        help="fetch nothing: a repository with no local clone is a no-mirror row "
                             f"[env: {ENV['offline']}=1]")
    env_option(parser, "--jobs", "CENSUS_JOBS", default=DEFAULT_JOBS, type=positive_int, metavar="N",
               help="trees scanned (worker processes) and histories fetched at once")
    env_option(parser, "--db", ENV["db_path"], default=DEFAULT_DB, type=Path, dest="db_path", metavar="PATH",
               help="DuckDB database file")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 if any repository's history or any period's tree could not be read")


def run(args: argparse.Namespace) -> None:
    """Walk, scan, store and print; errors become exit codes here."""
    from pipeline.run.periods import periods

    settings = Settings.from_env(db_path=args.db_path, mirrors_dir=args.mirrors_dir, git_url=args.git_url,
                                 cache_dir=args.cache_dir, offline=args.offline)
    try:
        periods(args.every, args.since, args.until)
    except ValueError as exc:
        option = "--until" if str(exc).startswith("--until") else "--since"
        raise UsageError(str(exc).split(": ", 1)[-1], option) from exc
    with exit_codes(settings, "timeline: "):
        outcomes = _timeline(args, settings)
    troubled = sum(o.status == "skipped" or o.skipped > 0 for o in outcomes)
    if troubled and args.strict:
        fail(settings, f"{troubled} repositories not read whole (--strict)", EXIT_FAILED)


def _timeline(args: argparse.Namespace, settings: Settings) -> list[Any]:
    """Run the timeline into the database, then print what it covered and the adoption table."""
    from pipeline.cli.console import ConsoleObserver
    from pipeline.manifest import manifests
    from pipeline.run.runner import LocalExecutor
    from pipeline.run.timeline import Timeline, Window
    from pipeline.store.database import Store

    manifest = manifests.load(args.manifest)
    observer = ConsoleObserver(settings)
    timeline = Timeline(manifest, settings, Window(args.every, args.since, args.until), observer)
    timeline.history_jobs = args.jobs
    executor = LocalExecutor(args.jobs)
    try:
        with Store(settings.db_path) as store:
            outcomes = list(timeline.run(store, executor))
            observer.close()
            _print(store, manifest.name, args.every, timeline.periods, outcomes)
    finally:
        observer.close()
        executor.close()
        timeline.close()
    return outcomes


def _print(store: Any, name: str, every: str, covered: Any, outcomes: list[Any]) -> None:
    """What was covered, in two lines, then the adoption per period."""
    from pipeline.analysis import stats
    from pipeline.cli.console import stdout_console
    from pipeline.cli.tables import number_table

    console = stdout_console()

    def say(line: str) -> None:
        console.print(line, markup=False, highlight=False, soft_wrap=True)

    walked = [o for o in outcomes if o.status == "walked"]
    say(f"{name}: timeline by {every}, {covered[0].label} .. {covered[-1].label} ({len(covered)} periods)")
    say(f"{len(walked)} of {len(outcomes)} repositories walked ({sum(o.status == 'no-mirror' for o in outcomes)} "
        f"with no mirror, {sum(o.status == 'skipped' for o in outcomes)} not readable); "
        f"{sum(o.periods for o in walked)} repository-periods: {sum(o.scanned for o in walked)} scanned, "
        f"{sum(o.reused for o in walked)} reused (the tree of an earlier period), "
        f"{sum(o.skipped for o in walked)} skipped; {sum(o.scans_run for o in walked)} trees scanned now")
    console.print(number_table(stats.timeline_adoption(store.connection, name, every), HEADERS))
    console.print(NOTE, markup=False, highlight=False)
