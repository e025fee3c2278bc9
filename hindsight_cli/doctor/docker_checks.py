"""Docker checks: the CLI, the daemon (telling apart "not running", "permission denied on the socket"
and a wrong context), and Compose v2. Every fact comes from command output a test can fake."""

from __future__ import annotations

import os
import shutil
import subprocess

from . import Check, fail, ok, skip, warn

_WSL_SHIM = "could not be found in this WSL 2 distro"


def _run(*args: str, timeout: float = 15) -> tuple[int, str, str]:
    try:
        done = subprocess.run(list(args), check=False, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "", f"no answer within {timeout:g} s"
    except OSError as error:
        return 127, "", str(error)
    return done.returncode, done.stdout.strip(), done.stderr.strip()


def run(required: bool = True) -> list[Check]:
    """``required``: asked for explicitly (a missing CLI fails) rather than as part of a full run (skip)."""
    docker = shutil.which("docker")
    if docker is None:
        if not required:
            return [skip("docker.cli", "Docker is not installed (not needed for local stores)")]
        return [fail("docker.cli", "the docker command is not on PATH", os.environ.get("PATH", ""),
                     "install Docker Desktop or Docker Engine, then open a new shell")]
    _, out, err = _run(docker, "--version")
    if _WSL_SHIM in out + err:
        return [fail("docker.cli", "docker is Docker Desktop's WSL placeholder", (out or err).splitlines()[0],
                     "Docker Desktop → Settings → Resources → WSL Integration: enable this distro, then `hash -r`")]
    checks = [ok("docker.cli", out or "docker is installed", docker)]
    checks.append(_daemon(docker))
    checks.append(_compose(docker))
    return checks


def _daemon(docker: str) -> Check:
    code, out, err = _run(docker, "version", "--format", "{{.Server.Version}}")
    context = _run(docker, "context", "show")[1] or "default"
    where = f"context {context}" + (f", DOCKER_HOST={os.environ['DOCKER_HOST']}" if os.environ.get("DOCKER_HOST") else "")
    if code == 0 and out:
        return ok("docker.daemon", f"daemon {out} reachable", where)
    text = err or out
    first = text.splitlines()[0] if text else f"exit code {code}"
    if "permission denied" in text and "docker.sock" in text:
        return fail("docker.daemon", "permission denied on the Docker socket", first,
                    "add yourself to the docker group: `sudo usermod -aG docker $USER`, then log out and in "
                    "(or `newgrp docker`)")
    if "Cannot connect to the Docker daemon" in text:
        if context != "default" or os.environ.get("DOCKER_HOST"):
            return fail("docker.daemon", f"no daemon answers at the current context ({where})", first,
                        "switch back with `docker context use default` or unset DOCKER_HOST, or start that daemon")
        return fail("docker.daemon", "the Docker daemon is not running", first,
                    "start Docker Desktop, or `sudo systemctl start docker`")
    if "docker_engine" in text or "dockerDesktopLinuxEngine" in text:
        return fail("docker.daemon", "Docker Desktop's engine is not running", first,
                    "start Docker Desktop and wait until it says the engine is running")
    return fail("docker.daemon", "the Docker daemon did not answer", f"{where}: {first}",
                "run `docker info` to see the full error")


def _compose(docker: str) -> Check:
    code, out, err = _run(docker, "compose", "version", "--short")
    if code == 0 and out:
        return ok("docker.compose", f"Compose v2 ({out})")
    legacy = shutil.which("docker-compose")
    if legacy:
        version = _run(legacy, "version", "--short")[1]
        if version.startswith("1."):
            return warn("docker.compose", f"only Compose v1 ({version}) is installed; it is end of life",
                        legacy, "install the Compose v2 plugin (`docker compose`); v1 lacks healthcheck conditions")
        return ok("docker.compose", f"standalone Compose {version or 'v2'}", legacy)
    return fail("docker.compose", "Docker Compose is not installed", err.splitlines()[0] if err else "",
                "install the Compose plugin (docker-compose-plugin) or Docker Desktop")
