"""Stage 4b, runtime truth: what a running server answers to ``tools/list``.

In: a command or URL (``probe``, over ``wire`` and ``session``), or a registry package
(``packages``, ``package_index``, ``package_metadata``) installed and started in a sandbox
(``installer``, ``interpreters``, ``sandbox``). Out: a ``Capture`` of the answer, read as one
row per tool (``ingest``), which ``pipeline.store.runtime`` keeps beside the tools found in source.
"""
