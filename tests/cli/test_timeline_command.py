"""``census timeline`` as a person runs it: what it prints, bad dates refused with exit 2, and a history it
cannot read recorded (exit 0), or fatal under ``--strict`` (exit 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from synth import FASTMCP_SERVER, fake_sha
from timeline_world import commit, init

from pipeline.cli.main import main


def _world(tmp_path: Path, pin: str | None = None) -> list[str]:
    """One mirror with one commit of an annotated server (January 2025), a manifest of it and of a
    repository with no mirror; the arguments of a timeline of it from December 2024 to February 2025."""
    repo = init(tmp_path / "mirrors" / "acme" / "one")
    commit(repo, "2025-01-15T12:00:00Z", {"server.py": FASTMCP_SERVER})
    pinned = f'commit = "{pin}"\n' if pin else ""
    (tmp_path / "m.toml").write_text(f'[census]\nname = "one"\n\n[[repos]]\nrepo = "acme/one"\n{pinned}\n'
                                     '[[repos]]\nrepo = "acme/none"\n', encoding="utf-8")
    return ["timeline", str(tmp_path / "m.toml"), "--mirrors", str(tmp_path / "mirrors"), "--since", "2024-12",
            "--until", "2025-02", "--jobs", "1", "--db", str(tmp_path / "t.duckdb"), "--offline"]


def test_it_prints_what_it_covered_and_the_adoption_per_period(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    main(_world(tmp_path))

    out = capsys.readouterr().out.splitlines()
    assert out[0] == "one: timeline by month, 2024-12 .. 2025-02 (3 periods)"
    assert out[1] == ("1 of 2 repositories walked (1 with no mirror, 0 not readable); 2 repository-periods: 1 scanned, "
                      "1 reused (the tree of an earlier period), 0 skipped; 1 trees scanned now")
    rows = [line.split() for line in out if line.startswith("20")]
    assert rows == [["2024-12", "0", "0", "0", "-", "0", "0", "0", "0", "0"],
                    ["2025-01", "1", "1", "1", "100%", "2", "2", "1", "1", "0"],
                    ["2025-02", "1", "1", "1", "100%", "2", "2", "1", "0", "1"]]


@pytest.mark.parametrize(("given", "says"), [
    (["--since", "2024-13"], "argument --since: '2024-13' is not a date (YYYY, YYYY-MM or YYYY-MM-DD)"),
    (["--until", "2024-01"], "argument --until: 2024-01 comes before --since 2024-12"),
    (["--every", "week"], "argument --every: invalid choice: 'week'"),
])
def test_a_bad_period_is_refused_before_anything_is_read(given: list[str], says: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([*_world(tmp_path), *given])

    assert stopped.value.code == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "t.duckdb").exists()


def test_a_history_it_cannot_read_is_a_row_and_fatal_only_under_strict(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    arguments = _world(tmp_path, pin=fake_sha("a commit the mirror lacks"))
    main(arguments)
    assert "0 of 2 repositories walked (1 with no mirror, 1 not readable)" in capsys.readouterr().out

    with pytest.raises(SystemExit) as stopped:
        main([*arguments, "--strict"])

    assert stopped.value.code == 1
    assert capsys.readouterr().err.splitlines()[-1] == "census: error: 1 repositories not read whole (--strict)"
