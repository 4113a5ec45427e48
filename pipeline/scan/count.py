"""Case-insensitive, non-overlapping byte counts of terms, over chunked streams.

The reference definition, which every faster path must equal::

    data.lower().count(term.encode().lower())   # per term, per file

``bytes.lower`` folds ASCII letters only, so binary files and any encoding are counted
byte for byte. A file arrives as a stream of chunks; a match straddling two chunks counts
once, and memory stays bounded by the chunk size whatever the file's size: each buffer
scanned is the chunk plus at most ``max(len(term)) - 1`` bytes carried from the one before.

Two engines give the same counts:

- ``hyperscan`` (``pipeline.scan.match``): one multi-pattern caseless scan per buffer for
  all terms, lower-casing nothing unless the caller asks for the lower-cased bytes; or, for
  terms that share substrings (the four hint names share ``hint``), one single-literal scan
  per shared substring, each hit confirmed in place (``pipeline.scan.factored``: half the
  time for the published terms). The default when the ``hyperscan`` package imports.
- ``python``: ``bytes.lower`` then ``bytes.find``/``count`` per term. The default when
  hyperscan is missing, and what the native engine hands a buffer dense with matches to.

The environment variable ``CENSUS_MATCHER`` picks one: ``python`` forces the pure-Python
engine, ``hyperscan`` requires the native one (``ImportError`` without it), and ``auto`` or
unset takes hyperscan when available. ``TermCounter(terms, engine=...)`` overrides it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pipeline.scan.match import SpanCounts

ENGINE_VARIABLE = "CENSUS_MATCHER"
ENGINES = ("auto", "hyperscan", "python")


def needle(term: str) -> bytes:
    """The bytes a term is matched as: UTF-8, ASCII-lower-cased."""
    return term.encode("utf-8").lower()


def has_border(pattern: bytes) -> bool:
    """Whether a proper prefix of ``pattern`` is also its suffix (matches can overlap)."""
    return any(pattern[:k] == pattern[-k:] for k in range(1, len(pattern)))


class Matcher(Protocol):
    """A native matcher: ``match.NativeMatcher``, or ``factored.FactoredMatcher`` (terms without
    words that two single-literal scans find)."""

    seen: set[int]

    def count(self, buf: bytes, counts: list[int], resume: list[int]) -> bool:
        """Add the matches in ``buf`` to ``counts`` (``False``: too dense, nothing changed)."""
        ...

    def count_spans(self, buf: bytes, spans: list[tuple[int, int]]) -> SpanCounts | None:
        """The counts (and words) of each span of ``buf``; ``None`` when too dense."""
        ...


def native_matcher(
    needles: Sequence[bytes], engine: str | None = None, words: Sequence[bytes] = ()
) -> Matcher | None:
    """The hyperscan matcher for ``needles`` (and ``words``), or ``None`` when the Python engine counts them.

    ``engine`` (else ``$CENSUS_MATCHER``, else ``auto``) is one of ``ENGINES``. Several terms
    and no words that share few enough substrings are found by single-literal scans
    (``factored``), three times faster per scan than one scan for them all.
    """
    choice = (engine or os.environ.get(ENGINE_VARIABLE) or "auto").strip().lower()
    if choice not in ENGINES:
        raise ValueError(f"unknown matcher {choice!r} (known: {', '.join(ENGINES)}); see ${ENGINE_VARIABLE}")
    if choice == "python" or not (needles or words) or not all(needles) or not all(words):
        return None
    try:
        from pipeline.scan import factored
        from pipeline.scan.match import NativeMatcher
    except ImportError:
        if choice == "hyperscan":
            raise
        return None
    if not words and (grouped := factored.groups(tuple(needles))) is not None:
        return factored.FactoredMatcher(needles, grouped)
    return NativeMatcher(needles, words)


class TermCounter:
    """Counts a fixed list of terms in files given as chunk streams.

    Each term is counted independently (overlapping *terms* both count); within one term,
    occurrences are counted leftmost-first without overlap, as ``bytes.count`` does. One
    counter serves one thread at a time (the native engine owns one scratch space).

    ``words`` (the detector's prefilter) are not counted: ``count_and_find`` says which of
    them a whole file contains, ignoring ASCII case, in the same native scan as its counts.
    """

    def __init__(self, terms: Sequence[str], engine: str | None = None, words: Sequence[str] = ()) -> None:
        self.terms = tuple(terms)
        self.words = tuple(words)
        self._word_needles = [needle(w) for w in self.words]
        self._needles = [needle(t) for t in self.terms]
        self._lens = [len(n) for n in self._needles]
        self._bordered = [has_border(n) for n in self._needles]
        self._carry_len = max(self._lens) - 1 if self._needles else 0
        self._native = native_matcher(self._needles, engine, self._word_needles)
        self.engine = "python" if self._native is None else "hyperscan"
        """the engine in use: ``hyperscan`` or ``python``."""

    def count_bytes(self, data: bytes) -> list[int]:
        """Counts in one whole buffer (the reference definition)."""
        low = data.lower()
        return [low.count(n) for n in self._needles]

    def count_chunks(self, chunks: Iterable[bytes]) -> list[int]:
        """Counts in a file given as consecutive chunks; equals ``count_bytes(b"".join(chunks))``.

        The native engine lower-cases nothing; the Python one lower-cases each chunk once.
        """
        counts = [0] * len(self._needles)
        # resume[i]: first offset in the current buffer where term i may start a new match
        resume = [0] * len(self._needles)
        native = self._native
        prev = b""
        for chunk in chunks:
            if not chunk:
                continue
            data = chunk.lower() if native is None else chunk
            buf = self._carry(prev, resume) + data if prev else data
            if native is None or not native.count(buf, counts, resume):
                self._count_python(buf if native is None else buf.lower(), counts, resume)
            prev = buf
        return counts

    def count_and_find(self, data: bytes) -> tuple[list[int], frozenset[str]]:
        """The counts in one whole file, equal to ``count_bytes(data)``, and the ``words`` it contains."""
        counts = [0] * len(self._needles)
        native = self._native
        if native is not None and native.count(data, counts, [0] * len(self._needles)):
            return counts, frozenset([self.words[i] for i in native.seen])
        return self._python_find(data.lower())

    def count_spans(
        self, buf: bytes, spans: list[tuple[int, int]]
    ) -> tuple[dict[int, list[int]], dict[int, frozenset[str]]]:
        """``count_and_find`` of each ``buf[start:end]`` of ``spans`` (in order, not overlapping),
        keyed by the span's index: spans that count nothing, or hold no word, are left out.
        The native engine scans all of them at once (the files of a tar run); a region too dense
        with matches (words are reported at each match here) is scanned file by file."""
        if not spans or not (self._needles or self.words):
            return {}, {}
        if self._native is not None and (found := self._native.count_spans(buf, spans)) is not None:
            counts, words = found
            return counts, {i: frozenset([self.words[w] for w in hits]) for i, hits in words.items()}
        counts, present = {}, {}
        for i, (start, end) in enumerate(spans):
            counts[i], present[i] = self.count_and_find(buf[start:end])
        return {i: c for i, c in counts.items() if any(c)}, {i: w for i, w in present.items() if w}

    def _python_find(self, low: bytes) -> tuple[list[int], frozenset[str]]:
        """``count_and_find`` of the lower-cased ``low``, in Python."""
        counts = [low.count(n) for n in self._needles]
        return counts, frozenset([w for w, n in zip(self.words, self._word_needles, strict=True) if n in low])

    def _carry(self, buf: bytes, resume: list[int]) -> bytes:
        """The tail of ``buf`` the next buffer starts with; ``resume`` is moved to its offsets.

        Every position whose match would end inside ``buf`` has been examined, so each term
        resumes no earlier than the first position that was not.
        """
        keep = min(self._carry_len, len(buf))
        shift = len(buf) - keep
        for i, length in enumerate(self._lens):
            resume[i] = max(resume[i], len(buf) - length + 1, shift) - shift
        return buf[shift:]

    def _count_python(self, low: bytes, counts: list[int], resume: list[int]) -> None:
        """Adds the matches in the lower-cased buffer ``low`` to ``counts``, advancing ``resume``."""
        for i, pattern in enumerate(self._needles):
            found, resume[i] = _count_in(low, pattern, resume[i], self._bordered[i])
            counts[i] += found


def _count_in(buf: bytes, pattern: bytes, start: int, bordered: bool) -> tuple[int, int]:
    """Matches of ``pattern`` in ``buf`` from ``start``, and where the next search resumes.

    Positions whose match would end inside ``buf`` are fully examined here, so the next
    buffer resumes at the first position not yet examined or after the last match.
    """
    examined_to = len(buf) - len(pattern) + 1
    if bordered:
        found, last_end = 0, start
        pos = buf.find(pattern, start)
        while pos != -1:
            found, last_end = found + 1, pos + len(pattern)
            pos = buf.find(pattern, last_end)
        return found, max(last_end, examined_to)
    found = buf.count(pattern, start)
    tail = buf.rfind(pattern, max(start, examined_to - len(pattern), 0))
    last_end = tail + len(pattern) if tail != -1 else start
    return found, max(last_end, examined_to, start)
