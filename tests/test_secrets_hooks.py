"""A recording hook never writes a secret: failed shell commands with credentials in their arguments
and their error output, spooled through the hook entry point, then the spool files and the hook log
grepped."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import stored_data

from hindsight_cli import hooks
from hindsight_cli.hooks.install import command
from hindsight_cli.safefs import trust

PASSWORD = "S3cretPw9x"
TOKEN = "Zq8Lm2Wp4Kx7Nb3Vt6Rc"


@pytest.fixture
def store(_isolated: Path) -> Path:
    path = _isolated / ".hindsight"
    path.mkdir()
    # made by hand: approved, as `hindsight init` approves the stores it makes
    trust.allow(path)
    return path


def _payload(
    store: Path,
    session: str,
    tool_input: dict[str, Any],
    error: str,
    event: str = "PostToolUseFailure",
) -> str:
    return json.dumps(
        {
            "session_id": session,
            "cwd": str(store.parent),
            "hook_event_name": event,
            "tool_name": "Bash",
            "tool_input": tool_input,
            "error": error,
        }
    )


def _on_disk(store: Path) -> str:
    """Everything the hooks wrote to the spool: events.jsonl, seen.jsonl, hooks.log, claimed
    files, the open failures and the kinds fixed."""
    return "".join(
        p.read_text(encoding="utf-8") for p in (store / "spool").rglob("*") if p.is_file()
    )


FAILURES = [
    (
        {"command": f"mysql -u root -p{PASSWORD} shop"},
        f"ERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: YES) "
        f"-p{PASSWORD}",
    ),
    (
        {"command": f"curl -u admin:{PASSWORD} https://ci.example.com/api"},
        f"+ curl -u admin:{PASSWORD} https://ci.example.com/api\ncurl: (22) The requested URL "
        f"returned error: 401",
    ),
    (
        {"command": f"sshpass -p '{PASSWORD}' ssh deploy@10.0.0.12"},
        "Permission denied, please try again.",
    ),
    (
        {"command": "psql", "description": f"connect with PGPASSWORD={PASSWORD}"},
        f"FATAL: password authentication failed; DSN was postgresql://app:{PASSWORD}@db/app",
    ),
    (
        {"command": f"redis-cli -a {PASSWORD} ping"},
        "(error) WRONGPASS invalid username-password pair or user is disabled.",
    ),
    ({"command": "deploy.sh"}, f"deploy: Passwort: {PASSWORD}\nexport API_TOKEN={TOKEN}"),
    (
        {"command": f"echo {PASSWORD} | docker login -u bot --password-stdin ghcr.io"},
        "Error: unauthorized",
    ),
]


@pytest.mark.parametrize(
    ("tool_input", "error"), FAILURES, ids=[f["command"].split()[0] for f, _ in FAILURES]
)
def test_a_failed_command_is_spooled_without_its_secrets(
    store: Path, tool_input: dict[str, Any], error: str
) -> None:
    out, ok = hooks.run(
        "tool-failure", "claude-code", _payload(store, "s1", tool_input, error), str(store)
    )
    assert ok and out == ""
    written = _on_disk(store)
    # spooled, and redacted
    assert '"kind":"tool_error"' in written and "[REDACTED:" in written
    assert PASSWORD not in written and TOKEN not in written


def test_a_command_that_fails_twice_in_two_sessions_repeats_no_secret(store: Path) -> None:
    """s1 fails and fixes it; s2 fails the same way, a repeat: its kind, the fix and the recall are
    built from the redacted text, and the spool (open failures, kinds) holds no secret."""
    tool_input, error = FAILURES[0]
    hooks.run("tool-failure", "claude-code", _payload(store, "s1", tool_input, error), str(store))
    assert PASSWORD not in _on_disk(store) and list((store / "spool" / "open").iterdir())
    worked = {
        **json.loads(_payload(store, "s1", tool_input, error)),
        "hook_event_name": "PostToolUse",
    }
    del worked["error"]
    worked["tool_response"] = {"stdout": "ok", "stderr": "", "interrupted": False}
    hooks.run("tool", "claude-code", json.dumps(worked), str(store))
    out, _ = hooks.run(
        "tool-failure", "claude-code", _payload(store, "s2", tool_input, error), str(store)
    )
    assert "Access denied" in out and PASSWORD not in out
    assert PASSWORD not in _on_disk(store)
    # the repeat recalled, so the spool was ingested into the store
    stored = stored_data(store)
    assert any(b"Access denied" in data for _, data in stored)
    assert [name for name, data in stored if PASSWORD.encode() in data] == []


def test_codex_and_cursor_failures_are_redacted_too(store: Path) -> None:
    codex = json.dumps(
        {
            "session_id": "c1",
            "cwd": str(store.parent),
            "hook_event_name": "PostToolUse",
            "tool_name": "shell",
            "tool_input": {"command": ["bash", "-lc", f"mysql -uroot -p{PASSWORD}"]},
            "tool_response": {"exit_code": 1, "stderr": f"access denied, token={TOKEN}"},
        }
    )
    cursor = json.dumps(
        {
            "conversation_id": "k1",
            "workspace_roots": [str(store.parent)],
            "hook_event_name": "postToolUseFailure",
            "tool_name": "Shell",
            "tool_input": {"command": f"curl -u me:{PASSWORD} https://x"},
            "error_message": f"401; Authorization: Bearer {TOKEN}",
        }
    )
    assert hooks.run("tool", "codex", codex, str(store))[1]
    assert hooks.run("tool-failure", "cursor", cursor, str(store))[1]
    written = _on_disk(store)
    assert written.count('"kind":"tool_error"') == 2
    assert PASSWORD not in written and TOKEN not in written


def test_the_hook_log_is_redacted(store: Path) -> None:
    """An error message that quotes the input (here the client name) is logged redacted."""
    _out, ok = hooks.run(
        "tool-failure",
        f"mysql -p{PASSWORD}",
        _payload(store, "s1", {"command": "x"}, "e"),
        str(store),
    )
    assert not ok
    log = (store / "spool" / "hooks.log").read_text()
    assert "unknown client" in log and PASSWORD not in log and "[REDACTED:password]" in log


@pytest.mark.slow
def test_the_installed_command_spools_redacted(store: Path) -> None:
    """The same through the command `hooks install` writes (python -S, payload on stdin)."""
    tool_input, error = FAILURES[1]
    result = subprocess.run(
        shlex.split(command("claude-code", "tool-failure", store)),
        capture_output=True,
        input=_payload(store, "s1", tool_input, error),
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    written = _on_disk(store)
    assert "curl -u admin:[REDACTED:password]" in written and PASSWORD not in written
