"""Why a package did not answer, from a short closed list, with the line that shows it.

``census probe-registry`` stops a package at a step (``resolve``, ``variables``, ``transport``,
``install``, then the probe's ``start``, ``initialize``, ``tools/list``); the step alone says
little (most servers that do not answer stop at ``initialize``), so :func:`classify` reads what
the package printed, the install's log or the server's stderr, and names one cause:

==================================  =========================================================
cause                               shown by
==================================  =========================================================
``answered``                        its tools/list
``resolve``                         no such package or version on its index
``no artifact``                     nothing installable: no file for this platform or Python
                                    set, no set of dependencies that fits together
``build``                           a build from source failed (a compiler, node-gyp, a
                                    build backend), or the install failed otherwise
``interpreter``                     its Python or Node is too old or too new (``Requires-Python``,
                                    ``engines.node``, "Please update Node.js")
``entry point``                     nothing to start, or what was started is not the server:
                                    no or several executables, no ``main``, not a module
``dependency drift``                a dependency no longer has what it imports: an old package
                                    resolved against a newer major version
``needs a value``                   a variable or argument whose value no stand-in satisfies
                                    (missing, of the wrong form, checked at start)
``needs the network or a service``  it reached out at start: a database, an API, a host name
``timeout``                         it never answered, and said nothing that explains why
``crashed``                         it exited, and said nothing that names a cause above
``not stdio``                       its transport is not stdio (only stdio servers are started)
==================================  =========================================================

The lines are read from the last one back (the last that says something is the nearest to what
went wrong), each against ``RULES`` in order (an install's log against the install's causes, a
server's stderr against the others); a rule is a pattern of what such a failure prints, in
general terms, not one server's message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

ANSWERED, RESOLVE, NO_ARTIFACT, BUILD, INTERPRETER = "answered", "resolve", "no artifact", "build", "interpreter"
ENTRY_POINT, DRIFT, VALUE = "entry point", "dependency drift", "needs a value"
NETWORK = "needs the network or a service"
TIMEOUT, CRASHED, NOT_STDIO = "timeout", "crashed", "not stdio"
#: the closed list, in the order a funnel shows it
CAUSES = (ANSWERED, RESOLVE, NO_ARTIFACT, BUILD, INTERPRETER, ENTRY_POINT, DRIFT, VALUE, NETWORK, TIMEOUT, CRASHED,
          NOT_STDIO)
#: the census's own notes in an install log (which Python and why, which entry point, which dates): not
#: what the package printed
NOTES = re.compile(r"^(?:python \d+\.\d+ \(|entry point: |dependencies as of )")
#: the causes an install's log can show, and those only an install can have
INSTALL_CAUSES = (INTERPRETER, ENTRY_POINT, NO_ARTIFACT, BUILD, TIMEOUT, CRASHED)
INSTALL_ONLY = (NO_ARTIFACT, BUILD)
#: (cause, pattern): what a line says when that is the cause; tried in order, over every line
RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((cause, re.compile(pattern, re.I)) for cause, pattern in (
    # a library or program the machine lacks: the package is fine, this machine cannot run it
    (CRASHED, r"cannot open shared object file|GLIBC_\d|version `GLIBCXX|Illegal instruction|Segmentation fault"),
    (INTERPRETER, r"needs Python|requires-python|does not satisfy Python|python_version|Python>=|engines\.node|"
                  r"Please (?:update|upgrade) Node|requires Node(?:\.js)? (?:version )?v?\d|Unsupported engine|"
                  r"EBADENGINE|node: bad option|Node\.js v?\d+(?:\.\d+)* is not supported|"
                  # globals a newer Node has (WebSocket: 22, File: 20, navigator: 21)
                  r"ReferenceError: (?:WebSocket|File|navigator|CustomEvent|CloseEvent) is not defined"),
    (ENTRY_POINT, r"executables? \(|no executable|Error while finding module specification|"
                  r"has no attribute '?main'?|is a package and cannot be directly "
                  r"executed|No module named '?__main__|cannot be directly executed|spawn \S+ ENOENT|"
                  r"exec format error|not a console script"),
    (DRIFT, r"No module named '?[\w.]+\.|cannot import name|ImportError|ERR_PACKAGE_PATH_NOT_EXPORTED|"
            r"ERR_MODULE_NOT_FOUND|Cannot find (?:module|package)|does not provide an export named|"
            r"has no attribute|is not a function|is not a constructor|ModuleNotFoundError|No module named"),
    (NETWORK, r"ECONNREFUSED|Connection refused|Failed to connect|could not connect|Unable to connect|"
              r"connect(?:ion)? (?:error|failed)|ENOTFOUND|EAI_AGAIN|getaddrinfo|Name or service not known|"
              r"Temporary failure in name resolution|Network is unreachable|ENETUNREACH|fetch failed|"
              r"ConnectError|ConnectionError|MongoNetworkError|ServerSelectionTimeout|timed out connecting|"
              r"Max retries exceeded|No route to host|ETIMEDOUT"),
    (VALUE, r"Missing (?:required )?(?:option|argument|environment|env|variable|config)|arguments? (?:is|are) "
            r"required|required (?:option|argument|environment variable|env)|Usage: |usage: |must be (?:set|provided|"
            r"one of|a valid)|is not set|not (?:set|provided|configured)|environment variable|Invalid |invalid "
            r"(?:api|key|token|value|url|argument|option|choice)|Unknown scheme|Unauthorized|\b401\b|\b403\b|"
            r"No such file or directory|ENOENT|not a directory|Is a directory|validation error|ValidationError|"
            r"api[_ -]?key|credentials"),
    (NO_ARTIFACT, r"no wheels? (?:with|for|that)|matching platform tag|No matching distribution|no files? (?:of|for)|"
                  r"ETARGET|No matching version|No solution found|Unable to find installation candidates|"
                  r"unsatisfiable|ERESOLVE"),
    (BUILD, r"Failed to build|subprocess-exited-with-error|gyp ERR|node-gyp|command '\S*(?:gcc|cc|g\+\+)'|"
            r"build backend|error: (?:linker|could not compile)|Failed to download and build|cargo|rustc"),
    (TIMEOUT, r"not done within|not answered within|timed out|did not answer|TimeoutError|within [\d.]+ ?s\b"),
))


@dataclass(frozen=True)
class Cause:
    """Why a package did not answer (or that it did), and the line that shows it."""

    cause: str
    """one of ``CAUSES``."""
    line: str | None
    """the printed line the cause was read from (None for ``answered``)."""


def classify(status: str, reason: str | None, printed: Iterable[str] = ()) -> Cause:
    """The cause of a capture: its ``status`` (``ok`` or ``skipped``), its ``reason`` (the step and
    what went wrong there) and what the package ``printed`` (install log or stderr lines, last last)."""
    if status == "ok":
        return Cause(ANSWERED, None)
    reason = reason or ""
    step = reason.split(":", 1)[0].strip()
    if step == "resolve":
        return Cause(RESOLVE, reason)
    if step == "transport":
        return Cause(NOT_STDIO, reason)
    if step == "variables":
        return Cause(VALUE, reason)
    installing = step == "install"
    rules = [(c, p) for c, p in RULES if (c in INSTALL_CAUSES if installing else c not in INSTALL_ONLY)]
    lines = [line.strip() for line in [reason, *printed] if line.strip() and not NOTES.match(line.strip())]
    for line in reversed(lines):  # the last line that says something is the nearest to what went wrong
        for cause, pattern in rules:
            if pattern.search(line):
                return Cause(cause, line[:400])
    return Cause(BUILD if installing else CRASHED, reason[:400])
