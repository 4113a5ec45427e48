"""The names a file binds to other packages (``import Stripe from "stripe"``, ``import boto3``,
``"github.com/google/go-github/v66/github"``): a method called on one of them, or on an object
made from one, is a service's, read by its verb (``classify.by_verb``)."""

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
#: receivers named like a remote client (``this.client``, ``self._api``, ``octokit``, ``s3``)
CLIENTISH = re.compile(r"(?i)^_*(?:\w*(?:client|api|sdk|service|svc|octokit|github|gitlab|stripe|slack|notion|"
                       r"jira|confluence|linear|kube|clientset|k8s|aws|s3|ec2|dynamo|gcs|bucket|storage|firestore|"
                       r"collection|coll|pinecone|elastic|redis|mongo|supabase|firebase|twilio|sendgrid|openai|"
                       r"anthropic|wallet|signer|contract|web3|ethers|viem|provider|gateway|connector|conn|"
                       r"connection|session|db|database|repo|repository)\w*|es|gh|sdk)$")


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
    ``from subprocess import run as sh``): local name -> the package's name."""
    return file.kept("effects-aliases", lambda: {
        m.group(2).decode(): m.group(1).decode()
        for m in re.finditer(rb"\b([\w$]+)\s+as\s+([\w$]+)", file.data[:65536])
        if m.group(1) != m.group(2) and m.group(1) not in (b"import", b"type", b"const", b"with")})


def _listed(group: bytes | None) -> list[str]:
    if not group:
        return []
    parts = [p.strip().split(" as ")[-1].strip() for p in group.decode("utf-8", "replace").split(",")]
    return [p.removeprefix("type ").strip() for p in parts if p and p.replace("$", "_").isidentifier()]


def made_from(file: SourceFile, name: str, externals: frozenset[str], depth: int = 2) -> bool:
    """Whether ``name`` is assigned an object made by an imported package
    (``client = new Octokit(...)``, ``self.s3 = boto3.client("s3")``)."""
    if not name.replace("$", "_").isidentifier():
        return False
    pattern = re.compile(rb"\b" + re.escape(name.encode()) + rb"\s*(?::[^=\n]{0,60})?=\s*(?:await\s+)?"
                         rb"(?:new\s+([\w$]+)|(?:this\.|self\.)?([\w$]+)(?:\.\w+)*\()")
    for m in pattern.finditer(file.data):
        made = (m.group(1) or m.group(2)).decode()
        if made in externals or CLIENTISH.match(made) or (depth > 1 and made != name and
                                                            made_from(file, made, externals, depth - 1)):
            return True
    typed = re.compile(rb"\b" + re.escape(name.encode()) + rb"(?:\s*\??:\s*|\s+\*?)([\w$]+)(?:\.([\w$]+))?")
    go = language_of(file.path) == "go"  # lara: Translator; in Go only a client type (c *github.Client)
    return any(m.group(1).decode() in externals and (not go or CLIENTISH.match((m.group(2) or m.group(1)).decode()))
               for m in typed.finditer(file.data))
