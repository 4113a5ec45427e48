"""Reading one Go tool definition: an ``mcp.Tool{...}`` literal or an ``mcp.NewTool(...)`` call.

The result is a ``Reading``: the tool's name, tool-level title and annotations as written, the
preset it used, and (inside a wrapper's body) the fields that come from the wrapper's parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from pipeline.scan.detect.golang.scope import Param, Scope
from pipeline.scan.detect.golang.syntax import Node, arguments, callee, literal_fields, qualified, strip_address, unwrap
from pipeline.scan.detect.model import DYNAMIC, NO_ANNOTATIONS, TRUE, UNSET, Annotations, hint_field

ANNOTATION_TYPES = ("ToolAnnotations", "ToolAnnotation")
#: mcp-go option helpers besides the hint helpers
WITH_STRUCT, WITH_TITLE, WITH_TOOL_TITLE = "WithToolAnnotation", "WithTitleAnnotation", "WithToolTitle"


@dataclass(frozen=True)
class Reading:
    """A tool definition as written, before it becomes a ``Tool`` row."""

    name: str | None
    annotations: Annotations = NO_ANNOTATIONS
    tool_title: str | None = None
    preset: str | None = None
    """the shared annotations object or helper used, when one was followed."""
    holes: tuple[tuple[str, int], ...] = ()
    """(field, parameter index) for fields a wrapper's caller supplies: ``name``, ``tool_title``,
    ``title``, ``annotations`` or a canonical hint field."""


@dataclass
class _Builder:
    name: str | None = None
    annotations: Annotations = NO_ANNOTATIONS
    tool_title: str | None = None
    preset: str | None = None
    holes: dict[str, int] = field(default_factory=dict)

    def done(self) -> Reading:
        return Reading(self.name, self.annotations, self.tool_title, self.preset, tuple(self.holes.items()))

    def source(self, source: str) -> None:
        self.annotations = self.annotations.with_source(source)

    def hint(self, hint: str, value: str | Param) -> None:
        self.holes.pop(hint, None)
        if isinstance(value, Param):
            self.holes[hint] = value.index
        else:
            self.annotations = self.annotations.with_hint(hint, value)

    def title(self, value: str | Param | None) -> None:
        self.holes.pop("title", None)
        if isinstance(value, Param):
            self.holes["title"] = value.index
        else:
            self.annotations = replace(self.annotations, title=value, title_state=DYNAMIC if value is None else TRUE)


def is_annotation_literal(scope: Scope, node: Node | None) -> bool:
    """Whether ``node`` (after ``&``) is a ``pkg.ToolAnnotations{}`` / ``pkg.ToolAnnotation{}`` literal."""
    node = strip_address(node)
    if node is None or node.type != "composite_literal":
        return False
    found = qualified(scope.file, node.child_by_field_name("type"))
    return found is not None and found[0] in scope.imports.tools and found[1] in ANNOTATION_TYPES


def read_annotation_literal(scope: Scope, node: Node, source: str) -> Reading:
    """The fields of an annotations literal (``node`` is the literal, or ``&`` of it)."""
    built = _Builder()
    _fill_fields(scope, strip_address(node), built, source)
    return built.done()


def _fill_fields(scope: Scope, literal: Node | None, built: _Builder, source: str) -> None:
    built.annotations = Annotations(source=source)
    body = literal.child_by_field_name("body") if literal is not None else None
    for key, value in literal_fields(scope.file, body).items():
        if key == "Title":
            built.title(scope.string(value))
        elif (hint := hint_field(key)) is not None:
            built.hint(hint, scope.boolean(value))


def _annotations(scope: Scope, node: Node | None, built: _Builder) -> None:
    """Read an ``Annotations:`` value or ``WithToolAnnotation`` argument into ``built``."""
    built.preset = None
    for hole in ("title", "annotations", "read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"):
        built.holes.pop(hole, None)
    target = strip_address(node)
    if target is None or scope.file.text(target) == "nil":
        built.annotations = NO_ANNOTATIONS
    elif is_annotation_literal(scope, target):
        _fill_fields(scope, target, built, "inline")
    elif target.type == "identifier" and scope.file.text(target) in scope.params:
        built.annotations = Annotations(source=DYNAMIC)
        built.holes["annotations"] = scope.params[scope.file.text(target)]
    elif (name := _preset_name(scope, target)) is not None:
        built.annotations, built.preset = scope.presets[name].with_source(f"preset:{name}"), name
    else:
        built.annotations = Annotations(source=DYNAMIC)


def reassigned(scope: Scope, reading: Reading, value: Node) -> Reading:
    """``reading`` with its annotations replaced by a later ``tool.Annotations = value``."""
    built = _Builder(reading.name, reading.annotations, reading.tool_title, reading.preset, dict(reading.holes))
    _annotations(scope, value, built)
    return built.done()


def _preset_name(scope: Scope, node: Node) -> str | None:
    if node.type == "call_expression":
        node = node.child_by_field_name("function") or node
    if node.type == "selector_expression":
        node = node.child_by_field_name("field") or node
    name = scope.file.text(node)
    return name if node.type in ("identifier", "field_identifier") and name in scope.presets else None


def read_tool_literal(scope: Scope, body: Node) -> Reading:
    """A ``Tool{...}`` literal (go-sdk or mcp-go): ``Name``, ``Title`` and ``Annotations`` fields."""
    built = _Builder()
    fields = literal_fields(scope.file, body)
    _string(built, "name", scope.string(fields.get("Name")))
    _string(built, "tool_title", scope.string(fields.get("Title")))
    if "Annotations" in fields:
        _annotations(scope, fields["Annotations"], built)
    return built.done()


def _string(built: _Builder, name: str, value: str | Param | None) -> None:
    if isinstance(value, Param):
        built.holes[name] = value.index
    else:
        setattr(built, name, value)


def read_new_tool(scope: Scope, call: Node) -> Reading:
    """``mcp.NewTool(name, opts...)`` of mcp-go, its annotation options applied in order."""
    built = _Builder()
    args = arguments(call)
    _string(built, "name", scope.string(args[0]) if args else None)
    for option in args[1:]:
        _option(scope, unwrap(option), built)
    return built.done()


def _option(scope: Scope, option: Node | None, built: _Builder) -> None:
    if option is None or option.type != "call_expression":
        return
    package, helper = callee(scope.file, option)
    if package is None or (scope.imports.tools.get(package) != "go-mcp-go" and package not in scope.imports.builders):
        return
    args = arguments(option)
    value = args[0] if args else None
    if helper == WITH_STRUCT:  # replaces the whole pre-filled struct
        _annotations(scope, value, built)
        return
    if helper == WITH_TOOL_TITLE:
        _string(built, "tool_title", scope.string(value))
        return
    hint = hint_field(helper) if helper.endswith("Annotation") else None
    if helper != WITH_TITLE and hint is None:
        return
    if not built.annotations.declared:
        built.source("options")
    if hint is None:
        built.title(scope.string(value))
    else:
        built.hint(hint, scope.boolean(value))


def read_raw_schema(scope: Scope, call: Node) -> Reading:
    """``mcp.NewToolWithRawSchema(name, description, schema)``: no options, no annotations."""
    built = _Builder()
    args = arguments(call)
    _string(built, "name", scope.string(args[0]) if args else None)
    return built.done()


def fill(reading: Reading, scope: Scope, args: list[Node], options: int | None = None) -> Reading:
    """A wrapper's reading completed with one call's arguments; the mcp-go option helpers passed
    from position ``options`` on (a ``...mcp.ToolOption`` parameter) are applied in order. In a
    scope with parameters (a wrapper of this wrapper), an argument naming one leaves a hole."""
    built = _Builder(reading.name, reading.annotations, reading.tool_title, reading.preset)
    holes = dict(reading.holes)
    if "annotations" in holes:
        _annotations(scope, _arg(args, holes.pop("annotations")), built)
    for name, index in holes.items():
        arg = _arg(args, index)
        if name in ("name", "tool_title"):
            _string(built, name, scope.string(arg))
        elif name == "title":
            built.title(scope.string(arg))
        else:
            built.hint(name, scope.boolean(arg) if arg is not None else UNSET)
    for option in args[options:] if options is not None else ():
        _option(scope, unwrap(option), built)
    return built.done()


def _arg(args: list[Node], index: int) -> Node | None:
    return args[index] if index < len(args) else None
