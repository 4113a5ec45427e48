"""The effects analysis against its hand audit (issue 43): each audited tool's handler and the
write, delete and exec classes its code has, as labelled by hand at the manifest's pinned commit
(``reports/registry-seed-2025-05/effects-audit/truth/*.tsv``), against what the census finds.

    .venv/bin/python benchmarks/effects_audit.py --mirrors MIRRORS \\
        [--truth reports/registry-seed-2025-05/effects-audit/truth] \\
        [--manifest manifests/registry-seed-2025-05.toml] [-v]

Prints the handlers located, precision and recall over (tool, class) pairs for the write,
delete and exec classes together, and each contradiction the census flags with whether the hand
labels confirm it. A tool the detector names otherwise (a mount's prefix) is matched by its
registration line.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from pipeline.archive.limits import limited
from pipeline.fetch.mirrors import locate
from pipeline.fetch.source import GitRepoSource
from pipeline.manifest import manifests
from pipeline.scan.detect import Detection, Detector
from pipeline.scan.effects.model import ToolEffects, family
from pipeline.scan.roles import RoleRules
from pipeline.scan.tree import scan_tree
from pipeline.settings import Limits

ROOT = Path(__file__).resolve().parent.parent
CLASSES = frozenset({"write", "delete", "exec"})


def detect(mirrors: Path, repo: str, commit: str, server_paths: tuple[str, ...]) -> Detection | None:
    """The census's detection of ``repo`` at ``commit``, effects included (``None`` with no mirror)."""
    path = locate(mirrors, repo)
    if path is None:
        return None
    source = GitRepoSource(path)
    fetched = source.fetch(commit)
    scan = scan_tree(limited(source.members(commit, fetched), Limits()), ("x",), Detector(effects=True),
                     RoleRules(server_paths))
    return scan.detection


def matched(detection: Detection, row: dict[str, str]) -> ToolEffects | None:
    """The census's row for one audited tool: by name, else by its registration line."""
    by_name = [e for e in detection.effects if e.tool_name == row["tool_name"]]
    if by_name:
        return by_name[0]
    line = int(row["reg_line"] or 0)
    return next((e for e in detection.effects if e.path == row["reg_path"] and abs(e.line - line) <= 2), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirrors", type=Path, required=True)
    parser.add_argument("--truth", type=Path, default=ROOT / "reports/registry-seed-2025-05/effects-audit/truth")
    parser.add_argument("--manifest", type=Path, default=ROOT / "manifests/registry-seed-2025-05.toml")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every tool, not only disagreements")
    args = parser.parse_args()
    entries = {e.repo: e for e in manifests.load(args.manifest).repos}
    tp = fp = fn = tools = located = 0
    flagged: list[tuple[str, str, bool]] = []
    for tsv in sorted(args.truth.glob("*.tsv")):
        with tsv.open(encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
        if not rows:
            continue
        entry = entries[rows[0]["repo"]]
        detection = detect(args.mirrors, entry.repo, str(entry.commit), tuple(entry.server_paths))
        if detection is None:
            print(f"{entry.repo}: no mirror in {args.mirrors}")
            continue
        hints = {(t.path, t.line, t.tool_name): t.annotations.read_only_hint for t in detection.tools}
        for row in rows:
            tools += 1
            want = {family(k.strip()) for k in row["effects"].split(",") if k.strip()} & CLASSES
            found = matched(detection, row)
            got: set[str] = set()
            if found is not None and found.handler.located:
                located += 1
                got = {family(k) for k in found.kinds} & CLASSES
                if got and hints.get((found.path, found.line, found.tool_name)) == "true":
                    flagged.append((entry.repo, row["tool_name"], bool(want)))
            tp, fp, fn = tp + len(want & got), fp + len(got - want), fn + len(want - got)
            if args.verbose or want != got:
                where = "located" if found is not None and found.handler.located else (
                    found.handler.reason if found is not None else "not detected")
                print(f"{entry.repo} | {row['tool_name']} | {where} | hand {sorted(want)} census {sorted(got)}")
    print(f"tools {tools}, handlers located {located}; write/delete/exec pairs: {tp} agree, {fp} census only, "
          f"{fn} hand only: precision {tp / max(1, tp + fp):.3f}, recall {tp / max(1, tp + fn):.3f}")
    print(f"read-only tools the census flags with write/delete/exec evidence: {len(flagged)}, "
          f"confirmed by the hand labels: {sum(real for *_, real in flagged)}")
    for repo, name, real in flagged:
        print(f"  {'real ' if real else 'false'} {repo} {name}")


if __name__ == "__main__":
    main()
