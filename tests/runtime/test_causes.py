"""Every failure is one cause of a closed list, read from what the package printed, with the line."""

from __future__ import annotations

import pytest

from pipeline.runtime.causes import CAUSES, classify


@pytest.mark.parametrize(("reason", "printed", "cause", "line"), [
    ("resolve: the npm registry has no package x (HTTP 404)", [], "resolve", "resolve: the npm registry"),
    ("transport: sse; only stdio packages are started", [], "not stdio", "transport: sse"),
    ("variables: needs KEY (required by the registry entry), not given", [], "needs a value", "variables: needs KEY"),
    ("install: needs Python >=3.12 (its Requires-Python); found 3.11 (PATH)", [], "interpreter", "install: needs"),
    ("install: uv pip exited 1: x", ["  x No solution found when resolving dependencies:",
                                     "  ╰─▶ Because x has no wheels with a matching platform tag"], "no artifact",
     "╰─▶ Because x has no wheels"),
    ("install: npm install exited 1: npm error code 1", ["gyp ERR! stack Error: not found: make"], "build", "gyp ERR!"),
    ("install: installed, but the package has 2 executables (a, b) and neither ...", [], "entry point",
     "install: installed"),
    ("install: not done within 600 s", [], "timeout", "install: not done within 600 s"),
    ("initialize: the server closed the connection", ["Traceback (most recent call last):",
                                                      "ModuleNotFoundError: No module named 'mcp.server.fastmcp'"],
     "dependency drift", "ModuleNotFoundError"),
    ("initialize: closed", ["error: Missing option '--acme-host'"], "needs a value", "error: Missing option"),
    ("initialize: closed", ["Usage: acme-mcp <vault-directory>"], "needs a value", "Usage: acme-mcp"),
    ("initialize: closed", ["Error: connect ECONNREFUSED 127.0.0.1:27017"], "needs the network or a service",
     "Error: connect ECONNREFUSED"),
    ("initialize: closed", ["AttributeError: module 'acme_mcp' has no attribute 'main'"], "entry point",
     "AttributeError: module 'acme_mcp'"),
    ("initialize: closed", ["engines.node: node v20.1.0 does not meet x's engines.node '>=22'", "SyntaxError: x"],
     "interpreter", "engines.node: node"),
    ("initialize: closed", ["ImportError: libodbc.so.2: cannot open shared object file"], "crashed", "ImportError"),
    ("initialize: closed", ["ReferenceError: WebSocket is not defined"], "interpreter", "ReferenceError"),
    ("initialize: closed", ["Please update Node.js: https://nodejs.org"], "interpreter", "Please update"),
    ("initialize: not answered within 60 s", [], "timeout", "initialize: not answered"),
    # the census's own note of which Python and why is not what the package said
    ("install: installed, but the package has no executable to start",
     ["python 3.13 (pyenv): out 180 days before ..., within Requires-Python >=3.13; found 3.13 (pyenv)"],
     "entry point", "install: installed"),
    ("initialize: closed", ["/x/bin/python: Error while finding module specification for 'p.cli' (ModuleNotFound"
                            "Error: No module named 'p')"], "entry point", "/x/bin/python"),
    ("initialize: the server exited (code 1)", ["something happened"], "crashed", "initialize: the server exited"),
])
def test_each_failure_is_one_cause_with_the_line_that_shows_it(reason: str, printed: list[str], cause: str,
                                                                line: str) -> None:
    found = classify("skipped", reason, printed)
    assert found.cause == cause
    assert cause in CAUSES
    assert found.line is not None
    assert found.line.startswith(line)


def test_the_last_line_that_says_something_wins() -> None:
    printed = ["warning: could not connect to the update server", "Error: ACME_TOKEN environment variable is not set"]
    assert classify("skipped", "initialize: closed", printed).cause == "needs a value"


def test_an_install_log_is_read_for_install_causes_only() -> None:
    # an install that failed is not "needs a value" because its log mentions an environment variable
    found = classify("skipped", "install: npm install exited 1: x", ["npm warn: environment variable X unset",
                                                                     "npm error code ELIFECYCLE"])
    assert found.cause == "build"


def test_an_answer_is_answered() -> None:
    assert classify("ok", None, ["noise"]) == classify("ok", "a note", [])
    assert classify("ok", None).cause == "answered"
    assert classify("ok", None).line is None
