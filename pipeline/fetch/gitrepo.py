"""Reading a tree straight from a local git repository (bare, normal or partial clone).

The tree is listed with ``git ls-tree`` and blobs are streamed with ``git cat-file --batch``,
so nothing is checked out. Blobs that a partial clone lacks are found first with
``git rev-list --missing=print`` and yielded as ``missing`` members: git is never asked for
them, so it never tries to fetch them from a remote. A long command (``git log`` over a whole
history) is read as it runs (``stream``); the cat-file reader can be asked for many blobs ahead
of reading them (``ask``, then ``take`` in the same order), so git works while the caller counts.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from pipeline.archive.entries import Entry, Member, display_path
from pipeline.archive.tarball import CHUNK_BYTES
from pipeline.errors import NotFoundError, SourceError

#: git modes of tree entries and the member kind each one becomes
MODES = {b"100644": "file", b"100755": "file", b"120000": "symlink", b"160000": "submodule"}

#: never reach a network from here: no lazy fetch, no prompts, no transport at all
GIT_ENV = {"GIT_NO_LAZY_FETCH": "1", "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1"}


class GitRepo:
    """A local git repository read through git plumbing commands."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        try:
            return subprocess.run(self.command(*args), capture_output=True, check=check, env=_env())
        except subprocess.CalledProcessError as exc:
            reason = exc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise SourceError(f"git {args[0]} failed in {self.path}: {reason[-1] if reason else exc}") from exc
        except FileNotFoundError as exc:
            raise SourceError("git is not installed (needed for local sources)") from exc

    def resolve(self, ref: str | None) -> str:
        """The full commit SHA that ``ref`` (default ``HEAD``) names."""
        if not (self.path / "HEAD").exists() and not (self.path / ".git").exists():
            raise NotFoundError(f"not a git repository: {self.path}")
        done = self._git("rev-parse", "--verify", "--quiet", f"{ref or 'HEAD'}^{{commit}}", check=False)
        if done.returncode != 0:
            raise NotFoundError(f"ref {ref or 'HEAD'!r} not found in {self.path}")
        return done.stdout.decode().strip()

    def check_commit(self, commit: str) -> None:
        """Raise ``NotFoundError`` unless ``commit`` is in the repository."""
        if self.resolve(commit) != commit:
            raise NotFoundError(f"commit {commit} not found in {self.path}")

    def command(self, *args: str) -> list[str]:
        """The command line of ``git ARGS`` in this repository, with every transport refused."""
        return ["git", "-c", "protocol.allow=never", "-C", str(self.path), *args]

    def output(self, *args: str) -> bytes:
        """The standard output of one git command (``SourceError`` naming it when it fails)."""
        return self._git(*args).stdout

    @contextlib.contextmanager
    def stream(self, *args: str) -> Iterator[IO[bytes]]:
        """The standard output of one long git command, read while it runs; read it to the end.

        Leaving the block early stops the command; when it fails, ``SourceError`` names it.
        """
        with tempfile.TemporaryFile() as errors:
            proc = subprocess.Popen(self.command(*args), stdout=subprocess.PIPE, stderr=errors, env=_env())
            assert proc.stdout is not None
            try:
                yield proc.stdout
            except BaseException:
                proc.kill()
                raise
            finally:
                proc.stdout.close()
                code = proc.wait()
            if code != 0:
                errors.seek(0)
                reason = errors.read().decode("utf-8", "replace").strip().splitlines()
                raise SourceError(f"git {args[0]} failed in {self.path}: {reason[-1] if reason else code}")

    def blobs(self) -> CatFile:
        """A ``git cat-file --batch`` reader of this repository's blobs (a context manager)."""
        return CatFile(self)

    def committed_at(self, commit: str) -> datetime | None:
        """The committer date of ``commit`` (UTC), or ``None`` when git cannot say."""
        done = self._git("show", "-s", "--format=%ct", commit, check=False)
        stamp = done.stdout.decode().strip()
        return datetime.fromtimestamp(int(stamp), UTC) if done.returncode == 0 and stamp.isdigit() else None

    def members(self, commit: str) -> Iterator[Entry]:
        """Every tree entry of ``commit``; regular files come with their content as chunks."""
        missing = self._missing_objects(commit)
        entries = self._ls_tree(commit)
        with CatFile(self) as cat:
            for mode, sha, raw_path in entries:
                path = display_path(os.fsdecode(raw_path))
                kind = MODES.get(mode, "other")
                if kind == "file" and sha in missing:
                    kind = "missing"
                if kind != "file":
                    yield Member(path, kind, 0), None
                    continue
                size, chunks = cat.open(sha)
                if size is None:
                    yield Member(path, "missing", 0), None
                else:
                    yield Member(path, "file", size), chunks
                    cat.finish()

    def _missing_objects(self, commit: str) -> set[bytes]:
        done = self._git("rev-list", "--objects", "--no-walk", "--missing=print", commit)
        return {line[1:].split(b" ")[0] for line in done.stdout.splitlines() if line.startswith(b"?")}

    def _ls_tree(self, commit: str) -> list[tuple[bytes, bytes, bytes]]:
        done = self._git("ls-tree", "-r", "-z", "--full-tree", commit)
        entries = []
        for record in done.stdout.split(b"\0"):
            if record:
                meta, _, path = record.partition(b"\t")
                mode, _, sha = meta.split(b" ")
                entries.append((mode, sha, path))
        return entries


class CatFile:
    """One ``git cat-file --batch`` process: ``open`` one blob at a time, or ``ask`` for many and
    ``take`` each answer in the same order (one thread may ask while another takes)."""

    def __init__(self, repo: GitRepo) -> None:
        cmd = repo.command("cat-file", "--batch")
        self._proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_env())
        assert self._proc.stdin is not None
        assert self._proc.stdout is not None
        self._in: IO[bytes] = self._proc.stdin
        self._out: IO[bytes] = self._proc.stdout
        self._left = 0

    def __enter__(self) -> CatFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop git (whatever it was asked) and close both pipes."""
        self._proc.kill()
        self._proc.wait()
        with contextlib.suppress(BrokenPipeError):  # closing flushes; nothing is pending after open()
            self._in.close()
        self._out.close()

    def open(self, sha: bytes) -> tuple[int | None, Iterator[bytes]]:
        """Ask for a blob; its size (``None`` if missing) and a chunk stream of its content."""
        self.ask(sha)
        self.flush()
        return self.take()

    def ask(self, sha: bytes) -> None:
        """Ask for an object; git sees it once ``flush`` is called (or the request buffer fills)."""
        self._in.write(sha + b"\n")

    def flush(self) -> None:
        """Hand git every object asked for so far."""
        self._in.flush()

    def done(self) -> None:
        """Ask for nothing more: git answers what it was asked, then ends."""
        with contextlib.suppress(OSError, ValueError):  # git has ended, or ``close`` came first
            self._in.close()

    def take(self) -> tuple[int | None, Iterator[bytes]]:
        """The answer to the oldest request not yet taken: as ``open``; call ``finish`` after a blob."""
        line = self._out.readline()
        if not line.endswith(b"\n"):
            raise SourceError("git cat-file ended early")
        header = line.split()
        if len(header) != 3 or header[1] != b"blob":
            if len(header) == 3 and header[2].isdigit():  # another kind of object: skip its content
                self._left = int(header[2])
                self.finish()
            return None, iter(())
        self._left = int(header[2])
        return self._left, self._read()

    def _read(self) -> Iterator[bytes]:
        while self._left > 0:
            chunk = self._out.read(min(CHUNK_BYTES, self._left))
            if not chunk:
                raise SourceError("git cat-file ended early")
            self._left -= len(chunk)
            yield chunk

    def finish(self) -> None:
        """Skip what the consumer left unread, and the newline after the blob."""
        while self._left > 0:
            skipped = len(self._out.read(min(CHUNK_BYTES, self._left)))
            if not skipped:
                raise SourceError("git cat-file ended early")
            self._left -= skipped
        self._out.read(1)


def _env() -> dict[str, str]:
    return {**os.environ, **GIT_ENV}
