"""The ``census`` command: a thin client of the library, and the one place errors become exit codes.

Exit codes: 0 done (skipped repositories are recorded, not fatal); 1 a fatal error, or any
skipped repository under ``--strict``; 2 bad usage or a bad manifest.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import click

from pipeline import __version__
from pipeline.errors import CensusError, ManifestError, StoreLockedError
from pipeline.settings import DEFAULT_API_URL, DEFAULT_CACHE, DEFAULT_DB, ENV, Settings

F = TypeVar("F", bound=Callable[..., Any])
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def common_options(command: F) -> F:
    """The options every stage command shares, each with its environment variable."""
    options = [
        click.argument("manifest", type=click.Path(dir_okay=False, path_type=Path)),
        click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path),
                     envvar=ENV["db_path"], default=DEFAULT_DB, show_default=True,
                     help=f"DuckDB database file [env: {ENV['db_path']}]"),
        click.option("--cache", "cache_dir", type=click.Path(file_okay=False, path_type=Path),
                     envvar=ENV["cache_dir"], default=DEFAULT_CACHE, show_default=True,
                     help=f"archive cache folder [env: {ENV['cache_dir']}]"),
        click.option("--api-url", envvar=ENV["api_url"], default=DEFAULT_API_URL, show_default=True,
                     help=f"GitHub API root [env: {ENV['api_url']}]"),
        click.option("--strict", is_flag=True, help="exit 1 if any repository is skipped"),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="census")
def main() -> None:
    """Reproducible counts of MCP tool annotations in public repositories.

    The token, if any, is read from GITHUB_TOKEN only.
    """


@main.command()
@common_options
def run(**options: Any) -> None:
    """Pin unpinned entries, fetch and scan every repository, print the totals."""
    _stage("run", options, show_totals=True)


@main.command()
@common_options
def pin(**options: Any) -> None:
    """Resolve each entry's ref (or default branch) to a commit and write it into MANIFEST."""
    _stage("pin", options)


@main.command()
@common_options
def fetch(**options: Any) -> None:
    """Download and verify every pinned archive into the cache."""
    _stage("fetch", options)


@main.command()
@common_options
def scan(**options: Any) -> None:
    """Count the manifest's terms in every fetched tree and store them; print the totals."""
    _stage("scan", options, show_totals=True)


def _stage(name: str, options: dict[str, Any], show_totals: bool = False) -> None:
    """Run one stage with errors mapped to exit codes."""
    settings = Settings.from_env(
        db_path=options["db_path"], cache_dir=options["cache_dir"], api_url=options["api_url"]
    )
    try:
        skipped = _run_stage(name, options["manifest"], settings, show_totals)
    except ManifestError as exc:
        _fail(settings, str(exc), EXIT_USAGE)
    except StoreLockedError as exc:
        _fail(settings, f"{exc}\nTip: wait for it to finish, or pass another --db.", EXIT_FAILED)
    except CensusError as exc:
        _fail(settings, str(exc), EXIT_FAILED)
    except KeyboardInterrupt:
        _fail(settings, "interrupted; what was stored so far is kept", 130)
    if skipped and options["strict"]:
        _fail(settings, f"{skipped} repositories skipped (--strict)", EXIT_FAILED)


def _run_stage(name: str, manifest_path: Path, settings: Settings, show_totals: bool) -> int:
    from pipeline import manifest as manifests
    from pipeline.census import Census
    from pipeline.console import ConsoleObserver
    from pipeline.store import Store

    manifest = manifests.load(manifest_path)
    observer = ConsoleObserver(settings)
    census = Census(manifest, settings, observer)
    try:
        if name == "pin":
            return _count_skips(census.pin())
        with Store(settings.db_path) as store:
            skipped = _count_skips(getattr(census, name)(store))
            observer.close()
            if show_totals:
                _print_totals(store, manifest.name)
            return skipped
    finally:
        observer.close()
        census.close()


def _count_skips(outcomes: Iterable[Any]) -> int:
    return sum(1 for outcome in outcomes if outcome.skipped)


def _print_totals(store: Any, manifest_name: str) -> None:
    from pipeline import stats
    from pipeline.console import stdout_console, totals_table

    frame = stats.repo_totals(store.connection, manifest_name)
    stdout_console().print(totals_table(frame, f"{manifest_name}: case-insensitive byte counts"))


def _fail(settings: Settings, message: str, code: int) -> None:
    click.echo(settings.redact(f"census: error: {message}"), err=True)
    sys.exit(code)
