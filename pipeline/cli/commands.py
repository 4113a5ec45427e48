"""What the ``census`` commands beyond the manifest stages do: ``count``, ``discover``, ``export``,
``report``, and for runtime truth ``probe`` and ``ingest-tools-list``; and how any command fails.

Each handler takes the ``argparse.Namespace`` :func:`pipeline.cli.main.build_parser` made. A failure
prints one ``census: error: ...`` line (the token redacted) and exits 1, or 2 for bad usage or
a bad manifest; a skipped server exits 0, or 1 with ``--strict``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn

from pipeline.errors import CensusError, ManifestError, StoreLockedError
from pipeline.settings import Settings

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
#: the second line of a "database in use" error
LOCKED_TIP = "Tip: wait for it to finish, or pass another --db."


class UsageError(Exception):
    """Bad usage a command finds itself (``option`` names the culprit): exit 2 with the command's usage."""

    def __init__(self, message: str, option: str | None = None) -> None:
        super().__init__(f"argument {option}: {message}" if option else message)


def fail(settings: Settings, message: str, code: int) -> NoReturn:
    """Print ``census: error: MESSAGE`` on stderr, the token redacted, and exit with ``code``."""
    print(settings.redact(f"census: error: {message}"), file=sys.stderr, flush=True)
    sys.exit(code)


@contextmanager
def exit_codes(settings: Settings, prefix: str = "") -> Iterator[None]:
    """A census error inside becomes its exit code: a bad manifest 2, a database in use 1 (with
    the tip), any other 1 (``prefix`` starts its message), an interrupt 130 keeping what was stored."""
    try:
        yield
    except KeyboardInterrupt:
        fail(settings, "interrupted; what was stored so far is kept", EXIT_INTERRUPTED)
    except ManifestError as exc:
        fail(settings, str(exc), EXIT_USAGE)
    except StoreLockedError as exc:
        fail(settings, f"{exc}\n{LOCKED_TIP}", EXIT_FAILED)
    except CensusError as exc:
        fail(settings, f"{prefix}{exc}", EXIT_FAILED)


def count(args: argparse.Namespace) -> None:
    """Count terms in archives (.tar.gz, .tgz, .tar, .zip), folders or files, as `census scan` does.

    Nothing is stored; exit 1 if an input cannot be read (the others are still counted).
    """
    from pipeline.manifest import terms as term_sets
    from pipeline.run.inputs import count_paths

    spec = args.terms_spec
    try:
        terms = term_sets.resolve(spec if spec in term_sets.TERM_SETS else spec.split(","))
    except ValueError as exc:
        raise UsageError(str(exc), "--terms") from exc
    found = count_paths(args.paths, terms, detect=args.detect, server_paths=tuple(args.server_paths))
    print(_count_json(found, args.per_file) if args.as_json else _count_text(found, args.per_file), flush=True)
    for path, reason in found.failed.items():
        print(f"census: error: {path}: {reason}", file=sys.stderr, flush=True)
    if found.failed:
        sys.exit(EXIT_FAILED)


def _count_json(found: Any, per_file: bool) -> str:
    import json

    body: dict[str, Any] = {"totals": found.totals, "regular_files": found.regular_files,
                            "content_bytes": found.content_bytes, "skipped_members": found.skipped_members}
    if found.tools is not None:
        body["tools"] = found.tools
    if per_file:
        body["per_file"] = found.per_file
    if found.failed:
        body["failed"] = found.failed
    return json.dumps(body, indent=2, ensure_ascii=False)


def _count_text(found: Any, per_file: bool) -> str:
    lines = [f"{path}\t{term}\t{n}" for path, counts in found.per_file.items() for term, n in counts.items()]
    lines = lines if per_file else []
    lines += [f"{term}\t{n}" for term, n in found.totals.items()]
    lines += [f"{key}\t{n}" for key, n in (found.tools or {}).items()]
    lines.append(f"({found.regular_files} files, {found.content_bytes} bytes, {found.skipped_members} not read)")
    return "\n".join(lines)


def audit(args: argparse.Namespace) -> None:
    """Compare a hand audit's truth files with the stored tools: precision and recall by name per
    repository and overall, hint and role agreement (the database is only read)."""
    import duckdb

    from pipeline.analysis import audit as audits

    settings = Settings.from_env(db_path=args.db_path)
    try:
        text = audits.markdown(audits.compare(audits.load_truth(args.truth), args.db_path))
        if args.out is not None:
            args.out.write_text(text, encoding="utf-8")
    except (CensusError, OSError, duckdb.Error) as exc:
        fail(settings, f"audit: {exc}", EXIT_FAILED)
    print(text, end="", flush=True)


def export(args: argparse.Namespace) -> None:
    """Dump every table and view of the database as Parquet or CSV files (rows sorted)."""
    from pipeline.store.export import export as export_tables

    settings = Settings.from_env(db_path=args.db_path)
    try:
        written = export_tables(args.db_path, args.out, args.fmt)
    except (CensusError, OSError) as exc:
        fail(settings, str(exc), EXIT_FAILED)
    print(f"{args.out}: {len(written)} files ({', '.join(p.stem for p in written)})", flush=True)


def report(args: argparse.Namespace) -> None:
    """Write a report of one manifest's census: README.md with tables, PNG charts and caveats, and its data.

    The database is only read; the report shows only numbers from pipeline.analysis.stats.
    """
    from pipeline.report import census as reports

    settings = Settings.from_env(db_path=args.db_path)
    try:
        if args.timeline_only and args.runtime:
            raise UsageError("a runtime census has no timeline", "--timeline-only")
        if args.timeline_only:
            written = reports.write_timeline_from_db(args.db_path, args.manifest, args.out_dir)
        elif args.runtime:
            written = reports.write_runtime_from_db(args.db_path, args.runtime, args.out_dir)
        else:
            written = reports.write_from_db(args.db_path, args.manifest, args.out_dir)
    except ManifestError as exc:
        fail(settings, str(exc), EXIT_USAGE)
    except CensusError as exc:
        fail(settings, str(exc), EXIT_FAILED)
    print(f"{written[0]} (and {len(written) - 1} files beside it: charts and data)", flush=True)


def probe(args: argparse.Namespace) -> None:
    """Capture a running MCP server's tools/list, every page, and store it as NAME's capture.

    `census probe NAME -- COMMAND [ARGS...]` starts a stdio server; `census probe NAME --url URL`
    talks to a Streamable HTTP server. A server that cannot start, never answers or crashes is
    stored as skipped with the reason (exit 0; 1 with --strict).
    """
    from pipeline.runtime import probe as probes

    if bool(args.server_command) == bool(args.url):
        raise UsageError("give the server's command after --, or --url URL (not both)")
    settings = Settings.from_env(db_path=args.db_path)
    timeouts = probes.Timeouts(initialize_seconds=args.initialize_seconds, page_seconds=args.page_seconds)
    try:
        if args.url:
            capture = probes.probe_url(args.name, args.url, headers=_header_values(args.header_specs),
                                       timeouts=timeouts)
        else:
            capture = probes.probe(args.name, args.server_command, env=env_values(args.env_names),
                                   timeouts=timeouts)
        written = _record_runtime(settings, capture, args.repo)
    except probes.ProbeError as exc:
        fail(settings, f"probe: {exc}", EXIT_USAGE)
    except StoreLockedError as exc:
        fail(settings, f"{exc}\n{LOCKED_TIP}", EXIT_FAILED)
    except CensusError as exc:
        fail(settings, str(exc), EXIT_FAILED)
    print(settings.redact(_capture_line(capture, written)), flush=True)
    if args.strict and capture.status != "ok":
        fail(settings, f"{args.name} skipped (--strict)", EXIT_FAILED)


def ingest_tools_list(args: argparse.Namespace) -> None:
    """Store a tools/list answer saved earlier as SERVER's capture.

    FILE holds a tools/list result, a JSON-RPC response whose result is one, or a list of
    either (the pages, in order). It replaces the server's previous capture.
    """
    from pipeline.runtime.ingest import ingest_tools_list as ingest

    settings = Settings.from_env(db_path=args.db_path)
    try:
        capture = ingest(args.file, args.server)
        written = _record_runtime(settings, capture, args.repo)
    except StoreLockedError as exc:
        fail(settings, f"{exc}\n{LOCKED_TIP}", EXIT_FAILED)
    except CensusError as exc:
        fail(settings, str(exc), EXIT_FAILED)
    print(_capture_line(capture, written), flush=True)


def env_values(names: Sequence[str], option: str = "--env") -> dict[str, str]:
    """The caller's values of the variables ``option`` names (a missing one is a usage error)."""
    missing = [name for name in names if name not in os.environ]
    if missing:
        raise UsageError(f"not set: {', '.join(missing)}", option)
    return {name: os.environ[name] for name in names}


def _header_values(specs: Sequence[str]) -> dict[str, str]:
    """``--header NAME=VARIABLE`` as {NAME: value of VARIABLE}."""
    pairs = [spec.partition("=") for spec in specs]
    if any(not name or not variable for name, _, variable in pairs):
        raise UsageError("expected NAME=VARIABLE", "--header")
    values = env_values([variable for _, _, variable in pairs], "--header")
    return {name: values[variable] for name, _, variable in pairs}


def _record_runtime(settings: Settings, capture: Any, repo: str | None) -> bool:
    """Store ``capture`` (and the server's repository); whether it replaced the stored one."""
    from pipeline.store.database import Store
    from pipeline.store.runtime import record_capture, set_server_repo

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

