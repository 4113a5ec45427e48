"""Where a file sits in a project: the one classifier of the census.

Every tool (``tools.role``) is ``server``, ``example`` or ``test``; every term match
(``term_counts.role``) is one of those or ``docs``. ``role_rule`` names the rule that decided,
as ``rule`` names the detector's. The rules, tried in this order (the first that fits decides):

1. **test, by content**: everything in the folder of a C# or F# project whose ``.csproj`` /
   ``.fsproj`` references a test SDK (``project:<file>``); for a tool, a Rust item under
   ``#[cfg(test)]`` or ``#[test]`` (``content:cfg(test)``, see ``rust_test_lines``);
2. **test, by file name**, in its ecosystem's convention (``file:<pattern>``): Go ``*_test.go``;
   Python ``test_*.py``, ``*_test.py``, ``conftest.py``; JS/TS ``*.test.*``, ``*.spec.*``,
   ``*.eval.*``; JVM ``*Test.java``, ``*Tests.kt``, ``*IT.java`` (not under ``src/main/``); C#
   ``*Tests.cs``; Ruby ``*_spec.rb``, ``*_test.rb``; PHP ``*Test.php``; Swift ``*Tests.swift``.
   Case matters where the convention is camel case: ``Latest.java`` and ``testing.go`` are no
   tests. Where the language does not enforce the name (Python, PHP), a file that holds no
   assertion and names no test framework is no test by its name (``learn``: awslabs' tool module
   ``tools/rg/test_migration.py`` wraps a TestMigration API);
3. **test, by folder** (``folder:<name>/``): ``test``, ``tests``, ``__tests__``, ``testdata``,
   ``fixtures``, ``e2e``, ``conformance``, ``fuzz``, ``benchmarks``, ``benches``, ``evals``,
   ``__mocks__``, ``__snapshots__`` ..., folders named ``*-tests`` / ``test-*`` / ``Foo.Tests`` /
   ``mcp-server-mocks``, camel-case source sets and targets (``src/jvmTest``, ``commonTest``,
   ``IntegrationTests``), and RSpec's ``spec/`` for Ruby files. A folder's whole name (or a
   ``-`` / ``_`` separated part of it) is compared, never a piece of a word: ``latest/``,
   ``contest/``, ``attestation/`` are no tests; package folders below a JVM source root
   (``src/main/java/io/x/spec/``, ``com/example/``) are names, not roles;
4. **docs** (term matches only; the detector reads no documentation): a documentation
   extension (``.md``, ``.rst``, ``.txt`` but ``requirements.txt`` ...) or a documentation folder
   (``docs/``, a Swift ``.docc`` bundle) above the source folders;
5. **example, by folder**: ``examples``, ``samples``, ``demo``, ``demos``, ``cookbook``,
   ``tutorials``, ``quickstart``, ``playground``, code written for documentation (``docs_src``),
   and code in project ``templates`` and ``scaffolds`` (``Template.Mcp.Server``) above the source
   folders or in a generator's folder; **by file name**:
   ``example.py``, ``weather_example.go``, ``mcp.examples.ts``, a generator's ``*.stub``;
6. **server**: anything else (``default``).

A manifest entry's ``server_paths`` win over the folders that lead to them: a path under one
is classified by the part below the server path, and is ``server`` (``server_paths:<path>``)
unless that part is itself a test, docs or example. ``examples/weather`` as a server path makes
``examples/weather/server.py`` a server file, and leaves ``examples/weather/tests/`` tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pipeline.scan.roles.content import (
    PROJECT_ENDINGS,
    PROJECT_FILES,
    TEST_MARKERS,
    TEST_SDKS,
    UNENFORCED_NAMES,
    UNENFORCED_PATHS,
    rust_test_lines,
)
from pipeline.scan.roles.model import DEFAULT_RULE, DOCS, EXAMPLE, ROLES, SERVER, TEST, TOOL_ROLES, Role
from pipeline.scan.roles.paths import classify

__all__ = ["DEFAULT_RULE", "DOCS", "EXAMPLE", "ROLES", "SERVER", "TEST", "TOOL_ROLES", "Role", "RoleRules", "classify",
           "rust_test_lines"]

#: the endings of every name ``wanted`` may keep (a cheap first look; case as .NET tools write them)
_WANTED_ENDINGS = (b".py", b".php", b"proj", b"PROJ", b"Proj")


@dataclass
class RoleRules:
    """The roles of one tree's files: the path rules, the manifest entry's ``server_paths``,
    and what the tree's own project files say (``learn``)."""

    server_paths: Sequence[str] = ()
    """folders where the entry's MCP server lives (a manifest's ``server_paths``)."""
    top: str | None = None
    """a top folder the paths still hold (``census count`` keeps an archive's): the tree's root,
    below which paths are classified and server paths matched."""
    test_projects: dict[str, str] = field(default_factory=dict)
    """folder ('' at the top) -> the project file there that references a test SDK."""
    untested: set[str] = field(default_factory=set)
    """files named like tests by a convention the language does not enforce whose content is no
    test's (no assertion, no test framework): their name says nothing of their role."""

    def __post_init__(self) -> None:
        self.server_paths = tuple(p for p in (_normal(p) for p in self.server_paths) if p is not None)
        self._prefixes = tuple((f"{p}/", p) for p in self.server_paths)

    @staticmethod
    def wants(path: str) -> bool:
        """Whether ``learn`` reads this file: a .NET project file, or a Python or PHP file named
        like a test."""
        return path.lower().endswith(PROJECT_FILES) or UNENFORCED_PATHS.search(path) is not None

    @staticmethod
    def wanted(names: Iterable[bytes]) -> list[int]:
        """The positions in ``names`` (raw member names) of the files ``wants``."""
        return [i for i, name in enumerate(names) if name.endswith(_WANTED_ENDINGS) and (
            name.lower().endswith(PROJECT_ENDINGS) or UNENFORCED_NAMES.search(name) is not None)]

    def learn(self, path: str, data: bytes | memoryview) -> None:
        """Read one file ``wants``: a test project makes its whole folder ``test``; a file named
        like a test that holds no assertion and names no test framework is no test by its name."""
        if self.top and path.startswith(self.top + "/"):
            path = path[len(self.top) + 1 :]
        if path.lower().endswith(PROJECT_FILES):
            if (found := TEST_SDKS.search(data)) is not None:
                folder = path.rpartition("/")[0]
                self.test_projects.setdefault(folder, f"{path} ({next(g for g in found.groups() if g).decode()})")
        elif UNENFORCED_PATHS.search(path) and TEST_MARKERS.search(data) is None:
            self.untested.add(path)

    def of_path(self, path: str) -> Role:
        """The role of the file at ``path``, ``docs`` included."""
        if self.top and path.startswith(self.top + "/"):
            path = path[len(self.top) + 1 :]
        if (project := self._test_project(path)) is not None:
            return Role(TEST, f"project:{project}")
        names = path not in self.untested
        for prefix, server_path in self._prefixes:
            if path.startswith(prefix):
                inner = classify(path[len(prefix) :], names)
                return inner if inner.role != SERVER else Role(SERVER, f"server_paths:{server_path}")
        return classify(path, names)

    def of_tool(self, path: str, line: int, test_lines: Sequence[tuple[int, int]] = ()) -> Role:
        """The role of a tool defined at ``path``:``line``; ``test_lines`` are the line spans of
        the file's test-only code (``rust_test_lines``). Tools are never ``docs``."""
        role = self.of_path(path)
        if role.role == SERVER and any(start <= line <= end for start, end in test_lines):
            return Role(TEST, "content:cfg(test)")
        return Role(EXAMPLE, role.rule) if role.role == DOCS else role

    def _test_project(self, path: str) -> str | None:
        if not self.test_projects:
            return None
        folder = path.rpartition("/")[0]
        while True:
            if folder in self.test_projects:
                return self.test_projects[folder]
            if not folder:
                return None
            folder = folder.rpartition("/")[0]


def _normal(server_path: str) -> str | None:
    """``./mcp/server/`` as ``mcp/server``; ``None`` for the whole tree (``.``, ``/``, '')."""
    cleaned = server_path.strip().strip("/")
    while cleaned.startswith("./"):
        cleaned = cleaned[2:].lstrip("/")
    return cleaned if cleaned not in ("", ".") else None
