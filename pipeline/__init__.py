"""mcp-annotation-census: reproducible counts of MCP tool annotations in public code.

Stages, one module each: ``manifest`` -> ``source`` (``fetch`` + ``cache`` for GitHub,
``archive`` and ``gitrepo`` for reading trees) -> ``scan`` -> ``store`` (DuckDB);
``census`` strings them together and ``cli`` is the ``census`` command.
"""

__version__ = "0.1.0"
