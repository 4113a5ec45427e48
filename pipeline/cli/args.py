"""What each ``census`` command accepts: one function per command declares its arguments on its
:mod:`argparse` subparser, with the argument types and environment defaults below.

A type is a plain function for ``add_argument(type=...)``: a bad value raises
:class:`argparse.ArgumentTypeError`, which argparse reports as ``PROG: error: argument X: ...``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pipeline.settings import DEFAULT_API_URL, DEFAULT_CACHE, DEFAULT_DB, DEFAULT_JOBS, ENV


class EnvError(ValueError):
    """The default of an option whose environment variable holds a bad value: exit 2 if it is used."""


def positive_int(text: str) -> int:
    """``text`` as a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return value


def positive_float(text: str) -> float:
    """``text`` as a number above 0."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:  # NaN too
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return value


def existing_path(text: str) -> Path:
    """``text`` as the path of something that exists."""
    path = Path(text)
    if not path.exists():
        raise argparse.ArgumentTypeError(f"{text!r} does not exist")
    return path


def existing_file(text: str) -> Path:
    """``text`` as the path of something that exists and is not a folder (a pipe will do)."""
    path = existing_path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder")
    return path


def existing_dir(text: str) -> Path:
    """``text`` as the path of a folder that exists."""
    path = existing_path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder")
    return path


def help_formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's own help formatter, as wide as :func:`shutil.get_terminal_size` would make it.

    Left to find the width itself, argparse imports :mod:`shutil` (and with it bz2 and lzma):
    ~2.5 ms of every ``census`` call. Help and usage look the same.
    """
    columns = os.environ.get("COLUMNS", "")
    width = int(columns) if columns.isascii() and columns.isdigit() else 0
    if not width:
        try:
            width = os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 0
        except (OSError, ValueError):
            width = 0
    return argparse.HelpFormatter(prog, width=(width or 80) - 2)


def env_option(parser: argparse.ArgumentParser, flag: str, variable: str, *, default: object, help: str,
               type: Callable[[str], object] = str, **settings: Any) -> None:
    """``parser.add_argument(flag, ...)``, its default read from ``$variable`` when set (checked by ``type``).

    A value ``type`` refuses becomes an :class:`EnvError` default, for the caller to report
    (exit 2) if the command runs without ``flag``.
    """
    text = os.environ.get(variable, "")
    if text:
        try:
            default = type(text)
        except argparse.ArgumentTypeError as exc:
            default = EnvError(f"environment variable {variable}: {exc}")
    parser.add_argument(flag, type=type, default=default, help=f"{help} [env: {variable}] (default: %(default)s)",
                        **settings)


def scan_arguments(parser: argparse.ArgumentParser) -> None:
    """``scan``: the stage arguments and ``--wide``."""
    stage_arguments(parser)
    _wide_option(parser)


def _wide_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wide", action="store_true",
                        help="print every column: the term counts too, not only the MCP tools by role")


def stage_arguments(parser: argparse.ArgumentParser) -> None:
    """``fetch`` and ``scan``, and the start of ``run`` and ``pin``: MANIFEST and where the data is."""
    parser.add_argument("manifest", type=Path, metavar="MANIFEST", help="the manifest file (TOML)")
    _db_option(parser)
    env_option(parser, "--cache", ENV["cache_dir"], default=DEFAULT_CACHE, type=Path, dest="cache_dir",
               metavar="DIR", help="archive cache folder")
    env_option(parser, "--api-url", ENV["api_url"], default=DEFAULT_API_URL, metavar="URL", help="GitHub API root")
    env_option(parser, "--graphql-url", ENV["graphql_url"], default=None, metavar="URL",
               help="GitHub GraphQL endpoint, for pins 100 to a query; None: derived from the API root")
    env_option(parser, "--server-url", ENV["server_url"], default=None, metavar="URL",
               help="GitHub web root, whose public archive URLs need no API request; None: github.com for "
                    "github.com's API, archives from the API for another")
    env_option(parser, "--mirrors", ENV["mirrors_dir"], default=None, type=existing_dir, dest="mirrors_dir",
               metavar="DIR", help="a folder of local git mirrors (DIR/OWNER/NAME.git or DIR/OWNER/NAME) read "
                                   "before GitHub")
    parser.add_argument("--offline", action="store_true", default=None,
                        help="send no request: a repository no mirror or local source holds is skipped "
                             f"[env: {ENV['offline']}=1]")
    parser.add_argument("--strict", action="store_true", help="exit 1 if any repository is skipped")


def pin_arguments(parser: argparse.ArgumentParser) -> None:
    """``pin``: the stage arguments and ``--jobs``."""
    stage_arguments(parser)
    env_option(parser, "--jobs", "CENSUS_JOBS", default=DEFAULT_JOBS, type=positive_int, metavar="N",
               help="commits resolved at once")


def run_arguments(parser: argparse.ArgumentParser) -> None:
    """``run``: the stage arguments, ``--jobs`` and ``--executor``."""
    stage_arguments(parser)
    env_option(parser, "--jobs", "CENSUS_JOBS", default=DEFAULT_JOBS, type=positive_int, metavar="N",
               help="repositories fetched and scanned at once (worker processes)")
    env_option(parser, "--executor", "CENSUS_EXECUTOR", default="local", dest="executor_spec", metavar="SPEC",
               help="where tasks run: local or dask://HOST:PORT")
    _wide_option(parser)


def count_arguments(parser: argparse.ArgumentParser) -> None:
    """``count``: PATH... and what to count."""
    parser.add_argument("paths", nargs="+", type=existing_path, metavar="PATH",
                        help="an archive (.tar.gz, .tgz, .tar, .zip), a folder or a file")
    parser.add_argument("--terms", dest="terms_spec", default="published", metavar="SET|LIST",
                        help="a term set (published, hints, dialects) or a comma-separated list of terms "
                             "(default: %(default)s)")
    parser.add_argument("--json", dest="as_json", action="store_true", help="print one JSON object")
    parser.add_argument("--per-file", action="store_true", help="also print the counts of every file")
    parser.add_argument("--detect", action="store_true",
                        help="also run the registration detector and count the tools by role (server, example, test)")
    parser.add_argument("--server-path", dest="server_paths", action="append", default=[], metavar="PATH",
                        help="a folder inside each input where the MCP server lives: what lies under it is server "
                             "code unless it is itself a test or an example (as a manifest's server_paths); "
                             "repeatable")


def discover_arguments(parser: argparse.ArgumentParser) -> None:
    """``discover``: where the repositories come from, and the manifest to write."""
    parser.add_argument("--registry", metavar="URL",
                        help="an MCP registry (e.g. https://registry.modelcontextprotocol.io)")
    parser.add_argument("--registry-file", type=existing_file, metavar="FILE",
                        help="a registry dump: the seed's list of servers, a saved /v0/servers answer, "
                             "or a list of such pages (JSON)")
    parser.add_argument("--from-file", type=existing_file, metavar="LIST",
                        help="a file of owner/name lines (or GitHub URLs)")
    parser.add_argument("--from-captures", action="store_true",
                        help="instead: the packages that answered in the database (census probe-registry), each "
                             "repository pinned at the commit its package was built from (needs --mirrors)")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE",
                        help="the manifest to write, e.g. manifests/registry.toml")
    parser.add_argument("--name", help="the census name (default: the --out file's stem)")
    _db_option(parser)
    env_option(parser, "--mirrors", ENV["mirrors_dir"], default=None, type=existing_dir, dest="mirrors_dir",
               metavar="DIR", help="with --from-captures: a folder of local git mirrors (DIR/OWNER/NAME.git or "
                                   "DIR/OWNER/NAME)")


def audit_arguments(parser: argparse.ArgumentParser) -> None:
    """``audit``: the truth folder, the database and where to write the comparison."""
    parser.add_argument("truth", type=existing_dir, metavar="TRUTH_DIR",
                        help="a folder of truth files (OWNER__NAME.toml)")
    _db_option(parser)
    parser.add_argument("--out", type=Path, metavar="FILE", help="also write the comparison here (Markdown)")


def export_arguments(parser: argparse.ArgumentParser) -> None:
    """``export``: the database, a format and a folder."""
    _db_option(parser)
    parser.add_argument("--format", dest="fmt", choices=("parquet", "csv"), default="parquet",
                        help="the file format (default: %(default)s)")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="folder to write one file per table and view into")


def report_arguments(parser: argparse.ArgumentParser) -> None:
    """``report``: the database, a manifest and a folder."""
    _db_option(parser)
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--manifest", metavar="NAME", help="a manifest name stored in the database, or a manifest "
                                                          "file (default: the only one stored)")
    which.add_argument("--runtime", metavar="NAME", help="instead: the runtime census of the database (census "
                                                         "probe-registry), named NAME")
    parser.add_argument("--out", dest="out_dir", type=Path, metavar="DIR",
                        help="folder to write (default: reports/<manifest name>, or reports/<runtime NAME>)")
    parser.add_argument("--timeline-only", action="store_true",
                        help="only put the timeline `census timeline` stored into the population report already in "
                             "the folder; its other frames are kept (for a report whose census database is elsewhere)")


def probe_arguments(parser: argparse.ArgumentParser) -> None:
    """``probe``: NAME and how to reach the server (its command, after ``--``, is split off before parsing)."""
    parser.usage = "%(prog)s NAME [options] -- COMMAND [ARGS...]\n       %(prog)s NAME --url URL [options]"
    parser.add_argument("name", metavar="NAME", help="the server's name in the database")
    parser.add_argument("--url", help="a Streamable HTTP server, instead of a command after --")
    parser.add_argument("--env", dest="env_names", action="append", default=[], metavar="NAME",
                        help="pass this environment variable on to the server (its value is never stored); "
                             "repeatable")
    parser.add_argument("--header", dest="header_specs", action="append", default=[], metavar="NAME=VARIABLE",
                        help="with --url: send header NAME with the value of environment variable VARIABLE; "
                             "repeatable")
    parser.add_argument("--repo", metavar="OWNER/NAME", help="the repository holding the server's source")
    parser.add_argument("--timeout", dest="initialize_seconds", type=positive_float, default=60.0, metavar="SECONDS",
                        help="for the server to start and answer initialize (default: %(default)s)")
    parser.add_argument("--page-timeout", dest="page_seconds", type=positive_float, default=30.0, metavar="SECONDS",
                        help="for each tools/list page (default: %(default)s)")
    _db_option(parser)
    parser.add_argument("--strict", action="store_true", help="exit 1 if the server is skipped")


def ingest_arguments(parser: argparse.ArgumentParser) -> None:
    """``ingest-tools-list``: FILE, the server it came from, the database."""
    parser.add_argument("file", type=existing_file, metavar="FILE", help="the saved tools/list answer (JSON)")
    parser.add_argument("--server", required=True, metavar="NAME", help="the server the answer came from")
    parser.add_argument("--repo", metavar="OWNER/NAME", help="the repository holding the server's source")
    _db_option(parser)


def _db_option(parser: argparse.ArgumentParser) -> None:
    env_option(parser, "--db", ENV["db_path"], default=DEFAULT_DB, type=Path, dest="db_path", metavar="PATH",
               help="DuckDB database file")

