"""``census ingest-catalog``: the tools lists a package catalog recorded for its servers, stored
as captures (``pipeline.runtime.recorded``), each paired with its repository and subfolder.

A third party's runtime capture, compared with the source like the census's own: run ``census
discover --from-captures`` next (each repository at its last commit before the record), then
``census run`` and ``census report``. Exit 0 when stored; 2 for a folder that is not a catalog
clone or an index that cannot be read (the message names the file, commit and entry).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.cli.args import env_option, existing_path
from pipeline.cli.commands import EXIT_FAILED, EXIT_USAGE, LOCKED_TIP, UsageError, fail
from pipeline.errors import CensusError, RegistryDumpError, StoreLockedError
from pipeline.settings import DEFAULT_DB, ENV, Settings


def arguments(parser: argparse.ArgumentParser) -> None:
    """``ingest-catalog``: the catalog's clone, a sample, the database."""
    parser.add_argument("catalog", type=existing_path, metavar="CLONE",
                        help="a git clone of the catalog (toolsdk-ai/awesome-mcp-registry), bare or not")
    parser.add_argument("--sample", type=int, metavar="N", help="a seeded random sample of N servers (default: all)")
    parser.add_argument("--seed", type=int, default=2026, metavar="S", help="the sample's seed (default: %(default)s)")
    env_option(parser, "--db", ENV["db_path"], default=DEFAULT_DB, type=Path, dest="db_path", metavar="PATH",
               help="DuckDB database file")


def run(args: argparse.Namespace) -> None:
    """Store every recorded list of the catalog (or a sample) as a capture; say how many."""
    from pipeline.runtime.recorded import ANSWERED, captures
    from pipeline.store.database import Store
    from pipeline.store.runtime import PackageRun, record_capture, record_draw, set_server_repo

    settings = Settings.from_env(db_path=args.db_path)
    if args.sample is not None and args.sample < 1:
        raise UsageError("expected a whole number of 1 or more", "--sample")
    try:
        offered, found = captures(args.catalog, args.sample, args.seed)
    except RegistryDumpError as exc:
        fail(settings, f"ingest-catalog: {exc}", EXIT_USAGE)
    except CensusError as exc:
        fail(settings, f"ingest-catalog: {exc}", EXIT_FAILED)
    try:
        with Store(settings.db_path) as store:
            for package, capture, record in found:  # no version: the record names none; dated by the record
                record_capture(store.connection, capture, PackageRun(
                    registry=package.registry, name=package.name, requested=None, version=None,
                    released_at_utc=record.recorded_at_utc, install_log="", cause=ANSWERED))
                if package.repo:
                    set_server_repo(store.connection, capture.server, package.repo, package.subfolder)
            if args.sample is not None:
                record_draw(store.connection, [(p.server, i, True) for i, (p, _, _) in enumerate(found, start=1)],
                            seed=args.seed, wanted=args.sample, offered=offered, source=str(args.catalog))
    except StoreLockedError as exc:
        fail(settings, f"{exc}\n{LOCKED_TIP}", EXIT_FAILED)
    except CensusError as exc:
        fail(settings, f"ingest-catalog: {exc}", EXIT_FAILED)
    tools = sum(len(capture.tools) for _, capture, _ in found)
    paired = sum(1 for package, _, _ in found if package.repo)
    print(f"{len(found)} recorded lists stored ({tools} tools), {paired} paired with a GitHub repository; "
          "next: census discover --from-captures", flush=True)
