"""The path rules: each ecosystem's conventions for tests, examples and documentation, read from a
file's name and folders alone (``classify``). See ``pipeline.scan.roles`` for the order they are
tried in and what a manifest's server paths and a tree's project files add."""

from __future__ import annotations

import functools
import re

from pipeline.scan.roles.model import DOCS, EXAMPLE, SERVER_ROLE, TEST, Role

#: file-name conventions of tests, per ecosystem: (pattern shown in ``role_rule``, regex on the name)
TEST_NAMES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((shown, re.compile(regex)) for shown, regex in (
    ("*_test.go", r".+_test\.go\Z"),
    ("test_*.py", r"test_.*\.py\Z"),
    ("*_test.py", r".+_test\.py\Z"),
    ("conftest.py", r"conftest\.py\Z"),
    ("tests.py", r"tests\.py\Z"),
    ("*.test.*", r".+\.test\.[cm]?[jt]sx?\Z"),
    ("*.eval.*", r".+\.evals?\.[cm]?[jt]sx?\Z"),
    ("*.spec.*", r".+(?:\.spec|[a-z0-9]Spec)\.[cm]?[jt]sx?\Z"),
    ("*Test.java|kt", r".*[a-z0-9](?:Tests?|IT|TestCase)\.(?:java|kt|kts|groovy|scala)\Z"),
    ("*Tests.cs", r".*[a-z0-9]Tests?\.(?:cs|fs|vb)\Z"),
    ("*_spec.rb", r".+_spec\.rb\Z"),
    ("*_test.rb", r"(?:.+_test|test_.+)\.rb\Z"),
    ("*Test.php", r".*[a-z0-9]Test\.php\Z"),
    ("*Tests.swift", r".*[a-z0-9]Tests?\.swift\Z"),
    ("tests.rs", r"(?:.+_tests?|tests)\.rs\Z"),
))

_TEST_FOLDER = re.compile(
    r"(?:tests?|__tests?__|testdata|test[-_]data|testfixtures|fixtures?|__fixtures__|e2e|conformance|fuzz"
    r"|benchmarks?|benches|bench|evals?|evaluations?|__mocks__|mocks?|testutils?|testhelpers?|testservers?"
    r"|snapshots?|__snapshots__|__\w*snaps?__)\Z"
    r"|.+[-_](?:tests?|e2e)\Z|.+\.(?:tests?|e2e)\Z|tests?[-_].+\Z"
    r"|(?:.+[-_])?(?:tests|e2e|mocks?|evals|fixtures|benchmarks)(?:[-_].+)?\Z", re.IGNORECASE)
#: camel-case test folders: Gradle source sets (jvmTest, commonTest, testFixtures), test targets of
#: Xcode, SwiftPM and .NET (IntegrationTests, MyAppTests: PascalCase), Swift targets (MCPConformance);
#: a lowerCamel name ending in ``Tests`` names a thing, as a JavaScript identifier does
#: (``src/tools/getFlakyTests/``, ``runTests/``)
_CAMEL_TEST_FOLDER = re.compile(r".*[A-Za-z0-9](?:Test|TestFixtures|Conformance|Benchmarks?|Fuzz)\Z"
                                r"|[A-Z][A-Za-z0-9]*[A-Za-z0-9]Tests\Z|tests?[A-Z].*\Z")
#: RSpec's folders: tests of Ruby files only (a Java ``spec`` package is the protocol's)
_RUBY_TEST_FOLDER = re.compile(r"specs?\Z", re.IGNORECASE)
_EXAMPLE_FOLDER = re.compile(
    r"(?:examples?|samples?|demos?|cookbooks?|tutorials?|quickstarts?|playgrounds?)\Z"
    r"|.+[-_.](?:examples?|samples?|demos?)\Z|(?:examples?|samples?|demos?)[-_.].+\Z", re.IGNORECASE)
_CAMEL_EXAMPLE_FOLDER = re.compile(r".*[a-z0-9](?:Examples?|Samples?|Demos?)\Z")
#: project templates and scaffolds: examples when they hold code, above the source folders
#: (``packages/create-app/templates/basic/src/index.ts``; not ``src/prompts/templates/``, not Helm's)
_TEMPLATE_FOLDER = re.compile(
    r"(?:templates?|scaffolds?|scaffolding|boilerplates?|skeletons?|starters?|starter[-_]kits?)\Z"
    r"|.+[-_.]templates?\Z|templates?[-_.].+\Z", re.IGNORECASE)
#: code written for documentation pages (FastAPI's ``docs_src`` convention): examples, not docs
_DOCS_CODE_FOLDER = re.compile(r"docs?[-_]src\Z", re.IGNORECASE)
#: a file named as an example: ``example.py``, ``weather_example.go``, ``example_server.py``,
#: ``mcp.examples.ts``, ``config.example.json``; and a scaffold's ``.stub`` (Laravel's generators).
#: A plural module name is a feature's, not an example: ``tools/examples.go``, ``query_examples.py``
_EXAMPLE_NAME = re.compile(
    r"(?:example|.+[_-]example|example[_-].+|.+\.examples?)\.[^.]+\Z|.+\.stub\Z", re.IGNORECASE)
#: extensions of documentation; a ``.txt`` that is a build input is none (``requirements.txt``)
DOCS_EXTENSIONS = frozenset({".md", ".mdx", ".rst", ".adoc", ".txt", ".ipynb"})
_NOT_DOCS = re.compile(r"(?:requirements|constraints)[^/]*\.txt\Z|CMakeLists\.txt\Z", re.IGNORECASE)
DOCS_FOLDERS = frozenset({"docs", "doc", "documentation"})
#: a documentation folder below one of these holds code (``src/tools/docs/search.ts``)
SOURCE_FOLDERS = frozenset({"src", "lib", "pkg", "internal", "cmd", "app", "Sources"})
#: the JVM languages whose source roots (``src/main/java``) are followed by package folders, whose
#: names (``com/example``, ``io/x/sample``) say nothing of a role
JVM_LANGUAGES = frozenset({"java", "kotlin", "scala", "groovy"})
JVM_EXTENSIONS = frozenset({".java", ".kt", ".kts", ".scala", ".groovy"})
#: extensions of code: a template folder makes code an example
CODE_EXTENSIONS = frozenset({
    ".py", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".go", ".rs", ".java", ".kt", ".kts",
    ".cs", ".php", ".rb", ".swift", ".scala", ".groovy",
})

def classify(path: str, names: bool = True) -> Role:
    """The role of ``path`` by the path rules alone (no server paths, no project files); with
    ``names`` false, a test's file name is not taken for a test (its content says it is none)."""
    folder, _, name = path.rpartition("/")
    extension = name[dot:].lower() if (dot := name.rfind(".")) > 0 else ""
    main_jvm = extension in JVM_EXTENSIONS and _main_source_root(folder.split("/")) is not None
    for shown, pattern in TEST_NAMES if names else ():
        if pattern.match(name) and not (main_jvm and shown.startswith("*Test.")):  # src/main/java/ConnectionTest.java
            return Role(TEST, f"file:{shown}")
    by_folder = _by_folder(folder, extension)
    if by_folder is not None and by_folder.role == TEST:
        return by_folder
    if extension in DOCS_EXTENSIONS and not _NOT_DOCS.match(name):
        return Role(DOCS, f"extension:{extension}")
    if by_folder is None and _EXAMPLE_NAME.match(name):
        return Role(EXAMPLE, "file:*.stub" if extension == ".stub" else "file:*example*")
    return by_folder or SERVER_ROLE


@functools.lru_cache(maxsize=8192)
def _by_folder(folder: str, extension: str) -> Role | None:
    """For a file of ``extension`` in ``folder``: its first test folder; else its docs folder (above
    the source folders) or first example folder; else ``None``. Package folders below a JVM
    source root are names, not roles."""
    parts = folder.split("/") if folder else []
    named = parts[:_jvm_packages(parts)]
    for part in named:
        if _TEST_FOLDER.match(part) or _CAMEL_TEST_FOLDER.match(part) or \
                (extension == ".rb" and _RUBY_TEST_FOLDER.match(part)):
            return Role(TEST, f"folder:{part}/")
    source = next((i for i, part in enumerate(parts) if part in SOURCE_FOLDERS), len(parts))
    for i, part in enumerate(parts):
        if (i < source and part.lower() in DOCS_FOLDERS) or part.lower().endswith(".docc"):
            return Role(DOCS, f"folder:{part}/")
    for i, part in enumerate(named):
        if _EXAMPLE_FOLDER.match(part) or _CAMEL_EXAMPLE_FOLDER.match(part) or _DOCS_CODE_FOLDER.match(part) or \
                (extension in CODE_EXTENSIONS and _TEMPLATE_FOLDER.match(part) and _templates_here(parts, i, source)):
            return Role(EXAMPLE, f"folder:{part}/")
    return None


def _templates_here(parts: list[str], at: int, source: int) -> bool:
    """Whether the template folder ``parts[at]`` holds project templates: above the source folders,
    or in a generator's folder (Rails' ``lib/generators/*/templates/``, Yeoman's ``generators/app/templates/``)."""
    return at < source or any(part.lower() in ("generators", "generator") for part in parts[:at])


def _jvm_packages(parts: list[str]) -> int:
    """Where the package folders start: after ``src/<main source set>/<JVM language>/`` (``src/main/java``,
    ``src/commonMain/kotlin``), else after the last part."""
    root = _main_source_root(parts)
    return len(parts) if root is None else root


def _main_source_root(parts: list[str]) -> int | None:
    """The index after ``src/<main source set>/<JVM language>`` in ``parts``, if they hold one."""
    for i in range(len(parts) - 2):
        if parts[i] == "src" and parts[i + 2] in JVM_LANGUAGES and not _CAMEL_TEST_FOLDER.match(parts[i + 1]) \
                and not _TEST_FOLDER.match(parts[i + 1]):
            return i + 3
    return None
