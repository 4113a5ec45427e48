"""Pins in batches: up to 100 repositories resolved by one GraphQL query.

Each repository is an aliased block, its owner, name and ref passed as variables (so no name
needs escaping)::

    query($o0: String!, $n0: String!, $o1: String!, $n1: String!, $e1: String!) {
      r0: repository(owner: $o0, name: $n0) { defaultBranchRef { target { oid } } }
      r1: repository(owner: $o1, name: $n1) { object(expression: $e1) { __typename oid
                                              ... on Tag { target { __typename oid } } } }
    }

An alias answered ``null`` with a ``NOT_FOUND`` error is that repository's ``NotFoundError``
("repository not found"); a ref that names nothing, or an empty repository, too. An annotated
tag is peeled to its commit. Anything else the answer does not settle (another error, a tag of a
tag) is ``None``: that repository is pinned by REST. The endpoint answering 401 or 404 (no
GraphQL there, or the token is refused) raises ``GraphQLUnavailableError``: every pin falls back
to REST.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pipeline.errors import GraphQLUnavailableError, NotFoundError, SourceError
from pipeline.fetch.github import GitHubClient

#: repositories per query (GitHub asks for at most 100; such a query costs about one point)
BATCH = 100
_OID = re.compile(r"^[0-9a-f]{40}\Z")
_DEFAULT_BRANCH = "defaultBranchRef { target { oid } }"
_REF = "object(expression: $e{n}) {{ __typename oid ... on Tag {{ target {{ __typename oid }} }} }}"

#: what a batch answers for one repository: its commit, why it cannot be pinned, or ``None`` (ask REST)
Pin = str | SourceError | None


def batches(wanted: Sequence[tuple[str, str | None]]) -> list[Sequence[tuple[str, str | None]]]:
    """``wanted`` cut into queries of at most ``BATCH`` repositories."""
    return [wanted[start : start + BATCH] for start in range(0, len(wanted), BATCH)]


def pin_batch(client: GitHubClient, batch: Sequence[tuple[str, str | None]]) -> dict[str, Pin]:
    """One query for ``batch``; raises ``GraphQLUnavailableError`` when the endpoint is not there."""
    query, variables = build_query(batch)
    label = f"GraphQL pins of {len(batch)} repositories ({batch[0][0]}...)"
    try:
        answer = client.post_json(label, {"query": query, "variables": variables})
    except SourceError as exc:
        if str(exc).startswith("HTTP "):
            raise GraphQLUnavailableError(str(exc)) from exc
        raise
    return read_answer(answer, batch)


def build_query(batch: Sequence[tuple[str, str | None]]) -> tuple[str, dict[str, str]]:
    """The query text and its variables for ``batch``."""
    declared, blocks, variables = [], [], {}
    for n, (repo, ref) in enumerate(batch):
        owner, _, name = repo.partition("/")
        variables[f"o{n}"], variables[f"n{n}"] = owner, name
        declared += [f"$o{n}: String!", f"$n{n}: String!"]
        if ref is None:
            body = _DEFAULT_BRANCH
        else:
            variables[f"e{n}"] = ref
            declared.append(f"$e{n}: String!")
            body = _REF.format(n=n)
        blocks.append(f"  r{n}: repository(owner: $o{n}, name: $n{n}) {{ {body} }}")
    return f"query({', '.join(declared)}) {{\n" + "\n".join(blocks) + "\n}", variables


def read_answer(answer: dict[str, Any], batch: Sequence[tuple[str, str | None]]) -> dict[str, Pin]:
    """Each repository's pin from a GraphQL answer (``None``: the answer does not settle it)."""
    data = answer.get("data")
    data = data if isinstance(data, dict) else {}
    missing = {str(e["path"][0]) for e in answer.get("errors") or []
               if isinstance(e, dict) and e.get("type") == "NOT_FOUND" and isinstance(e.get("path"), list)
               and e["path"]}
    return {repo: _pin(data.get(f"r{n}"), f"r{n}" in missing, ref) for n, (repo, ref) in enumerate(batch)}


def _pin(block: Any, not_found: bool, ref: str | None) -> Pin:
    if block is None:
        return NotFoundError("repository not found") if not_found else None
    if not isinstance(block, dict):
        return None
    if ref is None:
        branch = block.get("defaultBranchRef")
        if branch is None and "defaultBranchRef" in block:
            return NotFoundError("the repository has no default branch (is it empty?)")
        return _oid(branch.get("target") if isinstance(branch, dict) else None)
    target = block.get("object")
    if target is None and "object" in block:
        return NotFoundError(f"ref {ref!r} not found")
    if isinstance(target, dict) and target.get("__typename") == "Tag":
        peeled = target.get("target")
        return _oid(peeled) if isinstance(peeled, dict) and peeled.get("__typename") == "Commit" else None
    return _oid(target) if isinstance(target, dict) and target.get("__typename") == "Commit" else None


def _oid(node: Any) -> str | None:
    oid = node.get("oid") if isinstance(node, dict) else None
    return oid.lower() if isinstance(oid, str) and _OID.match(oid.lower()) else None
