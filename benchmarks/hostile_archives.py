"""Hostile archives at full size: a multi-gigabyte member and gzip bombs (issue 6).

    .venv/bin/python benchmarks/hostile_archives.py [--gib 8] [--bomb-gib 100]

Builds, in a temporary folder and in a few seconds (runs of zeros are one deflate block
repeated, see ``tests/hostile.py``):

- a tar.gz with one member of ``--gib`` GiB of zeros between two small files that name hints;
- a gzip bomb: a small valid tar followed by ``--bomb-gib`` GiB of zeros in the same stream;
- a sparse bomb: one pax sparse member of 1 TiB holding 12 stored bytes.

Then it runs, each as a subprocess whose peak RSS is its own ``VmHWM`` read as it exits
(``ru_maxrss`` would also count this script's memory at fork):

- ``census count --json`` of the big archive (``CENSUS_MAX_ARCHIVE_BYTES`` raised to fit);
- ``census run`` of a manifest serving the big archive from the test suite's loopback GitHub
  server (download, verify, scan, DuckDB), limit raised the same way, with ``CENSUS_JOBS=1``
  so that the whole run happens in the process measured;
- ``census count --json`` of each bomb with the default limits, which must refuse it.

It prints wall time, peak RSS and the outcome of each, and checks the counts. It always exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from github_server import GitHubServer  # the test suite's loopback server
from hostile import MEASURED_CENSUS, Content, GiB, member, sparse_bomb, write_tar_gz

MiB = 1 << 20
AFTER = b"readOnlyHint annotations\n"


def big_archive(path: Path, gib: float) -> int:
    """A GitHub-style tar.gz with a ``gib`` GiB member of zeros; the bytes of file content."""
    size = int(gib * GiB)
    members: list[tuple[tarfile.TarInfo, Content]] = [
        (member("acme-big-1"), b""), (member("acme-big-1/before.py"), AFTER),
        (member("acme-big-1/disk.img"), size), (member("acme-big-1/after.py"), AFTER),
    ]
    members[0][0].type = tarfile.DIRTYPE
    write_tar_gz(path, members)
    return size + 2 * len(AFTER)


def measured(args: list[str], env: dict[str, str], cwd: Path) -> tuple[int, float, int, str, str]:
    """Run ``census ARGS``: exit code, seconds, peak RSS in bytes, stdout, stderr."""
    peak = cwd / "peak-rss-kb"
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", MEASURED_CENSUS, str(peak), *args], env=env, cwd=cwd,
                          capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    return done.returncode, seconds, int(peak.read_text()) * 1024, done.stdout, done.stderr


def line(label: str, code: int, seconds: float, rss: int, outcome: str) -> None:
    """One row of the results."""
    print(f"{label:<44} exit {code}  {seconds:7.2f} s  peak RSS {rss / MiB:7.1f} MiB  {outcome}")


def count_big(folder: Path, path: Path, content: int, env: dict[str, str]) -> None:
    """``census count`` of the big archive; checks the totals."""
    code, seconds, rss, out, err = measured(["count", "--json", str(path)], env, folder)
    report = json.loads(out) if code == 0 else {}
    right = report.get("content_bytes") == content and report.get("totals", {}).get("readOnlyHint") == 2
    line("census count, big member", code, seconds, rss, "counts right" if right else f"WRONG {err.strip()}")


def run_big(folder: Path, data: bytes, content: int, env: dict[str, str]) -> None:
    """``census run`` of the big archive through the loopback server; checks the stored totals."""
    commit = "b" * 40
    manifest = folder / "big.toml"
    manifest.write_text(f'[[repos]]\nrepo = "acme/big"\ncommit = "{commit}"\n')
    with GitHubServer() as github:
        github.add_repo("acme/big", {commit: data})
        args = ["run", str(manifest), "--db", str(folder / "c.duckdb"), "--cache", str(folder / "cache")]
        code, seconds, rss, _, err = measured(args, {**env, "GITHUB_API_URL": github.api_url, "CENSUS_JOBS": "1"},
                                              folder)
    with duckdb.connect(str(folder / "c.duckdb"), read_only=True) as con:
        stored = con.execute("SELECT content_bytes, status FROM snapshots").fetchall()
    right = stored == [(content, "scanned")]
    line("census run (fetch, verify, scan, store)", code, seconds, rss, "stored right" if right else f"WRONG {err}")


def refuse(folder: Path, label: str, path: Path, env: dict[str, str]) -> None:
    """``census count`` of a bomb under the default limits: it must be refused."""
    code, seconds, rss, _, err = measured(["count", "--json", str(path)], env, folder)
    refused = code == 1 and "over a limit" in err
    line(label, code, seconds, rss, err.strip().splitlines()[-1] if refused else "NOT REFUSED")


def main() -> int:
    """Build the archives, run each case, print the table; always exit 0."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gib", type=float, default=8.0, help="size of the big member in GiB")
    parser.add_argument("--bomb-gib", type=float, default=100.0, help="zeros after the bomb's tar, in GiB")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CENSUS_"))}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        content = big_archive(folder / "big.tar.gz", args.gib)
        hidden = _bomb(folder, args.bomb_gib)
        sparse = sparse_bomb(folder / "sparse.tar.gz")
        print(f"built in {time.perf_counter() - started:.1f} s: big member {args.gib} GiB in "
              f"{(folder / 'big.tar.gz').stat().st_size / MiB:.1f} MiB, bomb {args.bomb_gib} GiB in "
              f"{hidden.stat().st_size / MiB:.1f} MiB, sparse bomb 1 TiB in {sparse.stat().st_size} bytes")
        raised = {**env, "CENSUS_MAX_ARCHIVE_BYTES": str(content + 64 * MiB)}
        count_big(folder, folder / "big.tar.gz", content, raised)
        run_big(folder, (folder / "big.tar.gz").read_bytes(), content, raised)
        refuse(folder, "census count, gzip bomb (default limits)", hidden, env)
        refuse(folder, "census count, sparse bomb (default limits)", sparse, env)
    return 0


def _bomb(folder: Path, gib: float) -> Path:
    """A small valid tar, then ``gib`` GiB of zeros in the same gzip stream."""
    members: list[tuple[tarfile.TarInfo, Content]] = [(member("r/a.py"), b"annotations")]
    return write_tar_gz(folder / "hidden.tar.gz", members, trailing_zeros=int(gib * GiB))


if __name__ == "__main__":
    sys.exit(main())
