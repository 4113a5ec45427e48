"""The stages strung together: what ``census run``, ``count``, ``probe-registry``, ``history``, ``timeline`` do.

In: a manifest, local paths, a registry, or a published count. Out: rows in the census
database, one per repository, package, commit or period, each with its outcome or the reason it was
skipped (``census``, with ``runner`` for worker processes or a Dask cluster; ``inputs``;
``probe_registry``; ``history``; ``timeline`` over ``periods``). Progress goes to a
``pipeline.progress.Observer``.
"""
