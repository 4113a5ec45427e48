"""The native engine of the term counter: one hyperscan database matches every term at once.

Importing this module raises ``ImportError`` when hyperscan is not installed; the counter
(``pipeline.scan.count``) then uses its pure-Python engine, which gives the same counts.

Each term is compiled as a caseless literal: every byte is written ``\\xNN``, so any byte
(``\\0``, regex syntax, UTF-8) is matched as itself, and without ``HS_FLAG_UTF8``/``UCP``
hyperscan folds ASCII letters only, exactly as ``bytes.lower`` does. A literal never yields
out-of-order matches, so each term's matches arrive by increasing end offset and greedy
selection (take a match when it starts at or after the previous one's end) is the
leftmost-first, non-overlapping count of ``bytes.count``.

Matches cost one Python call each. When a buffer is dense with matches (a term such as
``e``), the scan stops early and the caller counts that buffer in Python instead, so a
dense term is never much slower than the pure-Python engine.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import hyperscan

#: a buffer is handed back to the Python engine once it reports more than
#: ``MIN_HITS + len(buffer) // BYTES_PER_HIT`` matches (about 0.4 us each)
MIN_HITS = 16
BYTES_PER_HIT = 1024

_OnMatch = Callable[[int, int, int, int, object], bool]


def expression(needle: bytes) -> bytes:
    """A regular expression matching exactly ``needle``: every byte escaped as ``\\xNN``."""
    return b"".join(b"\\x%02x" % byte for byte in needle)


def database(needles: Sequence[bytes], flags: int) -> hyperscan.Database:
    """A block-mode database matching each needle (id = its index) as a literal, with ``flags``.

    Compiled once per thread for each list of needles (a compile costs milliseconds, a census
    scans thousands of trees with the same terms). A database carries its scratch space, so
    threads (a Dask worker runs several tasks at once) never share one.
    """
    if not needles or not all(needles):
        raise ValueError("the native matcher needs at least one needle, none empty")
    cache: dict[tuple[tuple[bytes, ...], int], hyperscan.Database] = _LOCAL.__dict__.setdefault("databases", {})
    key = (tuple(needles), flags)
    if key not in cache:
        if len(cache) >= 32:
            cache.clear()
        cache[key] = _compiled(*key)
    return cache[key]


_LOCAL = threading.local()


def _compiled(needles: tuple[bytes, ...], flags: int) -> hyperscan.Database:
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(expressions=[expression(n) for n in needles], ids=list(range(len(needles))),
               elements=len(needles), flags=flags)
    return db


class NativeMatcher:
    """Counts several non-empty byte needles, case-insensitively, in one pass per buffer.

    The match callback and its state are made once, not per buffer: most files are one
    small buffer, where that setup would cost as much as the scan.
    """

    def __init__(self, needles: Sequence[bytes]) -> None:
        self._db = database(needles, hyperscan.HS_FLAG_CASELESS)
        self._found = [0] * len(needles)  # matches counted in this buffer, per term
        self._starts = [0] * len(needles)  # per term: where its next match may start
        self._tally = [0, 0]  # matches reported in this buffer, and the budget for them
        self._on_match = _callback([len(n) for n in needles], self._found, self._starts, self._tally)

    def count(self, buf: bytes, counts: list[int], resume: list[int]) -> bool:
        """Adds the matches in ``buf`` to ``counts``, or returns ``False`` having changed nothing.

        ``resume[i]`` is the first offset in ``buf`` where term ``i`` may start a match (the
        end of its last match, or past positions already examined); on success it becomes the
        end of the last match counted here. ``False`` means ``buf`` was too dense with
        matches: the caller counts it another way.
        """
        found, tally = self._found, self._tally
        self._starts[:] = resume
        tally[0], tally[1] = 0, MIN_HITS + len(buf) // BYTES_PER_HIT
        try:
            self._db.scan(buf, match_event_handler=self._on_match)
        except hyperscan.error:
            if tally[0] > tally[1]:  # our callback stopped the scan (hyperscan.ScanTerminated)
                found[:] = [0] * len(found)
                return False
            raise
        if tally[0]:
            for i, n in enumerate(found):
                counts[i] += n
                found[i] = 0
            resume[:] = self._starts
        return True


def _callback(lens: list[int], found: list[int], starts: list[int], tally: list[int]) -> _OnMatch:
    """The match callback: greedy selection per term, and a stop once ``tally`` runs over."""

    def on_match(term: int, _start: int, end: int, _flags: int, _context: object) -> bool:
        tally[0] += 1
        if end - lens[term] >= starts[term]:
            found[term] += 1
            starts[term] = end
        return tally[0] > tally[1]

    return on_match


class NativePresence:
    """Which of several words occur in a buffer, case-insensitively: each word is reported at
    most once per scan (``HS_FLAG_SINGLEMATCH``), so frequent words cost nothing extra."""

    def __init__(self, needles: Sequence[bytes]) -> None:
        self._db = database(needles, hyperscan.HS_FLAG_CASELESS | hyperscan.HS_FLAG_SINGLEMATCH)
        self._seen: set[int] = set()
        seen = self._seen

        def on_match(word: int, _start: int, _end: int, _flags: int, _context: object) -> bool:
            seen.add(word)
            return False

        self._on_match: _OnMatch = on_match

    def present(self, data: bytes) -> set[int]:
        """The indexes of the needles found in ``data``."""
        self._seen.clear()
        self._db.scan(data, match_event_handler=self._on_match)
        return set(self._seen)
