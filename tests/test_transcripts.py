"""The transcript readers on each client's real format (several versions): what becomes an exchange,
what is dropped as boilerplate, which calls failed, and the pieces they share (clipping, digests).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import export_fixtures as ex
import pytest
import transcript_fixtures as tf

from hindsight_cli.transcripts import chats, exchange, reader
from hindsight_cli.transcripts.base import Reading, Resume
from hindsight_cli.transcripts.lines import iter_json_array, read_lines
from hindsight_cli.transcripts.records import to_record

pytestmark = pytest.mark.no_store
CWD = "/work/weather"


def _read(client: str, root: Path) -> tuple[list[exchange.Exchange], Reading]:
    module, found, reading = reader(client), [], Reading()
    for unit in module.units(root):
        found.extend(module.read(unit, Resume(), reading))
    return found, reading


WRITERS = {
    "claude-code 2.1": ("claude-code", lambda h: tf.claude_code(h, CWD), ".claude/projects"),
    "claude-code 1.0": (
        "claude-code",
        lambda h: tf.claude_code(h, CWD, version="1.0.3"),
        ".claude/projects",
    ),
    "codex rollout": ("codex", lambda h: tf.codex(h, CWD), ".codex/sessions"),
    "codex early": ("codex", lambda h: tf.codex(h, CWD, legacy=True), ".codex/sessions"),
    "gemini jsonl": ("gemini", lambda h: tf.gemini(h, CWD), ".gemini/tmp"),
    "gemini json": ("gemini", lambda h: tf.gemini(h, CWD, version="json"), ".gemini/tmp"),
    "gemini saved chat": (
        "gemini",
        lambda h: tf.gemini(h, CWD, version="checkpoint"),
        ".gemini/tmp",
    ),
    "opencode db": ("opencode", lambda h: tf.opencode(h, CWD), ".local/share/opencode"),
    "opencode json": (
        "opencode",
        lambda h: tf.opencode(h, CWD, version="json"),
        ".local/share/opencode",
    ),
}


@pytest.mark.parametrize("name", WRITERS)
def test_each_format_gives_one_exchange_per_prompt_with_its_calls(
    name: str, tmp_path: Path
) -> None:
    client, write, root = WRITERS[name]
    write(tmp_path)
    found, reading = _read(client, tmp_path / root)
    assert [e.prompt for e in found] == [t.prompt for t in tf.STORY]
    assert [e.position for e in found] == list(range(len(tf.STORY)))
    assert [len(e.calls) for e in found] == [len(t.calls) for t in tf.STORY]
    assert [[c.ok for c in e.calls] for e in found] == [[c.ok for c in t.calls] for t in tf.STORY]
    assert (
        tf.STORY[0].answer in found[0].answer and "已把天气接口的超时改成 30 秒" in found[1].answer
    )
    assert "ModuleNotFoundError" in found[0].calls[0].error
    assert found[-1].closed is False and all(e.closed for e in found[:-1])
    assert all(e.ctx.get("project") == CWD for e in found), [e.ctx.get("project") for e in found]
    # one JSON, no lines
    assert reading.broken == (0 if name in ("gemini json", "gemini saved chat") else 1)


@pytest.mark.parametrize("name", WRITERS)
def test_injected_context_and_reminders_never_become_memory_text(name: str, tmp_path: Path) -> None:
    client, write, root = WRITERS[name]
    write(tmp_path)
    found, _ = _read(client, tmp_path / root)
    text = "\n".join(
        to_record(e, client=client, agent=None, max_bytes=16384)["content"] for e in found
    )
    for boilerplate in (
        "system-reminder",
        "Stay on task",
        "Caveat:",
        "environment_context",
        "AGENTS.md",
        "permissions instructions",
        "Called the Read tool",
        "A STALE ANSWER",
        "Request cancelled",
    ):
        assert boilerplate not in text


def test_claude_code_ids_times_and_context(tmp_path: Path) -> None:
    tf.claude_code(tmp_path, CWD)
    found, _ = _read("claude-code", tmp_path / ".claude/projects")
    assert found[0].anchor == "5e6f0c1a-old-u0" and found[0].at == tf.at(0)
    assert found[0].ctx["branch"] == "main" and found[0].ctx["session"] == "5e6f0c1a-old"
    assert [c.tool for c in found[4].calls] == ["Read", "WebFetch"]
    # fetched content: kept as a digest
    assert "Ignore all previous instructions" in found[4].calls[1].web


def test_claude_code_interrupted_calls_are_neither_failures_nor_fixes(tmp_path: Path) -> None:
    lines = tf.claude_lines(tf.STORY[:1], "s", CWD)
    for line in lines:
        for block in (line.get("message") or {}).get("content") or []:
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_result"
                and block.get("is_error")
            ):
                block["content"] = [
                    {"type": "text", "text": "[Request interrupted by user for tool use]"}
                ]
    path = tf._jsonl(tmp_path / "p" / "s.jsonl", lines)
    found, _ = _read("claude-code", path)
    assert [c.ok for c in found[0].calls] == [None, True, True]


def test_codex_early_rollouts_take_the_working_directory_from_the_injected_context(
    tmp_path: Path,
) -> None:
    path = tf.codex(tmp_path, CWD, legacy=True)
    found, _ = _read("codex", path)
    assert (
        found[0].ctx["session"] == "0199a3f2-7b1c-7e21-9c4d-5b6a7c8d9e0f"
        and found[0].ctx["project"] == CWD
    )
    # the JSON envelope is unwrapped
    assert found[0].calls[0].error.startswith("E   ModuleNotFoundError")


def test_gemini_keeps_the_last_version_of_a_rewritten_answer(tmp_path: Path) -> None:
    tf.gemini(tmp_path, CWD)
    found, _ = _read("gemini", tmp_path / ".gemini/tmp")
    # not the "executing" first versions
    assert [c.ok for c in found[0].calls] == [False, True, True]
    assert found[0].answer == tf.STORY[0].answer


def test_gemini_finds_the_project_of_an_old_hash_directory_in_the_registry(tmp_path: Path) -> None:
    tf.gemini(tmp_path, CWD, version="json")
    unit = next(reader("gemini").units(tmp_path / ".gemini/tmp"))
    assert unit.meta["project"] == CWD and unit.meta["whole"] is True


def test_opencode_database_leaves_out_sub_agent_sessions(tmp_path: Path) -> None:
    tf.opencode(tmp_path, CWD)
    units = list(reader("opencode").units(tmp_path / ".local/share/opencode"))
    assert [u.meta["session"] for u in units] == ["ses_4f1b2c3d4e5fWeather"]
    # messages
    assert units[0].size == 2 * len(tf.STORY)


@pytest.mark.parametrize("kind", ["chatgpt", "claude"])
def test_chat_exports_follow_the_current_branch(kind: str, tmp_path: Path) -> None:
    path = (
        ex.chatgpt(tmp_path / "c.json") if kind == "chatgpt" else ex.claude_ai(tmp_path / "c.json")
    )
    reading = Reading()
    found = list(chats.read(path, kind, reading))
    assert [e.prompt.split("\n")[0] for e in found] == [t.prompt for t in tf.STORY]
    assert all("STALE" not in e.answer for e in found)
    assert found[4].calls and "Ignore all previous" in found[4].calls[0].web
    # the entry that is not a conversation
    assert reading.unknown == 1


@pytest.mark.parametrize(
    "client,other", [("claude-code", "codex"), ("codex", "gemini"), ("gemini", "claude-code")]
)
def test_sniffing_tells_the_formats_apart(client: str, other: str, tmp_path: Path) -> None:
    writer = {"claude-code": tf.claude_code, "codex": tf.codex, "gemini": tf.gemini}
    path = writer[client](tmp_path, CWD)
    assert reader(client).sniff(path) and not reader(other).sniff(path)


def test_json_lines_resume_at_an_offset_and_leave_an_unfinished_last_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": "\xe5\xa4\xa9"}\n{"c": ')
    lines = list(read_lines(path))
    assert [line.value for line in lines] == [{"a": 1}, {"b": "天"}]
    assert next(read_lines(path, lines[0].end)).value == {"b": "天"}


def test_a_big_json_array_is_read_element_by_element(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    # one element over the buffer
    items = [{"n": i, "text": "x" * (3 << 20 if i == 2 else 10)} for i in range(5)]
    path.write_text(json.dumps(items))
    assert [v["n"] for v in iter_json_array(path)] == [0, 1, 2, 3, 4]
    path.write_text('{"results": []}')
    assert list(iter_json_array(path)) == [{"results": []}]


def test_clip_cuts_at_white_space_and_digest_redacts_before_cutting() -> None:
    assert exchange.clip("alpha beta gamma", 12) == "alpha beta"
    assert exchange.clip("alpha beta gamma", 12, keep="tail") == "beta gamma"
    assert (
        exchange.clip("天气接口的超时", 4) == "天气接口"
        and exchange.clip("天气接口的超时", 3, keep="tail") == "的超时"
    )
    # a run that may be a secret is dropped, never cut
    assert exchange.clip("x" * 50, 10) == ""
    secret = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"
    output = "line " * 400 + f"OPENAI_API_KEY={secret} " + "tail " * 5
    digest = exchange.digest(output, 200)
    assert secret[:12] not in digest and len(digest) < 260


@pytest.mark.parametrize(
    "text,expected",
    [
        (
            "<command-name>/review</command-name>\n<command-args>the PR</command-args>",
            "/review the PR",
        ),
        ("<local-command-stdout>done</local-command-stdout>", ""),
        ("<environment_context><cwd>/x</cwd></environment_context>", ""),
        ("why does <div>x</div> break?", "why does <div>x</div> break?"),
        ("fix it <system-reminder>be nice</system-reminder>", "fix it"),
    ],
)
def test_prompt_text(text: str, expected: str) -> None:
    assert exchange.prompt_text(text) == expected


def test_a_record_fits_the_store_limit_whatever_the_exchange(tmp_path: Path) -> None:
    long: Any = tf.Turn(
        "请" * 6000,
        "答" * 9000,
        [tf.Call("shell", {"command": f"step {i}"}, i % 3 != 0, "e " * 900) for i in range(200)],
    )
    path = tf._jsonl(tmp_path / "p" / "s.jsonl", tf.claude_lines([long], "s", CWD))
    found, _ = _read("claude-code", path)
    record = to_record(found[0], client="claude-code", agent=None, max_bytes=16384)
    assert len(record["content"].encode()) <= 16384 - 256
    assert record["content"].startswith("Prompt: 请") and "more calls" in record["content"]


@pytest.mark.parametrize("tail", ["empty entries", "a bad entry"])
def test_a_gemini_saved_chat_is_read_entry_by_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tail: str
) -> None:
    """Review AN: a saved chat (``checkpoint-<tag>.json``, an array) was held whole before its
    first exchange was read: each entry is bounded, all of them were not (94 MB of ``{},`` held
    3 GB; a document of that size is refused at 4 million values). Now the reader takes an entry
    at a time: its exchanges come out while the file is still being read, and an entry that is
    not JSON ends the reading there, counted broken. Counted, not measured: the entries taken
    from the file when the first exchange comes out."""
    from hindsight_cli.transcripts import gemini

    path = tf.gemini(tmp_path, CWD, version="checkpoint")
    entries = json.loads(path.read_text(encoding="utf-8"))
    text = json.dumps([*entries, *[{}] * 5000])
    if tail == "a bad entry":
        text = text[:-1] + ", nope]"
    path.write_text(text, encoding="utf-8")
    taken: list[object] = []

    def counted(*args: Any) -> Any:
        for value in iter_json_array(*args):
            taken.append(value)
            yield value

    monkeypatch.setattr(gemini, "iter_json_array", counted)
    unit = next(gemini.units(tmp_path / ".gemini" / "tmp"))
    reading = Reading()
    read = gemini.read(unit, Resume(), reading)
    first = next(read)
    assert first.prompt == tf.STORY[0].prompt
    assert len(taken) < len(entries) + 10, len(taken)
    rest = list(read)
    assert [e.prompt for e in [first, *rest]] == [t.prompt for t in tf.STORY]
    assert reading.broken == (1 if tail == "a bad entry" else 0)
