"""A forget that names many ids resolves them in a few ledger reads, whatever their number (review
AS): ``find`` one by one cost three reads an id, so a token principal's ``memory_forget`` naming one
short id of hers 5,000 times (60 KB) kept a ledger read open 34 s and every agent's writes waiting
behind it. The whole ids are now looked up together, and the short parts against the scope's ids
read once; what each id names, and the errors, are ``find``'s."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fake_embedder import FakeEmbedder

from hindsight_cli.core import reading
from hindsight_cli.errors import MemoryNotFound
from hindsight_cli.storage.sql.common import SqlSession
from hindsight_cli.store import Store

pytestmark = pytest.mark.local_only


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ledger reads that look ids up, by name."""
    seen: list[str] = []
    for name in ("by_ids", "by_prefix", "by_suffix", "ids"):
        original = getattr(SqlSession, name)

        def counted(*args: Any, _name: str = name, _call: Callable[..., Any] = original) -> Any:
            seen.append(_name)
            return _call(*args)

        monkeypatch.setattr(SqlSession, name, counted)
    return seen


def _written(store: Store, agent: str, count: int) -> list[str]:
    scoped = store.scoped(agent, principal=True)
    return [scoped.record(f"{agent} note {i} about the deploy").memory.id for i in range(count)]


@pytest.mark.parametrize(
    "spell",
    [lambda m: m.upper(), lambda m: m[-8:].upper(), lambda m: m[:30]],
    ids=["whole", "end", "start"],
)
def test_many_ids_are_a_few_reads(
    store: Store,
    fake: FakeEmbedder,
    reads: list[str],
    spell: Callable[[str], str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the first short part is looked up alone (``find``), the others against the scope's ids
    monkeypatch.setattr(reading, "_ALONE", 1)
    mine = _written(store, "alice", 4)
    alice = store.scoped("alice", principal=True)
    reads.clear()
    plan = alice.plan_forget([spell(m) for m in mine] * 300)
    assert list(plan.ids) == mine
    # 1,200 names, 4 distinct: a handful of reads, not three a name
    assert len(reads) <= 8, reads
    assert alice.forget_where([spell(m) for m in mine] * 300).forgotten == 4
    assert {m.status for m in store.list()} == {"invalidated"}


def test_another_agents_ids_stay_unknown(
    store: Store, fake: FakeEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reading, "_ALONE", 0)
    mine, theirs = _written(store, "alice", 1), _written(store, "bob", 1)
    owner = store.list()
    alice = store.scoped("alice", principal=True)
    for name in (theirs[0], theirs[0][-8:], theirs[0].upper(), theirs[0][:30]):
        with pytest.raises(MemoryNotFound, match="No memory with id"):
            alice.forget_where([*mine * 100, name])
    assert [m.status for m in store.list()] == [m.status for m in owner]


@pytest.mark.parametrize("alone", [0, 10])
def test_a_part_that_names_several_lists_them(
    store: Store, fake: FakeEmbedder, monkeypatch: pytest.MonkeyPatch, alone: int
) -> None:
    monkeypatch.setattr(reading, "_ALONE", alone)
    mine = _written(store, "alice", 2)
    alice = store.scoped("alice", principal=True)
    shared = mine[0][:4]
    assert mine[1].startswith(shared)
    with pytest.raises(MemoryNotFound, match="matches 2 memories") as refused:
        alice.forget_where([*mine[:1] * 50, shared])
    assert mine[0] in str(refused.value) and mine[1] in str(refused.value)
    with pytest.raises(MemoryNotFound, match="No memory with id"):
        alice.forget_where(["abc"])
    assert alice.forget_where([mine[0][-8:], mine[1]]).forgotten == 2


def test_a_long_id_is_named_shortly_in_its_error(store: Store, fake: FakeEmbedder) -> None:
    """Review AS (low): a 64 KB id (an MCP caller's ``memory_get``, ``supersedes`` or forget) was
    printed back whole in its error; it is named by its first 40 characters and its length."""
    _written(store, "alice", 1)
    long = "0" * 64 * 1024
    for call in (
        lambda: store.get(long),
        lambda: store.forget_where([long]),
        lambda: store.record("a fact that changed", supersedes=long),
    ):
        with pytest.raises(MemoryNotFound, match="65,536 characters") as refused:
            call()
        assert len(str(refused.value)) < 300


def _spellings(memory_id: str) -> list[str]:
    """``memory_id`` with one of its letters in capitals, each in turn, and whole in capitals."""
    out = [memory_id[:i] + c.upper() + memory_id[i + 1 :] for i, c in enumerate(memory_id)]
    return [s for s in dict.fromkeys([*out, memory_id.upper()]) if s != memory_id]


@pytest.mark.parametrize("agent", ["alice", None], ids=["principal", "owner"])
def test_many_spellings_of_whole_ids_are_a_few_reads(
    store: Store,
    fake: FakeEmbedder,
    reads: list[str],
    monkeypatch: pytest.MonkeyPatch,
    agent: str | None,
) -> None:
    """Review AV: whole ids were read 50 a read, each spelling once, so one id of hers spelt in
    100,000 ways (capitals here and there, a 4 MiB ``memory_forget``) held every agent's writes
    20 s. Past ``_ALONE`` reads' worth of names, all are found in the scope's ids, read once."""
    monkeypatch.setattr(reading, "_LOOKED_UP", 4)
    monkeypatch.setattr(reading, "_ALONE", 2)
    mine = _written(store, "alice", 3)
    theirs = _written(store, "bob", 1)
    caller = store.scoped(agent, principal=True) if agent else store
    names = [s for m in mine for s in _spellings(m)] + [m[-8:].upper() for m in mine]
    reads.clear()
    plan = caller.plan_forget(names)
    assert sorted(plan.ids) == sorted(mine)
    assert len(reads) <= 3, reads
    if agent:
        # another agent's id among them stays unknown, whole or in capitals
        for name in (theirs[0], theirs[0].upper(), theirs[0][-8:]):
            with pytest.raises(MemoryNotFound, match="No memory with id"):
                caller.forget_where([*names, name])
        assert {m.status for m in store.list()} == {"active"}
    assert caller.forget_where(names, hard=True).forgotten == 3
    assert [m.id for m in store.list()] == theirs


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_an_mcp_forget_of_many_spellings_is_a_few_reads(
    store: Store, fake: FakeEmbedder, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp import Client

    from hindsight_cli.mcp_server import build_server

    monkeypatch.setattr(reading, "_LOOKED_UP", 4)
    monkeypatch.setattr(reading, "_ALONE", 2)
    mine = _written(store, "alice", 2)
    theirs = _written(store, "bob", 1)
    names = [s for m in mine for s in _spellings(m)]
    async with Client(build_server(store, agent="alice")) as client:
        refused = await client.call_tool("memory_forget", {"ids": [*names, theirs[0].upper()]})
        assert refused.is_error and "No memory with id" in refused.content[0].text
        reads.clear()
        done = await client.call_tool("memory_forget", {"ids": names})
        assert not done.is_error and done.structured_content["forgotten"] == 2
    assert reads.count("by_ids") <= 3, reads
    assert {m.id for m in store.list() if m.status == "active"} == set(theirs)
