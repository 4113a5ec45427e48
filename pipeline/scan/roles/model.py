"""The roles of the census and the value that says which rule decided one."""

from __future__ import annotations

from dataclasses import dataclass

SERVER, EXAMPLE, TEST, DOCS = "server", "example", "test", "docs"
#: the roles of a term match, and (``TOOL_ROLES``) of a tool
ROLES = (SERVER, EXAMPLE, TEST, DOCS)
TOOL_ROLES = (SERVER, EXAMPLE, TEST)
DEFAULT_RULE = "default"


@dataclass(frozen=True)
class Role:
    """The role of one file (or one tool) and the rule that decided it."""

    role: str
    """one of ``ROLES``."""
    rule: str
    """``folder:tests/``, ``file:*_test.go``, ``project:<file>``, ``content:cfg(test)``,
    ``extension:.md``, ``server_paths:<path>`` or ``default``."""


SERVER_ROLE = Role(SERVER, DEFAULT_RULE)
