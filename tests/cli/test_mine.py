"""`hindsight mine`: every client end to end from the CLI on a fake home, on both backends."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import transcript_fixtures as tf
from conftest import Cli, stored_data
from transcript_fixtures import agents_fixture  # noqa: F401  (the `agents` fixture)

from hindsight_cli.models import Filters

CWD = "/work/weather"
SESSIONS = {
    "claude-code": "5e6f0c1a-old",
    "codex": "0199a3f2-7b1c-7e21-9c4d-5b6a7c8d9e0f",
    "gemini": "3f2a9c1e-0000-4000-8000-00000000abcd",
    "opencode": "ses_4f1b2c3d4e5fWeather",
}
WRITERS: dict[str, Callable[..., Path]] = {
    "claude-code": tf.claude_code,
    "codex": tf.codex,
    "gemini": tf.gemini,
    "opencode": tf.opencode,
}


def _json(result: Any) -> dict[str, Any]:
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def _mined(cli: Cli) -> list[Any]:
    return cli.open().list(
        Filters(tags=("mined",), statuses=("active",)), limit=None, oldest_first=True
    )


@pytest.mark.parametrize("client", list(WRITERS))
def test_each_client_is_mined_from_where_it_keeps_its_history(
    cli: Cli, agents: Path, client: str
) -> None:
    WRITERS[client](agents, CWD)
    data = _json(cli("mine", client, "--json"))
    assert data["clients"][0] | {"sessions": 1} == data["clients"][0]
    assert (
        data["clients"][0]["added"],
        data["clients"][0]["fixes"],
        data["clients"][0]["summaries"],
    ) == (5, 2, 1)
    mined = sorted(_mined(cli), key=lambda m: m.step)
    assert [m.step for m in mined] == [0, 1, 2, 3, 4]
    assert {m.task_id for m in mined} == {SESSIONS[client]}
    assert [m.event_at[:16] for m in mined] == [
        tf.at(10 * n)[:16] for n in range(5)
    ] or client == "codex"
    assert all(m.metadata["project"] == CWD and m.metadata["client"] == client for m in mined)
    assert [m.outcome for m in mined] == ["failure", "success", "failure", "success", "success"]
    # the fix: the commands from the failed call to the success of its family
    assert mined[0].resolution.endswith("pytest -q tests/test_weather.py")
    # fixed in a later exchange
    assert "./deploy.sh --env staging --ssh" in mined[2].resolution
    assert "天气接口的超时" in mined[1].content
    web = mined[4]
    assert (web.source, "quarantined" in web.tags) == (
        ("agent", False) if client == "codex" else ("web", True)
    )
    summary = cli.open().list(Filters(task_id=SESSIONS[client], types=("semantic",)))
    # one summary of the session (in linked parts when its errors and fixes run long)
    assert [m.trigger for m in summary][:1] == ["summary"]
    assert {m.trigger for m in summary} <= {"summary", "summary_part"}


@pytest.mark.parametrize("client", list(WRITERS))
def test_secrets_in_tool_output_are_redacted_in_every_file_and_table(
    cli: Cli, agents: Path, client: str
) -> None:
    WRITERS[client](agents, CWD)
    assert cli("mine", client).exit_code == 0
    blobs = stored_data(cli.store_path)
    assert not [
        name for name, blob in blobs if tf.SECRET.encode() in blob or tf.PASSWORD.encode() in blob
    ]
    assert any(b"[REDACTED" in blob for _, blob in blobs)


def _append(client: str, home: Path, path: Path) -> None:
    """One more exchange, written the way the client appends it."""
    if client == "claude-code":
        tf.append(path, tf.claude_lines([tf.EXTRA], SESSIONS[client], CWD, offset=5))
    elif client == "codex":
        tf.append(path, tf.codex_lines([tf.EXTRA], SESSIONS[client], CWD, offset=5))
    elif client == "gemini":
        tf.append(path, tf.gemini_records([tf.EXTRA], offset=5))
    else:
        with sqlite3.connect(path / "opencode.db") as conn:
            tf.opencode_db_messages(
                conn, SESSIONS[client], tf.opencode_messages([tf.EXTRA], SESSIONS[client], CWD, 5)
            )
            conn.execute("UPDATE session SET time_updated = time_updated + 1")


@pytest.mark.parametrize("client", list(WRITERS))
def test_a_rerun_adds_nothing_and_an_append_adds_exactly_the_new_exchange(
    cli: Cli, agents: Path, client: str
) -> None:
    path = WRITERS[client](agents, CWD)
    assert _json(cli("mine", client, "--json"))["total"]["added"] == 5
    again = _json(cli("mine", client, "--json"))["total"]
    # unchanged: not even read
    assert (again["added"], again["exchanges"]) == (0, 0)
    _append(client, agents, path)
    third = _json(cli("mine", client, "--json"))["total"]
    assert (third["added"], third["skipped"]) == (1, 0)
    mined = _mined(cli)
    assert len(mined) == 6 and max(m.step for m in mined) == 5
    assert any(tf.EXTRA.prompt in m.content for m in mined)


def test_the_last_exchange_mined_mid_turn_is_replaced_when_it_grows(cli: Cli, agents: Path) -> None:
    lines = tf.claude_lines(tf.STORY, SESSIONS["claude-code"], CWD)
    cut = next(i for i, line in enumerate(lines) if tf.STORY[4].answer in json.dumps(line))
    path = tf._jsonl(
        agents / ".claude" / "projects" / "-work-weather" / f"{SESSIONS['claude-code']}.jsonl",
        lines[:cut],
    )
    assert _json(cli("mine", "claude-code", "--json"))["total"]["added"] == 5
    tf.append(path, lines[cut:])
    assert _json(cli("mine", "claude-code", "--json"))["total"]["added"] == 0
    mined = _mined(cli)
    assert len(mined) == 5 and tf.STORY[4].answer in mined[-1].content
    versions = cli.open().history(mined[-1].id)
    assert [m.status for m in versions] == ["superseded", "active"]


def test_dry_run_counts_what_would_be_written_and_writes_nothing(cli: Cli, agents: Path) -> None:
    tf.claude_code(agents, CWD)
    result = cli("mine", "claude-code", "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert "Dry run: would add 5 memories from 5 new exchange(s) in 1 session(s)" in result.stderr
    assert "redacted" in result.stdout
    assert not (cli.store_path / "mined").exists()
    # an option before the client counts too
    before = cli("mine", "--dry-run", "claude-code", "--json")
    assert json.loads(before.stdout)["dry_run"] is True and not (cli.store_path / "mined").exists()
    assert _json(cli("mine", "claude-code", "--json"))["total"]["added"] == 5


def test_since_mines_only_newer_exchanges_and_a_later_full_run_adds_the_rest(
    cli: Cli, agents: Path
) -> None:
    tf.claude_code(agents, CWD)
    data = _json(cli("mine", "claude-code", "--since", "2026-01-05T10:25:00Z", "--json"))["total"]
    assert (data["added"], data["filtered"]) == (2, 3)
    assert _json(cli("mine", "claude-code", "--json"))["total"]["added"] == 3


def test_project_keeps_to_sessions_inside_it(cli: Cli, agents: Path, tmp_path: Path) -> None:
    project = tmp_path / "work" / "weather"
    project.mkdir(parents=True)
    tf.claude_code(agents, str(project / "src"), session="inside")
    tf.claude_code(agents, str(tmp_path / "elsewhere"), session="outside")
    data = _json(cli("mine", "claude-code", "--project", str(project), "--json"))
    assert data["project"] == str(project.resolve()) and data["total"]["added"] == 5
    assert {m.task_id for m in _mined(cli)} == {"inside"}


@pytest.mark.local_only
def test_inside_a_project_its_store_and_its_sessions_are_the_default(
    cli: Cli, agents: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "work"
    assert cli("init", store=False).exit_code == 0
    tf.claude_code(agents, str(project), session="here")
    tf.claude_code(agents, "/somewhere/else", session="there")
    data = _json(cli("mine", "claude-code", "--json", store=False))
    assert data["store"] == str(project / ".hindsight") and data["total"]["added"] == 5


def test_a_file_of_another_format_is_refused_in_one_line(cli: Cli, agents: Path) -> None:
    path = tf.claude_code(agents, CWD)
    result = cli("mine", "codex", str(path))
    assert result.exit_code == 1
    assert (
        result.stderr.strip().count("\n") == 0 and "is not a Codex CLI transcript" in result.stderr
    )
    assert not (cli.store_path / "mined").exists()
    missing = cli("mine", "gemini", str(agents / "nope.jsonl"))
    assert missing.exit_code == 1 and "No such file or directory" in missing.stderr


def test_broken_and_unknown_lines_are_counted_with_a_warning(cli: Cli, agents: Path) -> None:
    path = tf.claude_code(agents, CWD)
    tf.append(path, [{"type": "brand-new-kind", "sessionId": "x"}, [1, 2]])
    result = cli("mine", "claude-code", "--json")
    data = _json(result)["total"]
    assert (data["broken"], data["unknown"], data["added"]) == (2, 1, 5)
    last = len(path.read_text().splitlines())
    assert (
        f"skipped 2 broken line(s) (line 7, {last}) and 1 line(s) of an unknown kind"
        in result.stderr
    )


def test_mine_all_summarises_what_it_found_first_then_mines_every_client(
    cli: Cli, agents: Path
) -> None:
    for write in WRITERS.values():
        write(agents, CWD)
    result = cli("mine", "--all")
    assert result.exit_code == 0, result.stderr
    found, _, mined = result.stdout.partition("client ")[2].partition("client ")
    for title in ("Claude Code", "Codex CLI", "Gemini CLI", "OpenCode"):
        assert title in found
    assert (
        "total" in mined
        and "added 20 memories from 20 new exchange(s) in 4 session(s)" in result.stderr
    )
    data = _json(cli("mine", "--all", "--json"))
    assert [f["client"] for f in data["found"]] == list(WRITERS) and data["total"]["added"] == 0
    assert cli("mine").exit_code == 2 and cli("mine", "--all", "codex").exit_code == 1


def test_a_fix_from_an_old_session_answers_search(cli: Cli, agents: Path) -> None:
    tf.claude_code(agents, CWD)
    later = [
        tf.Turn(
            "Add a forecast endpoint",
            "Added /forecast.",
            [
                tf.Call(
                    "edit",
                    {
                        "file_path": "src/forecast.py",
                        "old_string": "",
                        "new_string": "def forecast(): ...",
                    },
                    True,
                    "ok",
                )
            ],
        )
    ]
    path = agents / ".claude" / "projects" / "-work-weather" / "new-session.jsonl"
    tf._jsonl(path, tf.claude_lines(later, "new-session", CWD))
    assert cli("mine", "claude-code").exit_code == 0
    for flags in ((), ("--troubleshoot",)):
        hits = _json(
            cli("search", "ModuleNotFoundError: No module named requests", *flags, "--json")
        )
        first = hits["hits"][0] if isinstance(hits, dict) else hits[0]
        assert first["task_id"] == SESSIONS["claude-code"] and first["outcome"] == "failure"
        assert first["resolution"] == "pip install requests ; pytest -q tests/test_weather.py"
        assert first["event_at"].startswith("2026-01-05") and "quarantined" not in first["tags"]


def test_the_progress_shows_a_bar_per_file_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from rich.console import Console

    from hindsight_cli.cli import render

    screen = io.StringIO()
    monkeypatch.setitem(
        render._CONSOLES, "err", Console(file=screen, force_terminal=True, width=100)
    )
    with render.file_progress(2) as update:
        update("first-session.jsonl", 10, 100)
        update("first-session.jsonl", 100, 100)
        update("second-session.jsonl", 5, 50)
    shown = screen.getvalue()
    assert "first-session.jsonl" in shown and "second-session.jsonl" in shown and "1/2" in shown


@pytest.mark.parametrize("client", ["codex", "gemini", "claude-code", "opencode"])
def test_a_client_with_no_history_says_where_it_looked(cli: Cli, home: Path, client: str) -> None:
    done = cli("mine", client)
    assert done.exit_code == 0 and done.stdout == ""
    message = " ".join(done.stderr.split())
    assert "transcripts in " in message and str(home) in message
    assert f"name the folder: hindsight mine {client} PATH" in message


def test_an_empty_folder_named_for_a_client_is_said_so(cli: Cli, tmp_path: Path) -> None:
    empty = tmp_path / "nothing-here"
    empty.mkdir()
    done = cli("mine", "claude-code", str(empty))
    assert done.exit_code == 0 and f"No Claude Code transcripts in {empty}" in done.stderr
