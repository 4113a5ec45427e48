"""Lists of tools a TypeScript/JavaScript server makes when it runs: a registration looping over a
method's answer (``for (const t of (await client.listTools()).tools) server.tool(t.name, ...)``)
names its tools at run time (rule ``-dynamic``), which no reading of the source gives."""

from __future__ import annotations

from pipeline.scan.detect.typescript.lists import top_level_value
from pipeline.scan.detect.typescript.loops import loop_list
from pipeline.scan.detect.typescript.resolver import Resolver
from pipeline.scan.detect.typescript.values import Ref, unwrap


def run_time_list(res: Resolver, call: Ref) -> bool:
    """Whether the list a registration loops over is made when the server runs: a method's answer
    (``(await client.listTools()).tools``, ``remote.tools()``), awaited or held in a name, not a list
    of the source nor a project function's (``getTools()``, which may return one it does not follow)."""
    loop = loop_list(call)
    if loop is None:
        return False
    listed = res.resolve(loop[1])[0]
    target, hops = unwrap(listed.node), 0
    while hops < 8 and target.type in ("member_expression", "await_expression", "parenthesized_expression",
                                       "identifier") and (target.named_children or target.type == "identifier"):
        hops += 1
        if target.type == "identifier":  # const remote = await client.listTools(); remote.tools
            resolved = res.resolve(listed.at(target))[0]
            if resolved.node == target:
                resolved = top_level_value(listed.at(target)) or resolved
            if resolved.node == target:
                break
            listed, target = resolved, unwrap(resolved.node)
            continue
        target = unwrap(target.child_by_field_name("object") or target.named_children[0])
    function = target.child_by_field_name("function") if target.type == "call_expression" else None
    method = function.child_by_field_name("property") if function is not None else None
    receiver = function.child_by_field_name("object") if function is not None else None
    return method is not None and receiver is not None and listed.file.text(method) not in _LISTING \
        and listed.file.text(receiver) not in ("Object", "Array", "JSON")


#: methods of a list or object in the process: a list they give is the source's, filtered or mapped
_LISTING = frozenset({"map", "filter", "concat", "slice", "flat", "flatMap", "sort", "toSorted", "values", "entries",
                      "keys", "from", "reverse", "splice"})
