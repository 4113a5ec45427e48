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
# # Runtime truth: what running servers send, against what their source declares
#
# ## Question
#
# The first seed article counted annotations in the tools/list answers of 14 running servers
# (288 tools, 262 annotated). Over the servers captured in this census database: how many tools
# arrive with an annotations object, and per hint how many arrive set, true and false? For the
# servers whose source this census scanned: does what they send agree with what the source
# declares, and with what the SDK is documented to send ("expected on the wire")?

# %% [markdown]
# ## Data
#
# The census database named by `CENSUS_DB` (relative to the project folder, or absolute;
# default `data/census.duckdb`) and the manifest `CENSUS_MANIFEST` (or the only one stored).
# Runtime captures are stored by `census probe` (a stdio or Streamable HTTP server) and
# `census ingest-tools-list` (an answer saved earlier); one row per server, its latest capture:

# %%
import polars as pl
from IPython.display import Image, display

from pipeline.analysis import runtime as runtime_stats
from pipeline.analysis import stats
from pipeline.report import census as report
from pipeline.report import plots

# frames shown as tables: up to 100 rows (the frame itself holds them all), every column, whole strings and lists
pl.Config(tbl_rows=100, tbl_cols=-1, fmt_str_lengths=10_000, fmt_table_cell_list_len=-1)

con, DATABASE, MANIFEST = report.open_census()
print(f"database: {DATABASE}\nmanifest: {MANIFEST}")
captures = runtime_stats.runtime_captures(con)
display(captures.drop("command_or_url"))

# %% [markdown]
# ## Method
#
# `runtime_stats.runtime_hint_coverage` gives the seed's table from what servers sent
# (**received**), over every `ok` capture: tools, tools with an annotations object, and per hint how many
# arrived set (the key holds a value; null is absent), true, false or another value.
# `runtime_stats.static_vs_runtime` pairs each captured server with the repository holding its
# source (`--repo`, or a server named like the repository), matches tools by name with the MCP
# tool definitions of its latest scanned snapshot, and puts side by side, per tool and hint, the
# value **declared in source**, the value **expected on the wire** (`tool_hints_on_wire`) and the
# value **received**; `static_vs_runtime_pairs` and `static_vs_runtime_summary` count those per
# server and per hint. Only servers paired with a repository of the manifest are shown here.
# `plots.runtime_agreement_chart` draws the summary. This notebook counts nothing itself.

# %% [markdown]
# ## Result
#
# Received at run time, over every captured server:

# %%
display(runtime_stats.runtime_hint_coverage(con))

# %% [markdown]
# Declared in source against received, for the servers paired with a repository of the manifest:
# tools on both sides, only in source, only received.

# %%
in_manifest = pl.col("repo").is_in(stats.repositories(con, MANIFEST)["repo"].to_list())
display(runtime_stats.static_vs_runtime_pairs(con).filter(in_manifest))

# %%
summary = runtime_stats.static_vs_runtime_summary(con).filter(in_manifest)
display(summary.drop("source_only", "runtime_only"))

# %%
display(Image(report.png_bytes(plots.runtime_agreement_chart(summary))))

# %% [markdown]
# The tools whose hint, as received, is not the one declared in source, or not the one expected
# on the wire:

# %%
compared = runtime_stats.static_vs_runtime(con).filter(in_manifest)
disagreeing = compared.filter((pl.col("agreement") != "same") | ~pl.col("as_expected"))
display(disagreeing.select("server", "tool_name", "hint", "declared", "expected_on_wire", "runtime", "agreement",
                           "as_expected"))

# %% [markdown]
# ## Caveats
#
# Tools are matched by name only: a tool renamed at run time is one tool only in source and one
# only received. A name defined more than once in source stands for its first definition outside
# tests. The source side is the repository's latest scanned snapshot, which may not be the
# commit the running server was built from. A capture is the latest one per server: a server
# whose tools depend on configuration or credentials may send others elsewhere. Skipped captures
# count nowhere above; here they are, with their reasons:

# %%
display(captures.filter(pl.col("status") != "ok").select("server", "transport", "reason"))
