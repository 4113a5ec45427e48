"""Detector accuracy on the labelled corpus, and what the detector costs a scan.

    .venv/bin/python benchmarks/detector_accuracy.py [--archive PATH.tar.gz ...] [--runs 5]

1. Precision and recall per SDK and overall on ``tests/fixtures/detector`` (target >= 0.98), and
   role agreement: on the labelled paths of ``tests/fixtures/roles/paths.toml`` per ecosystem and
   role (target: every path), on the corpus tools whose expected row states a role, and with
   ``--roles-db DB``, tools by role in a census database (real repositories, e.g. fetched mirrors).
2. For each archive (real repositories: e.g. ``git -C MIRROR archive --format=tar.gz HEAD``),
   the median time of ``scan_tree`` counting alone and counting with the detector, over
   alternating runs, and their ratio (target: the detector adds at most 30%); and the least
   any parsing detector pays there: the time tree-sitter takes to parse the files that define
   the tools found, as the ratio it alone would give. Without
   ``--archive``, two tar.gz stand in: the standard library (nothing to find) and the corpus
   (nothing but servers).
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import sysconfig
import tarfile
import tempfile
import time
import tomllib
from collections import Counter
from pathlib import Path

from pipeline.archive.tarball import stream, verify
from pipeline.manifest.terms import TERM_SETS
from pipeline.scan.detect import Detector
from pipeline.scan.detect.corpus import as_row, detect_directory, expected_rows, score
from pipeline.scan.detect.corpus import cases as cases_of
from pipeline.scan.detect.source import GRAMMARS, extension, parser_for
from pipeline.scan.roles import RoleRules
from pipeline.scan.tree import scan_tree

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "detector"
PATHS = CORPUS.parent / "roles" / "paths.toml"


def accuracy() -> bool:
    """Print precision and recall per SDK; whether every figure meets the target."""
    result = score(CORPUS)
    print(f"{'sdk':28} {'tp':>4} {'fp':>4} {'fn':>4} {'precision':>9} {'recall':>7}")
    ok = True
    for sdk in [*result.sdks(), None]:
        p, r = result.precision(sdk), result.recall(sdk)
        tp = result.true_positives[sdk] if sdk else sum(result.true_positives.values())
        fp = result.false_positives[sdk] if sdk else sum(result.false_positives.values())
        fn = result.false_negatives[sdk] if sdk else sum(result.false_negatives.values())
        print(f"{sdk or 'OVERALL':28} {tp:4} {fp:4} {fn:4} {p:9.3f} {r:7.3f}")
        ok = ok and p >= 0.98 and r >= 0.98
    for line in result.mismatches:
        print("  mismatch:", line)
    return ok


def role_agreement() -> bool:
    """Print how often the classifier gives the labelled role: per ecosystem, per role, and on the
    detector corpus's tools that state one; whether every label is met."""
    cases = tomllib.loads(PATHS.read_text(encoding="utf-8"))["case"]
    agree: Counter[str] = Counter()
    total: Counter[str] = Counter()
    confusion: Counter[tuple[str, str]] = Counter()
    for case in cases:
        got = RoleRules(case.get("server_paths", ())).of_path(case["path"]).role
        for key in (case["ecosystem"], f"role={case['role']}", "OVERALL"):
            total[key] += 1
            agree[key] += got == case["role"]
        confusion[case["role"], got] += 1
    print(f"\nrole agreement on {PATHS.name}")
    for key in sorted(total, key=lambda k: (k == "OVERALL", k)):
        print(f"  {key:28} {agree[key]:4} / {total[key]:4}  {agree[key] / total[key]:.3f}")
    print("  labelled -> classified: " + ", ".join(f"{a}->{b} {n}" for (a, b), n in sorted(confusion.items())))
    stated = [(want, found) for case in cases_of(CORPUS) for want, found in _stated_roles(case)]
    hits = sum(want == found for want, found in stated)
    print(f"  detector corpus tools that state a role: {hits} / {len(stated)}")
    return agree["OVERALL"] == total["OVERALL"] and hits == len(stated)


def _stated_roles(case: Path) -> list[tuple[str, str | None]]:
    """(expected role, detected role) of every expected tool of ``case`` that states a role."""
    expected, _ = expected_rows(case)
    detected = [as_row(t) for t in detect_directory(case).tools]
    pairs = []
    for want in (row for row in expected if "role" in row):
        key = {k: v for k, v in want.items() if k != "role"}
        hit = next((d for d in detected if all(d.get(k) == v for k, v in key.items())), None)
        pairs.append((want["role"], hit["role"] if hit else None))
    return pairs


def roles_in_database(db: Path) -> None:
    """Print each repository's MCP tools by role, as ``stats.tools_by_role`` counts them."""
    from pipeline.analysis import stats

    con = stats.connect(db)
    frame = stats.tools_by_role(con)
    print(f"\nMCP tools by role in {db}")
    for repo in frame["repo"].unique(maintain_order=True):
        rows = {r["role"]: r["mcp_tools"] for r in frame.filter(frame["repo"] == repo).iter_rows(named=True)}
        print(f"  {repo:40} " + "  ".join(f"{role} {rows.get(role, 0):5}" for role in ("server", "example", "test")))
    con.close()


def synthetic_archives(directory: Path, limit_bytes: int = 60 << 20) -> list[Path]:
    """Two stand-ins for real repositories: this interpreter's standard library (real code,
    nothing to find; up to ``limit_bytes``) and the labelled corpus (nothing but servers)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = [f for f in sorted(stdlib.rglob("*.py")) if f.is_file() and "site-packages" not in f.parts]
    trees = {"stdlib": (stdlib, files), "corpus": (CORPUS, [f for f in sorted(CORPUS.rglob("*")) if f.is_file()])}
    made = []
    for name, (root, tree_files) in trees.items():
        path, total = directory / f"{name}.tar.gz", 0
        with tarfile.open(path, "w:gz") as tar:
            for f in tree_files:
                if total <= limit_bytes:
                    data = f.read_bytes()
                    total += len(data)
                    _add(tar, f"{name}/{f.relative_to(root).as_posix()}", data)
        made.append(path)
    return made


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _seconds(archive: Path, root: str | None, detector: Detector | None) -> float:
    start = time.perf_counter()
    scan_tree(stream(archive, root), TERM_SETS["published"], detector)
    return time.perf_counter() - start


def overhead(archive: Path, runs: int) -> float:
    """Print the median times of counting alone and counting with the detector; return their ratio."""
    info = verify(archive)
    detector = Detector()
    _seconds(archive, info.root, detector)  # import the grammars before timing
    alone: list[float] = []
    both: list[float] = []
    for _ in range(runs):
        alone.append(_seconds(archive, info.root, None))
        both.append(_seconds(archive, info.root, detector))
    detection = scan_tree(stream(archive, info.root), TERM_SETS["published"], detector).detection
    assert detection is not None
    ratio = statistics.median(both) / statistics.median(alone)
    mcp = sum(t.is_mcp for t in detection.tools)
    floor = parse_floor(archive, info.root, {t.path for t in detection.tools})
    print(f"{archive.name}: {info.size_bytes / 1e6:.1f} MB, {mcp} MCP tools, {detection.files_parsed} files for the"
          f" detectors; count alone {statistics.median(alone):.3f} s, count+detect {statistics.median(both):.3f} s,"
          f" ratio {ratio:.2f}; parsing the files that define them takes {floor:.3f} s: no detector that parses"
          f" them goes below ratio {(statistics.median(alone) + floor) / statistics.median(alone):.2f}")
    return ratio


def parse_floor(archive: Path, root: str | None, paths: set[str], runs: int = 3) -> float:
    """Median seconds tree-sitter takes to parse the files of ``paths`` once each: the least any
    detector that reads them with a parser pays (``root``: the archive's top folder)."""
    files: list[tuple[str, bytes]] = []
    with tarfile.open(archive) as tar:
        for member in tar:
            path = member.name.split("/", 1)[-1] if root else member.name
            if member.isfile() and path in paths and (data := tar.extractfile(member)) is not None:
                files.append((path, data.read()))

    def once() -> float:
        start = time.perf_counter()
        for path, data in files:
            if extension(path) in GRAMMARS:  # a tool found without a grammar (a detector reading text) costs no parse
                _, module, function = GRAMMARS[extension(path)]
                parser_for(module, function).parse(data)
        return time.perf_counter() - start

    return statistics.median(once() for _ in range(runs))


def main() -> int:
    """Run both measurements; exit 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--archive", type=Path, action="append", default=[])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--roles-db", type=Path, help="a census database whose tools by role to print")
    args = parser.parse_args()
    ok = accuracy()
    ok = role_agreement() and ok
    if args.roles_db:
        roles_in_database(args.roles_db)
    with tempfile.TemporaryDirectory() as tmp:
        archives = args.archive or synthetic_archives(Path(tmp))
        if not args.archive:
            print("no --archive given: measuring the standard library and the labelled corpus")
        ratios = [overhead(a, args.runs) for a in archives]
    ok = ok and all(r <= 1.30 for r in ratios)
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
