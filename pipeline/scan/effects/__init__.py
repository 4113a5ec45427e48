"""What each tool can do: its handler located and read for the calls that leave the process.

In: the tools the registration detector found in one tree (``pipeline.scan.detect.Tool``) and
the
tree's source files (``shelf.Shelf``, kept during the same scan pass). Out
(``analysis.analyse``): one ``ToolEffects`` per
MCP tool of a followed language (TypeScript/JavaScript, Python, Go): where its handler is
(``handlers``) and each effect reachable from it (``follow``, ``classify``, by the knowledge of
``knowledge/``), with its evidence. ``verdicts`` holds the effects against what the tool declares.
"""

from __future__ import annotations

from pipeline.scan.effects.model import Effect, Handler, ToolEffects

__all__ = ["Effect", "Handler", "ToolEffects"]
