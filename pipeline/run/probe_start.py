"""Start an installed package in the sandbox and capture its tools/list, trying again once where
what it printed says how: on a newer Node (it failed for its Node), installed again below the
major version of a dependency it was not written for (``pipeline.runtime.drift``), or with
stand-ins for the variables it names as missing (it asked for one its entry does not declare)."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from pipeline.run.probe_options import Options
from pipeline.runtime import probe
from pipeline.runtime.causes import DRIFT, INTERPRETER, VALUE, classify
from pipeline.runtime.drift import earlier_major
from pipeline.runtime.ingest import SKIPPED, Capture
from pipeline.runtime.install_step import LOG_CHARS
from pipeline.runtime.installer import Installed, InstallError, Plan, with_newer_node
from pipeline.runtime.packages import NPM, PYPI, Package, Variable
from pipeline.runtime.sandbox import Sandbox, environment
from pipeline.runtime.standins import RESERVED, StandIn, materialize, variable_values
from pipeline.runtime.wire import mask

#: how many dependencies a drifted server is installed again below, one after another
DRIFT_TRIES = 3
#: an environment variable's name as a server prints it: upper case words joined by ``_``
VARIABLE = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")


def start(package: Package, installed: Installed, options: Options, sandbox: Sandbox, plan: Plan, *,
          reinstall: Callable[[Plan], Installed]) -> tuple[Capture, list[StandIn], Installed]:
    """The capture of ``installed`` (module doc), what was stood in for, and what it ran as;
    ``reinstall`` installs the package again by another plan."""
    capture, stood = _probe(package, installed, options, sandbox)
    if _too_old_a_node(package, capture, installed, plan):  # it said so without engines.node: a newer one
        newer = with_newer_node(installed, plan)
        if newer is not None:
            installed = newer
            capture, stood = _probe(package, installed, options, sandbox)
    for _ in range(DRIFT_TRIES):  # each start may show the next dependency it was not written for
        bound = _drifted(package, capture, installed)
        if bound is None or bound in plan.bounds:
            break
        plan = replace(plan, bounds=(*plan.bounds, bound))
        try:
            again = reinstall(plan)
        except InstallError as exc:
            installed = replace(installed, log=(f"dependency drift: installed again with {', '.join(plan.bounds)}, "
                                                f"which failed: {exc}\n" + installed.log)[-LOG_CHARS:])
            break
        installed = replace(again, log=(f"dependency drift: installed again with {', '.join(plan.bounds)}\n"
                                        + again.log)[-LOG_CHARS:])
        capture, stood = _probe(package, installed, options, sandbox)
    asked = _asked(package, capture, stood) if options.stand_ins else []
    if asked:
        capture, stood = _probe(package, installed, options, sandbox, asked)
    return capture, stood, installed


def _too_old_a_node(package: Package, capture: Capture, installed: Installed, plan: Plan) -> bool:
    """Whether an npm server failed for its Node on the machine's (not a newer one yet)."""
    return (package.registry == NPM and plan.newer_node and capture.status == SKIPPED
            and not installed.log.startswith("node: ")
            and classify(capture.status, capture.reason, capture.stderr).cause == INTERPRETER)


def _drifted(package: Package, capture: Capture, installed: Installed) -> str | None:
    """The bound below a dependency's major version that a PyPI server failing on drift asks for."""
    if package.registry != PYPI or capture.status != SKIPPED:
        return None
    found = classify(capture.status, capture.reason, capture.stderr)
    if found.cause != DRIFT or found.line is None:
        return None
    return earlier_major(installed.readable[0], found.line, package.name)


def _asked(package: Package, capture: Capture, stood: Iterable[StandIn]) -> list[str]:
    """The variables a server that failed for want of a value names in that line, none of which it had."""
    if capture.status != SKIPPED:
        return []
    found = classify(capture.status, capture.reason, capture.stderr)
    if found.cause != VALUE or found.line is None:
        return []
    had = {v.name for v in package.variables} | {s.name for s in stood} | RESERVED
    return [name for name in dict.fromkeys(VARIABLE.findall(found.line)) if name not in had]


def _probe(package: Package, installed: Installed, options: Options, sandbox: Sandbox, asked: Iterable[str] = ()
           ) -> tuple[Capture, list[StandIn]]:
    """Start the installed server in the sandbox with the variables' values (the user's, the entry's,
    stand-ins; ``asked``: more variables to stand in for) and its arguments; its capture, and what
    was stood in for."""
    given = {v.name: options.env[v.name] for v in package.variables if v.name in options.env}
    declared = [*package.variables, *(Variable(name, None) for name in asked)]
    values, stood = variable_values(declared, given) if options.stand_ins else (given, [])
    stood = [*stood, *installed.stand_ins]
    with tempfile.TemporaryDirectory(prefix="census-probe-home-") as home:
        materialize(stood, Path(home))
        # its own install folder stays writable: some servers write beside their code, and it is removed after
        command = sandbox.command(installed.command, home=Path(home), readable=installed.readable[1:],
                                  writable=installed.readable[:1])
        timeouts = probe.Timeouts(initialize_seconds=options.seconds)
        capture = probe.probe(package.server, command, env=environment(installed.path, values), timeouts=timeouts,
                               hidden=given.values())
    shown = " ".join([package.label, Path(installed.command[0]).name, *installed.command[1:]])
    reason = capture.reason
    if capture.status == SKIPPED:
        reason = (reason or "") + _started(package, installed.left_out, values, stood)
    return replace(capture, command_or_url=mask(shown, list(given.values())) or shown,
                   reason=mask(reason, list(given.values()))), stood


def _started(package: Package, left_out: Iterable[str], values: Mapping[str, str], stood: Iterable[StandIn]) -> str:
    """How a server that failed was started: with stand-ins, without declared variables or arguments."""
    names = [s.name for s in stood]
    missing = [v.name for v in package.variables if v.name not in values]
    parts = ([f"started with stand-ins for {', '.join(names)}"] if names else []) + \
        ([f"started without variables {', '.join(missing)}"] if missing else []) + \
        ([f"started without arguments {'; '.join(left_out)}"] if left_out else [])
    return f"; {'; '.join(parts)} (declared by the registry entry)" if parts else ""
