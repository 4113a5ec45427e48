"""mcp-annotation-census: reproducible counts of MCP tool annotations in public code.

One package per stage, in the order the data flows: ``manifest`` -> ``fetch`` (GitHub, the
verified cache, local sources) -> ``archive`` (tar.gz streamed) -> ``scan`` (the byte counter and
the registration detector) -> ``store`` (DuckDB) -> ``analysis`` (polars) -> ``report``;
``runtime`` captures running servers' tools, ``run`` strings the stages together and ``cli`` is
the ``census`` command. What every stage shares stays here: ``settings``, ``errors``,
``progress``. docs/ARCHITECTURE.md has the whole picture.
"""

__version__ = "0.1.0"
