"""Tool definitions built as objects of a project's own class, registered elsewhere.

A project may keep each tool as an object, ``ToolDefinition(fn=build, title="dbt build",
annotations=create_tool_annotations(read_only_hint=False, ...))``, and register a list of them
in a loop the detector cannot follow (dbt-mcp's ``dbt_cli``, ``lsp`` and ``dbt_codegen`` tools).
Such a call is a tool definition when it declares at least one hint (a ``ToolAnnotations``, a
dict of hints, a preset or a helper returning one, read one level as everywhere else) and:

- its callee is a class name of the project (capitalised, not an SDK's ``*Tool`` nor
  ``ToolAnnotations``: those are read as their own forms; nor a ``*Resource*`` / ``*Prompt*``);
- the annotations are written there (a literal, a helper's call or a shared object's name),
  not passed on from another object (``annotations=self.annotations``);
- it is neither the body of one of the project's wrappers nor a mock's return value;
- the file or its package uses an MCP SDK (the SDK of the row).

The tool is named by ``name=``, else by the function ``fn=`` / ``func=`` (or the first argument)
names; rule ``python.<sdk>.definition``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.scan.detect.python.scope import Node, keywords, last_name, positionals, text

#: callees that are forms of their own (or no definition at all)
_NOT_DEFINITIONS = frozenset({"ToolAnnotations", "dict", "Tool", "FunctionTool"})
#: a resource's or a prompt's annotations are no tool's
_OTHER_KINDS = re.compile(r"Resource|Prompt")
#: annotations written at the call: a literal, a helper's call, or a module's shared object
#: (``self.annotations`` passes on another object's)
_WRITTEN = frozenset({"call", "dictionary", "identifier"})
#: keywords of a mock's call (``Mock(return_value=...)``): what it is given is no definition
_MOCK_KEYWORDS = frozenset({"return_value", "side_effect", "spec"})


@dataclass(frozen=True)
class DefinitionCall:
    """The arguments of a call that may define a tool as an object."""

    annotations: Node
    name: Node | None
    """the ``name=`` argument, if given."""
    function: Node | None
    """the function it wraps: ``fn=`` / ``func=``, else the first positional argument."""
    title: Node | None


def definition_call(data: bytes, node: Node) -> DefinitionCall | None:
    """The parts of a ``Definition(..., annotations=...)`` call whose callee may be a class of the
    project (see the module docstring); ``None`` for any other call."""
    callee = last_name(data, node.child_by_field_name("function")) or ""
    if not callee[:1].isupper() or callee in _NOT_DEFINITIONS or callee.endswith("Tool") or _OTHER_KINDS.search(callee):
        return None
    parent = node.parent
    if parent is not None and (parent.type == "decorator" or _mock_argument(data, parent)):
        return None
    args = node.child_by_field_name("arguments")
    given = keywords(data, args)
    if "annotations" not in given or not _MOCK_KEYWORDS.isdisjoint(given) or given["annotations"].type not in _WRITTEN:
        return None
    function = given.get("fn", given.get("func")) or next(iter(positionals(args)[:1]), None)
    return DefinitionCall(given["annotations"], given.get("name"), function, given.get("title"))


def _mock_argument(data: bytes, node: Node) -> bool:
    """Whether ``node`` is a mock's keyword argument (``Mock(return_value=Definition(...))``)."""
    key = node.child_by_field_name("name") if node.type == "keyword_argument" else None
    return key is not None and text(data, key) in _MOCK_KEYWORDS
