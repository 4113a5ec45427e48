"""Jobs for idle moments: run in order by the thread that queued them while it waits for inflated
bytes, dropped when they fail or when the work they prepare is done."""

from __future__ import annotations

import gzip
import io
import threading
from collections.abc import Iterator

import pytest

from pipeline import idle
from pipeline.inflate import Inflater, Source
from pipeline.scan.detect import Detector


@pytest.fixture(autouse=True)
def _no_queued_jobs() -> Iterator[None]:
    """Each test starts and ends with no job queued in this thread (a detector left unfinished by
    another test leaves its preparations queued)."""
    idle.discard()
    yield
    idle.discard()


def test_jobs_run_in_order_one_at_a_time_and_a_failing_one_is_dropped() -> None:
    ran: list[str] = []
    idle.submit(lambda: ran.append("first"))
    idle.submit(lambda: 1 / 0)
    idle.submit(lambda: ran.append("third"))
    assert idle.run_one()
    assert ran == ["first"]
    assert idle.run_one()
    assert ran == ["first"]
    assert idle.run_one()
    assert ran == ["first", "third"]
    assert not idle.run_one()


def test_each_thread_runs_only_its_own_jobs_and_discard_drops_them() -> None:
    ran: list[str] = []
    idle.submit(lambda: ran.append("main"))
    other: list[bool] = []
    thread = threading.Thread(target=lambda: other.append(idle.run_one()))
    thread.start()
    thread.join()
    assert other == [False]
    assert ran == []
    idle.discard()
    assert not idle.run_one()
    assert ran == []


class _Gated:
    """A gzip stream whose first read waits until ``opened`` is set (at most ``WAIT`` seconds, so a
    broken inflater fails the test instead of hanging it)."""

    WAIT = 10.0

    def __init__(self, compressed: bytes, opened: threading.Event, log: list[str]) -> None:
        self._inner = gzip.GzipFile(fileobj=io.BytesIO(compressed), mode="rb")
        self._opened, self._log = opened, log

    def read(self, size: int, /) -> bytes:
        if not self._opened.is_set():
            self._log.append("inflated" if self._opened.wait(self.WAIT) else "gave up waiting")
        return self._inner.read(size)

    def close(self) -> None:
        self._inner.close()


def test_the_inflater_runs_queued_jobs_while_the_next_block_is_not_ready() -> None:
    """The worker cannot inflate until a job has run: only a reader that runs jobs while it waits
    gets the bytes without the worker giving up."""
    opened, log = threading.Event(), []

    def job() -> None:
        log.append("job")
        opened.set()

    data = b"readOnlyHint " * 1000
    compressed = gzip.compress(data)
    source: Source = _Gated(compressed, opened, log)
    idle.submit(job)
    with Inflater(lambda: source, block_bytes=4096) as inflater:
        assert inflater.read(len(data)) == data
    assert log == ["job", "inflated"]


def test_the_detector_queues_one_preparation_per_grammar_and_drops_them_when_it_finishes() -> None:
    detector = Detector()
    source = b"from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n@mcp.tool()\ndef a() -> None: ...\n"
    for path in ("a.py", "b.py", "c.ts", "d.tsx"):
        detector.add(path, source)
    prepared = 0
    while idle.run_one():
        prepared += 1
    assert prepared == 3  # python, typescript, tsx: one each
    detector.add("e.py", source)
    found = detector.finish()
    assert not idle.run_one()  # finish dropped what was left: it does the work itself
    assert [t.tool_name for t in found.tools if t.path == "a.py"] == ["a"]
