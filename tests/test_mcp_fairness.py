"""One agent's call does not stall another's on a shared server (issue 31, Medium 11): a search
never waits behind a write, however long the write's embedding takes; writes still go one at a
time, and a stopping server still waits for what is under way and then lets nothing start."""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fake_embedder import FakeEmbedder
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

from hindsight_cli.errors import InvalidInput
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


def _gate_seen(monkeypatch: pytest.MonkeyPatch, base: Store, tools: ToolStore) -> list[bool]:
    """Whether the write gate was held at each ledger write transaction opened from now on."""
    ledger = type(base._rt.ledger)
    real_write = ledger.write
    under_gate: list[bool] = []

    def write(self: Any) -> Any:
        under_gate.append(tools.gate.writes.locked())
        return real_write(self)

    monkeypatch.setattr(ledger, "write", write)
    return under_gate


def _bob_searches(tools: ToolStore, found: list[list[str]]) -> threading.Thread:
    """Bob's search for his deploy key, as a request with his token, waited for (within the
    guard); the contents of its hits go to ``found``."""
    searching = _as(
        "bob",
        lambda: found.append(
            [h.memory.content for h in tools.search(SearchQuery("where is the deploy key")).hits]
        ),
    )
    searching.join(GUARD)
    return searching


def _bob_answered_while_she_waits(
    tools: ToolStore,
    held: threading.Event,
    go: threading.Event,
    searching: threading.Thread,
    hers: list[list[str]],
) -> None:
    """Once alice's search is ``held`` still, bob's search answers; then hers does (``go``)."""
    assert held.wait(GUARD)
    found: list[list[str]] = []
    bobs = _bob_searches(tools, found)
    assert not bobs.is_alive() and searching.is_alive()
    assert found == [["the deploy key lives in the vault"]]
    go.set()
    searching.join(GUARD)
    assert hers == [["alice: the runners are on rack 4"]]


def test_a_search_does_not_wait_for_another_agents_write(store_dir: Path) -> None:
    embedder = SlowWrites("megabyte")
    base = Store(store_dir, embedder=embedder)
    base.record("the deploy key lives in the vault", agent_id="bob")
    tools = ToolStore(base, per_request=True)
    found: list[list[str]] = []
    writing = _as("alice", lambda: tools.write("a megabyte of build log " * 50))
    assert embedder.waiting.wait(GUARD)
    searching = _bob_searches(tools, found)
    # bob has his answer while alice's write is still embedding
    assert not searching.is_alive() and writing.is_alive()
    assert found == [["the deploy key lives in the vault"]]
    embedder.go.set()
    writing.join(GUARD)
    assert not writing.is_alive()
    assert [m.agent_id for m in base.list(limit=None)].count("alice") == 1


@pytest.mark.parametrize("long", ["embedding", "parts", "edit"])
def test_a_write_does_not_wait_for_another_agents_text_to_be_read(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch, long: str
) -> None:
    """Review AS: the write gate was held for the whole write, the text's redaction and embedding
    included: alice's 256 KB resolution, 64 KB reason or 1,000 keys of environment held bob's
    writes 15 to 60 s. Now the gate is held only while the store changes: bob's write is stored
    while alice's text is still being read (held still here), and each write's transaction still
    holds the gate, one at a time."""
    embedder = SlowWrites("megabyte")
    base = Store(store_dir, embedder=embedder)
    base.record("first", agent_id="carol")
    failure = base.record("alice's build failed", agent_id="alice")
    if long == "parts":
        (store_dir / "config.toml").write_text("[limits]\nmax_content_bytes = 1024\n")
        base = Store(store_dir, embedder=embedder)
    tools = ToolStore(base, per_request=True)
    under_gate = _gate_seen(monkeypatch, base, tools)
    if long == "edit":
        # an edit keeps the text and its vectors: what takes long is reading what was learnt
        from hindsight_cli.core import amend

        real_prepare = amend.prepare

        def prepare(given: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
            if "megabyte" in str(given.get("resolution")):
                embedder.waiting.set()
                assert embedder.go.wait(GUARD)
            return real_prepare(given, *args, **kwargs)

        monkeypatch.setattr(amend, "prepare", prepare)
    text = "a megabyte of build log " + "x" * (3000 if long == "parts" else 10)
    hers: list[Any] = []

    def alices() -> None:
        if long != "edit":
            hers.append(tools.write(text))
            return
        hers.append(
            tools.edit(
                failure.memory.id,
                content=None,
                others=[],
                resolution=text,
                outcome=None,
                confidence=None,
                tags=[],
            )
        )

    first = _as("alice", alices)
    assert embedder.waiting.wait(GUARD)
    assert not tools.gate.writes.locked()
    second = _as("bob", lambda: tools.write("bob's note"))
    second.join(GUARD)
    # bob's note is stored while alice's text is still being read
    assert not second.is_alive() and first.is_alive()
    stored = Store(store_dir, embedder=embedder).list(limit=None)
    assert [m.content for m in stored if m.agent_id == "bob"] == ["bob's note"]
    embedder.go.set()
    first.join(GUARD)
    assert not first.is_alive()
    agents = [m.agent_id for m in Store(store_dir, embedder=embedder).list(limit=None)]
    pieces = 3 if long == "parts" else 1
    assert agents.count("bob") == 1 and agents.count("alice") == 1 + pieces
    assert len(hers[0].parts or [hers[0].memory.id]) == pieces
    if long == "edit":
        assert hers[0].memory.resolution == text and hers[0].superseded == [failure.memory.id]
    assert under_gate and all(under_gate)


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


class _HeldRewrite:
    """The ledger's rewrite after a hard forget (``duckdb_rewrite.scrub``: every reader of the
    file waits while it copies the store), held still once it has begun."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from hindsight_cli.storage.sql import duckdb_rewrite

        self.begun, self.go = threading.Event(), threading.Event()
        copy = duckdb_rewrite._copy

        def held(*args: Any) -> Any:
            self.begun.set()
            assert self.go.wait(GUARD)
            return copy(*args)

        monkeypatch.setattr(duckdb_rewrite, "_copy", held)


def _forgets(tools: ToolStore, how: str, memory_id: str) -> Callable[[], Any]:
    """Alice's hard forget of her memory: by id or by task through the MCP tool, or the UI's
    purge (a plan, then its carrying out)."""
    if how == "ui":
        store = tools.base.scoped("alice", principal=True)
        return lambda: store.forget_planned(store.plan_forget([memory_id], hard=True))
    ids, task = ([memory_id], None) if how == "id" else ([], "scratch")
    return lambda: tools.forget(
        ids, task_id=task, older_than=None, expired=False, hard=True, reason=None
    )


@pytest.mark.parametrize("how", ["id", "task", "ui"])
def test_a_search_does_not_wait_for_another_agents_hard_forget(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """A hard forget rewrites the whole ledger file (its old bytes gone), and every reader of the
    file waits meanwhile: a search of the server's, its in-memory index not yet told of the
    delete, read the ledger and waited behind alice's forget of her own scratch note (a store of
    20,000 memories: 1.2 s each time, for as many forgets as she likes). The server's indexes
    catch up with the delete before the rewrite: bob's search answers meanwhile, and nobody's
    finds the forgotten text."""
    base = Store(store_dir, embedder=FakeEmbedder(), warm=True)
    base.record("the deploy key lives in the vault", agent_id="bob")
    mine = base.record("alice scratch note", agent_id="alice", task_id="scratch").memory.id
    tools = ToolStore(base, per_request=True)
    tools.warm_up()
    rewrite = _HeldRewrite(monkeypatch)
    forgetting = _as("alice", _forgets(tools, how, mine))
    assert rewrite.begun.wait(GUARD)
    found: list[list[str]] = []
    searching = _bob_searches(tools, found)
    # bob has his answer while alice's forget is still rewriting the ledger
    assert not searching.is_alive() and forgetting.is_alive()
    assert found == [["the deploy key lives in the vault"]]
    # and the owner's own search, meanwhile, no longer finds what was forgotten
    assert base.search("alice scratch note").hits == []
    rewrite.go.set()
    forgetting.join(GUARD)
    assert not forgetting.is_alive()
    assert [m.agent_id for m in base.list(limit=None)] == ["bob"]


def test_a_search_does_not_wait_for_another_agents_search_of_many_hits(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search held the in-memory index's lock until its answer was fitted to its budget, a part
    whose cost grows with the hits ranked: alice's search of a 60 KB query with top_k 1,000,000
    over 5,000 memories of hers held it 85 s, and bob's search waited all that time. Now the lock
    covers reading the index only: bob has his answer while alice's is still being fitted (held
    still here)."""
    from hindsight_cli.search import pipeline

    base = Store(store_dir, embedder=FakeEmbedder(), warm=True)
    base.record("the deploy key lives in the vault", agent_id="bob")
    base.record("alice: the runners are on rack 4", agent_id="alice")
    tools = ToolStore(base, per_request=True)
    tools.warm_up()
    fitting, go = threading.Event(), threading.Event()
    fit = pipeline.fit_listed

    def held(memories: Sequence[Any], *args: Any) -> Any:
        if any(m.agent_id == "alice" for m in memories):
            fitting.set()
            assert go.wait(GUARD)
        return fit(memories, *args)

    monkeypatch.setattr(pipeline, "fit_listed", held)
    hers: list[list[str]] = []
    searching = _as(
        "alice",
        lambda: hers.append(
            [
                h.memory.content
                for h in tools.search(
                    SearchQuery("where are the runners", k=1_000_000, budget=400, listed=True)
                ).hits
            ]
        ),
    )
    _bob_answered_while_she_waits(tools, fitting, go, searching, hers)


class SlowQueries(FakeEmbedder):
    """Embeds like the fake, but a query of alice's (``word``) waits until ``go`` is set."""

    def __init__(self, word: str) -> None:
        super().__init__()
        self.word, self.waiting, self.go = word, threading.Event(), threading.Event()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if texts == [self.word]:
            self.waiting.set()
            assert self.go.wait(GUARD)
        return super().embed(texts)


@pytest.mark.parametrize("held", ["embedding", "identifiers"])
def test_a_search_does_not_wait_for_another_agents_query_to_be_read(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch, held: str
) -> None:
    """Review AM: a search embedded its query, and read its identifiers and what it asks of time,
    under the in-memory index's lock, which every search of the server waits for: alice's 64 KB
    queries held it 0.5 s each (0.2 s the embedding, 0.2 s the identifiers), so with her four
    reads at once bob's search took 0.8 to 1.5 s against 10 ms. What depends on her query alone
    is now worked out before the lock (held still here): bob has his answer meanwhile."""
    from hindsight_cli.search import signals

    query = "runners ERR_RACK_4 rack-4.internal"
    model = SlowQueries(query)
    base = Store(store_dir, embedder=model, warm=True)
    base.record("the deploy key lives in the vault", agent_id="bob")
    base.record("alice: the runners are on rack 4", agent_id="alice")
    tools = ToolStore(base, per_request=True)
    tools.warm_up()
    if held == "identifiers":
        model.go.set()
        read = signals.identifiers
        reading, go = threading.Event(), threading.Event()

        def slow(text: str, *limit: int | None) -> tuple[str, ...]:
            if text == query:
                reading.set()
                assert go.wait(GUARD)
            return read(text, *limit)

        monkeypatch.setattr(signals, "identifiers", slow)
    else:
        reading, go = model.waiting, model.go
    hers: list[list[str]] = []
    searching = _as(
        "alice",
        lambda: hers.append([h.memory.content for h in tools.search(SearchQuery(query)).hits]),
    )
    _bob_answered_while_she_waits(tools, reading, go, searching, hers)


class _Plain(FakeEmbedder):
    """The fake's vectors, for a text as a whole (a 64 KB query's 16,000 words at once would
    take the fake a second)."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return super().embed([text[:200] for text in texts])


def _threes() -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    return [a + b + c for a in letters for b in letters for c in letters]


@pytest.mark.parametrize(
    ("kind", "query"),
    [
        # 16,000 words of three letters, 6,400 identifiers, 21,000 Han characters (their bigrams),
        # 6,500 English words of four letters or more (their "-ion" forms)
        ("words", " ".join(_threes())[:64000]),
        ("identifiers", " ".join(f"k{i}:{i}" for i in range(8000))[:64000]),
        ("bigrams", "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(21000))),
        ("forms", " ".join(f"conn{w}ect" for w in _threes())[:64000]),
    ],
)
def test_a_long_query_weighs_a_bounded_share_of_its_words_under_the_index_lock(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch, kind: str, query: str
) -> None:
    """Review AP: what a search looks up and weighs while it holds the in-memory index (which
    every search of the server waits for) grew with its query: each distinct word's postings, each
    identifier against every candidate. Alice's 64 KB queries of words her memories hold, or of
    identifiers, held the index 0.5 s each, and with her four reads at once bob's searches took 1.2
    to 1.6 s against 3 ms. A query's first ``MAX_QUERY_TERMS`` words are looked up and its first
    ``MAX_QUERY_IDENTIFIERS`` identifiers weighed; the memory its first words name is still
    found."""
    from hindsight_cli.search import query as queries, signals
    from hindsight_cli.storage.hot import HotIndex

    base = Store(store_dir, embedder=_Plain(), warm=True)
    first = " ".join(query.split()[:40]) if " " in query else query[:80]
    base.scoped("alice", principal=True).record(f"alice: {first}")
    tools = ToolStore(base, per_request=True)
    tools.warm_up()
    looked_up: list[int] = []
    weighed: list[int] = []
    keyword, wanted = HotIndex.keyword, signals._wanted

    def counted_keyword(self: HotIndex, terms: Sequence[str], *args: Any) -> Any:
        looked_up.append(len(set(terms)))
        return keyword(self, terms, *args)

    def counted_wanted(identifiers: tuple[str, ...]) -> Any:
        weighed.append(len(identifiers))
        return wanted(identifiers)

    monkeypatch.setattr(HotIndex, "keyword", counted_keyword)
    monkeypatch.setattr(signals, "_wanted", counted_wanted)
    hers: list[list[str]] = []
    searching = _as(
        "alice",
        lambda: hers.append([h.memory.agent_id for h in tools.search(SearchQuery(query)).hits]),
    )
    searching.join(GUARD)
    assert hers == [["alice"]]
    assert looked_up and max(looked_up) <= queries.MAX_QUERY_TERMS
    assert max(weighed, default=0) <= queries.MAX_QUERY_IDENTIFIERS
    if kind == "identifiers":
        assert weighed and max(weighed) == queries.MAX_QUERY_IDENTIFIERS
    else:
        assert max(looked_up) == queries.MAX_QUERY_TERMS


@pytest.mark.parametrize("face", ["mcp", "token", "cli"])
def test_a_search_compares_a_bounded_environment_with_each_candidate(
    store_dir: Path, face: str
) -> None:
    """Review AP: a search compared every key of the environment it was given (``env``) with
    every candidate's, under the in-memory index's lock: a 4 MiB MCP request naming 200,000 keys
    held it 2 s a search, every other agent's search waiting. More than ``MAX_ENV_KEYS`` are refused
    before the search starts, with a line saying so, by every face; as many are compared."""
    import anyio
    from mcp import Client

    from hindsight_cli.mcp_server import build_server
    from hindsight_cli.search.query import MAX_ENV_KEYS

    too_many = {f"k{i}": "v" for i in range(MAX_ENV_KEYS + 1)}
    enough = {f"k{i}": "v" for i in range(MAX_ENV_KEYS)}
    said = f"env names {MAX_ENV_KEYS + 1} keys; a search compares at most {MAX_ENV_KEYS}"
    if face == "cli":
        from conftest import Cli

        cli = Cli(store_dir)
        assert cli("record", "alice: the runners are on rack 4", "--env", "k0=v").exit_code == 0
        pairs = [arg for key, value in too_many.items() for arg in ("--env", f"{key}={value}")]
        refused = cli("search", "runners", *pairs)
        assert refused.exit_code != 0 and said in refused.stderr
        assert "Traceback" not in refused.stderr + refused.stdout
        answered = cli("search", "runners", "--json", *pairs[: 2 * MAX_ENV_KEYS])
        assert answered.exit_code == 0, answered.stderr
        assert "rack 4" in answered.stdout
        return
    base = Store(store_dir, embedder=FakeEmbedder(), warm=True)
    base.record("alice: the runners are on rack 4", agent_id="alice", env={"k0": "v"})
    base.record("bob: the runners moved to rack 9", agent_id="bob", env={"k0": "w"})
    if face == "token":
        tools = ToolStore(base, per_request=True)
        found: list[Any] = []

        def search(env: dict[str, str]) -> None:
            try:
                found.append(tools.search(SearchQuery("runners", env=env)))
            except Exception as error:  # noqa: BLE001 - the refusal is what is looked at
                found.append(error)

        for env in (too_many, enough):
            _as("alice", lambda env=env: search(env)).join(GUARD)
        assert said in str(found[0])
        assert [h.memory.content for h in found[1].hits] == ["alice: the runners are on rack 4"]
        return

    async def call() -> tuple[Any, Any]:
        async with Client(build_server(base, agent="alice")) as client:
            refused = await client.call_tool("memory_search", {"query": "runners", "env": too_many})
            answered = await client.call_tool("memory_search", {"query": "runners", "env": enough})
            return refused, answered

    refused, answered = anyio.run(call)
    assert refused.is_error and said in refused.content[0].text
    assert not answered.is_error
    assert [h["agent_id"] for h in answered.structured_content["hits"]] == ["alice"]


@pytest.mark.parametrize(
    ("face", "field"),
    [("mcp", "tags"), ("mcp", "sources"), ("cli", "tag"), ("cli", "source"), ("store", "tags")],
)
def test_a_search_names_a_bounded_number_of_values_in_a_filter(
    store_dir: Path, face: str, field: str
) -> None:
    """Review AP: each value a filter names (tags, sources) is redacted as a stored label is and
    then matched under the in-memory index's lock: a 4 MiB MCP request of 200,000 tags took 17 s
    of the server's interpreter, 0.7 s of it holding every other agent's search. A filter names at
    most ``MAX_TAGS`` values (a memory holds at most that many tags), refused with a line before
    the search starts; as many are taken."""
    import anyio
    from mcp import Client

    from hindsight_cli.errors import BadUsage
    from hindsight_cli.mcp_server import build_server
    from hindsight_cli.models import MAX_TAGS, Filters

    values = [f"v{i}" for i in range(MAX_TAGS + 1)]
    said = f"A filter names at most {MAX_TAGS:,}"
    if face == "cli":
        from conftest import Cli

        cli = Cli(store_dir)
        assert cli("record", "the runners are on rack 4", "--tag", "v0").exit_code == 0
        flags = [arg for value in values for arg in (f"--{field}", value)]
        refused = cli("search", "runners", *flags)
        assert refused.exit_code != 0 and said in refused.stderr
        assert "Traceback" not in refused.stderr + refused.stdout
        answered = cli("search", "runners", *flags[:2])
        assert answered.exit_code == 0, answered.stderr
        return
    if face == "store":
        with pytest.raises(BadUsage, match=said):
            Filters(tags=tuple(values))
        assert Filters(tags=tuple(values[:MAX_TAGS])).tags == tuple(values[:MAX_TAGS])
        return
    base = Store(store_dir, embedder=FakeEmbedder())
    base.record("alice: the runners are on rack 4", agent_id="alice", tags=["v0"])

    async def call() -> tuple[Any, Any]:
        async with Client(build_server(base, agent="alice")) as client:
            refused = await client.call_tool("memory_search", {"query": "runners", field: values})
            answered = await client.call_tool(
                "memory_search", {"query": "runners", field: values[:1]}
            )
            return refused, answered

    refused, answered = anyio.run(call)
    assert refused.is_error and said in refused.content[0].text
    assert not answered.is_error


@pytest.mark.parametrize("agent", [None, "alice"])
def test_a_principal_reads_back_only_its_own_searches_of_its_memories(
    store_dir: Path, agent: str | None
) -> None:
    """Review AP: a token principal read every search of the injection record whose hits were all
    hers, the owner's too (a stdio server's, unscoped or ``--agent alice``): the owner's task id
    and when they searched. Each entry now names the token principal whose search it was, and a
    principal reads its own only; the owner reads them all."""
    base = Store(store_dir, embedder=FakeEmbedder())
    base.scoped("alice", principal=True).record("alice: the runners are on rack 4")
    owners = SearchQuery("runners rack", current_task="payroll-migration-2026")
    assert [h.memory.agent_id for h in ToolStore(base, agent).search(owners).hits] == ["alice"]
    _as("alice", lambda: ToolStore(base, per_request=True).search(SearchQuery("rack 4"))).join(
        GUARD
    )
    entries, _ = base.scoped("alice", principal=True).injections()
    assert [(e.event, e.session, e.by) for e in entries] == [("mcp-search", None, "alice")]
    assert [(e.session, e.by) for e in base.injections()[0]] == [
        ("payroll-migration-2026", None),
        (None, "alice"),
    ]


def test_an_mcp_search_asks_for_a_bounded_number_of_hits(store_dir: Path) -> None:
    """Review AP (left open by the round, fixed after it): a search's candidates are ranked under
    the in-memory index's lock, so a token principal's ``top_k`` 1,000,000 over 3,000 memories of
    hers held every other agent's search 0.8-1.2 s. ``memory_search`` takes at most
    ``MAX_TOOL_K`` hits, said in its schema and in one line when more are asked; as many are
    answered."""
    import anyio
    from mcp import Client

    from hindsight_cli.mcp_server import build_server
    from hindsight_cli.search.query import MAX_TOOL_K

    base = Store(store_dir, embedder=FakeEmbedder(), warm=True)
    for i in range(3):
        base.record(f"alice: runner {i} is on rack {i}", agent_id="alice")

    async def call() -> tuple[Any, Any, Any]:
        async with Client(build_server(base, agent="alice")) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            schema = tools["memory_search"].input_schema["properties"]["top_k"]
            refused = await client.call_tool(
                "memory_search", {"query": "runner", "top_k": MAX_TOOL_K + 1}
            )
            answered = await client.call_tool(
                "memory_search", {"query": "runner", "top_k": MAX_TOOL_K}
            )
            return schema, refused, answered

    schema, refused, answered = anyio.run(call)
    assert schema["maximum"] == MAX_TOOL_K
    assert refused.is_error
    assert f"top_k must be at most {MAX_TOOL_K}" in refused.content[0].text
    assert not answered.is_error and len(answered.structured_content["hits"]) == 3


@pytest.mark.parametrize("how", ["summarize", "consolidate"])
def test_a_write_does_not_wait_for_another_agents_summary_to_be_composed(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Review AY: ``memory_summarize`` and ``memory_consolidate`` held the write gate for the whole
    call: reading her memories, composing every part (one for each five) or grouping her
    episodes, their redaction and embedding. A token principal's summary of all her memories held
    every other agent's writes as long as that took. Now each holds the gate only while the store
    changes, as a write does: bob's note is stored while her summary is still being embedded
    (held still here), and each of her transactions still holds the gate."""
    embedder = SlowWrites("nothing yet")
    base = Store(store_dir, embedder=embedder)
    if how == "consolidate":
        base.import_records(
            [
                {"content": f"flaky rack test failed on runner r{i}", "agent_id": "alice"}
                for i in range(3)
            ]
        )
    else:
        # two parts and the summary
        base.import_records(
            [
                {"content": f"rack step {i} of the build", "agent_id": "alice", "task_id": "build"}
                for i in range(6)
            ]
        )
    tools = ToolStore(base, per_request=True)
    under_gate = _gate_seen(monkeypatch, base, tools)
    # her summary's parts and her patterns hold the word; bob's note does not
    embedder.word = "rack"
    first = _as(
        "alice",
        (lambda: tools.consolidate(False))
        if how == "consolidate"
        else (lambda: tools.summarize("build", None, None)),
    )
    assert embedder.waiting.wait(GUARD)
    assert not tools.gate.writes.locked()
    second = _as("bob", lambda: tools.write("bob's note"))
    second.join(GUARD)
    assert not second.is_alive() and first.is_alive()
    stored = Store(store_dir, embedder=FakeEmbedder()).list(limit=None)
    assert [m.content for m in stored if m.agent_id == "bob"] == ["bob's note"]
    embedder.go.set()
    first.join(GUARD)
    assert not first.is_alive()
    derived = [
        m
        for m in Store(store_dir, embedder=FakeEmbedder()).list(limit=None)
        if m.agent_id == "alice" and m.type == "semantic"
    ]
    assert derived and all(m.trigger in ("summary", "summary_part", "consolidate") for m in derived)
    assert {m.trigger for m in derived} >= (
        {"consolidate"} if how == "consolidate" else {"summary"}
    )
    assert under_gate and all(under_gate)


class _Watched(FakeEmbedder):
    """Embeds like the fake, noting for each call whether a ledger write transaction was open
    (``open``: the count of those entered and not left) or a server's write gate held."""

    def __init__(self) -> None:
        super().__init__()
        self.open = 0
        self.gate: Gate | None = None
        self.inside: list[bool] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.inside.append(self.open > 0 or bool(self.gate and self.gate.writes.locked()))
        return super().embed(texts)


def _watching(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch, embedder: _Watched
) -> tuple[Store, ToolStore]:
    """A store and its shared server's tools embedding with ``embedder``, which sees each ledger
    write transaction open."""
    base = Store(store_dir, embedder=embedder)
    tools = ToolStore(base, per_request=True)
    embedder.gate = tools.gate
    ledger = type(base._rt.ledger)
    real_write = ledger.write

    @contextlib.contextmanager
    def write(self: Any) -> Iterator[Any]:
        with real_write(self) as session:
            embedder.open += 1
            try:
                yield session
            finally:
                embedder.open -= 1

    monkeypatch.setattr(ledger, "write", write)
    return base, tools


@pytest.mark.parametrize(
    "how", ["a tag", "an outcome", "an import", "the owner's write", "a restatement"]
)
def test_a_new_versions_vectors_are_made_outside_the_write_transaction(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Review BK: a write repeating a stored text with what it adds (a tag, an outcome) makes a
    new version, whose vectors (its text and the stored fix, 32 KB at most) the model made inside
    the write transaction, at the shared server's write gate: every other agent's writes waited for
    the model, and the ledger with them (an import's new versions and a restatement merged too).
    Now each is made before the transaction, which runs again with them; the version stored is the
    same."""
    embedder = _Watched()
    base, tools = _watching(store_dir, monkeypatch, embedder)
    text, fix = "the deploy failed: permission denied", "chown the releases dir " * 40
    failure = {"task_id": "t", "trigger": "tool_error", "outcome": "failure"}
    if how == "a restatement":
        # a fact: the same statement in other characters merges into it
        failure = {"task_id": "t", "type": "semantic"}
        text += " on the releases dir"
    agent = "bob" if how == "the owner's write" else "alice"
    if how == "the owner's write":
        base.record(text, agent_id=agent, resolution=fix, **failure)
    else:
        _as(agent, lambda: tools.write(text, resolution=fix, **failure)).join(GUARD)
    embedder.inside.clear()
    if how == "an import":
        [record] = base.export()
        base.import_records([{**record, "id": None, "tags": ["later"]}])
    elif how == "the owner's write":
        base.record(text, agent_id="bob", tags=["later"], **failure)
    elif how == "a restatement":
        again = text.capitalize() + "."
        _as(agent, lambda: tools.write(again, tags=["later"], **failure)).join(GUARD)
    else:
        again = {**failure, "outcome": "success"} if how == "an outcome" else failure
        tags = ["later"] if how == "a tag" else []
        _as(agent, lambda: tools.write(text, tags=tags, **again)).join(GUARD)
    # before: the new version embedded with the transaction open (the gate held)
    assert embedder.inside and not any(embedder.inside), embedder.inside
    [active] = [m for m in base.list(limit=None) if m.status == "active"]
    assert active.supersedes and active.resolution == fix.strip()
    assert ("later" in active.tags) != (how == "an outcome")
    assert base.search("chown the releases").hits[0].memory.id == active.id


class _Racing(_Watched):
    """Embeds like ``_Watched``; each time a new version's text with its stored fix is embedded,
    ``race`` runs first (another request of the same agent, giving the memory another fix)."""

    def __init__(self) -> None:
        super().__init__()
        self.race: Callable[[], None] | None = None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        race, self.race = self.race, None
        if race is not None and any("\nFix: " in text for text in texts):
            race()
        self.race = self.race or race
        return super().embed(texts)


@pytest.mark.parametrize("how", ["her write", "an import"])
def test_a_write_whose_version_changes_at_every_run_never_embeds_at_the_gate(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Review BN: a write repeating a text runs again with its new version's vectors made outside
    (``amend.outside``), and after three runs, the text changed again at each (its agent's other
    writes giving the memory another fix meanwhile), it ran a last time embedding in the
    transaction, at the gate: token principal alice's edits of her note racing her own write of it
    ran the model there, every agent's writes and ledger reads waiting. Now that write is refused
    in one line, nothing written; the model never runs in the transaction."""
    embedder = _Racing()
    base, tools = _watching(store_dir, monkeypatch, embedder)
    text = "the deploy failed: permission denied"
    failure = {"task_id": "t", "trigger": "tool_error", "outcome": "failure"}
    _as("alice", lambda: tools.write(text, resolution="fix 0", **failure)).join(GUARD)
    fixes = iter(range(1, 100))

    def edit() -> None:
        [newest] = [m for m in base.list(limit=None) if m.status == "active"]
        again = {"content": None, "outcome": None, "confidence": None, "importance": None}
        tools.store.edit(
            newest.id, **again, resolution=f"fix {next(fixes)}", tags=[], actor="alice"
        )

    refused: list[BaseException] = []

    def repeat() -> None:
        try:
            if how == "her write":
                tools.write(text, tags=["later"], **failure)
            else:
                [record] = [r for r in base.export() if r["status"] == "active"]
                base.import_records([{**record, "id": None, "tags": ["later"]}])
        except InvalidInput as error:
            refused.append(error)

    embedder.race = edit
    embedder.inside.clear()
    _as("alice", repeat).join(GUARD)
    embedder.race = None
    # before: the fourth run embedded in the transaction, at the gate
    assert embedder.inside and not any(embedder.inside), embedder.inside
    [error] = refused
    assert "changed at each of 3 tries" in str(error) and "\n" not in str(error)
    # her fixes, each a version; the refused write made none
    [active] = [m for m in base.list(limit=None) if m.status == "active"]
    assert active.resolution == f"fix {active.version - 1}" and active.tags == []
    assert not [e for e in base.log(limit=None) if e.action == "updated"]
