"""FastMCP servers mounted on another: the namespace a client sees their tools under.

``main.mount(weather, namespace="wx")`` (``prefix=`` before FastMCP 2.9, ``mount("wx", weather)``
in its first releases) and ``main.import_server(weather, prefix="wx")`` (``import_server("wx",
weather)`` before 2.9) serve each tool of ``weather`` as ``wx_<name>``. ``Mounts`` learns these
calls in phase 1 and, for a registration, gives the namespace: a literal string, ``""`` when it is
an expression the source cannot give (the name is then ``dynamic``), ``None`` when the server is
mounted with none (or not at all).

What is mounted is found in any module of the tree:

- a module-level server object, named in the calling file or imported (``from .weather import
  weather``, ``from app import weather`` then ``weather.server``);
- an instance of the project's own class (``ItemServer()`` or ``sub = ItemServer()`` then
  ``mount(sub, ...)``): its tools are those it registers on ``self``;
- what a project function returns (``mount(make_items(), ...)``): its tools are those registered
  inside that function.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.scan.detect.python.scope import Node, Scope, keywords, module_paths, positionals, string_value, text

#: how a namespace that is no literal is kept: the name is ``dynamic``
UNKNOWN_NAMESPACE = ""


@dataclass(frozen=True)
class Mounted:
    """One server mounted under a namespace: an object, a class's instances or a function's result."""

    kind: str
    """``object`` (a module-level name), ``class`` (the project's class) or ``function`` (its result)."""
    name: str
    paths: tuple[str, ...]
    """the files the object's module may be (``object``); empty when any file may define it."""
    namespace: str


@dataclass
class Mounts:
    """Every mount of a server the tree makes."""

    found: list[Mounted] = field(default_factory=list)
    instances: dict[tuple[str, str], str] = field(default_factory=dict)
    """(file, name) -> the project class a module-level name is an instance of (``sub = ItemServer()``)."""

    def instance(self, path: str, name: str, class_name: str) -> None:
        """Remember that the name ``name`` of the file ``path`` is made by calling ``class_name``."""
        self.instances[path, name] = class_name

    def learn(self, path: str, data: bytes, scope: Scope, call: Node) -> None:
        """Record one ``mount`` / ``import_server`` call of the file ``path``."""
        args = call.child_by_field_name("arguments")
        given, first = keywords(data, args), positionals(args)
        server, namespace = (first[1] if len(first) > 1 else None, first[0]) if first and first[0].type == "string" \
            else (first[0] if first else given.get("server"), first[1] if len(first) > 1 else None)
        namespace = namespace or given.get("namespace") or given.get("prefix")
        if server is None or namespace is None or namespace.type == "none":
            return
        value = string_value(data, namespace) or UNKNOWN_NAMESPACE
        mounted = self._what(path, data, scope, server)
        if mounted is not None:
            self.found.append(Mounted(mounted[0], mounted[1], mounted[2], value))
        if server.type == "identifier" and (path, text(data, server)) in self.instances:  # and its class's
            self.found.append(Mounted("class", self.instances[path, text(data, server)], (), value))

    def _what(self, path: str, data: bytes, scope: Scope, server: Node) -> tuple[str, str, tuple[str, ...]] | None:
        if server.type == "call":  # ItemServer() or make_items(): a class's instance or a function's result
            function = server.child_by_field_name("function")
            name = text(data, function).rsplit(".", 1)[-1] if function is not None else ""
            return ("class" if name[:1].isupper() else "function", name, ()) if name.isidentifier() else None
        if server.type not in ("identifier", "attribute"):
            return None
        name = text(data, server)
        qualified = scope.qualify(server) if server.type == "attribute" else scope.imports.get(name)
        if server.type == "attribute" and qualified is None:
            return None
        module, _, attribute = (qualified or "").rpartition(".")
        paths = module_paths(module, path) if qualified else (path,)
        return "object", attribute if qualified else name, paths

    def namespace(self, path: str, name: str, owner: str | None = None, function: str | None = None) -> str | None:
        """The namespace the tools registered on ``name`` in the file ``path`` are served under: the
        object's own, else (on ``self``) that of the class ``owner`` the registration is in, else that of
        the function ``function`` it is in (see the module)."""
        for mounted in self.found:
            if mounted.kind == "object" and mounted.name == name and any(
                    path == p or path.endswith("/" + p) for p in mounted.paths):
                return mounted.namespace
            if mounted.kind == "class" and name == "self" and mounted.name == owner:
                return mounted.namespace
            if mounted.kind == "function" and function is not None and mounted.name == function:
                return mounted.namespace
        return None
