"""Stage 3, reading a tree: gzip inflated and tar members streamed, never extracted.

In: the bytes of a ``.tar.gz`` (``tarball``: verify, stream; over ``inflate`` and ``tarstream``,
with ``tarfields``, ``tarrun`` and ``sparse``). Out: ``entries.Entry`` pairs, a member and its
content in chunks: the one stream every source of a tree yields (a git tree and a folder give
the same), held to the limits against hostile archives (``limits``). ``fetch`` verifies what it
downloads with this reader, so this package sits beneath ``fetch`` in the imports though it
reads what ``fetch`` brings.
"""
