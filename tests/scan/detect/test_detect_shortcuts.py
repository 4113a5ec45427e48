"""The detector's shortcuts give the answers of the plain definitions they stand for."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.scan.detect.typescript.classes import _EXTENDS
from pipeline.scan.detect.typescript.imports import _OPENCLAW_REEXPORT, imports_name
from pipeline.scan.detect.typescript.names import DEFAULT_IMPORT, imported_plainly, may_import_default
from pipeline.scan.detect.typescript.openclaw import _FROM_OPENCLAW, _FROM_RELATIVE, _STAR_FROM_OPENCLAW
from pipeline.scan.detect.typescript.rows import _SDK_CLASS

#: pieces of import statements, glued at random into a file
_PIECES = ["import", "type", "from", "const", "let", "var", "require", "(", "{", "}", ",", "=", ";", " ", "\n",
           "\t", "'x'", '"./a"', "foo", "foofrom", "$foo", "$", "as", "export", "openclaw", "Foo", "_"]
_TEXTS = st.lists(st.sampled_from(_PIECES), max_size=24).map(lambda parts: "".join(parts).encode())
_NAMES = st.sampled_from(["foo", "foofrom", "$foo", "type", "import", "from", "fo", "a b", "x.y", "_"])


def _imports_name_reference(data: bytes, name: str) -> bool:
    """``imports_name`` as first written: one expression built around the name."""
    word = name.encode()
    plain = re.escape(word)
    named = rb"\{[^{}]*(?<![\w$])%s(?![\w$])[^{}]*\}" % plain
    pattern = (rb"\bimport\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?%s\s*from\b|\bimport\s+(?:type\s+)?%s\s*(?:,|from\b)"
               rb"|\b(?:const|let|var)\s+(?:%s|%s)\s*=\s*require\s*\(") % (named, plain, named, plain)
    return word in data and re.search(pattern, data) is not None


@settings(max_examples=400, deadline=None)
@given(_TEXTS, _NAMES)
def test_imports_name_equals_its_expression(data: bytes, name: str) -> None:
    assert imports_name(data, name) == _imports_name_reference(data, name)
    if imported_plainly(data, name.encode()):
        assert _imports_name_reference(data, name)


@settings(max_examples=400, deadline=None)
@given(_TEXTS, _NAMES)
def test_a_default_import_is_never_ruled_out_wrongly(data: bytes, name: str) -> None:
    word = name.encode()
    if re.search(DEFAULT_IMPORT % re.escape(word), data) is not None:
        assert may_import_default(data, word)


@pytest.mark.parametrize("text", [b"import foofrom 'x'", b"import a, { import foo from 'z' } from 'y'",
                                  b"import $import foo from 'x'", b"let foo=require (",
                                  b"import type foo, {b} from 'c'"])
def test_import_corner_cases(text: bytes) -> None:
    for name in ("foo", "type", "import", "a"):
        assert imports_name(text, name) == _imports_name_reference(text, name)
        if re.search(DEFAULT_IMPORT % re.escape(name.encode()), text) is not None:
            assert may_import_default(text, name.encode())


#: each expression written with its literal first, and as first written (``\b`` before the literal)
_LITERAL_FIRST = [
    (_FROM_OPENCLAW, rb"\bimport", rb"import(?<=\bimport)"),
    (_FROM_RELATIVE, rb"\bimport", rb"import(?<=\bimport)"),
    (_STAR_FROM_OPENCLAW, rb"\bimport", rb"import(?<=\bimport)"),
    (_OPENCLAW_REEXPORT, rb"\bexport", rb"export(?<=\bexport)"),
    (_SDK_CLASS, rb"\bclass", rb"class(?<=\bclass)"),
    (_EXTENDS, rb"\bclass", rb"class(?<=\bclass)"),
]
_CODE = st.lists(st.sampled_from([*_PIECES, "class", " McpServer", "extends", "X", "*", "./b", "openclaw/x", "<T>"]),
                 max_size=30).map(lambda parts: "".join(parts).encode())


@settings(max_examples=300, deadline=None)
@given(_CODE)
def test_literal_first_expressions_match_as_first_written(data: bytes) -> None:
    for pattern, written, fast in _LITERAL_FIRST:
        assert pattern.pattern.startswith(fast)
        original = re.compile(written + pattern.pattern[len(fast):], pattern.flags)
        assert [m.span() + m.groups() for m in pattern.finditer(data)] == \
            [m.span() + m.groups() for m in original.finditer(data)]
