"""The ``census`` commands for runtime truth: ``probe`` and ``ingest-tools-list``.

Registered on the ``census`` group when ``pipeline.cli`` is imported; errors become exit
codes here as in ``pipeline.cli`` (a skipped server exits 0, or 1 with ``--strict``; an
unreadable file or a store error 1; bad usage 2).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from pipeline.cli import EXIT_FAILED, EXIT_USAGE, _fail, main
from pipeline.errors import CensusError, StoreLockedError
from pipeline.settings import DEFAULT_DB, ENV, Settings


@main.command(name="probe")
@click.argument("name")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
@click.option("--url", metavar="URL", help="a Streamable HTTP server, instead of a command after --")
@click.option("--env", "env_names", multiple=True, metavar="NAME",
              help="pass this environment variable on to the server (its value is never stored); repeatable")
@click.option("--header", "header_specs", multiple=True, metavar="NAME=VARIABLE",
              help="with --url: send header NAME with the value of environment variable VARIABLE; repeatable")
@click.option("--repo", metavar="OWNER/NAME", help="the repository holding the server's source")
@click.option("--timeout", "initialize_seconds", type=click.FloatRange(min=0, min_open=True), default=60.0,
              show_default=True, metavar="SECONDS", help="for the server to start and answer initialize")
@click.option("--page-timeout", "page_seconds", type=click.FloatRange(min=0, min_open=True), default=30.0,
              show_default=True, metavar="SECONDS", help="for each tools/list page")
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), envvar=ENV["db_path"],
              default=DEFAULT_DB, show_default=True, help=f"DuckDB database file [env: {ENV['db_path']}]")
@click.option("--strict", is_flag=True, help="exit 1 if the server is skipped")
def probe_command(name: str, command: tuple[str, ...], **options: Any) -> None:
    """Capture a running MCP server's tools/list, every page, and store it as NAME's capture.

    `census probe NAME -- COMMAND [ARGS...]` starts a stdio server; `census probe NAME --url URL`
    talks to a Streamable HTTP server. A server that cannot start, never answers or crashes is
    stored as skipped with the reason (exit 0; 1 with --strict).
    """
    from pipeline import probe as probes

    url = options["url"]
    if bool(command) == bool(url):
        raise click.UsageError("give the server's command after --, or --url URL (not both)")
    settings = Settings.from_env(db_path=options["db_path"])
    timeouts = probes.Timeouts(initialize_seconds=options["initialize_seconds"], page_seconds=options["page_seconds"])
    try:
        if url:
            capture = probes.probe_url(name, url, headers=_header_values(options["header_specs"]), timeouts=timeouts)
        else:
            capture = probes.probe(name, command, env=_env_values(options["env_names"]), timeouts=timeouts)
        written = _record_runtime(settings, capture, options["repo"])
    except probes.ProbeError as exc:
        _fail(settings, f"probe: {exc}", EXIT_USAGE)
    except StoreLockedError as exc:
        _fail(settings, f"{exc}\nTip: wait for it to finish, or pass another --db.", EXIT_FAILED)
    except CensusError as exc:
        _fail(settings, str(exc), EXIT_FAILED)
    else:
        click.echo(settings.redact(_capture_line(capture, written)))
        if options["strict"] and capture.status != "ok":
            _fail(settings, f"{name} skipped (--strict)", EXIT_FAILED)


@main.command(name="ingest-tools-list")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--server", required=True, metavar="NAME", help="the server the answer came from")
@click.option("--repo", metavar="OWNER/NAME", help="the repository holding the server's source")
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path), envvar=ENV["db_path"],
              default=DEFAULT_DB, show_default=True, help=f"DuckDB database file [env: {ENV['db_path']}]")
def ingest_tools_list_command(file: Path, server: str, repo: str | None, db_path: Path) -> None:
    """Store a tools/list answer saved earlier as SERVER's capture.

    FILE holds a tools/list result, a JSON-RPC response whose result is one, or a list of
    either (the pages, in order). It replaces the server's previous capture.
    """
    from pipeline.runtime import ingest_tools_list

    settings = Settings.from_env(db_path=db_path)
    try:
        capture = ingest_tools_list(file, server)
        written = _record_runtime(settings, capture, repo)
    except StoreLockedError as exc:
        _fail(settings, f"{exc}\nTip: wait for it to finish, or pass another --db.", EXIT_FAILED)
    except CensusError as exc:
        _fail(settings, str(exc), EXIT_FAILED)
    else:
        click.echo(_capture_line(capture, written))


def _env_values(names: tuple[str, ...], option: str = "--env") -> dict[str, str]:
    """The caller's values of the variables ``option`` names (a missing one is a usage error)."""
    missing = [name for name in names if name not in os.environ]
    if missing:
        raise click.BadParameter(f"not set: {', '.join(missing)}", param_hint=option)
    return {name: os.environ[name] for name in names}


def _header_values(specs: tuple[str, ...]) -> dict[str, str]:
    """``--header NAME=VARIABLE`` as {NAME: value of VARIABLE}."""
    pairs = [spec.partition("=") for spec in specs]
    if any(not name or not variable for name, _, variable in pairs):
        raise click.BadParameter("expected NAME=VARIABLE", param_hint="--header")
    values = _env_values(tuple(variable for _, _, variable in pairs), "--header")
    return {name: values[variable] for name, _, variable in pairs}


def _record_runtime(settings: Settings, capture: Any, repo: str | None) -> bool:
    """Store ``capture`` (and the server's repository); whether it replaced the stored one."""
    from pipeline.runtime_store import record_capture, set_server_repo
    from pipeline.store import Store

    with Store(settings.db_path) as store:
        written = record_capture(store.connection, capture)
        if repo:
            set_server_repo(store.connection, capture.server, repo)
    return written


def _capture_line(capture: Any, written: bool) -> str:
    """One line saying what was captured, or why not."""
    if capture.status != "ok":
        kept = "" if written else " (the earlier ok capture is kept)"
        return f"{capture.server}: skipped: {capture.reason}{kept}"
    annotated = sum(1 for tool in capture.tools if tool.annotated)
    note = f" ({capture.reason})" if capture.reason else ""
    pages = len(capture.pages)
    return (f"{capture.server}: {len(capture.tools)} tools ({annotated} annotated) in "
            f"{pages} page{'' if pages == 1 else 's'}{note}")
