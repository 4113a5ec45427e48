"""The runtime truth section of a report's Markdown, from the runtime frames of ``ReportData``.

Each column header says its side: *received* is what a running server sent in answer to
tools/list, against *declared in source* and *expected on the wire* (the SDK's documented
behaviour applied).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from pipeline.report.tables import AGREEMENT_CHART, NO_VALUE, cell_text, commit, image, markdown_table

if TYPE_CHECKING:
    from pipeline.report.data import ReportData

NO_CAPTURES = """\
The database holds no runtime captures: `census probe NAME -- COMMAND [ARGS...]` (or `--url URL`)
captures a running server's tools/list, `census ingest-tools-list FILE --server NAME` loads one
saved earlier, and `--repo OWNER/NAME` on either names the repository holding its source."""

RUNTIME_TEXT = """\
What running servers sent in answer to tools/list, against what their source declares. Each
number says its side: **received** is what a server sent at run time (a hint is received when
its key holds a value; null counts as absent; *received true / false* are the JSON booleans),
**declared in source** is what the detector found (as above), and **expected on the wire** is
what the SDK's documented behaviour makes of the declaration (the *on the wire* reading above)."""

RECEIVED_TEXT = """\
The seed article's table from the tools/list answers, over every server captured in the database
(paired with a repository of this manifest or not)"""

PAIRED_TEXT = """\
For each server paired with a repository of this manifest (by `--repo`, or a server named like
the repository), tools are matched by name with the repository's MCP tool definitions at its
latest scanned snapshot (the commit below; a name defined more than once stands for its first
definition outside tests). Per server: tools found on both sides, defined in source but not
received, received but not found in source:"""

AGREEMENT_TEXT = """\
Per hint, over the tools on both sides: the value declared in source against the value received
(*same*; *added on wire*: unset in source, received; *dropped on wire*: declared, not received;
*differ*: both set, to different values; *resolved*: an expression in source), and how many were
received as expected on the wire."""

NOT_PAIRED = """\
No captured server is paired with a scanned repository of this manifest: pass `--repo OWNER/NAME`
to `census probe` or `census ingest-tools-list`, or name the server like the repository."""


def runtime(data: ReportData) -> list[str]:
    """The runtime truth section's parts, after its heading."""
    captures = data.runtime_captures
    if captures.is_empty():
        return [NO_CAPTURES]
    ok = captures.filter(pl.col("status") == "ok")
    skipped = captures.filter(pl.col("status") != "ok")
    held = (f"The database holds {len(captures)} tools/list captures: {len(ok)} read to the end (ok) and "
            f"{len(skipped)} skipped.")
    return [RUNTIME_TEXT, held,
            "### Received at run time", _received_text(data.runtime_coverage), _received(data.runtime_coverage),
            _servers(ok),
            "### Declared in source vs received", *_paired(data),
            "### Skipped captures", _skipped(skipped)]


def _received_text(coverage: pl.DataFrame) -> str:
    row = coverage.row(0, named=True)
    return (f"{RECEIVED_TEXT}: {row['tools']} tools received from {row['servers']} servers, {row['annotated_tools']} "
            f"of them with an annotations object ({cell_text(row['annotated_share'])}). `title` is "
            "`annotations.title`: only counted as received.")


def _received(coverage: pl.DataFrame) -> str:
    headers = {"field": "field", "set": "received set", "set_true": "received true", "set_false": "received false",
               "set_other": "received, not a boolean"}
    return markdown_table(coverage, headers, {"field": lambda f: f"`{f}`"})


def _servers(ok: pl.DataFrame) -> str:
    headers = {"server": "server", "transport": "captured from", "captured_at_utc": "captured (UTC)",
               "pages": "tools/list pages", "tools": "tools received",
               "annotated_tools": "received with annotations", "reason": "note"}
    return markdown_table(ok, headers, {"captured_at_utc": _moment})


def _paired(data: ReportData) -> list[str]:
    if data.runtime_pairs.is_empty():
        return [NOT_PAIRED]
    pinned = set(data.repositories.select("repo", "commit").rows())
    pairs = data.runtime_pairs.with_columns(pinned=pl.Series(
        [row in pinned for row in data.runtime_pairs.select("repo", "commit").rows()], dtype=pl.Boolean))
    headers = {"server": "server", "repo": "repo", "commit": "commit (source)", "pinned": "pinned by the manifest",
               "both": "tools on both sides", "source_only": "declared in source, not received",
               "runtime_only": "received, not in source"}
    agreement = {"server": "server", "hint": "hint", "both": "tools on both sides",
                 "same": "same (declared = received)", "added_on_wire": "added on wire",
                 "dropped_on_wire": "dropped on wire", "differ": "differ", "resolved": "resolved",
                 "as_expected": "received as expected on the wire"}
    return [PAIRED_TEXT, markdown_table(pairs, headers, {"commit": commit}), AGREEMENT_TEXT,
            markdown_table(data.runtime_agreement, agreement, {"hint": lambda h: f"`{h}`"}), image(AGREEMENT_CHART)]


def _skipped(skipped: pl.DataFrame) -> str:
    if skipped.is_empty():
        return "None: every capture was read to the end."
    headers = {"server": "server", "transport": "captured from", "captured_at_utc": "captured (UTC)",
               "reason": "reason"}
    return ("Servers whose tools/list was not read to the end, with the reason; they count nowhere above.\n\n"
            + markdown_table(skipped, headers, {"captured_at_utc": _moment}))


def _moment(value: Any) -> str:
    return NO_VALUE if value is None else f"{value:%Y-%m-%d %H:%M:%S}"
