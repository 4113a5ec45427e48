"""Case-insensitive, non-overlapping byte counts of terms, over chunked streams.

The reference definition, which every faster path must equal::

    data.lower().count(term.encode().lower())   # per term, per file

``bytes.lower`` folds ASCII letters only, so binary files and any encoding are counted
byte for byte. A file arrives as a stream of chunks; a match straddling two chunks counts
once, and memory stays bounded by the chunk size whatever the file's size.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def needle(term: str) -> bytes:
    """The bytes a term is matched as: UTF-8, ASCII-lower-cased."""
    return term.encode("utf-8").lower()


def has_border(pattern: bytes) -> bool:
    """Whether a proper prefix of ``pattern`` is also its suffix (matches can overlap)."""
    return any(pattern[:k] == pattern[-k:] for k in range(1, len(pattern)))


class TermCounter:
    """Counts a fixed list of terms in files given as chunk streams.

    Each term is counted independently (overlapping *terms* both count); within one term,
    occurrences are counted leftmost-first without overlap, as ``bytes.count`` does.
    """

    def __init__(self, terms: Sequence[str]) -> None:
        self.terms = tuple(terms)
        self._needles = [needle(t) for t in self.terms]
        self._bordered = [has_border(n) for n in self._needles]
        self._carry_len = max(len(n) for n in self._needles) - 1 if self._needles else 0

    def count_bytes(self, data: bytes) -> list[int]:
        """Counts in one whole buffer (the reference definition)."""
        low = data.lower()
        return [low.count(n) for n in self._needles]

    def count_chunks(self, chunks: Iterable[bytes], lowered: list[bytes] | None = None) -> list[int]:
        """Counts in a file given as consecutive chunks; equals ``count_bytes(b"".join(chunks))``.

        With ``lowered``, each chunk's lower-cased bytes are appended to it (the detector's
        prefilters read them, so the file is lower-cased once).
        """
        counts = [0] * len(self._needles)
        # resume[i]: first offset in the next buffer where term i may start a new match
        resume = [0] * len(self._needles)
        carry = b""
        for chunk in chunks:
            if not chunk:
                continue
            low = chunk.lower()
            if lowered is not None:
                lowered.append(low)
            buf = carry + low if carry else low
            for i, pattern in enumerate(self._needles):
                found, resume[i] = self._count_in(buf, pattern, resume[i], self._bordered[i])
                counts[i] += found
            keep = min(self._carry_len, len(buf))
            carry = buf[len(buf) - keep :]
            shift = len(buf) - keep
            resume = [max(r - shift, 0) for r in resume]
        return counts

    def _count_in(self, buf: bytes, pattern: bytes, start: int, bordered: bool) -> tuple[int, int]:
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
