"""``sdk_server``'s tools over Streamable HTTP on a loopback port the operating system picks.

Prints ``PORT <n>`` on stdout once the socket listens, then serves ``/mcp`` until killed.
"""

from __future__ import annotations

import socket

import anyio
import uvicorn
from sdk_server import server


async def main() -> None:
    """Bind first (no race for a port), announce it, then serve."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning", lifespan="on")
    await uvicorn.Server(config).serve(sockets=[listener])


if __name__ == "__main__":
    anyio.run(main)
