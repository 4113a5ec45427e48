"""Package manifests: which libraries a tree declares, where, and at which version.

Read from the files themselves (package.json, pyproject.toml, requirements*.txt, go.mod,
Cargo.toml, *.csproj, pom.xml, build.gradle[.kts], gradle/libs.versions.toml, composer.json,
Gemfile, Gemfile.lock, *.gemspec, Package.swift). Imports attribute a registration to an SDK; the manifest supplies the
version (for SDKs whose wire output changed between versions) and settles ambiguous imports.
A manifest that does not parse is ignored: it is evidence, not input we must accept. The
formats themselves are ``deps_formats``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from posixpath import basename, dirname

from pipeline.scan.detect.deps_formats import BY_NAME, LANGUAGES, parser_for


@dataclass(frozen=True)
class Dependency:
    """One library declared by one package manifest."""

    directory: str
    """folder of the manifest ('' at the tree's root)."""
    name: str
    """package name as written (npm name, Go module path, crate, Maven group:artifact ...)."""
    version: str | None
    """version or constraint as written, when given."""
    languages: tuple[str, ...] = ()
    """the detector languages of the manifest's ecosystem (npm's ``fastmcp`` is not PyPI's)."""


def is_manifest(path: str) -> bool:
    """Whether ``path`` names a package manifest this module reads."""
    return parser_for(path.rpartition("/")[2]) is not None


def parse(path: str, data: bytes) -> list[Dependency]:
    """The dependencies ``path`` declares; an unreadable manifest gives none."""
    parser = parser_for(basename(path))
    if parser is None:
        return []
    try:
        text = data.decode("utf-8", errors="replace")
        directory = dirname(path)
        if basename(path) == "libs.versions.toml" and basename(directory) == "gradle":
            directory = dirname(directory)  # a version catalog serves the build around its gradle/ folder
        languages = LANGUAGES.get(parser, ())
        return [Dependency(directory, name, version, languages) for name, version in parser(text)]
    except (ValueError, TypeError, AttributeError):  # TOMLDecodeError and JSONDecodeError are ValueErrors
        return []


class Dependencies:
    """Every dependency of a tree, looked up from the manifest nearest to a file."""

    def __init__(self, found: list[Dependency] | None = None) -> None:
        self._by_name: dict[str, list[Dependency]] = {}
        self._memo: dict[tuple[tuple[str, ...], str | None], Dependency | None] = {}
        self._named: dict[tuple[str, ...], list[Dependency]] = {}
        self.add(list(found or []))

    def add(self, found: list[Dependency]) -> None:
        """Record more dependencies."""
        for dep in found:
            self._by_name.setdefault(dep.name, []).append(dep)
        self._memo.clear()
        self._named.clear()

    def find(self, names: tuple[str, ...], path: str | None = None) -> Dependency | None:
        """The dependency whose name is one of ``names`` (or starts with ``name/``): from the
        nearest manifest whose folder holds ``path``, or from any manifest when ``path`` is None.
        In a monorepo a file is governed by its own package's manifest, never by a sibling's."""
        key = (names, None if path is None else path.rpartition("/")[0])
        if key not in self._memo:
            self._memo[key] = self._nearest(names, path)
        return self._memo[key]

    def governs(self, names: tuple[str, ...], path: str) -> bool:
        """Whether the manifest nearest to ``path`` (of those declaring anything) declares one of
        ``names``: a sibling package's own manifest is not overruled by the root's."""
        found = self.find(names, path)
        if found is None:
            return False
        key = ((), "folder:" + path.rpartition("/")[0])
        if key not in self._memo:
            folders = {d.directory for deps in self._by_name.values() for d in deps if _holds(d.directory, path)}
            self._memo[key] = Dependency(max(folders, key=len), "", None) if folders else None
        nearest = self._memo[key]
        return nearest is None or nearest.directory == found.directory

    def _nearest(self, names: tuple[str, ...], path: str | None) -> Dependency | None:
        best: Dependency | None = None
        for dep in self._declaring(names):
            if path is None:
                return dep
            if _holds(dep.directory, path) and (best is None or len(dep.directory) > len(best.directory)):
                best = dep
        return best

    def declaring(self, names: tuple[str, ...]) -> list[Dependency]:
        """Every dependency named one of ``names`` (or ``name/...``), in the order recorded."""
        return self._declaring(names)

    def _declaring(self, names: tuple[str, ...]) -> list[Dependency]:
        """Every dependency named one of ``names`` (or ``name/...``), in the order recorded."""
        if names not in self._named:
            folders = tuple(n + "/" for n in names)
            self._named[names] = [dep for name, deps in self._by_name.items()
                                  if name in names or name.startswith(folders) for dep in deps]
        return self._named[names]

    def version(self, names: tuple[str, ...], path: str) -> str | None:
        """The version declared by the nearest manifest holding ``path`` that gives one (a Cargo
        crate's ``rmcp = { workspace = true }`` takes the workspace root's version)."""
        key = (names, "version:" + path.rpartition("/")[0])
        if key not in self._memo:
            holders = [d for d in self._declaring(names) if d.version and _holds(d.directory, path)]
            self._memo[key] = max(holders, key=lambda d: len(d.directory)) if holders else None
        found = self._memo[key]
        return found.version if found else None



def _holds(directory: str, path: str) -> bool:
    """Whether the folder ``directory`` ('' is the root) holds ``path``."""
    return directory == "" or path.startswith(directory + "/")


#: how every manifest's name ends (exact names and suffixes): a cheap test before ``is_manifest``
MANIFEST_ENDINGS = (*(name.encode() for name in BY_NAME), b".csproj", b".fsproj", b".props", b".gemspec", b".txt",
                    b".in")


def manifest_positions(names: Iterable[bytes]) -> list[int]:
    """The positions in ``names`` (raw tar member names, undecodable bytes as in
    ``entries.path_of``) of the package manifests (``is_manifest``): one test of each name's
    ending, the full check only for the few that pass it."""
    return [i for i, name in enumerate(names)
            if name.endswith(MANIFEST_ENDINGS) and is_manifest(name.decode("utf-8", "backslashreplace"))]
