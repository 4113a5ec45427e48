"""Stage 1, what to count: manifests, term sets, and the manifests discovery builds.

In: a TOML manifest (``manifests``, each entry read by ``entries``), or the MCP registry's API or
a dump of it (``discover``, ``registry_dump``). Out: a frozen ``Manifest`` of ``RepoEntry`` rows,
each naming a repository, the commit to count at and the published figures to hold it against,
and the term sets (``terms``) the byte counter looks for.
"""
