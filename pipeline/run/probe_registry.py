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
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import duckdb

from pipeline.progress import Observer, SilentObserver
from pipeline.run.probe_options import Options
from pipeline.run.probe_start import start
from pipeline.runtime.causes import classify
from pipeline.runtime.ingest import SKIPPED, STDIO, Capture
from pipeline.runtime.installer import InstallError, Plan, install
from pipeline.runtime.interpreters import labels
from pipeline.runtime.package_index import Hosts, PackageError, Release, resolve
from pipeline.runtime.packages import PYPI, Package
from pipeline.runtime.sandbox import Sandbox
from pipeline.runtime.wire import mask
from pipeline.store.runtime import PackageRun, record_capture, set_server_repo, stored_packages

__all__ = ["RESUMED", "Options", "Outcome", "probe_packages"]

#: ``probe_packages`` outcomes besides a capture's status
RESUMED = "already captured"
#: dependencies are taken as they were this long after the package's release
AS_RELEASED_MARGIN = timedelta(days=1)


@dataclass(frozen=True)
class Outcome:
    """One package's result: its capture (None when resumed) and what was installed."""

    package: Package
    capture: Capture | None
    run: PackageRun | None
    seconds: float = 0.0
    """the time the package took: resolve, install, start and capture."""


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
    started = time.perf_counter()
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
    return Outcome(package, capture, run, time.perf_counter() - started)


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
        capture, stood, installed = start(package, installed, options, sandbox, plan,
                                          reinstall=lambda again: install(package, release.version, folder, again))
        return Outcome(package, capture, replace(run, install_log=installed.log, repository=installed.repository,
                                                 stand_ins=tuple(s.name for s in stood), sdk=installed.sdk))
    except InstallError as exc:
        reason = str(exc) if str(exc).startswith("install:") else f"install: {exc}"
        return skip(reason, replace(run, install_log=exc.log, repository=exc.repository))
    finally:
        if not options.keep_installs:
            shutil.rmtree(folder, ignore_errors=True)


def _plan(release: Release, options: Options, sandbox: Sandbox, hosts: Hosts) -> Plan:
    """The install's plan: dependencies as of a day after the release (the day's other uploads)."""
    before = None if options.dependencies_now or release.released_at_utc is None else \
        release.released_at_utc + AS_RELEASED_MARGIN
    return Plan(cache=options.work_dir / "cache", sandbox=sandbox, hosts=hosts, interpreters=options.interpreters,
                seconds=options.install_seconds, before=before, scripts=options.install_scripts,
                released=release.released_at_utc, requires_python=release.requires_python,
                stand_ins=options.stand_ins, newer_node=options.newer_node)


def _skipper(package: Package, options: Options) -> Callable[[str, PackageRun | None], Outcome]:
    def skip(reason: str, run: PackageRun | None) -> Outcome:
        requested = PackageRun(package.registry, package.name, package.version, package.version, None, "")
        capture = Capture(server=package.server, captured_at_utc=datetime.now(UTC), status=SKIPPED,
                          reason=mask(reason, list(options.env.values())), transport=STDIO,
                          command_or_url=package.label)
        return Outcome(package, capture, run or requested)
    return skip
