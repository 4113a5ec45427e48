"""What an installed package says of itself: the executables it provides and the repository it
was built from.

- npm: ``node_modules/NAME/package.json``: ``bin`` (a path, named for the package, or a map
  of names), ``repository`` (a URL, ``{"url": ...}``, or the ``github:owner/name`` /
  ``owner/name`` shorthands), else ``homepage``, and ``engines.node``;
- PyPI: the distribution's ``*.dist-info``: ``entry_points.txt``'s console scripts, ``RECORD``'s
  packages with a ``__main__.py`` (what ``python -m`` starts), else its modules that run as a
  script (an ``if __name__ == "__main__":`` block: ``main.py`` shipped beside no package), and in ``METADATA`` the
  ``Project-URL`` entries (``Source``, ``Repository``, ``Code``, ``Homepage``, ...) and ``Home-page``.

The repository is read as ``owner/name`` when it is on GitHub (``pipeline.manifest.discover.GITHUB_URL``),
so it can be held against the registry's: a package of the same name built from another
repository (a name taken by another project) is not the server the registry lists.
"""

from __future__ import annotations

import json
import re
from configparser import ConfigParser
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name

from pipeline.manifest.discover import GITHUB_URL

#: npm's repository shorthands: ``github:owner/name`` and a bare ``owner/name``
SHORTHAND = re.compile(r"^(?:github:)?(?P<owner>[A-Za-z0-9][A-Za-z0-9-]*)/(?P<name>[A-Za-z0-9._-]+)$")
#: Project-URL labels that name the source, most telling first
SOURCE_LABELS = ("source", "source code", "repository", "code", "github", "homepage", "home")


@dataclass(frozen=True)
class Metadata:
    """An installed package's executables (name -> what it runs) and source repository."""

    executables: dict[str, str]
    repository: str | None
    """``owner/name`` on GitHub; another host's URL as written; None when the package names none."""
    engines_node: str | None = None
    """npm's ``engines.node``: the Node versions the package says it runs on (an npm range)."""
    main_modules: tuple[str, ...] = ()
    """PyPI: the modules that ``python -m`` can start (a ``__main__.py``; where none, modules with a
    ``__main__`` block), shallowest first."""


class MetadataError(ValueError):
    """The installed package's own metadata cannot be read; the message says which file."""


def npm_metadata(folder: Path, name: str) -> Metadata:
    """The metadata of the npm package ``name`` installed under the prefix ``folder``."""
    manifest = folder / "node_modules" / name / "package.json"
    try:
        document = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise MetadataError(f"its package.json cannot be read: {exc}") from None
    bins = document.get("bin") if isinstance(document, dict) else None
    unscoped = name.rsplit("/", 1)[-1]
    executables = {unscoped: bins} if isinstance(bins, str) else \
        {str(k): str(v) for k, v in bins.items()} if isinstance(bins, dict) else {}
    repository = document.get("repository") if isinstance(document, dict) else None
    url = repository.get("url") if isinstance(repository, dict) else repository
    homepage = document.get("homepage") if isinstance(document, dict) else None
    engines = document.get("engines") if isinstance(document, dict) else None
    node = engines.get("node") if isinstance(engines, dict) else None
    return Metadata(executables, github_repo(url) or github_repo(homepage) or _text(url), _text(node))


def python_metadata(folder: Path, name: str) -> Metadata:
    """The metadata of the distribution ``name`` installed in the virtual environment ``folder``."""
    wanted = canonicalize_name(name)
    for info in folder.glob("lib/python*/site-packages/*.dist-info"):
        if canonicalize_name(info.name.removesuffix(".dist-info").rsplit("-", 1)[0]) == wanted:
            return Metadata(_console_scripts(info), _python_repository(info), None, _main_modules(info))
    return Metadata({}, None)


def _main_modules(info: Path) -> tuple[str, ...]:
    """The distribution's packages with a ``__main__.py`` (from its ``RECORD``), shallowest first;
    where it has none, its modules with a ``__main__`` block (tests, examples and ``setup.py`` aside)."""
    try:
        lines = (info / "RECORD").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ()
    files = [tuple(line.split(",", 1)[0].split("/")) for line in lines]
    files = [parts for parts in files if parts[-1].endswith(".py") and not parts[0].endswith((".dist-info", ".data"))
             and all(p.isidentifier() for p in (*parts[:-1], parts[-1][:-3]))]
    modules = {parts[:-1] for parts in files if parts[-1] == "__main__.py" and len(parts) > 1}
    if not modules:
        modules = {(*parts[:-1], parts[-1][:-3]) for parts in files
                   if parts[-1] not in NOT_SCRIPTS and not parts[-1].startswith("test_")
                   and not NOT_SERVED & {p.lower() for p in parts[:-1]} and _runs_as_script(info.parent, parts)}
    return tuple(".".join(parts) for parts in sorted(modules, key=lambda parts: (len(parts), parts)))


#: folders whose modules are not what a package serves
NOT_SERVED = frozenset({"test", "tests", "testing", "example", "examples", "docs", "scripts", "benchmarks"})
#: module files that are not a server started as a script
NOT_SCRIPTS = frozenset({"__init__.py", "__main__.py", "setup.py", "conftest.py"})
#: the block a module runs when started as a script
MAIN_BLOCK = re.compile(rb"^if\s+__name__\s*==\s*['\"]__main__['\"]\s*:", re.MULTILINE)


def _runs_as_script(site: Path, parts: tuple[str, ...]) -> bool:
    """Whether the module file ``parts`` (under ``site``) has a ``__main__`` block."""
    try:
        with (site.joinpath(*parts)).open("rb") as handle:
            return bool(MAIN_BLOCK.search(handle.read(1 << 20)))
    except OSError:
        return False


def node_fits(engines: str | None, version: str) -> bool | None:
    """Whether Node ``version`` (``v20.1.0``) meets an npm ``engines.node`` range; None when it cannot
    be read (a range npm itself would not read either)."""
    import semantic_version

    if not engines:
        return True
    try:
        return semantic_version.Version(version.strip().lstrip("v")) in semantic_version.NpmSpec(engines.strip())
    except ValueError:
        return None


def _console_scripts(info: Path) -> dict[str, str]:
    points = info / "entry_points.txt"
    if not points.exists():
        return {}
    parser = ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(points, encoding="utf-8")
    return dict(parser["console_scripts"]) if parser.has_section("console_scripts") else {}


def _python_repository(info: Path) -> str | None:
    try:
        headers = HeaderParser().parsestr((info / "METADATA").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
    labelled = [value.split(",", 1) for value in headers.get_all("Project-URL") or ()]
    pairs = [(label.strip().lower(), url.strip()) for label, url in (p for p in labelled if len(p) == 2)]
    urls = [url for wanted in SOURCE_LABELS for label, url in pairs if label == wanted] + [url for _, url in pairs]
    urls += [headers.get("Home-page") or ""]
    for url in urls:
        if found := github_repo(url):
            return found
    return next((u for u in urls if u and u.upper() != "UNKNOWN"), None)


def github_repo(url: Any) -> str | None:
    """``owner/name`` of a GitHub URL or npm shorthand; None for anything else."""
    if not isinstance(url, str) or not url.strip():
        return None
    text = url.strip()
    matched = GITHUB_URL.match(text) or (SHORTHAND.match(text) if "://" not in text else None)
    if matched is None:
        tree = re.match(r"^(https?://(?:www\.)?github\.com/[^/]+/[^/#?]+)", text)  # .../tree/main/sub
        matched = GITHUB_URL.match(tree.group(1)) if tree else None
    return f"{matched['owner']}/{matched['name']}" if matched else None


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


#: the SDKs every other one of its language builds on: named only when no other is installed
BASE_SDKS = ("python-mcp", "ts-mcp")


def installed_sdk(folder: Path, registry: str) -> str | None:
    """The MCP SDK (``pipeline.scan.detect.sdks`` key) installed with a package in ``folder``: the one
    among its dependencies, a framework (fastmcp, mastra, ...) before the official SDK it builds on."""
    from pipeline.scan.detect.sdks import SDKS

    language = "typescript" if registry == "npm" else "python"
    if registry == "npm":
        present = {p.parent.relative_to(folder / "node_modules").as_posix()
                   for p in (folder / "node_modules").glob("*/package.json")} | \
            {p.parent.relative_to(folder / "node_modules").as_posix()
             for p in (folder / "node_modules").glob("@*/*/package.json")}
    else:
        present = {canonicalize_name(info.name.removesuffix(".dist-info").rsplit("-", 1)[0])
                   for info in folder.glob("lib/python*/site-packages/*.dist-info")}
    found = [sdk.key for sdk in SDKS.values() if sdk.is_mcp and sdk.language == language and any(
        (name if registry == "npm" else canonicalize_name(name)) in present for name in sdk.packages)]
    return next((key for key in found if key not in BASE_SDKS), found[0] if found else None)
