"""One agent's call does not stall another's on a shared server (issue 31, Medium 11): a search
never waits behind a write, however long the write's embedding takes; writes still go one at a
time, and a stopping server still waits for what is under way and then lets nothing start."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import FakeEmbedder
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

from hindsight_cli.mcp_server.memories import Gate, ToolStore
from hindsight_cli.search.query import SearchQuery
from hindsight_cli.store import Store

pytestmark = pytest.mark.local_only

# a guard against a test that hangs, never a measure: every wait here ends on an event
GUARD = 60.0


class SlowWrites(FakeEmbedder):
    """Embeds like the fake, but a text holding ``word`` waits until ``go`` is set (a long write's
    embedding, held still)."""

    def __init__(self, word: str) -> None:
        super().__init__()
        self.word = word
        self.waiting = threading.Event()
        self.go = threading.Event()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if any(self.word in text for text in texts):
            self.waiting.set()
            assert self.go.wait(GUARD)
        return super().embed(texts)


def _as(agent: str, call: Callable[[], Any]) -> threading.Thread:
    """``call`` in a thread, as a request carrying ``agent``'s token."""
    context = contextvars.copy_context()
    token = AccessToken(token="t-" + agent, client_id=agent, scopes=[])
    context.run(auth_context_var.set, AuthenticatedUser(token))
    thread = threading.Thread(target=context.run, args=(call,), daemon=True)
    thread.start()
    return thread


def test_a_search_does_not_wait_for_another_agents_write(store_dir: Path) -> None:
    embedder = SlowWrites("megabyte")
    base = Store(store_dir, embedder=embedder)
    base.record("the deploy key lives in the vault", agent_id="bob")
    tools = ToolStore(base, per_request=True)
    found: list[list[str]] = []
    writing = _as("alice", lambda: tools.write("a megabyte of build log " * 50))
    assert embedder.waiting.wait(GUARD)
    searching = _as(
        "bob",
        lambda: found.append(
            [h.memory.content for h in tools.search(SearchQuery("where is the deploy key")).hits]
        ),
    )
    searching.join(GUARD)
    # bob has his answer while alice's write is still embedding
    assert not searching.is_alive() and writing.is_alive()
    assert found == [["the deploy key lives in the vault"]]
    embedder.go.set()
    writing.join(GUARD)
    assert not writing.is_alive()
    assert [m.agent_id for m in base.list(limit=None)].count("alice") == 1


def test_writes_still_go_one_at_a_time(store_dir: Path) -> None:
    embedder = SlowWrites("megabyte")
    tools = ToolStore(Store(store_dir, embedder=embedder), per_request=True)
    first = _as("alice", lambda: tools.write("a megabyte of build log"))
    assert embedder.waiting.wait(GUARD)
    # the second writer is held at the gate, not inside the store
    assert tools.gate.writes.locked()
    second = _as("bob", lambda: tools.write("bob's note"))
    embedder.go.set()
    first.join(GUARD)
    second.join(GUARD)
    assert not first.is_alive() and not second.is_alive()
    assert sorted(m.agent_id for m in Store(store_dir, embedder=embedder).list(limit=None)) == [
        "alice",
        "bob",
    ]


def test_hold_waits_for_readers_and_then_lets_none_start() -> None:
    gate = Gate()
    inside, leave = threading.Event(), threading.Event()

    def read() -> None:
        with gate.read():
            inside.set()
            assert leave.wait(GUARD)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert inside.wait(GUARD)
    # a reader is under way and does not end within the time given
    assert gate.hold(0) is False
    leave.set()
    reader.join(GUARD)
    entered = threading.Event()

    def late() -> None:
        with gate.read():
            entered.set()

    latecomer = threading.Thread(target=late, daemon=True)
    latecomer.start()
    # held: the gate stays shut (the process exits next), so the latecomer waits for good
    assert not entered.wait(0.2) and latecomer.is_alive()


def test_exclusive_waits_for_the_readers_and_lets_them_in_after() -> None:
    gate = Gate()
    order: list[str] = []
    inside, leave = threading.Event(), threading.Event()

    def read() -> None:
        with gate.read():
            inside.set()
            assert leave.wait(GUARD)
            order.append("read")

    def build() -> None:
        with gate.exclusive():
            order.append("build")

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert inside.wait(GUARD)
    builder = threading.Thread(target=build, daemon=True)
    builder.start()
    leave.set()
    builder.join(GUARD)
    reader.join(GUARD)
    assert order == ["read", "build"]
    with gate.read():
        order.append("after")
    assert order == ["read", "build", "after"]
