"""A real census from local mirrors (issue 24): ``census_scale.py --manifest FILE --mirrors DIR``.

1. ``census run MANIFEST --mirrors DIR --offline --jobs 2`` from an empty database, as a user runs
   it: the wall time, and the peak RSS of the largest process (the driver or a worker).
2. Each repository alone, one after another, in this process: what reading and scanning its tree
   costs (the median, 95th percentile and maximum), the slowest five named with why (files, bytes,
   source files the detector parsed, tools); and, as the peer measured in the same run, what
   ``git archive`` of the same commit into ``/dev/null`` costs (reading every blob, nothing more).
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pipeline.archive.limits import limited
from pipeline.fetch.mirrors import locate
from pipeline.fetch.source import GitRepoSource
from pipeline.manifest import manifests
from pipeline.scan.detect import Detector
from pipeline.scan.roles import RoleRules
from pipeline.scan.tree import scan_tree
from pipeline.settings import Limits

MB = 1_000_000


def measure(manifest_path: Path, mirrors: Path, jobs: int = 2) -> None:
    """Run both measurements and print them; repositories with no mirror are left out of part 2."""
    loaded = manifests.load(manifest_path)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / manifest_path.name
        copy.write_bytes(manifest_path.read_bytes())
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "pipeline", "run", str(copy), "--mirrors", str(mirrors),
                               "--offline", "--jobs", str(jobs), "--db", str(Path(tmp) / "c.duckdb"),
                               "--cache", str(Path(tmp) / "cache")], check=False, capture_output=True, text=True)
        wall = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    summary = [line for line in done.stdout.splitlines() if "repositories (" in line]
    print(f"census run --jobs {jobs} --mirrors --offline: {wall:.1f} s wall, peak RSS {peak / MB:.0f} MB, "
          f"exit {done.returncode}; {summary[0] if summary else ''}")
    costs = []
    for entry in loaded.repos:
        path = locate(mirrors, entry.repo)
        if path is None or entry.commit is None:
            continue
        costs.append((entry.repo, *_one(path, entry.commit, entry.server_paths)))
    if not costs:
        print("no repository of the manifest has a mirror")
        return
    census_s = [c[1] for c in costs]
    peer_s = sum(c[2] for c in costs)
    print(f"{len(costs)} repositories alone: census {sum(census_s):.1f} s, git archive {peer_s:.1f} s "
          f"(ratio {sum(census_s) / peer_s:.2f}x the peer)")
    print(f"per repository: median {statistics.median(census_s) * 1000:.0f} ms, "
          f"p95 {_quantile(census_s, 0.95) * 1000:.0f} ms, max {max(census_s) * 1000:.0f} ms")
    print("slowest:")
    for repo, seconds, peer, why in sorted(costs, key=lambda c: -c[1])[:5]:
        print(f"  {repo:50} {seconds:6.2f} s (git archive {peer:5.2f} s): {why}")


def _one(path: Path, commit: str, server_paths: tuple[str, ...]) -> tuple[float, float, str]:
    """(census seconds, git archive seconds, why) for one tree."""
    source = GitRepoSource(path)
    started = time.perf_counter()
    fetched = source.fetch(commit)
    scan = scan_tree(limited(source.members(commit, fetched), Limits()), ("readonlyhint",), Detector(),
                     RoleRules(server_paths))
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    subprocess.run(["git", "-C", str(path), "archive", "--format=tar", commit], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    peer = time.perf_counter() - started
    detection = scan.detection
    parsed = detection.files_parsed if detection is not None else 0
    tools = len(detection.tools) if detection is not None else 0
    why = f"{scan.regular_files:,} files, {scan.content_bytes / MB:.0f} MB, {parsed} parsed, {tools} tools"
    return seconds, peer, why


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
