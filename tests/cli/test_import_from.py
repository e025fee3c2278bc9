"""`hindsight import FILE --from KIND`: other tools' exports end to end, on both backends."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import export_fixtures as ex
import pytest
import transcript_fixtures as tf
from conftest import Cli, stored_data

from hindsight_cli.models import Filters


def _imported(cli: Cli, kind: str) -> list[Any]:
    return cli.open().list(Filters(tags=(kind,)), limit=None, oldest_first=True)


def _run(cli: Cli, path: Path, kind: str) -> dict[str, Any]:
    result = cli("import", str(path), "--from", kind, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize("kind,client", [("chatgpt", "chatgpt"), ("claude", "claude-ai")])
def test_chat_exports_become_one_memory_per_exchange(
    cli: Cli, tmp_path: Path, kind: str, client: str
) -> None:
    path = (
        ex.chatgpt(tmp_path / "conversations.json")
        if kind == "chatgpt"
        else ex.claude_ai(tmp_path / "c.json")
    )
    data = _run(cli, path, kind)
    assert (data["added"], data["skipped"], data["unknown"]) == (5, 0, 1)
    memories = sorted(_imported(cli, client), key=lambda m: m.step)
    assert [m.content.split("\n")[0] for m in memories] == [f"Prompt: {t.prompt}" for t in tf.STORY]
    assert {m.task_id for m in memories} == {
        "68a1-weather" if kind == "chatgpt" else "c0ffee00-weather"
    }
    assert memories[0].event_at.startswith("2026-01-05T10:00") and memories[0].source == "import"
    assert (memories[4].source, "quarantined" in memories[4].tags) == ("web", True)
    assert not any("STALE" in m.content for m in memories)
    # idempotent
    assert _run(cli, path, kind)["added"] == 0


def test_a_downloaded_zip_is_read_without_unpacking(cli: Cli, tmp_path: Path) -> None:
    inner = ex.chatgpt(tmp_path / "conversations.json")
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.write(inner, "export-2026-01-06/conversations.json")
        handle.writestr("export-2026-01-06/user.json", "{}")
    assert _run(cli, archive, "chatgpt")["added"] == 5


def test_mcp_memory_graph_becomes_one_memory_per_observation_and_relation(
    cli: Cli, tmp_path: Path
) -> None:
    data = _run(cli, ex.mcp_memory(tmp_path / "memory.jsonl"), "mcp-memory")
    assert (data["added"], data["broken"], data["unknown"]) == (4, 1, 1)
    contents = sorted(m.content for m in _imported(cli, "mcp-memory"))
    assert contents == [
        "alice (person): Prefers pytest -q",
        "alice maintains weather-service",
        "weather-service (project): Deploys to staging need the deploy key",
        "weather-service (project): 超时设置为 30 秒",
    ]
    assert all(m.type == "semantic" and m.source == "import" for m in _imported(cli, "mcp-memory"))


def test_basic_memory_notes_give_observations_and_a_note_with_its_links(
    cli: Cli, tmp_path: Path
) -> None:
    folder = ex.basic_memory(tmp_path / "notes")
    assert _run(cli, folder, "basic-memory")["added"] == 4
    memories = {m.content.split("\n")[0]: m for m in _imported(cli, "basic-memory")}
    decision = memories["Weather Service: [decision] Deploy to staging with the deploy key #deploy"]
    assert {"decision", "deploy", "weather"} <= set(decision.tags)
    assert decision.metadata["context"] == "the token was rejected"
    assert "Weather Service: [fact] 天气接口的超时是 30 秒 #timeout" in memories
    note = memories["Weather Service"]
    assert note.metadata["links"] == ["maintained_by [[Alice]]", "depends_on [[Weather API]]"]
    assert "Talks to the Weather API" in note.content and "hidden folder" not in json.dumps(
        list(memories)
    )


@pytest.mark.parametrize("shape", ["results", "list"])
def test_mem0_get_all_output_in_either_shape(cli: Cli, tmp_path: Path, shape: str) -> None:
    data = _run(cli, ex.mem0(tmp_path / "mem0.json", shape), "mem0")
    assert (data["added"], data["unknown"]) == ((3 if shape == "results" else 2), 1)
    memories = {m.content: m for m in _imported(cli, "mem0")}
    coffee = memories["喜欢早上喝咖啡"]
    assert coffee.event_at.startswith("2026-01-03T08:00") and "user:alice" in coffee.tags
    assert coffee.metadata["mem0_id"] == "a1b2c3d4-0000-4000-8000-000000000002"


@pytest.mark.parametrize(
    "kind,maker",
    [
        ("chatgpt", lambda p: ex.mem0(p)),
        ("mem0", lambda p: ex.chatgpt(p)),
        ("mcp-memory", lambda p: ex.mem0(p)),
        ("claude", lambda p: ex.chatgpt(p)),
    ],
)
def test_a_file_of_another_kind_is_refused_in_one_line(
    cli: Cli, tmp_path: Path, kind: str, maker: Any
) -> None:
    path = maker(tmp_path / "x.json")
    result = cli("import", str(path), "--from", kind)
    assert result.exit_code == 1 and f"is not a {kind} export" in result.stderr
    assert result.stderr.strip().count("\n") == 0
    assert not cli.open().exists or cli.open().list() == []


def test_import_from_says_what_to_do_with_unknown_kinds_and_stdin(cli: Cli, tmp_path: Path) -> None:
    bad = cli("import", "x.json", "--from", "evernote")
    assert (
        bad.exit_code == 2
        and "'evernote' is not one of 'jsonl', 'chatgpt', 'claude', 'mcp-memory'" in bad.stderr
    )
    stdin = cli("import", "-", "--from", "chatgpt", input="[]")
    assert stdin.exit_code == 1 and "give its path" in stdin.stderr


def test_jsonl_stays_the_default(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps({"content": "plain export line", "key": "k1"}) + "\n")
    assert cli("import", str(path)).exit_code == 0
    assert cli("import", str(path), "--from", "jsonl").exit_code == 0
    assert [m.content for m in cli.open().list()] == ["plain export line"]


def test_secrets_in_an_imported_chat_are_redacted(cli: Cli, tmp_path: Path) -> None:
    turns = [tf.Turn(f"my token is {tf.SECRET}, why is it rejected?", "Rotate it.", [])]
    _run(cli, ex.claude_ai(tmp_path / "c.json", turns), "claude")
    assert not [n for n, blob in stored_data(cli.store_path) if tf.SECRET.encode() in blob]
