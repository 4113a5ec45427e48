"""A census of small synthetic trees, each entry pinned and read from a tarball: for the tests
that need a real census database (notes, coverage, the population and runtime reports)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from synth import Tree, tarball

from pipeline.manifest.manifests import load
from pipeline.run.census import Census
from pipeline.settings import Settings
from pipeline.store.database import Store


def tree_census(root: Path, name: str, trees: Mapping[str, Tree], *, extra: str = "") -> tuple[Path, list[str]]:
    """The census database of ``trees`` (repo -> tree) under ``root``, manifest ``name``, with the
    manifest text ``extra`` appended (more entries); and each entry's status, in order."""
    lines = [f'[census]\nname = "{name}"\n']
    for i, (repo, tree) in enumerate(trees.items()):
        commit = f"{i + 1:x}" * 40
        (root / f"{i}.tar.gz").write_bytes(tarball(tree, root=f"r{i}", commit=commit))
        lines.append(f'[[repos]]\nrepo = "{repo}"\ncommit = "{commit}"\nsource = "{i}.tar.gz"\n')
    (root / "m.toml").write_text("\n".join([*lines, extra]))
    settings = Settings(db_path=root / "c.duckdb", cache_dir=root / "cache", api_url="http://127.0.0.1:9")
    census = Census(load(root / "m.toml"), settings)
    with Store(settings.db_path) as store:
        statuses = [outcome.status for outcome in census.run(store)]
    census.close()
    return settings.db_path, statuses
