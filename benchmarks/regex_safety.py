"""Every regular expression of the detector against adversarial inputs (hostile repositories).

    .venv/bin/python benchmarks/regex_safety.py [--size 20000] [--limit 0.1]

A pattern that backtracks quadratically (``^\\s*`` under ``re.M`` over blank lines, nested
quantifiers over the same characters) can stall a census on one crafted file. Each compiled
pattern of ``pipeline.scan.detect`` is run with ``search`` and ``finditer`` over long runs of
one unit (spaces, newlines, brackets, dots, quotes, keywords); the ones slower than ``--limit``
seconds are printed. Exit 1 if any is.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
import time

from pipeline.scan import detect

UNITS = (b"a", b" ", b"\t", b"\n", b"(", b"{", b"[", b"<", b"/", b"\\", b'"', b"'", b"@", b"#", b":", b"x.",
         b"a ", b"aa", b"import ", b"use ", b"a, ", b"a = 1, ", b"x = y, ")


def patterns() -> list[tuple[str, re.Pattern[str] | re.Pattern[bytes]]]:
    """Every compiled pattern held by a module of the detector package."""
    found: list[tuple[str, re.Pattern[str] | re.Pattern[bytes]]] = []
    for info in pkgutil.iter_modules(detect.__path__):
        module = importlib.import_module(f"{detect.__name__}.{info.name}")
        found += [(f"{info.name}.{n}", v) for n, v in vars(module).items() if isinstance(v, re.Pattern)]
    return found


def seconds(pattern: re.Pattern[str] | re.Pattern[bytes], data: bytes) -> float:
    """Time of one ``search`` and the first ``finditer`` match over ``data``."""
    subject: str | bytes = data if isinstance(pattern.pattern, bytes) else data.decode()
    start = time.perf_counter()
    pattern.search(subject)  # type: ignore[arg-type]
    next(pattern.finditer(subject), None)  # type: ignore[arg-type]
    return time.perf_counter() - start


def main() -> int:
    """Print the slow patterns; exit 1 if there are any."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=20_000, help="repetitions of each unit")
    parser.add_argument("--limit", type=float, default=0.1, help="seconds a pattern may take")
    args = parser.parse_args()
    slow = [(seconds(p, unit * args.size), name, unit) for name, p in patterns() for unit in UNITS]
    slow = sorted((s for s in slow if s[0] > args.limit), reverse=True)
    for took, name, unit in slow:
        print(f"{took:8.3f} s  {name}  on {unit!r} x {args.size}")
    print(f"{len(patterns())} patterns, {len(UNITS)} inputs each: {len(slow)} slower than {args.limit} s")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
