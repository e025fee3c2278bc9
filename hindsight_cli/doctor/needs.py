"""Whether anything here needs Docker or WSL, and the full doctor run's rule that follows from it.

hindsight itself needs neither: a local store is a directory. Docker is needed when the project has
a Compose file or an MCP client runs a server through ``docker``; WSL when a client runs a server
through ``wsl.exe``, or when Docker is needed on Windows or inside WSL (Docker Desktop runs on WSL
2). Where nothing needs them, their failures are reported as warnings, so `hindsight doctor` fails
only for what this machine actually uses.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from . import Check, ok, skip
from .command_lines import launched, program
from .compose_file import find_up
from .servers import configured
from .wsl_checks import inside_wsl

DOCKER_PROGRAMS = {"docker", "docker-compose"}


def docker(
    cwd: Path, home: Path, env: Mapping[str, str] | None = None, platform: str | None = None
) -> list[str]:
    """Why Docker is needed here (empty: it is not)."""
    reasons = []
    compose = find_up(cwd)
    if compose is not None:
        reasons.append(f"the project has {compose}")
    for server in configured(home, cwd, env=env, platform=platform):
        argv = launched(server.argv)
        argv = argv[1:] if argv[:1] == ["wsl"] else argv
        if not server.disabled and program(argv) in DOCKER_PROGRAMS:
            reasons.append(f"MCP server {server.name!r} of {server.where} runs {program(argv)}")
    return reasons


def wsl(
    docker_reasons: list[str],
    home: Path,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
    proc_version: Path = Path("/proc/version"),
) -> list[str]:
    """Why WSL (and Windows virtualization) is needed here (empty: it is not)."""
    platform = platform or sys.platform
    reasons = [
        f"MCP server {s.name!r} of {s.where} runs through wsl"
        for s in configured(home, cwd, env=env, platform=platform)
        if not s.disabled and launched(s.argv)[:1] == ["wsl"]
    ]
    if docker_reasons and (
        platform == "win32" or inside_wsl(proc_version, os.environ if env is None else env)
    ):
        reasons.append(f"Docker is needed ({docker_reasons[0]}) and Docker Desktop runs on WSL 2")
    return reasons


def gate(section: str, reasons: list[str], checks: list[Check]) -> list[Check]:
    """For the full run: keep failures when ``section`` is needed, else turn them into warnings and
    say why."""
    shown = {"docker": "Docker", "wsl": "WSL"}.get(section, section)
    if reasons:
        return [
            ok(
                f"{section}.needed",
                f"{shown} is needed here, so its problems are failures",
                "; ".join(reasons),
            ),
            *checks,
        ]
    relaxed = [replace(c, status="warn") if c.status == "fail" else c for c in checks]
    if relaxed == checks:
        return checks
    what = (
        "no Compose file in this project, no MCP server runs docker"
        if section == "docker"
        else "no MCP server runs through wsl, and Docker is not needed"
    )
    return [
        skip(
            f"{section}.needed", f"nothing here needs {shown}, so its problems are warnings", what
        ),
        *relaxed,
    ]
