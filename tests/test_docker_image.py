"""The Docker image, read statically (no Docker engine here): ENTRYPOINT ``hindsight`` with the
server's arguments as CMD, OCI labels from pyproject, a HEALTHCHECK that is a real CLI command
(run against a real HTTP server), and Compose files and docs that give arguments, never
``hindsight`` twice."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import typer
import yaml

from hindsight_cli.cli import app
from hindsight_cli.doctor.dockerfile import parse
from tests.mcp_http import free_port, listening, wait_for

ROOT = Path(__file__).resolve().parents[1]
IMAGE = parse((ROOT / "Dockerfile").read_text())
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
COMPOSE_FILES = ("docker-compose.yml", "docker-compose.team.yml")


def test_the_entrypoint_is_hindsight_and_the_cmd_the_servers_arguments_the_docs_give() -> None:
    docs = (ROOT / "docs" / "docker.md").read_text()
    given = re.search(r"with no arguments\s+the image starts\s+`([^`]+)`", docs)
    assert given, "docs/docker.md no longer says what the image starts"
    assert IMAGE.entrypoint == ["hindsight"]
    assert IMAGE.cmd and IMAGE.cmd[0] == "mcp"
    assert [*IMAGE.entrypoint, *IMAGE.cmd] == shlex.split(given.group(1))


def test_the_oci_labels_come_from_pyproject() -> None:
    labels = {
        key.removeprefix("org.opencontainers.image."): value
        for key, value in IMAGE.labels.items()
        if key.startswith("org.opencontainers.image.")
    }
    assert set(labels) == {"title", "description", "version", "licenses", "source"}
    assert labels["version"] == PROJECT["version"]
    assert labels["licenses"] == PROJECT["license"]["text"]
    assert labels["title"] == "hindsight"


def _health(port: int) -> subprocess.CompletedProcess[str]:
    """The image's HEALTHCHECK command, with the test server's port, run by this environment's
    ``hindsight``."""
    assert IMAGE.healthcheck and IMAGE.healthcheck[0] == "hindsight"
    argv = list(IMAGE.healthcheck)
    argv[argv.index("--port") + 1] = str(port)
    program = Path(sys.executable).with_name("hindsight")
    return subprocess.run([str(program), *argv[1:]], capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_the_healthcheck_passes_against_a_real_server_with_tokens_and_fails_without_one(
    tmp_path: Path,
) -> None:
    port = free_port()
    store = tmp_path / "store"
    env = {**os.environ, "HINDSIGHT_HOME": str(tmp_path / "home"), "HINDSIGHT_STORE": str(store)}
    nothing = _health(port)
    assert nothing.returncode == 1 and nothing.stdout == ""
    assert nothing.stderr.strip() == (
        f"Error: Nothing answers at http://127.0.0.1:{port}/mcp ([Errno 111] Connection "
        f"refused); is `hindsight mcp --transport http --port {port}` running?"
    )
    hindsight = [sys.executable, "-m", "hindsight_cli"]
    made = subprocess.run(
        [*hindsight, "mcp", "token", "probe"], env=env, capture_output=True, text=True
    )
    assert made.returncode == 0, made.stderr
    server = subprocess.Popen(
        # the image's CMD on this machine: tokens as in the image, loopback and a free port
        [*hindsight, "mcp", "--transport", "http", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: listening(port) or server.poll() is not None, "the server to listen")
        assert server.poll() is None, server.stderr.read() if server.stderr else ""
        healthy = _health(port)
        # no token: 401, which proves the server is up
        assert healthy.returncode == 0, healthy.stderr
        assert healthy.stderr.strip() == (
            f"The MCP server at http://127.0.0.1:{port}/mcp answers (HTTP 401)."
        )
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_compose_healthchecks_are_the_images() -> None:
    for name in COMPOSE_FILES:
        service = yaml.safe_load((ROOT / name).read_text())["services"]["hindsight"]
        assert service["healthcheck"]["test"] == ["CMD", *(IMAGE.healthcheck or [])], name
        # the image's CMD, or arguments only
        assert not str(service.get("command", "mcp")).lstrip("[ '\"").startswith("hindsight")


def _documented_runs() -> list[tuple[str, list[str]]]:
    """Every ``docker compose … run … hindsight ARGS`` and ``docker run … IMAGE ARGS`` the docs,
    the Compose files and the Dockerfile show."""
    sources = [ROOT / "Dockerfile", *(ROOT / n for n in COMPOSE_FILES), ROOT / "README.md"]
    sources += sorted((ROOT / "docs").glob("*.md"))
    found = []
    pattern = re.compile(
        r"docker compose (?:-f \S+ )?run (?:--rm |--no-deps )*hindsight ([^`#\n]+)"
        r"|docker run --rm (?:-v \S+ )*hindsight-cli:\S+ ([^`#\n]+)"
    )
    for path in sources:
        for match in pattern.finditer(path.read_text()):
            args = shlex.split(match.group(1) or match.group(2))
            # `… hindsight ARGS` names no command
            if args != ["ARGS"]:
                found.append((path.name, args))
    return found


def test_every_documented_docker_run_gives_a_real_command_not_hindsight_twice() -> None:
    runs = _documented_runs()
    assert len(runs) >= 5
    commands = set(typer.main.get_group(app).commands)
    for where, args in runs:
        assert args[0] in commands, (where, args)


def test_the_docs_compose_commands_are_arguments() -> None:
    docs = (ROOT / "docs" / "docker.md").read_text() + (ROOT / "docs" / "team.md").read_text()
    lines = re.findall(r"^\s*command: (.+)$", docs, re.MULTILINE)
    assert lines
    for line in lines:
        words = yaml.safe_load(line)
        words = words if isinstance(words, list) else shlex.split(words)
        assert words[0] == "mcp", line


def _service_building_the_image(tmp_path: Path, command: str) -> Path:
    (tmp_path / "Dockerfile").write_text((ROOT / "Dockerfile").read_text())
    path = tmp_path / "compose.yaml"
    path.write_text(
        "services:\n  memory:\n    build: .\n    volumes: ['data:/data']\n"
        f"    ports: ['127.0.0.1:8765:8765']\n{command}volumes:\n  data: {{}}\n"
    )
    return path


@pytest.mark.parametrize(
    ("command", "expected", "fix"),
    [
        # the image as it is: nothing to say
        ("", [], ""),
        # arguments without tokens: the token command is the image's `run SERVICE mcp token`
        (
            "    command: [mcp, --transport, http, --host, 0.0.0.0]\n",
            [("compose.mcp-tokens", "fail")],
            "`docker compose run --rm memory mcp token AGENT` (it writes "
            "/data/store/mcp-tokens.json on the volume)",
        ),
        # a command written for an image without the entrypoint
        (
            "    command: [hindsight, mcp, --transport, http, --host, 0.0.0.0, --tokens, "
            "/data/store/mcp-tokens.json]\n",
            [("compose.mcp-command", "fail")],
            'drop the first `hindsight` from command: (command: ["mcp", "--transport", …])',
        ),
        (
            "    command: hindsight stats\n",
            [("compose.mcp-command", "fail")],
            "drop the first `hindsight`",
        ),
    ],
)
def test_doctor_compose_reads_the_images_entrypoint(cli, tmp_path, command, expected, fix) -> None:
    result = cli(
        "doctor",
        "compose",
        str(_service_building_the_image(tmp_path, command)),
        "--json",
        store=False,
    )
    findings = [c for c in json.loads(result.stdout)["checks"] if c["status"] in ("warn", "fail")]
    assert [(f["id"], f["status"]) for f in findings] == expected
    if expected:
        assert fix in findings[0]["fix"]
        assert result.exit_code == 1
