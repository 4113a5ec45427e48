"""Which functions a source file declares, read from its text without parsing it: the shelf's
index of names (``Shelf.declaring``), which decides which files a followed call may parse.

The patterns are Python regexes (``DECLARES``). The slow ones (``NATIVE``, read at a line's start)
are run by hyperscan when it is installed (about five times faster on TypeScript); each line where it
reports a match of a looser pattern (``_prefilter``: quicker to compile) is then read by the regex,
so the names are those the regex alone gives."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

_ARROW = rb"(?:async\s*)?(?:<[^>\n]*>\s*)?(?:function\b|\([^()]*\)\s*(?::[^=;{]{0,80})?=>|[\w$]+\s*=>)"
#: a function's declaration in each followed language, its name in the first group that matched;
#: TypeScript's forms other than ``function name`` are read at a line's start (where
#: declarations are written), which keeps the search fast on large files
DECLARES = {
    "python": (re.compile(rb"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)", re.M),),
    "go": (re.compile(rb"^func[ \t]*(?:\([^)]*\)[ \t]*)?(\w+)", re.M),),
    "rust": (re.compile(rb"^[ \t]*(?:pub(?:\([^)\n]*\))?\s+)?(?:(?:const|async|unsafe|extern\s+\"\w*\")\s+)*fn\s+(\w+)",
                        re.M),),
    "typescript": (
        re.compile(rb"function\s*\*?\s*([\w$]+)"),
        re.compile(  # a method, a variable or field bound to a function (typed or not), an object's function field
            rb"^[ \t]*(?:(?:export|default|declare|public|private|protected|static|async|override|readonly|get|set|"
            rb"const|let|var)\s+)*(?:[\w$]+\.)*([\w$]+)\s*(?:(?:<[^>\n]*>)?\([^()]*\)\s*(?::[^{;]{0,120})?\{"
            rb"|(?::[^=\n;]{0,160})?=\s*" + _ARROW + rb"|:\s*" + _ARROW + rb")", re.M)),
}
#: the patterns slow enough in the regex engine to be run by hyperscan first (TypeScript's line forms)
NATIVE = frozenset({DECLARES["typescript"][1]})
#: line forms that open with a keyword (``def``, ``func``, ``fn``): the keyword is found by a plain
#: search and what precedes it on its line is checked, the same matches ten times faster
LED = {
    DECLARES["python"][0]: (re.compile(rb"def[ \t]+(\w+)"), re.compile(rb"[ \t]*(?:async[ \t]+)?")),
    DECLARES["go"][0]: (re.compile(rb"func[ \t]*(?:\([^)]*\)[ \t]*)?(\w+)"), re.compile(rb"")),
    DECLARES["rust"][0]: (re.compile(rb"fn\s+(\w+)"), re.compile(
        rb"[ \t]*(?:pub(?:\([^)\n]*\))?\s+)?(?:(?:const|async|unsafe|extern\s+\"\w*\")\s+)*")),
}

#: lines searched back from the end of a match to its start (a declaration's parameters may span lines)
_MAX_LINES = 64
_LOCAL = threading.local()


def names(language: str, data: bytes) -> set[str]:
    """The names of the functions ``data`` declares, in ``language``'s way."""
    found: set[str] = set()
    for pattern in DECLARES[language]:
        if pattern in LED:
            found.update(_led(*LED[pattern], data))
            continue
        ends = _ends(pattern, data) if pattern in NATIVE else None
        if ends is None:
            found.update(m.group(1).decode("utf-8", "replace") for m in pattern.finditer(data))
            continue
        tried: set[int] = set()
        for end in ends:
            start = data.rfind(b"\n", 0, end) + 1
            for _ in range(_MAX_LINES):
                if start in tried:
                    break
                tried.add(start)
                if (match := pattern.match(data, start)) is not None:
                    found.add(match.group(1).decode("utf-8", "replace"))
                    break
                if start == 0:
                    break
                start = data.rfind(b"\n", 0, start - 1) + 1
    return found


def _led(keyword: re.Pattern[bytes], before: re.Pattern[bytes], data: bytes) -> Iterator[str]:
    """The names ``keyword`` finds where all that precedes it on its line is ``before``."""
    for match in keyword.finditer(data):
        line = data.rfind(b"\n", 0, match.start()) + 1
        if before.fullmatch(data, line, match.start()) is not None:
            yield match.group(1).decode("utf-8", "replace")


def _ends(pattern: re.Pattern[bytes], data: bytes) -> list[int] | None:
    """Where hyperscan finds ``pattern`` ending in ``data`` (``None`` without hyperscan)."""
    database = _database(pattern)
    if database is None:
        return None
    ends: list[int] = []
    database.scan(data, match_event_handler=lambda _id, _start, end, _flags, _context: ends.append(end))
    return ends


def _prefilter(pattern: bytes) -> bytes:
    """A looser ``pattern`` that compiles in a tenth of the time: a bounded repeat made unbounded,
    a list of keywords any lower-case word (every line the regex matches, it matches too)."""
    loose = re.sub(rb"\{0,\d+\}", b"*", pattern)
    return re.sub(rb"\(\?:\(\?:(?:[a-z]+\|)+[a-z]+\)\\s\+\)\*", rb"(?:[a-z]+\\s+)*", loose)


def _database(pattern: re.Pattern[bytes]) -> Any:
    """``pattern``'s prefilter compiled by hyperscan, once per thread (a database holds its scratch space)."""
    cache: dict[bytes, Any] = _LOCAL.__dict__.setdefault("databases", {})
    if pattern.pattern not in cache:
        try:
            import hyperscan  # optional: the regex alone gives the same names
        except ImportError:
            cache[pattern.pattern] = None
        else:
            database: Any = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            try:
                database.compile(expressions=[_prefilter(pattern.pattern)], ids=[0], elements=1,
                                 flags=[hyperscan.HS_FLAG_MULTILINE])
            except hyperscan.error:
                database = None  # a pattern it cannot hold is run by the regex
            cache[pattern.pattern] = database
    return cache[pattern.pattern]
