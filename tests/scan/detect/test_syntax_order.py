"""``capture_map``: captures in source order, and of nodes that start at the same byte (a call chained
on a call) the outer first, every time: an order taken from a set of nodes would follow where they
lie in memory, and the effects analysis read the same tree two ways on two runs."""

from __future__ import annotations

from pipeline.scan.detect.source import parser_for
from pipeline.scan.detect.syntax import capture_map, compiled

SOURCE = b"service.files().get(fileId=x).execute()\nclient.a(b(c()))\n"


def test_chained_calls_come_outer_first_in_every_parse() -> None:
    query = compiled("tree_sitter_python", "language", "(call) @n")
    orders = set()
    for _ in range(20):  # fresh trees, fresh nodes
        tree = parser_for("tree_sitter_python", "language").parse(SOURCE)
        calls = capture_map(query, tree.root_node)["n"]
        orders.add(tuple((n.start_byte, n.end_byte) for n in calls))
    (order,) = orders
    texts = [SOURCE[start:end].decode() for start, end in order]
    assert texts == ["service.files().get(fileId=x).execute()", "service.files().get(fileId=x)",
                     "service.files()", "client.a(b(c()))", "b(c())", "c()"]
