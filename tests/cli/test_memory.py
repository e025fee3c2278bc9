"""record, search, list, show, forget, restore through the CLI, with the real bundled model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_embedder import FakeEmbedder

from hindsight_cli import Filters, embedding

# with the bundled model, as a user runs the CLI
pytestmark = pytest.mark.model

WEATHER = "调用天气API时返回401，原因是token过期"


def _record_weather(cli) -> str:
    result = cli(
        "record",
        WEATHER,
        "--agent",
        "agent-001",
        "--task",
        "task-20240501-001",
        "--trigger",
        "tool_error",
        "--outcome",
        "failure",
        "--resolution",
        "刷新token后重试成功",
        "--env",
        "tool_version=weather-api-v2",
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout.strip()


def test_record_prints_the_id_and_stores_every_field(cli) -> None:
    memory_id = _record_weather(cli)
    memory = cli.open().get(memory_id)
    assert memory.content == WEATHER
    assert (memory.agent_id, memory.task_id, memory.trigger, memory.outcome) == (
        "agent-001",
        "task-20240501-001",
        "tool_error",
        "failure",
    )
    assert memory.resolution == "刷新token后重试成功"
    assert memory.env == {"tool_version": "weather-api-v2"}
    result = cli(
        "record",
        WEATHER,
        "--agent",
        "agent-001",
        "--task",
        "task-20240501-001",
        "--trigger",
        "tool_error",
        "--outcome",
        "failure",
        "--resolution",
        "刷新token后重试成功",
    )
    assert result.stdout.strip() == memory_id
    assert "Already stored" in result.stderr


def test_record_json_has_the_data_model_plus_write_flags(cli) -> None:
    result = cli(
        "record",
        "User prefers short answers in Chinese",
        "--type",
        "semantic",
        "--confidence",
        "0.9",
        "--source",
        "user",
        "--tag",
        "pref",
        "--tag",
        "lang",
        "--meta",
        "origin=chat",
        "--json",
    )
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["type"] == "semantic" and data["confidence"] == 0.9 and data["source"] == "user"
    assert data["tags"] == ["pref", "lang"] and data["metadata"] == {"origin": "chat"}
    assert data["deduplicated"] is False and data["redactions"] == 0
    assert set(data) >= {
        "id",
        "content",
        "agent_id",
        "created_at",
        "event_at",
        "status",
        "idempotency_key",
    }


def test_record_reads_stdin_with_dash(cli) -> None:
    result = cli("record", "-", input="long note from a pipe\n")
    assert result.exit_code == 0
    assert cli.open().get(result.stdout.strip()).content == "long note from a pipe"


def test_record_redacts_and_says_so(cli) -> None:
    result = cli(
        "record", "deploy used OPENAI_API_KEY=sk-proj-Q7vN2kLp9XwR4tYb8ZcM3dFh6JsA1gUe", "--json"
    )
    data = json.loads(result.stdout)
    assert data["redactions"] == 1 and "sk-proj" not in data["content"]
    plain = cli("record", "db url postgres://svc:hunter2hunter2@db:5432/app")
    assert "redacted 1 secret" in plain.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["record", ""], "content is empty"),
        (["record", "x", "--importance", "2"], "importance must be between 0 and 1"),
        (["record", "x", "--meta", "novalue"], "--meta expects KEY=VALUE"),
        (["record", "x", "--ttl", "forever"], "Invalid ttl"),
    ],
)
def test_bad_record_input_exits_2_with_one_line_and_writes_nothing(cli, args, message) -> None:
    cli("record", "seed memory")
    result = cli(*args)
    # a value of the wrong shape or range is a usage error (docs/cli.md)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr and result.stderr.startswith("Error: ")
    assert len(result.stderr.strip().splitlines()) == 1
    assert [m.content for m in cli.open().list()] == ["seed memory"]


def test_usage_error_exits_2(cli) -> None:
    result = cli("search")
    assert result.exit_code == 2
    assert "Missing argument" in result.stderr


def test_search_table_json_context_and_explain(cli) -> None:
    weather = _record_weather(cli)
    cli(
        "record",
        "User prefers short answers in Chinese",
        "--type",
        "semantic",
        "--confidence",
        "0.9",
        "--source",
        "user",
    )
    cli("record", "-", input="long note from a pipe")

    table = cli("search", "weather API returns 401")
    assert table.exit_code == 0
    header = table.stdout.splitlines()[0]
    for column in ("rank", "score", "age", "type", "outcome", "content"):
        assert column in header
    # the short form: the id's tail
    assert weather[-8:] in table.stdout and "failure→fixed" in table.stdout

    hits = json.loads(cli("search", "天气 token 过期", "--json").stdout)
    assert hits[0]["id"] == weather and hits[0]["score"] > 0
    assert set(hits[0]["matched"]) == {"vector", "keyword"}

    context = cli("search", "why did the API fail", "--format", "context", "--budget", "300").stdout
    first, second = context.splitlines()[:2]
    assert first.startswith("[hindsight: 1 memory, ") and first.endswith(" tokens]")
    assert (
        second.startswith("- ")
        and "(failure→fixed)" in second
        and "fix: 刷新token后重试成功" in second
    )

    explained = cli("search", "api failure", "--explain")
    assert "matched vector #1" in explained.stdout and "relevance +" in explained.stdout
    data = json.loads(cli("search", "api failure", "--explain", "--json").stdout)
    assert set(data[0]["explain"]["contributions"]) == {
        "relevance",
        "recency",
        "outcome",
        "importance",
        "same_task",
        "identifier",
    }


def test_search_nl_and_empty_result_is_success(cli) -> None:
    cli("record", "kubernetes pod stuck in CrashLoopBackOff", "--tag", "k8s")
    lines = cli("search", "kubernetes pod", "--nl").stdout.splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["tags"] == ["k8s"]
    empty = cli("search", "kubernetes", "--tag", "nope", "--json")
    assert empty.exit_code == 0 and json.loads(empty.stdout) == []
    none = cli("search", "kubernetes", "--agent", "someone-else")
    assert none.exit_code == 0 and none.stdout == "" and "No memories matched" in none.stderr


def test_search_filters_and_modes(cli) -> None:
    cli("record", "nginx returned 502 bad gateway", "--agent", "ops", "--outcome", "failure")
    cli("record", "nginx config reloaded", "--agent", "dev", "--outcome", "success")
    only_ops = json.loads(cli("search", "nginx", "--agent", "ops", "--json").stdout)
    assert [h["agent_id"] for h in only_ops] == ["ops"]
    successes = json.loads(cli("search", "nginx", "--outcome", "success", "--json").stdout)
    assert [h["agent_id"] for h in successes] == ["dev"]
    keyword = json.loads(cli("search", "gateway", "--mode", "keyword", "--json").stdout)
    assert [h["matched"] for h in keyword] == [["keyword"]]
    bad = cli("search", "nginx", "--mode", "psychic")
    assert (
        bad.exit_code == 2 and "'psychic' is not one of 'hybrid', 'vector', 'keyword'" in bad.stderr
    )


def test_list_show_forget_restore(cli) -> None:
    weather = _record_weather(cli)
    other = cli("record", "unrelated note").stdout.strip()
    listed = json.loads(cli("list", "--task", "task-20240501-001", "--json").stdout)
    assert [m["id"] for m in listed] == [weather]

    shown = cli("show", weather)
    assert shown.exit_code == 0 and WEATHER in shown.stdout and "tool_version" in shown.stdout
    assert json.loads(cli("show", weather, "--json").stdout)["id"] == weather
    missing = cli("show", "nope")
    assert missing.exit_code == 1 and "No memory with id 'nope'" in missing.stderr

    forgot = cli("forget", weather)
    assert forgot.exit_code == 0 and "Forgot 1 memory" in forgot.stderr
    assert cli.open().get(weather).status == "invalidated"
    assert weather not in cli("search", "weather API 401").stdout
    assert cli("restore", weather).exit_code == 0
    assert cli.open().get(weather).status == "active"

    refused = cli("forget", other, "--hard")
    assert refused.exit_code == 1 and "add -y" in refused.stderr
    assert cli("forget", other, "--hard", "-y").exit_code == 0
    assert [m.id for m in cli.open().list()] == [weather]


def test_forget_by_filter(cli) -> None:
    for i in range(3):
        cli("record", f"step {i} of the build", "--task", "build-7", "--step", str(i))
    cli("record", "keep me", "--task", "other")
    result = cli("forget", "--task", "build-7", "-y", "--json")
    assert json.loads(result.stdout) == {"forgotten": 3, "hard": False, "archived": False}
    active = cli.open().list(Filters(statuses=("active",)))
    assert [m.content for m in active] == ["keep me"]
    nothing = cli("forget")
    assert nothing.exit_code == 2 and "Say what to forget" in nothing.stderr


def test_summarize_and_walk_the_chain(cli) -> None:
    for step in range(7):
        outcome = (
            ["--outcome", "failure", "--resolution", "pinned numpy below 2"]
            if step == 2
            else ["--outcome", "success"]
        )
        cli(
            "record",
            f"step {step} of the migration: "
            f"{'numpy 2 broke the build' if step == 2 else 'moved table ' + str(step)}",
            "--task",
            "mig-1",
            "--step",
            str(step),
            *outcome,
        )
    result = cli("summarize", "--task", "mig-1")
    assert result.exit_code == 0
    assert result.stdout.startswith("Summary of task mig-1 (7 memories, ")
    assert "numpy 2 broke the build → fix: pinned numpy below 2" in result.stdout
    assert "in a chain of 2 parts" in result.stderr
    data = json.loads(cli("summarize", "--task", "mig-1", "--json").stdout)
    assert data["updated"] is False and data["summarized"] == 7 and len(data["parts"]) == 2
    tree = cli("show", data["id"], "--sources")
    lines = tree.stdout.splitlines()
    assert lines[0].startswith(f"- {data['id'][-8:]} [semantic] Summary of task mig-1")
    assert (
        sum(line.startswith("    - ") for line in lines) == 7
        and sum(line.startswith("  - ") for line in lines) == 2
    )
    chain = json.loads(cli("show", data["id"], "--sources", "--json").stdout)
    assert [m["depth"] for m in chain].count(2) == 7
    nothing = cli("summarize")
    assert nothing.exit_code == 1 and "Say what to summarize" in nothing.stderr


def test_a_changed_fact_supersedes_the_old_one_and_says_so(cli) -> None:
    import json

    first = json.loads(
        cli(
            "record",
            "The weather API rate limit is 60 requests per minute per key",
            "--type",
            "semantic",
            "--json",
        ).stdout
    )
    update = cli(
        "record",
        "The weather API rate limit is 100 requests per minute per key",
        "--type",
        "semantic",
        "--json",
    )
    assert update.exit_code == 0 and "Updated: 60 → 100" in update.stderr
    new = json.loads(update.stdout)
    assert (
        new["deduplicated"] is False
        and new["superseded"] == [first["id"]]
        and new["id"] != first["id"]
    )
    hits = json.loads(cli("search", "weather API rate limit", "--json").stdout)
    # the old value is history, not an answer
    assert [h["id"] for h in hits] == [new["id"]]
    log = json.loads(cli("log", "--action", "supersede", "--json").stdout)
    assert log[0]["ids"] == [first["id"], new["id"]] and "60 → 100" in log[0]["reason"]
    same = json.loads(
        cli(
            "record",
            "the weather API rate limit is 100 requests per minute per key!",
            "--type",
            "semantic",
            "--json",
        ).stdout
    )
    # a restatement merges
    assert same["deduplicated"] is True and same["id"] == new["id"]
    kept = json.loads(
        cli(
            "record",
            "The weather API rate limit is 120 requests per minute per key",
            "--type",
            "semantic",
            "--no-merge",
            "--json",
        ).stdout
    )
    assert kept["superseded"] == [] and cli.open().get(new["id"]).status == "active"


@pytest.mark.parametrize(
    ("args", "code", "says"),
    [
        (["record", "-"], 1, "stdin holds more than 4,194,304 bytes"),
        (["search", "-"], 2, "The query is over 65,536 bytes"),
        (["search", "-", "--troubleshoot"], 2, "The query is over 65,536 bytes"),
    ],
)
def test_a_pipe_too_long_for_a_memory_or_a_query_is_refused_in_one_line(
    cli, args: list[str], code: int, says: str
) -> None:
    cli("record", "seed memory")
    result = cli(*args, input="an error line\n" * 400_000)
    assert result.exit_code == code and result.stdout == ""
    assert result.stderr.startswith(f"Error: {says}") and len(result.stderr.splitlines()) == 1
    assert [m.content for m in cli.open().list()] == ["seed memory"]


@pytest.mark.local_only
def test_content_over_its_parts_is_refused_before_it_is_cleaned(cli, monkeypatch) -> None:
    # what the parts hold and refuse, not what they mean: the stand-in embeds 100 KB in a blink
    # where the bundled model took seconds
    monkeypatch.setitem(
        embedding._CACHE,
        embedding.DEFAULT_MODEL,
        FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM),
    )
    cli("record", "seed memory")
    # 1 MiB and a bit: 64 parts of 16 KiB cannot hold it; nothing is stored, not even a part
    result = cli("record", "-", input="word " * 220_000)
    assert result.exit_code == 1 and "more than 64 parts of 16384 bytes" in result.stderr
    assert [m.content for m in cli.open().list()] == ["seed memory"]
    # what fits in parts is stored whole, in parts, as before
    result = cli("record", "-", input="word " * 20_000)
    assert result.exit_code == 0 and "linked parts" in result.stderr


@pytest.mark.slow
def test_a_refused_pipe_is_not_read_to_its_end(tmp_path: Path) -> None:
    import subprocess
    import sys
    import threading

    done: list[BaseException] = []
    command = [sys.executable, "-m", "hindsight_cli", "record", "-", "--store", str(tmp_path)]
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )

    def feed() -> None:
        assert proc.stdin is not None
        try:
            for _ in range(50):
                proc.stdin.write(b"a" * 1_000_000)
            proc.stdin.close()
        except BrokenPipeError as error:
            done.append(error)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    # stdin is the writer's alone (communicate() would close it under the writer)
    assert proc.stderr is not None
    err = proc.stderr.read()
    proc.wait(120)
    writer.join(120)
    assert proc.returncode == 1 and b"stdin holds more than" in err
    # hindsight stopped reading after its limit: the writer's 50 MB met a closed pipe
    assert done and isinstance(done[0], BrokenPipeError)


@pytest.mark.slow
@pytest.mark.parametrize("columns", [40, 50, 64])
def test_a_narrow_terminal_gets_rows_whose_words_are_whole(tmp_path: Path, columns: int) -> None:
    import os
    import subprocess
    import sys

    text = (
        "The deployment pipeline failed because the container registry credentials expired "
        "during the nightly rotation"
    )
    env = {**os.environ, "COLUMNS": str(columns), "HINDSIGHT_HOME": str(tmp_path / "home")}
    store = ["--store", str(tmp_path / "s")]

    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "hindsight_cli", *args, *store],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    run("record", text, "--outcome", "failure", "--resolution", "rotated the credentials again")
    for output in (run("search", "deployment registry credentials"), run("list")):
        lines = output.splitlines()
        assert all(len(line) <= columns for line in lines), output
        # every word of the text on one line, none cut in two (a table's column was 2 letters)
        assert all(word in output.split() for word in text.split()), output
        assert not any(line != line.rstrip() for line in lines)
    assert "1. failure→fixed · episodic" in run("search", "deployment registry credentials")
