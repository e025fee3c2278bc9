"""Half an emoji in a hook's payload (review BU): a client's JSON can hold a lone surrogate escape
(``"\\ud83d"``), as a string cut inside a surrogate pair does (a tool's output clipped to a size, a
prompt pasted so), and the JSON parser gives it back as a lone surrogate, which UTF-8 cannot hold.
The store removes them (docs/reliability.md, "Hostile and odd input"); the hook spooled them and
failed writing the line: the prompt, the failure and its fix were lost, only a traceback in
``hooks.log`` saying so. And a payload's transcript path the system refuses to look up (low).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hindsight_cli import hooks
from hindsight_cli.storage import spool
from hindsight_cli.store import Store

pytestmark = pytest.mark.local_only

HALF = "\ud83d"


def _hook(project: Path, event: str, **fields: Any) -> None:
    payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": event, **fields}
    _, ok = hooks.run(event, "claude-code", json.dumps(payload))
    assert ok, (project / ".hindsight" / spool.SPOOL_DIR / spool.LOG).read_text()


def _memories(project: Path) -> list[str]:
    store = Store(project / ".hindsight")
    store.ingest_events()
    return [m.content + " " + (m.resolution or "") for m in store.list(limit=None)]


def _failure(project: Path, command: str, error: str, **fields: Any) -> None:
    _hook(
        project,
        "PostToolUseFailure",
        **{"tool_name": "Bash", "tool_input": {"command": command}, "error": error, **fields},
    )


@pytest.mark.parametrize(
    "prompt",
    [f"why does the zorblax deploy fail {HALF}", f"{HALF}why does the zorblax deploy fail"],
)
def test_a_prompt_holding_half_an_emoji_is_recorded(project: Path, prompt: str) -> None:
    _hook(project, "UserPromptSubmit", prompt=prompt)
    found = " ".join(_memories(project))
    assert "why does the zorblax deploy fail" in found
    assert HALF not in found


@pytest.mark.parametrize(
    ("command", "error", "fields"),
    [
        # a tool's output clipped inside a surrogate pair
        ("make zorblax-deploy", f"Exit code 2\nE   zorblax deploy refused 🚀{HALF}", {}),
        (f"make zorblax-deploy {HALF}", "Exit code 2\nE   zorblax deploy refused", {}),
        # every other field of the payload: the session, the tool, the directory, the call
        (
            "make zorblax-deploy",
            "Exit code 2\nE   zorblax deploy refused",
            {"tool_name": "Ba" + HALF},
        ),
        (
            "make zorblax-deploy",
            "Exit code 2\nE   zorblax deploy refused",
            {"session_id": "s" + HALF},
        ),
        ("make zorblax-deploy", "Exit code 2\nE   zorblax deploy refused", {"tool_use_id": HALF}),
    ],
)
def test_a_failure_holding_half_an_emoji_is_recorded(
    project: Path, command: str, error: str, fields: dict[str, Any]
) -> None:
    _failure(project, command, error, **fields)
    found = " ".join(_memories(project))
    assert "zorblax deploy refused" in found
    assert HALF not in found


def test_a_fix_whose_output_holds_half_an_emoji_is_linked(project: Path) -> None:
    _failure(
        project, "pytest tests/test_zorblax.py", "Exit code 1\nE   ModuleNotFoundError: zorblax"
    )
    _hook(
        project,
        "PostToolUse",
        tool_name="Bash",
        tool_input={"command": f"pip install zorblax {HALF}&& pytest tests/test_zorblax.py"},
        tool_response={"stdout": f"3 passed {HALF}", "stderr": ""},
    )
    found = " ".join(_memories(project))
    assert "pip install zorblax" in found


def test_a_directory_holding_half_an_emoji_is_no_traceback(project: Path) -> None:
    # a directory no file system can name: no store there, the hook answers and logs no error
    payload = {"session_id": "s1", "cwd": f"{project}{HALF}", "prompt": "where is the zorblax"}
    _, ok = hooks.run("UserPromptSubmit", "claude-code", json.dumps(payload))
    log = project / ".hindsight" / spool.SPOOL_DIR / spool.LOG
    assert ok and not (log.exists() and "UnicodeEncodeError" in log.read_text())


@pytest.mark.parametrize("transcript", ["/tmp/" + "x" * 300 + ".jsonl", "/proc/1/root/x.jsonl"])
def test_a_session_end_whose_transcript_path_cannot_be_asked_is_no_traceback(
    project: Path, transcript: str
) -> None:
    """A transcript path whose name is past the file system's limit, or one under a directory this
    user may not search (review BU, low): ``Path.is_file`` raises for those, and the session end
    logged a traceback and answered as failed."""
    _hook(project, "UserPromptSubmit", prompt="how do I deploy the zorblax service")
    _hook(project, "SessionEnd", reason="exit", transcript_path=transcript)
    log = project / ".hindsight" / spool.SPOOL_DIR / spool.LOG
    assert not (log.exists() and "OSError" in log.read_text())
    assert "deploy the zorblax service" in " ".join(_memories(project))
