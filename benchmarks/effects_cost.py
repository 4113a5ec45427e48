"""What reading every tool's handler adds to ``census run`` (issue 43): the same manifest from the
same mirrors, run by this checkout and by the census at ``--baseline REV`` (a git worktree of it,
the peer measured in the same run), each from an empty database, in turns, ``--runs`` times each.

    .venv/bin/python benchmarks/effects_cost.py --manifest manifests/registry-seed-2025-05.toml \\
        --mirrors MIRRORS --baseline 6585a88 --runs 2

Prints each run's wall time, the medians and their ratio, and what this checkout stored
(handlers located per language, effects and verdicts). ``--parts`` adds a third peer: this
checkout with the analysis itself left out (each process's ``analyse`` returns nothing, set by a
``sitecustomize`` of the benchmark's own), which tells the analysis's share from the rest of the
changes since the baseline.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parent.parent


_WITHOUT_ANALYSIS = ("import pipeline.scan.effects.analysis as analysis\n"
                     "analysis.analyse = lambda tools, shelf, roles=None: ()\n")


def run(code: Path, manifest: Path, mirrors: Path, work: Path, jobs: int, analysis: bool = True) -> float:  # noqa: PLR0917
    """One ``census run`` by the code at ``code``, from an empty database; its wall seconds."""
    copy = work / manifest.name
    copy.write_bytes(manifest.read_bytes())
    path = str(code)
    if not analysis:  # every process of the run (the workers too) starts by leaving it out
        (work / "site").mkdir()
        (work / "site" / "sitecustomize.py").write_text(_WITHOUT_ANALYSIS, encoding="utf-8")
        path = f"{work / 'site'}{os.pathsep}{code}"
    env = {**os.environ, "PYTHONPATH": path}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pipeline", "run", str(copy), "--mirrors", str(mirrors),
                           "--offline", "--jobs", str(jobs), "--db", str(work / "c.duckdb"),
                           "--cache", str(work / "cache")], check=False, capture_output=True, text=True, env=env,
                          cwd=work)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"census run by {code} exited {done.returncode}: {done.stderr[-2000:]}")
    return seconds


def stored(database: Path) -> None:
    """What this checkout's run stored of the effects analysis."""
    con = duckdb.connect(str(database), read_only=True)
    rows = con.execute("""
        SELECT CASE WHEN h.path SIMILAR TO '.*\\.(py|pyi)' THEN 'python'
                    WHEN h.path SIMILAR TO '.*\\.go' THEN 'go'
                    WHEN h.path SIMILAR TO '.*\\.rs' THEN 'rust' ELSE 'typescript' END AS language,
               count(*) AS tools, count(h.handler_path) AS located
        FROM tool_handlers h WHERE h.handler_kind <> 'none' OR h.reason <> 'language not followed'
        GROUP BY 1 ORDER BY 1""").fetchall()
    for language, tools, located in rows:
        print(f"  {language:10} server tools {tools:5}  handlers located {located:5} ({located / tools:.1%})")
    for verdict, count in con.execute("SELECT verdict, count(*) FROM tool_verdicts GROUP BY 1 ORDER BY 1").fetchall():
        print(f"  {verdict:13} {count}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--manifest", type=Path, required=True)
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--baseline", required=True, help="the commit whose census is the peer")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--parts", action="store_true", help="also run this checkout without the analysis")
    args = parser.parse_args()
    manifest, mirrors = args.manifest.resolve(), args.mirrors.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        baseline = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(baseline), args.baseline],
                       check=True, capture_output=True)
        try:
            peers = [("this checkout", ROOT, True), (f"baseline {args.baseline}", baseline, True)]
            if args.parts:
                peers.insert(1, ("without the analysis", ROOT, False))
            times: dict[str, list[float]] = {name: [] for name, _, _ in peers}
            for turn in range(args.runs):
                for (name, code, analysis) in peers:
                    work = Path(tmp) / f"{turn}-{len(times[name])}-{name.replace(' ', '-')}"
                    work.mkdir()
                    times[name].append(run(code, manifest, mirrors, work, args.jobs, analysis))
                    print(f"{name:22} run {turn + 1}: {times[name][-1]:6.1f} s", flush=True)
                    if code == ROOT and analysis and turn == 0:
                        stored(work / "c.duckdb")
            medians = {name: statistics.median(v) for name, v in times.items()}
            ours, peer = medians["this checkout"], medians[f"baseline {args.baseline}"]
            print(f"median: this checkout {ours:.1f} s, baseline {peer:.1f} s: ratio {ours / peer:.2f}x")
            if args.parts:
                bare = medians["without the analysis"]
                print(f"median without the analysis {bare:.1f} s: the analysis costs {ours / bare:.2f}x of the rest")
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(baseline)], check=False,
                           capture_output=True)


if __name__ == "__main__":
    main()
