"""Names in one Python file: what its imports bind, and which SDK object a receiver is.

``Scope`` turns an identifier or attribute chain into a dotted, qualified name through the
file's imports (``types.Tool`` -> ``mcp.types.Tool``), and keeps the variables the file binds
to a known constructor (``mcp = FastMCP(...)``, ``self.mcp = ...``, ``def f(mcp: FastMCP)``).
``classify`` says which SDK a qualified class name belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass

import tree_sitter

from pipeline.scan.detect.syntax import unquote

Node = tree_sitter.Node

#: qualified names of MCP SDK packages whose import makes a file a candidate server
SERVER_PACKAGES = ("fastmcp", "mcp.server", "mcp.types", "mcp_types", "mcp")


@dataclass(frozen=True)
class Kind:
    """What a qualified constructor builds: an SDK and its flavour."""

    sdk: str
    """key of ``SDKS``."""
    flavor: str
    """``fastmcp``, ``v1`` (mcp FastMCP), ``v2`` (MCPServer), ``lowlevel`` or ``agent`` (look-alike)."""


def classify(qual: str | None) -> Kind | None:
    """The SDK object a qualified class name constructs, or ``None``."""
    if not qual:
        return None
    if qual.rsplit(".", 1)[-1].startswith(("from_", "as_proxy")):
        qual = qual.rsplit(".", 1)[0]  # FastMCP.from_openapi(...), FastMCP.as_proxy(...)
    root, last = qual.split(".", 1)[0], qual.rsplit(".", 1)[-1]
    if root == "fastmcp" and last == "FastMCP":
        return Kind("python-fastmcp", "fastmcp")
    if root == "mcp" and last == "FastMCP":
        return Kind("python-mcp", "v1")
    if root == "mcp" and last == "MCPServer":
        return Kind("python-mcp", "v2")
    if qual.startswith("mcp.server") and last == "Server":
        return Kind("python-mcp", "lowlevel")
    if root == "pydantic_ai" and last == "Agent":
        return Kind("pydantic-ai", "agent")
    return None


def text(file_data: bytes, node: Node | None) -> str:
    """The source text of ``node``."""
    if node is None:
        return ""
    return file_data[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def keywords(data: bytes, args: Node | None) -> dict[str, Node]:
    """The keyword arguments of an ``argument_list`` by name."""
    found: dict[str, Node] = {}
    for child in args.named_children if args is not None else []:
        if child.type == "keyword_argument":
            name, value = child.child_by_field_name("name"), child.child_by_field_name("value")
            if name is not None and value is not None:
                found[text(data, name)] = value
    return found


def positionals(args: Node | None) -> list[Node]:
    """The positional arguments of an ``argument_list`` (splats and comments left out)."""
    skip = ("keyword_argument", "list_splat", "dictionary_splat", "comment")
    return [c for c in (args.named_children if args is not None else []) if c.type not in skip]


def string_value(data: bytes, node: Node | None) -> str | None:
    """The value of a plain string literal node, else ``None``."""
    if node is None or node.type not in ("string", "concatenated_string"):
        return None
    return unquote(text(data, node))


def parameters(function: Node | None) -> dict[str, Node | None]:
    """The parameters of ``function`` (plain, typed, with defaults, ``*args``): name -> the default's
    node, ``None`` without one; none for ``None``."""
    found: dict[str, Node | None] = {}
    params = function.child_by_field_name("parameters") if function is not None else None
    for param in params.named_children if params is not None else []:
        name = param if param.type == "identifier" else param.child_by_field_name("name")
        if name is None and param.named_children and param.named_children[0].type == "identifier":
            name = param.named_children[0]  # typed_parameter, *args: the name is the first child
        if name is not None and name.type == "identifier" and name.text is not None:
            found[name.text.decode("utf-8", "replace")] = param.child_by_field_name("value")
    return found


def module_paths(module: str, importer: str) -> tuple[str, ...]:
    """The files a dotted ``module`` may be, seen from ``importer`` (``.server`` is a sibling)."""
    if not module:
        return ()
    dots = len(module) - len(module.lstrip("."))
    parts = [p for p in module.lstrip(".").split(".") if p]
    if dots:
        folders = importer.split("/")[:-1]
        parts = folders[: max(len(folders) - (dots - 1), 0)] + parts
    base = "/".join(parts)
    return (f"{base}.py", f"{base}/__init__.py") if base else ()


def last_name(data: bytes, node: Node | None) -> str | None:
    """The last identifier of an identifier or attribute chain (``a.b.C`` -> ``C``)."""
    if node is None:
        return None
    if node.type == "identifier":
        return text(data, node)
    if node.type == "attribute":
        return text(data, node.child_by_field_name("attribute"))
    return None


def function_name(data: bytes, node: Node | None) -> str | None:
    """The ``__name__`` of a function reference (an identifier or attribute)."""
    return last_name(data, node)


class Scope:
    """The names one file binds: imports and variables built by a known constructor."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.imports: dict[str, str] = {}
        """local name -> qualified name it imports."""
        self.bindings: dict[str, str] = {}
        """variable text (``mcp``, ``self.mcp``) -> qualified class or ``wrapper:<Class>``."""
        self.wrapper_args: dict[str, str] = {}
        """wrapper instance variable -> text of the first argument given to its constructor."""

    def add_import(self, node: Node) -> None:
        """Record what an ``import`` / ``from ... import`` statement binds."""
        module = node.child_by_field_name("module_name")
        prefix = text(self.data, module) if module is not None else ""
        for name in node.children_by_field_name("name"):
            target: Node | None = name
            alias: Node | None = None
            if name.type == "aliased_import":
                target, alias = name.child_by_field_name("name"), name.child_by_field_name("alias")
            dotted = text(self.data, target)
            if module is not None:
                qual = f"{prefix}.{dotted}" if not prefix.endswith(".") else prefix + dotted
                self.imports[text(self.data, alias) if alias else dotted] = qual
            elif alias is not None:
                self.imports[text(self.data, alias)] = dotted
            else:
                self.imports[dotted.split(".")[0]] = dotted.split(".")[0]

    def qualify(self, node: Node | None) -> str | None:
        """The qualified name of an identifier or attribute chain through the imports."""
        if node is None:
            return None
        if node.type == "identifier":
            name = text(self.data, node)
            return None if name in self.bindings else self.imports.get(name)
        if node.type == "attribute":
            base = self.qualify(node.child_by_field_name("object"))
            attribute = text(self.data, node.child_by_field_name("attribute"))
            return f"{base}.{attribute}" if base else None
        return None

    def imported_from(self, *packages: str) -> bool:
        """Whether the file imports anything from one of ``packages`` (dotted prefixes)."""
        return any(q == p or q.startswith(p + ".") for q in self.imports.values() for p in packages)

    def receiver(self, node: Node | None) -> str | None:
        """What a receiver expression is bound to (qualified class or ``wrapper:<Class>``)."""
        return self.bindings.get(text(self.data, node)) if node is not None else None
