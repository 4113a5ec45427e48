"""A whole timeline from local mirrors (issue 39): ``timeline_speed.py --manifest FILE --mirrors DIR``.

1. ``census timeline MANIFEST --every month --since 2024-11 --mirrors DIR --jobs 2`` from an empty
   database, as a user runs it: the wall time, the peak RSS of the largest process (the driver or a
   worker), how many repositories it covered (those with a mirror), the periods, and how many of the
   repositories' periods were scanned and how many reused an earlier period's rows; target: under
   10 minutes.
2. The same command again on that database: what a rerun costs when every tree is stored (nothing is
   scanned; each repository's first-parent line is read again and its periods written again).
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MB = 1_000_000
TARGET_SECONDS = 600.0
#: the line ``census timeline`` prints of what it covered
COVERED = re.compile(r"^(\d+) of (\d+) repositories walked .*?; (\d+) repository-periods: (\d+) scanned, (\d+) reused"
                     r".*?; (\d+) trees scanned now$", re.M)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", type=Path, required=True)
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--since", default="2024-11")
    parser.add_argument("--every", default="month")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "pipeline", "timeline", str(args.manifest), "--every", args.every, "--since",
                   args.since, "--mirrors", str(args.mirrors), "--jobs", str(args.jobs), "--db",
                   str(Path(tmp) / "t.duckdb")]
        first, first_out = _timed(command)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        again, again_out = _timed(command)
    periods = re.search(r"\((\d+) periods\)", first_out)
    found = COVERED.search(first_out)
    if found is None or periods is None:
        print(f"census timeline printed no summary:\n{first_out[-2000:]}")
        sys.exit(1)
    walked, total, cells, scanned, reused, trees = (int(g) for g in found.groups())
    rerun = COVERED.search(again_out)
    print(f"census timeline --every {args.every} --since {args.since} --jobs {args.jobs} --mirrors, empty database: "
          f"{first:.1f} s wall, peak RSS {peak / MB:.0f} MB")
    print(f"  covered {walked} of {total} repositories (those with a mirror), {periods.group(1)} periods: "
          f"{cells} repository-periods, {scanned} scanned, {reused} reused ({reused / max(cells, 1):.0%}); "
          f"{trees} trees scanned")
    print(f"  rerun on the same database: {again:.1f} s wall, "
          f"{rerun.group(6) if rerun else '?'} trees scanned")
    verdict = "met" if first < TARGET_SECONDS else "MISSED"
    print(f"target: the whole timeline under {TARGET_SECONDS / 60:.0f} minutes at --jobs {args.jobs}: {verdict}")


def _timed(command: list[str]) -> tuple[float, str]:
    """The wall seconds of ``command`` and what it printed (stdout); exits 1 if it failed."""
    started = time.perf_counter()
    done = subprocess.run(command, check=False, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        print(f"{' '.join(command[3:5])} exited {done.returncode}:\n{done.stderr[-2000:]}")
        sys.exit(1)
    return seconds, done.stdout


if __name__ == "__main__":
    main()
