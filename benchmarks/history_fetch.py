"""What fetching a history costs: the census's partial clone and period files, against ``git clone --mirror``.

    .venv/bin/python benchmarks/history_fetch.py --mirrors DIR [--repo OWNER/NAME ...] [--months 22]

Each repository (at least five: the first ones of ``--mirrors`` when none is named) is served over
loopback by git's own ``http-backend`` (the test suite's ``git_host``). For each one the script
measures, in the same run:

- **census timeline's fetch** (``pipeline.fetch.histories``): the ``--filter=blob:none`` clone (the
  bytes the host sent, seconds), then the files of the distinct trees at the end of each of the
  last ``--months`` months (``fetch_files``: bytes, seconds);
- **the alternative it was chosen over**: one tar.gz per distinct period tree from the archive
  host, after a commits-only clone (``git archive``: the bytes the archive host would send);
- **the peer**: ``git clone --mirror`` of the same repository from the same host (bytes, seconds),
  what the docs asked of a user before; it also stands for ``census history``'s whole clone.

It prints one line per repository and the totals, with the ratio of bytes and of seconds.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from git_host import GitHost  # the test suite's loopback git host

from pipeline.fetch.first_parent import at_or_before, first_parent_line
from pipeline.fetch.histories import fetch_files, fetch_history
from pipeline.run.periods import periods
from pipeline.settings import Settings


def serve(mirror: Path, root: Path, repo: str) -> None:
    """A bare copy of ``mirror`` under ``root`` that the host serves with partial clones allowed."""
    bare = root / f"{repo}.git"
    bare.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "-q", "--bare", "--no-local", str(mirror), str(bare)], check=True)
    for key in ("uploadpack.allowFilter", "uploadpack.allowAnySHA1InWant"):
        subprocess.run(["git", "-C", str(bare), "config", key, "true"], check=True)


def measure(host: GitHost, repo: str, work: Path, months: int) -> tuple[float, ...]:
    """(history bytes, seconds, files bytes, seconds, archives bytes, mirror bytes, seconds)."""
    settings = Settings(cache_dir=work / "cache", git_url=host.url)
    before, start = host.sent_bytes, time.perf_counter()
    clone = fetch_history(repo, None, settings)
    clone_bytes, clone_seconds = host.sent_bytes - before, time.perf_counter() - start
    line = first_parent_line(clone, "HEAD")
    now = datetime.now(UTC)
    window = periods("month", f"{now.year - (months // 12) - 1}-{now.month:02d}", None, line[0].committed_at_utc)
    trees = {c.tree: c.commit for p in window[-months:] if (c := at_or_before(line, p.end_utc)) is not None}
    before, start = host.sent_bytes, time.perf_counter()
    fetch_files(clone, repo, list(trees.values()), settings)
    files_bytes, files_seconds = host.sent_bytes - before, time.perf_counter() - start
    source = host.root / f"{repo}.git"
    archive_bytes = sum(len(subprocess.run(["git", "-C", str(source), "archive", "--format=tar.gz", commit],
                                           capture_output=True, check=True).stdout) for commit in trees.values())
    before, start = host.sent_bytes, time.perf_counter()
    subprocess.run(["git", "clone", "-q", "--mirror", f"{host.url}/{repo}.git", str(work / "mirror.git")], check=True)
    return (clone_bytes, clone_seconds, files_bytes, files_seconds, archive_bytes, host.sent_bytes - before,
            time.perf_counter() - start)


def main() -> None:
    """Measure each repository and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, required=True, help="DIR/OWNER/NAME.git: the repositories to serve")
    parser.add_argument("--repo", action="append", default=[], help="OWNER/NAME (repeatable; default: five)")
    parser.add_argument("--months", type=int, default=22, help="periods of the timeline (default: 22)")
    args = parser.parse_args()
    repos = args.repo or sorted(f"{o.name}/{r.name.removesuffix('.git')}" for o in args.mirrors.iterdir()
                                if o.is_dir() for r in o.iterdir())[:5]
    totals = [0.0] * 7
    print(f"{'repository':40} {'history KiB':>11} {'s':>5} {'files KiB':>9} {'s':>5} {'archives KiB':>12} "
          f"{'mirror KiB':>10} {'s':>5}")
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "host"
        with GitHost(root) as host:
            for repo in repos:
                serve(args.mirrors / f"{repo}.git", root, repo)
                work = Path(scratch) / repo.replace("/", "+")
                got = measure(host, repo, work, args.months)
                totals = [a + b for a, b in zip(totals, got, strict=True)]
                print(_line(repo, got))
                shutil.rmtree(work)
    print(_line("all", tuple(totals)))
    fetched, seconds = totals[0] + totals[2], totals[1] + totals[3]
    print(f"census timeline's fetch (history + period files) against git clone --mirror: bytes "
          f"{fetched / totals[5]:.2f}x, seconds {seconds / totals[6]:.2f}x; one archive per period tree instead of "
          f"the files: {(totals[0] + totals[4]) / totals[5]:.2f}x the mirror's bytes")


def _line(label: str, got: tuple[float, ...]) -> str:
    return (f"{label:40} {got[0] / 1024:11.0f} {got[1]:5.2f} {got[2] / 1024:9.0f} {got[3]:5.2f} {got[4] / 1024:12.0f} "
            f"{got[5] / 1024:10.0f} {got[6]:5.2f}")


if __name__ == "__main__":
    main()
