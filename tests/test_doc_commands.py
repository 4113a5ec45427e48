"""Every shell command of the README's and docs' fenced blocks is run here as a user types it, or
the text says it needs the network and why (``tests/doc_commands.py`` reads them).

Each page runs in a fresh copy of the project, its commands in order, offline: GitHub, the MCP
registry, npm and PyPI are loopback hosts serving synthetic things (``tests/doc_world.py``), and
the environment holds only a PATH, a HOME, a locale and those hosts: no ``CENSUS_*`` setting the
text does not set. A run command must exit 0 and print, or write, what the text says. A command
that needs the network is not run; where a later command of its page reads what it makes, a
stand-in makes that (the same command against the loopback registry, or the files it writes).
The session's summary lists every command with its verdict (``tests/conftest.py``).
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import doc_world
import pytest
from doc_commands import SHELL, Command, blocks, commands, pages
from doc_expect import RUN, SANDBOXED, STAND_INS, run
from doc_world import World


def written(command: Command) -> str:
    """The command as written, less its comments."""
    return "\n".join(re.sub(r"\s+#\s.*$", "", line) for line in command.text.splitlines())


def test_every_block_names_its_language() -> None:
    for page in pages():
        for fence, language, lines, _ in blocks(page):
            assert language, f"{page.name}:{fence}: a fenced block without a language may hide a command"
            if language not in SHELL:
                assert not [line for line in lines if line.startswith((".venv/bin/", "census "))], (page.name, fence)


def test_every_command_is_run_or_needs_the_network() -> None:
    found = commands()
    for command in found:
        if command.network is None:
            assert written(command) in RUN, f"{command.where}: run by no test: {written(command)!r}"
        else:
            assert len(command.network) > 5, f"{command.where}: needs the network, but says not why"
    assert set(RUN) <= {written(c) for c in found if c.network is None}  # nothing here the pages no longer show
    assert set(STAND_INS) <= {written(c) for c in found if c.network is not None}
    assert sum(c.network is None for c in found) >= 20


def _pages() -> Iterator[list[Command]]:
    """Each page's commands, in order: a page is one walk through, its later blocks reading what the
    earlier ones made."""
    by_page: dict[str, list[Command]] = {}
    for command in commands():
        by_page.setdefault(command.page, []).append(command)
    yield from (page for page in by_page.values() if any(c.network is None for c in page))


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    with doc_world.world() as running:
        yield running


@pytest.mark.parametrize("page", list(_pages()), ids=lambda page: page[0].page)
def test_the_commands_of_a_page_run_as_written(page: list[Command], world: World, tmp_path: Path) -> None:
    if any(word in written(c) for c in page for word in SANDBOXED if c.network is None) and not all(
            shutil.which(tool) for tool in ("bwrap", "npm", "node")):
        pytest.skip("census probe-registry needs bubblewrap (apt-get install bubblewrap), npm and node")
    folder = doc_world.workspace(tmp_path / "project")
    home = tmp_path / "home"
    home.mkdir()
    env = world.env(home)
    for command in page:
        if command.network is not None:
            stand_in = STAND_INS.get(written(command))
            if stand_in is not None:
                stand_in(folder, world, env)
            continue
        expect = RUN[written(command)]
        for given in expect.given:
            given(folder, world, env)
        started = time.time() - 1
        output = run(command.text, folder, env, expect.serves)
        for pattern in expect.says:
            assert re.search(pattern, output, re.M), f"{command.where}: {pattern!r} not in:\n{output[-3000:]}"
        for name in expect.writes:
            path = folder / name
            assert path.exists(), f"{command.where}: {name} not written"
            assert path.stat().st_mtime >= started, f"{command.where}: {name} not written again"


def test_commands_are_read_as_bash_reads_them_with_their_verdicts(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text(
        "# x\n\n<!-- needs the network: PyPI -->\n```sh\npip install x\n```\n\n```text\nnot a command\n```\n")
    (tmp_path / "docs" / "A.md").write_text(
        "```bash\n# a comment, not a command\ncensus run a.toml \\\n    --jobs 2\n"
        "for x in 1 2; do\n  echo \"$x\"   # needs the network: a host\ndone\n"
        "census report   # writes reports/\n```\n")
    found = [(c.where, c.text, c.verdict) for c in commands(tmp_path)]
    assert found == [
        ("README.md:5", "pip install x", "needs the network: PyPI"),
        ("docs/A.md:3", "census run a.toml \\\n    --jobs 2", "run"),
        ("docs/A.md:5", 'for x in 1 2; do\n  echo "$x"   # needs the network: a host\ndone',
         "needs the network: a host"),
        ("docs/A.md:8", "census report   # writes reports/", "run")]
