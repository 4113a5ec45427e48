"""FastMCP servers mounted on another: the namespace a client sees their tools under.

``main.mount(weather, namespace="wx")`` (``prefix=`` before FastMCP 2.9, ``mount("wx", weather)``
in its first releases) and ``main.import_server(weather, prefix="wx")`` serve each tool of
``weather`` as ``wx_<name>``. ``Mounts`` learns these calls in phase 1 and, for a registration on
a module-level server object, gives the namespace: a literal string, ``""`` when it is an expression
the source cannot give (the name is then ``dynamic``), ``None`` when the object is mounted with
none (or not at all). The object is the one the call's argument names: defined in the calling file,
or imported from a module of the tree (``from .weather import weather``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.scan.detect.python.scope import Node, Scope, keywords, module_paths, positionals, string_value, text

#: how a namespace that is no literal is kept: the name is ``dynamic``
UNKNOWN_NAMESPACE = ""


@dataclass
class Mounts:
    """Every mount of a module-level server object the tree makes."""

    found: list[tuple[tuple[str, ...], str, str]] = field(default_factory=list)
    """(paths the object's module may be, the object's name, namespace or ``UNKNOWN_NAMESPACE``)."""

    def learn(self, path: str, data: bytes, scope: Scope, call: Node) -> None:
        """Record one ``mount`` / ``import_server`` call of the file ``path``."""
        args = call.child_by_field_name("arguments")
        given, first = keywords(data, args), positionals(args)
        server, namespace = (first[1] if len(first) > 1 else None, first[0]) if first and first[0].type == "string" \
            else (first[0] if first else given.get("server"), first[1] if len(first) > 1 else None)
        namespace = namespace or given.get("namespace") or given.get("prefix")
        if server is None or server.type != "identifier" or namespace is None or namespace.type == "none":
            return
        name = text(data, server)
        qualified = scope.imports.get(name)
        module, _, attribute = (qualified or "").rpartition(".")
        paths = module_paths(module, path) if qualified else (path,)
        value = string_value(data, namespace)
        self.found.append((paths, attribute if qualified else name, value if value else UNKNOWN_NAMESPACE))

    def namespace(self, path: str, name: str) -> str | None:
        """The namespace the object ``name`` of the file ``path`` is mounted under (see the module)."""
        for paths, object_name, namespace in self.found:
            if object_name == name and any(path == p or path.endswith("/" + p) for p in paths):
                return namespace
        return None
