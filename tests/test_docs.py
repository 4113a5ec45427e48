"""The README and docs cannot drift from the code: the README's two commands; commands, options,
variables and exit codes (docs/COMMANDS.md); the schema (docs/SCHEMA.md); every link between them."""

from __future__ import annotations

import argparse
import importlib
import re
from collections.abc import Sequence
from pathlib import Path

from pipeline.cli import main as cli
from pipeline.manifest.manifests import load
from pipeline.settings import ENV
from pipeline.store.database import Store

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
COMMANDS = (ROOT / "docs" / "COMMANDS.md").read_text(encoding="utf-8")
SCHEMA = (ROOT / "docs" / "SCHEMA.md").read_text(encoding="utf-8")


def _first_block() -> list[str]:
    match = re.search(r"```[a-z]*\n(.*?)```", README, re.S)
    assert match is not None
    return match.group(1).strip().splitlines()


def test_readme_opens_with_two_commands_main_job_then_tests() -> None:
    assert README.index("```") < README.index("\n## ")
    main_job, tests = _first_block()
    manifest = re.search(r"census run (\S+)", main_job)
    assert manifest is not None
    assert load(ROOT / manifest.group(1)).repos  # the manifest it names is valid
    assert tests.rstrip().endswith("pytest")
    assert "-r requirements-test.lock" in tests
    assert "-r requirements.lock" in main_job


def test_ci_runs_the_readme_test_line() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "README.md" in script
    assert "sed -n 2p" in script


def option_flags(parser: argparse.ArgumentParser) -> list[Sequence[str]]:
    """The flags of every option of ``parser`` but ``-h/--help`` (argparse lists its actions in ``_actions``)."""
    return [action.option_strings for action in parser._actions
            if action.option_strings and action.dest != "help"]


def test_every_command_and_option_is_documented() -> None:
    parsers = cli.command_parsers()
    assert {"run", "pin", "fetch", "scan", "count", "probe", "ingest-tools-list"} <= set(parsers)
    for name, parser in parsers.items():
        usage = {"count": " PATH...", "discover": " ", "audit": " TRUTH_DIR", "export": " ", "report": " ",
                 "probe": " NAME", "ingest-tools-list": " FILE", "history": " OWNER/NAME",
                 "probe-registry": " --registry-file FILE", "check": " PATH",
                 "ingest-catalog": " CLONE"}.get(name, " MANIFEST`")
        assert f"`census {name}{usage}" in COMMANDS, name
        assert f"`census {name}" in README, name  # the README's table names every command
        flags = option_flags(parser)
        assert flags, name
        for opts in flags:
            assert any(f"`{opt}" in COMMANDS for opt in opts), (name, opts)
    for variable in ENV.values():
        assert f"`{variable}`" in COMMANDS, variable


def test_exit_codes_match_the_cli() -> None:
    table = dict(re.findall(r"^\| (\d) \| (.+) \|$", COMMANDS, re.M))
    assert set(table) == {str(cli.EXIT_OK), str(cli.EXIT_FAILED), str(cli.EXIT_USAGE)}
    assert "manifest" in table[str(cli.EXIT_USAGE)]
    assert "--strict" in table[str(cli.EXIT_FAILED)]


def test_schema_table_lists_the_real_columns(tmp_path: Path) -> None:
    documented = {
        name: [c.strip() for c in columns.split(",")]
        for name, columns in re.findall(r"^\| `(\w+)`(?: \(view\))? \| [^|]+ \| ([^|]+) \|$", SCHEMA, re.M)
    }
    with Store(tmp_path / "c.duckdb") as store:
        for table in ("snapshots", "term_counts", "skipped_files", "manifest_entries", "repo_term_totals", "tools",
                      "detector_exclusions", "sdk_catalog", "tool_hints_on_wire", "tool_handlers", "tool_effects",
                      "tool_verdicts"):
            cursor = store.connection.execute(f"SELECT * FROM {table} LIMIT 0")
            assert documented[table] == [d[0] for d in cursor.description or ()], table


def test_every_probe_setting_is_documented() -> None:
    from pipeline.cli import probe_registry as cli_probe_registry
    from pipeline.runtime import interpreters, package_index, sandbox

    variables = [*sandbox.ENV.values(), *package_index.ENV.values(), interpreters.VARIABLE,
                 cli_probe_registry.WORK_VARIABLE, "CENSUS_MANIFEST"]
    for variable in variables:
        assert re.search(rf"^\| `{variable}` \|", COMMANDS, re.M), variable


def _anchors(text: str) -> set[str]:
    """GitHub's anchors of a Markdown page's headings."""
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
            for heading in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def test_every_link_of_the_readme_and_the_docs_leads_somewhere() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue  # a web address
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            assert linked.exists(), f"{page.name}: {target}"
            if anchor and linked.suffix == ".md":
                assert anchor in _anchors(linked.read_text(encoding="utf-8")), f"{page.name}: {target}"


def _exists(dotted: str) -> bool:
    """Whether ``pipeline.x.y[.name]`` is a module of the library, or a name one defines."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        module = ROOT.joinpath(*parts[:cut])
        if module.with_suffix(".py").exists() or (module / "__init__.py").exists():
            found: object = importlib.import_module(".".join(parts[:cut]))
            for name in parts[cut:]:
                if not hasattr(found, name):
                    return False
                found = getattr(found, name)
            return True
    return False


def test_every_module_and_path_the_docs_name_exists() -> None:
    pages = [ROOT / "README.md", ROOT / "benchmarks" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    named = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for dotted in re.findall(r"\bpipeline(?:\.[A-Za-z_]\w*)+", text):
            named += 1
            assert _exists(dotted), f"{page.name}: {dotted}"
        for path in re.findall(r"\bpipeline(?:/\w+)+(?:\.py)?", text):
            named += 1
            assert (ROOT / path).exists(), f"{page.name}: {path}"
    assert named > 30
    assert not _exists("pipeline.stats")
    assert _exists("pipeline.analysis.stats.hint_coverage")

def test_the_readme_is_for_users_and_short() -> None:
    assert len(README.splitlines()) <= 160
    headings = re.findall(r"^## (.+)$", README, re.M)
    assert headings == ["What it answers", "A worked example", "Three uses", "Commands", "More"]
