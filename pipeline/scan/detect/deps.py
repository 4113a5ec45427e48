"""Package manifests: which libraries a tree declares, where, and at which version.

Read from the files themselves (package.json, pyproject.toml, requirements*.txt, go.mod,
Cargo.toml, *.csproj, pom.xml, build.gradle[.kts], gradle/libs.versions.toml, composer.json,
Gemfile, Gemfile.lock, *.gemspec, Package.swift). Imports attribute a registration to an SDK; the manifest supplies the
version (for SDKs whose wire output changed between versions) and settles ambiguous imports.
A manifest that does not parse is ignored: it is evidence, not input we must accept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from posixpath import basename, dirname

Parsed = Iterator[tuple[str, str | None]]


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
    return _parser_for(path.rpartition("/")[2]) is not None


def parse(path: str, data: bytes) -> list[Dependency]:
    """The dependencies ``path`` declares; an unreadable manifest gives none."""
    parser = _parser_for(basename(path))
    if parser is None:
        return []
    try:
        text = data.decode("utf-8", errors="replace")
        directory = dirname(path)
        if basename(path) == "libs.versions.toml" and basename(directory) == "gradle":
            directory = dirname(directory)  # a version catalog serves the build around its gradle/ folder
        languages = _LANGUAGES.get(parser, ())
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


def _package_json(text: str) -> Parsed:
    doc = json.loads(text)
    for key in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
        for name, version in (doc.get(key) or {}).items():
            yield name, str(version)


_PEP508 = re.compile(r"\A[ \t]*([A-Za-z0-9][A-Za-z0-9._-]*)[ \t]*(?:\[[^\]]*\])?[ \t]*([^;#]*)")


def _requirement(line: str) -> tuple[str, str | None] | None:
    found = _PEP508.match(line)
    if not found or line.lstrip().startswith(("-", "#")):
        return None
    return found.group(1).lower(), found.group(2).strip() or None


def _requirements(text: str) -> Parsed:
    for line in text.splitlines():
        if (req := _requirement(line)) is not None:
            yield req


def _pyproject(text: str) -> Parsed:
    import tomllib  # with its regular expressions and datetime: only for a TOML manifest

    doc = tomllib.loads(text)
    project = doc.get("project", {})
    lines = list(project.get("dependencies", []))
    for extra in project.get("optional-dependencies", {}).values():
        lines.extend(extra)
    for group in doc.get("dependency-groups", {}).values():
        lines.extend(x for x in group if isinstance(x, str))
    yield from (req for line in lines if (req := _requirement(line)) is not None)
    for name, spec in doc.get("tool", {}).get("poetry", {}).get("dependencies", {}).items():
        yield name.lower(), spec if isinstance(spec, str) else (spec or {}).get("version")


def _go_mod(text: str) -> Parsed:
    """``require x v1`` lines and the lines of ``require ( ... )`` blocks, read line by line (a
    regular expression over the whole file can be made slow by a hostile go.mod)."""
    block = False
    for line in text.splitlines():
        words = line.split("//", 1)[0].split()
        if words[:2] == ["require", "("] or words == ["require("]:
            block = True
        elif words == [")"]:
            block = False
        elif words[:1] == ["require"] and len(words) >= 3 and words[2].startswith("v"):
            yield words[1], words[2]
        elif block and len(words) >= 2 and words[1].startswith("v"):
            yield words[0], words[1]


def _cargo(text: str) -> Parsed:
    import tomllib  # with its regular expressions and datetime: only for a TOML manifest

    doc = tomllib.loads(text)
    tables = [doc.get(k, {}) for k in ("dependencies", "dev-dependencies", "build-dependencies")]
    tables.append(doc.get("workspace", {}).get("dependencies", {}))
    for table in tables:
        for name, spec in table.items():
            yield name, spec if isinstance(spec, str) else (spec or {}).get("version")


#: the expressions of the rarer manifests, compiled on first use (``re`` keeps them): most trees have none
_CSPROJ = r"(?i)<Package(?:Reference|Version)\s+Include=\"([^\"]+)\"(?:\s+Version=\"([^\"]*)\")?"
_POM_DEP = r"(?s)<dependency>(.*?)</dependency>"
_POM_FIELD = r"<(groupId|artifactId|version)>\s*([^<]+?)\s*</"
_GRADLE = r"[\"']([\w.\-]+):([\w.\-]+)(?::([\w.\-+${}]+))?[\"']"
_GRADLE_VALUE = r"(?m)^\s*(?:val|var|def|ext\.)?\s*(\w+)\s*=\s*[\"']([\w.\-+]+)[\"']"
_GEM_LOCK = r"(?m)^    ([\w.\-]+) \(([^)\s]+)\)$"
_GEM = (r"(?m)^[ \t]*(?:gem|\w+\.add(?:_runtime|_development)?_dependency)\s*\(?\s*[\"']([\w.\-]+)[\"']"
        r"(?:\s*,\s*[\"']([^\"']+)[\"'])?")
_SWIFT_PACKAGE = (r"\.package\s*\(\s*(?:name:\s*\"[^\"]*\",\s*)?url:\s*\"([^\"]+?)(?:\.git)?\""
                  r"(?:\s*,\s*(?:from|exact|branch|revision)?:?\s*\"([^\"]+)\")?")


def _csproj(text: str) -> Parsed:
    yield from ((n, v or None) for n, v in re.findall(_CSPROJ, text))


def _pom(text: str) -> Parsed:
    for block in re.findall(_POM_DEP, text):
        fields = dict(re.findall(_POM_FIELD, block))
        if "groupId" in fields and "artifactId" in fields:
            yield f"{fields['groupId']}:{fields['artifactId']}", fields.get("version")


def _gradle(text: str) -> Parsed:
    """``"group:artifact:version"`` coordinates; a ``$name`` / ``${name}`` version is read from a
    ``val name = "..."`` (or ``def``, ``ext.``) of the same file, else left unknown."""
    values = dict(re.findall(_GRADLE_VALUE, text))
    for group, artifact, written in re.findall(_GRADLE, text):
        version = values.get(written.strip("${}"), "") if written.startswith("$") else written
        yield f"{group}:{artifact}", version or None


def _version_catalog(text: str) -> Parsed:
    """``gradle/libs.versions.toml``: each library's ``group:artifact`` and version (``version.ref``
    read from ``[versions]``)."""
    import tomllib  # with its regular expressions and datetime: only for a TOML manifest

    doc = tomllib.loads(text)
    versions = {k: v for k, v in (doc.get("versions") or {}).items() if isinstance(v, str)}
    for entry in (doc.get("libraries") or {}).values():
        if isinstance(entry, str) and entry.count(":") >= 1:
            group, artifact, *rest = entry.split(":")
            yield f"{group}:{artifact}", rest[0] if rest else None
        elif isinstance(entry, dict):
            module = entry.get("module") or f"{entry.get('group', '')}:{entry.get('name', '')}"
            version = entry.get("version")
            if isinstance(version, dict):
                version = versions.get(str(version.get("ref")))
            yield str(module), version if isinstance(version, str) else None


def _gem_lock(text: str) -> Parsed:
    """``Gemfile.lock``: each gem resolved from a source (``GEM`` / ``GIT`` sections) and its exact
    version (``    name (1.2.3)``); a ``PATH`` gem is the project itself (a gem's own repository)."""
    for section in re.split(r"^(?=[A-Z][A-Z ]*$)", text, flags=re.M):
        if section.startswith(("GEM", "GIT")):
            yield from re.findall(_GEM_LOCK, section)


def _composer(text: str) -> Parsed:
    doc = json.loads(text)
    for key in ("require", "require-dev"):
        yield from ((n, str(v)) for n, v in (doc.get(key) or {}).items())


def _gemfile(text: str) -> Parsed:
    yield from ((n, v or None) for n, v in re.findall(_GEM, text))


def _swift(text: str) -> Parsed:
    for url, version in re.findall(_SWIFT_PACKAGE, text):
        yield url.split("github.com/")[-1], version or None


_EXACT: dict[str, Callable[[str], Parsed]] = {
    "package.json": _package_json,
    "pyproject.toml": _pyproject,
    "go.mod": _go_mod,
    "Cargo.toml": _cargo,
    "pom.xml": _pom,
    "build.gradle": _gradle,
    "build.gradle.kts": _gradle,
    "composer.json": _composer,
    "Gemfile": _gemfile,
    "Gemfile.lock": _gem_lock,
    "libs.versions.toml": _version_catalog,
    "Package.swift": _swift,
}


#: how every manifest's name ends (exact names and suffixes): a cheap test before ``is_manifest``
MANIFEST_ENDINGS = (*(name.encode() for name in _EXACT), b".csproj", b".fsproj", b".props", b".gemspec", b".txt",
                    b".in")


def manifest_positions(names: Iterable[bytes]) -> list[int]:
    """The positions in ``names`` (raw tar member names, undecodable bytes as in
    ``entries.path_of``) of the package manifests (``is_manifest``): one test of each name's
    ending, the full check only for the few that pass it."""
    return [i for i, name in enumerate(names)
            if name.endswith(MANIFEST_ENDINGS) and is_manifest(name.decode("utf-8", "backslashreplace"))]


#: the detector languages each manifest parser's ecosystem serves
_LANGUAGES: dict[Callable[[str], Parsed], tuple[str, ...]] = {
    _package_json: ("typescript",), _pyproject: ("python",), _requirements: ("python",), _go_mod: ("go",),
    _cargo: ("rust",), _pom: ("java", "kotlin"), _gradle: ("java", "kotlin"), _version_catalog: ("java", "kotlin"),
    _composer: ("php",), _gemfile: ("ruby",), _gem_lock: ("ruby",), _swift: ("swift",), _csproj: ("csharp",),
}


def _parser_for(name: str) -> Callable[[str], Parsed] | None:
    if name in _EXACT:
        return _EXACT[name]
    if name.endswith((".csproj", ".fsproj")) or name == "Directory.Packages.props":
        return _csproj
    if name.endswith(".gemspec"):
        return _gemfile
    if name.startswith("requirements") and name.endswith((".txt", ".in")):
        return _requirements
    return None
