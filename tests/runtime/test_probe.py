"""Probing real MCP servers over stdio and Streamable HTTP with the official ``mcp`` client.

The servers are in ``tests/probe_servers/``: one written with the ``mcp`` SDK's MCPServer,
one with standalone fastmcp, a low-level server that paginates, and a hand-written JSON-RPC
server that sends odd values, loops, errs, crashes or never answers. Each is started once
per module (starting an SDK server costs 1.5-3 s of imports).
"""

from __future__ import annotations

import asyncio
import json
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import polars as pl
import pytest

from pipeline.analysis import runtime as runtime_stats
from pipeline.fetch.source import Fetched
from pipeline.runtime.ingest import HTTP, OK, SKIPPED, STDIO, Capture, RuntimeTool
from pipeline.runtime.probe import COOKIE_VARIABLE, ProbeError, Timeouts, probe, probe_url, safe_url
from pipeline.scan.detect.corpus import detect_files
from pipeline.scan.tree import TreeScan
from pipeline.store.database import Store
from pipeline.store.runtime import install, record_capture

SERVERS = Path(__file__).resolve().parents[1] / "probe_servers"
QUICK = Timeouts(start_seconds=5, initialize_seconds=30, page_seconds=10)
SECRET = "tok-5ecret-value"

#: sdk_server.py as sent: name -> (annotations.title, readOnly, destructive, idempotent, openWorld)
SDK_TOOLS = {
    "search_notes": ("Search notes", "true", "false", "true", "false"),
    "delete_note": (None, "unset", "true", "unset", "unset"),
    "add_note": (None, "false", "unset", "unset", "true"),
    "ping": (None, "unset", "unset", "unset", "unset"),
}


def command(script: str, *args: str) -> list[str]:
    return [sys.executable, str(SERVERS / script), *args]


def sent(capture: Capture) -> dict[str | None, tuple[str | None, ...]]:
    return {t.tool_name: (t.title, *hints(t)) for t in capture.tools}


def hints(row: RuntimeTool) -> tuple[str, str, str, str]:
    return row.read_only_hint, row.destructive_hint, row.idempotent_hint, row.open_world_hint


@pytest.fixture(scope="module")
def sdk() -> Capture:
    return probe("sdk", [sys.executable, "sdk_server.py"], cwd=SERVERS, timeouts=QUICK)  # a path relative to cwd


@pytest.fixture(scope="module")
def fastmcp() -> Capture:
    return probe("fastmcp", command("fastmcp_server.py"), timeouts=QUICK)


@pytest.fixture(scope="module")
def paginated() -> Capture:
    return probe("paginated", command("paginated_server.py"), timeouts=QUICK)


@pytest.fixture(scope="module")
def odd() -> Capture:
    return probe("odd", command("raw_server.py", "odd"), timeouts=QUICK)


def test_mcp_sdk_server_as_sent(sdk: Capture) -> None:
    assert (sdk.server, sdk.status, sdk.reason, sdk.transport, len(sdk.pages)) == ("sdk", OK, None, STDIO, 1)
    assert sent(sdk) == SDK_TOOLS
    assert list(sdk.pages[0]) == ["tools"]  # as sent: the SDK's parsed result would add ttlMs, resultType
    assert [t.annotated for t in sdk.tools] == [True, True, True, False]
    assert sdk.initialize is not None
    assert sdk.initialize["serverInfo"]["name"] == "census-probe-sdk"
    assert json.loads(sdk.tools[1].raw_json)["title"] == "Delete a note"  # Tool.title, not annotations.title
    assert sdk.command_or_url.endswith("sdk_server.py")
    assert COOKIE_VARIABLE not in sdk.command_or_url


def test_standalone_fastmcp_server_as_sent(fastmcp: Capture) -> None:
    assert (fastmcp.status, len(fastmcp.pages)) == (OK, 1)
    assert sent(fastmcp) == {
        "fetch_page": (None, "true", "unset", "unset", "true"),
        "drop_table": ("Drop table", "unset", "true", "false", "unset"),
        "version": (None, "unset", "unset", "unset", "unset"),
    }


def test_every_page_is_fetched(paginated: Capture) -> None:
    assert (paginated.status, len(paginated.pages)) == (OK, 3)
    assert [p.get("nextCursor") for p in paginated.pages] == ["3", "6", None]
    assert [t.tool_name for t in paginated.tools] == [f"tool_{n}" for n in range(7)]
    assert [t.read_only_hint for t in paginated.tools] == ["true", "false"] * 3 + ["unset"]
    assert paginated.tools[6].annotations_json is None


def test_the_wire_is_kept_when_the_sdk_refuses_it(odd: Capture) -> None:
    assert (odd.status, len(odd.pages)) == (OK, 2)
    assert odd.reason is not None
    assert odd.reason.startswith("the mcp client refused page 1: tools.0.annotations.title: ")  # a number
    assert sent(odd) == {
        "odd_values": ("7", '"yes"', "unset", "1", "false"),
        "not_an_object": (None, "unset", "unset", "unset", "unset"),
        "empty_annotations": (None, "unset", "unset", "unset", "unset"),
    }
    assert [t.annotated for t in odd.tools] == [True, False, True]


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("loop", "tools/list page 2: nextCursor 'again' repeats: the pages loop"),
        ("error", "tools/list page 1: error -32601: Method not found: tools/list"),
        ("crash", "tools/list page 1: the server closed the connection"
                  " (stderr: RuntimeError: tool registry failed to load)"),
    ],
)
def test_a_bad_server_is_skipped_with_the_step_and_reason(mode: str, reason: str) -> None:
    capture = probe(mode, command("raw_server.py", mode), timeouts=QUICK)
    assert (capture.status, capture.reason, capture.tools) == (SKIPPED, reason, ())
    assert capture.initialize is not None  # initialize worked: the failure is later
    assert len(capture.pages) == {"loop": 2, "error": 0, "crash": 0}[mode]


def test_each_page_has_its_deadline_and_an_early_exit_is_named() -> None:
    stalled = probe("stall", command("raw_server.py", "stall"), timeouts=Timeouts(page_seconds=0.5))
    assert (stalled.status, stalled.reason) == (SKIPPED, "tools/list page 1: no answer within 0.5 s")
    exited = probe("exits", [sys.executable, "-c", "import sys; sys.exit('no config file')"], timeouts=QUICK)
    assert (exited.status, exited.reason) == (SKIPPED, "initialize: the server closed the connection"
                                                       " (stderr: no config file)")


def test_a_silent_server_times_out_and_its_process_tree_is_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    started = time.monotonic()
    capture = probe("silent", command("raw_server.py", "silent", str(pid_file)),
                    timeouts=Timeouts(initialize_seconds=1.5))
    assert (capture.status, capture.reason) == (SKIPPED, "initialize: no answer within 1.5 s")
    assert time.monotonic() - started < 8
    child = int(pid_file.read_text(encoding="utf-8"))
    assert not alive(child, wait_seconds=3)


def alive(pid: int, wait_seconds: float) -> bool:
    """Whether ``pid`` still runs after ``wait_seconds`` (a zombie is dead)."""
    deadline = time.monotonic() + wait_seconds
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        if state in ("Z", "X"):
            return False
        time.sleep(0.05)
    return True


def test_a_command_that_cannot_start_is_skipped() -> None:
    capture = probe("missing", ["census-no-such-command"], timeouts=QUICK)
    assert (capture.status, capture.reason) == (SKIPPED, "start: No such file or directory: census-no-such-command")
    with pytest.raises(ProbeError, match=r"^empty: no command"):
        probe("empty", [])


def test_environment_values_are_passed_but_never_stored(tmp_path: Path) -> None:
    capture = probe("crash", command("raw_server.py", "crash"), env={"CENSUS_TEST_TOKEN": SECRET}, timeouts=QUICK)
    assert capture.reason is not None
    assert capture.reason.endswith("(token ***))")  # the server got it, the reason hides it
    with duckdb.connect(str(tmp_path / "c.duckdb")) as con:
        record_capture(con, capture)
        text = str(con.execute("SELECT * FROM runtime_captures").fetchall())
    assert "crash" in text
    assert SECRET not in text
    assert COOKIE_VARIABLE not in text


def test_probe_works_inside_a_running_event_loop() -> None:
    async def inside() -> Capture:
        return probe("odd", command("raw_server.py", "odd"), timeouts=QUICK)

    assert [t.tool_name for t in asyncio.run(inside()).tools] == ["odd_values", "not_an_object", "empty_annotations"]


def test_the_library_prints_nothing_even_when_the_sdk_complains() -> None:
    # in a process of its own: pytest's log capture would hide what Python's last-resort handler prints
    script = "import sys; from pipeline.runtime.probe import probe; print(probe('odd', sys.argv[1:]).status)"
    done = subprocess.run([sys.executable, "-c", script, *command("raw_server.py", "odd")], capture_output=True,
                          text=True, timeout=60, check=False)
    assert (done.stdout, done.stderr) == ("ok\n", "")  # the odd server's banner is not JSON-RPC


# --- Streamable HTTP ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def http_port() -> Iterator[int]:
    """``sdk_server``'s tools served over Streamable HTTP on a loopback port."""
    server = subprocess.Popen(command("http_server.py"), stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    try:
        ready, _, _ = select.select([server.stdout], [], [], 30)
        line = server.stdout.readline() if ready else ""
        assert line.startswith("PORT "), f"the HTTP server did not start: {line!r}"
        yield int(line.split()[1])
    finally:
        server.terminate()
        server.wait(10)
        server.stdout.close()


def test_streamable_http_server_as_sent(http_port: int) -> None:
    url = f"http://user:pw@127.0.0.1:{http_port}/mcp?key={SECRET}"
    capture = probe_url("sdk-http", url, headers={"Authorization": f"Bearer {SECRET}"}, timeouts=QUICK)
    assert (capture.status, capture.reason, capture.transport, len(capture.pages)) == (OK, None, HTTP, 1)
    assert sent(capture) == SDK_TOOLS
    assert capture.command_or_url == f"http://127.0.0.1:{http_port}/mcp?key=***"


def test_an_http_server_that_is_not_there_is_skipped(http_port: int) -> None:
    with refused_port() as port:
        capture = probe_url("gone", f"http://127.0.0.1:{port}/mcp", timeouts=QUICK)
    assert capture.status == SKIPPED
    assert capture.reason is not None
    assert capture.reason.startswith("initialize: ConnectError")
    with pytest.raises(ProbeError, match=r"^ftp: 'ftp://h/x' is not an http"):
        probe_url("ftp", "ftp://u:p@h/x")


@contextmanager
def refused_port() -> Iterator[int]:
    """A loopback port that is bound but never listens: connections to it are refused."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        port: int = bound.getsockname()[1]
        yield port


def test_safe_url_masks_credentials_and_query_values() -> None:
    assert safe_url("https://me:pw@example.org:8443/mcp?a=1&b=two") == "https://example.org:8443/mcp?a=***&b=***"
    assert safe_url("http://example.org/mcp") == "http://example.org/mcp"


# --- probed servers in the database, against their own source -----------------------------


@pytest.fixture(scope="module")
def census(tmp_path_factory: pytest.TempPathFactory, sdk: Capture, fastmcp: Capture,
           paginated: Capture) -> Iterator[duckdb.DuckDBPyConnection]:
    """Each probe server's source scanned as a repository of its own, and its capture stored."""
    path = tmp_path_factory.mktemp("census") / "census.duckdb"
    fetched = Fetched("a" * 64, 1, "root", sdk.captured_at_utc)
    with Store(path) as store:
        for capture, script in ((sdk, "sdk_server.py"), (fastmcp, "fastmcp_server.py"),
                                (paginated, "paginated_server.py")):
            detection = detect_files({script: (SERVERS / script).read_bytes()})
            scan = TreeScan(1, 0, 1, (), (), detection)
            store.record_scan(f"probe/{capture.server}", "0" * 40, fetched=fetched, source="git", scan=scan,
                              terms=("x",), version="1")
            install(store.connection)
            record_capture(store.connection, capture)
    with duckdb.connect(str(path), read_only=True) as con:
        yield con


def test_probed_servers_in_seed_000s_table(census: duckdb.DuckDBPyConnection) -> None:
    coverage = runtime_stats.runtime_hint_coverage(census)
    assert set(coverage.select("servers", "tools", "annotated_tools").rows()) == {(3, 14, 11)}
    read_only = coverage.row(0, named=True)
    assert (read_only["set"], read_only["set_true"], read_only["set_false"]) == (9, 5, 4)
    assert coverage.filter(pl.col("field") == "title")["set"].to_list() == [2]


def test_probed_servers_against_their_source(census: duckdb.DuckDBPyConnection) -> None:
    pairs = {name: f"probe/{name}" for name in ("sdk", "fastmcp", "paginated")}
    frame = runtime_stats.static_vs_runtime(census, pairs)
    sdk = frame.filter(pl.col("server") == "sdk")
    assert set(sdk["side"]) == {"both"}  # every tool the source defines was sent, and no other
    agreement = dict(sdk.filter(pl.col("agreement") != "same").select("tool_name", "agreement").rows())
    # delete_note's hints are built by model_validate({...}): an object the source cannot read, so
    # each hint is dynamic there, and the wire resolves it
    assert agreement == {"delete_note": "resolved"}
    assert set(frame.filter(pl.col("server") == "fastmcp")["agreement"]) == {"same"}
    paged = frame.filter((pl.col("server") == "paginated") & (pl.col("hint") == "readOnlyHint"))
    # tools built in a loop have no literal name: one definition in source, seven on the wire
    assert sorted(paged["side"].to_list()) == ["runtime only"] * 7 + ["source only"]
