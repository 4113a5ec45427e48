"""A repository's history, fetched into the census cache when no local clone holds it.

``census timeline`` needs each repository's first-parent line (which commit stood at each period's
end) and then one tree per period. git's partial clone with ``--filter=blob:none`` brings every
commit and tree of the default branch and no file; then :func:`fetch_files` asks the host for the
files of the period commits only, by their ids, which the clone's trees name. The timeline then
reads each period's tree from the clone as from a mirror. ``git clone --mirror`` would bring every
file of every commit; an archive per period, every file again for each period (docs/TIMELINE.md
measures the three). The clone lives in ``CACHE/histories/OWNER/NAME.git``; ``census history``,
which counts every file of every commit, clones whole into ``CACHE/clones/``.

A clone is made in a folder of its own beside its place and renamed into it only when whole: a
clone killed halfway leaves a folder the next run removes before it starts again. A clone already
there is brought up to date with one ``git fetch``. The pinned commit is fetched by its SHA when
the branch does not hold it; a host that no longer has it (a force-push) is a skipped repository
with that reason.

The git host is ``Settings.git_url`` (``--git-url``, ``CENSUS_GIT_URL``; default
``https://github.com``): ``{git_url}/{owner}/{name}.git``. Only ``http`` and ``https`` are allowed,
nothing is asked of a terminal or a credential helper, and ``GITHUB_TOKEN`` is never given to git:
public repositories need none. A failure git reports as the host's (HTTP 5xx or 429, a connection
cut mid-pack) is tried again, ``Settings.attempts`` times with doubling pauses; a missing
repository (HTTP 404, or "not found") is not.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from pipeline.errors import NotFoundError, SourceError
from pipeline.fetch.mirror_history import MirrorHistory
from pipeline.settings import Settings

#: the cache's folders of fetched histories: commits only (``census timeline``), and whole (``census
#: history``, which counts every blob of every commit)
HISTORIES, WHOLE = "histories", "clones"
#: a folder being cloned into (``NAME.git.partial``): removed and started again by the next run
PARTIAL = ".partial"
#: what git says when the host failed in a way worth another try
_TRANSIENT = re.compile(r"HTTP (?:5\d\d|429)|returned error: (?:5\d\d|429)|early EOF|RPC failed|unexpected disconnect|"
                        r"Connection reset|Empty reply|transfer closed|Operation timed out|Could not resolve host|"
                        r"Failed to connect|curl \d+", re.IGNORECASE)
_MISSING = re.compile(r"returned error: 404|HTTP 404|not found|does not appear to be a git repository", re.IGNORECASE)
_NO_COMMIT = re.compile(r"not our ref|no such remote ref|couldn't find remote ref|unadvertised object|"
                        r"Server does not allow request for unadvertised object", re.IGNORECASE)


def history_path(settings: Settings, repo: str, whole: bool = False) -> Path:
    """Where the history of ``repo`` (``owner/name``) is kept in the cache (``whole``: with every file)."""
    owner, _, name = repo.partition("/")
    return settings.cache_dir / (WHOLE if whole else HISTORIES) / owner.lower() / f"{name.lower()}.git"


def remote_url(settings: Settings, repo: str) -> str:
    """The clone URL of ``repo`` on the git host."""
    return f"{settings.git_url.rstrip('/')}/{repo}.git"


def fetch_history(repo: str, commit: str | None, settings: Settings, whole: bool = False) -> Path:
    """The local clone holding ``repo``'s first-parent line down from ``commit`` (the default branch's
    tip when ``None``), made or brought up to date (module doc); ``SourceError`` with the reason when
    it cannot be had (``NotFoundError`` for a repository or commit the host does not have). ``whole``:
    every file of every commit, and the tags, as ``census history`` reads them."""
    if settings.offline:
        raise SourceError(f"{repo}: no local clone, and --offline fetches no history")
    place = history_path(settings, repo, whole).absolute()
    narrow = () if whole else ("--filter=blob:none", "--no-tags")
    if not (place / "HEAD").is_file():
        partial = place.with_name(place.name + PARTIAL)
        shutil.rmtree(partial, ignore_errors=True)  # what a killed clone left
        partial.parent.mkdir(parents=True, exist_ok=True)
        _retrying(settings, repo, ["clone", "--quiet", "--bare", *narrow, remote_url(settings, repo), str(partial)],
                  cwd=partial.parent)
        subprocess.run(["git", "-C", str(partial), "config", "remote.origin.fetch", "+refs/heads/*:refs/heads/*"],
                       check=True, capture_output=True, env=_env())  # a later fetch moves the branches
        os.replace(partial, place)
    elif not _holds(place, commit):
        _retrying(settings, repo, ["fetch", "--quiet", *narrow, "origin"], cwd=place)
    if commit is not None and not _holds(place, commit):
        try:
            _retrying(settings, repo, ["fetch", "--quiet", *narrow, "origin", commit], cwd=place)
        except NotFoundError:
            raise NotFoundError(f"{repo}: commit {commit[:12]} is not on {settings.git_url} (force-pushed "
                                "away, or never pushed)") from None
        if not _holds(place, commit):
            raise NotFoundError(f"{repo}: commit {commit[:12]} is not on {settings.git_url}")
    return place


def fetch_files(place: Path, repo: str, commits: list[str], settings: Settings) -> int:
    """Fetch the files of ``commits``'s trees that the clone at ``place`` lacks, by their ids (one
    ``git fetch --stdin``); how many were missing. ``SourceError`` when the host will not send them."""
    if not commits:
        return 0
    listed = subprocess.run(["git", "-C", str(place), "-c", "protocol.allow=never", "rev-list", "--objects",
                             "--no-walk", "--missing=print", "--stdin"], input="\n".join(commits).encode(),
                            capture_output=True, check=False, env=_env())  # every tree at once, no history
    if listed.returncode != 0:
        raise SourceError(f"{repo}: cannot list the trees of {len(commits)} commits: "
                          f"{listed.stderr.decode('utf-8', 'replace').strip()[-200:]}")
    missing = dict.fromkeys(line[1:] for line in listed.stdout.decode().split() if line.startswith("?"))
    if missing:
        _retrying(settings, repo, ["fetch", "--quiet", "--no-tags", "--filter=blob:none", "origin", "--stdin"],
                  cwd=place, given="\n".join(missing) + "\n")
    return len(missing)


def _holds(place: Path, commit: str | None) -> bool:
    """Whether the clone holds ``commit`` (never for an unpinned entry: its branch may have moved)."""
    return commit is not None and MirrorHistory(place).has(commit)


def _retrying(settings: Settings, repo: str, args: list[str], cwd: Path, given: str = "") -> None:
    """Run ``git ARGS`` against the host (``given`` on its input), again after a transient failure (module doc)."""
    pause = settings.backoff_seconds
    for attempt in range(1, max(1, settings.attempts) + 1):
        try:
            done = subprocess.run(["git", *_CONFIG, *args], cwd=cwd, input=given.encode(), capture_output=True,
                                  check=False, env=_env(), timeout=max(settings.timeout_seconds * 20, 600))
        except subprocess.TimeoutExpired:  # a host that stalls: as a cut connection
            done = subprocess.CompletedProcess(args, 1, b"", b"Operation timed out")
        if done.returncode == 0:
            return
        said = settings.redact(done.stderr.decode("utf-8", "replace").strip())
        last = said.splitlines()[-1] if said else f"git {args[0]} exited {done.returncode}"
        if _NO_COMMIT.search(said):
            raise NotFoundError(f"{repo}: {last}")
        if _MISSING.search(said) and not _TRANSIENT.search(said):
            raise NotFoundError(f"{repo}: not on {settings.git_url} (deleted, renamed or private): {last}")
        if not _TRANSIENT.search(said) or attempt >= settings.attempts:
            raise SourceError(f"{repo}: git {args[0]} failed after {attempt} tries: {last}")
        if args[0] == "clone":
            shutil.rmtree(Path(args[-1]), ignore_errors=True)
        time.sleep(pause)
        pause *= 2


#: only http and https, no prompt, no credential helper, no hook-like configuration of the user's
_CONFIG = ("-c", "protocol.allow=never", "-c", "protocol.http.allow=always", "-c", "protocol.https.allow=always",
           "-c", "credential.helper=", "-c", "core.askPass=", "-c", "http.lowSpeedLimit=1000",
           "-c", "http.lowSpeedTime=60")


def _env() -> dict[str, str]:
    """git's environment: no terminal prompt, no system or user configuration."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") and k != "GITHUB_TOKEN"}
    return {**keep, "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_ASKPASS": "", "SSH_ASKPASS": ""}
