"""What ``census run`` shows a person at a terminal: run in a pseudo-terminal of 80 and 120
columns, its output drawn on a terminal emulator (pyte), and the screen read as they would read it."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pyte
import pytest
from github_server import GitHubServer, status
from synth import FASTMCP_SERVER, GO_SERVER, fake_sha, tarball

#: long names, as the registry's are: a 35-letter one must fit 80 columns with its numbers
REPOS = ("modelcontextprotocol/typescript-sdk", "acme/notes", "grafana/mcp-grafana-long-name", "acme/slow")
TREE = {"server.py": FASTMCP_SERVER, "tests/test_server.py": FASTMCP_SERVER, "examples/go/main.go": GO_SERVER,
        "README.md": b"readOnlyHint\n"}
GONE = fake_sha("gone")


def _manifest(tmp: Path) -> Path:
    entries = [f'[[repos]]\nrepo = "{repo}"\ncommit = "{fake_sha(repo)}"\n' for repo in REPOS]
    entries[1] += "published = { readOnlyHint = 3, annotations = 2 }\n"
    entries.append(f'[[repos]]\nrepo = "acme/gone"\ncommit = "{GONE}"\n')
    path = tmp / "wide.toml"
    path.write_text('[census]\nname = "terminal"\n\n' + "\n".join(entries), encoding="utf-8")
    return path


def _run_in_terminal(args: list[str], columns: int, env: dict[str, str], cwd: Path) -> str:
    """Run ``census ARGS`` with its stdout and stderr on a pseudo-terminal of ``columns``; all it wrote."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 60, columns, 0, 0))
    process = subprocess.Popen([sys.executable, "-m", "pipeline", *args], stdin=subprocess.DEVNULL, stdout=follower,
                               stderr=follower, env=env, cwd=cwd, close_fds=True)
    os.close(follower)
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            process.kill()
            raise AssertionError("census printed nothing for 120 s")
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the follower side closed, the process is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait(timeout=60) == 0
    return b"".join(chunks).decode("utf-8", errors="replace")


def _screen(output: str, columns: int) -> list[str]:
    """The lines a terminal of ``columns`` shows after drawing ``output`` (tall enough that none scrolls away)."""
    screen = pyte.Screen(columns, 400)
    pyte.Stream(screen).feed(output.replace("\n", "\r\n"))
    lines = [line.rstrip() for line in screen.display]
    while lines and not lines[-1]:
        lines.pop()
    return lines


@pytest.mark.parametrize("columns", [80, 120])
def test_a_run_reads_well_in_a_terminal(github: GitHubServer, tmp_path: Path, columns: int) -> None:
    for repo in REPOS:
        commit = fake_sha(repo)
        github.add_repo(repo, {commit: tarball(TREE, f"{repo.replace('/', '-')}-{commit[:7]}", commit)})
    slow = fake_sha("acme/slow")
    github.fail(github.tarball_path("acme/slow", slow), status(429, {"Retry-After": "1"}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CENSUS_", "COLUMNS", "LINES"))}
    env.update(GITHUB_API_URL=github.api_url, TERM="xterm-256color")
    args = ["run", str(_manifest(tmp_path)), "--db", str(tmp_path / "c.duckdb"), "--cache", str(tmp_path / "cache"),
            "--jobs", "2"]

    lines = _screen(_run_in_terminal(args, columns, env, tmp_path), columns)
    (tmp_path / "screen.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")  # to look at when it fails

    # a wait from a worker process is a line of its own, above the bar, never inside it
    wait = f"acme/slow@{slow[:12]}: waiting 1.0s before retrying: rate limited (HTTP 429)"
    assert wait in lines
    assert not any("waiting" in line and ("fetch+scan" in line or "━" in line) for line in lines)
    assert f"acme/gone@{GONE[:12]}: skipped: repository or commit not found" in lines
    assert any(line.startswith("fetch+scan") and "ETA" in line for line in lines)  # the bar keeps to one line
    # the table: every name whole on one line with its short commit and numbers, nothing cut short
    title = "published vs measured: matches of each term (case-insensitive byte counts)"
    table = lines[lines.index("terminal: MCP tools by role, 5 repositories (4 scanned, 1 not)"):lines.index(title)]
    for repo in REPOS:
        [row] = [line for line in table if line.startswith(f"{repo} ")]
        assert row.split() == [repo, fake_sha(repo)[:7], "2", "2", "1", "2", "0"], row
    assert [line.split() for line in table if line.startswith("acme/gone ")] == [["acme/gone", GONE[:7]]]
    assert f"skipped acme/gone@{GONE[:7]}: repository or commit not found" in table
    assert not any("…" in line for line in table[:-1])  # the note under it wraps, the table is never cut
    published = lines[lines.index(title):]
    measured = {term: sum(data.lower().count(term.lower().encode()) for data in TREE.values())
                for term in ("readOnlyHint", "annotations")}
    assert [line.split() for line in published if line.startswith("acme/notes ")] == [
        ["acme/notes", "readOnlyHint", "3", str(measured["readOnlyHint"]), f"{measured['readOnlyHint'] - 3:+d}"],
        ["acme/notes", "annotations", "2", str(measured["annotations"]), f"{measured['annotations'] - 2:+d}"]]
