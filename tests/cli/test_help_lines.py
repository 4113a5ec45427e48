"""``census --help`` speaks to its users: each command's line, and the opening of its own ``--help``,
is one finished sentence saying what the command does, not an internal function's docstring."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.cli.main import COMMANDS, SUMMARIES

CENSUS = str(Path(sys.executable).with_name("census"))
#: words of the code's private vocabulary that a user's help must not carry
PRIVATE = ("``", "DuckDB", "exit code", "imported", "docstring", "Walk, ")


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_every_command_has_one_finished_sentence() -> None:
    assert set(SUMMARIES) == set(COMMANDS)
    for name, line in SUMMARIES.items():
        assert line.endswith("."), name
        assert line[0].isupper(), name
        assert flat(line).count(". ") == 0, name  # one sentence
        assert not any(word in line for word in PRIVATE), name
        handler = COMMANDS[name][0]
        assert flat(line) != flat((handler.__doc__ or "").split("\n\n")[0]), name  # not the function's own doc


def test_the_top_level_help_lists_each_line_whole() -> None:
    shown = flat(subprocess.run([CENSUS, "--help"], capture_output=True, text=True, check=True).stdout)
    for name, line in SUMMARIES.items():
        assert f"{name} {flat(line)}" in shown, name


@pytest.mark.parametrize("name", sorted(SUMMARIES))
def test_each_commands_own_help_opens_with_its_line(name: str) -> None:
    shown = subprocess.run([CENSUS, name, "--help"], capture_output=True, text=True, check=True).stdout
    opening = shown.split("\n\n")[1]  # after the usage
    assert flat(opening) == flat(SUMMARIES[name])
