"""Scanner speed: ``census count`` against ``tar -xzf`` + ripgrep, ``git grep`` and the gzip floor (issue 7).

    .venv/bin/python benchmarks/scan_speed.py [--archive PATH.tar.gz ...] [--runs 5]

Builds two inputs in a temporary folder from trees every installation has (this interpreter's
standard library and site-packages, regular files of at most 1 MiB, no bytecode or shared
libraries, repeated if needed): a large tar.gz (>= 40 MB compressed) and a small one (about
2 MB), each also committed to a git repository so ``git grep`` has something to read. Each
archive is then made again by ``git archive`` from that repository, as GitHub makes the
archives a census reads (ustar headers; ``tarfile`` instead writes a pax header before every
member, which doubles the headers to parse); without git the ``tarfile`` one is measured.
Each ``--archive`` (a .tar.gz; no git repository comes with it) is measured too.

The ``pipeline`` package's bytecode is written first (``compileall``), as an install writes it.
For each input, the median wall time of ``--runs`` alternating runs (after one warm-up run) of:

- ``census count --json`` and ``census count --json --detect`` (terms ``published``), run as a
  user runs them: the ``census`` command installed next to this interpreter (``python -m
  pipeline`` only where there is none, which costs about 10 ms more), with the peak RSS of each
  subprocess;
- the peer: ``tar -xzf`` into a fresh folder on /dev/shm, then ``rg -i -a -F`` counting
  matches once with every term (``-e`` each: totals per file, the cheapest form) and once
  per term (per-term counts); the folder is removed outside the timing. Needs tar and rg;
- ``git grep -i -a -F -o`` over ``HEAD`` of the input's git repository (one call, matches
  tallied per term), when the input came with one;
- the decompression floor: isal's ``igzip`` streaming the whole archive in 1 MiB reads, in
  this process (the issue's floor) and as a command in a new Python process (the floor any
  Python tool starts from: interpreter start-up included, shown on its own line too);
- the scan ``census count`` runs, called in this process (``pipeline.run.inputs.count_paths``,
  the library's code path with no start-up): what compares with the floor in this process.

It checks that census's totals equal rg's per-term sums (rg ``-i`` folds Unicode case,
census ASCII only, so non-ASCII text can make them differ) and prints the issue's targets
(large: >= 1.5x the rg peer and >= 0.85x the floor, judged like for like twice: the scan in this
process against the floor in this process, and the command against the floor as a command;
small: >= 0.8x the rg peer; with the detector, >= 0.7x of counting alone; peak RSS < 200 MB) as
met or MISSED, judged on the ratio of medians. Each ratio is also worked out round by round
(the two runs of a round are seconds apart): the middle half of those ratios, and in how many
rounds the target was met, show how far the machine's noise moves a verdict (on a shared VM,
medians drift by 10-20% within minutes). An ``--archive`` of
40 MB or more is held to the large targets, one of 4 MB or less to the small one. It reports;
it always exits 0.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from isal import igzip

from pipeline.manifest.terms import TERM_SETS
from pipeline.run.inputs import count_paths

TERMS = TERM_SETS["published"]
MB = 1_000_000
CHUNK = 1 << 20
LARGE_BYTES, SMALL_BYTES = 43 * MB, 2 * MB
MAX_FILE_BYTES = 1 << 20
SKIP_SUFFIXES = (".pyc", ".pyo", ".so", ".dylib", ".dll", ".a", ".o", ".exe", ".whl")
GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
_open_gzip: Callable[[Path, str], BinaryIO] = igzip.open  # isal's reader, typed
RG_FLAGS = ["-i", "-a", "-F", "--no-ignore", "--hidden", "--no-config", "-E", "none", "--count-matches",
            "--no-filename", "--no-messages"]

COUNT, DETECT = "census count", "census count --detect"
TAR, RG_ONE, RG_EACH = "  of which tar -xzf", "tar -xzf + rg, one call", "tar -xzf + rg, one call per term"
GIT, FLOOR = "git grep -o HEAD, one call", "isal floor, 1 MiB reads"
LIBRARY = "census scan in this process"
FLOOR_PROCESS, START = "isal floor in a new python process", "  of which python startup"
#: the floor as a command: what any Python tool pays before and while it decompresses
FLOOR_SCRIPT = ("import sys\nfrom isal import igzip\n"
                "with igzip.open(sys.argv[1], 'rb') as f:\n    while f.read(1 << 20): pass")


@dataclass
class Input:
    """One archive to measure."""

    label: str
    path: Path
    git_dir: Path | None = None
    size_class: str | None = None
    """``large`` or ``small``: which of the issue's speed targets apply."""


@dataclass
class Measured:
    """Times (seconds) per method, peak RSS (bytes) per census mode, and the counts each tool found."""

    times: dict[str, list[float]] = field(default_factory=dict)
    rss: dict[str, int] = field(default_factory=dict)
    census: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, method: str, seconds: float) -> None:
        self.times.setdefault(method, []).append(seconds)

    def median(self, method: str) -> float | None:
        values = self.times.get(method)
        return statistics.median(values) if values else None


# ---------------------------------------------------------------- inputs


def source_files(roots: list[Path]) -> list[tuple[str, Path]]:
    """Regular source-tree files under ``roots`` (sorted; bytecode, shared libraries and big files left out)."""
    found: list[tuple[str, Path]] = []
    for root in roots:
        for directory, folders, files in os.walk(root):
            folders[:] = sorted(f for f in folders if f != "__pycache__")
            for name in sorted(files):
                path = Path(directory, name)
                if not name.endswith(SKIP_SUFFIXES) and _small_regular(path):
                    found.append((f"{root.name}/{path.relative_to(root).as_posix()}", path))
    return found


def _small_regular(path: Path) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    return path.is_file() and not path.is_symlink() and info.st_size <= MAX_FILE_BYTES


def write_archive(path: Path, files: list[tuple[str, Path]], target_bytes: int) -> None:
    """A tar.gz (level 6, like ``git archive``) of ``files``, repeated under ``copyN/`` until it reaches the size."""
    if not files:
        raise SystemExit("no source files found to build the inputs from")
    with path.open("wb") as raw, tarfile.open(fileobj=raw, mode="w:gz", compresslevel=6) as tar:
        for copy in range(1_000):
            prefix = "tree/" if copy == 0 else f"tree/copy{copy}/"
            for name, source in files:
                tar.add(str(source), prefix + name, recursive=False)
                if raw.tell() >= target_bytes:
                    return


def git_repository(archive: Path, directory: Path) -> Path | None:
    """A git repository whose HEAD holds the archive's tree (packed, worktree removed); None without git or tar."""
    if not (shutil.which("git") and shutil.which("tar")):
        return None
    git_dir, work = directory / "repo.git", directory / "work"
    work.mkdir()
    subprocess.run(["tar", "-xzf", str(archive), "-C", str(work)], check=True)
    git = ["git", f"--git-dir={git_dir}", f"--work-tree={work}", "-c", "user.name=bench",
           "-c", "user.email=bench@localhost", "-c", "gc.auto=0"]
    for args in (["init", "-q"], ["add", "-A", "-f"], ["commit", "-q", "-m", "tree"], ["repack", "-a", "-d", "-q"]):
        subprocess.run(git + args, check=True, env=os.environ | GIT_ENV)
    shutil.rmtree(work)
    return git_dir


def build_inputs(directory: Path) -> list[Input]:
    """The large and the small archive, from the standard library and site-packages (those
    already built in ``directory`` are reused)."""
    paths = sysconfig.get_paths()
    stdlib, purelib = Path(paths["stdlib"]), Path(paths["purelib"])
    inputs = []
    for label, roots, size in (("small", [purelib, stdlib], SMALL_BYTES), ("large", [stdlib, purelib], LARGE_BYTES)):
        folder = directory / label
        archive = folder / f"{label}.tar.gz"
        if archive.is_file():
            kept = folder / "repo.git"
            inputs.append(Input(f"{label} (built: stdlib + site-packages)", archive,
                                kept if kept.is_dir() else None, label))
            continue
        print(f"building the {label} input ...", file=sys.stderr, flush=True)
        folder.mkdir(parents=True, exist_ok=True)
        write_archive(archive, source_files(roots), size)
        git_dir = git_repository(archive, folder)
        if git_dir is not None:
            with archive.open("wb") as out:  # the format GitHub serves: ``git archive``, gzip level 6
                subprocess.run(["git", f"--git-dir={git_dir}", "archive", "--format=tar.gz", "HEAD"], stdout=out,
                               check=True, env=os.environ | GIT_ENV)
        inputs.append(Input(f"{label} (built: stdlib + site-packages)", archive, git_dir, label))
    return inputs


def user_input(path: Path) -> Input:
    """An ``--archive``: held to the large targets from 40 MB, to the small one up to 4 MB."""
    with path.open("rb") as stream:
        if stream.read(2) != b"\x1f\x8b":
            raise SystemExit(f"{path}: not a gzip file (the peer and the floor need a .tar.gz)")
    size = path.stat().st_size
    size_class = "large" if size >= 40 * MB else "small" if size <= 4 * MB else None
    return Input(path.name, path, None, size_class)


# ---------------------------------------------------------------- methods


@functools.cache
def gnu_time() -> str | None:
    """GNU ``time`` (it prints the peak RSS with ``-f %M``), or None."""
    path = shutil.which("time")
    if path is None:
        return None
    done = subprocess.run([path, "-f", "%M", "-o", os.devnull, "true"], capture_output=True, check=False)
    return path if done.returncode == 0 else None


def census_count(path: Path, detect: bool) -> tuple[float, int, dict[str, Any]]:
    """Wall time, peak RSS (bytes) and JSON report of one ``census count`` subprocess.

    The peak comes from GNU ``time -f %M``, else from polling ``VmHWM``. (``wait4``'s
    ``ru_maxrss`` would not do: a child forked from this process starts with its RSS.)
    """
    command = [*census_command(), "count", str(path), "--json", "--terms", "published"]
    command += ["--detect"] if detect else []
    timer = gnu_time()
    with tempfile.TemporaryDirectory() as tmp, open(f"{tmp}/out", "w+b") as out, open(f"{tmp}/err", "w+b") as err:
        command = [timer, "-f", "%M", "-o", f"{tmp}/rss", *command] if timer else command
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=CENSUS_ENV)
        polled = _wait(process, poll=timer is None)
        seconds = time.perf_counter() - start
        if process.returncode != 0:
            err.seek(0)
            raise SystemExit(f"census count failed ({process.returncode}): {err.read().decode(errors='replace')}")
        peak = int(Path(tmp, "rss").read_text().split()[-1]) * 1024 if timer else polled
        out.seek(0)
        report: dict[str, Any] = json.loads(out.read())
    return seconds, peak, report


def census_command() -> list[str]:
    """The ``census`` console script installed with this interpreter, else ``python -m pipeline``."""
    script = Path(sys.executable).with_name("census")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "pipeline"]


#: census runs as an installed command would: with its bytecode cached (the warm-up run writes it),
#: even where this shell sets PYTHONDONTWRITEBYTECODE
CENSUS_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _wait(process: subprocess.Popen[bytes], poll: bool) -> int:
    """Wait for ``process``; with ``poll``, read its ``VmHWM`` every 5 ms and return the peak seen, in bytes
    (0 without /proc, or without ``poll``)."""
    if not poll:
        process.wait()
        return 0
    peak = 0
    status = Path(f"/proc/{process.pid}/status")
    while process.poll() is None:
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
            peak = max(peak, int(fields["VmHWM"].split()[0]) * 1024)
        except (OSError, KeyError, ValueError):
            pass
        time.sleep(0.005)
    return peak


def _rg(tree: Path, terms: tuple[str, ...]) -> int:
    patterns = [arg for term in terms for arg in ("-e", term)]
    done = subprocess.run(["rg", *RG_FLAGS, *patterns, str(tree)], capture_output=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"rg failed: {done.stderr.decode(errors='replace')}")
    return sum(int(line) for line in done.stdout.split())


def peer(path: Path, scratch: Path) -> tuple[float, float, float, dict[str, int]]:
    """``tar -xzf`` time, rg time with every term at once, rg time term by term, and rg's per-term counts."""
    tree = Path(tempfile.mkdtemp(dir=scratch))
    try:
        start = time.perf_counter()
        subprocess.run(["tar", "-xzf", str(path), "-C", str(tree)], check=True)
        extracted = time.perf_counter()
        _rg(tree, TERMS)
        together = time.perf_counter()
        counts = {term: _rg(tree, (term,)) for term in TERMS}
        each = time.perf_counter()
    finally:
        shutil.rmtree(tree)
    return extracted - start, together - extracted, each - together, counts


def git_grep(git_dir: Path) -> tuple[float, dict[str, int]]:
    """Time of one ``git grep -o`` over HEAD with every term, and the matches tallied per term."""
    patterns = [arg for term in TERMS for arg in ("-e", term)]
    command = ["git", f"--git-dir={git_dir}", "grep", "-i", "-a", "-F", "-o", "--no-color", *patterns, "HEAD"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False, env=os.environ | GIT_ENV)
    counts = dict.fromkeys(TERMS, 0)
    lowered = sorted(((t.lower().encode(), t) for t in TERMS), key=lambda pair: -len(pair[0]))
    for line in done.stdout.lower().splitlines():
        term = next((t for key, t in lowered if line.endswith(key)), None)
        if term is not None:
            counts[term] += 1
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"git grep failed: {done.stderr.decode(errors='replace')}")
    return seconds, counts


def _seconds(command: list[str]) -> float:
    """Wall time of ``command`` (which must succeed)."""
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def decompression_floor(path: Path) -> float:
    """Seconds for isal to decompress the whole archive, streaming, in 1 MiB reads."""
    start = time.perf_counter()
    with _open_gzip(path, "rb") as stream:
        while stream.read(CHUNK):
            pass
    return time.perf_counter() - start


# ---------------------------------------------------------------- runs


def _steps(item: Input, result: Measured, scratch: Path, record: bool) -> list[Callable[[], None]]:
    """One run of every method that applies to ``item``, each storing its time (when ``record``) in ``result``."""

    def census(detect: bool) -> None:
        seconds, rss, report = census_count(item.path, detect)
        mode = DETECT if detect else COUNT
        result.rss[mode] = max(result.rss.get(mode, 0), rss)
        if not detect:
            result.census = report
        if record:
            result.add(mode, seconds)

    def rg_peer() -> None:
        tar, together, each, counts = peer(item.path, scratch)
        result.counts["rg per term"] = counts
        if record:
            result.add(TAR, tar)
            result.add(RG_ONE, tar + together)
            result.add(RG_EACH, tar + each)

    def git() -> None:
        assert item.git_dir is not None
        seconds, counts = git_grep(item.git_dir)
        result.counts["git grep"] = counts
        if record:
            result.add(GIT, seconds)

    def floor() -> None:
        seconds = decompression_floor(item.path)
        if record:
            result.add(FLOOR, seconds)

    def library() -> None:
        start = time.perf_counter()
        found = count_paths([item.path], TERMS)
        seconds = time.perf_counter() - start
        if found.failed:
            raise SystemExit(f"the library scan failed: {found.failed}")
        if record:
            result.add(LIBRARY, seconds)

    def floor_process() -> None:
        started = _seconds([sys.executable, "-c", "pass"])
        floored = _seconds([sys.executable, "-c", FLOOR_SCRIPT, str(item.path)])
        if record:
            result.add(START, started)
            result.add(FLOOR_PROCESS, floored)

    steps = [lambda: census(False), lambda: census(True), library, floor, floor_process]
    steps += [rg_peer] if shutil.which("tar") and shutil.which("rg") else []
    steps += [git] if item.git_dir is not None else []
    return steps


def measure(item: Input, runs: int, scratch: Path) -> Measured:
    """A warm-up run, then ``runs`` rounds of every method, the order rotating each round."""
    result = Measured()
    for step in _steps(item, result, scratch, record=False):
        step()
    steps = _steps(item, result, scratch, record=True)
    for round_ in range(runs):
        shift = round_ % len(steps)
        for step in steps[shift:] + steps[:shift]:
            step()
    return result


# ---------------------------------------------------------------- report


def print_table(item: Input, result: Measured) -> None:
    """The times of every method, relative to ``census count`` (above 1: census count is faster)."""
    content = result.census["content_bytes"]
    print(f"\n== {item.label}: {item.path.stat().st_size / MB:.1f} MB compressed, {content / MB:.1f} MB of content,"
          f" {result.census['regular_files']} files")
    print(f"{'method':34} {'median s':>9} {'MB/s':>7} {'time/count':>10} {'peak RSS':>9}")
    base = _required(result, COUNT)
    for method in (COUNT, DETECT, LIBRARY, RG_ONE, RG_EACH, TAR, GIT, FLOOR, FLOOR_PROCESS, START):
        seconds = result.median(method)
        if seconds is None:
            continue
        rss = f"{result.rss[method] / MB:.0f} MB" if result.rss.get(method) else ""
        print(f"{method:34} {seconds:9.3f} {content / MB / seconds:7.0f} {seconds / base:9.2f}x {rss:>9}")
    if not (shutil.which("tar") and shutil.which("rg")):
        print("tar + rg: skipped (tar or rg is not installed)")
    if item.git_dir is None:
        print("git grep: skipped (no git repository came with this input)")
    print_count_check(result)


def print_count_check(result: Measured) -> None:
    """One line if every tool found census's totals, else a warning line per disagreeing tool."""
    census = result.census["totals"]
    agree = [tool for tool, counts in result.counts.items() if counts == census]
    for tool, counts in result.counts.items():
        if counts != census:
            print(f"WARNING: {tool} counts differ from census: census {census} vs {tool} {counts} (rg -i folds"
                  " Unicode case, census ASCII only, so non-ASCII text can differ)")
    if agree:
        totals = ", ".join(f"{term} {n}" for term, n in census.items())
        print(f"counts: census = {' = '.join(agree)} ({totals})")


def _required(result: Measured, method: str) -> float:
    seconds = result.median(method)
    if seconds is None:
        raise ValueError(f"{method} was not measured")
    return seconds


@dataclass(frozen=True)
class Target:
    """One of the issue's targets as measured: ``value`` against ``bound``, a floor for a ratio
    (``value >= bound``) or, with ``ceiling``, an upper limit (``value < bound``)."""

    name: str
    value: float
    bound: float
    rounds: tuple[float, ...] = ()
    """the same ratio from each round's pair of runs (a round runs each method once, seconds apart)."""
    ceiling: bool = False

    def holds(self, value: float) -> bool:
        """Whether ``value`` meets the target."""
        return value < self.bound if self.ceiling else value >= self.bound

    def __str__(self) -> str:
        verdict = "met" if self.holds(self.value) else "MISSED"
        if self.ceiling:
            return f"{self.name} {self.value:.0f} < {self.bound:g} {verdict}"
        spread = ""
        if len(self.rounds) >= 4:
            low, _, high = statistics.quantiles(self.rounds, n=4)
            met = sum(map(self.holds, self.rounds))
            spread = f" (rounds: middle half {low:.2f}-{high:.2f}, met in {met} of {len(self.rounds)})"
        return f"{self.name} {self.value:.2f} >= {self.bound:g} {verdict}{spread}"


def targets(item: Input, result: Measured) -> list[Target]:
    """Every target that applies to ``item``: the ratio of medians, and the same ratio round by round."""
    checks: list[Target] = []
    peer_bound = {"large": 1.5, "small": 0.8}.get(item.size_class or "")
    if peer_bound is not None and result.median(RG_ONE) is not None:
        checks.append(_ratio(result, "vs tar+rg (peer/census)", RG_ONE, COUNT, peer_bound))
    if item.size_class == "large":  # like for like: in this process, and as commands
        checks.append(_ratio(result, "vs floor in process (floor/scan)", FLOOR, LIBRARY, 0.85))
        checks.append(_ratio(result, "vs floor as commands (floor/census)", FLOOR_PROCESS, COUNT, 0.85))
    checks.append(_ratio(result, "detector on (count/detect)", COUNT, DETECT, 0.7))
    peak = max(result.rss.values()) / MB
    checks.append(Target("peak RSS MB", peak, 200.0, ceiling=True))
    return checks


def _ratio(result: Measured, name: str, numerator: str, denominator: str, bound: float) -> Target:
    """``numerator``'s median time over ``denominator``'s, judged against ``bound``; with the
    ratio of every round, whose spread says how far the machine's noise moves it."""
    value = _required(result, numerator) / _required(result, denominator)
    rounds = tuple(a / b for a, b in zip(result.times[numerator], result.times[denominator], strict=True))
    return Target(name, value, bound, rounds)


def print_targets(item: Input, result: Measured) -> None:
    """One line: every target, met or MISSED."""
    print(f"targets: {'; '.join(str(target) for target in targets(item, result))}")


def compile_bytecode() -> None:
    """Write the bytecode of the ``pipeline`` package, as ``pip install`` does and as a first run
    does unless ``PYTHONDONTWRITEBYTECODE`` is set: otherwise every ``census`` command of an
    editable install whose sources changed compiles them again (milliseconds per module)."""
    import compileall

    import pipeline

    compileall.compile_dir(Path(pipeline.__file__).parent, quiet=1)


def main() -> int:
    """Build the inputs, measure each, print a table per input and the targets; always exit 0."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--archive", type=Path, action="append", default=[], help="a .tar.gz to measure too")
    parser.add_argument("--runs", type=int, default=5, help="alternating rounds per input (default 5)")
    parser.add_argument("--inputs", type=Path, help="keep the built inputs in this folder, and reuse them if"
                        " it already holds them (default: build them in a temporary folder)")
    parser.add_argument("--only", choices=("small", "large"), help="measure only this built input")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    compile_bytecode()
    shm = Path("/dev/shm")
    scratch_root = shm if shm.is_dir() and os.access(shm, os.W_OK) else None
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory(dir=scratch_root) as scratch:
        given = [user_input(path) for path in args.archive]
        built = build_inputs(args.inputs or Path(tmp))
        inputs = [item for item in built if args.only in (None, item.size_class)] + given
        print(f"census count vs peers: median of {args.runs} alternating runs; time/count above 1 means census"
              f" count is faster; tar extracts into {'tmpfs' if scratch_root else 'a temp folder'}")
        for item in inputs:
            print(f"measuring {item.label} ...", file=sys.stderr, flush=True)
            result = measure(item, args.runs, Path(scratch))
            print_table(item, result)
            print_targets(item, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
