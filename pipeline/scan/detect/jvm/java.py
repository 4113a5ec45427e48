"""Java tool definitions: the official SDK's ``McpSchema.Tool`` and the annotation-driven libraries.

Lines: a builder chain's first line (``McpSchema.Tool.builder()``), the ``new`` of a constructor,
the ``@`` of a method annotation, the call of a project wrapper.
"""

from __future__ import annotations

from collections.abc import Iterator

from pipeline.scan.detect.jvm.common import (
    POSITIONAL,
    Imports,
    Knowledge,
    captured,
    preset,
    query,
    with_pairs,
)
from pipeline.scan.detect.jvm.nodes import Found, arguments, chain_down, chain_up, enclosing
from pipeline.scan.detect.model import NO_ANNOTATIONS, Annotations
from pipeline.scan.detect.source import SourceFile
from pipeline.scan.detect.syntax import Node, named

MCP_TOOL = ("io.modelcontextprotocol.spec.McpSchema.Tool",)
#: Spring AI's ``FunctionToolCallback``: a ``ToolCallback`` bean the MCP server starter serves as a tool
FUNCTION_CALLBACK = ("org.springframework.ai.tool.function.FunctionToolCallback",)
MCP_ANNOTATIONS = ("io.modelcontextprotocol.spec.McpSchema.ToolAnnotations",
                   "io.quarkiverse.mcp.server.ToolManager.ToolAnnotations")  # both (title, four hints)
#: Quarkus's programmatic API: ``toolManager.newTool("name")...setAnnotations(new ToolAnnotations(...)).register()``
QUARKUS_MANAGER = ("io.quarkiverse.mcp.server.ToolManager",)
#: (annotation simple name, packages, sdk key)
ATTRIBUTES = (
    ("McpTool", ("org.springaicommunity.mcp", "org.springframework.ai.mcp.annotation"), "java-spring-ai"),
    ("McpTool", ("com.github.codeboyzhou.mcp.declarative", "com.github.thought2code.mcp.annotated"),
     "java-declarative"),
    ("Tool", ("io.quarkiverse.mcp.server",), "java-quarkus"),
    ("Tool", ("org.springframework.ai.tool.annotation",), "spring-ai-tool"),
    ("Tool", ("dev.langchain4j.agent.tool",), "langchain4j"),
)
#: ``new McpSchema.Tool(..)`` by argument count: (title index, annotations index)
_CONSTRUCTORS = {4: (None, 3), 5: (None, 4), 6: (1, 5), 7: (1, 5), 8: (1, 5)}

#: the name (or type) child of every candidate; filtered on its bytes (query predicates cost more)
_QUERY = query("tree_sitter_java", """
(method_invocation name: (identifier) @n)
(object_creation_expression type: (_) @n)
(annotation name: (_) @n)
(marker_annotation name: (_) @n)
""")
_DECLARATIONS = query("tree_sitter_java", "[(field_declaration) (method_declaration)] @d")


class JavaFile:
    """The tool definitions of one Java file."""

    def __init__(self, file: SourceFile, imports: Imports, knowledge: Knowledge, mcp_starter: bool) -> None:
        self.file, self.imports, self.knowledge, self.mcp_starter = file, imports, knowledge, mcp_starter

    def definitions(self) -> Iterator[Found]:
        """Every tool definition written in the file."""
        data, wrappers = self.file.data, self.knowledge.wrappers
        for name in captured(_QUERY, self.file.tree.root_node):
            text = data[name.start_byte : name.end_byte]
            wanted = text.endswith(b"Tool") or text == b"builder" or (wrappers and text.decode() in wrappers)
            found = self._definition(name.parent) if wanted and name.parent is not None else None
            if found is not None:
                yield found

    def _definition(self, node: Node) -> Found | None:
        if node.type in ("annotation", "marker_annotation"):
            return self._attribute(node)
        if node.type == "object_creation_expression":
            return self._constructor(node)
        name = self.file.text(node.child_by_field_name("name"))
        receiver = node.child_by_field_name("object")
        if name == "builder" and self.file.text(receiver).endswith("Tool") and self._is(receiver, MCP_TOOL):
            return self._builder(node)
        if name == "builder" and self.mcp_starter and self._is(receiver, FUNCTION_CALLBACK):
            args = arguments(node.child_by_field_name("arguments"))  # builder(name, function): no hints
            return Found(node, "java-spring-ai-tool-mcp", "function-callback", args[0] if args else None)
        if name == "newTool" and self.imports.resolves("ToolManager", QUARKUS_MANAGER):
            return self._quarkus_tool(node)
        if name in self.knowledge.wrappers:
            return self._wrapper_call(node, name)
        return None

    def _quarkus_tool(self, node: Node) -> Found:
        """``toolManager.newTool("name").setAnnotations(...).setHandler(...).register()``."""
        args = arguments(node.child_by_field_name("arguments"))
        found = Found(node, "java-quarkus", "new-tool", args[0] if args else None)
        return self._chained(found, {"setTitle": "title_expr", "setAnnotations": "annotations_expr"})

    def _chained(self, found: Found, fields: dict[str, str]) -> Found:
        """``found`` with the first argument of each call chained after its node that ``fields``
        maps to one of its fields (``.name("x")`` -> ``name_expr``)."""
        for call, call_args in chain_up(found.node, self.file):
            if call in fields and call_args:
                found = Found(**{**found.__dict__, fields[call]: call_args[0]})
        return found

    def _is(self, node: Node | None, prefixes: tuple[str, ...]) -> bool:
        return node is not None and self.imports.resolves(self.file.text(node).replace(" ", ""), prefixes)

    def _builder(self, node: Node) -> Found:
        args = arguments(node.child_by_field_name("arguments"))
        found = Found(node, "java-mcp", "builder", args[0] if args else None)
        return self._chained(found, {"name": "name_expr", "title": "title_expr", "annotations": "annotations_expr"})

    def _constructor(self, node: Node) -> Found | None:
        if not self._is(node.child_by_field_name("type"), MCP_TOOL):
            return None
        args = arguments(node.child_by_field_name("arguments"))
        title, annotations = _CONSTRUCTORS.get(len(args), (None, None))
        return Found(node, "java-mcp", "new-tool", args[0] if args else None,
                     title_expr=args[title] if title is not None else None,
                     annotations_expr=args[annotations] if annotations is not None else None)

    def _attribute(self, node: Node) -> Found | None:
        written = self.file.text(node.child_by_field_name("name")).replace(" ", "")
        method = node.parent.parent if node.parent is not None and node.parent.type == "modifiers" else None
        if method is None or method.type != "method_declaration":
            return None
        sdk = next((k for simple, p, k in ATTRIBUTES
                    if written.rsplit(".", 1)[-1] == simple and self.imports.resolves(written, p)), None)
        if sdk is None:
            return None
        if sdk == "spring-ai-tool" and self.mcp_starter:
            sdk = "java-spring-ai-tool-mcp"
        pairs = self.pairs(node)
        nested = pairs.get("annotations")
        found = Found(node, sdk, "attribute", pairs.get("name"), self.file.text(method.child_by_field_name("name")),
                      title_expr=pairs.get("title"))
        if nested is None:
            return found
        if nested.type != "annotation":
            return Found(**{**found.__dict__, "annotations": Annotations(source="dynamic")})
        hints = with_pairs(Annotations(source="attribute"), self.file, list(self.pairs(nested).items()))
        return Found(**{**found.__dict__, "annotations": hints})

    def pairs(self, node: Node) -> dict[str, Node]:
        """The ``key = value`` elements of an annotation."""
        args = node.child_by_field_name("arguments")
        found: dict[str, Node] = {}
        for pair in named(args) if args is not None else []:
            if pair.type == "element_value_pair":
                value = pair.child_by_field_name("value")
                if value is not None:
                    found[self.file.text(pair.child_by_field_name("key"))] = value
        return found

    def _wrapper_call(self, node: Node, name: str) -> Found | None:
        wrapper = self.knowledge.wrappers[name]
        args = arguments(node.child_by_field_name("arguments"))
        if len(args) != len(wrapper.params):
            return None
        name_expr = args[wrapper.name_index] if wrapper.name_index is not None else None
        annotations = args[wrapper.annotations_index] if wrapper.annotations_index is not None else None
        return Found(node, wrapper.sdk, "wrapper", name_expr, annotations_expr=annotations,
                     annotations=wrapper.annotations)

    def resolve(self, node: Node | None, depth: int = 0, locals_: bool = True) -> Annotations:
        """The annotations an expression stands for (presets one level; a local variable is an alias)."""
        if node is None or node.type == "null_literal":
            return NO_ANNOTATIONS
        if node.type == "object_creation_expression" and self._is(node.child_by_field_name("type"), MCP_ANNOTATIONS):
            args = arguments(node.child_by_field_name("arguments"))
            return with_pairs(Annotations(source="positional"), self.file, list(zip(POSITIONAL, args, strict=False)))
        if node.type == "method_invocation":
            root, calls = chain_down(node, self.file)
            if calls and calls[0][0] == "builder" and self._is(root, MCP_ANNOTATIONS):
                pairs = [(call, args[0]) for call, args in calls[1:] if args]
                return with_pairs(Annotations(source="options"), self.file, pairs)
            name = calls[-1][0] if calls else ""
            return preset(self.knowledge, name) or Annotations(source="dynamic")
        if node.type in ("identifier", "field_access") and depth == 0:
            return self._named(node, locals_)
        return Annotations(source="dynamic")

    def _named(self, node: Node, locals_: bool) -> Annotations:
        name = self.file.text(node.child_by_field_name("field") if node.type == "field_access" else node)
        local = self.local(node, name) if node.type == "identifier" and locals_ else None
        if local is not None:
            return self.resolve(local, locals_=False)
        return preset(self.knowledge, name) or Annotations(source="dynamic")

    def local(self, node: Node, name: str) -> Node | None:
        """The initial value of local variable ``name`` in the method around ``node``."""
        method = enclosing(node, "method_declaration")
        body = method.child_by_field_name("body") if method is not None else None
        if body is None:
            return None
        for declarator in captured(_LOCALS, body):
            if self.file.text(declarator.child_by_field_name("name")) == name:
                return declarator.child_by_field_name("value")
        return None

    def declarations(self) -> Iterator[tuple[str, Node]]:
        """Fields and methods of an SDK ``ToolAnnotations`` type, with the expression they hold."""
        for node in captured(_DECLARATIONS, self.file.tree.root_node):
            if not self._is(node.child_by_field_name("type"), MCP_ANNOTATIONS):
                continue
            if node.type == "field_declaration":
                for declarator in node.children_by_field_name("declarator"):
                    if (value := declarator.child_by_field_name("value")) is not None:
                        yield self.file.text(declarator.child_by_field_name("name")), value
                continue
            returns = [r for r in captured(_RETURNS, node) if r.named_child_count]
            if len(returns) == 1 and returns[0].named_children[0] is not None:
                yield self.file.text(node.child_by_field_name("name")), returns[0].named_children[0]


_LOCALS = query("tree_sitter_java", "(local_variable_declaration (variable_declarator) @v)")
_RETURNS = query("tree_sitter_java", "(return_statement) @r")
