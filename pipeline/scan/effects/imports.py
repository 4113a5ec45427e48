"""The names a file binds to other packages (``import Stripe from "stripe"``, ``import boto3``,
``"github.com/google/go-github/v66/github"``): a method called on one of them, or on an object
made from one, is a service's, read by its verb (``services.by_verb``)."""

from __future__ import annotations

import re
import sys

from pipeline.scan.detect.source import SourceFile, language_of

_TS = re.compile(rb"""import\s+(?:type\s+)?([\w$]+)?\s*,?\s*(?:\{([^}]*)\})?\s*(?:\*\s*as\s+([\w$]+))?\s*"""
                 rb"""from\s*['"]([^'"]+)['"]"""
                 rb"""|(?:const|let|var)\s+(?:([\w$]+)|\{([^}]*)\})\s*=\s*require\(\s*['"]([^'"]+)['"]""")
_PY = re.compile(rb"^[ \t]*(?:import\s+([\w.]+)(?:\s+as\s+(\w+))?|from\s+([\w.]+)\s+import\s+\(?([^)\n]+))", re.M)
_GO = re.compile(rb'(?:^|\n|\()\s*(\w+\s+)?"([\w.\-/]+)"')
_OWN_TS = (".", "/", "@/", "~/", "src/", "#", "node:")
#: Node's own modules: they hold no remote service (http and https are read as HTTP clients)
_NODE = frozenset({"assert", "async_hooks", "buffer", "child_process", "cluster", "crypto", "dgram", "dns",
                   "events", "fs", "fs/promises", "module", "net", "os", "path", "perf_hooks", "process",
                   "querystring", "readline", "stream", "string_decoder", "timers", "tls", "tty", "url",
                   "util", "v8", "vm", "worker_threads", "zlib"})
#: receivers named like a remote client (``this.client``, ``self._api``, ``octokit``, ``s3``): the
#: client word ends the name (``knowledgeClient``, not ``clientRefreshPromises``)
CLIENTISH = re.compile(r"(?i)^_*(?:\w*(?:client|api|sdk|service|svc|octokit|github|gitlab|stripe|slack|notion|"
                       r"jira|confluence|linear|kube|clientset|k8s|aws|s3|ec2|dynamo|gcs|bucket|storage|firestore|"
                       r"collection|coll|pinecone|elastic|redis|mongo|supabase|firebase|twilio|sendgrid|openai|"
                       r"anthropic|wallet|signer|contract|web3|ethers|viem|provider|gateway|connector|conn|"
                       r"connection|session|db|database|repo|repository)(?:s|_?v?\d+)?|es|gh|sdk)$")


#: names of the language's own library that a call is made on (``JSON.parse``, ``path.join``,
#: ``strings.Split``): such a call never runs the repository's code, whatever its method's name
_GLOBALS_TS = _NODE | {"console", "JSON", "Math", "Object", "Array", "Promise", "Date", "String", "Number", "Reflect",
                       "Buffer", "Symbol", "Intl", "URL", "URLSearchParams", "Error", "Boolean", "RegExp"}
_STD_GO = frozenset({"fmt", "strings", "strconv", "json", "time", "errors", "context", "sync", "sort", "bytes",
                     "filepath", "path", "url", "log", "io", "bufio", "regexp", "math", "rand", "base64", "hex",
                     "utf8", "slices", "maps", "atomic", "slog", "unicode"})
_STD_RUST = frozenset({"std", "core", "alloc", "String", "Vec", "Option", "Result", "Box", "Arc", "Rc", "format",
                       "serde_json", "HashMap", "HashSet", "BTreeMap", "Path", "PathBuf"})


def library_root(language: str, root: str) -> bool:
    """Whether ``root`` (the first name of a call's receiver) is the language's own library."""
    if language == "python":
        return root in sys.stdlib_module_names and root not in ("os", "shutil", "subprocess", "sqlite3")
    return root in {"typescript": _GLOBALS_TS, "go": _STD_GO, "rust": _STD_RUST}.get(language, frozenset())


def external_names(file: SourceFile) -> frozenset[str]:
    """The names ``file`` binds to another package than the repository's own."""
    return file.kept("effects-imports", lambda: _external(file))


def _external(file: SourceFile) -> frozenset[str]:  # noqa: PLR0912
    language, data, names = language_of(file.path), file.data, set()
    if language == "typescript":
        for m in _TS.finditer(data):
            module = (m.group(4) or m.group(7) or b"").decode("utf-8", "replace")
            if module.startswith(_OWN_TS) or module in _NODE:
                continue
            for group in (1, 3, 5):
                if m.group(group):
                    names.add(m.group(group).decode())
            for group in (2, 6):
                names.update(_listed(m.group(group)))
    elif language == "python":
        for m in _PY.finditer(data):
            module = (m.group(1) or m.group(3) or b"").decode("utf-8", "replace")
            if module.startswith(".") or module.split(".")[0] in sys.stdlib_module_names:
                continue
            if m.group(1):
                names.add((m.group(2) or m.group(1)).decode().split(".")[0])
            else:
                names.update(_listed(m.group(4)))
    elif language == "go":
        for m in _GO.finditer(data):
            path = m.group(2).decode("utf-8", "replace")
            if "." in path.split("/")[0]:
                names.add((m.group(1) or path.rsplit("/", 1)[-1].encode()).decode().strip())
    return frozenset(n for n in names if n)


def aliases(file: SourceFile) -> dict[str, str]:
    """Names imported under another name (``import { fetch as undiciFetch }``,
    ``from subprocess import run as sh``, ``import requests as rq``): local name -> the package's
    name; read from the import statements only (``x as unknown`` is a cast, not an alias)."""
    return file.kept("effects-aliases", lambda: _aliases(file))


def _aliases(file: SourceFile) -> dict[str, str]:
    language, found = language_of(file.path), {}
    pattern, groups = {"typescript": (_TS, (2, 6)), "python": (_PY, (4,))}.get(language or "", (None, ()))
    for m in pattern.finditer(file.data) if pattern is not None else ():
        if language == "python" and m.group(2):
            found[m.group(2).decode()] = m.group(1).decode()
        for group in groups:
            for part in (m.group(group) or b"").decode("utf-8", "replace").split(","):
                original, _, local = part.strip().removeprefix("type ").partition(" as ")
                if local.strip() and local.strip() != original.strip():
                    found[local.strip()] = original.strip()
    return found


def _listed(group: bytes | None) -> list[str]:
    if not group:
        return []
    parts = [p.strip().split(" as ")[-1].strip() for p in group.decode("utf-8", "replace").split(",")]
    return [p.removeprefix("type ").strip() for p in parts if p and p.replace("$", "_").isidentifier()]


def made_from(file: SourceFile, name: str, externals: frozenset[str], depth: int = 2) -> bool:
    """Whether ``name`` is assigned an object made by an imported package
    (``client = new Octokit(...)``, ``self.s3 = boto3.client("s3")``, one made from such an object),
    or typed with one (``lara: Translator``; in Go only a client type, ``c *github.Client``)."""
    made, typed = _bindings(file, name)
    for source in made:
        if source in externals or CLIENTISH.match(source) or (
                depth > 1 and source != name and made_from(file, source, externals, depth - 1)):
            return True
    go = language_of(file.path) == "go"
    return any(package in externals and (not go or CLIENTISH.match(kind)) for package, kind in typed)


#: after a name: ``= new A(``, ``= a.b(`` (made by ``A``, ``a``); ``: A``, ``: a.B``, Go's `` *a.B`` (typed)
_MADE = re.compile(rb"\s*(?::[^=\n]{0,60})?(?<![=!<>])=(?!=)\s*(?:await\s+)?"
                   rb"(?:new\s+([\w$]+)|(?:this\.|self\.)?([\w$]+)(?:\.\w+)*\()")
_TYPED = re.compile(rb"\s*\??:\s*([\w$]+)(?:\.([\w$]+))?|[ \t]+\*?([\w$]+)\.([\w$]+)")
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")


def _bindings(file: SourceFile, name: str) -> tuple[set[str], set[tuple[str, str]]]:
    """``name``'s makers (``x = new A()``, ``x = a.b()``: ``A``, ``a``) and types (package, type):
    each place the name is written (a plain text search) is read on from its end."""
    def read() -> tuple[set[str], set[tuple[str, str]]]:
        made: set[str] = set()
        typed: set[tuple[str, str]] = set()
        data, word = file.data, name.encode()
        at = data.find(word)
        while at >= 0:
            end = at + len(word)
            before = data[at - 1] if at else 0
            if before not in _WORD and (end >= len(data) or data[end] not in _WORD):
                if (m := _MADE.match(data, end)) is not None:
                    made.add((m.group(1) or m.group(2)).decode())
                if before != ord(".") and (m := _TYPED.match(data, end)) is not None:
                    package, kind = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
                    typed.add((package.decode(), (kind or package).decode()))
            at = data.find(word, end)
        return made, typed
    return file.kept(f"effects-bindings:{name}", read)
