"""A hand audit against the detector: precision and recall of tools by name, hints and roles.

An audit is a folder of truth files, one per repository (``OWNER__NAME.toml``, the format in
``reports/registry-seed-2025-05/audit/FORMAT.md``), written by readers who had not seen the
detector's output. :func:`compare` reads them and the census database's ``tools`` rows of the same
repositories at the same commits, and matches tools by the distinct names a client sees:

- per repository and overall, for server tools (the headline) and for every role: true
  positives, false positives (found, not in the truth) and false negatives (in the truth, not found);
- per hint, among names matched as server tools: whether the detector read what the truth says
  (``unset`` in the truth is a hint the source does not set);
- per matched name, whether the detector gave it the truth's role.

Names the truth calls ``dynamic`` (built at run time), tools the truth finds declared in a data
file the server reads at run time (YAML, JSON, TOML: the detector reads source code), and rows
with no literal name are left out of the name match and counted apart.
"""

from __future__ import annotations

import random
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from pipeline.errors import CensusError

#: truth keys and the ``tools`` columns they are compared with
HINT_COLUMNS = {"read_only": "read_only_hint", "destructive": "destructive_hint",
                "idempotent": "idempotent_hint", "open_world": "open_world_hint"}


#: a truth tool declared in one of these files is configuration, not source code
CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml")


class AuditError(CensusError):
    """A truth file that cannot be read; the message names the file."""


@dataclass(frozen=True)
class Truth:
    """One audited repository, as its truth file says."""

    repo: str
    commit: str
    kind: str
    tools: tuple[dict[str, Any], ...]


@dataclass
class RepoScore:
    """How the detector did on one repository."""

    repo: str
    kind: str
    found: set[str] = field(default_factory=set)
    truth: set[str] = field(default_factory=set)
    found_all: set[str] = field(default_factory=set)
    truth_all: set[str] = field(default_factory=set)
    hints_agree: int = 0
    hints_compared: int = 0
    roles_agree: int = 0
    roles_compared: int = 0
    dynamic_truth: int = 0
    config_truth: int = 0
    unnamed_found: int = 0
    scanned: bool = True

    @property
    def missed(self) -> set[str]:
        """Server tools in the truth the detector did not find."""
        return self.truth - self.found

    @property
    def extra(self) -> set[str]:
        """Server tools the detector found that the truth does not hold."""
        return self.found - self.truth


def load_truth(folder: Path) -> list[Truth]:
    """Every truth file of ``folder``, sorted by repository."""
    truths = []
    for path in sorted(folder.glob("*.toml")):
        try:
            doc = tomllib.loads(path.read_text("utf-8"))
            truths.append(Truth(str(doc["repo"]), str(doc["commit"]), str(doc.get("kind", "server")),
                                tuple(doc.get("tools", []))))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError) as exc:
            raise AuditError(f"{path}: not a truth file ({type(exc).__name__}: {exc})") from None
    return truths


def compare(truths: list[Truth], db_path: Path) -> list[RepoScore]:
    """Each truth against the database's rows of its repository and commit."""
    with duckdb.connect(str(db_path), read_only=True) as con:
        return compare_with(truths, con)


def compare_with(truths: list[Truth], con: duckdb.DuckDBPyConnection) -> list[RepoScore]:
    """``compare`` over an open connection (a report that reads the database already)."""
    return [_score(truth, con) for truth in truths]


def _score(truth: Truth, con: duckdb.DuckDBPyConnection) -> RepoScore:
    score = RepoScore(truth.repo, truth.kind)
    snapshot = con.execute("SELECT status FROM snapshots WHERE lower(repo) = lower(?) AND commit = ?",
                           [truth.repo, truth.commit]).fetchone()
    score.scanned = snapshot is not None and snapshot[0] == "scanned"
    columns = ", ".join(HINT_COLUMNS.values())
    rows = con.execute(f"SELECT tool_name, role, {columns} FROM tools WHERE lower(repo) = lower(?) AND commit = ? "
                       "AND is_mcp", [truth.repo, truth.commit]).fetchall()
    detected: dict[str, dict[str, Any]] = {}
    for name, role, *hints in rows:
        if name is None:
            score.unnamed_found += 1
            continue
        score.found_all.add(name)
        if role == "server":
            score.found.add(name)
        if name not in detected or role == "server":  # a server row of a name wins over a test's
            detected[name] = {"role": role, **dict(zip(HINT_COLUMNS.values(), hints, strict=True))}
    for tool in truth.tools:
        name = str(tool.get("name", ""))
        if name == "dynamic" or tool.get("name_rule") == "dynamic":
            score.dynamic_truth += 1
            continue
        if str(tool.get("file", "")).lower().endswith(CONFIG_SUFFIXES):
            score.config_truth += 1
            continue
        role = str(tool.get("role", "server"))
        score.truth_all.add(name)
        if role == "server":
            score.truth.add(name)
        match = detected.get(name)
        if match is None:
            continue
        score.roles_compared += 1
        score.roles_agree += match["role"] == role
        if role == "server" and match["role"] == "server":
            for key, column in HINT_COLUMNS.items():
                said = tool.get(key)
                expected = "unset" if said is None else ("true" if said else "false")
                score.hints_compared += 1
                score.hints_agree += match[column] == expected
    return score


def totals(scores: list[RepoScore]) -> dict[str, float]:
    """Overall precision and recall of server tools by name (and of every role), hint and role agreement."""
    tp = sum(len(s.found & s.truth) for s in scores)
    fp = sum(len(s.extra) for s in scores)
    fn = sum(len(s.missed) for s in scores)
    tp_all = sum(len(s.found_all & s.truth_all) for s in scores)
    fp_all = sum(len(s.found_all - s.truth_all) for s in scores)
    fn_all = sum(len(s.truth_all - s.found_all) for s in scores)
    return {
        "repositories": len(scores), "true_positives": tp, "false_positives": fp, "false_negatives": fn,
        "precision": _ratio(tp, tp + fp), "recall": _ratio(tp, tp + fn),
        "precision_all_roles": _ratio(tp_all, tp_all + fp_all), "recall_all_roles": _ratio(tp_all, tp_all + fn_all),
        "hint_agreement": _ratio(sum(s.hints_agree for s in scores), sum(s.hints_compared for s in scores)),
        "role_agreement": _ratio(sum(s.roles_agree for s in scores), sum(s.roles_compared for s in scores)),
        "blind_repositories": sum(1 for s in scores if s.truth and not s.found and not s.unnamed_found),
        "unnamed_only_repositories": sum(1 for s in scores if s.truth and not s.found and s.unnamed_found),
        "dynamic_in_truth": sum(s.dynamic_truth for s in scores),
        "declared_in_config_files": sum(s.config_truth for s in scores),
        "unnamed_rows_found": sum(s.unnamed_found for s in scores),
    }


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def markdown(scores: list[RepoScore]) -> str:
    """The per-repository table and the totals, as Markdown."""
    lines = ["| repository | kind | truth | found | matched | missed | extra | hints agree | unnamed rows |",
             "|---|---|--:|--:|--:|---|---|--:|--:|"]
    for s in scores:
        hints = f"{s.hints_agree}/{s.hints_compared}" if s.hints_compared else "-"
        lines.append(f"| {s.repo} | {s.kind} | {len(s.truth)} | {len(s.found)} | {len(s.found & s.truth)} | "
                     f"{_names(s.missed)} | {_names(s.extra)} | {hints} | {s.unnamed_found} |")
    total = totals(scores)
    lines += ["", *(f"- {key.replace('_', ' ')}: {value:.3f}" if isinstance(value, float) else
                    f"- {key.replace('_', ' ')}: {value}" for key, value in total.items())]
    return "\n".join(lines) + "\n"


def _names(names: set[str], most: int = 6) -> str:
    shown = sorted(names)[:most]
    return ", ".join(f"`{n}`" for n in shown) + (f" (+{len(names) - most})" if len(names) > most else "")


def draw(repos: list[str], seed: int) -> list[str]:
    """Every repository of ``repos`` in the order a seeded draw takes them: sorted without regard to
    case, then shuffled with ``random.Random(seed)``. An audit takes the first N it can read."""
    order = sorted(repos, key=str.lower)
    random.Random(seed).shuffle(order)
    return order
