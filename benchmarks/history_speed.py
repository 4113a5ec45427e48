"""``census history``'s walk against a plain walker written here, in the same run (issue 38).

``history_speed.py --source GITDIR [--source GITDIR ...] [--terms SET] [--first-parent | --all-refs]
[--every-ref GITDIR ...] [--runs N]``: for each local git repository, the walk over every commit of
the range (``pipeline.scan.history.walk``, as ``census history`` does, without the database) against
the peer: a plain walker using only git and the standard library, which lists the commits with one
``git log``, each commit's whole tree with ``git ls-tree -r``, and counts each blob it has not met
(read through one ``git cat-file --batch``) with ``bytes.lower`` and ``bytes.count``. Both give every
commit's totals, which must agree. Prints the commits, both times (the median of ``--runs``, the two
alternating) and how many times faster the walk is (target: at least 2x). Then, for each
``--every-ref`` repository, the walk over every ref (``census history --all-refs``), timed against
its own target (at most 20 s).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from pipeline.manifest import terms as term_sets
from pipeline.scan import history

T = TypeVar("T")

TARGET_RATIO = 2.0
TARGET_EVERY_REF_SECONDS = 20.0

#: the modes of regular files, the files a count reads
REGULAR = (b"100644", b"100755", b"100664")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, action="append", default=[], metavar="GITDIR")
    parser.add_argument("--terms", default="published")
    refs = parser.add_mutually_exclusive_group()
    refs.add_argument("--first-parent", action="store_true", help="walk first parents only, both of them")
    refs.add_argument("--all-refs", action="store_true", help="walk every ref, both of them")
    parser.add_argument("--every-ref", type=Path, action="append", default=[], metavar="GITDIR",
                        help="also time the walk over every ref of GITDIR (no peer)")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    terms = term_sets.resolve(args.terms)
    window = {"first_parent": args.first_parent, "all_refs": args.all_refs}
    if args.source:
        print(f"{'repository':28} {'commits':>8} {'walk s':>8} {'peer s':>8} {'faster':>7}  target >= "
              f"{TARGET_RATIO:.0f}x")
    for source in args.source:
        walk_times, peer_times = [], []
        for _ in range(args.runs):
            peer_seconds, peered = _timed(peer, source, terms, **window)
            walk_seconds, walked = _timed(_walk, source, terms, **window)
            peer_times.append(peer_seconds)
            walk_times.append(walk_seconds)
        walk_s, peer_s = statistics.median(walk_times), statistics.median(peer_times)
        verdict = "met" if peer_s / walk_s >= TARGET_RATIO else "MISSED"
        agree = "totals agree" if walked == peered else "TOTALS DIFFER"
        print(f"{_name(source):28} {len(walked):>8} {walk_s:>8.2f} {peer_s:>8.2f} {peer_s / walk_s:>6.1f}x  "
              f"{verdict} ({agree})")
    for source in args.every_ref:
        runs = [_timed(_walk, source, terms, all_refs=True) for _ in range(args.runs)]
        seconds, count = statistics.median(t for t, _ in runs), len(runs[0][1])
        verdict = "met" if seconds <= TARGET_EVERY_REF_SECONDS else "MISSED"
        print(f"every ref of {_name(source)}: {count} commits walked in {seconds:.2f} s  target <= "
              f"{TARGET_EVERY_REF_SECONDS:.0f} s  {verdict}")


def peer(source: Path, terms: Sequence[str], *, first_parent: bool = False,
         all_refs: bool = False) -> list[tuple[str, tuple[int, ...]]]:
    """Every commit's totals, the plain way: one ``git ls-tree -r`` per commit, each new blob counted once."""
    git = ["git", "-c", "protocol.allow=never", f"--git-dir={source}"]
    env = {**os.environ, "GIT_NO_LAZY_FETCH": "1"}
    log = ["log", "--topo-order", "--reverse", "--format=%H", *(["--first-parent"] if first_parent else []),
           "--all" if all_refs else "HEAD"]
    commits = subprocess.run([*git, *log], check=True, capture_output=True, env=env).stdout.decode().split()
    needles = [term.encode().lower() for term in terms]
    counted: dict[bytes, list[int]] = {}
    found = []
    with subprocess.Popen([*git, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          env=env) as cat:
        assert cat.stdin is not None
        assert cat.stdout is not None
        for commit in commits:
            tree = subprocess.run([*git, "ls-tree", "-r", "-z", commit], check=True, capture_output=True,
                                  env=env).stdout
            totals = [0] * len(needles)
            for entry in filter(None, tree.split(b"\0")):
                mode, _, sha = entry.partition(b"\t")[0].split(b" ")
                if mode not in REGULAR:
                    continue
                if sha not in counted:
                    cat.stdin.write(sha + b"\n")
                    cat.stdin.flush()
                    header = cat.stdout.readline().split()  # SHA blob SIZE, or SHA missing (a partial clone)
                    data = cat.stdout.read(int(header[2]) + 1)[:-1].lower() if len(header) == 3 else b""
                    counted[sha] = [data.count(n) for n in needles]
                totals = [t + c for t, c in zip(totals, counted[sha], strict=True)]
            found.append((commit, tuple(totals)))
        cat.stdin.close()
    return found


def _walk(source: Path, terms: Sequence[str], *, first_parent: bool = False,
          all_refs: bool = False) -> list[tuple[str, tuple[int, ...]]]:
    """Every commit's totals, as ``census history`` finds them."""
    return [(c.commit, c.totals) for c in history.walk(source, terms, first_parent=first_parent, all_refs=all_refs)]


def _timed(work: Callable[..., T], *args: object, **kwargs: bool) -> tuple[float, T]:
    started = time.perf_counter()
    done = work(*args, **kwargs)
    return time.perf_counter() - started, done


def _name(source: Path) -> str:
    """The repository a clone is of, from its path (``OWNER+NAME/repo``, ``OWNER/NAME.git`` or ``NAME``)."""
    parts = [p for p in source.resolve().parts if p not in ("repo", ".git")]
    name = parts[-1].removesuffix(".git")
    return (name.replace("+", "/", 1) if "+" in name else f"{parts[-2]}/{name}")[:28]


if __name__ == "__main__":
    main()
