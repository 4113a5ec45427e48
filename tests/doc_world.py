"""What the documented commands meet when the suite runs them offline: loopback GitHub, a loopback
MCP registry and loopback npm and PyPI hosts, all serving small synthetic things written here;
a fresh copy of the project to run in; and the files a page assumes its reader has (an archive,
a clone, a registry dump), made where the command looks for them.

Nothing here comes from another repository: the trees are the synthetic servers of ``synth``
under the names the committed manifests give, at the commits they pin.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from github_server import GitHubServer
from package_hosts import Hosts, serve
from registry_server import Registry, serving
from synth import FASTMCP_SERVER, GO_SERVER, SILENT_SERVER, Tree, fake_sha, git, git_repo, tarball

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "packages"
#: the live hosts the pages name, and what stands in for them here
LIVE_REGISTRY = "https://registry.modelcontextprotocol.io"
#: what each of the published manifest's trees holds (their real trees are larger; the numbers differ)
PUBLISHED_TREES: dict[str, Tree] = {
    "getzep/zep": {"mcp/zep-mcp-server/main.go": GO_SERVER, "docs/annotations.md": b"annotations\n" * 3},
    "getzep/graphiti": {"mcp_server/src/graphiti_mcp_server.py": SILENT_SERVER},
    "topoteretes/cognee": {"cognee-mcp/src/server.py": FASTMCP_SERVER},
    "MemoriLabs/Memori": {"README.md": b"Memori has no MCP server; annotations appear in its docs.\n"},
    "mem0ai/mem0": {"tests/test_memory_core.py": b"def test_hint():\n    assert tool['readOnlyHint'] is True\n"},
}
#: the registry's servers here: two repositories, each with a package the census can start
SERVERS = {"io.github.census-docs/notes": ("census-docs/notes", {"server.py": FASTMCP_SERVER}, "npm", "census-fixture"),
           "io.github.census-docs/search": ("census-docs/search", {"main.go": GO_SERVER}, "pypi", "census-fixture-py")}


@dataclass(frozen=True)
class World:
    """The running hosts and what they serve."""

    github: GitHubServer
    registry: Registry
    packages: Hosts

    def env(self, home: Path) -> dict[str, str]:
        """A newcomer's environment: a PATH, a HOME, a UTF-8 locale; the hosts are the loopback ones (and the
        suite's PYTHONPATH, when it has one)."""
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8",
               "GITHUB_API_URL": self.github.api_url, "GITHUB_SERVER_URL": self.github.web_url,
               "GITHUB_GRAPHQL_URL": self.github.graphql_url, "CENSUS_NPM_REGISTRY": self.packages.npm_registry,
               "CENSUS_PYPI_INDEX": self.packages.pypi_index}
        # where the suite runs a checkout other than the one the environment installed (a git worktree)
        return env | ({"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {})


@contextmanager
def world() -> Iterator[World]:
    """Every host started and filled; stopped at the end."""
    with ExitStack() as stack:
        github = stack.enter_context(GitHubServer())
        for entry in tomllib.loads((ROOT / "manifests" / "published-2026.toml").read_text())["repos"]:
            root = f"{entry['repo'].replace('/', '-')}-{entry['commit'][:7]}"
            github.add_repo(entry["repo"], {entry["commit"]: tarball(PUBLISHED_TREES[entry["repo"]], root,
                                                                     entry["commit"])})
        for repo, tree, _, _ in SERVERS.values():
            commit = fake_sha(repo)
            github.add_repo(repo, {commit: tarball(tree, f"{repo.replace('/', '-')}-{commit[:7]}", commit)})
        hosts = stack.enter_context(serve())
        hosts.add_npm("census-fixture", "1.0.0", {"server.js": (FIXTURES / "server.js").read_text()},
                      bin_={"census-fixture": "server.js"})
        hosts.add_wheel("census-fixture-py", "0.1.0", {"census_fixture_py.py": (FIXTURES / "census_fixture_py.py")
                                                      .read_text()}, {"census-fixture-py": "census_fixture_py:main"})
        registry = stack.enter_context(serving(Registry([{"server": _server(name)} for name in SERVERS])))
        yield World(github, registry, hosts)


def _server(name: str) -> dict[str, object]:
    """A registry entry in the live registry's shape."""
    repo, _, registry, package = SERVERS[name]
    return {"name": name, "repository": {"url": f"https://github.com/{repo}", "source": "github"},
            "packages": [{"registryType": registry, "identifier": package, "transport": {"type": "stdio"}}]}


def seed(path: Path) -> None:
    """The registry's servers as its launch seed lists them (``data/seed_2025_05_16.json``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([{"name": name, "repository": {"url": f"https://github.com/{repo}", "source": "github"},
                                 "packages": [{"registry_name": registry, "name": package}]}
                                for name, (repo, _, registry, package) in SERVERS.items()]))


def catalog(folder: Path) -> None:
    """A community catalog's checkout: the registry's servers, one JSON file each, and one no index has."""
    runtimes = {"npm": "node", "pypi": "python"}
    entries = {name.rsplit("/", 1)[-1]: {"packageName": package, "runtime": runtimes[registry],
                                         "url": f"https://github.com/{repo}", "env": {}}
               for name, (repo, _, registry, package) in SERVERS.items()}
    entries["gone"] = {"packageName": "census-docs-not-on-npm", "runtime": "node"}
    for name, entry in entries.items():
        path = folder / "packages" / "tools" / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"type": "mcp-server", **entry}))


def mirrors(folder: Path, manifest: Path) -> None:
    """What the mirror loop of docs/REGISTRY.md makes: a clone of each repository the manifest lists."""
    trees = {repo: tree for repo, tree, _, _ in SERVERS.values()}
    for entry in tomllib.loads(manifest.read_text())["repos"]:
        git_repo(folder / f"{entry['repo']}.git", trees[entry["repo"]])


def archive(path: Path) -> None:
    """A repository's archive, as ``git archive --format=tar.gz`` or GitHub gives it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(tarball({"server.py": FASTMCP_SERVER, "main.go": GO_SERVER}, "some-repo-0000000"))


def clone(path: Path, counts: tuple[int, ...] = (3, 115, 120)) -> list[str]:
    """A clone whose commits say "annotations" ``counts`` times each; its commits, oldest first."""
    commits = [git_repo(path, {"docs/notes.md": b"annotations\n" * counts[0]})]
    for count in counts[1:]:
        (path / "docs" / "notes.md").write_bytes(b"annotations\n" * count)
        git(path, "commit", "-q", "-a", "-m", f"{count} annotations")
        commits.append(git(path, "rev-parse", "HEAD").strip())
    return commits


def local_manifest(path: Path) -> None:
    """A copy of a manifest whose entries read local clones (``source = ...``), as docs/ROLES.md says."""
    lines = ["[census]", 'name = "roles-local"', ""]
    for repo, tree, _, _ in SERVERS.values():
        git_repo(path.parent / "clones" / f"{repo}.git", tree)
        lines += ["[[repos]]", f'repo = "{repo}"', f'source = "clones/{repo}.git"', ""]
    path.write_text("\n".join(lines))


def answer(path: Path) -> None:
    """A tools/list answer saved from a server."""
    path.write_text(json.dumps({"tools": [
        {"name": "search_docs", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}},
        {"name": "delete_doc", "inputSchema": {"type": "object"}}]}))


def workspace(folder: Path) -> Path:
    """A fresh copy of the project as a clone holds it, with ``.venv`` this suite's environment."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=False)
    files = [f for f in listed.stdout.decode().split("\0") if f and not f.startswith("tests/")]
    for name in files or _walk():
        if (ROOT / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, folder / name)
    (folder / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    return folder


def _walk() -> list[str]:
    """The project's files where it is not a git checkout (an unpacked sdist)."""
    skip = {".venv", ".git", "data", "tests", "__pycache__"}
    return [p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*")
            if p.is_file() and not skip & set(p.relative_to(ROOT).parts)]
