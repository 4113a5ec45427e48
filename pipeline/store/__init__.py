"""Stage 5, keeping what was found: the census database (DuckDB).

In: the scan's ``TreeScan`` per snapshot (``database.Store``), runtime captures (``runtime``),
counts along a git history (``history``) and a timeline's scans and periods (``timeline``). Out: the
tables and views of ``schema``, and open dumps of them as Parquet or CSV (``export``).
"""
