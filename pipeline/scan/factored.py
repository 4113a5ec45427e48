"""Terms found through shared substrings: one single-literal scan per group of terms.

Hyperscan runs one literal about three times faster than two or more (measured on 162 MB of
source: one of the four hint names 19-22 ms, any two of them 59 ms, all five published terms
66 ms; ``hint`` alone 16 ms). The four hint names share ``hint``; so the published terms are
found with two single-literal scans, ``hint`` and ``annotations`` (33 ms), each hit of a
factor confirmed in place by comparing the bytes around it with the terms that contain it.

``groups`` picks the factors greedily (a substring of at least ``MIN_FACTOR_BYTES`` of the first
term not yet covered, shared by the most terms) and gives up when more than ``MAX_SCANS``
scans would be needed: three single scans cost about what one multi-literal scan does. Each
term is found through one position of its factor, so its matches arrive in increasing end
order, as the multi-literal engine reports them, and the same greedy rule counts them. A buffer whose
factors hit more often than the budget (``match.MIN_HITS``, ``match.BYTES_PER_HIT``) is
scanned again by the multi-literal matcher, which hands on a buffer dense with terms; and a
matcher whose factors prove common over its first MiB (``WATCH_BYTES``) leaves them for good.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import hyperscan

from pipeline.scan import match

#: the shortest factor: shorter ones hit too often in source text to be worth confirming
MIN_FACTOR_BYTES = 4
#: the longest factor tried (a longer term is its own factor)
MAX_FACTOR_BYTES = 32
#: single-literal scans at most: three cost about what one multi-literal scan does
MAX_SCANS = 2
#: more terms than this are scanned together (two factors rarely cover them)
MAX_TERMS = 32
#: a counter that has scanned this much and met its factors more often than once per
#: ``BYTES_PER_FACTOR_HIT`` stops scanning for them: a common factor (``tion`` for
#: ``annotation`` and ``exception``) costs a confirmation per hit, more than it saves
WATCH_BYTES = 1 << 20
BYTES_PER_FACTOR_HIT = 4096


@dataclass(frozen=True)
class Group:
    """Terms that contain one factor."""

    factor: bytes
    members: tuple[tuple[int, int], ...]
    """(index of the term, offset of the factor's first occurrence in it)."""


@functools.lru_cache(maxsize=64)
def groups(needles: tuple[bytes, ...]) -> tuple[Group, ...] | None:
    """Groups of ``needles`` that take at most ``MAX_SCANS`` single-literal scans (fewer than
    there are needles), or ``None``. Each factor is a substring of the first needle not yet
    covered, the one that covers the most needles (then the longest): at most ``MAX_SCANS``
    rounds over ``MAX_TERMS`` needles, computed once per process for each list."""
    if not 1 < len(needles) <= MAX_TERMS:
        return None
    left, found = list(range(len(needles))), list[Group]()
    while left and len(found) < MAX_SCANS:
        factor = _best_factor(needles[left[0]], [needles[i] for i in left])
        members = [i for i in left if factor in needles[i]]
        found.append(Group(factor, tuple((i, needles[i].index(factor)) for i in members)))
        left = [i for i in left if i not in members]
    return tuple(found) if not left and len(found) < len(needles) else None


def _best_factor(needle: bytes, needles: list[bytes]) -> bytes:
    """The substring of ``needle`` (``MIN_FACTOR_BYTES`` to ``MAX_FACTOR_BYTES`` long, or all of it)
    contained in the most ``needles``; ties go to the longer, then the smaller bytes."""
    ends = range(MIN_FACTOR_BYTES, MAX_FACTOR_BYTES + 1)
    candidates = {needle[a : a + n] for a in range(len(needle) - MIN_FACTOR_BYTES + 1) for n in ends} | {needle}
    return min(candidates, key=lambda f: (-sum(f in n for n in needles), -len(f), f))


class FactoredMatcher:
    """Counts several needles, case-insensitively, with one single-literal scan per ``Group``;
    the same interface and counts as ``match.NativeMatcher`` (which it falls back to).

    Like it, the match callbacks are made once: a scan's buffer, bounds and hits are state.
    """

    def __init__(self, needles: Sequence[bytes], grouped: Sequence[Group]) -> None:
        caseless = hyperscan.HS_FLAG_CASELESS
        self._needles = list(needles)
        self._lens = [len(n) for n in needles]
        self._tally = [0, 0]
        self._dbs = [match.database([g.factor], [caseless]) for g in grouped]
        self._handlers = [self._callback(g) for g in grouped]
        self._dense = match.NativeMatcher(needles)  # for a buffer too rich in factor hits
        self._buf, self._first, self._last = b"", 0, 0
        self._hits: list[tuple[int, int]] = []
        self._met = [0, 0]  # factor hits, and bytes scanned, over the matcher's life
        self.factored = True
        """whether it still scans for the factors (``False`` once they proved common)."""
        self.seen: set[int] = set()
        """always empty: this matcher looks for no words."""

    def count(self, buf: bytes, counts: list[int], resume: list[int]) -> bool:
        """``match.NativeMatcher.count``: the matches in ``buf`` added to ``counts``, ``resume`` moved."""
        hits = self._scan(buf, 0, len(buf)) if self.factored else None
        if hits is None:
            return self._dense.count(buf, counts, resume)
        for term, end in hits:  # per term in increasing end order: the greedy rule of bytes.count
            if end - self._lens[term] >= resume[term]:
                counts[term] += 1
                resume[term] = end
        return True

    def count_spans(self, buf: bytes, spans: list[tuple[int, int]]) -> match.SpanCounts | None:
        """``match.NativeMatcher.count_spans`` (this matcher looks for no words)."""
        first, last = spans[0][0], spans[-1][1]
        hits = self._scan(buf, first, last) if self.factored else None
        if hits is None:
            return self._dense.count_spans(buf, spans)
        return match.attributed(hits, spans, self._lens, len(self._lens))

    def _scan(self, buf: bytes, first: int, last: int) -> list[tuple[int, int]] | None:
        """Every match of a term in ``buf[first:last]`` as (term, end offset from ``first``), each
        term's in increasing end order; ``None`` when the factors hit too often."""
        self._buf, self._first, self._last = buf, first, last
        hits: list[tuple[int, int]] = []
        self._hits = hits
        try:
            done = match.budgeted_scan(self._dbs, match.region(buf, first, last), self._handlers, self._tally)
        finally:
            self._buf = b""
        self._watch(self._tally[0], last - first)
        return hits if done else None

    def _watch(self, hits: int, size: int) -> None:
        """Count a scan's factor hits; stop scanning for factors once they prove common."""
        met = self._met
        met[0], met[1] = met[0] + hits, met[1] + size
        if met[1] >= WATCH_BYTES and met[0] * BYTES_PER_FACTOR_HIT > met[1]:
            self.factored = False

    def _callback(self, group: Group) -> match.OnMatch:
        """The match callback of ``group``'s scan: each term of the group whose bytes lie around
        the factor is noted; the scan stops once the factor's hits run over the budget."""
        needles, lens, tally, width = self._needles, self._lens, self._tally, len(group.factor)

        def on_match(_id: int, _start: int, end: int, _flags: int, _context: object) -> bool:
            tally[0] += 1
            buf, first, last = self._buf, self._first, self._last
            for term, offset in group.members:
                start = first + end - width - offset
                stop = start + lens[term]
                if first <= start and stop <= last and buf[start:stop].lower() == needles[term]:
                    self._hits.append((term, stop - first))
            return tally[0] > tally[1]

        return on_match
