"""The ``census`` command: a thin client of the library, and the one place errors become exit codes.

Exit codes: 0 done (skipped repositories are recorded, not fatal); 1 a fatal error, or any
skipped repository under ``--strict``; 2 bad usage or a bad manifest; 130 interrupted.
:func:`build_parser` is plain :mod:`argparse`: one subparser per command (:data:`COMMANDS`),
its arguments declared in :mod:`pipeline.cli.args`, its handler here (the manifest stages) or
in :mod:`pipeline.cli.commands`. The library is imported inside the handlers, so ``census
count`` loads neither DuckDB nor polars.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import ExitStack, suppress
from typing import Any

from pipeline import __version__
from pipeline.cli import (
    args as cli_args,
)
from pipeline.cli import (
    check as cli_check,
)
from pipeline.cli import (
    commands as cli_commands,
)
from pipeline.cli import (
    discover as cli_discover,
)
from pipeline.cli import (
    history as cli_history,
)
from pipeline.cli import (
    ingest_catalog as cli_ingest_catalog,
)
from pipeline.cli import (
    probe_registry as cli_probe_registry,
)
from pipeline.cli import (
    timeline as cli_timeline,
)
from pipeline.cli.args import EnvError, help_formatter
from pipeline.cli.commands import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, UsageError, exit_codes, fail
from pipeline.errors import CensusError
from pipeline.settings import Settings

DESCRIPTION = ("Reproducible counts of MCP tool annotations in public repositories. "
               "The token, if any, is read from GITHUB_TOKEN only.")
#: the manifest stages, each with its help
#: what each command does for its user, one sentence: its line in ``census --help`` and the opening of its own
SUMMARIES = {
    "run": "Pin the manifest's unpinned entries, fetch and scan every repository not scanned yet, and print "
           "the tools found and the published figures against the measured ones.",
    "pin": "Resolve each unpinned entry's ref (or default branch) to a commit and write it into the manifest.",
    "fetch": "Download every pinned repository's archive into the cache and verify it.",
    "scan": "Count the terms and find the MCP tools in every fetched tree, store them, and print the totals.",
    "count": "Count the terms (and with --detect, the tools) in local archives, folders or files, storing "
             "nothing.",
    "check": "Check a server's working tree: each MCP tool's declared hints against what its handler does, "
             "exiting 1 on a contradiction (a CI gate).",
    "discover": "Write a manifest of the repositories behind an MCP registry's servers, a saved dump of one, "
                "a list, or the packages that answered a probe.",
    "audit": "Compare a hand audit's truth files with the stored tools and print precision and recall by "
             "tool name, per repository and overall.",
    "history": "Count the terms at every commit of a repository's history and print how a published figure "
               "changed over time.",
    "timeline": "Scan every repository of a manifest at the end of each month (or quarter, or year) and "
                "print when servers began to declare hints.",
    "export": "Write every table and view of the database as Parquet or CSV files, one each, rows sorted.",
    "report": "Write a manifest's report: README.md with tables, PNG charts and caveats, and the data "
              "behind them.",
    "probe": "Start an MCP server (or reach one by URL), ask it for its tools, and store the answer as its "
             "capture.",
    "probe-registry": "Install every npm and PyPI server of a registry, start each in a sandbox, ask it for "
                      "its tools, and store the answers.",
    "ingest-tools-list": "Store a tools/list answer saved elsewhere as a server's capture.",
    "ingest-catalog": "Store the tool names a package catalog recorded for its servers as captures, each "
                      "paired with its repository.",
}
Handler = Callable[[argparse.Namespace], None]
__all__ = ["EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "build_parser", "command_parsers", "main"]


def main(argv: Sequence[str] | None = None, prog_name: str = "census") -> None:
    """Run ``census ARGS`` (``argv``, default ``sys.argv[1:]``); a failure exits 1, 2 or 130."""
    try:
        _run(list(sys.argv[1:] if argv is None else argv), prog_name)
    except KeyboardInterrupt:
        fail(Settings(), "interrupted", EXIT_INTERRUPTED)
    except BrokenPipeError:  # the reader went away (`census count --per-file ... | head`)
        with suppress(OSError, ValueError):  # Python flushes stdout at exit: into /dev/null
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(EXIT_FAILED)


def _run(argv: list[str], prog: str) -> None:
    """Parse ``argv`` and run the command it names; a usage error exits 2 with that command's usage."""
    server_command: list[str] = []
    if argv[:1] == ["probe"] and "--" in argv:  # `census probe NAME -- COMMAND ARGS...`: all verbatim
        at = argv.index("--")
        argv, server_command = argv[:at], argv[at + 1:]
    parser, commands = build_parser(prog, argv[0] if argv and argv[0] in COMMANDS else None)
    args = parser.parse_args(argv)
    command = commands[args.command]
    for value in vars(args).values():
        if isinstance(value, EnvError):  # a bad environment variable the command would use
            command.error(str(value))
    args.server_command = server_command
    try:
        args.handler(args)
    except UsageError as exc:
        command.error(str(exc))


def build_parser(prog: str = "census", only: str | None = None
                 ) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``census`` parser, and the subparser of each command (its ``handler`` set) by name.

    With ``only``, only that command gets its subparser: ``census ONLY ...`` needs no other,
    and the nine others would cost ~2.5 ms of every call.
    """
    parser = argparse.ArgumentParser(prog=prog, description=DESCRIPTION, formatter_class=help_formatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s, version {__version__}")
    subparsers = parser.add_subparsers(title="commands", dest="command", required=True, metavar="COMMAND")
    for name, (handler, add_arguments) in COMMANDS.items():
        if only in (None, name):
            sub = subparsers.add_parser(name, help=SUMMARIES[name], description=SUMMARIES[name],
                                        formatter_class=help_formatter)
            sub.set_defaults(handler=handler)
            add_arguments(sub)
    return parser, dict(subparsers.choices)


def command_parsers(prog_name: str = "census") -> dict[str, argparse.ArgumentParser]:
    """The subparser of every command, by name (what ``census NAME --help`` describes)."""
    return build_parser(prog_name)[1]


def _stage(args: argparse.Namespace) -> None:
    """Run the manifest stage ``args.command``; its errors become exit codes."""
    settings = Settings.from_env(db_path=args.db_path, cache_dir=args.cache_dir, api_url=args.api_url,
                                 graphql_url=args.graphql_url, server_url=args.server_url,
                                 mirrors_dir=args.mirrors_dir, offline=args.offline)
    with exit_codes(settings):
        skipped = _run_stage(args, settings)
    if skipped and args.strict:
        fail(settings, f"{skipped} repositories skipped (--strict)", EXIT_FAILED)


def _run_stage(args: argparse.Namespace, settings: Settings) -> int:
    """Run the stage; how many repositories it skipped."""
    from pipeline.cli.console import ConsoleObserver
    from pipeline.manifest import manifests
    from pipeline.run.census import Census
    from pipeline.store.database import Store

    manifest = manifests.load(args.manifest)
    observer = ConsoleObserver(settings)
    census = Census(manifest, settings, observer)
    stack = ExitStack()
    try:
        if args.command == "pin":
            return sum(outcome.skipped for outcome in census.pin(args.jobs))
        with Store(settings.db_path) as store:
            stage = getattr(census, args.command)
            outcomes = stage(store, _executor(args, stack)) if args.command == "run" else stage(store)
            skipped: int = sum(outcome.skipped for outcome in outcomes)
            observer.close()
            if args.command in ("run", "scan"):
                _print_totals(store, manifest.name, args.wide)
            return skipped
    finally:
        observer.close()
        stack.close()
        census.close()


def _executor(args: argparse.Namespace, stack: ExitStack) -> Any:
    """The executor ``--executor`` and ``--jobs`` name, closed when ``stack`` closes."""
    from pipeline.run.runner import executor

    try:
        chosen = executor(args.executor_spec, args.jobs)
    except ValueError as exc:
        raise UsageError(str(exc), "--executor") from exc
    except OSError as exc:  # a scheduler that cannot be reached
        raise CensusError(f"executor {args.executor_spec}: {exc}") from exc
    stack.callback(chosen.close)
    return chosen


def _print_totals(store: Any, manifest_name: str, wide: bool) -> None:
    """What the census was run for: the tools by role (every column with ``--wide``), the
    reasons of the skipped repositories, and the published figures against the measured ones."""
    from pipeline.analysis import stats
    from pipeline.cli.console import stdout_console
    from pipeline.cli.tables import (
        NOTE,
        PUBLISHED_TITLE,
        published_table,
        skipped_lines,
        tools_table,
        tools_title,
        totals_table,
    )

    frame, console = stats.repo_totals(store.connection, manifest_name), stdout_console()

    def say(line: str) -> None:
        console.print(line, markup=False, highlight=False, soft_wrap=True)

    say(tools_title(frame, manifest_name, wide))
    console.print(totals_table(frame) if wide else tools_table(frame))
    if not wide:
        for line in skipped_lines(frame):
            say(line)
        console.print(NOTE, markup=False, highlight=False)
    published = published_table(stats.published_vs_measured(store.connection, manifest_name))
    if published is not None:
        say(f"\n{PUBLISHED_TITLE}")
        console.print(published)


#: every command: the function it runs, and the function that declares its arguments
COMMANDS: dict[str, tuple[Handler, Callable[[argparse.ArgumentParser], None]]] = {
    "run": (_stage, cli_args.run_arguments),
    "pin": (_stage, cli_args.pin_arguments),
    "fetch": (_stage, cli_args.stage_arguments),
    "scan": (_stage, cli_args.scan_arguments),
    "count": (cli_commands.count, cli_args.count_arguments),
    "check": (cli_check.run, cli_check.arguments),
    "discover": (cli_discover.discover, cli_args.discover_arguments),
    "audit": (cli_commands.audit, cli_args.audit_arguments),
    "history": (cli_history.run, cli_history.arguments),
    "timeline": (cli_timeline.run, cli_timeline.arguments),
    "export": (cli_commands.export, cli_args.export_arguments),
    "report": (cli_commands.report, cli_args.report_arguments),
    "probe": (cli_commands.probe, cli_args.probe_arguments),
    "probe-registry": (cli_probe_registry.run, cli_probe_registry.arguments),
    "ingest-tools-list": (cli_commands.ingest_tools_list, cli_args.ingest_arguments),
    "ingest-catalog": (cli_ingest_catalog.run, cli_ingest_catalog.arguments),
}
