"""What starts an installed package: the only executable, the one named like the package or server,
python -m for a module with a __main__; otherwise an error saying what there was."""

from __future__ import annotations

import pytest

from pipeline.runtime.entry import EntryError, choose


@pytest.mark.parametrize(("executables", "package", "server", "chosen", "why"), [
    (["acme"], "@acme/acme-mcp", "io.github.acme/acme", "acme", ""),
    (["acme-admin", "acme-mcp"], "acme-mcp", "io.github.acme/x", "acme-mcp", "named like the package or server"),
    (["notes", "notes-admin"], "@acme/mcp-server-notes", "io.github.acme/y", "notes", "but for mcp/server"),
    (["tool-cli", "tool-daemon"], "acme", "io.github.acme/tool-daemon", "tool-daemon", "named like the package"),
    (["acme-sync", "acme-mcp-serve"], "acme", "io.github.acme/z", "acme-mcp-serve", "the only one that says mcp"),
])
def test_among_several_executables_the_one_named_like_it(executables: list[str], package: str, server: str,
                                                         chosen: str, why: str) -> None:
    entry = choose(executables, package, server)
    assert entry.executable == chosen
    assert entry.module is None
    assert why in entry.note


def test_a_python_package_without_a_console_script_starts_as_a_module() -> None:
    entry = choose([], "acme-notes", "io.github.acme/notes", ["acme_notes", "acme_notes.tools"])
    assert (entry.executable, entry.module) == (None, "acme_notes")
    assert "python -m acme_notes" in entry.note
    assert choose([], "x", "y", ["only"]).module == "only"


def test_among_modules_none_named_like_it_the_only_server_or_main() -> None:
    entry = choose([], "acme-tools", "io.github.acme/tools", ["acme.cli_helpers", "acme.server"])
    assert entry.module == "acme.server"
    assert "named server" in entry.note


@pytest.mark.parametrize(("executables", "modules", "said"), [
    (["a", "b"], [], "has 2 executables (a, b)"),
    ([], [], "no executable to start"),
    ([], ["a", "b"], "2 modules to start (a, b)"),
    ([], ["acme.main", "acme.server"], "2 modules to start"),
])
def test_nothing_to_choose_says_what_there_was(executables: list[str], modules: list[str], said: str) -> None:
    with pytest.raises(EntryError, match=said.replace("(", r"\(").replace(")", r"\)")):
        choose(executables, "pkg", "io.github.o/s", modules)
