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
# # The tool census
#
# ## Question
#
# A byte count says where strings sit, not which tools a tree defines. Which MCP tool
# definitions does each tree hold, which of them a server ships and which belong to its
# examples and tests, through which SDK, how many declare an annotations object, and which
# "tools" belong to look-alike libraries that are not MCP at all?

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
repositories = stats.repositories(con, MANIFEST)
display(repositories.select("repo", "commit", "status", "server_tools", "annotated_server_tools", "example_tools",
                            "test_tools", "lookalike_tools"))

# %% [markdown]
# ## Method
#
# Every tool has a role (`pipeline.scan.roles`): server, example or test, from its file's path
# and, where the language says so, its content. `stats.tools_by_role` counts each repository's
# tools per role with the rules that placed them; `stats.tools_by_sdk` groups the server tools
# by repository and library (MCP or not), with those that declare an annotations object in
# source and those registered through the project's own wrapper (pass `roles=` to widen it:
# `stats.TOOL_ROLES` is every role); `stats.lookalikes_excluded` lists the look-alike
# registrations left out of every MCP count. `plots.tools_by_role_chart` and
# `plots.tools_by_sdk_chart` draw the first two. This notebook counts nothing itself.

# %% [markdown]
# ## Result

# %%
by_role = stats.tools_by_role(con, MANIFEST)
display(by_role.drop("commit"))

# %%
display(Image(report.png_bytes(plots.tools_by_role_chart(by_role))))

# %%
by_sdk = stats.tools_by_sdk(con, MANIFEST)
display(by_sdk.drop("commit"))

# %%
display(stats.tools_by_sdk(con, MANIFEST, roles=stats.TOOL_ROLES).drop("commit"))

# %%
display(Image(report.png_bytes(plots.tools_by_sdk_chart(by_sdk))))

# %%
display(stats.lookalikes_excluded(con, MANIFEST).drop("commit"))

# %% [markdown]
# ## Caveats
#
# A tree with no MCP tool may keep its server elsewhere, or register its tools through helpers
# the detector follows only one level; a tree whose tools are all examples' and tests' (an SDK)
# ships no server tool (`no-server-tools`).

# %%
tool_caveats = ("server-elsewhere", "no-server-tools", "no-tool-in-server-paths", "wrapper-registration",
                "submodules")
caveats = stats.caveats(con, MANIFEST)
display(caveats.filter(pl.col("caveat").is_in(tool_caveats)).drop("commit"))
