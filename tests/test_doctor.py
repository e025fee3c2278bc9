"""`hindsight doctor store|mcp` against stores, fake homes and fake servers that the tests
create."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from hindsight_cli import clients
from hindsight_cli.doctor import mcp_checks


def _command(bin_dir: Path, name: str, script: str) -> Path:
    """A fake executable (a shell script) that tests put first on PATH."""
    bin_dir.mkdir(exist_ok=True)
    path = bin_dir / name
    path.write_text(script)
    path.chmod(0o755)
    return path


def _by_id(result) -> dict:
    return {c["id"]: c for c in json.loads(result.stdout)["checks"]}


def test_doctor_store_healthy_missing_and_mismatched(
    cli, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = cli("doctor", "store", "--json")
    assert missing.exit_code == 0 and _by_id(missing)["store.exists"]["status"] == "warn"
    cli("record", "a memory so the store exists")
    healthy = _by_id(cli("doctor", "store", "--json"))
    checked = (
        ("store.permissions", "store.disk")
        if backend == "local"
        else ("store.database", "store.pgvector", "store.index")
    )
    assert {healthy[k]["status"] for k in ("store.ledger", "store.model", *checked)} == {"ok"}
    assert healthy["store.ledger"]["summary"] == "ledger holds 1 memory"
    if backend == "local":
        cli.store_path.chmod(0o755)
        loose = _by_id(cli("doctor", "store", "--json"))
        assert (
            loose["store.permissions"]["status"] == "warn"
            and "chmod 700" in loose["store.permissions"]["fix"]
        )
    monkeypatch.setenv("HINDSIGHT_EMBEDDING_MODEL", "BAAI/bge-small-en-v1.5")
    mismatch = cli("doctor", "store")
    assert mismatch.exit_code == 1
    assert "fail store.model: configured embedding model differs" in mismatch.stdout
    assert "hindsight reindex" in mismatch.stdout


def _write(target: clients.Target, text: str) -> None:
    target.path.parent.mkdir(parents=True, exist_ok=True)
    target.path.write_text(text)


def test_doctor_mcp_finds_config_mistakes(cli, home, _isolated) -> None:
    assert _by_id(cli("doctor", "mcp", "--json", store=False))["mcp.configs"]["status"] == "skip"
    cursor = clients.targets("cursor", home, _isolated)["user"]
    _write(cursor, "{broken")
    vscode = clients.targets("vscode", home, _isolated)["project"]
    _write(vscode, json.dumps({"mcpServers": {"hindsight": {"command": "/x"}}}))
    gemini = clients.targets("gemini", home, _isolated)["user"]
    _write(
        gemini, json.dumps({"mcpServers": {"hindsight": {"command": "hindsight", "args": ["mcp"]}}})
    )
    codex = clients.targets("codex", home, _isolated)["user"]
    _write(codex, 'mcp_servers = { hindsight = "not a table" }\n')
    windsurf = clients.targets("windsurf", home, _isolated)["user"]
    _write(
        windsurf,
        json.dumps({"mcpServers": {"hindsight": {"command": str(home / "gone"), "args": []}}}),
    )
    result = cli("doctor", "mcp", "--no-probe", "--json", store=False)
    assert result.exit_code == 1
    checks = _by_id(result)
    assert checks["mcp.cursor.user.parse"]["status"] == "fail"
    assert "line 1" in checks["mcp.cursor.user.parse"]["evidence"]
    assert (
        checks["mcp.vscode.project.key"]["status"] == "fail"
        and "'servers'" in checks["mcp.vscode.project.key"]["fix"]
    )
    assert checks["mcp.gemini.user.command"]["summary"] == "the command is not an absolute path"
    assert (
        checks["mcp.windsurf.user.command"]["summary"]
        == "the command does not exist or is not executable"
    )
    assert checks["mcp.codex.user.entry"]["summary"] == "the hindsight entry is not an object"


@pytest.mark.slow
def test_doctor_mcp_handshakes_with_an_installed_entry(cli, home, _isolated) -> None:
    assert (
        cli(
            "mcp",
            "install",
            "--client",
            "claude-code",
            "--scope",
            "user",
            "--store",
            str(_isolated / "s"),
            store=False,
        ).exit_code
        == 0
    )
    result = cli("doctor", "mcp", "--json", store=False)
    checks = _by_id(result)
    assert result.exit_code == 0, result.stdout
    assert checks["mcp.claude-code.user.store"]["status"] == "ok"
    handshake = checks["mcp.claude-code.user.handshake"]
    assert handshake["status"] == "ok" and "lists memory_search" in handshake["summary"]


def _script(tmp_path: Path, name: str, body: str) -> list[str]:
    path = tmp_path / name
    path.write_text(body)
    return [sys.executable, str(path)]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("body", "outcome", "evidence"),
    [
        (
            "print('Starting my server v1', flush=True)\nimport time; time.sleep(30)\n",
            "polluted",
            "Starting my server",
        ),
        (
            "import sys; sys.stderr.write('boom: config missing\\n'); sys.exit(3)\n",
            "crashed",
            "boom: config missing",
        ),
        ("import time; time.sleep(30)\n", "timeout", "no reply within 2 s"),
        (
            "import sys, json\nline = sys.stdin.readline()\n"
            "print(json.dumps({'jsonrpc': '2.0', 'id': 1, 'result': {'protocolVersion': "
            "'2025-06-18', 'capabilities': {}, 'serverInfo': {'name': 'x'}}}), "
            "flush=True)\nsys.stdin.readline()\n"
            "sys.stdin.readline()\nprint(json.dumps({'jsonrpc': '2.0', 'id': 2, 'result': "
            "{'tools': [{'name': 'x'}]}}), "
            "flush=True)\n",
            "no-tools",
            "tools: ['x']",
        ),
    ],
)
def test_handshake_names_the_failure(
    tmp_path: Path, body: str, outcome: str, evidence: str
) -> None:
    command = _script(tmp_path, "server.py", body)
    result = mcp_checks.handshake(command[0], command[1:], {}, timeout=2)
    assert result["outcome"] == outcome
    assert evidence in result["evidence"]


def test_handshake_with_a_missing_command(tmp_path: Path) -> None:
    result = mcp_checks.handshake(str(tmp_path / "no-such-binary"), [], {})
    assert result["outcome"] == "not-found"


@pytest.mark.slow
def test_handshake_with_the_real_server(tmp_path: Path) -> None:
    result = mcp_checks.handshake(
        sys.executable,
        ["-m", "hindsight_cli", "mcp", "--store", str(tmp_path / "s")],
        {"HINDSIGHT_HOME": str(tmp_path / "home")},
    )
    # how long it took is benchmarks/bench_mcp_start.py's to measure, not a test's
    assert result["outcome"] == "ok" and result["seconds"] > 0
    assert "memory_search" in result["tools"]


FAKE_DOCKER = """#!/bin/sh
case "$*" in
  "--version") echo "Docker version 28.2.2, build e6534b4";;
  "context show") echo "${FAKE_CONTEXT:-default}";;
  "version --format {{.Server.Version}}")
    case "$FAKE_DAEMON" in
      up) echo "28.2.2";;
      down) echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2; exit 1;;
      denied) echo 'permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: Get "http://%2Fvar%2Frun%2Fdocker.sock/v1.50/version": dial unix /var/run/docker.sock: connect: permission denied' >&2; exit 1;;
    esac;;
  "compose version --short")
    if [ "$FAKE_COMPOSE" = v2 ]; then echo "2.39.4"; else echo "docker: unknown command: docker compose" >&2; exit 1; fi;;
esac
"""


@pytest.fixture
def fake_docker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    _command(bin_dir, "docker", FAKE_DOCKER)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    return bin_dir


@pytest.mark.parametrize(
    ("daemon", "context", "compose", "expected"),
    [
        (
            "up",
            "default",
            "v2",
            {
                "docker.daemon": ("ok", "daemon 28.2.2 reachable"),
                "docker.compose": ("ok", "Compose v2 (2.39.4)"),
            },
        ),
        ("down", "default", "v2", {"docker.daemon": ("fail", "the Docker daemon is not running")}),
        (
            "denied",
            "default",
            "v2",
            {"docker.daemon": ("fail", "permission denied on the Docker socket")},
        ),
        (
            "down",
            "remote-box",
            "v2",
            {
                "docker.daemon": (
                    "fail",
                    "no daemon answers at the current context (context remote-box)",
                )
            },
        ),
        ("up", "default", "none", {"docker.compose": ("fail", "Docker Compose is not installed")}),
    ],
)
def test_doctor_docker_tells_the_causes_apart(
    cli, fake_docker, monkeypatch, daemon, context, compose, expected
) -> None:
    monkeypatch.setenv("FAKE_DAEMON", daemon)
    monkeypatch.setenv("FAKE_CONTEXT", context)
    monkeypatch.setenv("FAKE_COMPOSE", compose)
    result = cli("doctor", "docker", "--json", store=False)
    checks = _by_id(result)
    for check_id, (status, summary) in expected.items():
        assert (checks[check_id]["status"], checks[check_id]["summary"]) == (status, summary)
    assert result.exit_code == (1 if any(s == "fail" for s, _ in expected.values()) else 0)
    if daemon == "denied":
        assert "usermod -aG docker" in checks["docker.daemon"]["fix"]


def test_compose_v1_only_is_a_warning(cli, fake_docker, monkeypatch) -> None:
    _command(fake_docker, "docker-compose", '#!/bin/sh\necho "1.29.2"\n')
    monkeypatch.setenv("FAKE_DAEMON", "up")
    monkeypatch.setenv("FAKE_COMPOSE", "none")
    check = _by_id(cli("doctor", "docker", "--json", store=False))["docker.compose"]
    assert check["status"] == "warn" and "Compose v1 (1.29.2)" in check["summary"]


def test_missing_docker_fails_when_asked_and_is_skipped_otherwise(
    cli, tmp_path, monkeypatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    asked = cli("doctor", "docker", "--json", store=False)
    assert asked.exit_code == 1 and _by_id(asked)["docker.cli"]["status"] == "fail"
    everything = _by_id(cli("doctor", "--no-probe", "--json", store=False))
    assert everything["docker.cli"]["status"] == "skip"


def test_docker_desktop_wsl_placeholder_is_named(cli, tmp_path, monkeypatch) -> None:
    bin_dir = tmp_path / "shim-bin"
    _command(
        bin_dir,
        "docker",
        "#!/bin/sh\necho \"The command 'docker' could not be found in this WSL 2 distro.\"\n"
        'echo "We recommend to activate the WSL integration in Docker Desktop settings."\nexit 1\n',
    )
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    check = _by_id(cli("doctor", "docker", "--json", store=False))["docker.cli"]
    assert check["status"] == "fail" and "WSL Integration" in check["fix"]


def _fake_wsl(bin_dir: Path, list_output: str, version_output: str, utf16: bool = False) -> None:
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "list.txt").write_bytes(
        list_output.encode("utf-16-le") if utf16 else list_output.encode()
    )
    (bin_dir / "version.txt").write_text(version_output)
    _command(
        bin_dir,
        "wsl.exe",
        f'#!/bin/sh\nif [ "$1" = "-l" ]; then cat "{bin_dir}/list.txt"; else cat '
        f'"{bin_dir}/version.txt"; fi\n',
    )


WSL2_PROC = "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@buildhost) (gcc 11.2.0) #1 SMP"
WSL1_PROC = (
    "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0) "
    "#1237-Microsoft"
)
LIST_OK = (
    "  NAME                   STATE           VERSION\n* Ubuntu                 "
    "Running         2\n  docker-desktop         Stopped         2\n"
)
LIST_V1 = "  NAME      STATE      VERSION\n* Ubuntu    Running    1\n"
VERSION = "WSL version: 2.3.26.0\nKernel version: 5.15.167.4-1\nWSLg version: 1.0.65\n"
OLD_KERNEL = "WSL version: 0.58.3.0\nKernel version: 5.4.72\n"


@pytest.mark.parametrize(
    ("proc", "env", "listing", "version", "utf16", "expected"),
    [
        (
            WSL2_PROC,
            {"WSL_DISTRO_NAME": "Ubuntu", "WSL_INTEROP": "/run/WSL/1_interop"},
            LIST_OK,
            VERSION,
            False,
            {"wsl.version": "ok", "wsl.default": "ok", "wsl.kernel": "ok"},
        ),
        (
            WSL1_PROC,
            {"WSL_DISTRO_NAME": "Ubuntu"},
            LIST_V1,
            OLD_KERNEL,
            True,
            {"wsl.version": "warn", "wsl.default": "warn", "wsl.kernel": "warn"},
        ),
    ],
)
def test_wsl_checks_read_proc_env_and_wsl_exe(
    tmp_path, monkeypatch, proc, env, listing, version, utf16, expected
) -> None:
    from hindsight_cli.doctor import wsl_checks

    proc_version = tmp_path / "version"
    proc_version.write_text(proc)
    _fake_wsl(tmp_path / "bin", listing, version, utf16)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    checks = {c.id: c for c in wsl_checks.run(proc_version=proc_version, env=env, platform="linux")}
    assert {k: checks[k].status for k in expected} == expected
    if "WSL2" not in proc:
        assert "wsl --set-version Ubuntu 2" in checks["wsl.version"].fix
        assert "wsl --update" in checks["wsl.kernel"].fix


def test_wsl_vm_platform_error_is_a_failure_and_plain_linux_is_skipped(
    tmp_path, monkeypatch
) -> None:
    from hindsight_cli.doctor import wsl_checks

    bin_dir = tmp_path / "bin"
    _command(
        bin_dir,
        "wsl.exe",
        '#!/bin/sh\necho "WSL2 is not supported with your current machine configuration. '
        'Please enable the \\"Virtual Machine Platform\\" optional component"\nexit 1\n',
    )
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    plain = tmp_path / "plain"
    plain.write_text("Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)")
    checks = {c.id: c for c in wsl_checks.run(proc_version=plain, env={}, platform="win32")}
    assert (
        checks["wsl.default"].status == "fail"
        and "wsl.exe --install --no-distribution" in checks["wsl.default"].fix
    )
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert [c.id for c in wsl_checks.run(proc_version=plain, env={}, platform="linux")] == [
        "wsl.detect"
    ]
