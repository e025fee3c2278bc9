"""`hindsight doctor`: run the checks and print a checklist (or JSON); exit 1 when any check
fails."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .options import JsonFlag, StoreOption

if TYPE_CHECKING:
    from ..doctor import Check

doctor_app = typer.Typer(
    name="doctor", invoke_without_command=True, no_args_is_help=False, rich_markup_mode=None
)
NoProbe = Annotated[bool, typer.Option("--no-probe", help="Skip the live MCP handshakes.")]
ProbeProject = Annotated[
    bool,
    typer.Option(
        "--probe-project",
        help="Also start the servers this checkout's own files name (.mcp.json, .cursor/mcp.json, "
        "…), and yours that run in it or name it: only in a repository you trust.",
    ),
]
FixFlag = Annotated[
    bool,
    typer.Option(
        "--fix",
        help="Apply the safe fixes: MCP client configs (backed up first), and hard forgets a "
        "crash interrupted.",
    ),
]
TimeoutOption = Annotated[
    float,
    typer.Option(
        "--timeout",
        min=0.1,
        metavar="SECONDS",
        help="How long each MCP server gets to answer each handshake step.",
    ),
]


def _report(checks: list[Check], json_: bool) -> None:
    from . import render

    if json_:
        render.json_doc(
            {
                "checks": [c.to_dict() for c in checks],
                "failed": sum(c.status == "fail" for c in checks),
            }
        )
    else:
        render.checklist(checks)
    if any(c.status == "fail" for c in checks):
        raise typer.Exit(1)


@doctor_app.callback(invoke_without_command=True)
def doctor(
    ctx: typer.Context,
    store: StoreOption = None,
    no_probe: NoProbe = False,
    probe_project: ProbeProject = False,
    fix: FixFlag = False,
    timeout: TimeoutOption = 10.0,
    json_: JsonFlag = False,
) -> None:
    """Check the store, MCP clients, Docker, WSL and Compose files.

    Every check reports ok, warn, fail or skip with what it saw and the fix. Nothing is changed
    unless --fix is given, and then only MCP client configs, each backed up first, and hard forgets
    a crash interrupted, which are finished.
    Docker and WSL problems fail only when something here needs them (a Compose file in the
    project, an MCP server run through docker or wsl); otherwise they are warnings.
    Exit code 1 when a check fails.

    \b
    Example:
        hindsight doctor
        hindsight doctor mcp --json
    """
    if ctx.invoked_subcommand is not None:
        return
    from ..doctor import (
        compose_checks,
        docker_checks,
        mcp_checks,
        needs,
        store_checks,
        windows_checks,
        wsl_checks,
    )
    from .hook_health import hook_checks

    here, home = Path.cwd(), Path.home()
    docker_needed = needs.docker(here, home)
    wsl_needed = needs.wsl(docker_needed, home, here)
    _report(
        [
            *store_checks.run(store, fix=fix),
            *mcp_checks.run(
                probe=not no_probe, fix=fix, timeout=timeout, probe_project=probe_project
            ),
            *needs.gate("wsl", wsl_needed, [*wsl_checks.run(), *windows_checks.run()]),
            *needs.gate("docker", docker_needed, docker_checks.run(required=bool(docker_needed))),
            *compose_checks.run(cwd=here, required=False),
            *hook_checks(store),
        ],
        json_,
    )


@doctor_app.command(name="store")
def store_(
    store: StoreOption = None,
    json_: JsonFlag = False,
    fix: Annotated[
        bool, typer.Option("--fix", help="Finish hard forgets a crash interrupted.")
    ] = False,
) -> None:
    """Check the store: location, permissions, interrupted purges, ledger, embedding model, index,
    disk.

    \b
    Example:
        hindsight doctor store --store ~/project/.hindsight
        hindsight doctor store --fix
    """
    from ..doctor import store_checks

    _report(store_checks.run(store, fix=fix), json_)


@doctor_app.command()
def mcp(
    no_probe: NoProbe = False,
    probe_project: ProbeProject = False,
    fix: FixFlag = False,
    timeout: TimeoutOption = 10.0,
    json_: JsonFlag = False,
) -> None:
    """Check every MCP client config on this machine, then handshake with each configured server.

    hindsight's entry is checked in detail. Every other stdio server is started as configured and
    sent initialize (a hung one is stopped after --timeout); an HTTP server only on a loopback URL.
    What this checkout's own files name (.mcp.json, .cursor/mcp.json, …), and a server of yours
    that runs in the checkout or names it (${workspaceFolder}), is started only with
    --probe-project: a repository you clone chooses what those run.
    --fix moves a hindsight entry to the key the client reads, makes a bare `hindsight` command
    absolute and raises a Codex start-up timeout below 20 s; each file is backed up first.

    \b
    Example:
        hindsight doctor mcp
        hindsight doctor mcp --fix
    """
    from ..doctor import mcp_checks

    _report(
        mcp_checks.run(probe=not no_probe, fix=fix, timeout=timeout, probe_project=probe_project),
        json_,
    )


@doctor_app.command(name="mine")
def mine_(store: StoreOption = None, json_: JsonFlag = False) -> None:
    """Check which coding agents' histories are on this machine, and how much of each the store has
    mined.

    \b
    Example:
        hindsight doctor mine --json
    """
    from ..doctor import mine_checks

    _report(mine_checks.run(store), json_)


@doctor_app.command()
def docker(json_: JsonFlag = False) -> None:
    """Check Docker: the CLI, the daemon (not running, socket permission, wrong context), Compose
    v2.

    Asked for by name, every problem is a failure, also where nothing here needs Docker.

    \b
    Example:
        hindsight doctor docker
    """
    from ..doctor import docker_checks

    _report(docker_checks.run(), json_)


@doctor_app.command()
def wsl(json_: JsonFlag = False) -> None:
    """Check WSL and Windows virtualization: WSL 1 or 2, default version, kernel, firmware,
    hypervisor, features.

    On Windows, or inside WSL, also reads systeminfo, the optional features (Virtual Machine
    Platform, WSL), the hypervisor launch setting, a VM without nested virtualization and an old
    VirtualBox.

    \b
    Example:
        hindsight doctor wsl
    """
    from ..doctor import windows_checks, wsl_checks

    _report([*wsl_checks.run(), *windows_checks.run()], json_)


@doctor_app.command()
def compose(
    file: Annotated[
        Path | None,
        typer.Argument(
            help="Compose file (default: the files Compose reads here: compose.yaml or "
            "docker-compose.yml and its override, or $COMPOSE_FILE).",
            show_default=False,
        ),
    ] = None,
    files: Annotated[
        list[Path] | None,
        typer.Option(
            "-f",
            "--file",
            help="A Compose file, as `docker compose -f`; repeat to merge several in order.",
            show_default=False,
        ),
    ] = None,
    json_: JsonFlag = False,
) -> None:
    """Check a Compose file for the mistakes that break a stack but pass schema linters.

    A service calling another through localhost, depends_on without a health condition, a database
    without a named volume, services on no shared network, expose written like a port mapping, host
    ports between services, ${VAR} with no value or default; and a hindsight MCP server over HTTP
    that listens on the container's loopback or serves a reachable port without tokens. Several
    files (an override, -f files, $COMPOSE_FILE) are merged as Compose merges them, by `docker
    compose config` when Docker answers.

    \b
    Example:
        hindsight doctor compose
        hindsight doctor compose deploy/docker-compose.yml --json
        hindsight doctor compose -f compose.yaml -f compose.prod.yaml
    """
    from ..doctor import compose_checks

    _report(compose_checks.run(file, files=files), json_)
