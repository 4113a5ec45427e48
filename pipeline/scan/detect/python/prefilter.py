"""Which Python files are worth parsing, settled from their bytes alone.

Besides a file defining ``ToolAnnotations`` or using one of the project's wrappers (which the
detector checks itself), phase 2 parses a file only if it imports something tool-related
(``imports_any``) and has the shape of a registration (``SHAPE_WORDS``, ``has_call_shape``).
The words come from ``markers`` (``HINT_MARKERS`` and ``INDEX_MARKERS`` are those phase 1's
test reads), so that the scan can search for them without importing the detector.
"""

from __future__ import annotations

import re

from pipeline.scan.detect import markers
from pipeline.scan.detect.syntax import WORD_BYTES, occurrences

HINT_MARKERS, INDEX_MARKERS, DETECT_WORDS = markers.PYTHON_HINTS, markers.PYTHON_INDEX, markers.PYTHON_DETECT
_IMPORT_KEYWORDS = (b"from ", b"from\t", b"import ", b"import\t")


def imports_any(lower: bytes, words: tuple[bytes, ...] = DETECT_WORDS) -> bool:
    """Whether a line of ``lower`` (lower-cased source) starting with ``from`` or ``import`` names
    one of ``words`` (as ``(?m)^[ \\t]*(?:from|import)[ \\t][^\\n]*(?:word|...)`` would find, at twice
    its speed: only the lines where a word occurs are looked at). A file is read in phase 2 only
    if it imports something tool-related ..."""
    return any(lower[lower.rfind(b"\n", 0, at) + 1 : at].lstrip(b" \t").startswith(_IMPORT_KEYWORDS)
               for word in words for at in occurrences(lower, word))


#: ... and has the shape of a registration, a hint's name (client code reading one is recorded),
#: or a class we exclude (or names a known wrapper); a word such as "type hint" is not enough.
#: The shapes are those the query (``syntax``) can turn into a row: a call of ``.tool`` /
#: ``.add_tool`` or of a name ending in ``Tool`` (case matters, as in the query), a decorator ``@...tool``, or
#: ``.tool`` read as a value (not ``mock.tool.called`` or ``mock.tool = ...`` in a test);
#: ``handler.call_tool(...)`` has none of them (``SHAPE_WORDS``, ``has_call_shape``)
SHAPE_WORDS = (*markers.PYTHON_SHAPE, *HINT_MARKERS)
_CALL_AFTER = re.compile(rb"\s*\(")
_ACCESS_AFTER = re.compile(rb"\s*[.=]")
_DECORATOR = re.compile(rb"@[\w.]*tool\b")


def has_call_shape(lower: bytes, data: bytes) -> bool:
    """Whether source (``data``, and ``lower``: the same lower-cased) has a call or decorator
    shape described above; with ``SHAPE_WORDS`` (which the scan finds) that is the whole shape.
    The expressions are tried only where ``tool`` or ``@`` occurs: one alternation of them all is
    three times slower, since its first characters are common letters."""
    for at in occurrences(lower, b"tool"):
        end = at + 4
        dotted = lower[at - 1 : at] == b"."
        if _CALL_AFTER.match(lower, end) and (dotted or lower[at - 5 : at] == b".add_" or data[at:end] == b"Tool"):
            return True
        if dotted and (end == len(lower) or lower[end] not in WORD_BYTES) and not _ACCESS_AFTER.match(lower, end):
            return True
    return any(_DECORATOR.match(lower, at) for at in occurrences(lower, b"@"))
