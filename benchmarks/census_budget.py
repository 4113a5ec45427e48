"""API requests per repository under a rate limit: what ``census_scale.py --budget`` measures.

Small repositories (a FastMCP server and a README each), unpinned, served by the test suite's
loopback GitHub server with a per-token budget of API requests per window; ``census run --jobs 8``
with a token from an empty cache and database. Requests are counted from the server's own log.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from github_server import GitHubServer  # the test suite's loopback server
from synth import FASTMCP_SERVER, fake_sha, tarball

TOKEN = "ghp_BenchmarkToken0123456789abcdefABCDEFGH"
HERE = Path(__file__).resolve().parent.parent


def measure(repos: int, requests: int, window: float, code: Path | None) -> None:
    """Run the census once and print what it asked of each host."""
    with tempfile.TemporaryDirectory() as tmp, GitHubServer() as github:
        work = Path(tmp)
        lines = ['[census]\nname = "budget"\n']
        for i in range(repos):
            repo, commit = f"budget/r{i:04d}", fake_sha(f"budget-{i}")
            tree = {"server.py": FASTMCP_SERVER, "README.md": f"# server {i}\n".encode()}
            github.add_repo(repo, {commit: tarball(tree, f"budget-r{i:04d}-{commit[:7]}", commit)})
            lines.append(f'[[repos]]\nrepo = "{repo}"\n')
        manifest = work / "budget.toml"
        manifest.write_text("\n".join(lines))
        github.limit_rate(requests, window)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CENSUS_"))}
        env.update(GITHUB_TOKEN=TOKEN, GITHUB_API_URL=github.api_url, GITHUB_SERVER_URL=github.web_url,
                   PYTHONPATH=str(code or HERE))
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "pipeline", "run", str(manifest), "--db", str(work / "c.duckdb"),
                               "--cache", str(work / "cache"), "--jobs", "8"], env=env, cwd=code or HERE,
                              capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        print(f"{repos} repositories, {requests} API requests allowed per {window:g} s window, census of "
              f"{code or 'this checkout'} (exit {done.returncode}), --jobs 8")
        report(github, work / "c.duckdb", repos, seconds)


def report(github: GitHubServer, db: Path, repos: int, seconds: float) -> None:
    """The requests per host and kind, per repository; rate-limited answers; skips; the target."""
    api = github.requests_to("api")
    graphql = sum(r.path == github.GRAPHQL_PATH for r in api)
    rest = len(api) - graphql
    with duckdb.connect(str(db), read_only=True) as con:
        skipped = con.execute("SELECT count(*) FROM snapshots WHERE status <> 'scanned'").fetchall()[0][0]
        reasons = con.execute("SELECT skip_reason, count(*) FROM snapshots WHERE status <> 'scanned' GROUP BY 1"
                              " ORDER BY 2 DESC LIMIT 3").fetchall()
    print(f"  API requests: {len(api)} ({len(api) / repos:.3f} per repository): REST {rest} ({rest / repos:.3f}),"
          f" GraphQL {graphql} ({graphql / repos:.3f}); answered rate limited: {github.rate_limited_answers}")
    print(f"  web host {len(github.requests_to('web'))}, archive host {len(github.requests_to('codeload'))}")
    print(f"  wall time {seconds:.1f} s; repositories skipped: {skipped}" + (f" {reasons}" if reasons else ""))
    met = len(api) / repos <= 0.02 and skipped == 0
    print(f"target: <= 0.02 API requests per repository and none skipped: {'met' if met else 'MISSED'}")
