"""Hook calls in-process, as Claude Code sends them, for the tests of what hooks inject and record
(issue 36): a failing pytest run of ``TEST_FILE`` (a missing module) and its fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hindsight_cli import hooks
from hindsight_cli.store import Store

TEST_FILE = "tests/test_zanzibar.py"
FAILED = f"pytest {TEST_FILE}"
ERROR = "Exit code 1\nE   ModuleNotFoundError: No module named 'requests'"


def run(project: Path, event: str, session: str, **fields: Any) -> str:
    payload = {"session_id": session, "cwd": str(project), "hook_event_name": event, **fields}
    out, ok = hooks.run(event, "claude-code", json.dumps(payload))
    assert ok
    return out


def fail(project: Path, session: str, call: str = "") -> str:
    """The failing run; ``call``: the client's id of the call (``tool_use_id``)."""
    return run(
        project,
        "PostToolUseFailure",
        session,
        tool_name="Bash",
        tool_input={"command": FAILED},
        error=ERROR,
        **({"tool_use_id": call} if call else {}),
    )


def fix(project: Path, session: str) -> str:
    return run(
        project,
        "PostToolUse",
        session,
        tool_name="Bash",
        tool_input={"command": f"pip install requests && {FAILED}"},
        tool_response={"stdout": "3 passed", "stderr": ""},
    )


def learnt(project: Path) -> Store:
    """Session s1 failed and fixed the pytest run, and ended."""
    fail(project, "s1")
    fix(project, "s1")
    run(project, "SessionEnd", "s1", reason="exit")
    return Store(project / ".hindsight")
