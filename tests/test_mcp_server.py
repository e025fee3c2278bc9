"""The MCP face through real MCP clients: the SDK's Client in-process and over a stdio
subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from hindsight_cli.mcp_server import build_server
from hindsight_cli.store import Store

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_tools_have_schemas_and_annotations(store: Store) -> None:
    async with Client(build_server(store), raise_exceptions=True) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) >= {"memory_write", "memory_search", "memory_get", "memory_forget"}
    assert tools["memory_search"].annotations.read_only_hint is True
    assert tools["memory_get"].annotations.read_only_hint is True
    assert tools["memory_forget"].annotations.destructive_hint is True
    assert tools["memory_write"].annotations.idempotent_hint is True
    assert tools["memory_write"].annotations.destructive_hint is False
    # memory_write answers with a compact confirmation (issue 17): the record itself only with
    # verbose.
    assert {"id", "deduplicated", "superseded", "redactions"} <= set(
        tools["memory_write"].output_schema["properties"]
    )
    assert "content" not in tools["memory_write"].output_schema["properties"]
    assert {"hits", "context", "tokens"} <= set(tools["memory_search"].output_schema["properties"])
    assert "budget_tokens" in tools["memory_search"].input_schema["properties"]


async def test_tool_parameters_have_descriptions_and_enums(store: Store) -> None:
    """The model reads the input schemas: every parameter says what it is, and closed sets are
    enums."""
    from hindsight_cli.models import MEMORY_TYPES, OUTCOMES

    async with Client(build_server(store), raise_exceptions=True) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}

    def enum_of(schema: dict) -> list:
        options = schema.get("anyOf", [schema])
        for option in options:
            item = option.get("items", option)
            if "enum" in item:
                return item["enum"]
        return []

    for tool in tools.values():
        for name, schema in tool.input_schema["properties"].items():
            assert schema.get("description"), (tool.name, name)
    write, search = (
        tools["memory_write"].input_schema["properties"],
        tools["memory_search"].input_schema["properties"],
    )
    assert enum_of(write["type"]) == list(MEMORY_TYPES) and enum_of(write["outcome"]) == list(
        OUTCOMES
    )
    assert enum_of(search["types"]) == list(MEMORY_TYPES) and enum_of(search["outcomes"]) == list(
        OUTCOMES
    )
    assert enum_of(search["mode"]) == ["hybrid", "vector", "keyword"]
    assert "web" in write["source"]["description"] and "tool" in write["source"]["description"]
    assert "default 400" in search["budget_tokens"]["description"]
    async with Client(build_server(store)) as client:
        bad = await client.call_tool("memory_write", {"content": "x", "type": "lesson"})
    assert bad.is_error and store.list() == []


async def test_write_search_get_forget_round_trip(store: Store) -> None:
    async with Client(build_server(store), raise_exceptions=True) as client:
        written = await client.call_tool(
            "memory_write",
            {
                "content": "weather API returned 401 because the token expired",
                "outcome": "failure",
                "resolution": "refreshed the token",
                "task_id": "t-1",
                "trigger": "tool_error",
                "env": {"tool_version": "v2"},
            },
        )
        assert not written.is_error
        memory = written.structured_content
        assert (
            memory["deduplicated"] is False
            and memory["redactions"] == 0
            and memory["superseded"] == []
        )
        assert written.content[0].text == f"Recorded {memory['id']}."
        assert store.get(memory["id"]).task_id == "t-1"
        again = await client.call_tool(
            "memory_write",
            {
                "content": "weather API returned 401 because the token expired",
                "outcome": "failure",
                "resolution": "refreshed the token",
                "task_id": "t-1",
                "trigger": "tool_error",
            },
        )
        assert (
            again.structured_content["id"] == memory["id"]
            and again.structured_content["deduplicated"]
        )
        assert again.content[0].text == f"Already stored as {memory['id']} (deduplicated)."

        found = await client.call_tool(
            "memory_search", {"query": "weather api 401", "budget_tokens": 200}
        )
        result = found.structured_content
        assert [h["id"] for h in result["hits"]] == [memory["id"]]
        assert result["hits"][0]["score"] > 0 and result["tokens"] <= 200
        assert result["context"].startswith("[hindsight: 1 memory, ")
        assert "fix: refreshed the token" in result["context"]
        assert found.content[0].text == f"{result['context']}\nids in order: {memory['id']}"
        assert (
            "content_hash" not in result["hits"][0] and "idempotency_key" not in result["hits"][0]
        )
        assert (
            result["hits"][0]["task_id"] == "t-1"
            and result["hits"][0]["resolution"] == "refreshed the token"
        )
        full = await client.call_tool(
            "memory_search", {"query": "weather api 401", "verbose": True}
        )
        assert (
            full.structured_content["hits"][0]["content_hash"]
            == store.get(memory["id"]).content_hash
        )
        some = await client.call_tool(
            "memory_search", {"query": "weather api 401", "fields": ["outcome", "score"]}
        )
        assert set(some.structured_content["hits"][0]) == {"id", "content", "outcome", "score"}

        got = await client.call_tool("memory_get", {"id": memory["id"]})
        assert (
            got.structured_content["content"]
            == "weather API returned 401 because the token expired"
        )
        assert (
            got.content[0].text.startswith(memory["id"])
            and "fix: refreshed the token" in got.content[0].text
        )

        forgot = await client.call_tool("memory_forget", {"ids": [memory["id"]]})
        assert forgot.structured_content == {"forgotten": 1, "hard": False, "archived": False}
        empty = await client.call_tool("memory_search", {"query": "weather api 401"})
        assert empty.structured_content["hits"] == []
    assert store.get(memory["id"]).status == "invalidated"


async def test_secrets_are_redacted_through_mcp(store: Store) -> None:
    async with Client(build_server(store)) as client:
        result = await client.call_tool(
            "memory_write", {"content": "use key AKIAQ3EGRZ7KVN2LWX5T for s3"}
        )
    assert result.structured_content["redactions"] == 1
    assert "AKIAQ3EGRZ7KVN2LWX5T" not in store.get(result.structured_content["id"]).content


async def test_errors_are_tool_errors_that_say_what_to_do(store: Store) -> None:
    async with Client(build_server(store)) as client:
        bad = await client.call_tool("memory_write", {"content": "x", "importance": 5})
        assert bad.is_error and "importance must be between 0 and 1" in bad.content[0].text
        missing = await client.call_tool("memory_get", {"id": "nope"})
        assert missing.is_error and "No memory with id 'nope'" in missing.content[0].text
        empty = await client.call_tool("memory_search", {"query": "   "})
        assert empty.is_error and "The query is empty" in empty.content[0].text
        wrong_type = await client.call_tool("memory_search", {"query": "x", "top_k": "many"})
        assert wrong_type.is_error
        nothing = await client.call_tool("memory_forget", {})
        assert nothing.is_error and "Say what to forget" in nothing.content[0].text
        bad_age = await client.call_tool("memory_forget", {"older_than": "ages"})
        assert bad_age.is_error and "Invalid older_than" in bad_age.content[0].text
    assert store.list() == []


async def test_forget_by_filter_through_mcp(store: Store) -> None:
    store.record("temporary scratch note", ttl="1s")
    kept = store.record("keep this one").memory
    import asyncio

    await asyncio.sleep(1.2)
    async with Client(build_server(store), raise_exceptions=True) as client:
        result = await client.call_tool("memory_forget", {"expired": True})
        assert result.structured_content == {"forgotten": 1, "hard": True, "archived": False}
        none = await client.call_tool("memory_forget", {"older_than": "30d"})
        assert none.structured_content["forgotten"] == 0
    # expired ones are purged, not just hidden
    assert [m.id for m in store.list()] == [kept.id]


async def test_agent_scope_cannot_be_widened(store: Store) -> None:
    other = store.record("agent b's secret plan for the migration", agent_id="b").memory
    async with Client(build_server(store, agent="a")) as client:
        mine = await client.call_tool(
            "memory_write", {"content": "agent a's note about the migration", "verbose": True}
        )
        assert mine.structured_content["memory"]["agent_id"] == "a"
        widened = await client.call_tool("memory_write", {"content": "sneaky", "agent_id": "b"})
        assert widened.is_error and "scoped to agent 'a'" in widened.content[0].text
        hits = (
            await client.call_tool("memory_search", {"query": "migration plan"})
        ).structured_content["hits"]
        assert [h["agent_id"] for h in hits] == ["a"]
        asked = await client.call_tool(
            "memory_search", {"query": "migration plan", "agent_id": "b"}
        )
        assert asked.is_error
        peek = await client.call_tool("memory_get", {"id": other.id})
        assert peek.is_error and "No memory with id" in peek.content[0].text
        forget = await client.call_tool("memory_forget", {"ids": [other.id], "hard": True})
        assert forget.is_error
        recent = json.loads(
            (await client.read_resource("hindsight://memories/recent")).contents[0].text
        )
        assert [m["agent_id"] for m in recent] == ["a"]
    assert store.get(other.id).status == "active"


async def test_resources_and_recall_prompt(store: Store) -> None:
    memory = store.record(
        "deploys to staging need make deploy ENV=staging", type="procedural"
    ).memory
    async with Client(build_server(store), raise_exceptions=True) as client:
        one = await client.read_resource(f"hindsight://memory/{memory.id}")
        assert json.loads(one.contents[0].text)["id"] == memory.id
        prompt = await client.get_prompt("recall", {"task": "deploy to staging"})
        text = prompt.messages[0].content.text
        assert (
            "[hindsight: 1 memory" in text
            and "make deploy ENV=staging" in text
            and "Task: deploy to staging" in text
        )


def _hindsight_command() -> list[str]:
    return [sys.executable, "-m", "hindsight_cli"]


@pytest.mark.slow
async def test_stdio_subprocess_with_the_sdk_client(tmp_path: Path) -> None:
    command = _hindsight_command()
    params = StdioServerParameters(
        command=command[0],
        args=[*command[1:], "mcp", "--store", str(tmp_path / "s")],
        env={"HINDSIGHT_HOME": str(tmp_path / "home")},
    )
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert "memory_search" in names
        written = await client.call_tool(
            "memory_write", {"content": "kafka consumer lag spiked after deploy"}
        )
        assert not written.is_error
        hits = (await client.call_tool("memory_search", {"query": "kafka lag"})).structured_content[
            "hits"
        ]
        assert hits[0]["id"] == written.structured_content["id"]
    assert Store(tmp_path / "s").get(written.structured_content["id"]).content.startswith("kafka")


def _rpc(message_id: int, method: str, params: dict | None = None) -> str:
    return (
        json.dumps({"jsonrpc": "2.0", "id": message_id, "method": method, "params": params or {}})
        + "\n"
    )


@pytest.mark.slow
def test_stdout_carries_only_json_rpc(tmp_path: Path) -> None:
    """A raw session as a host drives it: every stdout line must be a JSON-RPC message."""
    env = {**os.environ, "HINDSIGHT_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen(
        [*_hindsight_command(), "mcp", "--store", str(tmp_path / "s")],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write(
        _rpc(
            1,
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw-test", "version": "0"},
            },
        )
    )
    proc.stdin.flush()
    # how soon it answers (within the strictest client's 10 s) is benchmarks/bench_mcp_start.py's
    first = json.loads(proc.stdout.readline())
    assert first["id"] == 1 and first["result"]["serverInfo"]["name"] == "hindsight"
    assert "memory_search" in first["result"]["instructions"]
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    proc.stdin.write(_rpc(2, "tools/list"))
    proc.stdin.write(
        _rpc(
            3, "tools/call", {"name": "memory_write", "arguments": {"content": "raw session note"}}
        )
    )
    proc.stdin.write(_rpc(4, "tools/call", {"name": "memory_write", "arguments": {"content": ""}}))
    proc.stdin.flush()
    messages: list[dict] = []

    def read_until(ids: set[int]) -> None:
        while not ids <= {m.get("id") for m in messages}:
            line = proc.stdout.readline()
            assert line, "the server closed stdout early"
            # raises on any line that is not JSON
            messages.append(json.loads(line))

    # requests run concurrently: the search waits for the write that creates the store
    read_until({2, 3, 4})
    proc.stdin.write(
        _rpc(5, "tools/call", {"name": "memory_search", "arguments": {"query": "raw session"}})
    )
    proc.stdin.write("this is not json\n")
    proc.stdin.write(_rpc(6, "tools/call", {"name": "no_such_tool", "arguments": {}}))
    proc.stdin.flush()
    read_until({5, 6})
    # closes stdin: the client hangs up
    out, err = proc.communicate(timeout=60)
    assert "result" in first and all(
        "result" in m or "error" in m for m in messages if "id" in m
    ), err
    messages += [json.loads(line) for line in out.splitlines() if line.strip()]
    assert proc.returncode == 0
    assert all(m.get("jsonrpc") == "2.0" for m in messages)
    by_id = {m.get("id"): m for m in messages}
    assert by_id[3]["result"]["isError"] is False
    assert (
        by_id[4]["result"]["isError"] is True
        and "content is empty" in by_id[4]["result"]["content"][0]["text"]
    )
    assert "structuredContent" in by_id[5]["result"], (by_id[5], err)
    assert by_id[5]["result"]["structuredContent"]["hits"][0]["content"] == "raw session note"
    assert "Traceback" not in err


class RawSession:
    """A stdio MCP session driven line by line, as a host does."""

    def __init__(self, store: Path, home: Path) -> None:
        env = {**os.environ, "HINDSIGHT_HOME": str(home), "HINDSIGHT_LOCK_TIMEOUT": "60"}
        self.proc = subprocess.Popen(
            [*_hindsight_command(), "mcp", "--store", str(store)],
            env=env,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 0
        self.call(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def call(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.proc.stdout
        while True:
            message = json.loads(self.proc.stdout.readline())
            if message.get("id") == self.next_id:
                return message["result"]

    def tool(self, name: str, **arguments: object) -> dict:
        return self.call("tools/call", {"name": name, "arguments": arguments})

    def close(self) -> None:
        self.proc.communicate(timeout=60)


@pytest.mark.slow
def test_two_servers_and_the_cli_share_a_store(tmp_path: Path) -> None:
    store = tmp_path / "shared"
    Store(store).init()
    servers = [RawSession(store, tmp_path / "home"), RawSession(store, tmp_path / "home")]
    cli = subprocess.Popen(
        [
            *_hindsight_command(),
            "record",
            "the cli wrote this during the session",
            "--store",
            str(store),
        ],
        env={
            **os.environ,
            "HINDSIGHT_HOME": str(tmp_path / "home"),
            "HINDSIGHT_LOCK_TIMEOUT": "60",
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        notes = [
            "shared cache keys include the lockfile hash",
            "shared cache eviction runs every night",
            "shared cache warm-up takes ten minutes",
            "shared cache lives on the NFS volume",
            "shared cache misses spike after deploys",
            "shared cache size is capped at 20 GB",
        ]
        for n, server in enumerate(servers):
            for note in notes[n * 3 : n * 3 + 3]:
                result = server.tool("memory_write", content=note)
                assert (
                    result["isError"] is False
                    and result["structuredContent"]["deduplicated"] is False
                )
        _out, err = cli.communicate(timeout=120)
        assert cli.returncode == 0, err
        for server in servers:
            hits = server.tool("memory_search", query="shared cache", top_k=10)[
                "structuredContent"
            ]["hits"]
            assert set(notes) <= {h["content"] for h in hits}
            assert server.tool("memory_search", query="the cli wrote this")["structuredContent"][
                "hits"
            ]
    finally:
        for server in servers:
            server.close()
    assert len(Store(store).list(limit=None)) == 7


async def test_memory_summarize_tool(store: Store) -> None:
    for step in range(3):
        store.record(
            f"step {step}: rotated the api keys on host {step}",
            task_id="rot",
            step=step,
            outcome="success",
        )
    async with Client(build_server(store), raise_exceptions=True) as client:
        result = await client.call_tool("memory_summarize", {"task_id": "rot"})
        assert not result.is_error
        summary = result.structured_content
        assert (
            summary["type"] == "semantic"
            and summary["summarized"] == 3
            and len(summary["source_ids"]) == 3
        )
        assert summary["content"].startswith("Summary of task rot (3 memories")
        empty = await client.call_tool("memory_summarize", {"task_id": "none"})
        assert empty.is_error and "Nothing to summarize" in empty.content[0].text


@contextmanager
def _http_server(store: Path, tmp_path: Path) -> Iterator[str]:
    """`hindsight mcp --transport http` in a subprocess on a free port; yields its URL. Afterwards,
    checks that nothing but the log file got its output."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "HINDSIGHT_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen(
        [
            *_hindsight_command(),
            "mcp",
            "--transport",
            "http",
            "--port",
            str(port),
            "--store",
            str(store),
            "--log-file",
            str(tmp_path / "mcp.log"),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with socket.socket() as attempt:
                if attempt.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    # logs went to the log file, never stdout
    assert out == ""


@pytest.mark.slow
async def test_streamable_http_transport(tmp_path: Path) -> None:
    with _http_server(tmp_path / "s", tmp_path) as url:
        async with Client(url) as client:
            assert "memory_write" in {t.name for t in (await client.list_tools()).tools}
            written = await client.call_tool(
                "memory_write", {"content": "served over streamable http"}
            )
            assert written.structured_content["deduplicated"] is False
    assert "hindsight MCP server on http" in (tmp_path / "mcp.log").read_text()


def _llm(replies: list) -> object:
    """A sampling callback standing in for the client's LLM; records each request it gets."""
    from mcp.types import CreateMessageResult, TextContent

    async def sample(context, params):  # noqa: ANN001, ANN202
        replies.append(params)
        return CreateMessageResult(
            role="assistant",
            model="test-llm",
            content=TextContent(type="text", text="Rotated every key; host 1 needed a retry."),
        )

    return sample


# 2026-07-28 input-required rounds, 2025-11-25 requests
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_memory_summarize_uses_sampling_when_the_client_offers_it(
    store: Store, mode: str
) -> None:
    store.record("rotated the api keys on host 0", task_id="rot", outcome="success")
    store.record(
        "host 1 refused the new key",
        task_id="rot",
        outcome="failure",
        resolution="retried after 30 s",
    )
    requests: list = []
    async with Client(build_server(store), mode=mode, sampling_callback=_llm(requests)) as client:
        result = await client.call_tool("memory_summarize", {"task_id": "rot"})
    assert not result.is_error
    summary = result.structured_content
    assert summary["method"] == "sampling:test-llm"
    assert summary["content"] == "Rotated every key; host 1 needed a retry."
    assert len(requests) == 1
    prompt = requests[0].messages[0].content.text
    assert "host 1 refused the new key" in prompt and "(fix: retried after 30 s)" in prompt
    stored = store.get(summary["id"])
    assert stored.metadata["method"] == "sampling:test-llm" and len(stored.source_ids) == 2


async def test_memory_summarize_falls_back_to_extractive_without_sampling(store: Store) -> None:
    store.record("rotated the api keys on host 0", task_id="rot", outcome="success")
    async with Client(build_server(store), raise_exceptions=True) as client:
        summary = (
            await client.call_tool("memory_summarize", {"task_id": "rot"})
        ).structured_content
    assert summary["method"] == "extractive"
    assert summary["content"].startswith("Summary of task rot (1 memory")


async def test_supersede_archive_troubleshoot_and_consolidate_through_mcp(store: Store) -> None:
    other = store.record("agent b's note about the cache", agent_id="b").memory
    async with Client(build_server(store, agent="a"), raise_exceptions=True) as client:
        old = (
            await client.call_tool("memory_write", {"content": "the cache lives in redis"})
        ).structured_content
        new = (
            await client.call_tool(
                "memory_write",
                {"content": "the cache lives in memcached now", "supersedes": old["id"]},
            )
        ).structured_content
        assert new["superseded"] == [old["id"]]
        hits = (
            await client.call_tool("memory_search", {"query": "where does the cache live"})
        ).structured_content
        assert [h["id"] for h in hits["hits"]] == [new["id"]]
        refused = await client.call_tool(
            "memory_write", {"content": "mine now", "supersedes": other.id}
        )
        # another agent's memory does not exist for a scoped writer (issue 16: scope never revealed)
        assert refused.is_error and "No memory with id" in refused.content[0].text
        assert "agent 'b'" not in refused.content[0].text
        archived = await client.call_tool("memory_forget", {"ids": [new["id"]], "archive": True})
        assert archived.structured_content == {"forgotten": 1, "hard": False, "archived": True}
        cold = await client.call_tool(
            "memory_search", {"query": "cache memcached", "include_archived": True}
        )
        assert [h["status"] for h in cold.structured_content["hits"]] == ["archived"]
        for text in (
            "pytest hit the import error for numpy again",
            "pytest hit the import error for numpy",
        ):
            await client.call_tool(
                "memory_write",
                {
                    "content": text,
                    "outcome": "failure",
                    "merge": False,
                    "resolution": "reinstalled numpy in the venv",
                },
            )
        await client.call_tool(
            "memory_write", {"content": "pytest import error for numpy noted", "outcome": "failure"}
        )
        found = await client.call_tool(
            "memory_search", {"query": "pytest import error numpy", "troubleshoot": True}
        )
        assert found.structured_content["hits"][0]["resolution"] == "reinstalled numpy in the venv"
        planned = await client.call_tool("memory_consolidate", {"dry_run": True})
        plan = planned.structured_content
        assert plan["dry_run"] is True and plan["created"] == 1
        # no id yet
        assert plan["patterns"][0]["id"] is None and "- create (new): " in planned.content[0].text
        assert plan["patterns"][0]["resolution"] == "reinstalled numpy in the venv"
        wrote = (await client.call_tool("memory_consolidate", {})).structured_content
        assert wrote["created"] == 1
        assert (await client.call_tool("memory_consolidate", {})).structured_content[
            "unchanged"
        ] == 1
    assert store.get(old["id"]).status == "superseded"
    assert store.log(action="archive")[0].actor == "a"
    assert all(m.agent_id == "a" for m in store.list() if m.trigger == "consolidate")


async def test_a_changed_fact_says_what_it_replaced(store: Store) -> None:
    async with Client(build_server(store), raise_exceptions=True) as client:
        first = (
            await client.call_tool(
                "memory_write",
                {"content": "the staging deploy timeout is 60 seconds", "type": "semantic"},
            )
        ).structured_content
        changed = await client.call_tool(
            "memory_write",
            {"content": "the staging deploy timeout is 100 seconds", "type": "semantic"},
        )
    assert changed.structured_content["superseded"] == [first["id"]]
    assert changed.structured_content["change"] == "60 → 100"
    assert changed.content[0].text.endswith(
        f'It replaces {first["id"]} (60 → 100; [write] on_change = "keep_both" keeps both).'
    )
    assert store.get(first["id"]).status == "superseded"


@pytest.mark.slow
async def test_http_tokens_scope_each_agent_on_one_shared_server(
    store_dir: Path, tmp_path: Path
) -> None:
    """One HTTP server, many agents: each request needs a token and sees only its agent's
    memories."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import ResourceTemplateReference
    from typer.testing import CliRunner

    from hindsight_cli.cli import app

    made = {
        a: CliRunner().invoke(app, ["mcp", "token", a, "--store", str(store_dir)])
        for a in ("alice", "bob")
    }
    assert all(r.exit_code == 0 and r.stdout.startswith("hst_") for r in made.values())
    token = {a: r.stdout.strip() for a, r in made.items()}
    # hashes only
    assert not any(t in (store_dir / "mcp-tokens.json").read_text() for t in token.values())

    def as_agent(name: str) -> Client:
        return Client(
            streamable_http_client(
                url,
                http_client=httpx2.AsyncClient(
                    headers={"Authorization": f"Bearer {token[name]}"},
                    # the first call waits for the model
                    timeout=httpx2.Timeout(30, read=300),
                ),
            )
        )

    with _http_server(store_dir, tmp_path) as url:
        for stranger in (None, "forged"):
            with httpx2.Client() as http:
                answer = http.post(
                    url,
                    json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                    headers=({"Authorization": "Bearer hst_forged"} if stranger else {}),
                )
            assert answer.status_code == 401
        async with as_agent("alice") as alice:
            written = await alice.call_tool(
                "memory_write", {"content": "alice's launch plan: ship on friday", "verbose": True}
            )
            assert written.structured_content["memory"]["agent_id"] == "alice"
            plan = written.structured_content["id"]
        async with as_agent("bob") as bob:
            assert (
                await bob.call_tool(
                    "memory_write", {"content": "bob's note on the launch", "verbose": True}
                )
            ).structured_content["memory"]["agent_id"] == "bob"
            hits = (
                await bob.call_tool("memory_search", {"query": "launch plan"})
            ).structured_content["hits"]
            assert [h["agent_id"] for h in hits] == ["bob"]
            assert (
                await bob.call_tool("memory_search", {"query": "launch", "agent_id": "alice"})
            ).is_error
            assert (await bob.call_tool("memory_get", {"id": plan})).is_error
            # completion offers only the requesting token's agent's ids (issue 34)
            offered = await bob.complete(
                ResourceTemplateReference(
                    type="ref/resource", uri="hindsight://memory/{memory_id}"
                ),
                {"name": "memory_id", "value": ""},
            )
            assert offered.completion.values and plan not in offered.completion.values
            assert (await bob.call_tool("memory_forget", {"ids": [plan], "hard": True})).is_error
            assert (
                await bob.call_tool("memory_write", {"content": "sneaky", "agent_id": "alice"})
            ).is_error
        async with as_agent("alice") as alice:
            hits = (
                await alice.call_tool("memory_search", {"query": "launch plan"})
            ).structured_content["hits"]
            assert [h["id"] for h in hits] == [plan]
    assert Store(store_dir).get(plan).status == "active"
    assert "bearer tokens required" in (tmp_path / "mcp.log").read_text()
