"""Named term sets for the byte counter.

A manifest's ``terms`` is either one of these names or an explicit list of strings.
Terms are matched case-insensitively (ASCII case folding of the UTF-8 bytes).
"""

from __future__ import annotations

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")

TERM_SETS: dict[str, tuple[str, ...]] = {
    # what the seed articles counted: the four hint names and the word "annotations"
    "published": (*HINTS, "annotations"),
    "hints": HINTS,
    # spellings that a camelCase count misses (sdk-idioms.md section 2), so a report can tell
    # a false zero from a real one: snake_case (Python mcp v2, rmcp, Ruby), the annotations
    # type, the C# attribute that carries `ReadOnly = true`, Laravel's attributes, the mcp-go
    # option helpers (they contain the camelCase name already) and SwiftMCP's option set.
    # Bare `ReadOnly` / `.read_only(` would match ordinary code; the detector reads those.
    "dialects": (
        *HINTS,
        "read_only_hint",
        "destructive_hint",
        "idempotent_hint",
        "open_world_hint",
        "ToolAnnotations",
        "[McpServerTool(",
        "#[IsReadOnly",
        "#[IsDestructive",
        "#[IsIdempotent",
        "#[IsOpenWorld",
        "@MCPTool(hints:",
        "annotations",
    ),
}

DEFAULT_TERM_SET = "published"


def resolve(spec: str | list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The terms of a set name or an explicit list; raises ``ValueError`` with the reason."""
    if isinstance(spec, str):
        if spec not in TERM_SETS:
            raise ValueError(f"unknown term set {spec!r} (known: {', '.join(TERM_SETS)})")
        return TERM_SETS[spec]
    terms = tuple(spec)
    if not terms:
        raise ValueError("the term list is empty")
    seen: dict[bytes, str] = {}
    for term in terms:
        if not isinstance(term, str) or not term:
            raise ValueError(f"terms must be non-empty strings, got {term!r}")
        key = term.encode("utf-8").lower()
        if key in seen:
            raise ValueError(f"terms {seen[key]!r} and {term!r} are the same ignoring case")
        seen[key] = term
    return terms
