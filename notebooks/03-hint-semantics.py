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
# # What the hints say: declared, on the wire, effective
#
# ## Question
#
# The first seed article counts, over MCP tools, how many set each hint and to what. Over the
# server tools of this census (what servers ship: examples and tests left out): how many
# declare each hint in source, how many arrive with
# it once the SDK's documented behaviour is applied, and what does a client effectively read,
# under the schema defaults and under "no annotation, no gate"?

# %% [markdown]
# ## Data
#
# The census database named by `CENSUS_DB` (relative to the project folder, or absolute;
# default `data/census.duckdb`) and the manifest `CENSUS_MANIFEST` (or the only one stored),
# at the commits it pins:

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
display(stats.repositories(con, MANIFEST).select("repo", "commit", "status", "server_tools", "example_tools",
                                                 "test_tools"))

# %% [markdown]
# ## Method
#
# `stats.hint_coverage` gives the seed's table twice: as declared in source (`tools`) and on the
# wire (`tool_hints_on_wire`): tools, tools with an annotations object, and per hint how many
# set it (declared), set it true and set it false. `stats.effective_hints` gives, per tool and
# hint, the declared value, the value on the wire, and the effective value under both client
# readings (defaults applied, with destructiveHint and idempotentHint not applicable when
# readOnlyHint is true; no annotation, no gate); `stats.effective_summary` counts those.
# `plots.hint_coverage_chart` draws the first. Each counts server tools unless given `roles=`
# (below, the table once more over every role). This notebook counts nothing itself.

# %% [markdown]
# ## Result

# %%
coverage = stats.hint_coverage(con, MANIFEST)
display(coverage)

# %%
display(Image(report.png_bytes(plots.hint_coverage_chart(coverage))))

# %%
display(stats.hint_coverage(con, MANIFEST, roles=stats.TOOL_ROLES))

# %%
display(stats.effective_summary(con, MANIFEST))

# %% [markdown]
# The tools that arrive without any annotations are where the two client readings part:
# defaults applied treats them as writing, destructive, not idempotent and open-world; no
# annotation, no gate takes no hint-based decision at all.

# %%
effective = stats.effective_hints(con, MANIFEST)
silent = effective.filter(pl.col("effective_no_gate") == "no gate")
display(silent.select("repo", "path", "tool_name", "hint", "declared", "on_wire", "effective_defaults",
                      "effective_no_gate"))

# %% [markdown]
# ## Caveats
#
# A zero for a camelCase hint name is a statement about four strings; other spellings
# (`read_only_hint`, C#'s `ReadOnly = true`) and servers kept elsewhere are listed here.

# %%
hint_caveats = ("false-zero", "hints-not-in-server-code", "server-elsewhere", "wrapper-registration")
caveats = stats.caveats(con, MANIFEST)
display(caveats.filter(pl.col("caveat").is_in(hint_caveats)).drop("commit"))
