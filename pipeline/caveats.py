"""What a census number cannot mean, per repository, with the evidence the database holds.

``caveats`` gives one row per repository and caveat. ``status`` says how sure it is:
``found`` (the database shows it), ``possible`` (a sign of it, not enough to tell) or
``not checked`` (the scan stores nothing that could show it; the evidence says what is missing).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import duckdb
import polars as pl

from pipeline.frames import frame, path_class, under
from pipeline.scan.detect.model import HINT_FIELDS, WIRE_NAMES, hint_field

#: every caveat, in the order a report lists them
CAVEATS = (
    "repository-skipped", "server-elsewhere", "no-tool-in-server-paths", "wrapper-registration",
    "hints-only-in-tests-or-docs", "false-zero", "submodules", "export-ignore", "lfs-pointers", "files-not-read",
)
COLUMNS = ("repo", "commit", "caveat", "status", "evidence")
#: what each kind of member in ``skipped_files`` is, in words
KINDS = {"symlink": "symlinks, not followed", "hardlink": "hard links", "missing": "blobs missing from the local copy",
         "device": "device files", "fifo": "fifos", "other": "members of another kind"}
ARCHIVES = ("github", "tarball")
#: the first scanner version that keeps ``tree_notes``
NOTES_SINCE = 3

Row = tuple[str, str, str]


@dataclass
class Facts:
    """What the database holds about one snapshot in scope."""

    snapshot: dict[str, Any]
    """its ``scope`` row (status, source, terms, server_paths, server_repo, ...)."""
    tools: list[dict[str, Any]] = field(default_factory=list)
    """its MCP tools: path, via, in_server and the four declared hints."""
    places: list[dict[str, Any]] = field(default_factory=list)
    """term, class (tests, docs, server, other) and count of its matches."""
    totals: dict[str, int] = field(default_factory=dict)
    """term -> count over the tree, zeros included."""
    skipped: list[dict[str, Any]] = field(default_factory=list)
    """path and kind of every member not read."""
    notes: list[dict[str, Any]] = field(default_factory=list)
    """path, kind and detail of its ``tree_notes`` (gitattributes, gitmodules, lfs-pointer)."""


def caveats(con: duckdb.DuckDBPyConnection, manifest: str | None = None) -> pl.DataFrame:
    """One row per repository and caveat (``CAVEATS``), in manifest order: repo, commit,
    caveat, status (found, possible, not checked) and the evidence, in words."""
    rows = [(f.snapshot["repo"], f.snapshot["commit"], *row) for f in _facts(con, manifest)
            for check in CHECKS for row in check(f)]
    return pl.DataFrame(rows, schema=dict.fromkeys(COLUMNS, pl.String), orient="row")


def _facts(con: duckdb.DuckDBPyConnection, manifest: str | None) -> list[Facts]:
    scope = _rows(con, "SELECT * FROM scope ORDER BY entry, repo", manifest)
    facts = {(r["repo"], r["commit"]): Facts(r) for r in scope}
    hints = ", ".join(f"t.{h}" for h in HINT_FIELDS)
    joined = "JOIN scope s ON s.repo = {0}.repo AND s.commit = {0}.commit"
    for r in _rows(con, f"SELECT t.repo, t.commit, t.path, t.via, {under('t.path', 's.server_paths')} AS in_server, "
                        f"{hints} FROM tools t {joined.format('t')} WHERE t.is_mcp ORDER BY t.path", manifest):
        facts[r["repo"], r["commit"]].tools.append(r)
    for r in _rows(con, f"SELECT c.repo, c.commit, c.term, {path_class('c.path', 's.server_paths')} AS class, "
                        f"sum(c.count)::BIGINT AS count FROM term_counts c {joined.format('c')} GROUP BY ALL "
                        "ORDER BY c.term, class", manifest):
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


def _scanned(f: Facts) -> bool:
    return bool(f.snapshot["status"] == "scanned")


def skipped_repository(f: Facts) -> Iterator[Row]:
    """Not scanned: why, and at which stage."""
    s = f.snapshot
    if not _scanned(f):
        yield "repository-skipped", "found", f"not scanned ({s['status']} at the {s['skipped_stage']} stage): " \
                                             f"{s['skip_reason']}; none of its numbers are in this census"


def server_elsewhere(f: Facts) -> Iterator[Row]:
    """The manifest says the server lives in another repository."""
    if f.snapshot["server_repo"]:
        yield "server-elsewhere", "found", f"the MCP server lives in {f.snapshot['server_repo']} (server_repo): " \
                                           "this tree's counts and tools say nothing about it"


def no_tool_in_server_paths(f: Facts) -> Iterator[Row]:
    """``server_paths`` given, but the detector found no MCP tool under them."""
    paths = f.snapshot["server_paths"]
    if _scanned(f) and paths and not any(t["in_server"] for t in f.tools):
        elsewhere = sorted({t["path"] for t in f.tools})
        where = f": {_examples(elsewhere)}" if elsewhere else ""
        yield "no-tool-in-server-paths", "found", f"no MCP tool found under {', '.join(paths)} (server_paths); " \
                                                  f"{_n(len(f.tools), 'MCP tool')} elsewhere in the tree{where}"


def wrapper_registration(f: Facts) -> Iterator[Row]:
    """Tools registered through the project's own helper."""
    wrapped = [t["via"].removeprefix("wrapper:") for t in f.tools if t["via"].startswith("wrapper:")]
    if wrapped:
        yield "wrapper-registration", "found", f"{len(wrapped)} of {_n(len(f.tools), 'MCP tool')} registered through " \
              f"the project's own helper ({', '.join(sorted(set(wrapped)))}), followed one level: annotations " \
              "it adds or drops at run time are not seen"


def hints_only_in_tests_or_docs(f: Facts) -> Iterator[Row]:
    """Every match of a hint name sits in tests or docs."""
    matches = [p for p in f.places if hint_of(p["term"]) and p["count"]]
    if matches and all(p["class"] in ("tests", "docs") for p in matches):
        found = ", ".join(f"{p['term']} {p['count']} in {p['class']}" for p in matches)
        yield "hints-only-in-tests-or-docs", "found", f"hint names match only in tests and docs ({found}); " \
                                                      "none in server or other code"


def false_zero(f: Facts) -> Iterator[Row]:
    """A camelCase hint count of zero where another spelling, or the detector, shows the hint."""
    if not _scanned(f):
        return
    zeros = [h for h in HINT_FIELDS if _camel_total(f, h) == 0]
    found = [_false_zero_evidence(f, h) for h in zeros if _dialect_total(f, h) or _declared(f, h)]
    if found:
        yield "false-zero", "found", "; ".join(found)
    unexplained = [WIRE_NAMES[h] for h in zeros if not (_dialect_total(f, h) or _declared(f, h))]
    if unexplained and not any(hint_of(t) and not _is_camel(t) for t in f.snapshot["terms"]):
        detector = (f"the detector finds none of them declared on the {_n(len(f.tools), 'MCP tool')} of this tree"
                    if f.tools else "the detector found no MCP tool in this tree")
        yield "false-zero", "not checked", f"{', '.join(unexplained)} count 0, and the scan counted no other " \
              f"spelling (terms: {', '.join(f.snapshot['terms'])}), so a false zero (read_only_hint, " \
              f"ReadOnly = true, ...) cannot be told from a real one; {detector}"


def submodules(f: Facts) -> Iterator[Row]:
    """Git submodules: their files are in another repository, never in the tree read."""
    links = [s["path"] for s in f.skipped if s["kind"] == "submodule"]
    listed = [(n["path"], n["detail"].splitlines()) for n in _notes(f, "gitmodules")]
    if links:
        yield "submodules", "found", f"{_n(len(links), 'submodule')} not read (their files live in other " \
                                     f"repositories): {_examples(links)}"
    elif listed:
        yield "submodules", "found", "; ".join(f"{path} lists {_n(len(paths), 'submodule')} ({_examples(paths)})"
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
                                       f"for: {_n(len(pointers), 'file')} ({_examples(pointers)})"
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
    if not _scanned(f) or (str(version).isdigit() and int(str(version)) >= NOTES_SINCE):
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
            f"{KINDS.get(kind, kind)}: {len(paths)} ({_examples(paths)})" for kind, paths in sorted(by_kind.items()))


CHECKS: tuple[Callable[[Facts], Iterator[Row]], ...] = (
    skipped_repository, server_elsewhere, no_tool_in_server_paths, wrapper_registration, hints_only_in_tests_or_docs,
    false_zero, submodules, export_ignore, lfs_pointers, files_not_read,
)


def hint_of(term: str) -> str | None:
    """The hint field a counted term spells (``readOnlyHint``, ``read_only_hint``, ``#[IsReadOnly``), if any."""
    return hint_field(term.lstrip("#["))


def _is_camel(term: str) -> bool:
    field = hint_of(term)
    return field is not None and term.lower() == WIRE_NAMES[field].lower()


def _camel_total(f: Facts, hint: str) -> int | None:
    counts = [n for t, n in f.totals.items() if _is_camel(t) and hint_of(t) == hint]
    return sum(counts) if counts else None


def _dialect_total(f: Facts, hint: str) -> int:
    return sum(n for t, n in f.totals.items() if hint_of(t) == hint and not _is_camel(t))


def _declared(f: Facts, hint: str) -> int:
    return sum(1 for t in f.tools if t[hint] != "unset")


def _false_zero_evidence(f: Facts, hint: str) -> str:
    spellings = [f"{t} {n}" for t, n in sorted(f.totals.items()) if n and hint_of(t) == hint and not _is_camel(t)]
    counted = f"other spellings match ({', '.join(spellings)})" if spellings else "no other spelling was counted"
    return f"{WIRE_NAMES[hint]} counts 0, but {counted} and the detector reads it declared on " \
           f"{_declared(f, hint)} of {_n(len(f.tools), 'MCP tool')}"


def _examples(paths: list[str], shown: int = 3) -> str:
    more = f" and {len(paths) - shown} more" if len(paths) > shown else ""
    return ", ".join(paths[:shown]) + more


def _n(count: int, noun: str) -> str:
    """``1 MCP tool``, ``2 MCP tools``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
