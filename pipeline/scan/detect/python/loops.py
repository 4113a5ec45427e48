"""Python ``for`` loops over lists of functions: which functions a loop variable takes.

``for fn in (search, fetch): mcp.add_tool(fn)`` registers each function of the list; the list may
be written in the loop, assigned once in the module, or imported from another module of the tree
(``ProjectIndex.imported_list``). A loop may unpack tuples (``for fn, group in TOOLS:``, the
function at its place in each tuple) and run over a comprehension that filters a list (``[(f, g)
for f, g in TOOLS if g in enabled]``: the list's functions; the filter is a condition,
``conditions.loops``).
"""

from __future__ import annotations

from pipeline.scan.detect.python.scope import Node, text

_REFERENCES = ("identifier", "attribute")


def loop_elements(data: bytes, reference: Node) -> list[Node] | None:
    """The functions a ``for`` loop variable takes (``for fn in (search, fetch):``, or a list the
    module assigns once): ``None`` when ``reference`` is no loop variable, empty when the loop runs
    over something else."""
    found = _loop(data, reference)
    if found is None:
        return None
    loop, iterated, place = found
    return _listed(data, _unfiltered(data, iterated, place), loop, place)


def loop_iterated(data: bytes, reference: Node) -> Node | None:
    """What the ``for`` loop whose variable ``reference`` is iterates (``None``: no loop variable)."""
    found = _loop(data, reference)
    return found[1] if found is not None else None


def _loop(data: bytes, reference: Node) -> tuple[Node, Node, int | None] | None:
    """The ``for`` statement whose variable ``reference`` is, what it iterates, and the variable's
    place in the tuples it unpacks (``None``: it takes whole elements)."""
    if reference.type != "identifier":
        return None
    name, node = text(data, reference), reference.parent
    while node is not None and node.type not in ("function_definition", "class_definition", "module"):
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if node.type == "for_statement" and left is not None and right is not None and \
                (place := _place(data, left, name)) != -1:
            return node, right, place
        node = node.parent
    return None


def _place(data: bytes, target: Node, name: str) -> int | None:
    """Where ``name`` is in a loop's target: ``None`` for the whole target, its index in a tuple
    pattern (``fn, group``), ``-1`` when it is not there."""
    if text(data, target) == name:
        return None
    if target.type in _PATTERNS:
        names = [text(data, c) for c in target.named_children]
        return names.index(name) if name in names else -1
    return -1


_PATTERNS = ("pattern_list", "tuple_pattern", "tuple", "expression_list")


def _unfiltered(data: bytes, iterated: Node, place: int | None) -> Node:
    """The list a comprehension that only filters or reorders tuples reads
    (``[(f, g) for f, g in TOOLS if g in enabled]`` reads ``TOOLS``), else ``iterated``."""
    if iterated.type not in ("list_comprehension", "generator_expression") or place is None:
        return iterated
    body = iterated.child_by_field_name("body")
    clauses = [c for c in iterated.named_children if c.type == "for_in_clause"]
    if body is None or len(clauses) != 1 or body.type not in _PATTERNS:
        return iterated
    left, right = clauses[0].child_by_field_name("left"), clauses[0].child_by_field_name("right")
    if left is None or right is None or text(data, left) != text(data, body).strip("()"):
        return iterated
    return right


def _listed(data: bytes, iterated: Node, loop: Node, place: int | None = None) -> list[Node]:
    """The function references of a list or tuple literal, or of the module constant naming one (at
    ``place`` in each of its tuples, when the loop unpacks them)."""
    if iterated.type == "identifier":
        module = loop
        while module.parent is not None:
            module = module.parent
        name = text(data, iterated)
        iterated = _assigned_before(data, loop, name) or module_value(data, module, name) or iterated
    if place is None:
        return _references(iterated)
    if iterated.type not in ("list", "tuple"):
        return []
    rows = [e for e in iterated.named_children if e.type != "comment"]
    picked = [r.named_children[place] for r in rows if r.type in ("tuple", "list") and len(r.named_children) > place]
    return picked if rows and len(picked) == len(rows) and all(e.type in _REFERENCES for e in picked) else []


def _assigned_before(data: bytes, loop: Node, name: str) -> Node | None:
    """The value the last ``name = ...`` before ``loop`` in the function around it gives ``name``
    (``tools = [a, b]`` then ``for tool in tools:`` inside ``register_tools``)."""
    found, node = None, loop
    while node.parent is not None and node.type != "function_definition":
        for statement in node.parent.named_children:
            if statement.start_byte >= loop.start_byte:
                break
            assignment = statement.named_children[0] if statement.type == "expression_statement" and \
                statement.named_children else None
            if assignment is not None and assignment.type == "assignment" and \
                    text(data, assignment.child_by_field_name("left")) == name:
                found = assignment.child_by_field_name("right")
        if found is not None or node.parent.type == "module":
            return found
        node = node.parent
    return found


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


#: methods of a dict or list in the process: what they give is the source's own
_OWN = frozenset({"items", "values", "keys", "copy", "get", "pop", "sorted", "filter", "list"})


def iterated_at_run_time(data: bytes, node: Node) -> bool:
    """Whether ``node`` (``tool.name``, ``info["name"]``, ``name``) is read from an element of what a
    loop or comprehension runs over when that is a method's answer (``client.list_functions()``,
    ``await session.list_tools()``, ``response.json()["tools"]``), directly or through a name the
    function assigns it: a name made at run time, which no reading of the source gives."""
    root = node
    while root.type in ("attribute", "subscript", "boolean_operator") and root.named_children:
        root = root.named_children[0]  # func.name or "": the element's name, with a default
    if root.type != "identifier":
        return False
    name, scope = text(data, root), root.parent
    while scope is not None and scope.type not in ("function_definition", "module"):
        clauses = [scope] if scope.type == "for_statement" else \
            [c for c in scope.named_children if c.type == "for_in_clause"]
        for clause in clauses:
            left, right = clause.child_by_field_name("left"), clause.child_by_field_name("right")
            if left is not None and right is not None and _place(data, left, name) != -1:
                return _answered(data, right, clause)
        scope = scope.parent
    return False


def _answered(data: bytes, iterated: Node, loop: Node, depth: int = 0) -> bool:
    """Whether ``iterated`` is (or a name assigned before ``loop`` holds) a method's answer."""
    node = iterated
    while node.type in ("attribute", "subscript", "await", "parenthesized_expression") and node.named_children:
        if node.type == "attribute" and node.named_children[0].type == "call":
            node = node.named_children[0]
            break
        node = node.named_children[0]
    if node.type == "identifier" and depth < 2:
        value = _assigned_before(data, loop, text(data, node))
        return value is not None and _answered(data, value, loop, depth + 1)
    function = node.child_by_field_name("function") if node.type == "call" else None
    return function is not None and function.type == "attribute" and \
        text(data, function.child_by_field_name("attribute")) not in _OWN
