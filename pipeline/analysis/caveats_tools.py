"""The caveats about tools and hints: where the server lives, which tools are a server's, how
they are registered, and what a zero for a hint name can mean (see ``pipeline.analysis.caveats``)."""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.analysis.caveats_facts import Facts, Row, examples, plural, scanned
from pipeline.scan.detect.model import HINT_FIELDS, WIRE_NAMES, hint_field
from pipeline.scan.roles import DOCS, EXAMPLE, SERVER, TEST

#: a role of a match, in words
PLACE_WORDS = {SERVER: "server code", EXAMPLE: "examples", TEST: "tests", DOCS: "docs"}


def server_elsewhere(f: Facts) -> Iterator[Row]:
    """The manifest says the server lives in another repository."""
    if f.snapshot["server_repo"]:
        yield "server-elsewhere", "found", f"the MCP server lives in {f.snapshot['server_repo']} (server_repo): " \
                                           "this tree's counts and tools say nothing about it"


def no_server_tools(f: Facts) -> Iterator[Row]:
    """MCP tools in the tree, but none a server ships: every one is an example's or a test's."""
    if scanned(f) and not f.roles.get(SERVER) and (f.roles.get(EXAMPLE) or f.roles.get(TEST)):
        counts = ((role, f.roles.get(role, 0)) for role in (EXAMPLE, TEST))
        found = " and ".join(plural(count, f"{role} tool") for role, count in counts if count)
        yield "no-server-tools", "found", f"every MCP tool of this tree is an example's or a test's ({found}): " \
                                          "it ships no server tool here (an SDK, a sample collection, or a " \
                                          "server the path rules misplace: give its server_paths)"


def no_tool_in_server_paths(f: Facts) -> Iterator[Row]:
    """``server_paths`` given, but the detector found no server MCP tool under them."""
    paths = f.snapshot["server_paths"]
    if scanned(f) and paths and not any(t["in_server"] and t["role"] == SERVER for t in f.tools):
        elsewhere = sorted({t["path"] for t in f.tools})
        where = f": {examples(elsewhere)}" if elsewhere else ""
        yield "no-tool-in-server-paths", "found", f"no MCP tool found under {', '.join(paths)} (server_paths); " \
                                                  f"{plural(len(f.tools), 'MCP tool')} elsewhere in the tree{where}"


def wrapper_registration(f: Facts) -> Iterator[Row]:
    """Tools registered through the project's own helper."""
    wrapped = [t["via"].removeprefix("wrapper:") for t in f.tools if t["via"].startswith("wrapper:")]
    if wrapped:
        yield "wrapper-registration", "found", f"{len(wrapped)} of {plural(len(f.tools), 'MCP tool')} registered " \
              f"through the project's own helper ({', '.join(sorted(set(wrapped)))}), followed one level: " \
              "annotations it adds or drops at run time are not seen"


def hints_not_in_server_code(f: Facts) -> Iterator[Row]:
    """Every match of a hint name sits in tests, examples or docs."""
    matches = [p for p in f.places if hint_of(p["term"]) and p["count"]]
    if matches and all(p["role"] != SERVER for p in matches):
        found = ", ".join(f"{p['term']} {p['count']} in {PLACE_WORDS[p['role']]}" for p in matches)
        yield "hints-not-in-server-code", "found", f"hint names match only in tests, examples and docs ({found}); " \
                                                   "none in server code"


def false_zero(f: Facts) -> Iterator[Row]:
    """A camelCase hint count of zero where another spelling, or the detector, shows the hint."""
    if not scanned(f):
        return
    zeros = [h for h in HINT_FIELDS if _camel_total(f, h) == 0]
    found = [_false_zero_evidence(f, h) for h in zeros if _dialect_total(f, h) or _declared(f, h)]
    if found:
        yield "false-zero", "found", "; ".join(found)
    unexplained = [WIRE_NAMES[h] for h in zeros if not (_dialect_total(f, h) or _declared(f, h))]
    if unexplained and not any(hint_of(t) and not _is_camel(t) for t in f.snapshot["terms"]):
        detector = (f"the detector finds none of them declared on the {plural(len(f.tools), 'MCP tool')} of this tree"
                    if f.tools else "the detector found no MCP tool in this tree")
        yield "false-zero", "not checked", f"{', '.join(unexplained)} count 0, and the scan counted no other " \
              f"spelling (terms: {', '.join(f.snapshot['terms'])}), so a false zero (read_only_hint, " \
              f"ReadOnly = true, ...) cannot be told from a real one; {detector}"


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
           f"{_declared(f, hint)} of {plural(len(f.tools), 'MCP tool')}"
