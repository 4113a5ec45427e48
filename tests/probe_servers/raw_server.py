"""A hand-written JSON-RPC MCP server (no SDK), for answers an SDK would never send.

``python raw_server.py MODE``, where MODE is:

- ``odd``: a banner line that is not JSON, then two pages of tools whose hints are not
  booleans (``"yes"``, ``null``, ``1``), an annotations value that is not an object, and an
  empty annotations object;
- ``loop``: every tools/list page points to the same ``nextCursor`` again;
- ``error``: tools/list is answered with a JSON-RPC error;
- ``stall``: answers initialize, never tools/list;
- ``crash``: answers initialize, then dies on tools/list with a message on stderr (naming
  the value of ``CENSUS_TEST_TOKEN``, if set, as a careless server would);
- ``silent``: never answers anything; starts a child process first and writes its pid to the
  file named by the second argument, so a test can check the probe killed the whole tree.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

ODD_PAGES: dict[str | None, dict[str, Any]] = {
    None: {"tools": [
        {"name": "odd_values", "inputSchema": {"type": "object"},
         "annotations": {"title": 7, "readOnlyHint": "yes", "destructiveHint": None, "idempotentHint": 1,
                         "openWorldHint": False}},
        {"name": "not_an_object", "inputSchema": {"type": "object"}, "annotations": "read-only"},
    ], "nextCursor": "page-2"},
    "page-2": {"tools": [{"name": "empty_annotations", "title": "Empty", "inputSchema": {"type": "object"},
                          "annotations": {}}]},
}


def answer(mode: str, request: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON-RPC response to ``request`` in ``mode`` (None for a notification)."""
    method, params = request.get("method"), request.get("params") or {}
    if "id" not in request:
        return None
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request["id"]}
    if method == "initialize":
        reply["result"] = {"protocolVersion": params["protocolVersion"], "capabilities": {"tools": {}},
                           "serverInfo": {"name": f"census-probe-raw-{mode}", "version": "0.0.1"}}
    elif method == "tools/list" and mode == "odd":
        reply["result"] = ODD_PAGES[params.get("cursor")]
    elif method == "tools/list" and mode == "loop":
        reply["result"] = {"tools": [{"name": "again", "inputSchema": {"type": "object"}}], "nextCursor": "again"}
    elif method == "tools/list" and mode == "stall":
        return None
    elif method == "tools/list" and mode == "crash":
        token = os.environ.get("CENSUS_TEST_TOKEN")
        print("RuntimeError: tool registry failed to load" + (f" (token {token})" if token else ""),
              file=sys.stderr, flush=True)
        sys.exit(3)
    else:
        reply["error"] = {"code": -32601, "message": f"Method not found: {method}"}
    return reply


def silent(pid_file: str) -> None:
    """Start a child that outlives us unless the probe kills the tree, then never answer."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    with open(pid_file, "w", encoding="utf-8") as out:
        out.write(str(child.pid))
    for _line in sys.stdin:
        pass
    time.sleep(300)


def main() -> None:
    """Answer one JSON-RPC message per line of stdin."""
    mode = sys.argv[1]
    if mode == "silent":
        silent(sys.argv[2])
    if mode == "odd":
        print("odd server ready (a banner, not JSON-RPC)", flush=True)
    for line in sys.stdin:
        reply = answer(mode, json.loads(line))
        if reply is not None:
            print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
