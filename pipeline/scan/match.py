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
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import cast

import hyperscan

#: a buffer is handed back to the Python engine once it reports more than
#: ``MIN_HITS + len(buffer) // BYTES_PER_HIT`` matches (about 0.4 us each)
MIN_HITS = 16
BYTES_PER_HIT = 1024

OnMatch = Callable[[int, int, int, int, object], bool]
#: per span (by index): the counts of the terms, and the indexes of the words it holds
SpanCounts = tuple[dict[int, list[int]], dict[int, set[int]]]


def expression(needle: bytes) -> bytes:
    """A regular expression matching exactly ``needle``: every byte escaped as ``\\xNN``."""
    return b"".join(b"\\x%02x" % byte for byte in needle)


def database(needles: Sequence[bytes], flags: Sequence[int]) -> hyperscan.Database:
    """A block-mode database matching each needle (id = its index) as a literal, with its ``flags``.

    Compiled once per thread for each list of needles (a compile costs milliseconds, a census
    scans thousands of trees with the same terms). A database carries its scratch space, so
    threads (a Dask worker runs several tasks at once) never share one.
    """
    if not needles or not all(needles) or len(flags) != len(needles):
        raise ValueError("the native matcher needs at least one needle, none empty, each with its flags")
    cache: dict[tuple[tuple[bytes, ...], tuple[int, ...]], hyperscan.Database] = _LOCAL.__dict__.setdefault(
        "databases", {})
    key = (tuple(needles), tuple(flags))
    if key not in cache:
        if len(cache) >= 32:
            cache.clear()
        cache[key] = _compiled(*key)
    return cache[key]


_LOCAL = threading.local()


def _compiled(needles: tuple[bytes, ...], flags: tuple[int, ...]) -> hyperscan.Database:
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(expressions=[expression(n) for n in needles], ids=list(range(len(needles))),
               elements=len(needles), flags=list(flags))
    return db


class NativeMatcher:
    """Counts several non-empty byte needles, case-insensitively, in one pass per buffer, and
    notes which of several ``words`` the buffer contains in the same pass.

    The match callback and its state are made once, not per buffer: most files are one
    small buffer, where that setup would cost as much as the scan. Each word is reported at
    most once per scan (``HS_FLAG_SINGLEMATCH``), so a frequent word costs nothing extra.
    """

    def __init__(self, needles: Sequence[bytes], words: Sequence[bytes] = ()) -> None:
        caseless = hyperscan.HS_FLAG_CASELESS
        flags = [caseless] * len(needles) + [caseless | hyperscan.HS_FLAG_SINGLEMATCH] * len(words)
        self._db = database([*needles, *words], flags)
        self._found = [0] * len(needles)  # matches counted in this buffer, per term
        self._starts = [0] * len(needles)  # per term: where its next match may start
        self._tally = [0, 0]  # matches reported in this buffer, and the budget for them
        self.seen: set[int] = set()
        """the indexes of the ``words`` found by the last scan."""
        self._terms = len(needles)
        self._lens = [len(n) for n in (*needles, *words)]
        self._on_match = _callback(self._lens[: self._terms], self._found, self._starts, self._tally, self.seen)
        self._all_needles = [*needles, *words]
        self._spans_db: hyperscan.Database | None = None if words else self._db  # compiled when first asked
        self._hits: list[tuple[int, int]] = []  # (needle, end) of every match of a ``count_spans`` scan
        self._on_hit = _collector(self._hits, self._tally)

    def count(self, buf: bytes, counts: list[int], resume: list[int]) -> bool:
        """Adds the matches in ``buf`` to ``counts``, or returns ``False`` having changed nothing.

        ``resume[i]`` is the first offset in ``buf`` where term ``i`` may start a match (the
        end of its last match, or past positions already examined); on success it becomes the
        end of the last match counted here. ``False`` means ``buf`` was too dense with
        matches: the caller counts it another way. Either way ``seen`` holds the words found
        (all of them on success).
        """
        found, tally = self._found, self._tally
        self._starts[:] = resume
        self.seen.clear()
        if not budgeted_scan([self._db], buf, [self._on_match], tally):
            found[:] = [0] * len(found)
            return False
        if tally[0]:
            for i, n in enumerate(found):
                counts[i] += n
                found[i] = 0
            resume[:] = self._starts
        return True

    def _spans(self) -> hyperscan.Database:
        """The database ``count_spans`` scans with: there many files are scanned at once, so a word
        is reported at every match. Compiled on first use (a millisecond): the detector's own word
        search (``count_and_find``) never needs it."""
        if self._spans_db is None:
            caseless = hyperscan.HS_FLAG_CASELESS
            self._spans_db = database(self._all_needles, [caseless] * len(self._all_needles))
        return self._spans_db

    def count_spans(self, buf: bytes, spans: list[tuple[int, int]]) -> SpanCounts | None:
        """The counts in each ``buf[start:end]`` of ``spans`` (in order, not overlapping), and the
        indexes of the ``words`` it contains, each keyed by the span's index (spans without a
        match left out). One scan covers them all; a match belongs to the span that holds all
        of it, and, per span and term, counts only when it starts at or after the previous
        one's end (as ``bytes.count``). ``None`` when the region is too dense with matches:
        the caller counts it another way."""
        first, last = spans[0][0], spans[-1][1]
        hits = self._hits
        hits.clear()
        if not budgeted_scan([self._spans()], region(buf, first, last), [self._on_hit], self._tally):
            return None
        return attributed(hits, spans, self._lens, self._terms)


def region(buf: bytes, first: int, last: int) -> bytes:
    """``buf[first:last]`` as a view, not a copy: hyperscan takes any buffer (its stub says bytes)."""
    return cast(bytes, memoryview(buf)[first:last])


def budgeted_scan(
    dbs: Sequence[hyperscan.Database], data: bytes, handlers: Sequence[OnMatch], tally: list[int]
) -> bool:
    """Scan ``data`` with each database and its match handler in turn, the handlers counting their
    matches in ``tally[0]`` and stopping the scan once it exceeds ``tally[1]``, set here to the
    budget for ``data`` (``MIN_HITS`` plus one per ``BYTES_PER_HIT``); ``False`` when a handler
    stopped it: ``data`` is too dense with matches for callbacks."""
    tally[0], tally[1] = 0, MIN_HITS + len(data) // BYTES_PER_HIT
    try:
        for db, handler in zip(dbs, handlers, strict=True):
            db.scan(data, match_event_handler=handler)
    except hyperscan.error:
        if tally[0] > tally[1]:  # our callback stopped the scan (hyperscan.ScanTerminated)
            return False
        raise
    return True


def attributed(hits: list[tuple[int, int]], spans: list[tuple[int, int]], lens: list[int], terms: int) -> SpanCounts:
    """Per span, the non-overlapping matches of each term among ``hits`` (each term's in end
    order, ends counted from the first span's start), and the words (needles from ``terms`` on)
    it holds."""
    if not hits:
        return {}, {}
    first = spans[0][0]
    starts, ends = [s - first for s, _ in spans], [e - first for _, e in spans]
    counts: dict[int, list[int]] = {}
    words: dict[int, set[int]] = {}
    next_start: dict[tuple[int, int], int] = {}  # (span, term) -> where its next match may start
    for needle, end in hits:
        start = end - lens[needle]
        span = bisect_right(starts, start) - 1
        if span < 0 or end > ends[span]:
            continue
        if needle >= terms:
            words.setdefault(span, set()).add(needle - terms)
        elif start >= next_start.get((span, needle), 0):
            counts.setdefault(span, [0] * terms)[needle] += 1
            next_start[span, needle] = end
    return counts, words


def _collector(hits: list[tuple[int, int]], tally: list[int]) -> OnMatch:
    """The match callback of ``count_spans``: every match noted, and a stop once ``tally`` runs over."""

    def on_match(term: int, _start: int, end: int, _flags: int, _context: object) -> bool:
        tally[0] += 1
        hits.append((term, end))
        return tally[0] > tally[1]

    return on_match


def _callback(lens: list[int], found: list[int], starts: list[int], tally: list[int], seen: set[int]) -> OnMatch:
    """The match callback: greedy selection per term, words noted in ``seen`` (by index among
    the words), and a stop once the terms' matches in ``tally`` run over."""
    terms = len(lens)

    def on_match(term: int, _start: int, end: int, _flags: int, _context: object) -> bool:
        if term >= terms:  # a word: reported once per scan, so it needs no budget
            seen.add(term - terms)
            return False
        tally[0] += 1
        if end - lens[term] >= starts[term]:
            found[term] += 1
            starts[term] = end
        return tally[0] > tally[1]

    return on_match
