"""``census probe-registry``: every npm and PyPI server of a registry, installed, started in the
sandbox and asked for its tools (``pipeline.run.probe_registry``); each capture stored as it lands.

Prints one line per server as it finishes (through the console observer) and a summary: how
many installed, started and answered, and the tools received. Exit 0 when the run finished,
whatever each server did (a server that fails is a skipped capture with its reason); 2 for a
bad registry file or a missing sandbox.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.cli.args import env_option, existing_path, positive_float
from pipeline.cli.commands import EXIT_FAILED, EXIT_USAGE, LOCKED_TIP, UsageError, env_values, fail
from pipeline.errors import CensusError, RegistryDumpError, SettingsError, StoreLockedError
from pipeline.settings import DEFAULT_DB, ENV, Settings

if TYPE_CHECKING:  # imported when the command runs: every other `census` call starts without them
    import duckdb

    from pipeline.progress import Observer
    from pipeline.run.probe_registry import Outcome
    from pipeline.runtime.package_index import Hosts
    from pipeline.runtime.packages import Package

#: where installs and caches go (``--work-dir``; a relative path is taken from the current folder)
WORK_VARIABLE, DEFAULT_WORK_DIR = "CENSUS_PROBE_DIR", Path("data/probe")


def arguments(parser: argparse.ArgumentParser) -> None:
    """``probe-registry``: the registry, what to install, how long to wait, where to keep things."""
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--registry-file", type=existing_path, metavar="FILE",
                        help="a registry dump (the seed's list of servers, or saved /v0/servers pages), or a "
                             "checkout of a package catalog with one JSON file per server under packages/")
    source.add_argument("--registry", metavar="URL", help="a live registry's root, e.g. https://registry.modelcontextprotocol.io")
    parser.add_argument("--server", dest="servers", action="append", default=[], metavar="NAME",
                        help="only this registry server (repeatable)")
    parser.add_argument("--sample", type=int, metavar="N", help="a seeded random sample: packages drawn until N "
                                                                  "resolve on their index (with the ones between)")
    parser.add_argument("--seed", type=int, default=2026, metavar="S", help="the sample's seed (default: %(default)s)")
    parser.add_argument("--latest", action="store_true", help="install each package's newest version, not the one "
                                                              "the registry entry names")
    parser.add_argument("--dependencies-now", action="store_true",
                        help="take each dependency's newest version (default: as it was a day after the release)")
    parser.add_argument("--install-scripts", action="store_true",
                        help="run npm install scripts (default: not; they would run with the network)")
    parser.add_argument("--machine-node", dest="newer_node", action="store_false",
                        help="run every npm server on the machine's Node, never on a newer one from npm")
    parser.add_argument("--no-stand-ins", dest="stand_ins", action="store_false",
                        help="start servers without stand-ins for declared variables and placeholder arguments")
    parser.add_argument("--env", dest="env_names", action="append", default=[], metavar="NAME",
                        help="give this variable of yours to every server that declares it (never stored); repeatable")
    parser.add_argument("--jobs", type=int, default=2, metavar="N", help="packages at once (default: %(default)s)")
    parser.add_argument("--timeout", dest="seconds", type=positive_float, default=60.0, metavar="SECONDS",
                        help="for a started server to answer initialize (default: %(default)s)")
    parser.add_argument("--install-timeout", dest="install_seconds", type=positive_float, default=600.0,
                        metavar="SECONDS", help="for each install step (default: %(default)s)")
    parser.add_argument("--retry-skipped", action="store_true",
                        help="try again a package version whose stored capture is skipped (default: resumed past)")
    parser.add_argument("--keep-installs", action="store_true", help="keep each install folder after its capture")
    env_option(parser, "--work-dir", WORK_VARIABLE, default=DEFAULT_WORK_DIR, type=Path, metavar="DIR",
               help="install folders and the npm and uv caches")
    env_option(parser, "--db", ENV["db_path"], default=DEFAULT_DB, type=Path, dest="db_path", metavar="PATH",
               help="DuckDB database file")


def run(args: argparse.Namespace) -> None:
    """Read the registry, check the sandbox, probe every package, print the summary."""
    from pipeline.cli.console import ConsoleObserver
    from pipeline.run.probe_registry import Options, probe_packages
    from pipeline.runtime import interpreters
    from pipeline.runtime.package_index import Hosts
    from pipeline.runtime.packages import PYPI, packages
    from pipeline.runtime.sandbox import Sandbox
    from pipeline.store.database import Store

    settings = Settings.from_env(db_path=args.db_path)
    if args.jobs < 1:
        raise UsageError("expected a whole number of 1 or more", "--jobs")
    if args.sample is not None and args.sample < 1:
        raise UsageError("expected a whole number of 1 or more", "--sample")
    given = env_values(args.env_names)
    try:
        sandbox = Sandbox.from_env()
        sandbox.check()
        wanted = [p for p in packages(_items(args, settings)) if not args.servers or p.server in args.servers]
        found = tuple(interpreters.found()) if any(p.registry == PYPI for p in wanted) else ()
    except (RegistryDumpError, SettingsError) as exc:
        fail(settings, str(exc), EXIT_USAGE)
    except CensusError as exc:
        fail(settings, str(exc), EXIT_FAILED)
    unknown = sorted(set(args.servers) - {p.server for p in wanted})
    if unknown:
        raise UsageError(f"no npm or PyPI package in the registry for: {', '.join(unknown)}", "--server")
    options = Options(work_dir=args.work_dir, latest=args.latest, jobs=args.jobs, seconds=args.seconds,
                      install_seconds=args.install_seconds, retry_skipped=args.retry_skipped,
                      keep_installs=args.keep_installs, dependencies_now=args.dependencies_now,
                      install_scripts=args.install_scripts, env=given, stand_ins=args.stand_ins,
                      newer_node=args.newer_node,
                      interpreters=found)
    observer = ConsoleObserver(settings)
    hosts = Hosts.from_env()
    try:
        with Store(settings.db_path) as store:
            if args.sample is not None:
                wanted = _sample(store.connection, wanted, args, hosts, observer)
            outcomes = probe_packages(store.connection, wanted, options, sandbox=sandbox, hosts=hosts,
                                      observer=observer)
    except StoreLockedError as exc:
        fail(settings, f"{exc}\n{LOCKED_TIP}", EXIT_FAILED)
    except CensusError as exc:
        fail(settings, str(exc), EXIT_FAILED)
    finally:
        observer.close()
    print(settings.redact(summary(outcomes)), flush=True)


def _items(args: argparse.Namespace, settings: Settings) -> list[dict[str, Any]]:
    """The registry's server objects: a package catalog's, a dump's, or a live registry's pages."""
    from pipeline.manifest import catalog, discover, registry_dump

    path = args.registry_file
    if path is not None and catalog.is_catalog(path):
        return [item for _, item in catalog.items(path)]
    if path is not None:
        if path.is_dir():
            raise RegistryDumpError(f"{path}: a folder, but not a package catalog (no packages/)")
        return [item for _, item in registry_dump.items(path, with_packages=True)]
    return [item for page in discover.registry_pages(args.registry, settings) for item in page]


def _sample(con: duckdb.DuckDBPyConnection, packages: list[Package], args: argparse.Namespace, hosts: Hosts,
            observer: Observer) -> list[Package]:
    """The seeded sample (``pipeline.run.draw``), recorded in ``runtime_draws``; its packages in draw order."""
    from pipeline.run.draw import draw
    from pipeline.store.runtime import record_draw

    made = draw(packages, args.sample, args.seed, hosts, latest=args.latest, jobs=max(4, args.jobs * 4))
    source = str(args.registry_file or args.registry)
    record_draw(con, [(d.package.server, d.index, d.resolved) for d in made.drawn], seed=made.seed,
                wanted=made.wanted, offered=made.offered, source=source)
    observer.note(f"sample: {len(made.drawn)} of {made.offered} packages drawn (seed {made.seed}) until "
                  f"{made.resolved} resolved")
    return [d.package for d in made.drawn]


def summary(outcomes: list[Outcome]) -> str:
    """Packages by what became of them (answered, then each cause of ``pipeline.runtime.causes``), and
    the tools received."""
    from pipeline.runtime.causes import CAUSES, classify

    causes: Counter[str] = Counter()
    tools = 0
    for outcome in outcomes:
        capture = outcome.capture
        if capture is None:
            causes["already captured"] += 1
            continue
        tools += len(capture.tools) if capture.status == "ok" else 0
        cause = outcome.run.cause if outcome.run is not None and outcome.run.cause else None
        causes[cause or classify(capture.status, capture.reason).cause] += 1
    order = [*CAUSES, "already captured"]
    ranked = sorted(causes.items(), key=lambda item: (order.index(item[0]) if item[0] in order else len(order),
                                                      item[0]))
    parts = ", ".join(f"{n} {cause}" for cause, n in ranked)
    return f"{len(outcomes)} packages: {parts}; {tools} tools received"
