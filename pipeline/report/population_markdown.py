"""The Markdown of a population report (``pipeline.report.population``), from its frames alone.

Every number is read from a frame; the words around them say what the numbers mean, and where
the population differs from seed 000 they say by how much. Deterministic: no clock is read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from pipeline.analysis.population import ANNOTATED, SEED_000_TOOLS
from pipeline.report.population_effects import section as effects_section
from pipeline.report.population_runtime import section
from pipeline.report.population_timeline import section as timeline_section
from pipeline.report.tables import NO_VALUE, cell_text, markdown_table

if TYPE_CHECKING:
    from pipeline.report.population_data import PopulationData

#: how many of the largest servers the report lists
LARGEST = 15
#: chart file -> alt text
CHARTS = {
    "coverage-by-sdk.png": "Server tools by SDK: those that declare an annotations object and the rest",
    "servers-by-annotated-share.png": "Servers by the share of their tools that declare annotations",
    "hints-declared.png": "Server tools that declare each hint (true, false, not a literal), in source and on the wire",
}


def render(data: PopulationData) -> str:
    """The whole page."""
    parts = [f"# Census report: {data.manifest}", _intro(data), _coverage(data), _seed(data), _servers(data),
             _sdks(data), timeline_section(data), effects_section(data), _effective(data), section(data), _trust(data)]
    return "\n\n".join(part for part in parts if part) + "\n"


def _share(part: Any, whole: Any) -> str:
    return cell_text(part / whole) if part is not None and whole else NO_VALUE


def _count(frame: pl.DataFrame, column: str, value: str, field: str) -> int:
    found = frame.filter(pl.col(column) == value)[field].to_list()
    return int(found[0]) if found else 0


def _image(name: str) -> str:
    return f"![{CHARTS[name]}]({name})"


def _intro(data: PopulationData) -> str:
    repositories = data.coverage.height
    scanned = repositories - _count(data.coverage_summary, "reason", "not-scanned", "repositories")
    named = _count(data.coverage_summary, "reason", "server-tools", "repositories")
    tools = int(data.servers["server_tools"].sum()) if data.servers.height else 0
    versions = data.scanner_versions
    by = (f" by scanner version {versions[0]}" if len(versions) == 1 else
          f" by scanner versions {', '.join(versions)}" if versions else "")
    return (f"{repositories} repositories, {scanned} read at their pinned commits{by}: {named} define MCP server "
            f"tools the detector names, {data.servers.height - named} more only register tools it cannot name; "
            f"{tools} server tool definitions in all. Every number below comes from `pipeline.analysis.stats` over the "
            "census database; the frames are in `data/` as Parquet, and `census report` rebuilds this page "
            "from them.")


def _coverage(data: PopulationData) -> str:
    others = data.coverage.filter(pl.col("reason") != "server-tools")
    return "\n\n".join([
        "## Coverage of the population",
        "Each repository gets a reason from evidence the census holds (`stats.coverage`): its tool rows, the "
        "MCP SDKs its package manifests declare, its files that use MCP as a client or serve only prompts, its "
        "README's pointer to where the project moved, the manifest's `server_repo`. `unknown` is a defect to "
        "look into, not a finding.",
        markdown_table(data.coverage_summary),
        "### Repositories with no named server tool",
        markdown_table(others, {"repo": "repository", "reason": "reason", "evidence": "evidence"}),
    ])


def _seed(data: PopulationData) -> str:
    seed = data.seed_000
    annotated = seed.filter(pl.col("field") == ANNOTATED).row(0, named=True)
    read_only = seed.filter(pl.col("field") == "readOnlyHint").row(0, named=True)
    destructive = seed.filter(pl.col("field") == "destructiveHint").row(0, named=True)
    words = (
        f"Seed 000 read {SEED_000_TOOLS} tools of 14 running servers, {annotated['seed_000_set']} of them "
        f"({_share(annotated['seed_000_set'], SEED_000_TOOLS)}) with an annotations object. Over the population's "
        f"{annotated['source_tools']} server tools, {annotated['source_set']} "
        f"({_share(annotated['source_set'], annotated['source_tools'])}) declare one in source and "
        f"{annotated['wire_set']} ({_share(annotated['wire_set'], annotated['source_tools'])}) arrive with one "
        f"(SDK defaults applied). Seed 000's every annotated tool said whether it is read-only; here "
        f"{read_only['source_set']} of {annotated['source_set']} annotated tools do "
        f"({_share(read_only['source_set'], annotated['source_set'])}), and {destructive['source_set']} state "
        f"destructiveHint ({_share(destructive['source_set'], annotated['source_tools'])} of all server tools, "
        f"against {_share(destructive['seed_000_set'], SEED_000_TOOLS)} in seed 000).")
    headers = {"field": "field", "seed_000_set": "seed 000: set", "seed_000_true": "true",
               "seed_000_false": "false", "source_set": "in source: set", "source_true": "true,",
               "source_false": "false,", "source_dynamic": "not a literal", "wire_set": "on the wire: set",
               "wire_true": "true;", "wire_false": "false;"}
    return "\n\n".join(["## Seed 000's table at population scale", words, markdown_table(seed, headers),
                        _image("hints-declared.png")])


def _servers(data: PopulationData) -> str:
    classes = data.annotation_classes
    total = int(classes["repositories"].sum())
    none = _count(classes, "annotates", "none", "repositories")
    largest = data.servers.head(LARGEST)
    return "\n\n".join([
        "## Per server",
        f"Of {total} servers, {none} ({_share(none, total)}) annotate none of their tools and "
        f"{_count(classes, 'annotates', 'all', 'repositories')} annotate every one. Counted per tool, a few large "
        "servers weigh as much as hundreds of small ones; counted per server, each weighs one.",
        markdown_table(classes),
        _image("servers-by-annotated-share.png"),
        f"### The {LARGEST} largest servers",
        markdown_table(largest.drop("commit")),
    ])


def _sdks(data: PopulationData) -> str:
    return "\n\n".join(["## By SDK and language", markdown_table(data.by_sdk), _image("coverage-by-sdk.png")])


def _effective(data: PopulationData) -> str:
    return "\n\n".join([
        "## Effective hints, under both client readings",
        "`defaults applied`: what a client that applies the schema's defaults reads; `no annotation, no gate`: "
        "a client that treats a tool with no annotations at all as ungated (see `pipeline.analysis.hints`).",
        markdown_table(data.effective_summary),
    ])


def _trust(data: PopulationData) -> str:
    lines = ["## How far to trust it",
             "The trees are as pinned, not as they were when the registry listed them (its seed is from May 2025): "
             "the scanned trees' commits by year (the dates git gives; `unknown` for a tree read from an archive):",
             markdown_table(data.commit_years),
             "The detector reads source, so a server whose tools are made at run time shows as `runtime-generated`."]
    lines += ["Each repository's own caveats (`stats.caveats`: files not in the archive, submodules, LFS "
              "pointers, tools registered through wrappers, ...), how many repositories each was found in, then all:",
              markdown_table(data.caveats_by_kind), markdown_table(data.caveats)]
    if data.audit.height:
        values = dict(zip(data.audit["measure"].to_list(), data.audit["value"].to_list(), strict=True))
        lines.append(
            f"Its hand audit (`audit/`: {int(values['repositories'])} repositories drawn at random, read by hand): "
            f"precision {values['precision']:.3f} and recall {values['recall']:.3f} of server tools by name, "
            f"hint agreement {values['hint_agreement']:.3f}, role agreement {values['role_agreement']:.3f}.")
    return "\n\n".join(lines)
