"""What a census number cannot mean, per repository, with the evidence the database holds.

``caveats`` gives one row per repository and caveat. ``status`` says how sure it is:
``found`` (the database shows it), ``possible`` (a sign of it, not enough to tell) or
``not checked`` (the scan stores nothing that could show it; the evidence says what is missing).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import duckdb
import polars as pl

from pipeline.analysis.caveats_facts import Facts, Row, examples, plural, scanned
from pipeline.analysis.caveats_tools import (
    false_zero,
    hints_not_in_server_code,
    no_server_tools,
    no_tool_in_server_paths,
    server_elsewhere,
    wrapper_registration,
)
from pipeline.analysis.frames import DEFAULT_ROLES, frame, role_filter, under
from pipeline.scan.detect.model import HINT_FIELDS

#: every caveat, in the order a report lists them
CAVEATS = (
    "repository-skipped", "server-elsewhere", "no-server-tools", "no-tool-in-server-paths", "wrapper-registration",
    "hints-not-in-server-code", "false-zero", "submodules", "export-ignore", "lfs-pointers", "files-not-read",
)
COLUMNS = ("repo", "commit", "caveat", "status", "evidence")
#: what each kind of member in ``skipped_files`` is, in words
KINDS = {"symlink": "symlinks, not followed", "hardlink": "hard links", "missing": "blobs missing from the local copy",
         "device": "device files", "fifo": "fifos", "other": "members of another kind"}
ARCHIVES = ("github", "tarball")
#: the first scanner version that keeps ``tree_notes``
NOTES_SINCE = 3



def caveats(con: duckdb.DuckDBPyConnection, manifest: str | None = None,
            roles: str | Sequence[str] = DEFAULT_ROLES) -> pl.DataFrame:
    """One row per repository and caveat (``CAVEATS``), in manifest order: repo, commit,
    caveat, status (found, possible, not checked) and the evidence, in words. The caveats about
    tools read the MCP tools of ``roles`` (default: server)."""
    rows = [(f.snapshot["repo"], f.snapshot["commit"], *row) for f in _facts(con, manifest, roles)
            for check in CHECKS for row in check(f)]
    return pl.DataFrame(rows, schema=dict.fromkeys(COLUMNS, pl.String), orient="row")


def _facts(con: duckdb.DuckDBPyConnection, manifest: str | None, roles: str | Sequence[str]) -> list[Facts]:
    scope = _rows(con, "SELECT * FROM scope ORDER BY entry, repo", manifest)
    facts = {(r["repo"], r["commit"]): Facts(r) for r in scope}
    hints = ", ".join(f"t.{h}" for h in HINT_FIELDS)
    joined = "JOIN scope s ON s.repo = {0}.repo AND s.commit = {0}.commit"
    for r in _rows(con, f"SELECT t.repo, t.commit, t.path, t.via, t.role, {under('t.path', 's.server_paths')} "
                        f"AS in_server, {hints}, {role_filter('t.role', roles)} AS asked FROM tools t "
                        f"{joined.format('t')} WHERE t.is_mcp ORDER BY t.path", manifest):
        found = facts[r["repo"], r["commit"]]
        found.roles[r["role"]] = found.roles.get(r["role"], 0) + 1
        if r.pop("asked"):
            found.tools.append(r)
    for r in _rows(con, f"SELECT c.repo, c.commit, c.term, c.role, sum(c.count)::BIGINT AS count "
                        f"FROM term_counts c {joined.format('c')} GROUP BY ALL ORDER BY c.term, c.role", manifest):
        facts[r["repo"], r["commit"]].places.append(r)
    for r in _rows(con, f"SELECT r.* FROM repo_term_totals r {joined.format('r')}", manifest):
        facts[r["repo"], r["commit"]].totals[r["term"]] = r["count"]
    for r in _rows(con, f"SELECT f.* FROM skipped_files f {joined.format('f')} ORDER BY f.path", manifest):
        facts[r["repo"], r["commit"]].skipped.append(r)
    for r in _rows(con, f"SELECT n.* FROM tree_notes n {joined.format('n')} ORDER BY n.path", manifest):
        facts[r["repo"], r["commit"]].notes.append(r)
    return list(facts.values())


def _rows(con: duckdb.DuckDBPyConnection, select: str, manifest: str | None) -> list[dict[str, Any]]:
    return frame(con, select, manifest).to_dicts()


def skipped_repository(f: Facts) -> Iterator[Row]:
    """Not scanned: why, and at which stage."""
    s = f.snapshot
    if not scanned(f):
        yield "repository-skipped", "found", f"not scanned ({s['status']} at the {s['skipped_stage']} stage): " \
                                             f"{s['skip_reason']}; none of its numbers are in this census"


def submodules(f: Facts) -> Iterator[Row]:
    """Git submodules: their files are in another repository, never in the tree read."""
    links = [s["path"] for s in f.skipped if s["kind"] == "submodule"]
    listed = [(n["path"], n["detail"].splitlines()) for n in _notes(f, "gitmodules")]
    if links:
        yield "submodules", "found", f"{plural(len(links), 'submodule')} not read (their files live in other " \
                                     f"repositories): {examples(links)}"
    elif listed:
        yield "submodules", "found", "; ".join(f"{path} lists {plural(len(paths), 'submodule')} ({examples(paths)})"
                                               for path, paths in listed) + \
              ": archives leave submodules out, so their files were not read"
    elif _unnoted(f) and f.snapshot["source"] in ARCHIVES:
        yield "submodules", "not checked", f"read from an archive, which leaves submodules out; {_unnoted(f)}"


def export_ignore(f: Facts) -> Iterator[Row]:
    """Files marked ``export-ignore`` are left out of archives (a git source reads them all)."""
    marked = [f"{n['path']}: " + ", ".join(_patterns(n, "export-ignore")) for n in _notes(f, "gitattributes")
              if _patterns(n, "export-ignore")]
    if marked and f.snapshot["source"] in ARCHIVES:
        yield "export-ignore", "found", f"files matching these export-ignore patterns are not in the archive, so " \
                                        f"not counted: {'; '.join(marked)}"
    elif marked:
        yield "export-ignore", "found", f"read from {f.snapshot['source']}, so files marked export-ignore were " \
                                        f"counted, though a GitHub archive leaves them out: {'; '.join(marked)}"
    elif _unnoted(f) and f.snapshot["source"] in ARCHIVES:
        yield "export-ignore", "not checked", f"read from an archive, which leaves out files marked export-ignore; " \
                                              f"{_unnoted(f)}"


def lfs_pointers(f: Facts) -> Iterator[Row]:
    """Git LFS pointers are counted as their pointer text, not as the files they stand for."""
    pointers = [n["path"] for n in _notes(f, "lfs-pointer")]
    stored = [p for n in _notes(f, "gitattributes") for p in _patterns(n, "filter=lfs")]
    if pointers:
        yield "lfs-pointers", "found", f"Git LFS pointers, counted as their text, not as the files they stand " \
                                       f"for: {plural(len(pointers), 'file')} ({examples(pointers)})"
    elif stored:
        yield "lfs-pointers", "possible", f"these patterns are stored in Git LFS ({', '.join(stored)}), but no " \
                                          "pointer file was read: the archive held their content, or none matched"
    elif _unnoted(f):
        yield "lfs-pointers", "not checked", f"a pointer is counted as its text, not as the file; {_unnoted(f)}"


def _notes(f: Facts, kind: str) -> list[dict[str, Any]]:
    return [n for n in f.notes if n["kind"] == kind]


def _patterns(note: dict[str, Any], attribute: str) -> list[str]:
    """The path patterns of ``.gitattributes`` lines that set ``attribute``."""
    return [line.split()[0] for line in str(note["detail"]).splitlines() if attribute in line.split()[1:]]


def _unnoted(f: Facts) -> str:
    """Why the tree's notes are unknown ('' when they are known)."""
    version = f.snapshot.get("scanner_version")
    if not scanned(f) or (str(version).isdigit() and int(str(version)) >= NOTES_SINCE):
        return ""
    return f"this tree was scanned by scanner version {version}, before .gitattributes, .gitmodules and LFS " \
           "pointers were noted: rescan it (`census run`) to check"


def files_not_read(f: Facts) -> Iterator[Row]:
    """Members that were not read: symlinks, missing blobs, ... (submodules have their own caveat)."""
    by_kind: dict[str, list[str]] = defaultdict(list)
    for s in f.skipped:
        if s["kind"] != "submodule":
            by_kind[s["kind"]].append(s["path"])
    if by_kind:
        yield "files-not-read", "found", "; ".join(
            f"{KINDS.get(kind, kind)}: {len(paths)} ({examples(paths)})" for kind, paths in sorted(by_kind.items()))


CHECKS: tuple[Callable[[Facts], Iterator[Row]], ...] = (
    skipped_repository, server_elsewhere, no_server_tools, no_tool_in_server_paths, wrapper_registration,
    hints_not_in_server_code,
    false_zero, submodules, export_ignore, lfs_pointers, files_not_read,
)


