"""A community package catalog read as a registry, a seeded sample drawn from it until enough packages
resolve, and the runtime census report made of what they sent (on loopback npm and PyPI hosts, in the
real sandbox)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from package_hosts import Hosts, serve

from pipeline.errors import RegistryDumpError
from pipeline.manifest import catalog
from pipeline.run.draw import draw
from pipeline.runtime import package_index
from pipeline.runtime.packages import packages

FIXTURES = Path(__file__).parents[1] / "fixtures" / "packages"
CENSUS = str(Path(sys.executable).with_name("census"))


def write_catalog(folder: Path, entries: dict[str, dict[str, object]]) -> Path:
    for where, entry in entries.items():
        path = folder / "packages" / f"{where}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"type": "mcp-server", **entry}))
    (folder / "packages" / "README.md").write_text("not an entry\n")
    return folder


ENTRIES: dict[str, dict[str, object]] = {
    "tools/fixture": {"packageName": "census-fixture", "runtime": "node", "url": "https://github.com/o/fixture",
                      "env": {"ACME_TOKEN": {"description": "your-token", "required": True}}},
    "tools/python": {"packageName": "census-fixture-py", "runtime": "python", "env": {}},
    "tools/gone": {"packageName": "census-not-on-npm", "runtime": "node"},
    "tools/gone-too": {"packageName": "not a pypi name!", "runtime": "python"},
    "tools/go": {"packageName": "github.com/o/go-server", "runtime": "go"},
}


@pytest.fixture(scope="module")
def hosts() -> Iterator[Hosts]:
    with serve() as running:
        running.add_npm("census-fixture", "1.0.0", {"server.js": (FIXTURES / "server.js").read_text()},
                        bin_={"census-fixture": "server.js"})
        running.add_wheel("census-fixture-py", "0.1.0", {"census_fixture_py.py": (FIXTURES / "census_fixture_py.py")
                                                        .read_text()}, {"census-fixture-py": "census_fixture_py:main"})
        yield running


def test_a_catalog_entry_is_a_server_of_the_seeds_shape(tmp_path: Path) -> None:
    folder = write_catalog(tmp_path, ENTRIES)
    assert catalog.is_catalog(folder)
    found = {p.server: p for p in packages(item for _, item in catalog.items(folder))}
    assert set(found) == {"tools/fixture", "tools/python", "tools/gone", "tools/gone-too"}  # go is not installed
    fixture = found["tools/fixture"]
    assert (fixture.registry, fixture.name, fixture.repo) == ("npm", "census-fixture", "o/fixture")
    assert [(v.name, v.required, v.example) for v in fixture.variables] == [("ACME_TOKEN", True, "your-token")]
    assert found["tools/python"].registry == "pypi"


@pytest.mark.parametrize(("text", "said"), [("[1, 2]", "not a JSON object"), ("{", "not a catalog entry"),
                                           ('{"packageName": "x"}', "needs a packageName and a runtime"),
                                           ('{"packageName": "x", "runtime": "node", "env": []}', '"env" is not')])
def test_a_bad_catalog_file_is_named(tmp_path: Path, text: str, said: str) -> None:
    bad = tmp_path / "packages" / "c" / "bad.json"
    bad.parent.mkdir(parents=True)
    bad.write_text(text)
    with pytest.raises(RegistryDumpError) as raised:
        list(catalog.items(tmp_path))
    assert str(raised.value).startswith(f"{bad}: ")
    assert said in str(raised.value)


def test_the_sample_is_the_seeds_alone_and_stops_at_the_nth_resolved(tmp_path: Path, hosts: Hosts) -> None:
    offered = list(packages(item for _, item in catalog.items(write_catalog(tmp_path, ENTRIES))))
    index = package_index.Hosts(hosts.npm_registry, hosts.pypi_index)
    first, again = draw(offered, 1, 11, index, jobs=4), draw(list(reversed(offered)), 1, 11, index, jobs=1)
    assert [d.package.server for d in first.drawn] != []
    assert first.resolved == 1
    assert first.drawn[-1].resolved  # the cut is right after the wanted resolved package
    assert all(not d.resolved for d in first.drawn[:-1])
    everything = draw(offered, 99, 11, index)
    assert (everything.resolved, len(everything.drawn), everything.offered) == (2, 4, 4)  # the catalog ran out
    assert [d.index for d in everything.drawn] == [1, 2, 3, 4]
    assert [d.package.server for d in draw(offered, 99, 11, index, jobs=1).drawn] == \
        [d.package.server for d in everything.drawn]
    assert again.offered == first.offered


@pytest.mark.skipif(not all(shutil.which(tool) for tool in ("bwrap", "npm", "node")),
                    reason="needs bubblewrap (apt-get install bubblewrap), npm and node")
def test_the_runtime_census_report_of_a_sample(tmp_path: Path, hosts: Hosts) -> None:
    from pipeline.report import census as reports

    folder = write_catalog(tmp_path / "catalog", ENTRIES)
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", str(tmp_path)),
           "CENSUS_NPM_REGISTRY": hosts.npm_registry, "CENSUS_PYPI_INDEX": hosts.pypi_index}
    done = subprocess.run([CENSUS, "probe-registry", "--registry-file", str(folder), "--sample", "2", "--seed", "3",
                           "--latest", "--db", "c.duckdb"], cwd=tmp_path, env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "sample: " in done.stderr
    summary = re.match(r"(\d+) packages: 2 answered(?:, (\d+) resolve)?; 4 tools received$", done.stdout.strip())
    assert summary is not None, done.stdout
    drawn = int(summary.group(1))
    assert drawn - 2 == int(summary.group(2) or 0)
    made = subprocess.run([CENSUS, "report", "--runtime", "community", "--db", "c.duckdb"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False)
    assert made.returncode == 0, made.stderr
    out = tmp_path / "reports" / "community"
    readme, listing = (out / "README.md").read_text(), (out / "packages.md").read_text()
    assert f"Of {drawn} packages, 2 resolved on their index;" in readme
    assert "**2 answered** (100% of those that resolved), 1 of them started with stand-ins" in readme
    assert f"`random.Random(3)`, until 2 resolved on their index (asked for: 2): {drawn} drawn" in readme
    assert "| answered | 2 | 1 | 4 |" in readme
    assert "| every package that resolved | 2 | 2 | 100% |" in readme
    assert "| names no repository, or none listed | 2 | 2 | 100% |" in readme  # the fixtures name none
    assert ("## Drawn, not resolved" in listing) is (drawn > 2)
    assert str(tmp_path) not in readme + listing
    before = {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    reports.rebuild(out)
    assert {p.name: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
