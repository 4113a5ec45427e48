"""What ``census probe-registry`` reads before it installs anything: the registry's packages and
their arguments, the package indexes' versions and dates, a bad dump, an older database."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pytest
from package_hosts import serve

from pipeline.errors import RegistryDumpError, SettingsError
from pipeline.manifest import registry_dump
from pipeline.runtime.package_index import Hosts, PackageError, resolve
from pipeline.runtime.packages import Package, arguments_for, packages
from pipeline.runtime.sandbox import Sandbox, SandboxError
from pipeline.runtime.standins import is_placeholder
from pipeline.store.runtime import ensure_readable, stored_packages

SEED = {"name": "io.github.acme/tool", "repository": {"url": "https://github.com/acme/tool", "source": "github"},
        "packages": [{"registry_name": "pypi", "name": "acme-tool", "version": "0.2.0",
                      "package_arguments": [
                          {"type": "named", "value": "--directory /path/to/acme-tool", "is_required": True},
                          {"type": "named", "value": "--python 3.12", "is_required": True},
                          {"type": "positional", "value": "acme-tool", "is_required": True},
                          {"type": "named", "value": "--api-key <YOUR_KEY>", "is_required": True},
                          {"type": "named", "value": "--transport stdio", "is_required": True},
                          {"type": "named", "value": "--description two words", "is_required": True}],
                      "environment_variables": [{"name": "ACME_KEY", "description": "key"}]},
                     {"registry_name": "docker", "name": "acme/tool", "version": "1"}]}
CURRENT = {"server": {"name": "io.github.acme/node", "repository": {"url": "https://github.com/acme/mono",
                                                                    "subfolder": "servers/node"},
                      "packages": [{"registryType": "npm", "identifier": "@acme/node", "version": "1.2.3",
                                    "transport": {"type": "stdio"},
                                    "runtimeArguments": [{"type": "named", "name": "-y"}],
                                    "packageArguments": [{"type": "named", "name": "--mode", "value": "read"},
                                                         {"type": "positional", "valueHint": "<directory>"}],
                                    "environmentVariables": [{"name": "ACME_TOKEN", "isRequired": True}]}]},
           "_meta": {}}


def test_both_shapes_of_the_registry_are_read() -> None:
    seed, current = packages([SEED, CURRENT])  # the docker package is not one to install
    assert (seed.server, seed.registry, seed.name, seed.version, seed.repo) == (
        "io.github.acme/tool", "pypi", "acme-tool", "0.2.0", "acme/tool")
    assert seed.variables[0].name == "ACME_KEY"
    assert seed.variables[0].required is None
    assert (current.registry, current.name, current.version, current.transport) == ("npm", "@acme/node", "1.2.3",
                                                                                     "stdio")
    assert (current.repo, current.subfolder) == ("acme/mono", "servers/node")
    assert current.variables[0].required is True
    assert current.arguments == ("-y", "--mode=read", "<directory>")


def test_launcher_flags_are_left_out_placeholders_stood_in_and_the_rest_passed() -> None:
    (seed,) = packages([SEED])
    split = arguments_for(seed, ["acme-tool", "acme-admin"])
    assert split.passed == ("--api-key", "census-stand-in", "--transport", "stdio", "--description", "two words")
    assert [(s.name, s.form) for s in split.stand_ins] == [("--api-key", "text")]
    assert split.executable == "acme-tool"
    assert split.python == "3.12"
    assert split.module is None
    assert split.left_out == ("--directory /path/to/acme-tool", "--python 3.12")
    without = arguments_for(seed, ["acme-tool"], stand_ins=False)  # the placeholder and its flag left out
    assert without.passed == ("--transport", "stdio", "--description", "two words")
    assert without.left_out == ("--directory /path/to/acme-tool", "--python 3.12", "--api-key <YOUR_KEY>")
    assert without.stand_ins == ()
    module = Package("s", "pypi", "p", None, ("-m p.cli", "server.py"), (), "stdio", None, None)
    assert arguments_for(module).module == "p.cli"
    assert arguments_for(module).left_out == ("server.py",)


def test_a_placeholder_argument_gets_a_stand_in_of_its_form() -> None:
    written = ("--fibery-host YOUR_HOST", "<vault-directory>", "--schema=/path/to/schema.graphqls", "--port <PORT>")
    split = arguments_for(Package("s", "npm", "p", None, written, (), "stdio", None, None))
    assert split.passed == ("--fibery-host", "127.0.0.1", "/home/census/stand-ins/vault-directory",
                            "--schema=/home/census/stand-ins/schema.graphqls", "--port", "9")
    assert [(s.name, s.form) for s in split.stand_ins] == [
        ("--fibery-host", "host"), ("<vault-directory>", "folder"), ("--schema", "file"), ("--port", "port")]


def test_a_variable_keeps_what_the_entry_says_of_its_value() -> None:
    entry = {"name": "io.github.acme/v", "packages": [{"registryType": "npm", "identifier": "v",
                                                       "environmentVariables": [
        {"name": "MODE", "choices": ["read", "write"], "format": "string", "description": "The mode"},
        {"name": "LIMIT", "default": "20", "format": "number"}]}]}
    (package,) = packages([entry])
    mode, limit = package.variables
    assert (mode.example, mode.choices, mode.fmt) == ("The mode", ("read", "write"), "string")
    assert (limit.example, limit.fmt) == ("20", "number")
    (seed,) = packages([SEED])
    assert seed.variables[0].example == "key"  # the launch seed writes an example in the description


@pytest.mark.parametrize(("text", "placeholder"), [
    ("<YOUR_KEY>", True), ("${input:vault}", True), ("$REPOSITORY_DIRECTORY", True), ("--token your-token", True),
    ("/path/to/file", True), ("C:\\MCP\\server", True), ("--tools=web,search", False), ("8108", False),
    ("--partition optional_partition_id", False), ("https://api.example.com", False)])
def test_a_placeholder_is_what_a_person_must_replace(text: str, placeholder: bool) -> None:
    assert is_placeholder(text) is placeholder


def test_the_indexes_give_versions_release_dates_and_clear_refusals() -> None:
    with serve() as hosts:
        hosts.add_npm("@acme/node", "1.2.3", {"a.js": ""}, released="2025-03-04T05:06:07.000Z")
        hosts.add_npm("@acme/node", "1.3.0", {"a.js": ""}, released="2025-06-01T00:00:00.000Z")
        hosts.add_wheel("acme-tool", "0.2.0", {"acme_tool.py": ""}, {}, released="2025-02-01T00:00:00Z")
        index = Hosts(hosts.npm_registry, hosts.pypi_index)
        seed, current = packages([SEED, CURRENT])
        pinned = resolve(current, index)
        assert (pinned.version, pinned.newest) == ("1.2.3", "1.3.0")
        assert pinned.released_at_utc == datetime(2025, 3, 4, 5, 6, 7, tzinfo=UTC)
        assert resolve(current, index, latest=True).version == "1.3.0"
        assert resolve(seed, index).released_at_utc == datetime(2025, 2, 1, tzinfo=UTC)
        with pytest.raises(PackageError, match=r"^the PyPI index has no package nothing-here \(HTTP 404\)$"):
            resolve(Package("s", "pypi", "nothing-here", None, (), (), "stdio", None, None), index)
        with pytest.raises(PackageError, match="is not an npm package name"):
            resolve(Package("s", "npm", "owner/repo", None, (), (), "stdio", None, None), index)
        assert not any("authorization" in {k.lower() for k in headers} for _, headers in hosts.requests)


def test_a_dump_whose_packages_are_not_a_list_is_refused_naming_the_item(tmp_path: Path) -> None:
    path = tmp_path / "dump.json"
    path.write_text(json.dumps([SEED, {"name": "io.github.acme/bad", "packages": {"npm": "x"}}]))
    with pytest.raises(RegistryDumpError, match=r"dump.json: item 2: \"packages\" is an object, not a list$"):
        list(registry_dump.items(path, with_packages=True))
    assert len(list(registry_dump.items(path))) == 2  # discover does not read packages


def test_a_missing_sandbox_tool_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match=r"bubblewrap \(bwrap\) is not installed.*CENSUS_BWRAP"):
        Sandbox(bwrap=str(tmp_path / "nothing")).check()
    assert Sandbox.from_env({"CENSUS_PROBE_MEMORY_MB": "512"}).memory_mb == 512
    with pytest.raises(SettingsError, match="CENSUS_PROBE_CPU_SECONDS='soon': expected a whole number"):
        Sandbox.from_env({"CENSUS_PROBE_CPU_SECONDS": "soon"})


def test_a_database_from_before_the_package_columns_is_read_and_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE runtime_captures (server VARCHAR NOT NULL, captured_at_utc TIMESTAMP NOT NULL, "
                    "status VARCHAR NOT NULL, reason VARCHAR, transport VARCHAR NOT NULL, command_or_url VARCHAR "
                    "NOT NULL, pages INTEGER NOT NULL, raw_json VARCHAR NOT NULL)")
        con.execute("INSERT INTO runtime_captures VALUES ('s', '2025-01-01', 'ok', NULL, 'stdio', 'x', 1, '{}')")
    with duckdb.connect(str(path), read_only=True) as con:
        ensure_readable(con)  # a view shows the new columns empty; nothing is written
        assert stored_packages(con) == {"s": (None, None, "ok")}
    with duckdb.connect(str(path)) as con:
        ensure_readable(con)
        columns = {c for (c,) in con.execute("SELECT column_name FROM duckdb_columns() "
                                             "WHERE table_name = 'runtime_captures'").fetchall()}
    assert {"package_name", "package_version", "package_released_at_utc", "install_log"} <= columns


def test_a_package_is_installed_for_the_python_of_its_day(tmp_path: Path) -> None:
    from pipeline.runtime import interpreters

    fakes = {}
    for minor in (11, 12, 13):
        path = tmp_path / f"python3.{minor}"
        path.write_text(f"#!/bin/sh\necho cpython 3 {minor} 4\n")
        path.chmod(0o755)
        fakes[minor] = interpreters.Interpreter(path, (3, minor), "PATH", 4)
    offered = [fakes[13], fakes[11], fakes[12]]
    early_2025 = datetime(2025, 2, 1, tzinfo=UTC)  # 3.13 came out in October 2024: too new for most

    def order(wanted: str | None, released: datetime | None, requires: str | None = None) -> list[int]:
        return [c.interpreter.version[1] for c in interpreters.ordered(offered, wanted, released, requires)]

    assert order(None, early_2025) == [12, 11, 13]
    assert order("3.13", early_2025)[0] == 13  # the entry's own --python
    assert order(None, None) == [13, 12, 11]
    assert order(None, early_2025, ">=3.12") == [12, 13]  # Requires-Python first rules out what cannot work
    assert order(None, early_2025, ">=3.11.5") == [12, 13]  # 3.11.4 is not 3.11.5
    assert order(None, early_2025, ">=3.14") == []
    named = interpreters.found({"CENSUS_PROBE_PYTHONS": f"{fakes[12].path}:{fakes[11].path}"})
    assert [(i.path, i.version, i.found) for i in named] == [(fakes[12].path, (3, 12), "CENSUS_PROBE_PYTHONS"),
                                                             (fakes[11].path, (3, 11), "CENSUS_PROBE_PYTHONS")]


@pytest.mark.parametrize(("url", "repo"), [
    ("git+https://github.com/acme/tool.git", "acme/tool"), ("github:acme/tool", "acme/tool"),
    ("acme/tool", "acme/tool"),
    ("https://github.com/acme/mono/tree/main/servers/x", "acme/mono"), ("https://gitlab.com/acme/tool", None),
    ("", None)])
def test_a_package_names_its_repository(url: str, repo: str | None) -> None:
    from pipeline.runtime.package_metadata import github_repo

    assert github_repo(url) == repo


def test_a_sandboxed_command_gets_nothing_of_the_callers_environment_but_its_trust(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from pipeline.runtime.sandbox import HOME, environment

    monkeypatch.setenv("GITHUB_TOKEN", "ghp_never")
    monkeypatch.setenv("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt")
    running = environment(["/opt/node/bin"], {"GIVEN": "x"})
    installing = environment([], network=True)
    assert "GITHUB_TOKEN" not in running
    assert "GITHUB_TOKEN" not in installing
    assert "SSL_CERT_FILE" not in running  # a server without the network has no use for it
    assert installing["SSL_CERT_FILE"] == "/etc/ssl/certs/ca-certificates.crt"
    assert running["HOME"] == HOME
    assert running["GIVEN"] == "x"
    assert running["PATH"].startswith("/opt/node/bin:")
