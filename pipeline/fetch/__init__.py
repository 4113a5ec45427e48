"""Stage 2, getting a tree: the GitHub client, the verified cache and the sources of a tree.

In: a manifest entry. Out: an ``ArchiveSource`` (``source``) whose entries the scan reads: a
GitHub archive downloaded once into the verified cache (``github``, ``http``, ``ratelimit``,
``cache``), a commit pinned through REST or GraphQL (``pinning``, ``graphql``), a local tarball,
or a local git repository or mirror (``gitrepo``, ``mirrors``).
"""
