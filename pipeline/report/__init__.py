"""Stage 7, the reports: Markdown pages, matplotlib charts and the data behind them.

In: the frames of ``pipeline.analysis``. Out: a report folder, ``README.md`` with its PNG
charts and its data as Parquet, which rebuilds byte for byte from that data: one manifest's
census (``census``, ``markdown``, ``runtime``, ``data``) or a population's (``population`` and
its ``population_*`` parts, ``timeline_plots`` for its timeline); ``plots`` and ``tables`` serve the
notebooks too.
"""
