"""A content-addressed cache of verified archives.

Layout under the cache folder::

    blobs/sha256/ab/abcdef....tar.gz            the archive, named by its sha256
    refs/<api host>/<owner>/<name>/<commit>.json  which blob holds that tree, with its root
    tmp/<pid>-<host>-....part                    downloads in progress (never read)

Only verified archives are moved into ``blobs/`` (atomically, by rename), so the cache
never holds a partial file under a final name. A lookup re-hashes the blob: a corrupt or
truncated entry is dropped and reported as absent, so it is fetched again. A download cut
short by a killed process stays in ``tmp/`` under its process id until the next download
(by any process) removes it: the ones of processes still running are left alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from pipeline.archive.tarball import ArchiveInfo


@dataclass(frozen=True)
class CachedArchive:
    """A verified archive in the cache."""

    path: Path
    """the blob file."""
    sha256: str
    """hex sha256 of the blob."""
    size_bytes: int
    """size of the blob."""
    root: str | None
    """top folder to strip from member paths."""
    fetched_at_utc: datetime
    """when it was downloaded."""


class ArchiveCache:
    """Verified archives keyed by content, found by (API host, repository, commit)."""

    def __init__(self, root: Path, api_url: str) -> None:
        self.root = root
        host = urlsplit(api_url).netloc or "local"
        self._refs = root / "refs" / host.replace(":", "_")

    def lookup(self, repo: str, commit: str) -> CachedArchive | None:
        """The cached archive of ``repo`` at ``commit`` if present and intact, else ``None``."""
        cached = self.locate(repo, commit)
        if cached is not None and _sha256(cached.path) != cached.sha256:
            self.drop(repo, commit)
            return None
        return cached

    def locate(self, repo: str, commit: str) -> CachedArchive | None:
        """The cached archive of ``repo`` at ``commit`` if recorded, without re-hashing it."""
        ref = self._ref_path(repo, commit)
        try:
            meta = json.loads(ref.read_text(encoding="utf-8"))
            cached = CachedArchive(
                path=self._blob_path(meta["sha256"]),
                sha256=meta["sha256"],
                size_bytes=int(meta["size_bytes"]),
                root=meta.get("root"),
                fetched_at_utc=datetime.fromisoformat(meta["fetched_at_utc"]),
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return cached if cached.path.is_file() else None

    def store(self, repo: str, commit: str, download: Path, info: ArchiveInfo) -> CachedArchive:
        """Move a verified ``download`` into the cache and record the ref, both atomically."""
        blob = self._blob_path(info.sha256)
        blob.parent.mkdir(parents=True, exist_ok=True)
        os.replace(download, blob)
        cached = CachedArchive(blob, info.sha256, info.size_bytes, info.root, datetime.now(UTC))
        meta = {
            "repo": repo,
            "commit": commit,
            "sha256": cached.sha256,
            "size_bytes": cached.size_bytes,
            "root": cached.root,
            "fetched_at_utc": cached.fetched_at_utc.isoformat(),
        }
        _write_atomic(self._ref_path(repo, commit), json.dumps(meta, indent=1) + "\n")
        return cached

    def drop(self, repo: str, commit: str) -> None:
        """Forget ``repo`` at ``commit`` and delete its blob (after a failed check)."""
        ref = self._ref_path(repo, commit)
        with suppress(OSError, ValueError, KeyError):
            self._blob_path(json.loads(ref.read_text(encoding="utf-8"))["sha256"]).unlink()
        ref.unlink(missing_ok=True)

    @contextmanager
    def download_file(self) -> Iterator[Path]:
        """A fresh temporary file inside the cache, removed unless moved away."""
        tmp = self.root / "tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        self.sweep()
        fd, name = tempfile.mkstemp(dir=tmp, prefix=f"{os.getpid()}-{HOST_TAG}-", suffix=".part")
        os.close(fd)
        try:
            yield Path(name)
        finally:
            Path(name).unlink(missing_ok=True)

    def sweep(self) -> list[Path]:
        """Remove the downloads left in ``tmp/`` by processes that are gone; the removed files."""
        gone = [part for part in (self.root / "tmp").glob("*.part") if not _owner_alive(part)]
        for part in gone:
            part.unlink(missing_ok=True)
        return gone

    def _ref_path(self, repo: str, commit: str) -> Path:
        return self._refs / repo.lower() / f"{commit}.json"

    def _blob_path(self, sha256: str) -> Path:
        if len(sha256) != 64 or not all(c in "0123456789abcdef" for c in sha256):
            raise ValueError("not a sha256")
        return self.root / "blobs" / "sha256" / sha256[:2] / f"{sha256}.tar.gz"


def _sha256(path: Path) -> str | None:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    except OSError:
        return None
    return digest.hexdigest()


#: this machine in the names of downloads in progress, so that a shared cache folder is swept
#: only of this machine's dead processes' files (8 hex digits: no "-" inside)
HOST_TAG = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _owner_alive(part: Path) -> bool:
    """Whether the process that named ``part`` (``<pid>-<host>-....part``) may still run: a download
    of another machine sharing the cache (a cluster's network folder) always may; unnamed ones
    count as gone."""
    pid, _, rest = part.name.partition("-")
    if not pid.isdigit():
        return False
    if rest.partition("-")[0] != HOST_TAG:
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # alive, but another user's
        return True
    return not _zombie(int(pid))


def _zombie(pid: int) -> bool:
    """Whether ``pid`` has ended but not been reaped yet (Linux ``/proc``; ``False`` where there is none)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return False
    return stat[stat.rindex(")") + 2 :].startswith(("Z", "X"))


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
