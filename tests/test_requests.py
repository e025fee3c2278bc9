"""One request object per operation: a search is one ``SearchQuery`` (its budget fitted once, in the
core, whichever face asks) and a forget is one plan, shown, counted and carried out as it is."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import Clock, FakeEmbedder
from mcp import Client

from hindsight_cli.core.selection import browse_filters
from hindsight_cli.mcp_server import build_server
from hindsight_cli.search.query import SearchQuery
from hindsight_cli.store import Store


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_mcp_search_answers_what_the_core_fitted(store: Store) -> None:
    for n in range(12):
        store.record(
            f"deploy {n} to staging failed: migration {n} timed out holding a lock on orders_{n}",
            outcome="failure",
            resolution=f"ran migration {n} in batches of 1,000 rows",
            step=n,
        )
    text = "staging deploy failed migration lock"
    async with Client(build_server(store), raise_exceptions=True) as client:
        for budget in (100, 200, 300):
            answer = await client.call_tool(
                "memory_search", {"query": text, "top_k": 12, "budget_tokens": budget}
            )
            found = store.search(
                SearchQuery(text, browse_filters(search=True), k=12, budget=budget, listed=True)
            )
            shown = answer.structured_content
            assert [h["id"] for h in shown["hits"]] == [h.memory.id for h in found.hits]
            assert (shown["context"], shown["tokens"], shown["dropped_for_budget"]) == (
                found.context,
                found.tokens,
                found.dropped_for_budget,
            )
            # what is not shown was left out for the budget or under the relevance floor
            assert 0 < len(found.hits) < 12 and 0 < found.dropped_for_budget <= 12 - len(found.hits)


DAY = 24 * 3600


def test_a_forget_plan_is_exactly_what_is_forgotten_whatever_happens_meanwhile(
    clock: Clock, store_dir: Path, fake: FakeEmbedder
) -> None:
    store = Store(store_dir, embedder=fake, clock=clock)
    store.init()
    old = store.record("the staging deploy used the v1 pipeline", task_id="deploy").memory
    clock.advance(2 * DAY)
    recent = store.record("the staging deploy moved to the v2 pipeline", task_id="deploy").memory
    plan = store.plan_forget(older_than="1d")
    # resolved with the store's clock: its cutoff is a day before the clock's now
    assert plan.ids == (old.id,) and not plan.hard
    assert plan.filters is not None and plan.filters.created_before == clock() - timedelta(days=1)
    # Shown, then, before it is carried out, two days pass and another memory is recorded: asked
    # again now, the same request would take more.
    clock.advance(2 * DAY)
    later = store.record("the staging deploy needs the VPN up first", task_id="deploy").memory
    assert set(store.plan_forget(older_than="1d").ids) == {old.id, recent.id}
    result = store.forget_planned(plan, reason="outdated")
    assert result.to_dict() == {"forgotten": 1, "hard": False, "archived": False}
    statuses = {m.id: m.status for m in store.list()}
    assert statuses == {old.id: "invalidated", recent.id: "active", later.id: "active"}
    assert [e.ids for e in store.log(action="forget")] == [[old.id]]
    # a hard plan too purges what it named and nothing recorded after it
    purge = store.plan_forget(task_id="deploy", hard=True)
    assert set(purge.ids) == {old.id, recent.id, later.id} and purge.hard
    newest = store.record("the staging deploy takes 4 minutes", task_id="deploy").memory
    assert store.forget_planned(purge).forgotten == 3
    assert [m.id for m in store.list()] == [newest.id]


def test_the_cli_counts_what_it_forgets_by_the_stores_clock(cli: Any, clock: Clock) -> None:
    old = cli("record", "the staging deploy used the v1 pipeline").stdout.strip()
    clock.advance(3 * DAY)
    # three days old by the store's clock: the prompt counts it (it did not, by the system clock,
    # and the forget went ahead unasked)
    asked = cli("forget", "--older-than", "2d")
    assert asked.exit_code == 1
    assert "This would forget up to 1 memory; add -y to confirm." in asked.stderr
    assert cli.open().get(old).status == "active"
    done = cli("forget", "--older-than", "2d", "-y")
    assert done.exit_code == 0 and "Forgot 1 memory." in done.stderr
    assert cli.open().get(old).status == "invalidated"


def _read_until(fd: int, marker: bytes, timeout: float = 120) -> bytes:
    """What a terminal shows until ``marker`` (or its other end closes)."""
    shown = b""
    deadline = time.monotonic() + timeout
    while marker not in shown and time.monotonic() < deadline:
        if select.select([fd], [], [], 1)[0]:
            try:
                chunk = os.read(fd, 4096)
            # the other end is closed: all is read
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    return shown


@pytest.mark.slow
def test_a_memory_recorded_while_the_prompt_waits_is_not_forgotten(tmp_path: Path) -> None:
    """`hindsight forget --task T` in a terminal: between the question and the answer an agent
    records another memory of the task; the answer confirms what was asked, not more."""
    path = tmp_path / "store"
    store = Store(path)
    store.init()
    shown = store.record("the staging deploy used the v1 pipeline", task_id="deploy").memory
    leader, follower = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "hindsight_cli", "forget", "--task", "deploy", "--store", str(path)],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env={**os.environ, "TERM": "dumb"},
    )
    os.close(follower)
    try:
        asked = _read_until(leader, b"[y/N]")
        assert b"Forget up to 1 memory? [y/N]" in asked, asked
        meanwhile = store.record("the staging deploy moved to v2", task_id="deploy").memory
        os.write(leader, b"y\n")
        answered = _read_until(leader, b"\x00")
        assert child.wait(timeout=120) == 0, answered
    finally:
        child.kill()
        os.close(leader)
    assert b"Forgot 1 memory." in answered, answered
    assert store.get(shown.id).status == "invalidated"
    assert store.get(meanwhile.id).status == "active"
