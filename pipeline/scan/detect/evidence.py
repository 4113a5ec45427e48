"""Evidence of what a tree is, for a tree that defines no tool: notes the detector adds to the scan's.

- ``mcp-sdk``: each MCP SDK a package manifest declares (path: the manifest's folder, ``.`` at
  the root; detail ``sdk: package version``);
- ``mcp-client``: a file outside tests that uses MCP as a client (imports an SDK's client API: a
  chat app, an inspector, a proxy that relays another server's tools), the first ``MAX_FILES``;
- ``mcp-prompts``: a file that serves prompts or resources but registers no tool (a server of
  something other than tools), the first ``MAX_FILES`` of them;
- ``no-source``: the tree holds no source file of a language the detectors parse: docs, images
  and configuration only.

Reports read them to say why a tree shows no tool (``pipeline.analysis.coverage``); they change no count.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pipeline.scan.detect.deps import Dependencies
from pipeline.scan.detect.paths import in_tests
from pipeline.scan.detect.sdks import SDKS
from pipeline.scan.detect.source import SourceFile

Note = tuple[str, str, str]
#: most files noted per kind
MAX_FILES = 5
#: imports of an MCP SDK's client API, per language (the matched text is the note's detail)
_CLIENT = re.compile(
    rb"@modelcontextprotocol/sdk/client[\w/.-]*|\bfrom\s+mcp(?:\.client[\w.]*)?\s+import\s+[^\n]*\bClientSession\b"
    rb"|\bfrom\s+mcp\.client[\w.]*\s+import|\bfrom\s+fastmcp(?:\.client)?\s+import\s+[^\n]*\bClient\b"
    rb"|mark3labs/mcp-go/client\b|\bmcp\.NewClient\(")
#: what a file must hold (lower-cased) before ``_CLIENT`` / ``_PROMPTS`` are tried: plain searches are faster
_CLIENT_WORDS = (b"sdk/client", b"clientsession", b"mcp.client", b"import client", b"mcp-go/client",
                 b"mcp.newclient")
_PROMPT_WORDS = (b".prompt(", b".resource(", b"listpromptsrequestschema", b"listresourcesrequestschema",
                 b"registerprompt(", b"registerresource(", b".list_prompts(")
#: prompt or resource registrations: decorators, handlers and SDK calls
_PROMPTS = re.compile(rb"@\w+\.(?:prompt|resource)\(|ListPromptsRequestSchema|ListResourcesRequestSchema"
                      rb"|\.(?:registerPrompt|registerResource)\(|@\w+\.list_prompts\(")


def sdk_notes(dependencies: Dependencies) -> list[Note]:
    """One ``mcp-sdk`` note per MCP SDK package a manifest of the tree declares, by ecosystem."""
    found = {(dep.directory or ".", "mcp-sdk", f"{sdk.key}: {dep.name} {dep.version or ''}".rstrip())
             for sdk in SDKS.values() if sdk.is_mcp and sdk.packages for dep in dependencies.declaring(sdk.packages)
             if sdk.language in dep.languages}
    return sorted(found)


def usage_notes(files: Iterable[SourceFile]) -> list[Note]:
    """``mcp-client`` and ``mcp-prompts`` notes for the kept files (see the module)."""
    clients: list[Note] = []
    prompts: list[Note] = []
    for file in sorted(files, key=lambda f: f.path):
        lower = file.lower
        if len(clients) < MAX_FILES and any(w in lower for w in _CLIENT_WORDS) and not in_tests(file.path) and \
                (found := _CLIENT.search(file.data)):
            clients.append((file.path, "mcp-client", found.group(0).decode("utf-8", "replace").strip()[:120]))
        if len(prompts) < MAX_FILES and any(w in lower for w in _PROMPT_WORDS) and \
                (found := _PROMPTS.search(file.data)):
            prompts.append((file.path, "mcp-prompts", found.group(0).decode("utf-8", "replace")))
    return [*clients, *prompts]


def no_source_note(sources: int) -> list[Note]:
    """The ``no-source`` note when the tree held no source file of a parsed language."""
    return [(".", "no-source", "no source file of a language the detector parses")] if not sources else []
