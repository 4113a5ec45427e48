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
# definitions does each tree hold, through which SDK, how many declare an annotations object,
# and which "tools" belong to look-alike libraries that are not MCP at all?

# %% [markdown]
# ## Data
#
# The census database named by `CENSUS_DB` (relative to the project folder, or absolute;
# default `data/census.duckdb`) and the manifest `CENSUS_MANIFEST` (or the only one stored),
# at the commits it pins:

# %%
import polars as pl
from IPython.display import Image, display

from pipeline import plots, report, stats

con, DATABASE, MANIFEST = report.open_census()
print(f"database: {DATABASE}\nmanifest: {MANIFEST}")
repositories = stats.repositories(con, MANIFEST)
print(report.markdown_table(repositories.select("repo", "commit", "status", "mcp_tools", "annotated_tools",
                                                "lookalike_tools")))

# %% [markdown]
# ## Method
#
# `stats.tools_by_sdk` groups the registration detector's tool definitions by repository and
# library (MCP or not), with those that declare an annotations object in source, those outside
# tests and those registered through the project's own wrapper; `stats.lookalikes_excluded`
# lists the look-alike registrations left out of every MCP count. `plots.tools_by_sdk_chart`
# draws the first. This notebook counts nothing itself.

# %% [markdown]
# ## Result

# %%
by_sdk = stats.tools_by_sdk(con, MANIFEST)
print(report.markdown_table(by_sdk.drop("commit")))

# %%
display(Image(report.png_bytes(plots.tools_by_sdk_chart(by_sdk))))

# %%
print(report.markdown_table(stats.lookalikes_excluded(con, MANIFEST).drop("commit")))

# %% [markdown]
# ## Caveats
#
# A tree with no MCP tool may keep its server elsewhere, or register its tools through helpers
# the detector follows only one level; a tool defined in a test is still a definition.

# %%
tool_caveats = ("server-elsewhere", "no-tool-in-server-paths", "wrapper-registration", "submodules")
caveats = stats.caveats(con, MANIFEST)
print(report.markdown_table(caveats.filter(pl.col("caveat").is_in(tool_caveats)).drop("commit")))
