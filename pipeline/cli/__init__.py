"""The ``census`` command: arguments in, one library call, tables and progress out.

``main`` parses and dispatches (``args``, ``commands``, ``history``, ``probe_registry``);
``console`` draws progress and ``tables`` prints results. Only this package writes to the
terminal, and it imports the stages lazily, so ``census --help`` loads neither DuckDB nor
polars. ``main`` turns the exception tree of ``pipeline.errors`` into exit codes, in one place.
"""
