"""What each documented command needs before it runs and must print or write, and what stands in
for a command that needs the network (``tests/test_doc_commands.py`` runs them)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import doc_world
import effect_servers
from doc_world import World

README = (doc_world.ROOT / "README.md").read_text(encoding="utf-8")
Given = Callable[[Path, World, dict[str, str]], object]


def _published(folder: Path, world: World, env: dict[str, str]) -> None:
    """The census of the README's first line, for the pages that read its database."""
    if not (folder / "data" / "census.duckdb").exists():
        run(".venv/bin/census run manifests/published-2026.toml", folder, env)


def _registry_census(folder: Path, world: World, env: dict[str, str]) -> None:
    """docs/REGISTRY.md's census, from the seed that docs/RUNTIME.md's command reads."""
    if not (folder / "mirrors").exists():
        doc_world.seed(folder / "seed_2025_05_16.json")
        run(".venv/bin/census discover --registry-file seed_2025_05_16.json --out "
            "manifests/registry-seed-2025-05.toml --name registry-seed-2025-05", folder, env)
        doc_world.mirrors(folder / "mirrors", folder / "manifests" / "registry-seed-2025-05.toml")
        run(".venv/bin/census run manifests/registry-seed-2025-05.toml --mirrors mirrors --offline", folder, env)


def _jupyter_as_root(folder: Path, world: World, env: dict[str, str]) -> None:
    """Jupyter refuses to serve as root unless told: where the suite runs as root (CI), its HOME says so."""
    if os.geteuid() == 0:
        config = Path(env["HOME"]) / ".jupyter" / "jupyter_server_config.json"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text('{"ServerApp": {"allow_root": true, "open_browser": false}}')


def _file(name: str, make: Callable[[Path], object]) -> Given:
    return lambda folder, world, env: None if (folder / name).exists() else make(folder / name)


def _server(folder: Path, world: World, env: dict[str, str]) -> object:
    """A small clean MCP server's working tree at path/to/server (``census check``)."""
    return effect_servers.write(folder / "path/to/server", effect_servers.CLEAN_PYTHON)


def _worked_example() -> tuple[str, ...]:
    """The README's worked example, each line a pattern: the figures are the real trees', so any
    number stands for a number, and any run of spaces or of a rule for another."""
    text = README.split("```text\n", 1)[1].split("```", 1)[0]
    lines = [line for line in text.splitlines() if line.strip() and line.strip() != "..."]
    return tuple(r"^\s*" + r"\s+".join(_token(word) for word in line.split()) + r"\s*$" for line in lines)


def _token(word: str) -> str:
    if set(word) == {"─"}:
        return "─+"
    number = re.fullmatch(r"([^\w+-]*)([-+]?\d+)(\W*)", word)  # 115, -21, (5
    if number:
        return re.escape(number[1]) + r"[-+]?\d+" + re.escape(number[3])
    return re.escape(word)


@dataclass(frozen=True)
class Expect:
    """What a command needs before it runs, and what it must print or write."""

    given: tuple[Given, ...] = ()
    says: tuple[str, ...] = ()
    """patterns its output (stdout and stderr) must match, each somewhere (``re.M``)."""
    writes: tuple[str, ...] = ()
    """files it must write (or write again)."""
    serves: str | None = None
    """a server: the pattern of the line that says it is up; then it is stopped."""


PROBED = r"^2 packages: 2 answered; \d+ tools received$"
#: every command the pages run, as written less its comment
RUN = {
    ".venv/bin/census run manifests/published-2026.toml": Expect(
        says=_worked_example(), writes=("data/census.duckdb",)),
    ".venv/bin/census report --manifest published-2026": Expect(
        (_published,), writes=("reports/published-2026/README.md",)),
    ".venv/bin/census count some-archive.tar.gz --terms readOnlyHint,annotations --detect": Expect(
        (_file("some-archive.tar.gz", doc_world.archive),), says=(r"^readOnlyHint\t2$", r"^server_tools\t3$")),
    ".venv/bin/census history getzep/zep --source zep.git --match annotations=115": Expect(
        (_file("zep.git", doc_world.clone),), says=(r"^annotations=115: matched at [0-9a-f]{12}\.\.[0-9a-f]{12} ",)),
    ".venv/bin/census pin manifests/registry.toml --jobs 8": Expect(says=(r"census-docs/notes@[0-9a-f]{12}: pinned",)),
    ".venv/bin/census run manifests/registry.toml --jobs 8": Expect(
        says=(r"^registry: MCP tools by role, 2 repositories \(2 scanned\)$",)),
    ".venv/bin/census report --manifest registry": Expect(writes=("reports/registry/README.md",)),
    ".venv/bin/jupytext --to ipynb notebooks/*.py && .venv/bin/jupyter lab notebooks/": Expect(
        (_jupyter_as_root,), says=(r"Writing notebooks/05-registry-census.ipynb",), serves=r"is running at:"),
    ".venv/bin/census check path/to/server": Expect(
        (_server,), says=(r"^files/server\.py:\d+ run_command declares no annotations; its handler suggests "
                          r"readOnlyHint: false, destructiveHint: true",
                          r"^2 server tools, 2 handlers read, 0 contradictions$")),
    ".venv/bin/census check path/to/server --json": Expect(
        (_server,), says=(r'^  "contradictions": 0,$', r'^  "handlers_located": 2,$')),
    ".venv/bin/census count --json --detect --terms dialects path/to/repo.tar.gz": Expect(
        (_file("path/to/repo.tar.gz", doc_world.archive),), says=(r'^    "server_tools": 3,$', r'^  "totals": \{$')),
    ".venv/bin/python -c \"import duckdb; con = duckdb.connect('data/census.duckdb'); "
    "print(con.sql(\\\"SELECT sdk, count(*) tools, count(*) FILTER (WHERE annotations_source <> 'none') "
    "annotated FROM tools WHERE is_mcp GROUP BY sdk\\\"))\"": Expect(
        (_published,), says=(r"│\s+sdk\s+│\s+tools\s+│\s+annotated\s+│", r"│ python-mcp\s+│\s+3 │\s+2 │")),
    ".venv/bin/census discover --registry-file registry/data/seed_2025_05_16.json \\\n    --out "
    "manifests/registry-seed-2025-05.toml --name registry-seed-2025-05": Expect(
        says=(r"^manifests/registry-seed-2025-05.toml: 2 repositories",),
        writes=("manifests/registry-seed-2025-05.toml",)),
    "mkdir -p mirrors": Expect(writes=("mirrors",)),
    ".venv/bin/census run manifests/registry-seed-2025-05.toml --mirrors mirrors --offline --jobs 2": Expect(
        says=(r"^registry-seed-2025-05: MCP tools by role, 2 repositories \(2 scanned\)$",)),
    ".venv/bin/census report --manifest registry-seed-2025-05": Expect(
        (_registry_census,), writes=("reports/registry-seed-2025-05/README.md",)),
    ".venv/bin/census audit reports/registry-seed-2025-05/audit/truth": Expect(says=(r"^- repositories: 40$",)),
    ".venv/bin/census timeline manifests/registry-seed-2025-05.toml --every month --since 2024-11 --mirrors mirrors "
    "--jobs 2": Expect((_registry_census,), says=(
        r"^registry-seed-2025-05: timeline by month, 2024-11 \.\. \d{4}-\d{2} \(\d+ periods\)$",
        r"^2 of 2 repositories walked \(0 with no mirror, 0 not readable\); ")),
    ".venv/bin/census report --manifest registry-seed-2025-05 --timeline-only": Expect(
        writes=("reports/registry-seed-2025-05/README.md", "reports/registry-seed-2025-05/timeline.png")),
    ".venv/bin/census run roles-local.toml --db data/roles.duckdb": Expect(
        (_file("roles-local.toml", doc_world.local_manifest),),
        says=(r"^roles-local: MCP tools by role, 2 repositories \(2 scanned\)$",), writes=("data/roles.duckdb",)),
    ".venv/bin/census probe-registry --registry-file seed_2025_05_16.json --latest --jobs 2": Expect(
        (_file("seed_2025_05_16.json", doc_world.seed),), says=(PROBED,)),
    ".venv/bin/census probe-registry --registry-file awesome-mcp-registry --sample 400 --latest --jobs 4 --db "
    "data/community.duckdb": Expect(says=(r"^sample: 3 of 3 packages drawn \(seed 2026\) until 2 resolved$",
                                         r"^3 packages: 2 answered, 1 resolve; \d+ tools received$")),
    ".venv/bin/census report --runtime community --db data/community.duckdb": Expect(
        writes=("reports/community/README.md", "reports/community/packages.md", "reports/community/cause-funnel.png")),
    ".venv/bin/census ingest-tools-list answer.json --server docs --repo owner/docs-server": Expect(
        (_file("answer.json", doc_world.answer),), says=(r"^docs: 2 tools \(1 annotated\) in 1 page$",)),
    ".venv/bin/census export --format parquet --out data/export": Expect(writes=("data/export/tools.parquet",)),
    ".venv/bin/dask scheduler": Expect(serves=r"Scheduler at:\s+tcp://\S+:8786"),
    ".venv/bin/python -c \"import duckdb; con = duckdb.connect('data/census.duckdb'); print(con.sql('SELECT * FROM "
    "repo_term_totals'))\"": Expect((_published,), says=(r"│\s+repo\s+│", r"getzep/zep")),
}
#: what a command that needs the network makes, for the commands after it
STAND_INS: dict[str, Given] = {
    ".venv/bin/census discover --registry https://registry.modelcontextprotocol.io --out manifests/registry.toml":
        lambda folder, world, env: run(f".venv/bin/census discover --registry {world.registry.url} --out "
                                        "manifests/registry.toml", folder, env),
    ".venv/bin/census probe-registry --registry https://registry.modelcontextprotocol.io --latest --jobs 2":
        lambda folder, world, env: run(f".venv/bin/census probe-registry --registry {world.registry.url} --latest "
                                        "--jobs 2", folder, env),
    "git clone https://github.com/toolsdk-ai/awesome-mcp-registry":
        lambda folder, world, env: doc_world.catalog(folder / "awesome-mcp-registry"),
    "git clone https://github.com/modelcontextprotocol/registry":
        _file("registry/data/seed_2025_05_16.json", doc_world.seed),
    "grep '^repo = ' manifests/registry-seed-2025-05.toml | cut -d'\"' -f2 | while read -r repo; do\n  [ -d "
    "\"mirrors/$repo.git\" ] || git clone -q --mirror \"https://github.com/$repo\" \"mirrors/$repo.git\" || echo "
    "\"no mirror: $repo\"\ndone":
        lambda folder, world, env: doc_world.mirrors(folder / "mirrors",
                                                     folder / "manifests" / "registry-seed-2025-05.toml"),
}
SANDBOXED = ("probe-registry",)


def run(text: str, folder: Path, env: dict[str, str], serves: str | None = None) -> str:
    """Run ``text`` with bash in ``folder``; its output; a failure names the command and shows the output."""
    if serves is not None:
        return _serve(text, folder, env, serves)
    done = subprocess.run(["bash", "-c", text], cwd=folder, env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{text!r} exited {done.returncode}:\n{output[-3000:]}"
    return output


def _serve(text: str, folder: Path, env: dict[str, str], up: str) -> str:
    """Start a server, wait for the line that says it is up, stop it (and all it started)."""
    process = subprocess.Popen(["bash", "-c", text], cwd=folder, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    seen: list[str] = []
    deadline = time.monotonic() + 120
    try:
        assert process.stdout is not None
        for line in process.stdout:
            seen.append(line)
            if re.search(up, line) or time.monotonic() > deadline:
                break
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
    output = "".join(seen)
    assert re.search(up, output, re.M), f"{text!r} never said it was up ({up}):\n{output[-3000:]}"
    return output
