"""``census discover``: a manifest of the repositories of a registry, a dump of one or a list; or,
``--from-captures``, of the sources of the packages that answered, each repository at the commit
its package was built from (``pipeline.run.from_captures``)."""

from __future__ import annotations

import argparse
from collections import Counter

from pipeline.cli.commands import EXIT_FAILED, EXIT_USAGE, UsageError, fail
from pipeline.errors import CensusError, RegistryDumpError
from pipeline.settings import Settings


def discover(args: argparse.Namespace) -> None:
    """Write a manifest listing the repositories of a registry's servers, a saved dump of one, or a list.

    One entry per repository, unpinned (run `census pin` next); servers without a GitHub
    repository are listed in a comment with the reason.
    """
    from pipeline.manifest import discover as discovery
    from pipeline.manifest import manifests
    from pipeline.manifest.registry_dump import from_dump

    given = [flag for flag, value in (("--registry", args.registry), ("--registry-file", args.registry_file),
                                      ("--from-file", args.from_file), ("--from-captures", args.from_captures or None))
             if value is not None]
    if len(given) != 1:
        raise UsageError("give one of --registry URL, --registry-file FILE, --from-file LIST or --from-captures"
                         + (f" (not {' and '.join(given)})" if given else ""))
    if args.from_captures:
        discover_from_captures(args)
        return
    settings = Settings.from_env()
    try:
        if args.from_file is not None:
            lines = args.from_file.read_text(encoding="utf-8").splitlines()
            found = discovery.from_lines(lines, str(args.from_file))
        elif args.registry_file is not None:
            found = from_dump(args.registry_file)
        else:
            found = discovery.from_registry(args.registry, settings)
        manifests.save(args.out, discovery.render(found, args.name or args.out.stem))
        manifests.load(args.out)  # what was written must be a valid manifest
    except RegistryDumpError as exc:
        fail(settings, f"discover: {exc}", EXIT_USAGE)
    except (CensusError, OSError, UnicodeDecodeError) as exc:
        fail(settings, f"discover: {exc}", EXIT_FAILED)
    print(f"{args.out}: {len(found.entries)} repositories, {len(found.left_out)} servers left out", flush=True)


def discover_from_captures(args: argparse.Namespace) -> None:
    """Pin, store and write the manifest, and say what it holds; a failure is one line (exit 1)."""
    if args.mirrors_dir is None:
        raise UsageError("--from-captures reads each repository's tags and history from a local mirror: "
                         "give --mirrors DIR (DIR/OWNER/NAME.git or DIR/OWNER/NAME)", "--mirrors")
    settings = Settings.from_env(db_path=args.db_path)
    try:
        print(_pin_and_write(args, settings), flush=True)
    except (CensusError, OSError) as exc:
        fail(settings, f"discover: {exc}", EXIT_FAILED)


def _pin_and_write(args: argparse.Namespace, settings: Settings) -> str:
    from pipeline.manifest import manifests
    from pipeline.run.from_captures import pin_captures, render
    from pipeline.runtime.package_index import Hosts
    from pipeline.store.database import Store

    if not settings.db_path.exists():
        raise CensusError(f"{settings.db_path}: no such database (run census probe-registry first)")
    with Store(settings.db_path) as store:
        found = pin_captures(store.connection, args.mirrors_dir, Hosts.from_env())
    manifests.save(args.out, render(found, args.name or args.out.stem, str(args.db_path)))
    manifests.load(args.out)  # what was written must be a valid manifest
    rules = Counter(row.rule or "none" for row in found)
    said = ", ".join(f"{count} {rule}" for rule, count in sorted(rules.items()))
    return f"{args.out}: {len(found)} packages that answered ({said or 'none'})"
