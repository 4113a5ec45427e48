"""Stage 4, what a tree holds: one pass over its entries, whatever their source.

In: a stream of ``pipeline.archive.entries.Entry`` pairs. Out: a ``tree.TreeScan``: the non-zero
term counts (``count``, with ``match`` and ``factored`` for hyperscan), the role of every counted
path (``roles``), tree notes (``notes``) and the registration detector's rows (``detect``).
``history`` counts the terms at every commit of a git history, reading each blob once.

``SCANNER_VERSION`` changes whenever a scanner could count differently; a snapshot scanned
by another version is scanned again (from the cache, without downloading).
"""

SCANNER_VERSION = "26"  # 2: the registration detector runs in the same pass; 3: tree notes;
# 4: wrappers of wrappers, mirrored Go types, TypeScript lists it cannot follow;
# 5: TypeScript tools written as classes, hints assigned after the object is made;
# 6: hints a wrapper takes as parameters, records of definitions a tools/list handler lists,
# Python definition objects and plain wrapper calls, registrars a factory returns, client-side Java
# 7: every hint of an annotations object we cannot read is dynamic, MCP Apps' registerAppTool,
# Go hints assigned after NewTool and builder mirrors, Ruby Class.new(MCP::Tool), TypeScript loops
# over destructured elements and aliased imports, C# constants read from their own file first
# 8: every tool and every counted file has a role (server, example, test, docs), decided with the
# entry's server_paths
# 9: registrations on a server a function is given (Python, TypeScript), protocol-shaped Tool literals
# in any language (literals)
# 10: Python names a project function builds (python_evaluate), Tool literals in languages no detector
# parses and in JSON files code names, literals without a schema key that declare hints, FastMCP's
# private tool table, TypeScript lists made at run time, factories given a configuration object
# 11: evidence notes: the MCP SDKs the tree's manifests declare, the root README's pointer elsewhere
# 12: evidence notes of files using MCP as a client or serving prompts only, of a tree with no source,
# and the README pointer of a folder named for MCP; files naming the SDK's package are kept
# 13: a TypeScript tools/list answered from a class field code fills later is made at run time
# 14: package-repository notes: the repository the root's package.json or pyproject.toml names
# 15: Python tools named from tables of tuples a loop unpacks (python_tables); a lowerCamel folder ending
# in Tests is a name, not a test target (roles)
# 16: TypeScript enums name tools as the project's constants (name: ToolName.ECHO); tmcp (ts-tmcp)
# 17: methods of a project's subclass of McpServer that add tools (subclassed)
# 18: each tool says whether it is registered only under a configuration condition (detect.conditions)
# 19: TypeScript tool names a loop builds from a template over strings or an object's keys (templates)
# 20: a file naming inputSchema is kept (a tool object exported by a module of its own)
# 21: a proxy's tools/list destructured from a client's listTools() is one unnamed row made at run time
# 22: each server tool's handler located and read for its effects (tool_handlers, tool_effects, tool_verdicts)
# 23: handlers read in Rust; a server's tests never followed; methods handed to a call followed; an HTTP
# verb's constant passed down; a server's own cache writes set aside; typed function constants found
# 24: a built request's run (``.get(id).execute()``) is no verb of its own; of one effect on one line, the
# nearest and shortest call is the evidence, whatever order the tools are read in
# 25: conditions of a loop's registration (a filtered list, an early exit in its body), a check the
# condition calls, a function other files call only under a condition; servers mounted across
# modules (a project class's instances, a function's result, module attributes); names from a
# class's members elsewhere, settings at their defaults, a function's local list; names read
# from a method's answer are made at run time
# 26: TypeScript servers made in another module and imported, or destructured from a parameter; a
# subclass method taking the tool as one object; loops over instances a function returns, over an
# object's keys (keyed assignments, destructured members), FastMCP addTool in a loop; a handler's own
# list; Anthropic-format definitions where a module converts them; a list spreading a run-time
# registry is made at run time; literals typed as prompts or resources are no tools
