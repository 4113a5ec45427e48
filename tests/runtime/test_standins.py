"""Stand-ins: a value of the right form for each thing an entry asks its user for, never a value
of the user's own; paths made in the sandbox's HOME."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.runtime.standins import INSIDE, TEXT, materialize, stand_in, variable_values


@dataclass(frozen=True)
class Declared:
    name: str
    example: str | None = None
    choices: tuple[str, ...] = ()
    fmt: str | None = None


@pytest.mark.parametrize(("name", "example", "form", "value"), [
    ("ACME_API_KEY", "<YOUR_API_KEY>", "text", TEXT),
    ("ACME_ENV", "<demo|qa|prd>", "choice", "demo"),
    ("ACME_BASE_URL", "<url>", "url", "http://127.0.0.1:9"),
    ("ACME_DB", "postgres://user:pass@host/db", "url", "http://127.0.0.1:9"),
    ("--acme-host", "YOUR_HOST", "host", "127.0.0.1"),
    ("ACME_PORT", "<port>", "port", "9"),
    ("ACME_EMAIL", "<email>", "email", "census@example.invalid"),
    ("ACME_OUTPUT_DIR", "<dir>", "folder", f"{INSIDE}/acme-output-dir"),
    ("notes", "/path/to/notes.json", "file", f"{INSIDE}/notes.json"),
    ("acmeConfigFile", "${input:config}", "file", f"{INSIDE}/acmeconfigfile"),
    ("ACME_TIMEOUT_SECONDS", "<n>", "number", "1"),
    ("ENABLE_ACME_CACHE", "<bool>", "switch", "false"),
    ("ACME_REGION", "<region>", "region", "us-east-1"),
    ("ACME_USERNAME", "<user>", "user", "census"),
    ("EVM_PRIVATE_KEY", "<your wallet's private key>", "private key", "0x" + "01" * 32),
    ("ACME_PRIVATE_KEY_PATH", "<path>", "folder", f"{INSIDE}/acme-private-key-path"),
    ("ACME_PRIVATE_REPO", "<repo>", "text", TEXT),
])
def test_each_form_is_read_from_the_name_and_the_example(name: str, example: str, form: str, value: str) -> None:
    made = stand_in(name, example)
    assert (made.form, made.value) == (form, value)


def test_the_entrys_choices_and_format_come_first() -> None:
    assert stand_in("ACME_URL", "", ("read", "write")).value == "read"
    assert stand_in("ACME_NAME", "", (), "number").value == "1"
    assert stand_in("ACME_NAME", "", (), "filepath").form == "file"


def test_a_variable_is_the_users_then_the_entrys_value_then_a_stand_in() -> None:
    declared = [Declared("TOKEN", "<YOUR_TOKEN>"), Declared("REGION", "eu-west-1"), Declared("LOG", "Log level to use"),
                Declared("PATH", "/full/path/to/python"), Declared("MINE", "<x>")]
    values, stood = variable_values(declared, {"MINE": "the user's own"})
    assert values == {"TOKEN": TEXT, "REGION": "eu-west-1", "LOG": TEXT, "MINE": "the user's own"}
    assert [s.name for s in stood] == ["TOKEN", "LOG"]  # PATH is the sandbox's own


VOCABULARY = {TEXT, "http://127.0.0.1:9", "127.0.0.1", "9", "census@example.invalid", "1", "false", "us-east-1",
              "census"}


@given(st.dictionaries(st.from_regex(r"[A-Z][A-Z_]{2,12}", fullmatch=True),
                       st.text(st.characters(min_codepoint=32, max_codepoint=0x2FFF), min_size=4, max_size=30)
                       .filter(lambda v: v not in VOCABULARY), max_size=8))
def test_a_stand_in_is_never_a_value_of_the_users_environment(environ: dict[str, str]) -> None:
    with patch.dict(os.environ, environ):
        values, stood = variable_values([Declared(name, f"<{name.lower()}>") for name in environ], {})
    assert {s.value for s in stood}.isdisjoint(environ.values())
    assert all(s.value in VOCABULARY or s.value.startswith(f"{INSIDE}/") for s in stood)
    assert set(values) == set(environ) - {"PATH", "HOME"}


def test_paths_are_made_in_the_sandboxs_home(tmp_path: Path) -> None:
    made = [stand_in("vault", "<vault-directory>"), stand_in("settings", "/path/to/settings.json"),
            stand_in("schema", "/path/to/schema.graphqls"), stand_in("notes", "/path/to/notes.txt"),
            stand_in("KEY", "<key>")]
    materialize(made, tmp_path)
    assert (tmp_path / "stand-ins" / "vault").is_dir()
    assert (tmp_path / "stand-ins" / "settings.json").read_text() == "{}\n"
    assert (tmp_path / "stand-ins" / "schema.graphqls").read_text().startswith("type Query {")  # a parser's minimum
    assert (tmp_path / "stand-ins" / "notes.txt").read_text() == ""
    assert sorted(p.name for p in (tmp_path / "stand-ins").iterdir()) == [
        "notes.txt", "schema.graphqls", "settings.json", "vault"]
