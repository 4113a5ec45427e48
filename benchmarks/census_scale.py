"""Census at scale: repositories per second with one job, eight jobs and a Dask cluster (issue 5),
and API requests per repository under a rate limit (issue 23).

    .venv/bin/python benchmarks/census_scale.py [--repos 500] [--latency 0.05] [--jobs 1,8] [--no-dask]
    .venv/bin/python benchmarks/census_scale.py --budget 200/2 [--repos 1000] [--code CHECKOUT]
    .venv/bin/python benchmarks/census_scale.py --manifest FILE --mirrors DIR [--jobs 2]

With ``--manifest FILE --mirrors DIR`` it runs that real census from local git mirrors instead
(``census_mirrors``): wall time and peak memory of ``census run --jobs 2 --offline``, and each
repository's cost alone (median, 95th percentile, max, the slowest named with why) against
``git archive`` of the same commit.

With ``--budget N/S`` it measures requests instead: ``--repos`` small repositories, unpinned, served
by the loopback server that allows each token N API requests per window of S seconds (GitHub's
5,000 an hour, scaled down; past it 403 with ``X-RateLimit-Remaining: 0`` and the window's end),
and ``census run --jobs 8`` with a token, pins and all, from an empty cache. It prints the API
requests per repository, REST and GraphQL apart, the requests to the web and archive hosts, the
rate-limited answers, the wall time and the repositories skipped; and the issue's target: at most
0.02 API requests per repository and none skipped. ``--code`` runs the ``census`` of another
checkout (an older commit, for a before-and-after) against the same server.

Builds ``--repos`` synthetic repositories with a realistic spread of sizes (log-normal: most
trees a few hundred KB, a few several MB; Python, Go and Markdown files, a FastMCP server in
each), serves them from the loopback GitHub server of the test suite with ``--latency``
seconds added to every request (a tarball costs two requests: the API's redirect and the
download), and times ``census run`` on a pinned manifest of them, from an empty cache and
database, for each ``--jobs`` value and for ``--executor dask://`` on a ``LocalCluster`` of
two worker processes with four threads each. For each mode it prints the wall time,
repositories per second, peak RSS of the largest process (the driver or a worker), and the
speed-up over the first mode; it checks that every mode stored the same tables, and the
issue's target: ``--jobs 8`` at least 5x ``--jobs 1`` when latency dominates. It always exits 0.
"""

from __future__ import annotations

import argparse
import math
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from github_server import GitHubServer  # the test suite's loopback server
from synth import FASTMCP_SERVER, GO_SERVER, fake_sha, tarball

MB = 1_000_000
#: filler vocabulary: code words, none of them a term or a detector marker (as in most files of a real tree)
WORDS = [b"def", b"return", b"if", b"else", b"class", b"self", b"value", b"result", b"items", b"func", b"err",
         b"nil", b"the", b"config", b"context", b"async", b"await", b"{", b"}", b"(", b")", b"\n", b"\n    "]


def repository(i: int, rng: random.Random) -> dict[str, bytes | tuple[str, str]]:
    """One tree: a FastMCP server, sometimes a Go one, and filler files totalling a log-normal size."""
    total = int(min(20 * MB, math.exp(rng.gauss(12.2, 1.3))))  # median ~200 KB, a long tail
    tree: dict[str, bytes | tuple[str, str]] = {"server.py": FASTMCP_SERVER,
                                                "README.md": b"Tools declare annotations such as readOnlyHint.\n"}
    if i % 3 == 0:
        tree["cmd/main.go"] = GO_SERVER
    n, written = 0, 0
    while written < total:
        size = min(total - written, int(rng.expovariate(1 / 6000)) + 200)
        ext = rng.choice([".py", ".go", ".md", ".ts"])
        tree[f"pkg{n % 17}/file{n}{ext}"] = _text(rng, size)
        written, n = written + size, n + 1
    return tree


def _text(rng: random.Random, size: int) -> bytes:
    words = rng.choices(WORDS, k=size // 5 + 1)
    return b" ".join(words)[:size]


def serve(github: GitHubServer, repos: int, directory: Path) -> tuple[Path, int]:
    """Add the repositories to ``github``; the pinned manifest and the total bytes of archives."""
    rng = random.Random(2026)
    lines, archive_bytes = ['[census]\nname = "scale"\n'], 0
    for i in range(repos):
        repo, commit = f"scale/r{i:04d}", fake_sha(f"scale-{i}")
        data = tarball(repository(i, rng), f"scale-r{i:04d}-{commit[:7]}", commit)
        github.add_repo(repo, {commit: data})
        archive_bytes += len(data)
        lines.append(f'[[repos]]\nrepo = "{repo}"\ncommit = "{commit}"\n')
    manifest = directory / "scale.toml"
    manifest.write_text("\n".join(lines))
    return manifest, archive_bytes


def census_run(manifest: Path, github: GitHubServer, work: Path, *options: str) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes, largest process) of ``census run`` from scratch."""
    command = [sys.executable, "-m", "pipeline", "run", str(manifest), "--db", str(work / "census.duckdb"),
               "--cache", str(work / "cache"), "--api-url", github.api_url, *options]
    wrapper = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL,"
               " stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss);"
               " sys.exit(done.returncode)")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", wrapper, *command], capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"census run {' '.join(options)} failed: {done.stderr}")
    return seconds, int(done.stdout.strip()) * 1024


def tables(db: Path) -> list[tuple[object, ...]]:
    """The rows that must agree between modes (time columns left out)."""
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT repo, commit, status, regular_files, content_bytes FROM snapshots ORDER BY ALL")
        found = rows.fetchall()
        found += con.execute("SELECT * FROM term_counts ORDER BY ALL").fetchall()
        found += con.execute("SELECT repo, path, line, sdk, tool_name FROM tools ORDER BY ALL").fetchall()
    return found


def main() -> int:
    """Measure every mode and print the table; always exit 0."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repos", type=int, default=500)
    parser.add_argument("--latency", type=float, default=0.1, help="seconds added to every request (default 0.1)")
    parser.add_argument("--jobs", default="1,8", help="comma-separated --jobs values (default 1,8)")
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask executor")
    parser.add_argument("--budget", help="N/S: measure API requests, N per S seconds allowed to a token")
    parser.add_argument("--code", type=Path, help="with --budget: the checkout whose census runs (default: this)")
    parser.add_argument("--manifest", type=Path, help="a real census instead: this manifest, read from --mirrors")
    parser.add_argument("--mirrors", type=Path, help="with --manifest: the folder of git mirrors (DIR/OWNER/NAME.git)")
    args = parser.parse_args()
    if args.manifest:
        from census_mirrors import measure as from_mirrors

        from_mirrors(args.manifest, args.mirrors, jobs=int(args.jobs.split(",")[-1]) if args.jobs != "1,8" else 2)
        return 0
    if args.budget:
        from census_budget import measure

        requests, window = args.budget.split("/")
        measure(args.repos, int(requests), float(window), args.code)
        return 0
    modes = [(f"--jobs {j}", ["--jobs", j]) for j in args.jobs.split(",")]
    with tempfile.TemporaryDirectory() as tmp, GitHubServer() as github:
        print(f"building {args.repos} repositories ...", flush=True)
        manifest, archive_bytes = serve(github, args.repos, Path(tmp))
        github.latency_seconds = args.latency
        print(f"{args.repos} repositories, {archive_bytes / MB:.0f} MB of tar.gz, {args.latency * 1000:.0f} ms per"
              " request (2 requests per repository)")
        results = [(label, *census_run(manifest, github, Path(tmp) / str(n), *opts))
                   for n, (label, opts) in enumerate(modes)]
        if not args.no_dask:
            results.append(("--executor dask:// (2 workers x 4 threads)", *_dask(manifest, github, Path(tmp) / "dask")))
        report(results, args.repos)
        _check_same([Path(tmp) / str(n) / "census.duckdb" for n in range(len(modes))]
                    + ([] if args.no_dask else [Path(tmp) / "dask" / "census.duckdb"]))
    return 0


def _dask(manifest: Path, github: GitHubServer, work: Path) -> tuple[float, int]:
    """Wall seconds, and the peak RSS of the driver or of a Dask worker, whichever is larger."""
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=4, processes=True, dashboard_address=None) as cluster:
        seconds, driver = census_run(manifest, github, work, "--executor", f"dask://{cluster.scheduler_address}")
        with Client(cluster) as client:
            workers = client.run(_own_peak_rss)
    return seconds, max(driver, *workers.values())


def _own_peak_rss() -> int:
    """This process's peak RSS in bytes (``VmHWM``), run on each Dask worker."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def report(results: list[tuple[str, float, int]], repos: int) -> None:
    """The table, and the target."""
    base = results[0][1]
    print(f"{'mode':44} {'seconds':>8} {'repos/s':>8} {'speed-up':>8} {'peak RSS':>9}")
    for label, seconds, rss in results:
        shown = f"{rss / MB:.0f} MB" if rss else "?"
        print(f"{label:44} {seconds:8.1f} {repos / seconds:8.1f} {base / seconds:7.1f}x {shown:>9}")
    times = {label: seconds for label, seconds, _ in results}
    if "--jobs 1" in times and "--jobs 8" in times:
        ratio = times["--jobs 1"] / times["--jobs 8"]
        print(f"target: --jobs 8 vs --jobs 1 {ratio:.1f}x >= 5 {'met' if ratio >= 5 else 'MISSED'}")


def _check_same(databases: list[Path]) -> None:
    first = tables(databases[0])
    same = all(tables(db) == first for db in databases[1:])
    print("tables: every mode stored the same rows" if same else "WARNING: the modes stored different rows")


if __name__ == "__main__":
    sys.exit(main())
