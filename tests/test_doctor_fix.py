"""`hindsight doctor --fix` (safe, backed-up repairs of client configs) and Codex's timeouts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hindsight_cli import clients
from hindsight_cli.doctor import mcp_checks

COMMAND = clients.server_command()


def _write(target: clients.Target, text: str) -> Path:
    target.path.parent.mkdir(parents=True, exist_ok=True)
    target.path.write_text(text)
    return target.path


def _checks(result) -> dict:
    return {c["id"]: c for c in json.loads(result.stdout)["checks"]}


def _snapshot(*roots: Path) -> dict[str, bytes]:
    return {
        str(p): p.read_bytes() for root in roots for p in sorted(root.rglob("*")) if p.is_file()
    }


def _entry(store: Path, command: str = COMMAND[0]) -> dict:
    return {"command": command, "args": [*COMMAND[1:], "mcp", "--store", str(store)]}


@pytest.fixture
def broken(home: Path, _isolated: Path) -> dict[str, Path]:
    """A VS Code file with the wrong key, a Gemini entry with a bare command, a Codex entry without
    a timeout."""
    store = _isolated / "store"
    vscode = _write(
        clients.targets("vscode", home, _isolated)["project"],
        json.dumps({"mcpServers": {"hindsight": _entry(store), "other": {"command": "/bin/true"}}}),
    )
    gemini = _write(
        clients.targets("gemini", home, _isolated)["user"],
        json.dumps(
            {
                "theme": "dark",
                "mcpServers": {
                    "hindsight": {"command": "hindsight", "args": ["mcp", "--store", str(store)]}
                },
            }
        ),
    )
    codex = _write(
        clients.targets("codex", home, _isolated)["user"],
        '# my codex settings\nmodel = "o4"\n\n[mcp_servers.other]\ncommand = "/bin/true"\n\n'
        f'[mcp_servers.hindsight]\ncommand = "{COMMAND[0]}"\nargs = ["mcp", "--store", "{store}"]\n',
    )
    return {"vscode": vscode, "gemini": gemini, "codex": codex}


def test_without_fix_doctor_changes_nothing(cli, home, _isolated, broken) -> None:
    before = _snapshot(home, _isolated)
    result = cli("doctor", "--no-probe", "--json", store=False)
    mcp_only = cli("doctor", "mcp", "--no-probe", store=False)
    assert _snapshot(home, _isolated) == before
    doc = json.loads(result.stdout)
    assert result.exit_code == 1 and mcp_only.exit_code == 1
    assert doc["failed"] == sum(c["status"] == "fail" for c in doc["checks"]) >= 2
    checks = _checks(result)
    assert "`hindsight doctor mcp --fix`" in checks["mcp.vscode.project.key"]["fix"]
    assert (
        "`hindsight doctor mcp --fix` makes it absolute" in checks["mcp.gemini.user.command"]["fix"]
    )
    timeout = checks["mcp.codex.user.timeout"]
    assert (timeout["status"], timeout["evidence"]) == (
        "warn",
        "startup_timeout_sec = 10 (Codex's default)",
    )


def test_fix_repairs_each_file_with_a_backup(cli, home, _isolated, broken) -> None:
    originals = {name: path.read_bytes() for name, path in broken.items()}
    result = cli("doctor", "mcp", "--fix", "--no-probe", "--json", store=False)
    checks = _checks(result)
    assert (
        checks["mcp.vscode.project.fixed"]["summary"]
        == "fixed: moved hindsight from 'mcpServers' to 'servers'"
    )
    assert (
        checks["mcp.gemini.user.fixed"]["summary"] == f"fixed: command 'hindsight' → {COMMAND[0]}"
    )
    assert checks["mcp.codex.user.fixed"]["summary"] == "fixed: startup_timeout_sec 10 → 30"
    for name, path in broken.items():
        backups = list(path.parent.glob(f"{path.name}.hindsight-backup-*"))
        assert [b.read_bytes() for b in backups] == [originals[name]]
        assert (
            str(backups[0])
            in checks[f"mcp.{'vscode.project' if name == 'vscode' else name + '.user'}.fixed"][
                "evidence"
            ]
        )
    vscode = json.loads(broken["vscode"].read_text())
    assert vscode["servers"]["hindsight"]["command"] == COMMAND[0]
    assert vscode["mcpServers"] == {"other": {"command": "/bin/true"}}
    gemini = json.loads(broken["gemini"].read_text())
    assert gemini["theme"] == "dark" and gemini["mcpServers"]["hindsight"]["command"] == COMMAND[0]
    codex = broken["codex"].read_text()
    assert codex.startswith(
        '# my codex settings\nmodel = "o4"\n\n[mcp_servers.other]\ncommand = "/bin/true"\n'
    )
    assert "startup_timeout_sec = 30" in codex
    assert checks["mcp.vscode.project.entry"]["status"] == "ok"
    assert checks["mcp.gemini.user.command"]["status"] == "ok"
    assert checks["mcp.codex.user.timeout"]["status"] == "ok"
    assert result.exit_code == 0, result.stdout
    again = cli("doctor", "mcp", "--fix", "--no-probe", "--json", store=False)
    assert not any(k.endswith(".fixed") for k in _checks(again))


def test_fix_leaves_a_commented_jsonc_file_alone(cli, home, _isolated) -> None:
    text = '{\n  // my servers\n  "mcpServers": {"hindsight": {"command": "/x"}}\n}\n'
    path = _write(clients.targets("vscode", home, _isolated)["user"], text)
    check = _checks(cli("doctor", "mcp", "--fix", "--no-probe", "--json", store=False))[
        "mcp.vscode.user.fixed"
    ]
    assert (
        check["status"] == "warn"
        and check["summary"] == "not fixed: rewriting would drop the file's comments"
    )
    assert path.read_text() == text
    assert list(path.parent.glob("*backup*")) == []


@pytest.mark.parametrize(
    ("entry", "seconds", "status", "text"),
    [
        (
            {"startup_timeout_sec": 30},
            1.4,
            "ok",
            "startup_timeout_sec = 30; start-up measured 1.40 s",
        ),
        ({"startup_timeout_sec": 20}, 8.0, "warn", "too close to the measured start-up"),
        ({}, 12.0, "fail", "Codex gives up before hindsight has started"),
        ({"startup_timeout_ms": 15000}, None, "warn", "below 20 s"),
        ({}, 1.4, "warn", "startup_timeout_sec = 10 (Codex's default); start-up measured 1.40 s"),
    ],
)
def test_codex_startup_timeout_against_the_measured_start(entry, seconds, status, text) -> None:
    check = mcp_checks.codex_timeouts("mcp.codex.user", entry, seconds)[0]
    assert check.id == "mcp.codex.user.timeout" and check.status == status
    assert text in check.summary + " " + check.evidence


def test_codex_tool_timeout_too_short_for_the_first_search() -> None:
    checks = mcp_checks.codex_timeouts(
        "mcp.codex.user", {"startup_timeout_sec": 30, "tool_timeout_sec": 5}, 1.0
    )
    assert [(c.id, c.status) for c in checks] == [
        ("mcp.codex.user.timeout", "ok"),
        ("mcp.codex.user.tool-timeout", "warn"),
    ]


@pytest.mark.slow
def test_codex_timeout_uses_the_live_handshake(cli, home, _isolated) -> None:
    assert (
        cli(
            "mcp",
            "install",
            "--client",
            "codex",
            "--scope",
            "user",
            "--store",
            str(_isolated / "s"),
            store=False,
        ).exit_code
        == 0
    )
    checks = _checks(cli("doctor", "mcp", "--json", store=False))
    assert checks["mcp.codex.user.handshake"]["status"] == "ok"
    timeout = checks["mcp.codex.user.timeout"]
    assert timeout["evidence"].startswith("startup_timeout_sec = 30; start-up measured ")
    # The verdict is the one the measured start-up gets (ok while three of them fit in 30 s), so it
    # holds on a machine of any speed; the start-up's bound is benchmarks/bench_mcp_start.py's.
    measured = float(timeout["evidence"].split("measured ")[1].split(" s")[0])
    expected = mcp_checks.codex_timeouts("mcp.codex.user", {"startup_timeout_sec": 30}, measured)
    assert timeout["status"] == expected[0].status


@pytest.mark.no_store
def test_fix_names_the_servers_left_under_the_ignored_key(cli, home, _isolated) -> None:
    """VS Code reads `servers`; the fix moves hindsight's entry only and says which others VS Code
    still ignores, so a user does not think the file is now right."""
    others = {"github": {"command": "/bin/true"}, "weather": {"command": "/bin/false"}}
    path = _write(
        clients.targets("vscode", home, _isolated)["project"],
        json.dumps({"mcpServers": {"hindsight": _entry(_isolated / "store"), **others}}),
    )
    result = cli("doctor", "mcp", "--fix", "--no-probe", store=False)
    assert "'mcpServers' still holds github, weather: vscode ignores them too" in result.stdout, (
        result.stdout
    )
    assert "move them under 'servers' by hand" in result.stdout
    data = json.loads(path.read_text())
    assert data["mcpServers"] == others
    assert list(data["servers"]) == ["hindsight"]
    checks = _checks(cli("doctor", "mcp", "--no-probe", "--json", store=False))
    assert checks["mcp.vscode.project.entry"]["status"] == "ok"


@pytest.mark.no_store
def test_fix_with_only_hindsight_under_the_ignored_key_reports_nothing_left(
    cli, home, _isolated
) -> None:
    path = _write(
        clients.targets("vscode", home, _isolated)["project"],
        json.dumps({"mcpServers": {"hindsight": _entry(_isolated / "store")}}),
    )
    result = cli("doctor", "mcp", "--fix", "--no-probe", "--json", store=False)
    checks = _checks(result)
    assert checks["mcp.vscode.project.fixed"]["status"] == "ok"
    assert "mcp.vscode.project.ignored" not in checks
    assert json.loads(path.read_text()) == {"servers": {"hindsight": _entry(_isolated / "store")}}


@pytest.mark.no_store
def test_fix_names_one_server_left_in_the_singular(cli, home, _isolated) -> None:
    _write(
        clients.targets("vscode", home, _isolated)["project"],
        json.dumps(
            {"mcpServers": {"hindsight": _entry(_isolated / "store"), "db": {"command": "x"}}}
        ),
    )
    checks = _checks(cli("doctor", "mcp", "--fix", "--no-probe", "--json", store=False))
    ignored = checks["mcp.vscode.project.ignored"]
    assert (ignored["status"], ignored["summary"]) == (
        "warn",
        "'mcpServers' still holds db: vscode ignores it too",
    )
