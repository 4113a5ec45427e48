"""The ``census`` command: a thin client of the library, and the one place errors become exit codes.

Exit codes: 0 done (skipped repositories are recorded, not fatal); 1 a fatal error, or any
skipped repository under ``--strict``; 2 bad usage or a bad manifest.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TypeVar

import click

from pipeline import __version__
from pipeline.errors import CensusError, ManifestError, StoreLockedError
from pipeline.settings import DEFAULT_API_URL, DEFAULT_CACHE, DEFAULT_DB, DEFAULT_JOBS, ENV, Settings

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
@click.option("--jobs", type=click.IntRange(min=1), envvar="CENSUS_JOBS", default=DEFAULT_JOBS, show_default=True,
              help="repositories fetched and scanned at once (worker processes) [env: CENSUS_JOBS]")
@click.option("--executor", "executor_spec", envvar="CENSUS_EXECUTOR", default="local", show_default=True,
              metavar="local|dask://HOST:PORT", help="where tasks run [env: CENSUS_EXECUTOR]")
def run(**options: Any) -> None:
    """Pin unpinned entries, fetch and scan every repository not yet scanned, print the totals."""
    _stage("run", options, show_totals=True)


@main.command()
@common_options
@click.option("--jobs", type=click.IntRange(min=1), envvar="CENSUS_JOBS", default=DEFAULT_JOBS, show_default=True,
              help="commits resolved at once [env: CENSUS_JOBS]")
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


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--terms", "terms_spec", default="published", show_default=True,
              help="a term set (published, hints, dialects) or a comma-separated list of terms")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object")
@click.option("--per-file", is_flag=True, help="also print the counts of every file")
@click.option("--detect", is_flag=True, help="also run the registration detector and count the tools")
def count(paths: tuple[Path, ...], terms_spec: str, as_json: bool, per_file: bool, detect: bool) -> None:
    """Count terms in archives (.tar.gz, .tgz, .tar, .zip), folders or files, as `census scan` does.

    Nothing is stored; exit 1 if an input cannot be read (the others are still counted).
    """
    from pipeline import terms as term_sets
    from pipeline.inputs import count_paths

    try:
        terms = term_sets.resolve(terms_spec if terms_spec in term_sets.TERM_SETS else terms_spec.split(","))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--terms") from exc
    report = count_paths(list(paths), terms, detect=detect)
    click.echo(_count_json(report, per_file) if as_json else _count_text(report, per_file))
    for path, reason in report.failed.items():
        click.echo(f"census: error: {path}: {reason}", err=True)
    if report.failed:
        sys.exit(EXIT_FAILED)


@main.command()
@click.option("--registry", metavar="URL", help="an MCP registry (e.g. https://registry.modelcontextprotocol.io)")
@click.option("--from-file", "from_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="a file of owner/name lines (or GitHub URLs)")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="the manifest to write, e.g. manifests/registry.toml")
@click.option("--name", help="the census name  [default: the --out file's stem]")
def discover(registry: str | None, from_file: Path | None, out: Path, name: str | None) -> None:
    """Write a manifest listing the repositories of a registry's servers (or of a list).

    One entry per repository, unpinned (run `census pin` next); servers without a GitHub
    repository are listed in a comment with the reason.
    """
    from pipeline import discover as discovery
    from pipeline import manifest as manifests

    if (registry is None) == (from_file is None):
        raise click.UsageError("give one of --registry URL or --from-file LIST")
    settings = Settings.from_env()
    try:
        if from_file is not None:
            found = discovery.from_lines(from_file.read_text(encoding="utf-8").splitlines(), str(from_file))
        else:
            found = discovery.from_registry(str(registry), settings)
        manifests.save(out, discovery.render(found, name or out.stem))
        manifests.load(out)  # what was written must be a valid manifest
    except (CensusError, OSError, UnicodeDecodeError) as exc:
        _fail(settings, f"discover: {exc}", EXIT_FAILED)
    click.echo(f"{out}: {len(found.entries)} repositories, {len(found.left_out)} servers left out")


@main.command(name="export")
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), envvar=ENV["db_path"],
              default=DEFAULT_DB, show_default=True, help=f"DuckDB database file [env: {ENV['db_path']}]")
@click.option("--format", "fmt", type=click.Choice(["parquet", "csv"]), default="parquet", show_default=True)
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="folder to write one file per table and view into")
def export_command(db_path: Path, fmt: str, out: Path) -> None:
    """Dump every table and view of the database as Parquet or CSV files (rows sorted)."""
    from pipeline.export import export

    settings = Settings.from_env(db_path=db_path)
    try:
        written = export(db_path, out, fmt)
    except (CensusError, OSError) as exc:
        _fail(settings, str(exc), EXIT_FAILED)
    click.echo(f"{out}: {len(written)} files ({', '.join(p.stem for p in written)})")


def _count_json(report: Any, per_file: bool) -> str:
    import json

    body: dict[str, Any] = {"totals": report.totals, "regular_files": report.regular_files,
                            "content_bytes": report.content_bytes, "skipped_members": report.skipped_members}
    if report.tools is not None:
        body["tools"] = report.tools
    if per_file:
        body["per_file"] = report.per_file
    if report.failed:
        body["failed"] = report.failed
    return json.dumps(body, indent=2, ensure_ascii=False)


def _count_text(report: Any, per_file: bool) -> str:
    lines = [f"{path}\t{term}\t{n}" for path, counts in report.per_file.items() for term, n in counts.items()]
    lines = lines if per_file else []
    lines += [f"{term}\t{n}" for term, n in report.totals.items()]
    lines += [f"{key}\t{n}" for key, n in (report.tools or {}).items()]
    lines.append(f"({report.regular_files} files, {report.content_bytes} bytes, {report.skipped_members} not read)")
    return "\n".join(lines)


@main.command()
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), envvar=ENV["db_path"],
              default=DEFAULT_DB, show_default=True, help=f"DuckDB database file [env: {ENV['db_path']}]")
@click.option("--manifest", help="a manifest name stored in the database, or a manifest file  "
                                 "[default: the only one stored]")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="folder to write  [default: reports/<manifest name>]")
def report(db_path: Path, manifest: str | None, out_dir: Path | None) -> None:
    """Write a report of one manifest's census: README.md with tables, PNG charts and caveats, and its data.

    The database is only read; the report shows only numbers from pipeline.stats.
    """
    from pipeline import report as reports

    settings = Settings.from_env(db_path=db_path)
    try:
        written = reports.write_from_db(db_path, manifest, out_dir)
    except ManifestError as exc:
        _fail(settings, str(exc), EXIT_USAGE)
    except CensusError as exc:
        _fail(settings, str(exc), EXIT_FAILED)
    else:
        click.echo(f"{written[0]} (and {len(written) - 1} files beside it: charts and data)")


def _stage(name: str, options: dict[str, Any], show_totals: bool = False) -> None:
    """Run one stage with errors mapped to exit codes."""
    settings = Settings.from_env(
        db_path=options["db_path"], cache_dir=options["cache_dir"], api_url=options["api_url"]
    )
    try:
        skipped = _run_stage(name, options, settings, show_totals)
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


def _run_stage(name: str, options: dict[str, Any], settings: Settings, show_totals: bool) -> int:
    from pipeline import manifest as manifests
    from pipeline.census import Census
    from pipeline.console import ConsoleObserver
    from pipeline.store import Store

    manifest = manifests.load(options["manifest"])
    observer = ConsoleObserver(settings)
    census = Census(manifest, settings, observer)
    stack = ExitStack()
    try:
        if name == "pin":
            return _count_skips(census.pin(options["jobs"]))
        with Store(settings.db_path) as store:
            if name == "run":
                skipped = _count_skips(census.run(store, _executor(options, stack)))
            else:
                skipped = _count_skips(getattr(census, name)(store))
            observer.close()
            if show_totals:
                _print_totals(store, manifest.name)
            return skipped
    finally:
        observer.close()
        stack.close()
        census.close()


def _executor(options: dict[str, Any], stack: ExitStack) -> Any:
    """The executor ``--executor`` and ``--jobs`` name, closed when ``stack`` closes."""
    from pipeline.runner import executor

    try:
        chosen = executor(options["executor_spec"], options["jobs"])
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--executor") from exc
    except OSError as exc:  # a scheduler that cannot be reached
        raise CensusError(f"executor {options['executor_spec']}: {exc}") from exc
    stack.callback(chosen.close)
    return chosen


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


from pipeline import cli_runtime  # noqa: E402  (registers probe and ingest-tools-list on the group)

__all__ = ["cli_runtime", "main"]
