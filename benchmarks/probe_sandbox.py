"""What the runtime census's sandbox costs, against starting the same package as a user would (issue 26).

``probe_sandbox.py --package npm:NAME@VERSION [--package pypi:NAME==VERSION ...] [--rounds N]``:
for each package, ``census probe-registry``'s path (``probe_registry.probe_packages``: resolve,
install into a private folder inside bubblewrap, start it there without the network, capture
tools/list), timed against the peer measured in the same run: ``census probe`` of the command a
user types, ``npx -y NAME@VERSION`` or ``uvx --from NAME==VERSION NAME``, unsandboxed, with the
caller's environment. Each side
runs once to warm its cache, then ``--rounds`` times; the medians and their ratio are printed,
with the tools each side listed (they must agree). Needs the network to the package indexes.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import duckdb
from uv import find_uv_bin

from pipeline.run.probe_registry import Options, probe_packages
from pipeline.runtime import interpreters, probe
from pipeline.runtime.package_index import Hosts
from pipeline.runtime.packages import Package
from pipeline.runtime.sandbox import Sandbox


def _package(spec: str) -> Package:
    """``npm:NAME@VERSION`` (the name may be scoped) or ``pypi:NAME==VERSION``; the version may be left out."""
    registry, _, rest = spec.partition(":")
    at = rest.rfind("==") if registry == "pypi" else rest.rfind("@")
    name, version = (rest[:at], rest[at:].lstrip("=@")) if at > 0 else (rest, "")
    return Package(f"bench/{name}", registry, name, version or None, (), (), "stdio", None, None)


def _sandboxed(package: Package, work: Path) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as folder, duckdb.connect(str(Path(folder) / "c.duckdb")) as con:
        options = Options(work_dir=work, jobs=1, interpreters=tuple(interpreters.found()), retry_skipped=True)
        started = time.perf_counter()
        (outcome,) = probe_packages(con, [package], options, sandbox=Sandbox.from_env(), hosts=Hosts.from_env())
        seconds = time.perf_counter() - started
    capture = outcome.capture
    return seconds, len(capture.tools) if capture is not None and capture.status == "ok" else -1


def _peer(package: Package) -> tuple[float, int]:
    if package.registry == "npm":
        command = ["npx", "-y", f"{package.name}@{package.version}" if package.version else package.name]
    else:
        pinned = f"{package.name}=={package.version}" if package.version else package.name
        command = [find_uv_bin(), "tool", "run", "--from", pinned, package.name]
    started = time.perf_counter()  # with the caller's whole environment, as in a user's shell
    capture = probe.probe(package.server, command, env=dict(os.environ), hidden=())
    return time.perf_counter() - started, len(capture.tools) if capture.status == "ok" else -1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package", action="append", required=True, metavar="npm:NAME@VERSION|pypi:NAME==VERSION")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{'package':44} {'sandboxed s':>12} {'peer s':>8} {'ratio':>6} {'tools':>11}")
    with tempfile.TemporaryDirectory() as work:
        for spec in args.package:
            package = _package(spec)
            _sandboxed(package, Path(work)), _peer(package)  # warm both caches
            ours = [_sandboxed(package, Path(work)) for _ in range(args.rounds)]
            theirs = [_peer(package) for _ in range(args.rounds)]
            mine, peer = statistics.median(s for s, _ in ours), statistics.median(s for s, _ in theirs)
            print(f"{spec[:44]:44} {mine:>12.2f} {peer:>8.2f} {mine / peer:>5.1f}x {ours[0][1]:>5}/{theirs[0][1]:<5}")


if __name__ == "__main__":
    main()
