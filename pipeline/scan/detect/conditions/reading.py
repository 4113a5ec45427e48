"""Whether a condition's text reads the server's configuration: an environment variable, a
command-line flag, a settings field, a toolset or enabled list, or a read-only / write mode.

The text is read as its names, with string literals blanked (``name === "config"`` names no
setting). A name read at the root of an expression (``config.x``, ``readOnly``, ``"x" in
enabled_tools``) or as a member (``process.env``, ``os.environ``, ``this.settings``) counts when it
is spelled as configuration; a bare name that is not is looked up once in the file, where it is
assigned or bound by a loop (``const apiKey = process.env.API_KEY``; ``for ts in
settings.toolsets``). Anything else, ``x === undefined``, ``tools.length > 0``, ``__name__ ==
"__main__"``, a loop variable over a literal list, reads no configuration.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

#: a name (normalised: lower case, no ``_`` or ``$``) that is configuration wherever it stands
_ANYWHERE = ("toolset", "toolgroup", "featureflag", "allowlist", "denylist", "whitelist", "blacklist",
             "blocklist", "readonly", "writemode", "allowwrite", "writeenabled", "enablewrite",
             "writesenabled", "writeaccess", "safemode", "allowdangerous", "getenv", "lookupenv",
             "getenvironmentvariable")
#: a name ending so holds configuration (``config``, ``serverConfig``, ``os.environ``, ``args``)
_ENDINGS = ("config", "configuration", "cfg", "conf", "settings", "options", "opts", "prefs",
            "preferences", "flags", "args", "argv", "env", "environ", "environment", "features")
#: a root name starting so is a switch or an enabled-list (``enableSearch``, ``ENABLE_EXPORT``,
#: ``allowWrites``, ``enabledTools``); ending so, one too (``isEnabled``, ``searchEnabled``)
_SWITCH_STARTS = ("enable", "disable", "allow")
_SWITCH_ENDS = ("enabled", "disabled", "allowed")
#: root names that are configuration themselves (Go's ``flag`` package, viper, ...)
_ROOTS = frozenset({"flag", "cli", "viper"})
#: a hint's name is the tool's own annotation, not a setting (``t.annotations.readOnlyHint``);
#: a function's keyword arguments are no command line
_NOT = ("hint", "kwargs")

_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`(?:[^`\\]|\\.)*`')
_NAME = re.compile(r"(\?\.|\.|->|::)?\s*([$A-Za-z_][\w$]*)")

#: finds the value a name is given in a file: an assignment, a loop, a destructuring
Bindings = Callable[[str], Iterable[str]]


def blank_strings(text: str) -> str:
    """``text`` with the content of each string literal removed (``"config"`` -> ``""``)."""
    return _STRING.sub('""', text)


def names(text: str) -> list[tuple[str, bool]]:
    """The names ``text`` reads, each with whether it is a member (after ``.``, ``->``, ``::``)."""
    return [(m.group(2), m.group(1) is not None) for m in _NAME.finditer(blank_strings(text))
            if not m.group(2)[0].isdigit()]


def is_configuration(name: str, member: bool) -> bool:
    """Whether ``name`` (as a member or at the root of an expression) spells configuration."""
    word = name.lower().replace("_", "").replace("$", "")
    if any(part in word for part in _NOT):
        return False
    if any(part in word for part in _ANYWHERE) or word.endswith(_ENDINGS):
        return True
    return not member and (word in _ROOTS or word.startswith(_SWITCH_STARTS) or word.endswith(_SWITCH_ENDS))


def reads_configuration(text: str, bindings: Bindings | None = None) -> bool:
    """Whether the condition ``text`` reads configuration, its bare names looked up (one level)
    through ``bindings`` when they do not say so themselves."""
    read = names(text)
    if any(is_configuration(name, member) for name, member in read):
        return True
    if bindings is None:
        return False
    roots = dict.fromkeys(name for name, member in read if not member and name not in _KEYWORDS)
    return any(is_configuration(name, member) for root in roots for value in bindings(root)
               for name, member in names(value))


#: words of the languages that read as names
_KEYWORDS = frozenset({"not", "and", "or", "in", "is", "if", "else", "true", "false", "True", "False",
                       "None", "null", "nil", "undefined", "typeof", "instanceof", "new", "let", "var",
                       "const", "this", "self", "await", "of", "case", "default", "switch", "match",
                       "when", "unless", "then", "elif", "range", "len", "isset", "empty"})


#: a name given more values than this in one file is a local reused everywhere (``err``), not one setting
MOST_BINDINGS = 3
#: names that hold an error or a check's result, never a setting, however they are bound
_UNBOUND = frozenset({"err", "error", "e", "ex", "exc", "ok", "_"})


def binder(source: str) -> Bindings:
    """``Bindings`` over a file's text: what a name is assigned (``x = ...``, ``x := ...``, ``const
    x = ...``, ``{ x } = ...``) or the loop it is bound by (``for x of ...``, ``for _, x := range
    ...``, ``foreach (... as $x)``), each value to the end of its line; none for a name bound to
    more than ``MOST_BINDINGS`` values."""
    found: dict[str, list[str]] = {}
    lines = source.splitlines()

    def values(name: str) -> list[str]:
        if name in _UNBOUND:
            return []
        if name not in found:
            word = re.escape(name)
            edge = rf"(?<![\w$.]){word}(?![\w$])"
            patterns = (rf"{edge}\s*(?::\s*[^=\n;]{{1,60}}?)?\s*:?=(?![=>])\s*([^\n;]+)",
                        rf"\{{[^}}\n]*{edge}[^}}\n]*\}}\s*(?::[^=\n]+)?=\s*([^\n;]+)",
                        rf"\bfor\b[^\n]*?{edge}[^\n]*?(?:\bof\b|\bin\b|\brange\b|:)\s*([^\n]+)",
                        rf"\bforeach\s*\(\s*([^\n]+?)\s+as\b[^\n]*{edge}")
            holding = "\n".join(line for line in lines if name in line)
            bound = {m.group(1).strip() for pattern in patterns for m in re.finditer(pattern, holding)}
            found[name] = sorted(bound) if len(bound) <= MOST_BINDINGS else []
        return found[name]

    return values
