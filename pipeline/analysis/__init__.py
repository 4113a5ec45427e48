"""Stage 6, the statistics: polars frames read from the census database, never written back.

In: a census database (``frames`` opens it read-only and scopes it to a manifest). Out: the
frames reports and notebooks show, ``stats`` being the one entry they use: hint coverage,
effective hints (``hints``), caveats (``caveats``), the coverage of a population
(``coverage``, ``population``), hand audits (``audit``), runtime agreement (``runtime``,
``runtime_population``), counts along a history (``history``) and adoption over time (``timeline``).
"""
