"""The tree shows the data flow (issue 28): one package per stage, and imports that run only from a
stage to the stages before it, never in a circle; each language's detector shows the rest of the
pipeline its detector class alone; and no module outgrows what one reading holds. Imports under
``TYPE_CHECKING`` count too: a type shared by two modules lives in a third that both import
(``report.data``, ``report.population_data``)."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "pipeline"

#: the stages in the order they may import each other: a module imports from its own stage and the
#: ones before it (``shared`` is what every stage uses: settings, errors, the progress observer)
STAGES = ("shared", "manifest", "archive", "fetch", "scan", "runtime", "store", "run", "analysis", "report", "cli")
LANGUAGES = ("python", "typescript", "golang", "rust", "jvm", "csharp", "php", "ruby", "swift")
#: the most lines a module may hold (the guide's "about 250")
MOST_LINES = 260


@cache
def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of the library ``path`` imports (``from pkg import submodule`` is the submodule)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("pipeline"):
            base = node.module or ""
            submodules = {f"{base}.{alias.name}" for alias in node.names} & modules.keys()
            found |= submodules
            if len(submodules) < len(node.names) and base in modules:
                found.add(base)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names} & modules.keys()
    return found


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    circles.append(sorted(group))
    return circles


def test_the_library_has_no_circle_of_imports() -> None:
    graph = _graph()
    assert len(graph) > 150
    assert _circles(graph) == []


def test_a_circle_is_found_where_there_is_one() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def _stage(module: str) -> str:
    parts = module.split(".")
    if module == "pipeline.__main__":
        return "cli"
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in STAGES) else "shared"


@cache
def _graph() -> dict[str, set[str]]:
    """module -> the modules of the library it imports (read once for every test here)."""
    modules = _modules()
    return {name: _imports(path, modules) for name, path in modules.items()}


def _upward(graph: dict[str, set[str]]) -> list[str]:
    """Each import of ``graph`` that runs from a stage to a later one."""
    rank = {stage: at for at, stage in enumerate(STAGES)}
    return sorted(f"{name} ({_stage(name)}) imports {target} ({_stage(target)})"
                  for name, targets in graph.items() for target in targets
                  if rank[_stage(target)] > rank[_stage(name)])


def test_every_import_runs_from_a_stage_to_itself_or_an_earlier_one() -> None:
    graph = _graph()
    assert {_stage(name) for name in graph} == set(STAGES)
    assert _upward(graph) == []


def test_a_language_package_shows_the_rest_its_detector_alone() -> None:
    graph = _graph()
    for language in LANGUAGES:
        package = f"pipeline.scan.detect.{language}"
        assert package in graph, package
        reaching_in = sorted(f"{name} imports {target}" for name, targets in graph.items()
                             if not (name == package or name.startswith(package + "."))
                             for target in targets if target == package or target.startswith(package + "."))
        assert reaching_in == []
        body = ast.parse(_modules()[package].read_text(encoding="utf-8")).body
        exported = next(ast.literal_eval(node.value) for node in body
                        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__")
        assert exported
        assert all(name.endswith("Detector") for name in exported), exported


def test_every_package_says_what_comes_in_and_what_goes_out() -> None:
    for init in PACKAGE.rglob("__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
        assert doc is not None, init.relative_to(ROOT)
        assert len(doc) > 60, init.relative_to(ROOT)


def test_no_module_outgrows_one_reading() -> None:
    sizes = {path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for path in PACKAGE.rglob("*.py")}
    assert len(sizes) > 150
    assert sorted(path for path, lines in sizes.items() if lines > MOST_LINES) == []


def test_an_upward_import_is_found_where_there_is_one() -> None:
    graph = {"pipeline.manifest.terms": {"pipeline.report.plots", "pipeline.errors"},
             "pipeline.report.plots": {"pipeline.analysis.stats"}, "pipeline.errors": set()}
    assert _upward(graph) == ["pipeline.manifest.terms (manifest) imports pipeline.report.plots (report)"]
    assert _stage("pipeline.report.census") == "report"
    assert _stage("pipeline.scan.detect.python.forms") == "scan"
    assert _stage("pipeline.settings") == _stage("pipeline") == "shared"
    assert _stage("pipeline.__main__") == "cli"
