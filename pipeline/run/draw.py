"""A seeded random sample of a registry's packages, drawn until enough of them resolve.

A community catalog lists thousands of servers, most of them under a name no package index
knows. ``census probe-registry --sample N --seed S`` shuffles the npm and PyPI packages with
``random.Random(S)`` and takes them in that order until ``N`` have resolved on their index (the
version to install exists); the ones between that did not resolve are kept too, so the sample
is the whole prefix of the draw. Resolving is asked ``jobs`` at a time, but the cut is made in
draw order, so the sample depends on the seed alone, not on which answer came first.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from pipeline.runtime.package_index import Hosts, PackageError, resolve
from pipeline.runtime.packages import Package


@dataclass(frozen=True)
class Drawn:
    """One package of the sample, in draw order."""

    package: Package
    index: int
    """its place in the draw, from 1."""
    resolved: bool
    reason: str | None
    """why it did not resolve."""


@dataclass(frozen=True)
class Draw:
    """The sample: every package drawn up to the ``wanted``-th that resolved."""

    seed: int
    wanted: int
    offered: int
    """how many packages the draw was made from."""
    drawn: tuple[Drawn, ...]

    @property
    def resolved(self) -> int:
        """How many of the drawn resolved (``wanted``, unless the registry ran out)."""
        return sum(d.resolved for d in self.drawn)


def draw(packages: Sequence[Package], wanted: int, seed: int, hosts: Hosts, *, latest: bool = False,
         jobs: int = 8) -> Draw:
    """The sample of the module doc, from ``packages``."""
    order = list(packages)
    random.Random(seed).shuffle(order)
    drawn: list[Drawn] = []
    found = 0
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for start in range(0, len(order), max(1, jobs) * 4):
            batch = order[start:start + max(1, jobs) * 4]
            for offset, reason in enumerate(pool.map(lambda p: _unresolved(p, hosts, latest), batch)):
                drawn.append(Drawn(batch[offset], start + offset + 1, reason is None, reason))
                found += reason is None
                if found >= wanted:
                    return Draw(seed, wanted, len(order), tuple(drawn))
    return Draw(seed, wanted, len(order), tuple(drawn))


def _unresolved(package: Package, hosts: Hosts, latest: bool) -> str | None:
    """Why ``package`` does not resolve, or None when it does."""
    try:
        resolve(package, hosts, latest=latest)
    except PackageError as exc:
        return f"resolve: {exc}"
    return None
