"""The package manifest formats ``deps`` reads: one parser per format, each yielding ``(name,
version)`` pairs as written, which file names each serves, and the languages of its ecosystem."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator

Parsed = Iterator[tuple[str, str | None]]


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


BY_NAME: dict[str, Callable[[str], Parsed]] = {
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


#: the detector languages each manifest parser's ecosystem serves
LANGUAGES: dict[Callable[[str], Parsed], tuple[str, ...]] = {
    _package_json: ("typescript",), _pyproject: ("python",), _requirements: ("python",), _go_mod: ("go",),
    _cargo: ("rust",), _pom: ("java", "kotlin"), _gradle: ("java", "kotlin"), _version_catalog: ("java", "kotlin"),
    _composer: ("php",), _gemfile: ("ruby",), _gem_lock: ("ruby",), _swift: ("swift",), _csproj: ("csharp",),
}


def parser_for(name: str) -> Callable[[str], Parsed] | None:
    """The parser of the manifest file named ``name`` (no folder), or None."""
    if name in BY_NAME:
        return BY_NAME[name]
    if name.endswith((".csproj", ".fsproj")) or name == "Directory.Packages.props":
        return _csproj
    if name.endswith(".gemspec"):
        return _gemfile
    if name.startswith("requirements") and name.endswith((".txt", ".in")):
        return _requirements
    return None
