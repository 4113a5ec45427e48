"""Pinning many repositories: GraphQL batches first, REST one by one for the rest.

With a token, the GitHub entries of a manifest are pinned 100 to a query (``pipeline.fetch.graphql``);
what a batch leaves unsettled, and everything when there is no token (GraphQL needs one) or the
endpoint is not there, is pinned by REST, one request per repository. The observer is told once
why REST is used.
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.errors import GraphQLUnavailableError, SourceError
from pipeline.fetch.github import GitHubClient
from pipeline.fetch.graphql import Pin, batches, pin_batch
from pipeline.manifest.entries import RepoEntry

NO_TOKEN = "no GITHUB_TOKEN: GraphQL needs one, so commits are resolved with REST, one request per repository"


def graphql_pins(client: GitHubClient, entries: Sequence[RepoEntry]) -> dict[str, Pin]:
    """The pins GraphQL settles for the GitHub ``entries`` (repository -> commit or why not); the
    entries it leaves out, or answers ``None`` for, are for REST."""
    if not entries:
        return {}
    if not client.has_token:
        client.note(NO_TOKEN)
        return {}
    found: dict[str, Pin] = {}
    for batch in batches([(e.repo, e.ref) for e in entries]):
        try:
            found.update(pin_batch(client, batch))
        except GraphQLUnavailableError as exc:
            client.note(f"GraphQL is not available ({exc}): commits are resolved with REST, one request per "
                        "repository")
            break
        except SourceError as exc:  # this batch failed on every attempt: REST can still pin its repositories
            client.note(f"a GraphQL batch of {len(batch)} pins failed ({exc}): they are resolved with REST")
    return found
