"""Lifecycle hooks: realistic payloads replayed through the hook command as a client runs it, the
installer on a fake home, and a whole simulated session (start → failure → fix → stop → next start).
"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hindsight_cli.hooks import events
from hindsight_cli.hooks.install import command
from hindsight_cli.models import Filters
from hindsight_cli.storage import spool_json as codec
from hindsight_cli.store import Store

SECRET = "sk-proj-q8Zr3VtK1mWx7LcN4pYs9HbJ2fGd6EaU0oTi5"


def hook(
    event: str, payload: dict[str, Any], client: str = "claude-code", store: Path | None = None
) -> str:
    """Run the hook the way an installed client does: the command `hooks install` writes, payload on
    stdin."""
    argv = shlex.split(command(client, event, store))
    result = subprocess.run(
        argv,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


def claude(project: Path, session: str, event: str, **fields: Any) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": f"/home/u/.claude/projects/p/{session}.jsonl",
        "cwd": str(project),
        "hook_event_name": event,
        **fields,
    }


def failing_pytest(project: Path, session: str) -> dict[str, Any]:
    return claude(
        project,
        session,
        "PostToolUseFailure",
        tool_name="Bash",
        tool_use_id="toolu_01",
        tool_input={
            "command": f"OPENAI_API_KEY={SECRET} pytest tests/test_api.py",
            "description": "Run the API tests",
        },
        error="Exit code 1\nE   ModuleNotFoundError: No module named 'requests'",
        is_interrupt=False,
    )


def fixed_pytest(project: Path, session: str) -> dict[str, Any]:
    return claude(
        project,
        session,
        "PostToolUse",
        tool_name="Bash",
        tool_use_id="toolu_02",
        tool_input={"command": "pip install requests && pytest tests/test_api.py"},
        tool_response={
            "stdout": "3 passed in 0.41s",
            "stderr": "",
            "interrupted": False,
            "isImage": False,
        },
    )


def spool_text(project: Path) -> str:
    return "".join(p.read_text() for p in (project / ".hindsight" / "spool").glob("*.jsonl"))


@pytest.mark.slow
def test_a_failing_tool_is_spooled_redacted_and_prints_nothing(project: Path) -> None:
    assert hook("tool-failure", failing_pytest(project, "s1")) == ""
    text = spool_text(project)
    assert "ModuleNotFoundError" in text and "pytest tests/test_api.py" in text
    assert SECRET not in text and "[REDACTED" in text
    events_file = project / ".hindsight" / "spool" / "events.jsonl"
    assert oct(events_file.stat().st_mode & 0o777) == "0o600"
    # recording never opened the store
    assert not (project / ".hindsight" / "ledger.duckdb").exists()


def _imported(event: str, payload: dict[str, Any]) -> set[str]:
    """The modules an installed hook imports (python -X importtime), after spooling ``payload``."""
    python, *rest = shlex.split(command("claude-code", event, None))
    result = subprocess.run(
        [python, "-X", "importtime", *rest],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert result.returncode == 0 and result.stdout == ""
    return set(re.findall(r"^import time:.*\| +(\S+)$", result.stderr, re.M))


@pytest.mark.slow
def test_a_recording_hook_imports_almost_nothing(project: Path) -> None:
    """The 50 ms budget (docs/hooks.md): no site-packages, json, re, pathlib or typing, not the
    package's __init__; the redaction patterns (and re) only for a text that holds one of their
    words; a failure's kind (``lessons.signatures``) is read without re; a call that follows no
    failure never pays for it."""
    heavy = {
        "site",
        "json",
        "re",
        "enum",
        "pathlib",
        "typing",
        "dataclasses",
        "hindsight_cli.models",
        "hindsight_cli.store",
        "hindsight_cli.config",
    }
    plain = claude(
        project,
        "s1",
        "PostToolUseFailure",
        tool_name="Bash",
        tool_input={"command": "make test"},
        error="Exit code 2\nmake: *** [test] Error 1\nKeyError: 'user' (no key in the fixture)",
    )
    loaded = _imported("tool-failure", plain)
    assert {"hindsight_cli.hooks", "hindsight_cli.redact", "hindsight_cli.lessons.signatures"} <= (
        loaded
    ) and not loaded & heavy
    # an exception line is "Class: message", and no secret: nothing compiles a pattern for it
    traceback = claude(
        project,
        "s2",
        "PostToolUseFailure",
        tool_name="Bash",
        tool_input={"command": "python manage.py migrate"},
        error='Exit code 1\nTraceback (most recent call last):\n  File "/srv/app/manage.py", line 22'
        ", in <module>\nModuleNotFoundError: No module named 'django'",
    )
    assert not _imported("tool-failure", traceback) & heavy
    assert (
        not _imported("prompt", claude(project, "s1", "UserPromptSubmit", prompt="run the tests"))
        & heavy
    )
    # a call in a session with no failure waiting for its fix
    ok = claude(
        project,
        "s9",
        "PostToolUse",
        tool_name="Bash",
        tool_input={"command": "ls -la"},
        tool_response={"stdout": "total 0", "stderr": "", "interrupted": False},
    )
    assert not _imported("tool", ok) & heavy
    # OPENAI_API_KEY=…: patterns run
    assert "re" in _imported("tool-failure", failing_pytest(project, "s1"))
    assert spool_text(project).count('"kind":"tool_error"') == 3 and SECRET not in spool_text(
        project
    )


@pytest.mark.slow
def test_a_pinned_store_and_a_session_outside_any_project(project: Path, tmp_path: Path) -> None:
    pinned = tmp_path / "pinned"
    hook("tool-failure", failing_pytest(project, "s1"), store=pinned)
    assert "ModuleNotFoundError" in (pinned / "spool" / "events.jsonl").read_text()
    (tmp_path / "elsewhere").mkdir()
    # no .hindsight/
    hook("tool-failure", {**failing_pytest(project, "s2"), "cwd": str(tmp_path / "elsewhere")})
    assert (
        "ModuleNotFoundError"
        in (Path(os.environ["HINDSIGHT_HOME"]) / "store" / "spool" / "events.jsonl").read_text()
    )
    # our own cwd decides
    hook("tool-failure", {**failing_pytest(project, "s3"), "cwd": str(tmp_path / "gone")})
    assert '"session":"s3"' in spool_text(project)


def test_terms_match_the_regular_expression_they_replace() -> None:
    from hindsight_cli.storage.spool import terms as _terms

    cjk = "[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]+"
    word, whole = re.compile(cjk + r"|[^\W_]{2,}"), re.compile(cjk)

    def reference(text: str) -> list[str]:
        out: set[str] = set()
        for token in word.findall(text.lower()):
            if whole.fullmatch(token) and len(token) > 1:
                out.update(token[i : i + 2] for i in range(len(token) - 1))
            else:
                out.add(token)
        return sorted(out)[:64]

    rng = random.Random(3)
    alphabet = "aZ9_ -./é日本語・ー゛한국어Ⅻİ\u3099\u4dc0x1"
    texts = [
        "ModuleNotFoundError: No module named 'requests'",
        "なぜ天気APIは401を返す?",
        "a b c_d e2 日",
    ]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(30))) for _ in range(2000)]
    assert all(_terms(text) == reference(text) for text in texts)


def test_the_hook_codec_is_json() -> None:
    rng = random.Random(5)

    def value(depth: int = 0) -> Any:
        leaves = [
            None,
            True,
            False,
            0,
            -7,
            10**30,
            0.1,
            -2.5e300,
            1e-7,
            float("inf"),
            float("-inf"),
            "",
            'a"\\\n\t\x00é€😀\u2028/',
            "ModuleNotFoundError",
        ]
        if depth > 3 or rng.random() < 0.4:
            return rng.choice(leaves)
        if rng.random() < 0.5:
            return [value(depth + 1) for _ in range(rng.randrange(4))]
        return {
            rng.choice(["a", "b", "é", 'q"', "\n"]): value(depth + 1)
            for _ in range(rng.randrange(4))
        }

    for _ in range(500):
        item = value()
        for sort_keys in (False, True):
            assert codec.dumps(item, sort_keys=sort_keys) == json.dumps(
                item, ensure_ascii=False, sort_keys=sort_keys
            )
            assert codec.dumps(item, sort_keys=sort_keys, compact=True) == json.dumps(
                item, ensure_ascii=False, sort_keys=sort_keys, separators=(",", ":")
            )
        text = json.dumps(item, indent=rng.choice([None, 2]))
        assert json.dumps(codec.loads(f" \n{text}\r\t")) == json.dumps(json.loads(text))
    # what the walk does not take, json does
    assert codec.dumps({1: (2, 3)}) == '{"1": [2, 3]}'
    for bad in ("", " ", "not json", '{"a": 1} x', "\ufeff{}", "[1,", '{"a": "\x01"}'):
        with pytest.raises(json.JSONDecodeError) as error:
            codec.loads(bad)
        with pytest.raises(json.JSONDecodeError) as expected:
            json.loads(bad)
        assert str(error.value) == str(expected.value)


@pytest.mark.slow
def test_a_success_with_no_failure_before_it_is_not_even_spooled(project: Path) -> None:
    assert hook("tool", fixed_pytest(project, "s1")) == ""
    assert not (project / ".hindsight" / "spool" / "events.jsonl").exists()


@pytest.mark.slow
def test_whole_session_then_the_next_session_starts_with_the_lesson(
    project: Path, fake: Any
) -> None:
    start = claude(project, "s1", "SessionStart", source="startup", model="claude-sonnet-4-5")
    # nothing known yet: no context
    assert hook("session-start", start) == ""
    assert (
        hook("prompt", claude(project, "s1", "UserPromptSubmit", prompt="make the API tests pass"))
        == ""
    )
    hook("tool-failure", failing_pytest(project, "s1"))
    hook("tool", fixed_pytest(project, "s1"))
    assert hook("stop", claude(project, "s1", "Stop", stop_hook_active=False)) == ""

    out = json.loads(hook("session-start", claude(project, "s2", "SessionStart", source="startup")))
    context = out["hookSpecificOutput"]["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert context.startswith("[hindsight: ")
    # the lesson: the error's line, then the commands that fixed it
    assert (
        "ModuleNotFoundError: No module named 'requests' — fix: pip install requests && pytest"
        " tests/test_api.py" in context
    )
    # s1 ended without SessionEnd: summarized at the next start
    assert "Summary of task s1" in context
    assert SECRET not in context

    store = Store(project / ".hindsight", embedder=fake)
    failures = store.list(Filters(task_id="s1", outcomes=("failure",), statuses=None))
    # failed and fixed before the spool was ingested: written once, with its fix
    assert [m.status for m in failures] == ["active"] and failures[0].resolution
    fixed = failures[0]
    assert (
        fixed.trigger == "tool_error"
        and fixed.type == "episodic"
        and fixed.metadata["tool"] == "Bash"
    )
    # ingested
    assert not (project / ".hindsight" / "spool" / "events.jsonl").exists()


@pytest.mark.slow
def test_an_unrelated_success_does_not_count_as_the_fix(project: Path, fake: Any) -> None:
    hook("tool-failure", failing_pytest(project, "s1"))
    unrelated = claude(
        project,
        "s1",
        "PostToolUse",
        tool_name="Bash",
        tool_input={"command": "git status"},
        tool_response={"stdout": "clean", "stderr": ""},
    )
    hook("tool", unrelated)
    hook("session-end", claude(project, "s1", "SessionEnd", reason="exit"))
    store = Store(project / ".hindsight", embedder=fake)
    [failure] = store.list(Filters(task_id="s1", outcomes=("failure",)))
    assert failure.resolution is None
    [summary] = store.list(Filters(task_id="s1", types=("semantic",), tags=("summary",)))
    # SessionEnd summarized the session
    assert summary.trigger == "summary"


@pytest.mark.slow
def test_a_repeated_error_injects_what_was_learnt(project: Path) -> None:
    hook("tool-failure", failing_pytest(project, "s1"))
    hook("tool", fixed_pytest(project, "s1"))
    hook("session-end", claude(project, "s1", "SessionEnd", reason="exit"))
    again = json.loads(hook("tool-failure", failing_pytest(project, "s2")))
    assert again["hookSpecificOutput"]["hookEventName"] == "PostToolUseFailure"
    block = again["hookSpecificOutput"]["additionalContext"]
    assert block.splitlines() == [
        block.splitlines()[0],
        "- [from tool, untrusted] ModuleNotFoundError: No module named 'requests' — fix: pip"
        " install requests && pytest tests/test_api.py",
    ]


@pytest.mark.slow
def test_a_repeated_question_injects_matching_memories(project: Path) -> None:
    hook(
        "prompt",
        claude(project, "s1", "UserPromptSubmit", prompt="why does the weather API return 401?"),
    )
    hook(
        "tool-failure",
        claude(
            project,
            "s1",
            "PostToolUseFailure",
            tool_name="WebFetch",
            tool_input={"url": "https://api.weather.example/today"},
            error="HTTP 401 Unauthorized: weather API token expired",
        ),
    )
    first = hook("prompt", claude(project, "s1", "UserPromptSubmit", prompt="list the files"))
    assert first == ""
    out = json.loads(
        hook(
            "prompt",
            claude(
                project,
                "s2",
                "UserPromptSubmit",
                prompt="why does the weather API return 401 again?",
            ),
        )
    )
    context = out["hookSpecificOutput"]["additionalContext"]
    assert out["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert "weather API token expired" in context
    # the question itself is not an answer
    assert "why does the weather API" not in context


@pytest.mark.slow
def test_a_broken_store_never_breaks_the_agent_and_is_logged(project: Path) -> None:
    (project / ".hindsight" / "config.toml").write_text("[hooks]\nrecall = 'yes'\n")
    assert hook("session-start", claude(project, "s1", "SessionStart", source="startup")) == ""
    log = (project / ".hindsight" / "spool" / "hooks.log").read_text()
    assert "session-start" in log and "recall must be bool" in log


@pytest.mark.slow
def test_garbage_on_stdin_exits_zero_and_logs(project: Path) -> None:
    result = subprocess.run(
        shlex.split(command("claude-code", "tool", None)),
        input="not json",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert "JSONDecodeError" in (Path(os.environ["HINDSIGHT_HOME"]) / "hooks.log").read_text()


@pytest.mark.slow
def test_parts_can_be_turned_off(project: Path) -> None:
    (project / ".hindsight" / "config.toml").write_text("[hooks]\nrecord_failures = false\n")
    hook("tool-failure", failing_pytest(project, "s1"))
    assert spool_text(project) == ""


@pytest.mark.parametrize(
    "client, event, payload, answer",
    [
        (
            "cursor",
            "prompt",
            {
                "conversation_id": "c1",
                "generation_id": "g1",
                "hook_event_name": "beforeSubmitPrompt",
                "prompt": "hello",
                "workspace_roots": [],
            },
            {"continue": True},
        ),
        (
            "cursor",
            "stop",
            {"conversation_id": "c1", "hook_event_name": "stop", "status": "completed"},
            {},
        ),
        (
            "gemini",
            "stop",
            {
                "session_id": "g1",
                "hook_event_name": "AfterAgent",
                "prompt": "hi",
                "prompt_response": "done",
                "stop_hook_active": False,
            },
            {},
        ),
    ],
)
@pytest.mark.slow
def test_clients_that_need_an_answer_get_one(
    project: Path, client: str, event: str, payload: dict[str, Any], answer: dict[str, Any]
) -> None:
    payload.setdefault("cwd", str(project))
    assert json.loads(hook(event, payload, client=client)) == answer


def test_cursor_and_gemini_and_codex_failures_are_recognised(project: Path) -> None:
    cursor = events.normalize(
        "cursor",
        "postToolUseFailure",
        {
            "conversation_id": "c1",
            "tool_name": "Shell",
            "tool_input": {"command": "npm test"},
            "error_message": "Command failed with exit code 1",
            "failure_type": "error",
        },
    )
    gemini = events.normalize(
        "gemini",
        "AfterTool",
        {
            "session_id": "g1",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "make"},
            "tool_response": {
                "llmContent": "",
                "returnDisplay": "",
                "error": "make: *** [all] Error 2",
            },
        },
    )
    codex = events.normalize(
        "codex",
        "PostToolUse",
        {
            "session_id": "x1",
            "tool_name": "Bash",
            "tool_input": {"command": "cargo build"},
            "tool_response": "Exit code: 101\nerror[E0425]: cannot find value `x`",
        },
    )
    ok = events.normalize(
        "codex",
        "PostToolUse",
        {
            "session_id": "x1",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_response": "Exit code: 0\n",
        },
    )
    assert [e.kind for e in (cursor, gemini, codex, ok)] == [
        "tool-failure",
        "tool-failure",
        "tool-failure",
        "tool",
    ]
    assert (cursor.session, cursor.args, gemini.error) == (
        "c1",
        "npm test",
        "make: *** [all] Error 2",
    )
    assert events.respond("cursor", "session-start", "X") == '{"additional_context": "X"}'
    assert json.loads(events.respond("gemini", "session-start", "X")) == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "X"}
    }


# --- install / uninstall / status
# -------------------------------------------------------------------------


def test_install_merges_is_idempotent_and_uninstall_removes_exactly_ours(
    cli: Any, home: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    theirs = {
        "model": "opus",
        "hooks": {
            "PostToolUse": [
                {
                    "matcher": "Edit|Write",
                    "hooks": [{"type": "command", "command": "prettier --write"}],
                }
            ]
        },
    }
    settings.write_text(json.dumps(theirs, indent=2))

    first = cli("hooks", "install", "--client", "claude-code", "--json", store=False)
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    assert report["changed"] is True and Path(report["backup"]).read_text() == json.dumps(
        theirs, indent=2
    )
    data = json.loads(settings.read_text())
    assert data["model"] == "opus"
    assert set(data["hooks"]) == {
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "PostToolUseFailure",
        "Stop",
        "PreCompact",
        "SessionEnd",
    }
    assert data["hooks"]["PostToolUse"][0] == theirs["hooks"]["PostToolUse"][0]
    ours = data["hooks"]["PostToolUse"][1]
    assert (
        ours["matcher"] == "*"
        # the environment's bin/hindsight-hook, a path that survives a rebuild on another Python
        and "/bin/hindsight-hook tool --client claude-code" in ours["hooks"][0]["command"]
    )

    again = cli("hooks", "install", "--client", "claude-code", "--json", store=False)
    assert json.loads(again.stdout)["changed"] is False
    assert json.loads(settings.read_text()) == data

    status = json.loads(cli("hooks", "status", "--json", store=False).stdout)
    row = next(
        r for r in status["clients"] if r["client"] == "claude-code" and r["scope"] == "user"
    )
    assert len(row["events"]) == 7

    removed = cli("hooks", "uninstall", "--client", "claude-code", store=False)
    assert removed.exit_code == 0 and "Removed hindsight's hooks" in removed.stderr
    assert json.loads(settings.read_text()) == theirs


@pytest.mark.parametrize(
    "client, scope, relative, event",
    [
        ("cursor", "project", ".cursor/hooks.json", "sessionStart"),
        ("codex", "user", ".codex/hooks.json", "SessionStart"),
        ("gemini", "user", ".gemini/settings.json", "BeforeAgent"),
    ],
)
def test_other_clients_install_and_a_file_we_created_goes_on_uninstall(
    cli: Any, home: Path, _isolated: Path, client: str, scope: str, relative: str, event: str
) -> None:
    result = cli("hooks", "install", "--client", client, "--scope", scope, store=False)
    assert result.exit_code == 0, result.output
    path = (_isolated if scope == "project" else home) / relative
    data = json.loads(path.read_text())
    assert event in data["hooks"]
    if client == "cursor":
        assert data["version"] == 1 and "command" in data["hooks"]["sessionStart"][0]
    cli("hooks", "uninstall", "--client", client, "--scope", scope, store=False)
    assert not path.exists()


def test_install_refuses_a_broken_settings_file_and_an_unsupported_client(
    cli: Any, home: Path
) -> None:
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{ not json")
    result = cli("hooks", "install", "--client", "claude-code", store=False)
    assert result.exit_code == 1 and "is not valid JSON" in result.stderr
    assert settings.read_text() == "{ not json"
    windsurf = cli("hooks", "install", "--client", "windsurf", store=False)
    assert (
        windsurf.exit_code == 2
        and "'windsurf' is not one of 'claude-code', 'codex'" in windsurf.stderr
    )


def test_hook_command_in_process_answers_like_the_entry_file(cli: Any, project: Path) -> None:
    result = cli(
        "hook", "tool-failure", input=json.dumps(failing_pytest(project, "s9")), store=False
    )
    assert (result.exit_code, result.stdout) == (0, "")
    assert "ModuleNotFoundError" in spool_text(project)


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_mcp_server_sees_what_a_hook_just_spooled(project: Path, fake: Any) -> None:
    from mcp import Client

    from hindsight_cli.mcp_server import build_server

    store = Store(project / ".hindsight", embedder=fake)
    store.init()
    hook("PostToolUseFailure", failing_pytest(project, "s-mcp"))
    assert "ModuleNotFoundError" in spool_text(project)
    async with Client(build_server(store), raise_exceptions=True) as client:
        result = await client.call_tool(
            "memory_search", {"query": "No module named requests pytest"}
        )
    hits = result.structured_content["hits"]
    assert hits and "ModuleNotFoundError" in hits[0]["content"] and SECRET not in json.dumps(hits)
    from hindsight_cli.storage import spool

    # ingested: the events are in the store now
    assert not spool.pending(store.path)


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.parametrize("every", [3600.0, 0.01])
async def test_memory_search_never_writes_the_servers_own_loop_ingests(
    project: Path, fake: Any, every: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    import anyio
    from mcp import Client

    from hindsight_cli.mcp_server import build_server, server
    from hindsight_cli.storage import spool

    monkeypatch.setattr(server, "INGEST_EVERY", every)
    store = Store(project / ".hindsight", embedder=fake)
    store.init()
    async with Client(build_server(store), raise_exceptions=True) as client:
        # a tool call waits for the server's start-up look at the spool (beside the handshake)
        await client.call_tool("memory_search", {"query": "nothing yet"})
        hook("PostToolUseFailure", failing_pytest(project, "s-loop"))
        # the loop sleeps: only a search could ingest, and it must not
        if every > 60:
            marker = store.ledger.change_token()
            await client.call_tool("memory_search", {"query": "No module named requests pytest"})
            assert spool.pending(store.path) and store.ledger.change_token() == marker
            return
        # the server's loop picks the event up on its own
        with anyio.fail_after(30):
            while spool.pending(store.path):
                await anyio.sleep(0.01)
        result = await client.call_tool(
            "memory_search", {"query": "No module named requests pytest"}
        )
    assert "ModuleNotFoundError" in result.structured_content["hits"][0]["content"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("xdg", [None, "/tmp/custom-xdg"])
def test_user_directories_match_platformdirs_without_importing_it(
    monkeypatch: pytest.MonkeyPatch, xdg: str | None
) -> None:
    import platformdirs

    from hindsight_cli import paths

    monkeypatch.delenv("HINDSIGHT_HOME", raising=False)
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        if xdg:
            monkeypatch.setenv(name, f"{xdg}/{name.lower()}")
        else:
            monkeypatch.delenv(name, raising=False)
    assert paths.user_data_dir() == Path(platformdirs.user_data_dir("hindsight"))
    assert paths.user_config_path().parent == Path(platformdirs.user_config_dir("hindsight"))
    assert paths.user_cache_dir() == Path(platformdirs.user_cache_dir("hindsight"))


def test_the_hooks_fast_defaults_are_the_configs() -> None:
    """A recording hook cannot afford to import the config module, so it keeps its own copy of the
    [hooks] defaults; this keeps the copy honest."""
    from hindsight_cli.config import Config
    from hindsight_cli.hooks import Settings

    assert Settings.DEFAULTS == {
        name: getattr(Config(), f"hooks_{name}") for name in Settings.DEFAULTS
    }
    assert {f"hooks_{name}" for name in Settings.DEFAULTS} == {
        n for n in vars(Config()) if n.startswith("hooks_")
    }


def test_a_config_that_sets_no_hooks_key_is_not_parsed_by_a_hook() -> None:
    """The file a new store gets names [hooks] with every key commented out: reading it as the
    defaults saves every hook the TOML parser; anything that may set a hooks key is parsed."""
    from hindsight_cli.config import default_config_toml
    from hindsight_cli.hooks.settings import sets_hooks

    assert not sets_hooks(default_config_toml())
    assert not sets_hooks("[search]\nengine = 'auto'\n# hooks are off\n")
    for text in (
        "[hooks]\nrecall = false\n",
        "[hooks] # mine\n\n# note\nrepeat_budget = 100\n",
        "[ hooks ]\nrecall = false\n",
        "hooks.recall = false\n",
        "hooks = { recall = false }\n",
        "[hooks.extra]\nx = 1\n",
        "[[hooks]]\n",
        default_config_toml().replace("[hooks]", "[hooks]\nsummarize = false", 1),
    ):
        assert sets_hooks(text), text
