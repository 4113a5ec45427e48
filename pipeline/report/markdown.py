"""The Markdown of a census report, from the frames of ``pipeline.report.data.ReportData``.

Every column header says what its numbers are: *matches* (case-insensitive byte counts of a
term), *tool definitions* (detector rows), *declared* (the key is written), *declared true /
false* (the literal written) or *effective* (what a client applying the schema defaults reads).
The runtime truth section is written by ``pipeline.report.runtime``, tables, cells and chart
images by ``pipeline.report.tables``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from pipeline.analysis.caveats import CAVEATS
from pipeline.report.runtime import runtime
from pipeline.report.tables import HISTORY_CHART, NO_VALUE, cell_text, commit, image, markdown_table

if TYPE_CHECKING:
    from pipeline.report.data import ReportData

SOURCES = {"git": "a local git copy of the pinned commit", "github": "the GitHub archive of the pinned commit",
           "tarball": "a local archive of the pinned commit"}
#: the readings of ``stats.hint_coverage``, as a table header says them
READINGS = {"declared in source": "source", "on the wire": "wire"}

INTRO = """\
Written by `census report` from the census database: every number is computed by
`pipeline.analysis.stats` from the tables `census run` stored, and the frames behind this page are in
[`data/`](data/) (Parquet), from which the test suite rebuilds it byte for byte.

Each number says what it counts. **Matches** are case-insensitive byte counts of a term over
every regular file of a tree (tests, docs and binaries included): strings, not tools. **Tool
definitions** are what the registration detector found in source. **Declared** means the key
is written (in source, or on the wire once the SDK's documented behaviour is applied),
**declared true / false** is the literal written, and **effective** is what a client that
applies the schema defaults reads."""


def render(data: ReportData) -> str:
    """The whole README.md of a report."""
    parts = [f"# Census report: {data.manifest}", INTRO, _provenance(data.repositories),
             "## Repositories", _repositories(data.repositories),
             "## Published vs measured", PUBLISHED_TEXT, _published(data.published_vs_measured),
             image("published-vs-measured.png"), *_over_time(data),
             "## Where the tools live", ROLES_TEXT, _roles(data.tools_by_role), image("tools-by-role.png"),
             "## MCP tools by SDK", TOOLS_TEXT, _tools(data.tools_by_sdk), image("tools-by-sdk.png"),
             "### Look-alikes left out", LOOKALIKES_TEXT, _lookalikes(data.lookalikes_excluded),
             "## Hint coverage", _coverage_text(data.hint_coverage), _coverage(data.hint_coverage),
             image("hint-coverage.png"),
             "## Effective hints", EFFECTIVE_TEXT, _effective(data.effective_summary),
             "## Runtime truth", *runtime(data),
             "## Caveats", CAVEATS_TEXT, _caveats(data.caveats)]
    return "\n\n".join(p for p in parts if p) + "\n"


def _over_time(data: ReportData) -> list[str]:
    """The published trees over their histories, where ``census history`` stored them (else nothing)."""
    if data.history_series.is_empty():
        return []
    found = [f"- {r['repo']} {r['term']}={r['figure']}: " + (
        f"matched at {r['first'][:12]}..{r['last'][:12]} ({r['first_at_utc']:%Y-%m-%d} .. "
        f"{r['last_at_utc']:%Y-%m-%d}, {r['commits']} commits)" if r["first"] else
        f"matched by no commit from {r['first_at_utc']:%Y-%m-%d} to {r['last_at_utc']:%Y-%m-%d}")
        for r in data.history_findings.iter_rows(named=True)]
    return ["### Over time", "Each published term's count at every commit `census history` walked, the figure the "
            "article gives as a dashed line, the commit the manifest pins as a dotted one.", image(HISTORY_CHART),
            "\n".join(found)]


def _signed(value: Any) -> str:
    return NO_VALUE if value is None else f"{value:+d}" if value else "0"


def _provenance(repos: pl.DataFrame) -> str:
    scanned = repos.filter(pl.col("status") == "scanned")
    sources = scanned["source"].value_counts(sort=True).sort("count", "source", descending=[True, False])
    read = "; ".join(f"{n} from {SOURCES.get(s, s)}" for s, n in sources.iter_rows())
    if len(sources) == 1 and len(scanned):
        read = f"every scanned tree from {SOURCES.get(sources['source'][0], sources['source'][0])}"
    versions = ", ".join(sorted({str(v) for v in scanned["scanner_version"]})) or NO_VALUE
    terms = ", ".join(f"`{t}`" for t in (scanned["terms"][0] if len(scanned) else []))
    return (f"{len(scanned)} of {len(repos)} repositories were scanned, {read or 'none'} "
            f"(scanner version {versions}). Terms counted: {terms or NO_VALUE}.")


def _repositories(repos: pl.DataFrame) -> str:
    headers = {"repo": "repo", "commit": "commit", "status": "status", "source": "read from",
               "regular_files": "regular files", "skipped_members": "members not read", "server_tools": "server tools",
               "annotated_server_tools": "server tools declaring annotations (source)",
               "example_tools": "example tools", "test_tools": "test tools", "lookalike_tools": "look-alike tools",
               "note": "note"}
    return markdown_table(repos, headers, {"commit": commit})


PUBLISHED_TEXT = """\
Matches of each term: the figure an article published for the tree (from the manifest's
`published`), the number measured here, the difference (measured - published), and where the
measured matches sit, by the role of their file: server code, examples, tests, docs (the one
classifier of the census, `pipeline.scan.roles`; under the manifest's `server_paths` a file is
server code unless it is itself a test, an example or documentation)."""


def _published(frame: pl.DataFrame) -> str:
    headers = {"repo": "repo", "term": "term", "published": "published matches", "measured": "measured matches",
               "difference": "difference", "in_server": "in server code", "in_examples": "in examples",
               "in_tests": "in tests", "in_docs": "in docs"}
    return markdown_table(frame, headers, {"difference": _signed, "term": lambda t: f"`{t}`"})


ROLES_TEXT = """\
Every tool definition has a role: **server** (what a server ships), **example** (examples,
samples, demos, templates) or **test** (tests, fixtures, benchmarks, evals), decided from its
file's path and, where the language says so, its content (`pipeline.scan.roles`; the rules that
placed each repository's tools are listed with how many tools each placed). Every count below
this table is of server tools."""


def _roles(frame: pl.DataFrame) -> str:
    headers = {"repo": "repo", "role": "role", "mcp_tools": "MCP tools",
               "annotated_tools": "declaring annotations (source)", "lookalike_tools": "look-alike tools",
               "rules": "placed by"}
    return markdown_table(frame, headers, {"rules": lambda rules: ", ".join(f"`{r}`" for r in rules)})


TOOLS_TEXT = ("Tool definitions in server code (role `server`) by library, MCP or not; the look-alikes of every "
              "role are listed below:")


def _tools(frame: pl.DataFrame) -> str:
    headers = {"repo": "repo", "sdk": "library", "language": "language", "is_mcp": "MCP",
               "tools": "tool definitions", "annotated_tools": "declaring annotations (source)",
               "via_wrapper": "through a wrapper"}
    return markdown_table(frame, headers)


LOOKALIKES_TEXT = "Registrations of tools that are not MCP (agent frameworks, plugins), left out of every MCP count:"


def _lookalikes(frame: pl.DataFrame) -> str:
    headers = {"repo": "repo", "sdk": "library", "language": "language", "tools": "tool definitions",
               "files": "files", "paths": "where"}
    return markdown_table(frame, headers, {"paths": lambda p: _examples(list(p))})


def _coverage_text(coverage: pl.DataFrame) -> str:
    sentences = []
    for reading in coverage["reading"].unique(maintain_order=True):
        row = coverage.filter(pl.col("reading") == reading).row(0, named=True)
        where = {"declared in source": "in source", "on the wire": "on the wire"}.get(reading, reading)
        sentences.append(f"{where}, {row['annotated_tools']} of {row['tools']} server tool definitions carry an "
                         f"annotations object ({cell_text(row['annotated_share'])})")
    found = "; ".join(sentences)
    return ("The seed article's table, over the server tools found here (what the servers ship: example and "
            "test tools left out), once as the source declares "
            "them and once as a client receives them (the SDK's documented behaviour applied). "
            f"{found[:1].upper()}{found[1:]}. `title` is a string: it is only counted as declared.")


def _coverage(coverage: pl.DataFrame) -> str:
    wide = coverage.pivot(on="reading", index="field", values=["set", "set_true", "set_false", "set_dynamic"],
                          sort_columns=False)
    readings = coverage["reading"].unique(maintain_order=True).to_list()
    names = {"set": "declared", "set_true": "declared true", "set_false": "declared false",
             "set_dynamic": "declared, not a literal"}
    headers = {"field": "field"} | {f"{v}_{r}": f"{names[v]} ({READINGS.get(r, r)})" for r in readings for v in names}
    return markdown_table(wide, headers, {"field": lambda f: f"`{f}`"})


EFFECTIVE_TEXT = """\
What a client reads for each server tool definition, from what it receives (on the wire), under
the two readings of a tool that arrives without annotations: *defaults applied* (the declared
value, else the schema default; destructiveHint and idempotentHint are not applicable when
readOnlyHint is effectively true) and *no annotation, no gate* (no hint-based decision is taken
for such a tool). These are effective values, not declarations."""


def _effective(summary: pl.DataFrame) -> str:
    headers = {"reading": "client reading", "hint": "hint", "effective_true": "effective true",
               "effective_false": "effective false", "not_applicable": "not applicable",
               "unknown": "unknown (not a literal)", "no_gate": "no gate"}
    return markdown_table(summary, headers, {"hint": lambda h: f"`{h}`"})


CAVEATS_TEXT = """\
What these numbers cannot mean, per repository, with the evidence the database holds
(`stats.caveats`). *found*: the database shows it; *possible*: a sign of it, not enough to tell."""


def _caveats(frame: pl.DataFrame) -> str:
    shown = frame.filter(pl.col("status") != "not checked")
    blocks = [f"### {repo}\n\n" + "\n".join(f"- **{c}** ({s}): {e}" for _, c, s, e in rows)
              for repo, rows in _grouped(shown.select("repo", "caveat", "status", "evidence").rows())]
    unchecked = frame.filter(pl.col("status") == "not checked")
    if len(unchecked):
        lines = [f"- **{caveat}** ({', '.join(repos)}): {evidence}" for caveat, evidence, repos in _by_text(unchecked)]
        blocks.append("### Not checked\n\nThe scan stores nothing that could show these, so they are neither "
                      "found nor ruled out:\n\n" + "\n".join(lines))
    return "\n\n".join(blocks) or "None."


def _grouped(rows: Sequence[tuple[Any, ...]]) -> list[tuple[str, list[tuple[Any, ...]]]]:
    groups: dict[str, list[tuple[Any, ...]]] = {}
    for row in rows:
        groups.setdefault(row[0], []).append(row)
    return list(groups.items())


def _by_text(frame: pl.DataFrame) -> list[tuple[str, str, list[str]]]:
    groups: dict[tuple[str, str], list[str]] = {}
    for repo, caveat, evidence in frame.select("repo", "caveat", "evidence").rows():
        groups.setdefault((caveat, evidence), []).append(repo)
    order = {caveat: n for n, caveat in enumerate(CAVEATS)}
    ranked = sorted(groups.items(), key=lambda item: order.get(item[0][0], len(order)))  # stable: first seen first
    return [(caveat, evidence, repos) for (caveat, evidence), repos in ranked]


def _examples(paths: list[str], shown: int = 3) -> str:
    more = f" and {len(paths) - shown} more" if len(paths) > shown else ""
    return ", ".join(f"`{p}`" for p in paths[:shown]) + more
