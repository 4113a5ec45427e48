"""The dates a timeline of annotations is read against: the specification that brought tool annotations,
and the SDK releases that first shipped them, each as its own repository says (docs/SDK-RELEASES.md
lists them with the text and place that say so).

Only what could be confirmed is here: a release whose version or date no text of its SDK gave is
left out (the note says which and why). ``timeline_events`` is the frame the report draws.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import polars as pl


@dataclass(frozen=True)
class Event:
    """A dated change a timeline is read against."""

    on: date
    """the date (for ``bound``: the latest date the text allows)."""
    what: str
    """the specification or the SDK (its repository)."""
    version: str
    source: str
    """where it says so: repository and file, or the release notes and where they are quoted."""
    bound: bool = False
    """whether ``on`` is a bound (no later than), not the day itself."""


#: the specification's revision, then each SDK's first release with tool annotations, by date
EVENTS = (
    Event(date(2025, 3, 26), "MCP specification", "2025-03-26",
          "modelcontextprotocol/modelcontextprotocol: docs/specification/2025-03-26/server/tools.mdx "
          "(Protocol Revision 2025-03-26; a Tool has `annotations`)"),
    Event(date(2025, 5, 2), "python-sdk (mcp)", "1.7.0",
          "modelcontextprotocol/python-sdk release v1.7.0, section Tool Annotations: \"Add ToolAnnotations "
          "support in FastMCP and lowlevel servers\" (#482), as quoted in dapr/dapr-agents#114; no later than "
          "2025-05-02, when PrefectHQ/fastmcp#298 moved to 1.7.1", bound=True),
    Event(date(2025, 5, 3), "fastmcp (jlowin)", "2.2.7",
          "jlowin/fastmcp docs/changelog.mdx, v2.2.7: \"Add support for tool annotations\" (#299); the page "
          "dates it 2024-05-03, a slip for 2025: the same release moves to mcp 1.7.1"),
)


def timeline_events() -> pl.DataFrame:
    """``EVENTS`` as a frame: date, what, version, source, bound."""
    return pl.DataFrame({"date": [e.on for e in EVENTS], "what": [e.what for e in EVENTS],
                         "version": [e.version for e in EVENTS], "source": [e.source for e in EVENTS],
                         "bound": [e.bound for e in EVENTS]},
                        schema={"date": pl.Date, "what": pl.String, "version": pl.String, "source": pl.String,
                                "bound": pl.Boolean})
