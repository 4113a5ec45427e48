"""TermCounter: case-insensitive, non-overlapping byte counts, whole and chunked."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest
import synth
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.scan.count import TermCounter
from pipeline.terms import TERM_SETS

PUBLISHED = TERM_SETS["published"]  # readOnlyHint, destructiveHint, idempotentHint, openWorldHint, annotations

#: fragments that make matches, near-matches and overlaps frequent when concatenated
FRAGMENTS = [
    b"a", b"A", b"b", b"B", b"ab", b"aba", b"ABA", b"aa", b"bab", b"x", b"\0", b"\xff", b"\n",
    b"annotations", b"ANNOTATIONS", b"annotat", b"ions", b"tool", b"TOOL", b"toolAnnotations",
    b"readOnly", b"Hint", b"HINT", b"readonlyhint",
]
#: terms with borders ("aa", "aba", "abab"), terms contained in others, and ordinary ones
TERM_POOL = [
    "a", "b", "aa", "aba", "abab", "aab", "baa", "bab", "ab",
    "annotations", "toolannotations", "ToolAnnotations", "ons", "readOnlyHint", "hint",
]

data_st = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map(b"".join)
terms_st = st.lists(st.sampled_from(TERM_POOL), min_size=1, max_size=6, unique_by=str.lower)
small_terms_st = st.lists(st.text(alphabet="abAB", min_size=1, max_size=5), min_size=1, max_size=4, unique_by=str.lower)
PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference(terms: list[str] | tuple[str, ...], data: bytes) -> list[int]:
    """The definition: ASCII-lower-case both sides and count non-overlapping occurrences."""
    return [data.lower().count(term.encode("utf-8").lower()) for term in terms]


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    """``data`` cut at the given offsets (repeated offsets give empty chunks)."""
    bounds = [0, *sorted(min(c, len(data)) for c in cuts), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def published(**counts: int) -> list[int]:
    """Expected counts of the published set, zero unless given."""
    return [counts.get(term, 0) for term in PUBLISHED]


# --- case variants --------------------------------------------------------------------


@pytest.mark.parametrize(
    "spelling", ["readOnlyHint", "READONLYHINT", "ReadOnlyHint", "readonlyhint", "rEaDoNlYhInT"]
)
def test_every_spelling_of_a_hint_counts(spelling: str) -> None:
    data = f"x = {spelling}; y = {spelling}\n".encode()
    assert TermCounter(PUBLISHED).count_bytes(data) == published(readOnlyHint=2)
    assert TermCounter(PUBLISHED).count_chunks([data]) == published(readOnlyHint=2)


def test_term_case_does_not_matter() -> None:
    data = b"ReadOnlyHint readonlyhint READONLYHINT"
    for term in ("readOnlyHint", "READONLYHINT", "readonlyhint"):
        assert TermCounter([term]).count_bytes(data) == [3]


def test_go_style_struct_fields() -> None:
    data = b"&mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: ptr(false)}\nAnnotations: nil,\n"
    assert TermCounter(PUBLISHED).count_bytes(data) == published(readOnlyHint=1, destructiveHint=1, annotations=2)


def test_synthetic_servers() -> None:
    counter = TermCounter(PUBLISHED)
    # counted by hand from the text in tests/synth.py
    assert counter.count_bytes(synth.FASTMCP_SERVER) == published(
        readOnlyHint=1, destructiveHint=1, idempotentHint=1, openWorldHint=1, annotations=4
    )
    assert counter.count_bytes(synth.GO_SERVER) == published(readOnlyHint=1, openWorldHint=1, annotations=2)
    assert counter.count_bytes(synth.SILENT_SERVER) == published(annotations=1)


def test_snake_case_is_not_camel_case() -> None:
    assert TermCounter(["readOnlyHint", "read_only_hint"]).count_bytes(b"read_only_hint=True") == [0, 1]


# --- overlaps -------------------------------------------------------------------------


def test_matches_of_one_term_do_not_overlap() -> None:
    assert TermCounter(["aa"]).count_bytes(b"aaaaa") == [2]
    assert TermCounter(["aba"]).count_bytes(b"ababa") == [1]
    assert TermCounter(["abab"]).count_bytes(b"abababab") == [2]


def test_overlapping_terms_each_count() -> None:
    counter = TermCounter(["annotations", "toolannotations"])
    assert counter.count_bytes(b"ToolAnnotations annotations") == [2, 1]


# --- chunk boundaries -----------------------------------------------------------------


def test_match_straddling_the_boundary_counts_once_at_every_cut() -> None:
    data = b"xx readOnlyHint yy"
    counter = TermCounter(PUBLISHED)
    for cut in range(len(data) + 1):
        assert counter.count_chunks([data[:cut], data[cut:]]) == published(readOnlyHint=1), cut


def test_match_ending_exactly_at_a_chunk_end() -> None:
    counter = TermCounter(["annotations"])
    assert counter.count_chunks([b"annotations", b"annotations", b"x"]) == [2]
    assert counter.count_chunks([b"annotation", b"s", b"annotations"]) == [2]


def test_bordered_term_across_boundaries() -> None:
    counter = TermCounter(["aa"])
    assert counter.count_chunks([b"a", b"aa"]) == [1]  # "aaa": one non-overlapping match
    assert counter.count_chunks([b"aa", b"aa"]) == [2]
    assert counter.count_chunks([b"a", b"a", b"a", b"a", b"a"]) == [2]
    assert TermCounter(["abab"]).count_chunks([b"ab", b"ab", b"ab"]) == [1]  # "ababab"


def test_one_byte_chunks() -> None:
    data = b"ToolAnnotations(readOnlyHint=True) annotations ANNOTATIONS"
    assert TermCounter(PUBLISHED).count_chunks([bytes([c]) for c in data]) == published(
        readOnlyHint=1, annotations=3
    )


def test_empty_chunks_in_the_middle_of_a_stream() -> None:
    chunks = [b"", b"read", b"", b"", b"OnlyHint", b"", b"annot", b"", b"ations", b""]
    assert TermCounter(PUBLISHED).count_chunks(chunks) == published(readOnlyHint=1, annotations=1)


def test_chunks_from_a_one_shot_iterator() -> None:
    def stream() -> Iterator[bytes]:
        yield b"destructive"
        yield b"Hint destructiveHi"
        yield b"nt"

    assert TermCounter(PUBLISHED).count_chunks(stream()) == published(destructiveHint=2)


def test_chunks_far_longer_than_the_terms() -> None:
    rng = random.Random(7)
    filler = bytes(rng.choice(b"xyz \n") for _ in range(50_000))
    data = filler + b"openWorldHint" + filler + b"OPENWORLDHINT" + filler
    counter = TermCounter(PUBLISHED)
    for size in (1, 13, 4096, 50_005, 65_536):
        chunks = [data[i : i + size] for i in range(0, len(data), size)]
        assert counter.count_chunks(chunks) == published(openWorldHint=2), size


# --- binary and empty -----------------------------------------------------------------


def test_empty_file() -> None:
    counter = TermCounter(PUBLISHED)
    assert counter.count_bytes(b"") == published()
    assert counter.count_chunks([]) == published()
    assert counter.count_chunks([b"", b""]) == published()


def test_binary_data_with_nuls_is_counted_byte_for_byte() -> None:
    data = b"\x00\x01annotations\x00\xff\xfeANNOTATIONS\x00anno\x00tations\x80readOnlyHint\x00"
    counter = TermCounter(PUBLISHED)
    assert counter.count_bytes(data) == published(annotations=2, readOnlyHint=1)
    assert counter.count_chunks([data[:5], data[5:20], data[20:]]) == published(annotations=2, readOnlyHint=1)


def test_no_terms() -> None:
    assert TermCounter([]).count_bytes(b"anything") == []
    assert TermCounter([]).count_chunks([b"anything", b"else"]) == []


# --- non-ASCII terms ------------------------------------------------------------------


def test_non_ascii_term_folds_ascii_letters_only() -> None:
    # "café" in UTF-8 is b"caf\xc3\xa9"; only the ASCII letters fold, so "CAFé" matches and
    # "CAFÉ" (É is b"\xc3\x89") does not: bytes.lower() is the definition.
    data = "café CAFé CAFÉ cafe".encode()
    counter = TermCounter(["café"])
    assert counter.count_bytes(data) == [2]
    encoded = "café".encode()
    assert counter.count_chunks([data[:3], data[3:4], data[4:]]) == [2]
    assert counter.count_chunks([data[: len(encoded) - 1], data[len(encoded) - 1 :]]) == [2]


def test_non_ascii_term_in_latin1_data_does_not_match() -> None:
    assert TermCounter(["é"]).count_bytes("é".encode("latin-1")) == [0]
    assert TermCounter(["é"]).count_bytes("é".encode()) == [1]


# --- properties -----------------------------------------------------------------------


@PROPERTY
@given(data=data_st, terms=terms_st, cuts=st.lists(st.integers(min_value=0, max_value=1000), max_size=12))
def test_chunked_equals_whole(data: bytes, terms: list[str], cuts: list[int]) -> None:
    counter = TermCounter(terms)
    assert counter.count_chunks(split(data, cuts)) == counter.count_bytes(data)


@PROPERTY
@given(data=st.text(alphabet="abAB", max_size=60).map(str.encode), terms=small_terms_st, draw=st.data())
def test_chunked_equals_whole_small_alphabet(data: bytes, terms: list[str], draw: st.DataObject) -> None:
    cuts = draw.draw(st.lists(st.integers(min_value=0, max_value=len(data)), max_size=len(data) + 2))
    counter = TermCounter(terms)
    assert counter.count_chunks(split(data, cuts)) == reference(terms, data)


@PROPERTY
@given(data=st.binary(max_size=300), terms=terms_st, cuts=st.lists(st.integers(min_value=0, max_value=300)))
def test_chunked_equals_whole_random_bytes(data: bytes, terms: list[str], cuts: list[int]) -> None:
    counter = TermCounter(terms)
    assert counter.count_chunks(split(data, cuts)) == counter.count_bytes(data) == reference(terms, data)


@PROPERTY
@given(data=data_st, terms=terms_st)
def test_counts_do_not_depend_on_ascii_case(data: bytes, terms: list[str]) -> None:
    counter = TermCounter(terms)
    expected = counter.count_bytes(data)
    assert counter.count_bytes(data.swapcase()) == expected
    assert counter.count_bytes(data.upper()) == expected
    assert TermCounter([t.swapcase() for t in terms]).count_bytes(data) == expected
    assert counter.count_chunks([data.swapcase()]) == expected


@PROPERTY
@given(data=data_st, terms=terms_st)
def test_count_bytes_is_the_reference(data: bytes, terms: list[str]) -> None:
    assert TermCounter(terms).count_bytes(data) == reference(terms, data)
