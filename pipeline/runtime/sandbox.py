"""The sandbox strangers' packages are installed and started in: bubblewrap, with limits.

Every command ``census probe-registry`` runs for a package (``npm install``, ``uv pip
install``, the server itself) runs as :func:`Sandbox.command` wraps it:

- ``prlimit`` sets its limits, inherited by every process it starts: data memory
  (``memory_mb``: heap and private mappings, ``RLIMIT_DATA``; not the address space, which V8
  reserves by the gigabyte for WebAssembly without using it), CPU seconds (``cpu_seconds``),
  size of one written file (``file_mb``);
- ``bwrap`` (bubblewrap, Debian's package ``bubblewrap``) gives it new user, PID, IPC, UTS and
  cgroup namespaces, and a network namespace with nothing but loopback unless ``network`` is
  asked for (installing only); ``--die-with-parent`` and the PID namespace end every process
  it started when the census lets it go (or dies);
- a filesystem of its own: the system's programs and libraries read-only (``/usr``, ``/bin``,
  ``/lib*``, the few files of ``/etc`` a program needs to run: no ``/etc/shadow``, no SSH
  keys), the interpreters it needs read-only, a fresh empty HOME and ``/tmp``, and, writable,
  only the folders named (the package's install folder while installing, none when running).
  The census's database, its caches, the caller's home folder and every other path are absent.

What it does not protect against: a kernel exploit (namespaces are not a virtual machine);
an install script with the network (installing reaches the package registry, and so can the
package's own install scripts, though they see only the install folder); a process tree
that together uses more memory than one process may (the limit is per process; a cgroup
would bound the tree); the CPU and time a server spends is bounded, its disk writes inside
its fresh HOME are not counted beyond the per-file limit.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import SettingsError

#: what the sandbox mounts read-only from the system (each only if it exists)
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: the files of /etc a program needs to run, resolve names and trust certificates
ETC_PATHS = ("/etc/alternatives", "/etc/ssl", "/etc/ca-certificates", "/etc/ca-certificates.conf",
             "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/passwd",
             "/etc/group", "/etc/nsswitch.conf", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf",
             "/etc/resolv.conf", "/etc/mime.types", "/etc/protocols", "/etc/services")
#: the caller's variables an install step keeps: where trusted certificates are (a machine behind
#: a TLS-inspecting proxy needs them), then its proxies; never a credential of the census
NETWORK_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
                     "PIP_CERT", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy")
#: the sandbox's home folder, inside
HOME = "/home/census"
#: environment variables for the sandbox's settings
ENV = {"bwrap": "CENSUS_BWRAP", "memory_mb": "CENSUS_PROBE_MEMORY_MB", "cpu_seconds": "CENSUS_PROBE_CPU_SECONDS",
       "file_mb": "CENSUS_PROBE_FILE_MB"}
MISSING = ("bubblewrap (bwrap) is not installed: census probe-registry starts strangers' packages only "
           "inside it; install Debian's package `bubblewrap` (apt-get install bubblewrap) or set {variable} "
           "to its path")


class SandboxError(SettingsError):
    """The sandbox cannot be made (no bwrap, no prlimit, a namespace refused); the message says why."""


@dataclass(frozen=True)
class Sandbox:
    """How a package's commands are confined; :meth:`from_env` reads the environment."""

    bwrap: str = "bwrap"
    """bubblewrap's executable (``CENSUS_BWRAP``)."""
    memory_mb: int = 4096
    """data memory of each process, MiB (``CENSUS_PROBE_MEMORY_MB``)."""
    cpu_seconds: int = 600
    """CPU seconds of each process (``CENSUS_PROBE_CPU_SECONDS``)."""
    file_mb: int = 2048
    """largest file a process may write, MiB (``CENSUS_PROBE_FILE_MB``)."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Sandbox:
        """The sandbox the environment sets; ``SettingsError`` naming a variable that is not a number."""
        environ = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for field, variable in ENV.items():
            text = environ.get(variable, "").strip()
            if not text:
                continue
            if field == "bwrap":
                values[field] = text
            elif text.isdigit() and int(text) > 0:
                values[field] = int(text)
            else:
                raise SettingsError(f"{variable}={text!r}: expected a whole number above 0")
        return cls(**values)  # type: ignore[arg-type]

    def check(self) -> list[str]:
        """The executables it needs, found; ``SandboxError`` when one is missing or bwrap cannot run."""
        bwrap = shutil.which(self.bwrap)
        if bwrap is None:
            raise SandboxError(MISSING.format(variable=ENV["bwrap"]))
        prlimit = shutil.which("prlimit")
        if prlimit is None:
            raise SandboxError("prlimit (util-linux) is not installed: the sandbox sets its limits with it")
        return [prlimit, bwrap]

    def command(self, command: Sequence[str], *, home: Path, readable: Iterable[Path] = (),
                writable: Iterable[Path] = (), network: bool = False, cwd: str = HOME) -> list[str]:
        """``command`` wrapped in the limits and namespaces of the module doc.

        ``home`` (a fresh folder of the caller's) is the sandbox's HOME; ``readable`` and
        ``writable`` folders appear at their own paths; ``network`` keeps the host's network.
        """
        prlimit, bwrap = self.check()
        limits = [prlimit, f"--data={self.memory_mb << 20}", f"--cpu={self.cpu_seconds}",
                  f"--fsize={self.file_mb << 20}", "--"]
        mounts: list[str] = []
        for system in SYSTEM_PATHS + ETC_PATHS:
            mounts += ["--ro-bind-try", system, system]
        for path in _outermost(readable, SYSTEM_PATHS + ETC_PATHS):
            mounts += ["--ro-bind", str(path), str(path)]
        for path in _outermost(writable):
            mounts += ["--bind", str(path), str(path)]
        namespaces = ["--unshare-all", *(["--share-net"] if network else []), "--die-with-parent", "--new-session"]
        return [*limits, bwrap, *namespaces, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                *mounts, "--bind", str(home), HOME, "--chdir", cwd, "--", *command]


def _outermost(paths: Iterable[Path], mounted: Sequence[str] = ()) -> list[Path]:
    """The paths that exist, resolved, each once, without those inside another of them or inside
    one of the ``mounted`` folders already shown."""
    found = sorted({p.resolve() for p in paths if p.exists()}, key=lambda p: len(p.parts))
    kept: list[Path] = []
    found = [p for p in found if not any(p.is_relative_to(m) for m in mounted)]
    for path in found:
        if not any(path.is_relative_to(outer) for outer in kept):
            kept.append(path)
    return kept


def environment(path: Sequence[str], extra: Mapping[str, str] | None = None, *,
                network: bool = False) -> dict[str, str]:
    """The whole environment of a sandboxed command: HOME, a PATH of ``path`` then the system's,
    a UTF-8 locale and ``extra`` (the variables given to a server); of the caller's, only the
    locations of trusted certificates and the proxies, and only for a step with the ``network``."""
    passed = {name: os.environ[name] for name in NETWORK_VARIABLES if network and os.environ.get(name)}
    return {**passed, "HOME": HOME, "TMPDIR": "/tmp", "PATH": ":".join([*path, "/usr/local/bin", "/usr/bin", "/bin"]),
            "LANG": "C.UTF-8", "USER": "census", "LOGNAME": "census", "SHELL": "/bin/sh", "TERM": "dumb",
            **(extra or {})}


def trusted_files() -> list[Path]:
    """The certificate files and folders the caller's trust variables name (shown to installs)."""
    return [Path(os.environ[name]) for name in NETWORK_VARIABLES[:6] if os.environ.get(name)]
