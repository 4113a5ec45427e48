"""The native engine's single-literal scans of shared factors (``pipeline.scan.factored``): the
same counts as the reference, per file, per chunk stream and per span of a tar run."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_count import BUDGETS, HAVE_HYPERSCAN, PROPERTY, hit_budget, reference, split

from pipeline.manifest.terms import TERM_SETS
from pipeline.scan.count import TermCounter, needle

pytestmark = pytest.mark.skipif(not HAVE_HYPERSCAN, reason="hyperscan is not installed")

#: terms sharing factors: a factor that is a term itself, a factor twice in a term, borders
FACTOR_POOL = [
    "readOnlyHint", "destructiveHint", "hint", "hintHint", "Hint_", "annotations", "toolAnnotations",
    "notations", "aaaa", "aaaaa", "abab", "ababab",
]
#: fragments dense in factors, near misses and case variants
FACTOR_FRAGMENTS = [
    b"hint", b"HINT", b"Hin", b"t", b"readOnly", b"READONLY", b"destructive", b"_", b"tool", b"anno",
    b"tations", b"annotations", b"a", b"aa", b"b", b"ab", b"\0", b"\xff", b"\n",
]


def grouped(terms: list[str]) -> bool:
    """Whether the native engine finds ``terms`` through shared factors."""
    from pipeline.scan import factored

    return factored.groups(tuple(needle(t) for t in terms)) is not None


factored_terms = st.lists(st.sampled_from(FACTOR_POOL), min_size=2, max_size=5, unique_by=str.lower).filter(grouped)
factor_data = st.lists(st.sampled_from(FACTOR_FRAGMENTS), max_size=50).map(b"".join)


def test_the_published_terms_take_two_single_literal_scans_and_the_dialects_one_scan() -> None:
    from pipeline.scan import factored

    published = factored.groups(tuple(needle(t) for t in TERM_SETS["published"]))
    assert published is not None
    assert [(g.factor, g.members) for g in published] == [
        (b"hint", ((0, 8), (1, 11), (2, 10), (3, 9))), (b"annotations", ((4, 0),))]
    # the dialects need four factors: one multi-literal scan is cheaper
    assert factored.groups(tuple(needle(t) for t in TERM_SETS["dialects"])) is None
    assert factored.groups((b"readonlyhint",)) is None  # one term is one literal already


def test_only_a_counter_without_words_scans_factors() -> None:
    from pipeline.scan.factored import FactoredMatcher
    from pipeline.scan.match import NativeMatcher

    assert isinstance(TermCounter(TERM_SETS["published"], "hyperscan")._native, FactoredMatcher)
    assert isinstance(TermCounter(TERM_SETS["published"], "hyperscan", words=("tool",))._native, NativeMatcher)
    assert isinstance(TermCounter(TERM_SETS["dialects"], "hyperscan")._native, NativeMatcher)


@PROPERTY
@given(data=factor_data, terms=factored_terms, cuts=st.lists(st.integers(min_value=0, max_value=600), max_size=10))
def test_factored_counts_equal_the_reference_whole_and_chunked(data: bytes, terms: list[str], cuts: list[int]) -> None:
    counter = TermCounter(terms, "hyperscan")
    expected = reference(terms, data)
    for name, budget in BUDGETS.items():
        with hit_budget(*budget) if budget else contextlib.nullcontext():
            assert counter.count_chunks(split(data, cuts)) == expected, name
            assert counter.count_and_find(data) == (expected, frozenset()), name


@PROPERTY
@given(data=factor_data, terms=factored_terms, draw=st.data())
def test_factored_counts_equal_the_reference_per_span(data: bytes, terms: list[str], draw: st.DataObject) -> None:
    cuts = sorted(draw.draw(st.lists(st.integers(min_value=0, max_value=len(data)), min_size=2, max_size=12)))
    spans = [(a, b) for a, b in zip(cuts[::2], cuts[1::2], strict=False)]
    expected = {i: found for i, (a, b) in enumerate(spans) if any(found := reference(terms, data[a:b]))}
    counter = TermCounter(terms, "hyperscan")
    for name, budget in BUDGETS.items():
        with hit_budget(*budget) if budget else contextlib.nullcontext():
            assert counter.count_spans(data, spans) == (expected, {}), name


def test_a_buffer_rich_in_bare_factors_is_counted_by_one_multi_literal_scan() -> None:
    """``hint`` everywhere but two terms: the factor's hits run over the budget, the terms' do not."""
    data = b"hint " * 500 + b"readOnlyHint annotations"
    counter = TermCounter(TERM_SETS["published"], "hyperscan")
    with hit_budget(4, 10**9):
        assert counter.count_chunks([data]) == [1, 0, 0, 0, 1]
        assert counter.count_spans(data, [(0, 2000), (2000, len(data))]) == ({1: [1, 0, 0, 0, 1]}, {})


def test_a_term_around_a_factor_at_the_edge_of_a_span_or_chunk_is_not_confirmed_outside_it() -> None:
    data = b"readOnlyHint"
    counter = TermCounter(TERM_SETS["published"], "hyperscan")
    assert counter.count_spans(data, [(0, 6), (6, 12)]) == ({}, {})  # the factor lies in the second span
    assert counter.count_spans(data, [(4, 12)]) == ({}, {})
    assert counter.count_chunks([data[:9], data[9:]]) == [1, 0, 0, 0, 0]  # whole across the cut


def test_factors_that_prove_common_are_left_for_the_multi_literal_scan_and_counts_stay_right() -> None:
    from pipeline.scan import factored

    terms = ["annotation", "exception"]  # they share only "tion", which prose is full of
    grouped = factored.groups(tuple(needle(t) for t in terms))
    assert grouped is not None
    assert [g.factor for g in grouped] == [b"tion"]
    counter = TermCounter(terms, "hyperscan")
    matcher = counter._native
    assert isinstance(matcher, factored.FactoredMatcher)
    data = b"the action of an exception in a function: ANNOTATION. " * 25_000  # 1.4 MB
    assert counter.count_chunks(split(data, [300_000, 900_000])) == reference(terms, data)
    assert not matcher.factored
    assert counter.count_spans(data, [(0, 1000), (1000, len(data))]) == (
        {0: reference(terms, data[:1000]), 1: reference(terms, data[1000:])}, {})


def test_a_rare_factor_keeps_being_scanned() -> None:
    from pipeline.scan.factored import FactoredMatcher

    counter = TermCounter(TERM_SETS["published"], "hyperscan")
    data = (b"x" * 8000 + b"readOnlyHint") * 200  # 1.6 MB, a hint every 8 KB
    assert counter.count_chunks([data]) == [200, 0, 0, 0, 0]
    assert isinstance(counter._native, FactoredMatcher)
    assert counter._native.factored
