"""The exception tree of the census pipeline.

Every error the library raises on purpose derives from :class:`CensusError`, and every
message names its unit: the manifest file and entry number, or the repository and commit.
The CLI turns these into exit codes in one place (``pipeline.cli.main``)::

    CensusError
    ├── ManifestError          bad manifest: file, entry number, what is wrong   (exit 2)
    ├── RegistryDumpError      bad registry dump: file, page and item, what is wrong (exit 2)
    ├── SourceError            one repository could not be pinned, fetched or read
    │   ├── NotFoundError      the repository, ref or commit does not exist
    │   ├── RateLimitError     rate limited for longer than the allowed wait
    │   ├── TransportError     network failures that outlasted every retry; an unknown host
    │   ├── GraphQLUnavailableError   no GraphQL endpoint there, or the token refused: pin by REST
    │   └── ArchiveError       the archive is not a valid gzip/tar stream, or is corrupt
    │       └── ArchiveLimitError   over a limit (bytes, members): final, never retried
    ├── SettingsError          an environment variable that cannot be used     (exit 1)
    ├── KnowledgeError         a file of the effects knowledge cannot be read (exit 1)
    ├── CheckPathError         census check: the path cannot be read          (exit 1)
    └── StoreError             the DuckDB database cannot be opened or written  (exit 1)
        └── StoreLockedError   another census process holds the database

A :class:`SourceError` never stops a census: the stage that catches it records the
repository as a skipped row with ``str(error)`` as its reason.
"""

from __future__ import annotations


class CensusError(Exception):
    """Base of every error the census raises on purpose."""


class ManifestError(CensusError):
    """A manifest that cannot be used; the message names the file and the entry."""


class RegistryDumpError(CensusError):
    """A registry dump (``census discover --registry-file``) that cannot be read; the message names
    the file, and the page and item."""


class SourceError(CensusError):
    """One repository could not be pinned, fetched or read; it becomes a skipped row."""


class NotFoundError(SourceError):
    """The repository, ref or commit does not exist (HTTP 404, unknown git object)."""


class RateLimitError(SourceError):
    """The API asked us to wait longer than the configured maximum, or the run's wait budget is
    spent; ``note``, when given, is a line worth printing once (the budget was just spent)."""

    def __init__(self, message: str, note: str | None = None) -> None:
        super().__init__(message)
        self.note = note


class TransportError(SourceError):
    """Network failures (5xx, resets, truncated bodies) that outlasted every retry, or a host
    name that does not exist (DNS says so: not retried)."""


class GraphQLUnavailableError(SourceError):
    """The GraphQL endpoint answered 401 or 404: pins are resolved by REST instead."""


class ArchiveError(SourceError):
    """An archive whose gzip or tar framing is broken, or whose checksum does not match."""


class ArchiveLimitError(ArchiveError):
    """An archive over a configured limit (``pipeline.settings.Limits``); downloading it again
    would not help, so it is never retried."""


class SettingsError(CensusError):
    """A setting taken from the environment that is not usable (e.g. a limit that is not a number)."""


class KnowledgeError(CensusError):
    """A file of the effects analysis's knowledge (``pipeline/scan/effects/knowledge``) is unreadable."""


class CheckPathError(CensusError):
    """``census check``: the path given is not a folder or archive that can be read."""


class StoreError(CensusError):
    """The DuckDB database cannot be opened or written."""


class StoreLockedError(StoreError):
    """Another process holds the database open for writing."""
