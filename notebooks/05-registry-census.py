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
# # The registry census
#
# ## Question
#
# Seed 000 read 288 tools of 14 running servers and found 91% of them annotated. What do the
# servers of a whole population (the official registry's launch seed) declare, per tool and per
# server, through which SDKs, and why do some trees show no tool at all?

# %% [markdown]
# ## Data
#
# The census database named by `CENSUS_DB` (relative to the project folder, or absolute;
# default `data/census.duckdb`) and the manifest `CENSUS_MANIFEST` (or the only one stored),
# at the commits it pins; for the registry seed, `census run manifests/registry-seed-2025-05.toml`
# (from mirrors: `docs/REGISTRY.md`). Each repository's coverage reason:

# %%
import polars as pl
from IPython.display import Image, display

from pipeline.analysis import runtime_population, source_vs_wire, stats
from pipeline.report import census as report
from pipeline.report import plots, population_plots, timeline_plots

# frames shown as tables: up to 100 rows (the frame itself holds them all), every column, whole strings and lists
pl.Config(tbl_rows=100, tbl_cols=-1, fmt_str_lengths=10_000, fmt_table_cell_list_len=-1)

con, DATABASE, MANIFEST = report.open_census()
print(f"database: {DATABASE}\nmanifest: {MANIFEST}")
coverage = stats.coverage(con, MANIFEST)
display(stats.coverage_summary(con, MANIFEST))

# %% [markdown]
# ## Method
#
# `stats.coverage` gives every repository a reason from evidence the census holds (tool rows, the
# MCP SDKs its manifests declare, its README's pointer elsewhere, the manifest's `server_repo`);
# `stats.seed_000_comparison` puts seed 000's published table beside the population's, in source
# and on the wire; `stats.servers_by_annotation` and `stats.annotation_classes` count per server,
# so that a few large servers do not hide the many small ones; `stats.population_by_sdk` splits
# the server tools by SDK and language; `stats.timeline_adoption`, `timeline_hints`, `timeline_by_sdk`
# (with `timeline_sdk_summary`) and `timeline_servers` read what `census timeline` stored: each
# repository at the last commit of its default branch at each month's end. This notebook counts
# nothing itself: it filters the frames.

# %% [markdown]
# ## Result
#
# The repositories that define no named server tool, and why:

# %%
display(coverage.filter(pl.col("reason") != "server-tools").select("repo", "reason", "evidence"))

# %% [markdown]
# Seed 000's table at population scale:

# %%
display(stats.seed_000_comparison(con, MANIFEST))
display(Image(report.png_bytes(plots.hint_coverage_chart(stats.hint_coverage(con, MANIFEST)))))

# %% [markdown]
# Per server: how many annotate all, some or none of their tools; the largest first.

# %%
servers = stats.servers_by_annotation(con, MANIFEST)
display(stats.annotation_classes(con, MANIFEST))
display(Image(report.png_bytes(population_plots.annotated_share_chart(servers))))
display(servers.head(15))

# %% [markdown]
# By SDK and language (filter it: `by_sdk.filter(pl.col("language") == "python")`), and one
# server found by name:

# %%
by_sdk = stats.population_by_sdk(con, MANIFEST)
display(by_sdk)
display(Image(report.png_bytes(population_plots.sdk_coverage_chart(by_sdk))))
display(servers.filter(pl.col("repo").str.contains("(?i)tools")))

# %% [markdown]
# Over time (`census timeline`, docs/TIMELINE.md): per month, the servers alive, those declaring an
# annotations object on a tool (tool rows) and those whose tree names readOnlyHint at all (byte
# counts), with the specification and the first SDK releases with tool annotations; each hint; which
# SDKs carried it; and each server with the month it began to annotate.

# %%
adoption = stats.timeline_adoption(con, MANIFEST)
if adoption.is_empty():
    print("no timeline: `census timeline MANIFEST --mirrors DIR` makes one (docs/TIMELINE.md)")
else:
    display(adoption)
    display(Image(report.png_bytes(timeline_plots.timeline_chart(adoption, stats.timeline_events()))))
    display(stats.timeline_hints(con, MANIFEST))
    display(stats.timeline_sdk_summary(stats.timeline_by_sdk(con, MANIFEST)))
    display(stats.timeline_servers(con, MANIFEST))
    display(stats.timeline_events())

# %% [markdown]
# At run time (`census probe-registry`: each registry package installed and started in a
# sandbox): how far each got, the detector against the servers' answers (in all, by the rule
# that says the scanned commit is the one the package was built from: `exact-tag` first, by SDK
# and by language), and each disagreement with its cause.

# %%
packages = runtime_population.package_captures(con, MANIFEST)
if packages.is_empty():
    print("no package captures: `census probe-registry --registry-file FILE` makes them (docs/RUNTIME.md)")
else:
    display(runtime_population.probe_funnel(con, MANIFEST))
    display(Image(report.png_bytes(population_plots.funnel_chart(runtime_population.probe_funnel(con, MANIFEST)))))
    by_server = source_vs_wire.detector_vs_runtime(con, MANIFEST)
    display(source_vs_wire.detector_accuracy(by_server))
    for by in ("rule", "sdk", "language"):
        display(source_vs_wire.detector_accuracy(by_server, [by]))
    display(by_server.drop("commit"))
    display(source_vs_wire.runtime_disagreements(con, MANIFEST))

# %% [markdown]
# Do the hints tell the truth? (`pipeline.scan.effects`, docs/EFFECTS.md): each server tool's handler
# read for what it does, per language and SDK: handlers located, tools with write, delete or exec
# evidence, `readOnlyHint: true` tools with such evidence, contradictions, doubts and the hints
# suggested for unannotated tools; why handlers were not located; and every contradiction and
# doubt with a permalink to its evidence line at the pinned commit.

# %%
if not stats.has_effects(con, MANIFEST):
    print("no effects: the trees were scanned before scanner 22 (`census run MANIFEST` again reads them)")
else:
    display(stats.effects_by_sdk(con, MANIFEST))
    display(stats.unlocated(con, MANIFEST))
    display(stats.findings(con, MANIFEST).drop("commit"))

# %% [markdown]
# ## Caveats
#
# The detector reads source: a server whose tools are made at run time is `runtime-generated`,
# registrations it cannot name are `unsupported`, and `unknown` is a defect to look into. Its
# measured precision and recall are in the registry report's hand audit
# (`reports/registry-seed-2025-05/audit/`); the effects analysis's, against its own hand audit of 188
# tools, in `reports/registry-seed-2025-05/effects-audit/`. The timeline covers only the repositories that still
# exist and had a mirror (survivorship: a server deleted before the mirrors were made is missing), and a
# history rewritten by a force push shows only its new line. Each repository's own caveats:

# %%
display(stats.caveats(con, MANIFEST).drop("commit"))
