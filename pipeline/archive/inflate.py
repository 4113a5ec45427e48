"""Gzip inflated in a thread of its own, handed over as whole blocks: no copy on the reader's side.

isal's ``igzip_threaded`` reader does the same work but copies every byte twice in the
calling thread (into a ``BytesIO``, then into the caller's buffer), and its 1 MiB blocks mean
a hand-over every 2 ms. ``Inflater`` hands the worker's ``bytes`` over as they are: ``read1``
(what ``tarfields.ReadAhead`` asks for) gives the next block whole, and so does a ``read`` of
exactly one block. The first block is small (``FIRST_BLOCK_BYTES``) and each next one twice as
large, up to 1 MiB, then, once an archive has proved large, up to ``BLOCK_BYTES``: the reader
starts parsing at once, a small archive is not inflated in one piece before anything else can
run, and only a large one pays for the fresh memory of 4 MiB blocks (about a tenth faster there).

The worker lets go of the GIL while it inflates; it needs the GIL back for a moment at each
block. While the reader runs Python, a thread asking for the GIL waits for the switch
interval (5 ms by default) before the reader is made to let go, so the worker would spend
more time waiting than inflating. ``_SwitchInterval`` shortens the interval while at least one
``Inflater`` is open (and puts it back after the last one closes).

Once an archive proves large, ``keep_freed_blocks`` has the C allocator keep the memory of the
blocks freed for the next ones, rather than hand it back to the kernel and fault it in again.
"""

from __future__ import annotations

import functools
import queue
import sys
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Protocol

#: bytes per block: a hand-over every ~8 ms of inflating; about 30 MiB held at most (queue, worker, reader)
BLOCK_BYTES = 4 << 20
#: the first block: the reader starts parsing after this much; blocks then double up to
#: ``SMALL_BLOCK_BYTES``, and past ``LARGE_AFTER_BYTES`` inflated up to ``BLOCK_BYTES`` (fewer
#: hand-overs, each of which needs the GIL; 8 MiB measured best from 4 to 64 on a 160 MB tree)
FIRST_BLOCK_BYTES = 256 << 10
SMALL_BLOCK_BYTES = 1 << 20
LARGE_AFTER_BYTES = 8 << 20
#: blocks the worker may inflate ahead of the reader, the one it is inflating included
QUEUE_BLOCKS = 5
#: the switch interval while an inflater is open: the worker waits at most this long for the GIL
#: (it takes it a few times per block; 0.5 ms left the reader waiting for blocks a third of a
#: large scan, 0.1 ms cut the scan of a 160 MB tree by a tenth, 0.02 ms gained nothing more)
SWITCH_SECONDS = 0.0001
#: inflated bytes after which an archive is large enough for its freed blocks to be kept
KEEP_AFTER_BYTES = 8 << 20
#: free memory glibc may keep (``M_TRIM_THRESHOLD``) once blocks are kept
KEPT_FREE_BYTES = 64 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's ``mallopt`` parameters


@functools.cache
def keep_freed_blocks() -> bool:
    """Have glibc's allocator keep freed blocks for the next ones; once per process, and only
    where ``mallopt`` takes the settings (Linux with glibc): whether it did.

    By default glibc hands a freed block of a few MiB back to the kernel (it keeps free memory
    only up to twice the largest block freed so far), so every block's pages are faulted in
    afresh: on a 47 MB archive 20 thousand page faults, a quarter of ``census count``'s time.
    With blocks taken from the heap (``M_MMAP_THRESHOLD`` above ``BLOCK_BYTES``) and up to
    ``KEPT_FREE_BYTES`` kept free (``M_TRIM_THRESHOLD``), the next blocks reuse them: 8 thousand
    faults there. The settings hold for the rest of the process.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes  # only here: 7 ms to import, worth it for a large archive only

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, 2 * BLOCK_BYTES)) and bool(mallopt(_M_TRIM_THRESHOLD, KEPT_FREE_BYTES))

class Source(Protocol):
    """What the worker reads: a gzip reader's ``read(n)`` (``b""`` at the end) and ``close``."""

    def read(self, size: int, /) -> bytes:
        """Up to ``size`` inflated bytes."""
        ...

    def close(self) -> None:
        """Let go of the compressed stream."""
        ...


class _SwitchInterval:
    """The interpreter's switch interval, short while at least one inflater is open."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open = 0
        self._saved = sys.getswitchinterval()

    def opened(self) -> None:
        """An inflater opened: the first one shortens the interval."""
        with self._lock:
            if self._open == 0:
                self._saved = sys.getswitchinterval()
                sys.setswitchinterval(min(SWITCH_SECONDS, self._saved))
            self._open += 1

    def closed(self) -> None:
        """An inflater closed: the last one puts the interval back."""
        with self._lock:
            self._open -= 1
            if self._open == 0:
                sys.setswitchinterval(self._saved)


_SWITCHES = _SwitchInterval()


class Inflater:
    """The inflated bytes of a gzip stream, read with ``read(n)`` (exactly ``n`` bytes, fewer only
    at the end); a worker thread inflates up to ``QUEUE_BLOCKS`` blocks ahead.

    ``opener`` makes the gzip reader over the compressed stream; it runs in the worker, whose
    errors are raised by ``read`` once the blocks before them were read. Close it (or use it as
    a context manager) to stop the worker.
    """

    def __init__(self, opener: Callable[[], Source], block_bytes: int = BLOCK_BYTES) -> None:
        # two C queues, so that a hand-over costs the worker one call with the GIL, not a Python
        # ``queue.Queue`` (a condition and its locks: each a chance to wait for the GIL again)
        self._blocks: queue.SimpleQueue[bytes | BaseException] = queue.SimpleQueue()
        self._room: queue.SimpleQueue[None] = queue.SimpleQueue()  # a token per block it may inflate ahead
        for _ in range(QUEUE_BLOCKS):
            self._room.put(None)
        self._stop = threading.Event()
        self._block_bytes = block_bytes
        self._pending = b""  # a block a read took only part of, from ``self._offset`` on
        self._offset = 0
        self._done = False
        _SWITCHES.opened()
        self._closed = False
        self._worker = threading.Thread(target=self._inflate, args=(opener,), name="census-inflate", daemon=True)
        self._worker.start()

    def read(self, size: int, /) -> bytes:
        """``size`` bytes (fewer only at the end of the stream)."""
        pending, offset = self._pending, self._offset
        if offset == len(pending):
            pending, offset = self._next(), 0
            if len(pending) == size or not pending:
                self._pending, self._offset = b"", 0
                return pending  # the common read: one whole block, as the worker made it
        if offset + size <= len(pending):
            self._pending, self._offset = pending, offset + size
            return pending[offset : offset + size]
        parts, have = [pending[offset:]], len(pending) - offset  # a read across blocks: joined
        while have < size and (block := self._next()):
            parts.append(block)
            have += len(block)
        data = b"".join(parts)
        self._pending, self._offset = data, min(size, len(data))
        return data[:size]

    def read1(self, size: int, /) -> bytes:
        """The next bytes as the worker inflated them (at most ``size``; ``b""`` at the end)."""
        pending, offset = self._pending, self._offset
        if offset == len(pending):
            pending, offset = self._next(), 0
        end = min(offset + size, len(pending))
        self._pending, self._offset = pending, end
        return pending if offset == 0 and end == len(pending) else pending[offset:end]

    def close(self) -> None:
        """Stop the worker (it stops within one block) and let go of what it holds."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._room.put(None)  # a worker waiting for room wakes up and sees the stop
        self._worker.join()
        self._blocks = queue.SimpleQueue()  # the blocks it inflated ahead are let go
        _SWITCHES.closed()

    def __enter__(self) -> Inflater:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def _next(self) -> bytes:
        """The next block, ``b""`` at the end; the worker's error, in order."""
        if self._done:
            return b""
        block = self._blocks.get()
        self._room.put(None)
        if isinstance(block, BaseException):
            self._done = True
            raise block
        if not block:
            self._done = True
        return block

    def _inflate(self, opener: Callable[[], Source]) -> None:
        """The worker: inflate block after block, each once there is room, until the end, an
        error or ``close``."""
        try:
            stream, size, inflated = opener(), min(FIRST_BLOCK_BYTES, self._block_bytes), 0
            try:
                while True:
                    self._room.get()
                    if self._stop.is_set():
                        return
                    block = stream.read(size)
                    self._blocks.put(block)
                    if not block:
                        return
                    if inflated < KEEP_AFTER_BYTES <= inflated + len(block):
                        keep_freed_blocks()
                    inflated += len(block)
                    size = min(2 * size, self._block_bytes if inflated >= LARGE_AFTER_BYTES else SMALL_BLOCK_BYTES)
            finally:
                stream.close()
        except BaseException as error:  # handed to the reader, who raises it
            self._blocks.put(error)
