"""Where a Python call sits, read from the tree around it: what tells a registration from the
plumbing around one, and a server's tool from a test's expectation of it (``forms``)."""

from __future__ import annotations

from pipeline.scan.detect.python.scope import Node, text
from pipeline.scan.detect.python.wrappers import parameter_names
from pipeline.scan.detect.syntax import enclosing


def a_parameter(data: bytes, name: Node) -> bool:
    """Whether an enclosing function takes ``name`` as a parameter (``def register_tools(add_tool):``,
    given ``mcp.add_tool``): a project function of that name is a wrapper, read as one."""
    function = enclosing(name, ("function_definition",))
    while function is not None:
        if text(data, name) in parameter_names(data, function):
            return True
        function = enclosing(function, ("function_definition",))
    return False


def calls_super(function: Node) -> bool:
    """Whether ``function`` is ``super().<method>``."""
    receiver = function.child_by_field_name("object")
    called = receiver.child_by_field_name("function") if receiver is not None and receiver.type == "call" else None
    return called is not None and called.text == b"super"


def returned(node: Node) -> bool:
    """Whether a function returns ``node`` (alone, or in a list or tuple it returns)."""
    parent = node.parent
    while parent is not None and parent.type in ("list", "tuple", "parenthesized_expression", "expression_list"):
        parent = parent.parent
    return parent is not None and parent.type == "return_statement"


#: where a test hands a value to a mock: ``m.return_value = Tool(...)``, ``AsyncMock(return_value=[...])``
_MOCKED = ("return_value", "side_effect")


def expected(node: Node) -> bool:
    """Whether ``node`` is part of a comparison or an ``assert`` (a test's expected value), or a
    value a test gives a mock to return (a test double)."""
    parent = node.parent
    while parent is not None and parent.type not in ("function_definition", "class_definition", "module"):
        if parent.type in ("assert_statement", "comparison_operator") or _mocked(parent):
            return True
        parent = parent.parent
    return False


def _mocked(node: Node) -> bool:
    """``x.return_value = ...`` or ``return_value=...`` (``side_effect`` too)."""
    if node.type == "keyword_argument":
        key = node.child_by_field_name("name")
        return key is not None and (key.text or b"").decode() in _MOCKED
    left = node.child_by_field_name("left") if node.type == "assignment" else None
    attribute = left.child_by_field_name("attribute") if left is not None and left.type == "attribute" else None
    return attribute is not None and (attribute.text or b"").decode() in _MOCKED
