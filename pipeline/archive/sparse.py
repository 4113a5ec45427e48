"""Pax sparse members (GNU formats 0.0, 0.1 and 1.0): their map of data runs, and their content
with the holes given back as zeros. ``TarReader`` calls these; old GNU sparse members (``S``)
are not expanded."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from pipeline.archive.tarfields import BLOCK, Header, _broken, _integer, _zeros


def runs(payload: bytes, fields: dict[bytes, bytes], map_block: Callable[[int], bytes]) -> list[tuple[int, int]] | None:
    """The (offset, length) data runs a pax header's records give, or ``None`` for a member that
    is not sparse; format 1.0 reads its map from the member's first blocks (``map_block``)."""
    if b"GNU.sparse.map" in fields:
        numbers = [_integer(n) for n in fields[b"GNU.sparse.map"].split(b",")]
    elif b"GNU.sparse.size" in fields:
        offsets = re.findall(rb"\d+ GNU.sparse.offset=(\d+)\n", payload)
        lengths = re.findall(rb"\d+ GNU.sparse.numbytes=(\d+)\n", payload)
        numbers = [int(n) for pair in zip(offsets, lengths, strict=False) for n in pair]
    elif fields.get(b"GNU.sparse.major") == b"1" and fields.get(b"GNU.sparse.minor") == b"0":
        numbers = _map_blocks(map_block)
    else:
        return None
    return list(zip(numbers[::2], numbers[1::2], strict=False))


def _map_blocks(map_block: Callable[[int], bytes]) -> list[int]:
    """Format 1.0: the map sits in the member's first data blocks, as decimal lines."""
    count, _, text = map_block(0).partition(b"\n")
    wanted, taken = 2 * _integer(count), BLOCK
    numbers: list[int] = []
    while len(numbers) < wanted:
        while b"\n" not in text:
            text += map_block(taken)
            taken += BLOCK
        number, _, text = text.partition(b"\n")
        numbers.append(_integer(number))
    return numbers


def pieces(header: Header, available: int, data: Callable[[int], Iterator[bytes]]) -> Iterator[bytes]:
    """A pax sparse member's content: zeros for the holes, ``data(length)`` for the runs
    (``available`` bytes of data are stored)."""
    position = 0
    for offset, length in header.sparse or ():
        end = min(offset + length, header.size)
        if offset < end:
            if offset < position:
                raise _broken("unsupported sparse map")
            yield from _zeros(offset - position)
            available -= end - offset
            if available < 0:
                raise _broken("sparse map beyond the member data")
            yield from data(end - offset)
            position = end
    yield from _zeros(header.size - position)
