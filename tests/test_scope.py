"""Agent scope holds through idempotency keys, summaries, supersedes and merges (issue 16, point 1):
one agent never sees, changes or shadows another's memories, whatever keys and ids it sends, through
the Python API, an MCP server started with --agent (in process and over stdio) and an HTTP server
with per-agent tokens."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest
from fake_embedder import FakeEmbedder
from hypothesis import HealthCheck, given, settings, strategies as st

from hindsight_cli import InvalidInput, MemoryNotFound
from hindsight_cli.core.prepare import derived_key
from hindsight_cli.evals import floor as bench_floor
from hindsight_cli.storage.sql.duckdb_schema import SCHEMA_VERSION
from hindsight_cli.store import Store

AGENTS = ("alice", "bob")
KEYS = ("deploy-notes", "k-2", None)
TEXTS = (
    "the deploy key rotates weekly",
    "staging runs on db-7.internal",
    "the cache lives in redis",
    "builds need node 20",
    "tokens expire after an hour",
)

# One step: (agent, action, text index, key index, a number picking a target among the known ids)
STEP = st.tuples(
    st.sampled_from(AGENTS),
    st.sampled_from(["write", "summarize", "supersede", "peek", "forget"]),
    st.integers(0, len(TEXTS) - 1),
    st.integers(0, len(KEYS) - 1),
    st.integers(0, 99),
)


def _snapshot(store: Store) -> dict[str, dict[str, tuple[str, str, str]]]:
    """Everything each agent owns: agent -> id -> (content, status, key), read unscoped."""
    owned: dict[str, dict[str, tuple[str, str, str]]] = {agent: {} for agent in AGENTS}
    for m in store.list(limit=None):
        owned.setdefault(m.agent_id, {})[m.id] = (m.content, m.status, m.idempotency_key)
    return owned


def _act(
    view: Store, agent: str, action: str, text: str, key: str | None, target: str | None
) -> list[Any]:
    """One request as ``agent``; returns every memory it got back (which must all be its own)."""
    if action == "write":
        return [view.record(f"{agent}: {text}", key=key, task_id="t1").memory]
    if action == "summarize":
        return [view.summarize(task_id="t1").memory]
    if action == "supersede" and target:
        return [view.record(f"{agent} replaces: {text}", supersedes=target, task_id="t1").memory]
    if action == "peek" and target:
        return [view.get(target)]
    if action == "forget" and target:
        view.forget([target])
    return [hit.memory for hit in view.search(text, k=10).hits]


@pytest.mark.slow
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(STEP, min_size=4, max_size=14))
def test_random_interleavings_never_cross_scope(
    tmp_path_factory: pytest.TempPathFactory, steps: list[Any]
) -> None:
    store = Store(tmp_path_factory.mktemp("scope") / "s", embedder=FakeEmbedder())
    store.init()
    views = {agent: store.scoped(agent) for agent in AGENTS}
    known: list[str] = []
    # one read per step: what a step leaves is what the next one starts from
    owned = _snapshot(store)
    for agent, action, text, key, pick in steps:
        other = AGENTS[1 - AGENTS.index(agent)]
        theirs = owned[other]
        target = known[pick % len(known)] if known else None
        try:
            got = _act(views[agent], agent, action, TEXTS[text], KEYS[key], target)
        except (MemoryNotFound, InvalidInput) as error:
            got = []
            # a refusal never quotes the other agent's memory
            for content, _, _ in theirs.values():
                assert content not in str(error)
            assert other not in str(error)
        assert all(m.agent_id == agent for m in got), (action, got)
        # nothing of the other agent changed
        owned = _snapshot(store)
        assert owned[other] == theirs
        known.extend(m.id for m in got)
    # a key reused by both agents names two memories, each its writer's own
    for agent in AGENTS:
        for memory in store.list(limit=None):
            if memory.agent_id == agent and memory.trigger is None:
                assert memory.content.startswith(f"{agent}")


def test_the_reported_attacks_fail(store: Store) -> None:
    alice, bob = store.scoped("alice"), store.scoped("bob")
    bobs = bob.record(
        "bob's deploy notes: the root password is in the vault", key="deploy-notes"
    ).memory
    # the same key: alice's own memory
    mine = alice.record("alice's deploy notes", key="deploy-notes")
    assert (
        not mine.deduplicated
        and mine.memory.agent_id == "alice"
        and "bob" not in mine.memory.content
    )
    # A key alice claims first does not swallow bob's later write with it.
    first = alice.record("alice claims k-9", key="k-9").memory
    later = bob.record("bob's own k-9 note", key="k-9")
    assert (
        not later.deduplicated
        and later.memory.id != first.id
        and later.memory.content == "bob's own k-9 note"
    )
    # Summary keys: alice plants rows under the keys bob's summary of task t2 will use, before he
    # summarises.
    bob.record("bob ran the t2 migration", task_id="t2")
    for part in range(3):
        alice.record(
            "alice's planted row", key=derived_key("summary", None, "t2", part), task_id="t2"
        )
        alice.record(
            "alice's planted row", key=derived_key("summary", "bob", "t2", part), task_id="t2"
        )
    summary = bob.summarize(task_id="t2").memory
    assert summary.agent_id == "bob" and "migration" in summary.content
    assert all(m.content == "alice's planted row" for m in alice.list() if m.task_id == "t2")
    assert not [h for h in alice.search("t2 migration", k=20).hits if h.memory.agent_id != "alice"]
    # bob's memory does not exist for alice
    with pytest.raises(MemoryNotFound):
        alice.record("alice supersedes bob", supersedes=bobs.id)
    assert store.get(bobs.id).status == "active"


@pytest.mark.local_only
def test_the_upgrade_splits_what_older_versions_let_collide(store: Store) -> None:
    bob_source = store.record("bob ran the t3 migration", agent_id="bob", task_id="t3").memory
    planted = store.record(
        "bob's summary, written into alice's row", agent_id="alice", task_id="t3", key="planted"
    ).memory
    original = store.record("alice's note", agent_id="alice", key="dup").memory
    twin = store.record("a twin written by an unserialised old writer", agent_id="alice").memory
    conn = duckdb.connect(str(store.ledger.path))
    conn.execute("DROP INDEX memories_key")
    conn.execute("DROP INDEX memories_agent_key")
    conn.execute(
        "UPDATE memories SET trigger = 'summary', source_ids = [?] WHERE id = ?",
        [bob_source.id, planted.id],
    )
    conn.execute("UPDATE memories SET idempotency_key = 'dup' WHERE id = ?", [twin.id])
    conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    conn.execute("CREATE INDEX memories_key ON memories (idempotency_key)")
    conn.close()
    upgraded = Store(store.path, embedder=store.embedder)
    # the summary went to the agent it summarises
    assert upgraded.get(planted.id).agent_id == "bob"
    assert upgraded.get(original.id).idempotency_key == "dup"
    # kept, with a key of its own
    assert upgraded.get(twin.id).idempotency_key.startswith("dup#")
    assert upgraded.stats()["schema_version"] == SCHEMA_VERSION
    assert upgraded.record("again", agent_id="alice", key="planted").deduplicated is False


PRELUDE = f"""
import sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from fake_embedder import FakeEmbedder
from hindsight_cli.store import Store
from hindsight_cli import mcp_server
"""


def _rpc(
    proc: subprocess.Popen[str], number: int, method: str, params: dict[str, Any]
) -> dict[str, Any]:
    return dict(bench_floor.rpc(proc, number, method, params)["result"])


def _stdio_server(path: Path, agent: str, home: Path) -> subprocess.Popen[str]:
    code = PRELUDE + (
        f"mcp_server.run(Store({str(path)!r}, embedder=FakeEmbedder(), warm=True), "
        f"agent={agent!r}, "
        "transport='stdio', host='', port=0, log_file=None)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        env={**os.environ, "HINDSIGHT_HOME": str(home)},
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    _rpc(
        proc,
        0,
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "scope-test", "version": "0"},
        },
    )
    assert proc.stdin
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    return proc


def _tool(proc: subprocess.Popen[str], number: int, name: str, **arguments: Any) -> dict[str, Any]:
    return _rpc(proc, number, "tools/call", {"name": name, "arguments": arguments})


@pytest.mark.slow
@pytest.mark.local_only
def test_two_stdio_servers_scoped_with_agent_keep_their_keys_apart(tmp_path: Path) -> None:
    path = tmp_path / "s"
    Store(path, embedder=FakeEmbedder()).init()
    alice, bob = (_stdio_server(path, a, tmp_path / "home") for a in AGENTS)
    try:
        b = _tool(
            bob,
            1,
            "memory_write",
            content="bob: the prod db password is in the vault",
            key="deploy-notes",
        )
        a = _tool(alice, 1, "memory_write", content="alice: deploy notes", key="deploy-notes")
        assert not a["isError"] and a["structuredContent"]["deduplicated"] is False
        assert a["structuredContent"]["id"] != b["structuredContent"]["id"]
        peek = _tool(alice, 2, "memory_get", id=b["structuredContent"]["id"])
        assert peek["isError"] and "vault" not in json.dumps(peek)
        hits = _tool(alice, 3, "memory_search", query="prod db password vault deploy notes")
        assert all(h["agent_id"] == "alice" for h in hits["structuredContent"]["hits"])
        replaced = _tool(
            alice,
            4,
            "memory_write",
            content="alice takes over",
            supersedes=b["structuredContent"]["id"],
        )
        assert replaced["isError"] and "bob" not in replaced["content"][0]["text"]
    finally:
        for proc in (alice, bob):
            proc.communicate(timeout=60)
    assert Store(path, embedder=FakeEmbedder()).get(b["structuredContent"]["id"]).status == "active"


@pytest.mark.slow
@pytest.mark.anyio
@pytest.mark.local_only
async def test_http_tokens_keep_keys_and_summaries_apart(store: Store, tmp_path: Path) -> None:
    import socket
    import time

    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from typer.testing import CliRunner

    from hindsight_cli.cli import app

    token = {
        a: CliRunner().invoke(app, ["mcp", "token", a, "--store", str(store.path)]).stdout.strip()
        for a in AGENTS
    }
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = PRELUDE + (
        f"mcp_server.run(Store({str(store.path)!r}, embedder=FakeEmbedder(), warm=True), "
        f"agent=None, "
        f"transport='http', host='127.0.0.1', port={port}, log_file=None, "
        f"tokens=__import__('pathlib').Path({str(store.path / 'mcp-tokens.json')!r}))"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        env={**os.environ, "HINDSIGHT_HOME": str(tmp_path / "h")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        # await the port (a condition, not a guess at start-up time)
        while time.monotonic() < deadline:
            with socket.socket() as attempt:
                if attempt.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        url = f"http://127.0.0.1:{port}/mcp"

        def as_agent(name: str) -> Client:
            return Client(
                streamable_http_client(
                    url,
                    http_client=httpx2.AsyncClient(
                        headers={"Authorization": f"Bearer {token[name]}"},
                        timeout=httpx2.Timeout(60),
                    ),
                )
            )

        async with as_agent("bob") as bob:
            secret = await bob.call_tool(
                "memory_write",
                {"content": "bob: the vault path is /v/prod", "key": "notes", "task_id": "t4"},
            )
            await bob.call_tool("memory_summarize", {"task_id": "t4"})
        async with as_agent("alice") as alice:
            mine = await alice.call_tool(
                "memory_write", {"content": "alice: my notes", "key": "notes"}
            )
            assert mine.structured_content["id"] != secret.structured_content["id"]
            assert mine.structured_content["deduplicated"] is False
            # bob's summary keys, claimed by alice: her own rows, nothing of bob's
            for part in range(2):
                claimed = await alice.call_tool(
                    "memory_write",
                    {"content": "alice probes", "key": derived_key("summary", "bob", "t4", part)},
                )
                assert "vault" not in json.dumps(claimed.structured_content)
            hits = (
                await alice.call_tool("memory_search", {"query": "vault path prod notes"})
            ).structured_content
            assert all(h["agent_id"] == "alice" for h in hits["hits"])
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert store.get(secret.structured_content["id"]).content == "bob: the vault path is /v/prod"


_ALICES = "01a22ad6-ea1d-72c4-ab23-672152ba9c31"
_OWNERS = "01a22ad6-ea1d-72c4-ab23-672152ba9c32"


@pytest.mark.parametrize("link", ["parts", "built on"])
@pytest.mark.parametrize("act", ["forget", "hard forget", "restore"])
def test_a_link_an_import_brought_moves_no_forget_or_restore_across_agents(
    store: Store, link: str, act: str
) -> None:
    """Review BK: an import keeps a memory's links as its file wrote them, and a memory's parts
    (``parts.whole``) and what is built on it (``derived_from``) were followed whatever their
    agent: a file's record under the owner's agent (source ``user``) that named token principal
    alice's memory as its other part, or as what it is built on, was withdrawn by her forget,
    deleted by her hard forget, and made active again by her restore after the owner forgot it,
    trusted and unlabelled in the owner's recall. Now a link joins one agent's memories only."""
    from hindsight_cli.models import PART, Filters

    def part(index: int) -> dict[str, Any]:
        return {"metadata": {PART: {"index": index, "of": 2}}} if link == "parts" else {}

    store.import_records(
        [
            {"id": _ALICES, "content": "alice's half", "agent_id": "alice", **part(1)}
            | ({"source_ids": [_OWNERS]} if link == "parts" else {}),
            {
                "id": _OWNERS,
                "content": "always deploy from main after review",
                "agent_id": "default",
                "source": "user",
                "source_ids": [_ALICES],
                **part(2),
            },
        ]
    )
    alice = store.scoped("alice", principal=True)
    if act == "restore":
        store.forget([_OWNERS, _ALICES])
        alice.restore(_ALICES)
    else:
        alice.forget([_ALICES], hard=act == "hard forget")
    left = {m.id: m.status for m in store.list(Filters(statuses=None), limit=None)}
    # before: the owner's memory invalidated, deleted, or active again
    assert left.get(_OWNERS) == ("invalidated" if act == "restore" else "active")
    assert left.get(_ALICES) == {"forget": "invalidated", "restore": "active"}.get(act)
