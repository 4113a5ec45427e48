"""``census history`` against one ``census count`` of the newest commit (issue 27).

``history_speed.py --source GITDIR [--source GITDIR ...] [--terms SET] [--first-parent]``: for each
local git repository, the walk over every commit of its history (``pipeline.scan.history.walk``, as
``census history`` does, without the database), timed against the peer measured in the same
run: ``census count`` of a tar of the newest commit (``git archive HEAD``), in a new process, as a
user runs it. Prints the commits, the blobs read, both times and the ratio (target: at most 20x).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pipeline.manifest import terms as term_sets
from pipeline.scan import history

TARGET = 20.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, action="append", required=True, metavar="GITDIR")
    parser.add_argument("--terms", default="published")
    parser.add_argument("--first-parent", action="store_true")
    args = parser.parse_args()
    terms = term_sets.resolve(args.terms)
    print(f"{'repository':32} {'commits':>8} {'walk s':>8} {'count s':>8} {'ratio':>7}  target <= {TARGET:.0f}x")
    for source in args.source:
        started = time.perf_counter()
        walked = list(history.walk(source, terms, first_parent=args.first_parent))
        walk_seconds = time.perf_counter() - started
        count_seconds, peer = _peer(source, args.terms)
        ratio = walk_seconds / count_seconds
        verdict = "met" if ratio <= TARGET else "MISSED"
        print(f"{source.parent.name[:32]:32} {len(walked):>8} {walk_seconds:>8.2f} {count_seconds:>8.2f} "
              f"{ratio:>6.1f}x  {verdict}{peer}")


def _peer(source: Path, terms: str) -> tuple[float, str]:
    """``census count`` of ``git archive HEAD`` in a new process; where the clone lacks a blob (git
    archive then fails), the walk's own counting of HEAD's whole tree, said so."""
    with tempfile.TemporaryDirectory() as folder:
        tar = Path(folder) / "head.tar"
        with tar.open("wb") as out:
            made = subprocess.run(["git", f"--git-dir={source}", "archive", "--format=tar", "HEAD"], stdout=out,
                                  stderr=subprocess.DEVNULL, check=False)
        if made.returncode == 0:
            started = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pipeline", "count", "--terms", terms, str(tar)],
                           check=True, capture_output=True)
            return time.perf_counter() - started, ""
    head = history.commits(source)[-1][0]
    code = (f"from pipeline import history, terms; history.tree_totals(__import__('pathlib').Path({str(source)!r}), "
            f"{head!r}, terms.resolve({terms!r}))")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - started, "  (peer: HEAD's tree counted in a new process; a blob is missing)"


if __name__ == "__main__":
    main()
