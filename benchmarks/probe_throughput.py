"""Seconds per package of the runtime census at --jobs 2 and --jobs 4, against starting the same packages
as a user would, measured in the same run (issue 36).

    .venv/bin/python benchmarks/probe_throughput.py --registry-file FILE_OR_CATALOG [--sample 20] [--seed 2026]

The packages: a seeded sample of the registry (``pipeline.run.draw``) of those that resolve. For each
``--jobs`` value, ``census probe-registry``'s path (``probe_registry.probe_packages``: install into a
private folder in bubblewrap, dependencies as released, start without the network, capture) runs over
them all with a fresh work folder, its npm and uv caches shared across the packages as a census
shares them; the peer, at the same concurrency, starts each package as a user types it, ``npx -y
NAME@VERSION`` or ``uvx --from NAME==VERSION NAME`` (through ``census probe``, unsandboxed, the
caller's environment), with fresh npm and uv caches of its own. Printed per side: the median and
95th percentile of each package's seconds, wall seconds per package, how many answered, and the
ratios. Needs the network to npm and PyPI.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
from uv import find_uv_bin

from pipeline.manifest import catalog, registry_dump
from pipeline.run.draw import draw
from pipeline.run.probe_registry import Options, probe_packages
from pipeline.runtime import interpreters, probe
from pipeline.runtime.package_index import Hosts, resolve
from pipeline.runtime.packages import NPM, Package, packages
from pipeline.runtime.sandbox import Sandbox


def census(chosen: Sequence[Package], jobs: int) -> tuple[list[float], float, int]:
    """Each package's seconds, the wall seconds and how many answered, through ``probe_packages``."""
    with tempfile.TemporaryDirectory() as folder, duckdb.connect(str(Path(folder) / "c.duckdb")) as con:
        options = Options(work_dir=Path(folder) / "work", jobs=jobs, latest=True,
                          interpreters=tuple(interpreters.found()))
        started = time.perf_counter()
        outcomes = probe_packages(con, chosen, options, sandbox=Sandbox.from_env(), hosts=Hosts.from_env())
        wall = time.perf_counter() - started
    answered = sum(o.capture is not None and o.capture.status == "ok" for o in outcomes)
    return [o.seconds for o in outcomes], wall, answered


def peer(chosen: Sequence[Package], versions: dict[str, str], jobs: int) -> tuple[list[float], float, int]:
    """The same for ``npx -y`` / ``uvx``, with fresh npm and uv caches."""
    with tempfile.TemporaryDirectory() as caches:
        env = {**os.environ, "npm_config_cache": f"{caches}/npm", "UV_CACHE_DIR": f"{caches}/uv"}

        def one(package: Package) -> tuple[float, bool]:
            version = versions[package.server]
            command = ["npx", "-y", f"{package.name}@{version}"] if package.registry == NPM else \
                [find_uv_bin(), "tool", "run", "--from", f"{package.name}=={version}", package.name]
            started = time.perf_counter()
            capture = probe.probe(package.server, command, env=env, hidden=())
            return time.perf_counter() - started, capture.status == "ok"

        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(one, chosen))
        wall = time.perf_counter() - started
    return [s for s, _ in results], wall, sum(ok for _, ok in results)


def _p95(values: Sequence[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


def _row(label: str, jobs: int, measured: tuple[list[float], float, int]) -> tuple[float, float]:
    seconds, wall, answered = measured
    median, p95 = statistics.median(seconds), _p95(seconds)
    print(f"{label:28} {jobs:>4} {median:>9.1f} {p95:>8.1f} {wall / len(seconds):>10.1f} {answered:>5}/{len(seconds)}")
    return median, wall / len(seconds)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--registry-file", type=Path, required=True)
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", default="2,4", help="comma-separated (default: 2,4)")
    args = parser.parse_args(argv)
    read: Callable[[Path], list[dict[str, object]]] = (
        (lambda path: [item for _, item in catalog.items(path)]) if catalog.is_catalog(args.registry_file) else
        (lambda path: [item for _, item in registry_dump.items(path, with_packages=True)]))
    hosts = Hosts.from_env()
    made = draw(list(packages(read(args.registry_file))), args.sample, args.seed, hosts, latest=True)
    chosen = [d.package for d in made.drawn if d.resolved]
    versions = {p.server: resolve(p, hosts, latest=True).version for p in chosen}
    print(f"{len(chosen)} packages that resolve, drawn with seed {args.seed} from {args.registry_file.name}")
    print(f"{'':28} {'jobs':>4} {'median s':>9} {'p95 s':>8} {'wall s/pkg':>10} {'answered':>9}")
    for jobs in (int(j) for j in args.jobs.split(",")):
        ours = _row("census probe-registry", jobs, census(chosen, jobs))
        theirs = _row("npx -y / uvx (peer)", jobs, peer(chosen, versions, jobs))
        ratios = f"{ours[0] / theirs[0]:>8.2f}x {'':>8} {ours[1] / theirs[1]:>9.2f}x"
        print(f"{'ratio (census / peer)':28} {jobs:>4} {ratios}")


if __name__ == "__main__":
    main()
