"""A manifest's TOML kept as it was written: parsed with a one-line error naming the file, and
commits set without touching any other byte.

tomlkit keeps a document's text as it was and a replaced value where it stood, but promises no
"insert after": 0.15 dropped the private method an earlier version of the census used, and
appends a new key at the end of its table, after the table's comments. So a new ``commit`` is
placed by hand, on the line after the entry's ``repo`` with that line's indentation (in an
inline table, right after ``repo``'s value): each ``repo`` value is replaced by a marker, and
where a marker lands in the rendered document is where that value stands in the text. The
result is parsed again and checked.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomlkit

from pipeline.errors import ManifestError

#: the quotes that open and close a TOML string (up to three: ``"""`` and ``'''``)
_QUOTES = "'\""


def parse(text: str, path: Path) -> Any:
    """``text`` as a tomlkit document; ``ManifestError`` naming ``path`` when it is not TOML."""
    try:
        return tomlkit.parse(text)
    except Exception as exc:  # tomlkit raises several types; all mean "not TOML"
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ManifestError(f"{path}: not valid TOML: {message}") from exc


def with_commits(text: str, commits: Mapping[int, str], path: Path) -> str:
    """``text`` with the ``[[repos]]`` entries of ``commits`` (entry index, from 1 -> SHA) pinned:
    an existing ``commit`` replaced where it stands, a new one after ``repo`` (module doc)."""
    doc = parse(text, path)
    entries = doc.get("repos")
    new = {index: commit for index, commit in commits.items() if "commit" not in entries[index - 1]}
    for index in commits.keys() - new.keys():
        entries[index - 1]["commit"] = commits[index]
    if len(new) < len(commits):
        text = tomlkit.dumps(doc)
        doc = parse(text, path)
        entries = doc.get("repos")
    raws, markers = {}, {}
    for index in sorted(new):
        raws[index] = entries[index - 1].value.item("repo").as_string()
        markers[index] = f"census-pin-{uuid.uuid4().hex}"
        entries[index - 1]["repo"] = markers[index]
    spans = _spans(text, tomlkit.dumps(doc), markers, raws, path)
    newline = "\r\n" if "\r\n" in text else "\n"
    pieces, done = [], 0
    for index in sorted(new):  # one pass: a manifest of 50,000 entries is not copied once per entry
        inline = isinstance(entries[index - 1], tomlkit.items.InlineTable)
        at, insert = _insertion(text, spans[index], new[index], newline, inline)
        pieces += [text[done:at], insert]
        done = at
    text = "".join([*pieces, text[done:]])
    placed = parse(text, path).get("repos")
    for index, commit in commits.items():
        if str(placed[index - 1].get("commit")) != commit:
            raise ManifestError(f"{path}: entry {index}: cannot set its commit; add `commit = \"{commit}\"` by hand")
    return text


def _spans(text: str, rendered: str, markers: Mapping[int, str], raws: Mapping[int, str],
           path: Path) -> dict[int, tuple[int, int]]:
    """Where each entry's ``repo`` value stands in ``text``, from where its marker stands in ``rendered``."""
    spans: dict[int, tuple[int, int]] = {}
    shift = cursor = 0  # shift: a place in ``text`` less the same place in ``rendered``
    for index, marker in markers.items():  # in entry order, which is the document's order
        found = rendered.find(marker, cursor)
        before, after = rendered[max(cursor, found - 3):found], rendered[found + len(marker):found + len(marker) + 3]
        opening, closing = len(before) - len(before.rstrip(_QUOTES)), len(after) - len(after.lstrip(_QUOTES))
        start = found - opening + shift
        if found < 0 or text[start:start + len(raws[index])] != raws[index]:
            raise ManifestError(f"{path}: entry {index}: cannot place commit after repo; add it by hand")
        cursor = found + len(marker) + closing
        spans[index] = (start, start + len(raws[index]))
        shift += len(raws[index]) - (cursor - (found - opening))
    return spans


def _insertion(text: str, span: tuple[int, int], commit: str, newline: str, inline: bool) -> tuple[int, str]:
    """Where ``commit = "SHA"`` goes for the ``repo`` value at ``span``, and the text inserted there:
    right after the value (inline), or on the next line with the same indentation."""
    start, end = span
    if inline:
        return end, f', commit = "{commit}"'
    line = text[text.rfind("\n", 0, start) + 1:start]
    indent = line[:len(line) - len(line.lstrip(" \t"))]
    stop = text.find("\n", end)
    if stop < 0:  # the last line, with no newline after it
        return len(text), f'{newline}{indent}commit = "{commit}"'
    return stop + 1, f'{indent}commit = "{commit}"{newline}'
