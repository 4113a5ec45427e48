"""``census probe-registry``: install every npm and PyPI server of a registry and capture its tools/list.

For each :class:`~pipeline.runtime.packages.Package` (one job of ``jobs`` at a time):

1. resolve the version (``package_index.resolve``: the registry entry's, or the newest);
2. skip it when the database already holds a capture of that package version (``ok``, or
   ``skipped`` unless ``retry_skipped``): a long run is resumed by running it again;
3. install it into a private folder (``installer.install``, in the sandbox, with the network);
4. start it in the sandbox without the network, a fresh HOME and /tmp, and capture tools/list
   with ``pipeline.runtime.probe`` (its per-step deadlines; the sandbox's limits; the process tree
   ends with the sandbox);
5. record the capture with the package's name, version, release date and install log, and the
   server's repository and subfolder (``runtime_servers``).

Every failure is a skipped capture whose reason names the step: ``resolve``, ``install``,
``variables`` (a variable the registry marks required was not given), ``transport`` (not
stdio), then the probe's own (``start``, ``initialize``, ``tools/list page N``); a server that
fails having been started without some declared variables or placeholder arguments says so.
Values of variables given to servers (``env``) are never stored: they are masked in reasons.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb

from pipeline.progress import Observer, SilentObserver
from pipeline.runtime import probe
from pipeline.runtime.causes import INTERPRETER, classify
from pipeline.runtime.ingest import SKIPPED, STDIO, Capture
from pipeline.runtime.installer import Installed, InstallError, Plan, install, with_newer_node
from pipeline.runtime.interpreters import Interpreter, labels
from pipeline.runtime.package_index import Hosts, PackageError, Release, resolve
from pipeline.runtime.packages import NPM, PYPI, Package
from pipeline.runtime.sandbox import Sandbox, environment
from pipeline.runtime.standins import StandIn, materialize, variable_values
from pipeline.runtime.wire import mask
from pipeline.store.runtime import PackageRun, record_capture, set_server_repo, stored_packages

#: ``probe_packages`` outcomes besides a capture's status
RESUMED = "already captured"
#: dependencies are taken as they were this long after the package's release
AS_RELEASED_MARGIN = timedelta(days=1)


@dataclass(frozen=True)
class Options:
    """How ``census probe-registry`` runs."""

    work_dir: Path
    """install folders and the npm / uv caches (``--work-dir``, ``CENSUS_PROBE_DIR``); a relative
    path is taken from the current folder (the sandbox starts each command in its own HOME)."""
    latest: bool = False
    """install the newest version, not the one the registry entry names."""
    jobs: int = 2
    seconds: float = 60.0
    """a started server's time to initialize (then each tools/list page has ``Timeouts.page_seconds``)."""
    install_seconds: float = 600.0
    retry_skipped: bool = False
    keep_installs: bool = False
    dependencies_now: bool = False
    """take each dependency's newest version, not the one there was when the package was released."""
    install_scripts: bool = False
    """run npm install scripts (they would have the network)."""
    env: Mapping[str, str] = field(default_factory=dict)
    """variables given to every server that declares them (values never stored)."""
    interpreters: tuple[Interpreter, ...] = ()
    """the Pythons PyPI packages may be installed for (``interpreters.found``)."""
    newer_node: bool = True
    """run an npm server that needs a newer Node than the machine's on one from npm (``pipeline.runtime.nodes``)."""
    stand_ins: bool = True
    """give declared variables and placeholder arguments a stand-in (``pipeline.runtime.standins``);
    off: a variable the entry marks required skips the package, placeholders are left out."""


@dataclass(frozen=True)
class Outcome:
    """One package's result: its capture (None when resumed) and what was installed."""

    package: Package
    capture: Capture | None
    run: PackageRun | None


def probe_packages(con: duckdb.DuckDBPyConnection, packages: Iterable[Package], options: Options, *,
                   sandbox: Sandbox, hosts: Hosts, observer: Observer | None = None) -> list[Outcome]:
    """Install, start and capture every package (see the module doc); each capture stored as it lands."""
    observer = observer or SilentObserver()
    sandbox.check()
    options = replace(options, work_dir=options.work_dir.resolve())
    wanted = list(packages)
    if any(p.registry == PYPI for p in wanted):
        observer.note(f"Pythons for PyPI packages: {labels(options.interpreters)}")
    done = stored_packages(con)
    observer.stage("probe", len(wanted))
    outcomes: list[Outcome] = []
    with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        futures = [pool.submit(_one, package, done.get(package.server), options, sandbox, hosts) for package in wanted]
        for future in as_completed(futures):
            outcome = future.result()
            outcomes.append(outcome)
            if outcome.capture is None:
                observer.advance(outcome.package.server, RESUMED)
                continue
            record_capture(con, outcome.capture, outcome.run)
            if outcome.package.repo:
                set_server_repo(con, outcome.package.server, outcome.package.repo, outcome.package.subfolder)
            tools = len(outcome.capture.tools)
            observer.advance(outcome.package.server, outcome.capture.status,
                             f"{tools} tools" if outcome.capture.status == "ok" else outcome.capture.reason or "")
    return outcomes


def _one(package: Package, stored: tuple[str | None, str | None, str] | None, options: Options, sandbox: Sandbox,
         hosts: Hosts) -> Outcome:
    """One package, never raising; the work folder's path written ``$CENSUS_PROBE_DIR`` in what is kept
    (a server's error names its install folder: this machine's paths stay out of the database)."""
    outcome = _attempt(package, stored, options, sandbox, hosts)
    roots = sorted({str(options.work_dir.resolve()), str(options.work_dir)}, key=len, reverse=True)

    def local(text: str | None) -> str | None:
        for root in roots:
            text = text.replace(root, "$CENSUS_PROBE_DIR") if text else text
        return text

    capture = None if outcome.capture is None else replace(outcome.capture, reason=local(outcome.capture.reason))
    run = None if outcome.run is None else replace(outcome.run, install_log=local(outcome.run.install_log) or "")
    if capture is not None and run is not None:
        found = classify(capture.status, capture.reason, _printed(capture, run))
        run = replace(run, cause=found.cause, cause_line=local(found.line))
    return Outcome(package, capture, run)


def _printed(capture: Capture, run: PackageRun) -> list[str]:
    """What the package printed that tells why it failed: the install's log when the install failed,
    else the server's stderr after what the install said of the machine's Node."""
    log = run.install_log.splitlines()
    if (capture.reason or "").startswith("install:"):
        return log[-60:]
    return [*(line for line in log if line.startswith("engines.node:")), *capture.stderr]


def _attempt(package: Package, stored: tuple[str | None, str | None, str] | None, options: Options,
             sandbox: Sandbox, hosts: Hosts) -> Outcome:
    """Resolve, resume check, install, probe."""
    skip = _skipper(package, options)
    if package.transport != STDIO:
        return skip(f"transport: {package.transport}; only stdio packages are started", None)
    required = [v.name for v in package.variables if v.required and v.name not in options.env]
    if required and not options.stand_ins:
        return skip(f"variables: needs {', '.join(required)} (required by the registry entry), not given", None)
    try:
        release = resolve(package, hosts, latest=options.latest)
    except PackageError as exc:
        return skip(f"resolve: {exc}", None)
    run = PackageRun(package.registry, package.name, package.version, release.version, release.released_at_utc, "")
    if stored is not None and stored[:2] == (package.name, release.version) and (
            stored[2] == "ok" or not options.retry_skipped):
        return Outcome(package, None, run)
    # one folder per server: two servers of one registry may be the same package, installed at once
    folder = options.work_dir / "installs" / package.registry / \
        f"{package.name.replace('/', '+')}@{release.version}+{package.server.replace('/', '+')}"
    try:
        plan = _plan(release, options, sandbox, hosts)
        installed = install(package, release.version, folder, plan)
        capture, stood = _probe(package, installed, options, sandbox)
        if _too_old_a_node(package, capture, installed, plan):  # it said so without engines.node: a newer one
            newer = with_newer_node(installed, plan)
            if newer is not None:
                installed = newer
                capture, stood = _probe(package, installed, options, sandbox)
        return Outcome(package, capture, replace(run, install_log=installed.log, repository=installed.repository,
                                                 stand_ins=tuple(s.name for s in stood), sdk=installed.sdk))
    except InstallError as exc:
        reason = str(exc) if str(exc).startswith("install:") else f"install: {exc}"
        return skip(reason, replace(run, install_log=exc.log))
    finally:
        if not options.keep_installs:
            shutil.rmtree(folder, ignore_errors=True)


def _too_old_a_node(package: Package, capture: Capture, installed: Installed, plan: Plan) -> bool:
    """Whether an npm server failed for its Node on the machine's (not a newer one yet)."""
    return (package.registry == NPM and plan.newer_node and capture.status == SKIPPED
            and not installed.log.startswith("node: ")
            and classify(capture.status, capture.reason, capture.stderr).cause == INTERPRETER)


def _plan(release: Release, options: Options, sandbox: Sandbox, hosts: Hosts) -> Plan:
    """The install's plan: dependencies as of a day after the release (the day's other uploads)."""
    before = None if options.dependencies_now or release.released_at_utc is None else \
        release.released_at_utc + AS_RELEASED_MARGIN
    return Plan(cache=options.work_dir / "cache", sandbox=sandbox, hosts=hosts, interpreters=options.interpreters,
                seconds=options.install_seconds, before=before, scripts=options.install_scripts,
                released=release.released_at_utc, requires_python=release.requires_python,
                stand_ins=options.stand_ins, newer_node=options.newer_node)


def _probe(package: Package, installed: Installed, options: Options, sandbox: Sandbox
           ) -> tuple[Capture, list[StandIn]]:
    """Start the installed server in the sandbox with the variables' values (the user's, the entry's,
    stand-ins) and its arguments; its capture, and what was stood in for."""
    given = {v.name: options.env[v.name] for v in package.variables if v.name in options.env}
    values, stood = variable_values(package.variables, given) if options.stand_ins else (given, [])
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


def _skipper(package: Package, options: Options) -> Callable[[str, PackageRun | None], Outcome]:
    def skip(reason: str, run: PackageRun | None) -> Outcome:
        requested = PackageRun(package.registry, package.name, package.version, package.version, None, "")
        capture = Capture(server=package.server, captured_at_utc=datetime.now(UTC), status=SKIPPED,
                          reason=mask(reason, list(options.env.values())), transport=STDIO,
                          command_or_url=package.label)
        return Outcome(package, capture, run or requested)
    return skip
