"""The shell commands of the README's and docs' fenced blocks, each with its verdict.

A block whose language is ``sh``, ``bash``, ``shell`` or ``console`` holds commands; every other
block must name its language (``text``, ``toml``...) so that no command hides in one. A command is
a line, or the lines bash needs to complete it (``\\`` continuations, a ``while ... done`` loop);
comment lines between commands are not commands. A command needs the network when the text says
so, with the reason: ``# needs the network: REASON`` at the end of one of its lines, or
``<!-- needs the network: REASON -->`` on the line before its block (every command of the block).
Every other command is run by ``tests/test_doc_commands.py``.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHELL = ("sh", "bash", "shell", "console")
NETWORK = re.compile(r"needs the network: *(.*?) *(?:-->)?$")
FENCE = re.compile(r"^```(\S*)\s*$")


@dataclass(frozen=True)
class Command:
    """One documented command."""

    page: str
    """the page, relative to the project (``docs/RUNTIME.md``)."""
    line: int
    """where it starts on the page."""
    block: int
    """where its block's fence is on the page."""
    text: str
    """as written, continuation lines joined."""
    network: str | None
    """why it needs the network, as the text says; None: it is run."""

    @property
    def where(self) -> str:
        """``docs/RUNTIME.md:11``."""
        return f"{self.page}:{self.line}"

    @property
    def verdict(self) -> str:
        """``run``, or ``needs the network: REASON``."""
        return "run" if self.network is None else f"needs the network: {self.network}"


def pages(root: Path = ROOT) -> list[Path]:
    """The README and every page of docs/."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def blocks(page: Path) -> list[tuple[int, str, list[str], str | None]]:
    """Each fenced block of ``page``: its fence's line, language, lines, and a network note before it."""
    found, lines = [], page.read_text(encoding="utf-8").splitlines()
    number = 0
    while number < len(lines):
        fence = FENCE.match(lines[number])
        if fence is None:
            number += 1
            continue
        end = next((n for n in range(number + 1, len(lines)) if lines[n].startswith("```")), len(lines))
        before = NETWORK.search(lines[number - 1]) if number and lines[number - 1].startswith("<!--") else None
        found.append((number + 1, fence.group(1), lines[number + 1:end], before.group(1) if before else None))
        number = end + 1
    return found


def commands(root: Path = ROOT) -> list[Command]:
    """Every command of every shell block of the pages, in page order."""
    found: list[Command] = []
    for page in pages(root):
        name = page.relative_to(root).as_posix()
        for fence, language, lines, note in blocks(page):
            if language not in SHELL:
                continue
            pending: list[str] = []
            for offset, line in enumerate(lines, start=1):
                if not pending and (not line.strip() or line.lstrip().startswith("#")):
                    continue
                pending.append(line)
                text = "\n".join(pending)
                if _complete(text):
                    said = [m.group(1) for m in map(NETWORK.search, pending) if m]
                    start = fence + offset - len(pending) + 1
                    found.append(Command(name, start, fence, text, said[0] if said else note))
                    pending = []
            assert not pending, f"{name}:{fence}: a command is not complete at the end of its block"
    return found


def _complete(text: str) -> bool:
    """Whether bash reads ``text`` as whole commands (no open quote, loop or continuation)."""
    if text.rstrip().endswith("\\"):
        return False
    return subprocess.run(["bash", "-n"], input=text, text=True, capture_output=True, check=False).returncode == 0
