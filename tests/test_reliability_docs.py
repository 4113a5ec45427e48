"""docs/RELIABILITY.md cannot drift: every test it names exists, and its limits are the code's."""

from __future__ import annotations

import re
from pathlib import Path

from pipeline.settings import ENV, LIMIT_NAMES, Settings

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "RELIABILITY.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")
COMMANDS = (ROOT / "docs" / "COMMANDS.md").read_text(encoding="utf-8")


def test_every_test_named_exists() -> None:
    named = set(re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", DOC))
    assert len(named) > 40
    for path, name in sorted(named):
        source = (ROOT / path).read_text(encoding="utf-8")
        assert re.search(rf"^def {name}\(", source, re.M), f"{path}::{name}"


def test_the_limits_tables_give_the_codes_defaults_and_variables() -> None:
    defaults = Settings()
    for name in LIMIT_NAMES:
        value, variable = getattr(defaults, name), ENV[name]
        assert re.search(rf"^\| `{name}` \| `{variable}` \| {value} ", DOC, re.M), name
        assert re.search(rf"^\| `{variable}` \| [^|]+ \| {value} \|", COMMANDS, re.M), name  # the settings table
    assert "[docs/RELIABILITY.md](docs/RELIABILITY.md)" in README
