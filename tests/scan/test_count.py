"""TermCounter: case-insensitive, non-overlapping byte counts, whole and chunked, on both engines."""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import random
import sys
from collections.abc import Iterator

import pytest
import synth
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.manifest.terms import TERM_SETS
from pipeline.scan.count import ENGINE_VARIABLE, TermCounter

PUBLISHED = TERM_SETS["published"]  # readOnlyHint, destructiveHint, idempotentHint, openWorldHint, annotations

HAVE_HYPERSCAN = importlib.util.find_spec("hyperscan") is not None
needs_hyperscan = pytest.mark.skipif(not HAVE_HYPERSCAN, reason="hyperscan is not installed")
#: tests taking ``engine`` run on both engines
engines = pytest.mark.parametrize("engine", [pytest.param("hyperscan", marks=needs_hyperscan), "python"])

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
#: more terms for the engine comparison: punctuation and regex syntax (the native engine
#: compiles terms as expressions), NUL, non-ASCII letters whose UTF-8 bytes must not fold
WIDE_TERM_POOL = [
    *TERM_POOL, *TERM_SETS["dialects"], "#", "(", ".", ".*", "a|b", "[a-z]", "\\x41", "\\", "$", "^a",
    "x\0y", "\0", "é", "É", "café", "\xff", "ß",
]
TERM_ALPHABET = "aAbB#[(.*é\0"

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


def recase(data: bytes, flips: int) -> bytes:
    """``data`` with the ASCII case of byte ``i`` swapped where bit ``i`` of ``flips`` is set."""
    letters = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return bytes(b ^ 0x20 if b in letters and flips >> i & 1 else b for i, b in enumerate(data))


@contextlib.contextmanager
def hit_budget(min_hits: int, bytes_per_hit: int) -> Iterator[None]:
    """The native engine's density budget set for a while (it hands dense buffers to Python)."""
    from pipeline.scan import match

    saved = match.MIN_HITS, match.BYTES_PER_HIT
    match.MIN_HITS, match.BYTES_PER_HIT = min_hits, bytes_per_hit
    try:
        yield
    finally:
        match.MIN_HITS, match.BYTES_PER_HIT = saved


# --- case variants --------------------------------------------------------------------


@engines
@pytest.mark.parametrize(
    "spelling", ["readOnlyHint", "READONLYHINT", "ReadOnlyHint", "readonlyhint", "rEaDoNlYhInT"]
)
def test_every_spelling_of_a_hint_counts(spelling: str, engine: str) -> None:
    data = f"x = {spelling}; y = {spelling}\n".encode()
    assert TermCounter(PUBLISHED, engine).count_bytes(data) == published(readOnlyHint=2)
    assert TermCounter(PUBLISHED, engine).count_chunks([data]) == published(readOnlyHint=2)


@engines
def test_term_case_does_not_matter(engine: str) -> None:
    data = b"ReadOnlyHint readonlyhint READONLYHINT"
    for term in ("readOnlyHint", "READONLYHINT", "readonlyhint"):
        assert TermCounter([term], engine).count_bytes(data) == [3]
        assert TermCounter([term], engine).count_chunks([data]) == [3]


@engines
def test_go_style_struct_fields(engine: str) -> None:
    data = b"&mcp.ToolAnnotations{ReadOnlyHint: true, DestructiveHint: ptr(false)}\nAnnotations: nil,\n"
    expected = published(readOnlyHint=1, destructiveHint=1, annotations=2)
    assert TermCounter(PUBLISHED, engine).count_bytes(data) == expected
    assert TermCounter(PUBLISHED, engine).count_chunks([data]) == expected


@engines
def test_synthetic_servers(engine: str) -> None:
    counter = TermCounter(PUBLISHED, engine)
    # counted by hand from the text in tests/synth.py
    assert counter.count_chunks([synth.FASTMCP_SERVER]) == published(
        readOnlyHint=1, destructiveHint=1, idempotentHint=1, openWorldHint=1, annotations=4
    )
    assert counter.count_chunks([synth.GO_SERVER]) == published(readOnlyHint=1, openWorldHint=1, annotations=2)
    assert counter.count_chunks([synth.SILENT_SERVER]) == published(annotations=1)


@engines
def test_snake_case_is_not_camel_case(engine: str) -> None:
    assert TermCounter(["readOnlyHint", "read_only_hint"], engine).count_chunks([b"read_only_hint=True"]) == [0, 1]


@engines
def test_punctuation_and_regex_syntax_are_literal(engine: str) -> None:
    terms = ["#[IsReadOnly", "[McpServerTool(", ".*", "a|b", "\\x41", "x\0y", "$"]
    data = b"#[isreadonly] #[IsReadOnly(true)] [mcpservertool(Name) .* a|b A|B ab \\X41 A x\0Y xy $$"
    assert TermCounter(terms, engine).count_chunks([data[:7], data[7:]]) == [2, 1, 1, 2, 1, 1, 2]


# --- overlaps -------------------------------------------------------------------------


@engines
def test_matches_of_one_term_do_not_overlap(engine: str) -> None:
    assert TermCounter(["aa"], engine).count_chunks([b"aaaaa"]) == [2]
    assert TermCounter(["aba"], engine).count_chunks([b"ababa"]) == [1]
    assert TermCounter(["abab"], engine).count_chunks([b"abababab"]) == [2]


@engines
def test_overlapping_terms_each_count(engine: str) -> None:
    counter = TermCounter(["annotations", "toolannotations"], engine)
    assert counter.count_chunks([b"ToolAnnotations annotations"]) == [2, 1]


# --- chunk boundaries -----------------------------------------------------------------


@engines
def test_match_straddling_the_boundary_counts_once_at_every_cut(engine: str) -> None:
    data = b"xx readOnlyHint yy"
    counter = TermCounter(PUBLISHED, engine)
    for cut in range(len(data) + 1):
        assert counter.count_chunks([data[:cut], data[cut:]]) == published(readOnlyHint=1), cut


@engines
def test_match_ending_exactly_at_a_chunk_end(engine: str) -> None:
    counter = TermCounter(["annotations"], engine)
    assert counter.count_chunks([b"annotations", b"annotations", b"x"]) == [2]
    assert counter.count_chunks([b"annotation", b"s", b"annotations"]) == [2]


@engines
def test_bordered_term_across_boundaries(engine: str) -> None:
    counter = TermCounter(["aa"], engine)
    assert counter.count_chunks([b"a", b"aa"]) == [1]  # "aaa": one non-overlapping match
    assert counter.count_chunks([b"aa", b"aa"]) == [2]
    assert counter.count_chunks([b"a", b"a", b"a", b"a", b"a"]) == [2]
    assert TermCounter(["abab"], engine).count_chunks([b"ab", b"ab", b"ab"]) == [1]  # "ababab"


@engines
def test_one_byte_chunks(engine: str) -> None:
    data = b"ToolAnnotations(readOnlyHint=True) annotations ANNOTATIONS"
    assert TermCounter(PUBLISHED, engine).count_chunks([bytes([c]) for c in data]) == published(
        readOnlyHint=1, annotations=3
    )


@engines
def test_empty_chunks_in_the_middle_of_a_stream(engine: str) -> None:
    chunks = [b"", b"read", b"", b"", b"OnlyHint", b"", b"annot", b"", b"ations", b""]
    assert TermCounter(PUBLISHED, engine).count_chunks(chunks) == published(readOnlyHint=1, annotations=1)


@engines
def test_chunks_from_a_one_shot_iterator(engine: str) -> None:
    def stream() -> Iterator[bytes]:
        yield b"destructive"
        yield b"Hint destructiveHi"
        yield b"nt"

    assert TermCounter(PUBLISHED, engine).count_chunks(stream()) == published(destructiveHint=2)


@engines
def test_chunks_far_longer_than_the_terms(engine: str) -> None:
    rng = random.Random(7)
    filler = bytes(rng.choice(b"xyz \n") for _ in range(50_000))
    data = filler + b"openWorldHint" + filler + b"OPENWORLDHINT" + filler
    counter = TermCounter(PUBLISHED, engine)
    for size in (1, 13, 4096, 50_005, 65_536):
        chunks = [data[i : i + size] for i in range(0, len(data), size)]
        assert counter.count_chunks(chunks) == published(openWorldHint=2), size


# --- dense matches: the native engine hands those buffers to the Python one ----------


@engines
def test_dense_single_byte_terms(engine: str) -> None:
    data = b"eE" * 3000 + b"x" * 5000 + b"Ee" * 10 + b"e"
    counter = TermCounter(["e", "ee", "eee", "x"], engine)
    expected = reference(counter.terms, data)
    for size in (1, 7, 1000, 4096, len(data)):
        assert counter.count_chunks([data[i : i + size] for i in range(0, len(data), size)]) == expected, size


# --- binary and empty -----------------------------------------------------------------


@engines
def test_empty_file(engine: str) -> None:
    counter = TermCounter(PUBLISHED, engine)
    assert counter.count_bytes(b"") == published()
    assert counter.count_chunks([]) == published()
    assert counter.count_chunks([b"", b""]) == published()


@engines
def test_binary_data_with_nuls_is_counted_byte_for_byte(engine: str) -> None:
    data = b"\x00\x01annotations\x00\xff\xfeANNOTATIONS\x00anno\x00tations\x80readOnlyHint\x00"
    counter = TermCounter(PUBLISHED, engine)
    assert counter.count_bytes(data) == published(annotations=2, readOnlyHint=1)
    assert counter.count_chunks([data[:5], data[5:20], data[20:]]) == published(annotations=2, readOnlyHint=1)


@engines
def test_no_terms(engine: str) -> None:
    assert TermCounter([], engine).count_bytes(b"anything") == []
    assert TermCounter([], engine).count_chunks([b"anything", b"else"]) == []


# --- non-ASCII terms ------------------------------------------------------------------


@engines
def test_non_ascii_term_folds_ascii_letters_only(engine: str) -> None:
    # "café" in UTF-8 is b"caf\xc3\xa9"; only the ASCII letters fold, so "CAFé" matches and
    # "CAFÉ" (É is b"\xc3\x89") does not: bytes.lower() is the definition.
    data = "café CAFé CAFÉ cafe".encode()
    counter = TermCounter(["café"], engine)
    assert counter.count_bytes(data) == [2]
    encoded = "café".encode()
    assert counter.count_chunks([data[:3], data[3:4], data[4:]]) == [2]
    assert counter.count_chunks([data[: len(encoded) - 1], data[len(encoded) - 1 :]]) == [2]


@engines
def test_non_ascii_term_in_latin1_data_does_not_match(engine: str) -> None:
    assert TermCounter(["é"], engine).count_chunks(["é".encode("latin-1")]) == [0]
    assert TermCounter(["é"], engine).count_chunks(["é".encode()]) == [1]
    # bytes 0xc0-0xde are not upper case of 0xe0-0xfe for bytes.lower, nor for hyperscan
    assert TermCounter(["É", "é"], engine).count_chunks([b"\xc3\xa9 \xc3\x89 \xc3\x89"]) == [2, 1]


# --- choosing the engine --------------------------------------------------------------


@needs_hyperscan
def test_hyperscan_is_the_default_when_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENGINE_VARIABLE, raising=False)
    assert TermCounter(PUBLISHED).engine == "hyperscan"
    assert TermCounter([]).engine == "python"  # nothing to compile


def test_the_environment_variable_picks_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENGINE_VARIABLE, "python")
    assert TermCounter(PUBLISHED).engine == "python"
    monkeypatch.setenv(ENGINE_VARIABLE, "grep")
    with pytest.raises(ValueError, match="unknown matcher 'grep'"):
        TermCounter(PUBLISHED)
    assert TermCounter(PUBLISHED, engine="python").engine == "python"


def test_without_hyperscan_the_python_engine_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENGINE_VARIABLE, raising=False)
    monkeypatch.setitem(sys.modules, "hyperscan", None)  # makes `import hyperscan` fail
    monkeypatch.delitem(sys.modules, "pipeline.scan.match", raising=False)
    counter = TermCounter(PUBLISHED)
    assert counter.engine == "python"
    assert counter.count_chunks([b"readOnly", b"Hint"]) == published(readOnlyHint=1)
    with pytest.raises(ImportError):
        TermCounter(PUBLISHED, engine="hyperscan")


# --- properties -----------------------------------------------------------------------


@engines
@PROPERTY
@given(data=data_st, terms=terms_st, cuts=st.lists(st.integers(min_value=0, max_value=1000), max_size=12))
def test_chunked_equals_whole(engine: str, data: bytes, terms: list[str], cuts: list[int]) -> None:
    counter = TermCounter(terms, engine)
    assert counter.count_chunks(split(data, cuts)) == counter.count_bytes(data)


@engines
@PROPERTY
@given(data=st.text(alphabet="abAB", max_size=60).map(str.encode), terms=small_terms_st, draw=st.data())
def test_chunked_equals_whole_small_alphabet(engine: str, data: bytes, terms: list[str], draw: st.DataObject) -> None:
    cuts = draw.draw(st.lists(st.integers(min_value=0, max_value=len(data)), max_size=len(data) + 2))
    counter = TermCounter(terms, engine)
    assert counter.count_chunks(split(data, cuts)) == reference(terms, data)


@engines
@PROPERTY
@given(data=st.binary(max_size=300), terms=terms_st, cuts=st.lists(st.integers(min_value=0, max_value=300)))
def test_chunked_equals_whole_random_bytes(engine: str, data: bytes, terms: list[str], cuts: list[int]) -> None:
    counter = TermCounter(terms, engine)
    assert counter.count_chunks(split(data, cuts)) == counter.count_bytes(data) == reference(terms, data)


@PROPERTY
@given(data=data_st, terms=terms_st)
def test_counts_do_not_depend_on_ascii_case(data: bytes, terms: list[str]) -> None:
    counter = TermCounter(terms, "python")
    expected = counter.count_bytes(data)
    assert counter.count_bytes(data.swapcase()) == expected
    assert counter.count_bytes(data.upper()) == expected
    assert TermCounter([t.swapcase() for t in terms]).count_bytes(data) == expected
    assert counter.count_chunks([data.swapcase()]) == expected


@PROPERTY
@given(data=data_st, terms=terms_st)
def test_count_bytes_is_the_reference(data: bytes, terms: list[str]) -> None:
    assert TermCounter(terms).count_bytes(data) == reference(terms, data)


@st.composite
def streams(draw: st.DrawFn) -> tuple[list[str], bytes, list[bytes]]:
    """Terms, a file made of their case variants, fragments and random bytes, and its chunks."""
    words = st.one_of(st.sampled_from(WIDE_TERM_POOL), st.text(alphabet=TERM_ALPHABET, min_size=1, max_size=5))
    terms = draw(st.lists(words, min_size=1, max_size=7, unique_by=lambda t: t.encode().lower()))
    variants = st.builds(recase, st.sampled_from(terms).map(str.encode), st.integers(0, 2**16))
    pieces = st.one_of(variants, st.sampled_from(FRAGMENTS), st.binary(max_size=6))
    data = b"".join(draw(st.lists(pieces, max_size=30)))
    if draw(st.booleans()):
        return terms, data, [data[i : i + 1] for i in range(len(data))]
    return terms, data, split(data, draw(st.lists(st.integers(0, len(data)), max_size=12)))


#: the native engine as configured, never giving up, and giving up on any buffer with a match
BUDGETS = {"default": None, "native only": (10**9, 10**9), "python on any match": (0, 10**9)}


@PROPERTY
@given(case=streams())
def test_both_engines_equal_the_reference(case: tuple[list[str], bytes, list[bytes]]) -> None:
    terms, data, chunks = case
    expected = TermCounter(terms).count_bytes(data)
    assert expected == reference(terms, data)
    assert TermCounter(terms, "python").count_chunks(chunks) == expected
    if not HAVE_HYPERSCAN:
        return
    counter = TermCounter(terms, "hyperscan")
    for name, budget in BUDGETS.items():
        with hit_budget(*budget) if budget else contextlib.nullcontext():
            assert counter.count_chunks(iter(chunks)) == expected, name


@PROPERTY
@given(words=st.lists(st.text(alphabet="abAB.(", min_size=1, max_size=4), min_size=1, max_size=6,
                      unique_by=str.lower),
       data=st.binary(max_size=300).map(lambda b: b.replace(b"\xc9", b"A")) | st.text(alphabet="abAB.( \xe9").map(
           lambda t: t.encode()))
def test_word_presence_equals_the_reference_on_both_engines(words: list[str], data: bytes) -> None:
    """``count_and_find`` reports the words in the same scan as the counts; both equal the reference."""
    expected = frozenset(w for w in words if w.lower().encode() in data.lower())
    terms = ["ab", "B(", "aa"]
    counts = reference(terms, data)
    assert TermCounter(terms, "python", words).count_and_find(data) == (counts, expected)
    if HAVE_HYPERSCAN:
        counter = TermCounter(terms, "hyperscan", words)
        for name, budget in BUDGETS.items():
            with hit_budget(*budget) if budget else contextlib.nullcontext():
                assert counter.count_and_find(data) == (counts, expected), name


@engines
def test_word_presence_reports_a_frequent_word_once(engine: str) -> None:
    counter = TermCounter(["tool"], engine, ("tool", "mcp", "hint"))
    assert counter.count_and_find(b"TOOL tool ToOl " * 10_000 + b"mcP") == ([30_000], frozenset({"tool", "mcp"}))
    assert counter.count_and_find(b"") == ([0], frozenset())


def test_threads_scan_at_once_with_one_compiled_database_each() -> None:
    """A Dask worker runs several tasks in threads: their counters never share a scratch space."""
    from concurrent.futures import ThreadPoolExecutor

    data = [(b"readOnlyHint x " * n + b"ANNOTATIONS" * (n % 3)) * 50 for n in range(1, 41)]

    def count(buffer: bytes) -> list[int]:
        return TermCounter(("readOnlyHint", "annotations"), engine="auto").count_chunks([buffer[:7], buffer[7:]])

    with ThreadPoolExecutor(4) as pool:
        found = list(pool.map(count, data * 5))
    assert found == [[b.lower().count(b"readonlyhint"), b.lower().count(b"annotations")] for b in data * 5]
