"""``census check PATH``: each MCP tool's declared hints against what its handler does, printed
for a server's maintainer; exit 1 on a contradiction (a CI gate). The library is
``pipeline.run.check``."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict

from pipeline.cli.args import existing_path
from pipeline.cli.commands import EXIT_FAILED, exit_codes
from pipeline.settings import Settings


def arguments(parser: argparse.ArgumentParser) -> None:
    """``check``: PATH and the output form."""
    parser.add_argument("path", type=existing_path, metavar="PATH",
                        help="the server's working tree (a folder) or an archive of it")
    parser.add_argument("--json", dest="as_json", action="store_true", help="print one JSON object")
    parser.add_argument("--server-path", dest="server_paths", action="append", default=[], metavar="PATH",
                        help="a folder inside PATH where the MCP server lives (as a manifest's server_paths); "
                             "repeatable")


def run(args: argparse.Namespace) -> None:
    """Check that each MCP tool's declared hints match what its handler does, for a CI gate.

    One line per contradiction or doubt (``path:line tool hint: declared X, but ...``) and the
    hints suggested for tools that declare none; exit 1 when a hint is contradicted.
    """
    from pipeline.run.check import check as check_tree

    with exit_codes(Settings()):
        report = check_tree(args.path, tuple(args.server_paths))
    if args.as_json:
        print(json.dumps({"path": report.root, "server_tools": report.tools, "handlers_located": report.located,
                          "contradictions": report.contradictions,
                          "findings": [asdict(f) for f in report.findings]}, indent=2), flush=True)
    else:
        for finding in report.findings:
            print(finding.text())
        plural = "" if report.contradictions == 1 else "s"
        print(f"{report.tools} server tools, {report.located} handlers read, "
              f"{report.contradictions} contradiction{plural}", flush=True)
    if report.contradictions:
        sys.exit(EXIT_FAILED)
