"""Docker checks: the CLI, the daemon and Compose v2, each failure named by its cause.

Every fact comes from what ``docker --version``, ``docker version --format``, ``docker info`` and
``docker compose version`` print; a test fakes those programs. Their output differs between Docker
versions and between kinds of failure, so causes are recognised by patterns anywhere in stdout and
stderr, and the evidence is the line that names the cause, not the first line printed. One trap is
named explicitly: without the Compose plugin, an older docker CLI treats ``docker compose version
--short`` as its own ``docker version`` and answers ``unknown flag: --short``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from .. import safefs
from . import Check, fail, ok, skip, warn

_WSL_SHIM = "could not be found in this WSL 2 distro"
_WSL_FIX = (
    "Docker Desktop → Settings → Resources → WSL Integration: enable this distro, then `hash -r`"
)
_BARE_VERSION = re.compile(r"v?(\d+\.\d+(?:\.\d+)?[\w.+~-]*)")
_COMPOSE_VERSION = re.compile(
    r"^(?:Docker Compose|docker-compose) version:?\s+v?(\d+\.\d+[\w.+~-]*)", re.I | re.M
)
_SERVER_VERSION = re.compile(r"^\s*Server Version:\s*(\S+)", re.M)
# The Compose plugin is absent: docker says so, or ran its own `version` command instead.
_NO_PLUGIN = re.compile(
    r"unknown flag: --short|is not a docker command|unknown command|"
    r"Usage:\s+docker \[OPTIONS\]|docker version --help|^Client:",
    re.I | re.M,
)

# (pattern, summary, fix) for a daemon that does not answer, the most specific first.
_DAEMON_CAUSES = [
    (
        r"permission denied.*docker[^ ]*\.sock|docker[^ ]*\.sock.*permission denied",
        "permission denied on the Docker socket",
        "add yourself to the docker group: `sudo usermod -aG docker $USER`, then log out and in "
        "(or `newgrp docker`)",
    ),
    (_WSL_SHIM, "docker is Docker Desktop's WSL placeholder", _WSL_FIX),
    (
        r"pipe/(?:docker_engine|dockerDesktop\w*Engine)",
        "Docker Desktop's engine is not running",
        "start Docker Desktop and wait until it says the engine is running",
    ),
    (
        r"client version \S+ is too (?:new|old)|(?:maximum|minimum) supported API version",
        "the docker client and the daemon do not speak the same API version",
        "upgrade the older of the two, or set DOCKER_API_VERSION to the daemon's API version",
    ),
    (
        r"context \S+ (?:does not exist|not found)|failed to (?:load|resolve) (?:docker )?context|"
        r"current context .* is not found",
        "the current Docker context is broken",
        "`docker context use default`, or pick one from `docker context ls`",
    ),
    (r"Cannot connect to the Docker daemon|Is the docker daemon running", "down", ""),
    (r"connection refused|no such host|i/o timeout|no route to host|ssh: ", "remote", ""),
]


def _run(*args: str, timeout: float = 15) -> tuple[int, str, str]:
    try:
        done = subprocess.run(
            list(args),
            check=False,
            capture_output=True,
            text=True,
            timeout=timeout,
            encoding="utf-8",
            errors="replace",
        )
    except subprocess.TimeoutExpired:
        return 124, "", f"no answer within {timeout:g} s"
    except OSError as error:
        return 127, "", str(error)
    return done.returncode, done.stdout.strip(), done.stderr.strip()


def _line(text: str, pattern: str | re.Pattern[str] | None = None) -> str:
    """The line of ``text`` that matches ``pattern``, else its first non-empty line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if pattern is not None:
        regex = re.compile(pattern, re.I) if isinstance(pattern, str) else pattern
        lines = [line for line in lines if regex.search(line)] or lines
    return lines[0] if lines else ""


def run(required: bool = True) -> list[Check]:
    """``required``: asked for explicitly (a missing CLI fails) rather than as part of a full run
    (skip)."""
    docker = safefs.program("docker")
    if docker is None:
        if not required:
            return [skip("docker.cli", "Docker is not installed (not needed for local stores)")]
        return [
            fail(
                "docker.cli",
                "the docker command is not on PATH",
                os.environ.get("PATH", ""),
                "install Docker Desktop or Docker Engine, then open a new shell",
            )
        ]
    _, out, err = _run(docker, "--version")
    if _WSL_SHIM in out + err:
        return [
            fail(
                "docker.cli",
                "docker is Docker Desktop's WSL placeholder",
                _line(out + "\n" + err, _WSL_SHIM),
                _WSL_FIX,
            )
        ]
    return [
        ok("docker.cli", _line(out) or "docker is installed", docker),
        _daemon(docker),
        _compose(docker),
    ]


# --- the daemon
# -------------------------------------------------------------------------------------------


def _daemon(docker: str) -> Check:
    context = _line(_run(docker, "context", "show")[1]) or "default"
    host = os.environ.get("DOCKER_HOST")
    where = f"context {context}" + (f", DOCKER_HOST={host}" if host else "")
    code, out, err = _run(docker, "version", "--format", "{{.Server.Version}}")
    if code == 0 and _BARE_VERSION.fullmatch(out):
        return ok("docker.daemon", f"daemon {out} reachable", where)
    if code == 124:
        return fail(
            "docker.daemon",
            "the Docker daemon did not answer within 15 s",
            f"{where}: {err}",
            "Docker may still be starting, or hung: wait, or restart Docker Desktop / the docker "
            "service",
        )
    text = "\n".join(filter(None, [err, out]))
    for ask in (("info",), ("info", "--format", "{{json .}}")):
        if _cause(text) is not None:
            break
        # Nothing recognisable (an old client, a shim): `docker info`, then its JSON form, may say
        # more.
        version, said = _info(docker, *ask)
        if version:
            return ok("docker.daemon", f"daemon {version} reachable", where)
        text = "\n".join(filter(None, [text, said]))
    return _daemon_failure(text, code, context, where)


def _info(docker: str, *args: str) -> tuple[str | None, str]:
    """The daemon's version from `docker info` (text: ``Server Version:``; JSON: ``ServerVersion``,
    with ``ServerErrors`` when it failed), and what else it printed."""
    code, out, err = _run(docker, *args)
    found = _SERVER_VERSION.search(out)
    if code == 0 and found:
        return found.group(1), ""
    try:
        data = json.loads(out) if out.startswith("{") else {}
    except json.JSONDecodeError:
        data = {}
    if code == 0 and isinstance(data, dict) and data.get("ServerVersion"):
        return str(data["ServerVersion"]), ""
    errors = data.get("ServerErrors") if isinstance(data, dict) else None
    said = "\n".join(map(str, errors)) if isinstance(errors, list) else out
    return None, "\n".join(filter(None, [err, said]))


def _cause(text: str) -> tuple[str, str, str] | None:
    return next((cause for cause in _DAEMON_CAUSES if re.search(cause[0], text, re.I)), None)


def _daemon_failure(text: str, code: int, context: str, where: str) -> Check:
    cause = _cause(text)
    if cause is None:
        return fail(
            "docker.daemon",
            "the Docker daemon did not answer",
            f"{where}: {_line(text) or f'exit code {code}'}",
            "run `docker info` to see the full error",
        )
    pattern, summary, fix = cause
    evidence = _line(text, pattern)
    elsewhere = context != "default" or bool(os.environ.get("DOCKER_HOST"))
    if summary in ("down", "remote") and elsewhere:
        return fail(
            "docker.daemon",
            f"no daemon answers at the current context ({where})",
            evidence,
            "switch back with `docker context use default` or unset DOCKER_HOST, or start that "
            "daemon",
        )
    if summary == "remote":
        return fail(
            "docker.daemon",
            "the Docker host does not answer",
            f"{where}: {evidence}",
            "check DOCKER_HOST and the network, or `docker context use default`",
        )
    if summary == "down":
        return fail(
            "docker.daemon",
            "the Docker daemon is not running",
            evidence + _socket_note(evidence),
            "start Docker Desktop, or `sudo systemctl start docker`; with only the docker client "
            "installed, install Docker Engine or Docker Desktop",
        )
    return fail("docker.daemon", summary, evidence, fix)


def _socket_note(line: str) -> str:
    """Whether the unix socket docker tried exists: no socket means no daemon has ever started
    here."""
    found = re.search(r"unix://(/\S+?\.sock)", line)
    if found is None:
        return ""
    return (
        ""
        if Path(found.group(1)).exists()
        else f" (there is no {found.group(1)}: no daemon has started here)"
    )


# --- Compose
# ---------------------------------------------------------------------------------------------


def _compose_version(out: str) -> str | None:
    found = _COMPOSE_VERSION.search(out)
    if found:
        return found.group(1)
    bare = _BARE_VERSION.fullmatch(out.strip())
    return bare.group(1) if bare else None


def _compose(docker: str) -> Check:
    # (what was run, what it printed)
    said: list[tuple[str, str]] = []
    for args in (("compose", "version"), ("compose", "version", "--short")):
        code, out, err = _run(docker, *args)
        version = _compose_version(out)
        if code == 0 and version:
            return ok("docker.compose", f"Compose v{version.split('.')[0]} ({version})")
        said.append((f"docker {' '.join(args)}", "\n".join(filter(None, [err, out]))))
    legacy = _standalone()
    if legacy is not None:
        return legacy
    text = "\n".join(printed for _, printed in said)
    if _WSL_SHIM in text:
        return fail(
            "docker.compose",
            "docker compose is Docker Desktop's WSL placeholder",
            _line(text, _WSL_SHIM),
            _WSL_FIX,
        )
    if _NO_PLUGIN.search(text) or not text.strip():
        return fail(
            "docker.compose",
            "Docker Compose is not installed",
            _no_plugin_evidence(said),
            "install the Compose plugin (package docker-compose-plugin) or Docker Desktop",
        )
    command, printed = next(((c, p) for c, p in said if p.strip()), said[-1])
    return fail(
        "docker.compose",
        "the Compose plugin is installed but does not run",
        f"{command}: {_line(printed)}",
        "reinstall the Compose plugin (docker-compose-plugin) or Docker Desktop",
    )


def _no_plugin_evidence(said: list[tuple[str, str]]) -> str:
    for command, printed in said:
        line = _line(printed, r"unknown command|is not a docker command")
        if re.search(r"unknown command|is not a docker command", line, re.I):
            return f"docker has no compose plugin: {command}: {line}"
    for command, printed in said:
        if "unknown flag: --short" in printed:
            return (
                f"{command}: unknown flag: --short — docker has no compose plugin, so docker "
                f"itself "
                "parsed `version --short`"
            )
    command, printed = next(((c, p) for c, p in said if p.strip()), said[0])
    return (
        f"docker has no compose plugin: {command}: "
        f"{_line(printed, _NO_PLUGIN) or 'printed nothing'}"
    )


def _standalone() -> Check | None:
    legacy = safefs.program("docker-compose")
    if legacy is None:
        return None
    version = _compose_version(_run(legacy, "version", "--short")[1]) or _compose_version(
        _run(legacy, "version")[1]
    )
    if version is not None and version.startswith("1."):
        return warn(
            "docker.compose",
            f"only Compose v1 ({version}) is installed; it is end of life",
            legacy,
            "install the Compose v2 plugin (`docker compose`); v1 lacks healthcheck conditions",
        )
    if version is None:
        return None
    return ok("docker.compose", f"standalone Compose {version}", legacy)
