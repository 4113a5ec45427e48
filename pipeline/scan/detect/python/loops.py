"""Python ``for`` loops over lists of functions: which functions a loop variable takes.

``for fn in (search, fetch): mcp.add_tool(fn)`` registers each function of the list; the list may
be written in the loop, assigned once in the module, or imported from another module of the tree
(``ProjectIndex.imported_list``).
"""

from __future__ import annotations

from pipeline.scan.detect.python.scope import Node, text

_REFERENCES = ("identifier", "attribute")


def loop_elements(data: bytes, reference: Node) -> list[Node] | None:
    """The functions a ``for`` loop variable takes (``for fn in (search, fetch):``, or a list the
    module assigns once): ``None`` when ``reference`` is no loop variable, empty when the loop runs
    over something else."""
    found = _loop(data, reference)
    return _listed(data, found[1], found[0]) if found is not None else None


def loop_iterated(data: bytes, reference: Node) -> Node | None:
    """What the ``for`` loop whose variable ``reference`` is iterates (``None``: no loop variable)."""
    found = _loop(data, reference)
    return found[1] if found is not None else None


def _loop(data: bytes, reference: Node) -> tuple[Node, Node] | None:
    """The ``for`` statement whose variable ``reference`` is, and what it iterates."""
    if reference.type != "identifier":
        return None
    name, node = text(data, reference), reference.parent
    while node is not None and node.type not in ("function_definition", "class_definition", "module"):
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if node.type == "for_statement" and left is not None and right is not None and text(data, left) == name:
            return node, right
        node = node.parent
    return None


def _listed(data: bytes, iterated: Node, loop: Node) -> list[Node]:
    """The function references of a list or tuple literal, or of the module constant naming one."""
    if iterated.type == "identifier":
        module = loop
        while module.parent is not None:
            module = module.parent
        return module_list(data, module, text(data, iterated))
    return _references(iterated)


def module_value(data: bytes, module: Node, name: str) -> Node | None:
    """The value a module-level assignment gives ``name``, when the module assigns it once."""
    values = [a.child_by_field_name("right") for s in module.named_children if s.type == "expression_statement"
              for a in s.named_children if a.type == "assignment" and text(data, a.child_by_field_name("left")) == name]
    return values[0] if len(values) == 1 else None


def module_list(data: bytes, module: Node, name: str) -> list[Node]:
    """The function references of the list or tuple a module assigns once to ``name``
    (``read_tools = [list_incidents, get_incident]``), else nothing."""
    value = module_value(data, module, name)
    return _references(value) if value is not None else []


def _references(listed: Node) -> list[Node]:
    """The elements of a list or tuple literal when every one names a function (comments aside)."""
    if listed.type not in ("list", "tuple"):
        return []
    elements = [e for e in listed.named_children if e.type != "comment"]
    return elements if elements and all(e.type in _REFERENCES for e in elements) else []
