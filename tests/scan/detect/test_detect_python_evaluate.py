"""A tool's name built by a project function, evaluated from its source (``pipeline.scan.detect.python.evaluate``)."""

from __future__ import annotations

import pytest

from pipeline.scan.detect.corpus import detect_files

_SERVER = (
    "from fastmcp import FastMCP\n"
    "mcp = FastMCP('x')\n"
    "{helper}\n"
    "def build(ns: str = {default}):\n"
    "    {local}\n"
    "    @mcp.tool(name={name})\n"
    "    def one() -> str: ...\n"
)


def _name(helper: str, name: str, local: str = "pass", default: str = "''") -> tuple[str | None, str]:
    source = _SERVER.format(helper=helper, name=name, local=local, default=default)
    [tool] = detect_files({"s.py": source.encode()}).tools
    return tool.tool_name, tool.rule.rsplit(".", 1)[-1]


@pytest.mark.parametrize(("helper", "name", "expected"), [
    ("def f(x):\n    return x + '_a'\n", "f('p')", "p_a"),
    ("def f(x):\n    return x + '_a'\n", "f(x='p')", "p_a"),
    ("def f(x='d'):\n    return f'{x}-t'\n", "f()", "d-t"),
    ("def f(x):\n    if x == 'a':\n        return 'one'\n    elif x == 'b':\n        return 'two'\n"
     "    return 'three'\n", "f('b')", "two"),
    ("def f(x):\n    return 'yes' if x is None else 'no'\n", "f(None)", "yes"),
    ("def f(x, loud=False):\n    y = x.upper() if loud else x.strip()\n    return y\n", "f(' a ', loud=True)", " A "),
    ("def f(x):\n    \"\"\"Doc.\"\"\"\n    return (x or 'empty') + '!'\n", "f('')", "empty!"),
    ("def f(x):\n    return x.removeprefix('pre_').replace('_', '-')\n", "f('pre_a_b')", "a-b"),
])
def test_a_function_of_the_file_is_evaluated(helper: str, name: str, expected: str) -> None:
    assert _name(helper, name) == (expected, "decorator-built")


def test_a_local_holding_the_call_gives_the_name_with_the_parameter_default() -> None:
    helper = "def fmt(ns):\n    if ns:\n        return ns + '-'\n    return ''\n"
    assert _name(helper, "p + 'get'", local="p = fmt(ns)") == ("get", "decorator-built")
    assert _name(helper, "p + 'get'", local="p = fmt(ns)", default="'team'") == ("team-get", "decorator-built")


@pytest.mark.parametrize("helper", [
    "def f(x):\n    for c in x:\n        return c\n    return x\n",  # a loop
    "def f(x):\n    return other(x)\n",  # a call it makes is not followed
    "def f(x):\n    return x * 2\n",  # an operator on strings other than +
    "def f(x):\n    if x:\n        return 'a'\n",  # falls off the end: None
    "def f(x):\n    return x.format('a')\n",  # a method not known to be pure
])
def test_a_body_the_evaluation_does_not_follow_gives_no_name(helper: str) -> None:
    assert _name(helper, "f('')")[0] is None


def test_a_part_that_stays_unknown_makes_a_built_name_dynamic() -> None:
    helper = "def f(x):\n    return os.environ[x]\n"
    assert _name(helper, "f('A') + '_b'") == (None, "decorator-dynamic")


def test_a_local_assigned_twice_is_not_read() -> None:
    helper = "def f(x):\n    return x\n"
    assert _name(helper, "p + 'b'", local="p = f('a')\n    p = f('c')") == (None, "decorator-dynamic")


def test_the_function_is_read_from_the_module_the_file_imports_it_from() -> None:
    files = {
        "pkg/names.py": b"def tag(kind):\n    return 'mcp_' + kind\n",
        "other/names.py": b"def tag(kind):\n    return 'wrong_' + kind\n",
        "pkg/server.py": (b"from fastmcp import FastMCP\nfrom .names import tag\nmcp = FastMCP('x')\n\n"
                          b"@mcp.tool(name=tag('list'))\ndef listing() -> str: ...\n"),
    }
    [tool] = detect_files(files).tools
    assert (tool.path, tool.tool_name) == ("pkg/server.py", "mcp_list")
