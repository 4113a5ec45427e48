"""``census audit``: a hand audit's truth files against the stored tools of the same commits."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from synth import FASTMCP_SERVER, git_repo

from pipeline.analysis import audit
from pipeline.manifest.manifests import load
from pipeline.run.census import Census
from pipeline.settings import Settings
from pipeline.store.database import Store

TRUTH = '''repo = "acme/notes"
commit = "{commit}"
kind = "server"

[[tools]]
name = "list_notes"
file = "server.py"
line = 26
role = "server"
read_only = true
open_world = false

[[tools]]
name = "delete_note"
file = "server.py"
line = 32
role = "server"
destructive = false

[[tools]]
name = "export_notes"
file = "server.py"
line = 40
role = "server"

[[tools]]
name = "get_weather"
file = "servers/weather/mcp-server.yaml"
line = 4
role = "server"

[[tools]]
name = "dynamic"
name_rule = "dynamic"
file = "server.py"
line = 50
role = "server"
'''


@pytest.fixture
def audited(tmp_path: Path) -> tuple[Path, Path]:
    """A census of one mirror, and a truth folder saying one hint differently and one tool more."""
    commit = git_repo(tmp_path / "m" / "acme" / "notes", {"server.py": FASTMCP_SERVER,
                                                          "tests/test_server.py": FASTMCP_SERVER})
    manifest = tmp_path / "m.toml"
    manifest.write_text(f'[[repos]]\nrepo = "acme/notes"\ncommit = "{commit}"\n', encoding="utf-8")
    settings = Settings(db_path=tmp_path / "c.duckdb", cache_dir=tmp_path / "cache", mirrors_dir=tmp_path / "m",
                        offline=True)
    census = Census(load(manifest), settings)
    with Store(settings.db_path) as store:
        assert [o.status for o in census.run(store)] == ["scanned"]
    census.close()
    truth = tmp_path / "truth"
    truth.mkdir()
    (truth / "acme__notes.toml").write_text(TRUTH.format(commit=commit), encoding="utf-8")
    return truth, settings.db_path


def test_names_hints_and_roles_are_compared(audited: tuple[Path, Path]) -> None:
    truth, db = audited
    [score] = audit.compare(audit.load_truth(truth), db)
    assert (score.found, score.missed, score.extra) == ({"list_notes", "delete_note"}, {"export_notes"}, set())
    assert (score.dynamic_truth, score.config_truth) == (1, 1)  # declared in YAML: apart, not missed
    assert (score.hints_agree, score.hints_compared) == (6, 8)  # delete_note: destructive and idempotent differ
    assert (score.roles_agree, score.roles_compared) == (2, 2)  # the server rows win over the test file's
    totals = audit.totals([score])
    assert totals["precision"] == 1.0
    assert totals["recall"] == pytest.approx(2 / 3)
    assert totals["blind_repositories"] == 0
    seen_unnamed = replace(score, found=set(), unnamed_found=1)
    unseen = replace(score, found=set(), unnamed_found=0)
    assert audit.totals([seen_unnamed])["unnamed_only_repositories"] == 1
    assert audit.totals([seen_unnamed])["blind_repositories"] == 0  # a row it cannot name: seen, not blind
    assert audit.totals([unseen, seen_unnamed])["blind_repositories"] == 1


def test_the_command_prints_and_writes_the_table(audited: tuple[Path, Path], tmp_path: Path) -> None:
    truth, db = audited
    out = tmp_path / "audit.md"
    done = subprocess.run([sys.executable, "-m", "pipeline", "audit", str(truth), "--db", str(db), "--out", str(out)],
                          check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "| acme/notes | server | 3 | 2 | 2 | `export_notes` |  | 6/8 | 0 |" in done.stdout
    assert "- recall: 0.667" in done.stdout
    assert out.read_text() == done.stdout


def test_a_bad_truth_file_is_one_line_naming_it(tmp_path: Path) -> None:
    (tmp_path / "x__y.toml").write_text('repo = "x/y"\n', encoding="utf-8")
    with pytest.raises(audit.AuditError, match=r"x__y\.toml: not a truth file \(KeyError"):
        audit.load_truth(tmp_path)


def test_the_draw_is_seeded_and_case_blind() -> None:
    repos = ["b/Two", "A/one", "c/three", "a/four"]
    assert audit.draw(repos, 7) == audit.draw(list(reversed(repos)), 7)
    assert sorted(audit.draw(repos, 7)) == sorted(repos)
