"""`hindsight doctor` on machines with a broken or partial Docker: the docker and wsl checks fail
only when something here needs them, and their evidence names the cause whatever the docker CLI
prints.

The fake `docker` prints, per command, what real docker CLIs print: 28.x (this machine's client, no
daemon, no Compose plugin, captured verbatim), 20.10 (which without the plugin runs its own `docker
version` for `docker compose version`), and healthy daemons and plugins.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_doctor import _command

from hindsight_cli import clients

pytestmark = pytest.mark.no_store

DOWN = (
    "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon "
    "running?"
)
CLIENT_28 = " Version:    28.2.2\n Context:    default\n Debug Mode: false"
# Each output: (stdout, stderr, exit code), by FAKE_<part> and the command line.
OUTPUTS = {
    ("daemon", "up", "version --format {{.Server.Version}}"): ("28.2.2", "", 0),
    ("daemon", "up", "info"): (
        f"Client:\n{CLIENT_28}\n\nServer:\n Containers: 0\n Server Version: 28.2.2",
        "",
        0,
    ),
    ("daemon", "down", "version --format {{.Server.Version}}"): ("", DOWN, 1),
    ("daemon", "down", "info"): (f"Client:\n{CLIENT_28}\n\nServer:", DOWN, 1),
    # An old client: no template answer, and `docker info` reports the error inside its own output.
    ("daemon", "old-down", "info"): (
        "Client:\n Debug Mode: false\n\nServer:\nERROR: " + DOWN + "\nerrors pretty printing info",
        "",
        1,
    ),
    ("daemon", "old-up", "info"): (
        "Client:\n Debug Mode: false\n\nServer:\n Server Version: 20.10.7",
        "",
        0,
    ),
    # A client that answers only the JSON form of `docker info`.
    ("daemon", "json-up", "info --format {{json .}}"): (
        '{"ID": "x", "ServerVersion": "27.5.1", "NCPU": 8}',
        "",
        0,
    ),
    ("daemon", "json-down", "info --format {{json .}}"): (
        '{"ServerErrors": ["' + DOWN + '"]}',
        "",
        1,
    ),
    ("daemon", "api", "version --format {{.Server.Version}}"): (
        "",
        "Error response from daemon: client version 1.50 is too new. Maximum supported API "
        "version is 1.43",
        1,
    ),
    ("compose", "v2", "compose version"): ("Docker Compose version v2.39.4", "", 0),
    ("compose", "v2", "compose version --short"): ("2.39.4", "", 0),
    ("compose", "missing", "compose version"): (
        "",
        "docker: unknown command: docker compose\n\nRun 'docker --help' for more information",
        1,
    ),
    ("compose", "missing", "compose version --short"): (
        "",
        "unknown flag: --short\n\nUsage:  docker [OPTIONS] "
        "COMMAND [ARG...]\n\nRun 'docker --help' for more information",
        125,
    ),
    ("compose", "missing-old", "compose version"): (
        "Client: Docker Engine - Community\n Version:           20.10.7\n API version:       1.41",
        DOWN,
        1,
    ),
    ("compose", "missing-old", "compose version --short"): (
        "",
        "unknown flag: --short\nSee 'docker version --help'.",
        125,
    ),
    ("compose", "broken", "compose version"): (
        "",
        "fork/exec /usr/libexec/docker/cli-plugins/docker-compose: exec format error",
        1,
    ),
}


@pytest.fixture
def docker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Installs the fake docker; docker(daemon=..., compose=...) picks what it prints."""
    bin_dir = tmp_path / "docker-bin"
    out = tmp_path / "docker-out"
    out.mkdir()
    _command(
        bin_dir,
        "docker",
        f"""#!/bin/sh
case "$*" in
  "--version") echo "Docker version 28.2.2, build e6534b4"; exit 0;;
  "context show") echo default; exit 0;;
  compose*) key="compose-$FAKE_COMPOSE";;
  *) key="daemon-$FAKE_DAEMON";;
esac
file="{out}/$key-$(echo "$*" | tr -c 'a-z0-9' _)"
[ -f "$file.out" ] || exit 0
cat "$file.out"; cat "$file.err" >&2; exit "$(cat "$file.rc")"
""",
    )
    for (part, state, args), (stdout, stderr, code) in OUTPUTS.items():
        # as the script's `tr` names it
        stem = out / f"{part}-{state}-{re.sub('[^a-z0-9]', '_', args + chr(10))}"
        stem.with_suffix(".out").write_text(stdout + "\n" if stdout else "")
        stem.with_suffix(".err").write_text(stderr + "\n" if stderr else "")
        stem.with_suffix(".rc").write_text(str(code))
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.delenv("DOCKER_HOST", raising=False)

    def choose(daemon: str = "up", compose: str = "v2") -> None:
        monkeypatch.setenv("FAKE_DAEMON", daemon)
        monkeypatch.setenv("FAKE_COMPOSE", compose)

    return choose


def _checks(result) -> dict[str, dict]:
    return {c["id"]: c for c in json.loads(result.stdout)["checks"]}


def _docker(checks: dict[str, dict]) -> dict[str, str]:
    return {k: c["status"] for k, c in checks.items() if k.startswith("docker.")}


def test_client_without_daemon_or_compose_is_a_warning_when_nothing_needs_docker(
    cli, docker, home
) -> None:
    docker(daemon="down", compose="missing")
    result = cli("doctor", "--no-probe", "--json", store=False)
    checks = _checks(result)
    assert result.exit_code == 0, result.stdout
    assert _docker(checks) == {
        "docker.needed": "skip",
        "docker.cli": "ok",
        "docker.daemon": "warn",
        "docker.compose": "warn",
    }
    assert (
        checks["docker.needed"]["evidence"]
        == "no Compose file in this project, no MCP server runs docker"
    )
    assert checks["docker.daemon"]["evidence"].startswith(DOWN)
    compose = checks["docker.compose"]
    assert compose["summary"] == "Docker Compose is not installed"
    assert compose["evidence"] == (
        "docker has no compose plugin: docker compose version: "
        "docker: unknown command: docker compose"
    )
    assert "docker-compose-plugin" in compose["fix"]


def test_the_same_machine_fails_when_asked_for_docker(cli, docker) -> None:
    docker(daemon="down", compose="missing")
    result = cli("doctor", "docker", store=False)
    assert result.exit_code == 1
    assert "fail docker.daemon: the Docker daemon is not running" in result.stdout
    assert "fail docker.compose: Docker Compose is not installed" in result.stdout
    assert "docker.needed" not in result.stdout


def test_an_old_client_without_the_plugin_is_not_reported_as_unknown_flag(cli, docker) -> None:
    # docker 20.10 answers `docker compose version` with its own version block (and the daemon's
    # error).
    docker(daemon="up", compose="missing-old")
    compose = _checks(cli("doctor", "docker", "--json", store=False))["docker.compose"]
    assert (compose["status"], compose["summary"]) == ("fail", "Docker Compose is not installed")
    assert compose["evidence"].startswith(
        "docker compose version --short: unknown flag: --short — docker has no compose plugin"
    )


def test_a_compose_plugin_that_does_not_run_is_told_apart(cli, docker) -> None:
    docker(daemon="up", compose="broken")
    compose = _checks(cli("doctor", "docker", "--json", store=False))["docker.compose"]
    assert compose["summary"] == "the Compose plugin is installed but does not run"
    assert "exec format error" in compose["evidence"]


@pytest.mark.parametrize(
    ("daemon", "status", "summary", "evidence"),
    [
        ("old-down", "fail", "the Docker daemon is not running", "ERROR: " + DOWN),
        ("old-up", "ok", "daemon 20.10.7 reachable", "context default"),
        ("json-up", "ok", "daemon 27.5.1 reachable", "context default"),
        ("json-down", "fail", "the Docker daemon is not running", DOWN),
        (
            "api",
            "fail",
            "the docker client and the daemon do not speak the same API version",
            "Maximum supported API version is 1.43",
        ),
    ],
)
def test_daemon_state_comes_from_docker_info_when_the_template_says_nothing(
    cli, docker, daemon, status, summary, evidence
) -> None:
    docker(daemon=daemon)
    check = _checks(cli("doctor", "docker", "--json", store=False))["docker.daemon"]
    assert (check["status"], check["summary"]) == (status, summary)
    assert evidence in check["evidence"]


def test_a_compose_file_in_the_project_makes_docker_needed(
    cli, docker, home, _isolated, monkeypatch
) -> None:
    docker(daemon="down", compose="missing")
    (_isolated / ".git").mkdir()
    (_isolated / "compose.yaml").write_text("services:\n  web:\n    image: nginx:1.27\n")
    sub = _isolated / "src" / "app"
    sub.mkdir(parents=True)
    # `docker compose` finds the file from a subdirectory of the checkout too
    for where in (_isolated, sub):
        monkeypatch.chdir(where)
        result = cli("doctor", "--no-probe", "--json", store=False)
        checks = _checks(result)
        assert result.exit_code == 1
        assert _docker(checks) == {
            "docker.needed": "ok",
            "docker.cli": "ok",
            "docker.daemon": "fail",
            "docker.compose": "fail",
        }
        assert (
            checks["docker.needed"]["evidence"] == f"the project has {_isolated / 'compose.yaml'}"
        )


def test_no_docker_at_all_fails_only_when_the_project_needs_it(
    cli, tmp_path, monkeypatch, home, _isolated
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    quiet = cli("doctor", "--no-probe", "--json", store=False)
    assert quiet.exit_code == 0 and _checks(quiet)["docker.cli"]["status"] == "skip"
    (_isolated / "docker-compose.yml").write_text("services:\n  web:\n    image: nginx:1.27\n")
    needed = cli("doctor", "--no-probe", store=False)
    assert needed.exit_code == 1
    assert "fail docker.cli: the docker command is not on PATH" in needed.stdout


@pytest.mark.parametrize(
    "entry",
    [
        {"command": "docker", "args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"]},
        {"command": "/usr/local/bin/docker", "args": ["run", "-i", "--rm", "mcp/fetch"]},
        {"command": "bash", "args": ["-c", "exec docker run -i --rm mcp/time"]},
        {
            "command": "C:\\Windows\\System32\\wsl.exe",
            "args": ["-d", "Ubuntu", "-e", "docker", "run", "-i", "mcp/x"],
        },
    ],
)
def test_a_docker_based_mcp_server_makes_docker_needed(cli, docker, home, _isolated, entry) -> None:
    docker(daemon="down", compose="v2")
    target = clients.targets("cursor", home, _isolated)["user"]
    target.path.parent.mkdir(parents=True)
    target.path.write_text(json.dumps({"mcpServers": {"github": entry}}))
    result = cli("doctor", "--no-probe", "--json", store=False)
    checks = _checks(result)
    assert result.exit_code == 1
    assert checks["docker.needed"]["evidence"].startswith(
        "MCP server 'github' of cursor (user) runs docker"
    )
    assert checks["docker.daemon"]["status"] == "fail"
    disabled = {"mcpServers": {"github": {**entry, "disabled": True}}}
    target.path.write_text(json.dumps(disabled))
    assert cli("doctor", "--no-probe", store=False).exit_code == 0


WSL_BROKEN = (
    '#!/bin/sh\necho "WSL2 is not supported with your current machine configuration. Please '
    "enable the "
    '\\"Virtual Machine Platform\\" optional component"\nexit 1\n'
)


def test_wsl_failures_are_warnings_unless_a_server_runs_through_wsl(
    cli, tmp_path, monkeypatch, home, _isolated
) -> None:
    bin_dir = tmp_path / "wsl-bin"
    _command(bin_dir, "wsl.exe", WSL_BROKEN)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    quiet = cli("doctor", "--no-probe", "--json", store=False)
    checks = _checks(quiet)
    assert quiet.exit_code == 0, quiet.stdout
    assert (checks["wsl.needed"]["status"], checks["wsl.default"]["status"]) == ("skip", "warn")
    assert "Virtual Machine Platform" in checks["wsl.default"]["summary"]
    # asked for by name
    assert cli("doctor", "wsl", store=False).exit_code == 1
    target = clients.targets("claude-desktop", home, _isolated)["user"]
    target.path.parent.mkdir(parents=True)
    target.path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "notes": {
                        "command": "C:\\Windows\\System32\\wsl.exe",
                        "args": ["-d", "Ubuntu", "-e", "/home/u/.local/bin/notes"],
                    }
                }
            }
        )
    )
    needed = cli("doctor", "--no-probe", "--json", store=False)
    assert needed.exit_code == 1
    assert (
        _checks(needed)["wsl.needed"]["evidence"]
        == "MCP server 'notes' of claude-desktop (user) runs through wsl"
    )
    assert _checks(needed)["wsl.default"]["status"] == "fail"
