# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Reproducing the published counts
#
# ## Question
#
# The fourth seed article counted the four hint names and the word `annotations` in the trees
# of four memory-layer projects and published one figure per tree and term. Measured on the
# same trees, do we get the same figures, and where in each tree do the matches sit: in the
# code a server ships, in examples, in tests, or in docs?

# %% [markdown]
# ## Data
#
# The census database named by `CENSUS_DB` (a path relative to the project folder, or
# absolute; default `data/census.duckdb`), as `census run manifests/published-2026.toml`
# writes it. The manifest is `CENSUS_MANIFEST`, or the only one the database holds. Its
# repositories, at the commits the manifest pins, and where each tree was read from:

# %%
import polars as pl
from IPython.display import Image, display

from pipeline.analysis import stats
from pipeline.report import census as report
from pipeline.report import plots

# frames shown as tables: up to 100 rows (the frame itself holds them all), every column, whole strings and lists
pl.Config(tbl_rows=100, tbl_cols=-1, fmt_str_lengths=10_000, fmt_table_cell_list_len=-1)

con, DATABASE, MANIFEST = report.open_census()
print(f"database: {DATABASE}\nmanifest: {MANIFEST}")
repositories = stats.repositories(con, MANIFEST)
display(repositories.select("repo", "commit", "status", "source", "regular_files", "skipped_members", "note"))

# %% [markdown]
# ## Method
#
# `stats.published_vs_measured` sets, per repository and term, the figure from the manifest's
# `published` table beside the number of matches measured here (case-insensitive byte counts
# over every regular file), their difference, and where the matches sit: each match by the
# role of its file (`pipeline.scan.roles`: server code, examples, tests, docs; under the
# manifest's `server_paths` a file is server code unless it is itself a test or an example).
# `plots.published_vs_measured_chart` draws it. This notebook counts nothing itself.

# %% [markdown]
# ## Result

# %%
published = stats.published_vs_measured(con, MANIFEST)
display(published.drop("commit"))

# %%
display(Image(report.png_bytes(plots.published_vs_measured_chart(published))))

# %% [markdown]
# A difference is a statement about strings in one tree at one commit. Where the manifest gives
# no figure the published column is empty; where a tree was not scanned the measured one is.
#
# Which commit gives the published figure? After `census history --manifest FILE --source-dir DIR`
# (local clones of the trees), `stats.history_series` holds each published term at every commit:
# the chart draws it with the figure as a dashed line and the pinned commit as a dotted one.

# %%
over_time = stats.history_series(con, MANIFEST)
if over_time.is_empty():
    print("no stored history: run `census history --manifest FILE --source-dir DIR` first")
else:
    display(Image(report.png_bytes(plots.history_chart(over_time))))

# %% [markdown]
# ## Caveats
#
# What the numbers above cannot mean, per repository (`stats.caveats`): files not read, servers
# that live elsewhere, spellings a camelCase count misses, and what the scan cannot check.

# %%
display(stats.caveats(con, MANIFEST).drop("commit"))
