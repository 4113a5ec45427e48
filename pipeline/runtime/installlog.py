"""The line of an install's output (npm's or uv's) that says what went wrong."""

from __future__ import annotations


def last_error(output: str) -> str:
    """The install's last meaningful line (npm's ``npm error`` lines come last)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [n for n, line in enumerate(lines) if "error" in line.lower() and "A complete log" not in line]
    if not errors:
        return (lines[-1] if lines else "no output")[:300]
    first = errors[0]
    said = lines[first]
    causes = [line for line in lines[first + 1:] if line.startswith("cause:")]
    if said.rstrip().endswith(":") or "No solution found" in said:  # uv explains on the lines after
        said += " " + " ".join(line.lstrip("╰─▶ ") for line in lines[first + 1:first + 3])
    elif causes:  # uv's chain of causes: the last is the root
        said += f" ({causes[-1]})"
    elif said.startswith("npm error code"):  # npm names the code first, the error itself later
        rest = [line.removeprefix("npm error").strip() for line in lines[first + 1:] if line.startswith("npm error")]
        cause = next((line for line in rest if "Error: " in line), rest[0] if rest else None)
        said = f"{said}: {cause}" if cause else said
    return said[:400]
