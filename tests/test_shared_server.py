"""Another agent on the same HTTP MCP server, with a valid token of its own: what it stores must
never change what this agent's requests find, nor tell it anything of the other's memories. Through
the real app under uvicorn and the SDK's client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hindsight_cli.core import tokens
from hindsight_cli.mcp_server import build_server
from hindsight_cli.mcp_server.http import HttpSettings, TokenVerifier, http_app
from hindsight_cli.store import Store
from tests.fake_embedder import FakeEmbedder
from tests.mcp_http import as_principal as _as, serving, serving_with_tokens as _serving

pytestmark = [pytest.mark.slow, pytest.mark.anyio]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def shared(tmp_path: Path) -> Store:
    store = Store(tmp_path / "store", embedder=FakeEmbedder())
    store.init()
    return store


def _text(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


def _bob_around(store: Store, alice_id: str, count: int) -> list[str]:
    """``count`` memories of bob's whose ids start with alice's id's first 14 characters, and as
    many ending with its last 8, all sorting before hers (ids of bob's own choosing, as an import
    keeps them)."""
    head, tail = alice_id[:14], alice_id[-8:]
    ids = [f"{head}0000-0000-{n:012x}" for n in range(count)]
    ids += [f"00000000-0000-7000-8000-{n:04x}{tail}" for n in range(count)]
    store.scoped("bob").import_records(
        [
            {
                "id": i,
                "content": f"bob's private note {n}: the vault is at /v/{n}",
                "agent_id": "bob",
            }
            for n, i in enumerate(ids)
        ]
    )
    return ids


@pytest.mark.parametrize("part", ["start", "end"])
async def test_another_agents_ids_never_crowd_out_or_count_in_a_short_id(
    shared: Store, tmp_path: Path, part: str
) -> None:
    """A short id was looked up among the first 50 ids of every agent, then narrowed to the
    caller's: bob's 50 ids with the same start (or end) hid alice's own memory from her ("No
    memory"): to memory_get, the memory resource and memory_forget alike."""
    mine = shared.scoped("alice").record("alice: the build cache lives in /srv/cache").memory.id
    other = shared.scoped("alice").record("alice: the runners are on rack 4").memory.id
    short = mine[:14] if part == "start" else mine[-8:]
    _bob_around(shared, mine, 50)
    with _serving(shared, tmp_path) as (url, issued):
        async with _as(url, issued["alice"]) as alice:
            got = await alice.call_tool("memory_get", {"id": short})
            read = await alice.read_resource(f"hindsight://memory/{short}")
            forgotten = await alice.call_tool(
                "memory_forget", {"ids": [short], "reason": "done with it"}
            )
    assert not got.is_error, _text(got)
    assert got.structured_content["id"] == mine
    assert mine in read.contents[0].text and "vault" not in read.contents[0].text
    assert not forgotten.is_error and forgotten.structured_content["forgotten"] == 1
    assert shared.get(mine).status == "invalidated" and shared.get(other).status == "active"
    assert all(m.status == "active" for m in shared.list(limit=None) if m.agent_id == "bob")


async def test_an_ambiguous_short_id_counts_and_names_only_the_callers_memories(
    shared: Store, tmp_path: Path
) -> None:
    """Before, bob's ids filled the 50 looked up: alice's ambiguous id was "No memory" (or, with
    49 of his, one of her two as if it were unique)."""
    alice = shared.scoped("alice")
    first = alice.record("alice: the build cache lives in /srv/cache").memory.id
    second = alice.record("alice: the runners are on rack 4").memory.id
    if first[:4] != second[:4]:
        pytest.skip("the two ids share fewer than 4 characters (50 days apart)")
    _bob_around(shared, first, 60)
    with _serving(shared, tmp_path) as (url, issued):
        async with _as(url, issued["alice"]) as client:
            answer = await client.call_tool("memory_get", {"id": first[:4]})
    text = _text(answer)
    assert answer.is_error
    assert "matches 2 memories" in text and "at least" not in text, text
    assert first in text and second in text
    assert "vault" not in text and "bob" not in text


def _older_token_file(path: Path, agents: list[str]) -> dict[str, str]:
    """A token file as an older version wrote it, for names it let through."""
    import hashlib
    import json

    issued = {agent: f"hst_{n}-{'x' * 40}" for n, agent in enumerate(agents)}
    entries = [
        {"agent": agent, "sha256": hashlib.sha256(token.encode()).hexdigest()}
        for agent, token in issued.items()
    ]
    path.write_text(json.dumps({"tokens": entries}))
    path.chmod(0o600)
    return issued


@pytest.mark.parametrize(
    "names", [("secret=ops", "secret=dev"), ("pass=bob", "pass=alice")], ids=["secret", "pass"]
)
async def test_agent_names_that_redaction_would_change_never_share_memories(
    shared: Store, tmp_path: Path, names: tuple[str, str]
) -> None:
    """A write stores its agent redacted like any label (``secret=ops`` as
    ``secret=[REDACTED:secret]``); a search scoped to ``secret=dev`` filtered on the same redacted
    form and found ``secret=ops``'s memories. Such a name is no agent's scope: refused when a token
    is made, and a request under an older token for one is refused, never widened."""
    from typer.testing import CliRunner

    from hindsight_cli.cli import app

    ops, dev = names
    shared.record("ops: the root password rotates on fridays", agent_id=ops)
    made = CliRunner().invoke(app, ["mcp", "token", dev, "--store", str(shared.path)])
    assert made.exit_code == 1 and "reads as a secret" in made.stderr, made.output
    assert not (shared.path / "mcp-tokens.json").exists()
    path = tmp_path / "tokens.json"
    issued = _older_token_file(path, [dev, "alice"])
    verifier = TokenVerifier(path)
    server = build_server(shared, tokens=verifier, url="http://127.0.0.1:8765")
    with serving(http_app(server, HttpSettings(), verifier)) as url:
        async with _as(f"{url}/mcp", issued[dev]) as client:
            found = await client.call_tool("memory_search", {"query": "root password fridays"})
            wrote = await client.call_tool("memory_write", {"content": "dev: a note"})
        async with _as(f"{url}/mcp", issued["alice"]) as alice:
            hers = await alice.call_tool("memory_write", {"content": "alice: my note"})
    assert found.is_error and "reads as a secret" in _text(found), _text(found)
    assert "fridays" not in _text(found)
    assert wrote.is_error
    assert not hers.is_error
    assert sorted(m.content for m in shared.list(limit=None)) == [
        "alice: my note",
        "ops: the root password rotates on fridays",
    ]


def test_a_session_id_is_its_openers_alone(shared: Store, tmp_path: Path) -> None:
    """Bob, knowing alice's Mcp-Session-Id, sends his own token with it: every request on it (a
    tool call, the event stream, closing it) is answered as if the session did not exist, and
    alice's session goes on working. (Held: the SDK binds a session to the credential that opened
    it.)"""
    import httpx2

    from tests.mcp_http import call, headers, open_session

    shared.scoped("alice").record("alice: the staging password is in the vault")
    with _serving(shared, tmp_path) as (url, issued), httpx2.Client(timeout=60) as http:
        base_url = url.removesuffix("/mcp")
        session = open_session(http, base_url, issued["alice"]).headers["mcp-session-id"]
        asked = call(http, base_url, "memory_search", {"query": "staging"}, issued["bob"], session)
        stream = http.get(
            url, headers={**headers(issued["bob"], session), "Accept": "text/event-stream"}
        )
        closed = http.delete(url, headers=headers(issued["bob"], session))
        hers = call(http, base_url, "memory_search", {"query": "staging"}, issued["alice"], session)
    assert [asked.status_code, stream.status_code, closed.status_code] == [404, 404, 404]
    assert "staging" not in asked.text + stream.text + closed.text
    assert hers.status_code == 200 and "vault" in hers.text


def _token_command(*words: str) -> Any:
    from typer.testing import CliRunner

    from hindsight_cli.cli import app

    return CliRunner().invoke(app, ["mcp", "token", *words])


async def test_a_revoked_token_is_refused_from_its_next_request(
    shared: Store, tmp_path: Path
) -> None:
    """The server read its token file once: `hindsight mcp token bob --revoke` left bob reading
    and forgetting his memories (and with his scope, everything he could reach) until someone
    restarted it. The file is read again when it changes: a revoke counts from the next request,
    on an open session as on a new one, and a token made meanwhile works without a restart."""
    import httpx2

    from tests.mcp_http import call, open_session

    path = tmp_path / "tokens.json"
    issued = {name: tokens.create(path, name) for name in ("alice", "bob")}
    shared.scoped("bob").record("bob: the release checklist lives in docs/release.md")
    verifier = TokenVerifier(path)
    server = build_server(shared, tokens=verifier, url="http://127.0.0.1:8765")
    with serving(http_app(server, HttpSettings(), verifier)) as url, httpx2.Client(timeout=60) as h:
        session = open_session(h, url, issued["bob"]).headers["mcp-session-id"]
        before = call(
            h, url, "memory_search", {"query": "release checklist"}, issued["bob"], session
        )
        revoked = _token_command("bob", "--revoke", "--tokens", str(path))
        on_session = call(h, url, "memory_search", {"query": "release"}, issued["bob"], session)
        forgot = call(h, url, "memory_forget", {"older_than": "0s"}, issued["bob"], session)
        fresh = open_session(h, url, issued["bob"])
        made = _token_command("carol", "--tokens", str(path))
        carol = open_session(h, url, made.stdout.strip())
        alice = open_session(h, url, issued["alice"])
    assert before.status_code == 200 and "release.md" in before.text
    assert revoked.exit_code == 0, revoked.output
    assert [on_session.status_code, forgot.status_code, fresh.status_code] == [401, 401, 401]
    assert "release" not in on_session.text + fresh.text
    assert carol.status_code == 200 and alice.status_code == 200
    assert shared.list()[0].status == "active"


@pytest.mark.parametrize(
    "damage", ["deleted", "not-json", "others-can-write"], ids=lambda d: str(d)
)
async def test_a_token_file_that_goes_bad_refuses_every_token(
    shared: Store, tmp_path: Path, damage: str
) -> None:
    """Read again, a token file that is gone, unreadable or writable by others lets no token in
    (never the last good copy's), until it is fixed."""
    import httpx2

    from tests.mcp_http import open_session

    path = tmp_path / "tokens.json"
    alice = tokens.create(path, "alice")
    verifier = TokenVerifier(path)
    server = build_server(shared, tokens=verifier, url="http://127.0.0.1:8765")
    with serving(http_app(server, HttpSettings(), verifier)) as url, httpx2.Client(timeout=60) as h:
        assert open_session(h, url, alice).status_code == 200
        good = path.read_text()
        if damage == "deleted":
            path.unlink()
        elif damage == "not-json":
            path.write_text("{not json")
        else:
            path.chmod(0o606)
        refused = open_session(h, url, alice)
        path.write_text(good)
        path.chmod(0o600)
        again = open_session(h, url, alice)
    assert refused.status_code == 401
    assert again.status_code == 200


class _SlowWrites(FakeEmbedder):
    """Embeds like the fake, but a text holding "megabyte" waits until ``go`` is set (a long
    write's embedding, held still)."""

    def __init__(self) -> None:
        super().__init__()
        import threading

        self.waiting, self.go = threading.Event(), threading.Event()

    def embed(self, texts: Any) -> Any:
        if any("megabyte" in text for text in texts):
            self.waiting.set()
            assert self.go.wait(120)
        return super().embed(texts)


class _CountingLock:
    """The write gate's lock, counting the threads waiting for it."""

    def __init__(self, lock: Any) -> None:
        import threading

        self.lock, self.waiting, self._count = lock, 0, threading.Lock()

    def __enter__(self) -> Any:
        with self._count:
            self.waiting += 1
        self.lock.acquire()
        with self._count:
            self.waiting -= 1
        return self

    def __exit__(self, *exc: object) -> None:
        self.lock.release()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.lock, name)


def test_another_agents_queued_writes_never_hold_up_a_search(tmp_path: Path) -> None:
    """Each tool call ran in one pool of 40 worker threads, and a write waits for its turn at the
    write gate inside its thread: alice's one long write (its embedding held still here) and 45
    more queued behind it took every thread, and bob's search waited for all of them. Reads now
    run in threads of their own; writes still go one at a time."""
    import threading

    import httpx2

    from hindsight_cli.mcp_server.server import tool_store
    from tests.mcp_http import answer, call, open_session, wait_for

    embedder = _SlowWrites()
    store = Store(tmp_path / "store", embedder=embedder)
    store.init()
    store.record("bob: the deploy key lives in the vault", agent_id="bob")
    path = tmp_path / "tokens.json"
    issued = {name: tokens.create(path, name) for name in ("alice", "bob")}
    verifier = TokenVerifier(path)
    server = build_server(store, tokens=verifier, url="http://127.0.0.1:8765")
    gate = tool_store(server).gate
    counting = _CountingLock(gate.writes)
    gate.writes = counting  # type: ignore[assignment]
    found: list[str] = []

    def write(url: str, text: str) -> None:
        with httpx2.Client(timeout=300) as own:
            session = open_session(own, url, issued["alice"]).headers["mcp-session-id"]
            call(own, url, "memory_write", {"content": text}, issued["alice"], session)

    def search(url: str) -> None:
        with httpx2.Client(timeout=300) as own:
            session = open_session(own, url, issued["bob"]).headers["mcp-session-id"]
            asked = call(own, url, "memory_search", {"query": "deploy key"}, issued["bob"], session)
            found.append(json_text(answer(asked)))

    settings = HttpSettings(sessions_per_agent=64)
    with serving(http_app(server, settings, verifier)) as url:
        texts = ["a megabyte of build log"] + [f"alice's note {n}" for n in range(45)]
        writers = [threading.Thread(target=write, args=(url, text), daemon=True) for text in texts]
        bob = threading.Thread(target=search, args=(url,), daemon=True)
        try:
            writers[0].start()
            assert embedder.waiting.wait(60)
            for writer in writers[1:]:
                writer.start()
            # every one of hers is sent: waiting for its turn (at the gate, or, since her writes
            # take a thread one at a time, behind her own)
            wait_for(lambda: tool_store(server)._writes.asked >= 46, "alice's writes to queue")
            bob.start()
            # a guard against a hang, never a measure: bob is answered while alice's write is
            # held
            bob.join(60)
            answered_while_held = not bob.is_alive() and not embedder.go.is_set()
        finally:
            embedder.go.set()
        for writer in writers:
            writer.join(120)
        bob.join(120)
    assert answered_while_held
    assert "vault" in found[0]
    assert sum(m.agent_id == "alice" for m in store.list(limit=None)) == 46


def json_text(message: dict[str, Any]) -> str:
    import json

    return json.dumps(message)


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "text/plain;charset=application/json",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ],
)
def test_a_local_web_page_cannot_drive_a_server_without_tokens(
    shared: Store, content_type: str
) -> None:
    """A page served from another local port passes the Host/Origin guard (a loopback origin),
    but a browser lets a page send, without asking the server first, only a "simple" request:
    one of these content types and no custom header (no Mcp-Session-Id, no MCP-Protocol-Version).
    None of them opens a session or runs a tool, and a preflight is never granted. (Held.)"""
    import json

    import httpx2

    from tests.mcp_http import initialize, rpc

    shared.record("the staging password is in the vault")
    before = list(shared.export())
    server = build_server(shared)
    page = {"Origin": "http://localhost:3000", "Content-Type": content_type}
    forget = rpc("tools/call", {"name": "memory_forget", "arguments": {"older_than": "0s"}})
    with serving(http_app(server, HttpSettings(), None)) as url, httpx2.Client(timeout=60) as h:
        answers = [
            h.post(f"{url}/mcp", content=json.dumps(message), headers=page)
            for message in (initialize(), forget)
        ]
        preflight = h.options(
            f"{url}/mcp",
            headers={
                "Origin": "http://localhost:3000",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type, mcp-session-id",
            },
        )
    assert all(a.status_code >= 400 and "mcp-session-id" not in a.headers for a in answers)
    assert "access-control-allow-origin" not in preflight.headers
    assert list(shared.export()) == before


def test_another_agents_many_slow_searches_never_hold_up_a_search(tmp_path: Path) -> None:
    """Reads had threads of their own (16), shared by every agent in the order they came: alice
    sent 40 searches at once whose query embeddings take long (held still here), they took all 16
    threads and queued the rest, and bob's one search waited for every one of them. Now an agent
    holds at most 4 of those threads; bob finds one while hers are still held."""
    import threading

    import anyio

    from hindsight_cli.mcp_server.server import tool_store
    from tests.mcp_http import wait_for

    embedder = _SlowWrites()
    store = Store(tmp_path / "store", embedder=embedder)
    store.init()
    store.record("bob: the deploy key lives in the vault", agent_id="bob")
    store.record("alice: the build cache lives in /srv/cache", agent_id="alice")
    path = tmp_path / "tokens.json"
    issued = {name: tokens.create(path, name) for name in ("alice", "bob")}
    verifier = TokenVerifier(path)
    server = build_server(store, tokens=verifier, url="http://127.0.0.1:8765")
    reads = tool_store(server)._reads
    found: list[str] = []
    hers: list[bool] = []

    async def flood(url: str) -> None:
        async with _as(url, issued["alice"]) as alice:

            async def one(n: int) -> None:
                answer = await alice.call_tool("memory_search", {"query": f"megabyte {n}"})
                hers.append(not answer.is_error)

            async with anyio.create_task_group() as group:
                for n in range(40):
                    group.start_soon(one, n)

    async def search(url: str) -> None:
        async with _as(url, issued["bob"]) as bob:
            answer = await bob.call_tool("memory_search", {"query": "deploy key"})
            found.append(_text(answer))

    with serving(http_app(server, HttpSettings(), verifier)) as base:
        url = f"{base}/mcp"
        alice = threading.Thread(target=anyio.run, args=(flood, url), daemon=True)
        bob = threading.Thread(target=anyio.run, args=(search, url), daemon=True)
        try:
            alice.start()
            wait_for(lambda: reads.asked >= 40, "alice's 40 searches to ask for a thread")
            assert embedder.waiting.wait(60)
            bob.start()
            # a guard against a hang, never a measure: bob is answered while hers are held
            bob.join(60)
            answered_while_held = not bob.is_alive() and not embedder.go.is_set()
        finally:
            embedder.go.set()
        alice.join(120)
        bob.join(120)
    assert answered_while_held
    assert "vault" in found[0]
    assert hers == [True] * 40


def test_another_agents_queued_writes_never_hold_up_a_write(tmp_path: Path) -> None:
    """Writes go one at a time, but each waited for its turn inside a thread of the SDK's one pool
    of 40: alice's long write (held still) and 45 more queued behind it took every thread, and
    bob's one write, which needs a thread before it can even wait at the gate, came after all of
    hers. Now an agent's writes take a thread one at a time, and the gate is held only while the
    store changes: bob waits for no write of hers that is still being read, nor for her queue."""
    import threading

    import httpx2

    from hindsight_cli.mcp_server.server import tool_store
    from tests.mcp_http import call, open_session, wait_for

    embedder = _SlowWrites()
    store = Store(tmp_path / "store", embedder=embedder)
    store.init()
    path = tmp_path / "tokens.json"
    issued = {name: tokens.create(path, name) for name in ("alice", "bob")}
    verifier = TokenVerifier(path)
    server = build_server(store, tokens=verifier, url="http://127.0.0.1:8765")
    gate = tool_store(server).gate
    counting = _CountingLock(gate.writes)
    gate.writes = counting  # type: ignore[assignment]
    writes = tool_store(server)._writes

    def write(url: str, text: str, agent: str) -> None:
        with httpx2.Client(timeout=300) as own:
            session = open_session(own, url, issued[agent]).headers["mcp-session-id"]
            call(own, url, "memory_write", {"content": text}, issued[agent], session)

    settings = HttpSettings(sessions_per_agent=64)
    with serving(http_app(server, settings, verifier)) as url:
        texts = ["a megabyte of build log"] + [f"alice's note {n}" for n in range(45)]
        writers = [
            threading.Thread(target=write, args=(url, text, "alice"), daemon=True) for text in texts
        ]
        bob = threading.Thread(
            target=write, args=(url, "bob: the deploy key moved", "bob"), daemon=True
        )
        try:
            writers[0].start()
            assert embedder.waiting.wait(60)
            for writer in writers[1:]:
                writer.start()
            # each of her writes has been sent and is waiting, for a thread or for the gate
            wait_for(lambda: writes.asked >= 46, "alice's writes to queue")
            bob.start()
            wait_for(lambda: writes.asked >= 47, "bob's write to be sent")
            # a guard against a hang, never a measure: bob's write is stored while her first is
            # still being read (the gate is held only while the store changes, review AS), and no
            # write waits at the gate meanwhile: hers wait behind her own
            bob.join(60)
            stored_while_held = not bob.is_alive() and not embedder.go.is_set()
            assert counting.waiting == 0
        finally:
            embedder.go.set()
        for writer in writers:
            writer.join(120)
        bob.join(120)
    assert stored_while_held
    order = [m.agent_id for m in sorted(store.list(limit=None), key=lambda m: m.created_at)]
    assert len(order) == 47
    # after her held write, bob's comes among the next few, not after her 45 queued ones
    assert order.index("bob") <= 4, order


def test_another_agents_sampled_summaries_never_hold_up_a_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`memory_summarize` from a client that offers sampling first builds the prompt for the
    client's LLM, and built it in a thread of the SDK's one pool of 40, outside both the reads'
    threads and the per-agent writer: alice's 45 such calls, their prompts held still (a task of
    many memories), took all 40, and bob's one write, which needs a thread of that pool, waited for
    them (review J). Now the prompt is a read among hers (at most 4 threads of the reads')."""
    import threading

    import httpx2

    from hindsight_cli.errors import InvalidInput
    from hindsight_cli.mcp_server.server import tool_store
    from tests.mcp_http import call, headers, rpc, wait_for

    store = Store(tmp_path / "store", embedder=FakeEmbedder())
    store.init()
    store.scoped("alice").record("alice: tagged v2", task_id="rel")
    go, held, count = threading.Event(), [0], threading.Lock()
    real = Store.summary_request

    def slow(self: Store, *args: Any, **kwargs: Any) -> Any:
        if self.scope.agent == "alice":
            with count:
                held[0] += 1
            assert go.wait(300)
            # no prompt: the summary is then extractive, and her call ends (her client here
            # would never answer a sampling request)
            raise InvalidInput("held")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Store, "summary_request", slow)
    path = tmp_path / "tokens.json"
    issued = {name: tokens.create(path, name) for name in ("alice", "bob")}
    verifier = TokenVerifier(path)
    server = build_server(store, tokens=verifier, url="http://127.0.0.1:8765")
    reads = tool_store(server)._reads

    def opened(own: Any, url: str, token: str) -> str:
        hello = rpc(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {"sampling": {}},
                "clientInfo": {"name": "sampler", "version": "0"},
            },
        )
        session = own.post(f"{url}/mcp", json=hello, headers=headers(token)).headers[
            "mcp-session-id"
        ]
        own.post(
            f"{url}/mcp",
            json=rpc("notifications/initialized", id=None),
            headers=headers(token, session),
        )
        return str(session)

    def summarize(url: str) -> None:
        with httpx2.Client(timeout=300) as own:
            session = opened(own, url, issued["alice"])
            try:
                call(own, url, "memory_summarize", {"task_id": "rel"}, issued["alice"], session)
            except httpx2.HTTPError:
                pass

    def write(url: str) -> None:
        with httpx2.Client(timeout=300) as own:
            session = opened(own, url, issued["bob"])
            call(
                own,
                url,
                "memory_write",
                {"content": "bob: the deploy key moved"},
                issued["bob"],
                session,
            )

    with serving(http_app(server, HttpSettings(sessions_per_agent=64), verifier)) as url:
        hers = [threading.Thread(target=summarize, args=(url,), daemon=True) for _ in range(45)]
        bob = threading.Thread(target=write, args=(url,), daemon=True)
        try:
            for thread in hers:
                thread.start()
            # every prompt is being built (the SDK's pool full) or waits among her reads
            wait_for(lambda: held[0] >= 40 or reads.asked >= 45, "alice's summaries to queue")
            bob.start()
            wait_for(
                lambda: any(m.agent_id == "bob" for m in store.list(limit=None)),
                "bob's write while alice's summaries are held",
            )
            assert not go.is_set()
        finally:
            go.set()
        bob.join(120)
        for thread in hers:
            thread.join(120)


@pytest.mark.skipif(
    not hasattr(__import__("os"), "getuid") or __import__("os").getuid() != 0,
    reason="needs root to act as another local user",
)
@pytest.mark.parametrize("through", ["loopback", "the machine's address", "no sock_diag"])
def test_a_connections_owner_is_asked_of_the_kernel_never_read_from_every_connection(
    shared: Store, monkeypatch: pytest.MonkeyPatch, through: str
) -> None:
    """Each request's connection owner was found by reading the whole ``/proc/net/tcp`` (and
    ``tcp6``) on the event loop: another local account fills those tables with its own
    connections (and closed ones, which need no descriptor), and every request of the server's
    own user then cost a read of all of them (9,000 connections: 24 ms a request, before any
    work; review P). Now the kernel is asked for the one socket (sock_diag): the owner is told
    with the tables out of reach (here, before: every other account's request let through).
    Where sock_diag does not answer (a kernel without its TCP diagnostics says "no such socket"
    for every one), the tables are read as before."""
    import json

    import httpx2

    from hindsight_cli.serving import hostguard
    from tests.mcp_http import as_another_user, initialize, machine_address

    source = machine_address() if through == "the machine's address" else None
    if through == "the machine's address" and source is None:
        pytest.skip("this machine has no address but loopback")
    if through == "no sock_diag":
        monkeypatch.setattr(hostguard, "_diag_works", lambda: False)
    else:
        monkeypatch.setattr(hostguard, "_TCP_TABLES", ("/nonexistent/tcp", "/nonexistent/tcp6"))
    with serving(http_app(build_server(shared), HttpSettings(), None)) as url:
        status, text = as_another_user(f"{url}/mcp", json.dumps(initialize()).encode(), source)
        with httpx2.Client(timeout=60) as own:
            mine = own.post(
                f"{url}/mcp",
                json=initialize(),
                headers={"Accept": "application/json, text/event-stream"},
            )
    assert status == 403 and "another local user" in text, text
    assert mine.status_code == 200


@pytest.mark.skipif(
    not hasattr(__import__("os"), "getuid") or __import__("os").getuid() != 0,
    reason="needs root to act as another local user",
)
@pytest.mark.parametrize("what", ["initialize", "forget"])
@pytest.mark.parametrize("through", ["loopback", "the machine's address"])
def test_another_local_user_cannot_drive_a_server_without_tokens(
    shared: Store, tmp_path: Path, what: str, through: str
) -> None:
    """A server without tokens on loopback answered every account of the machine: another local
    user read and hard-forgot every memory over 127.0.0.1 (review J). Now such a server answers
    the user who started it only: 403 in one line; its own user's requests as before.

    Review M: a local process may connect to 127.0.0.1 from the machine's own address
    (192.0.2.2 → 127.0.0.1): the server saw a client that is no loopback address, took it for
    another machine's and let it through (initialize answered, the memory purged). A connection
    that arrives at a loopback address is this machine's, whatever address it comes from."""
    import json

    import httpx2

    from tests.mcp_http import as_another_user, initialize, machine_address, rpc

    source = None if through == "loopback" else machine_address()
    if through != "loopback" and source is None:
        pytest.skip("this machine has no address but loopback")
    kept = shared.record("the deploy key is in the team vault").memory
    server = build_server(shared)
    with serving(http_app(server, HttpSettings(), None)) as url:
        message = (
            initialize()
            if what == "initialize"
            else rpc(
                "tools/call",
                {"name": "memory_forget", "arguments": {"ids": [kept.id], "hard": True}},
            )
        )
        status, text = as_another_user(f"{url}/mcp", json.dumps(message).encode(), source)
        with httpx2.Client(timeout=60) as own:
            mine = own.post(
                f"{url}/mcp",
                json=initialize(),
                headers={"Accept": "application/json, text/event-stream"},
            )
    assert status == 403, text
    assert "another local user" in text and "\n" not in text.strip()
    assert mine.status_code == 200
    assert shared.get(kept.id).status == "active"


@pytest.mark.skipif(
    not hasattr(__import__("os"), "getuid") or __import__("os").getuid() != 0,
    reason="needs root to act as another local user",
)
def test_a_connection_its_opener_closed_never_passes_for_roots() -> None:
    """Review M: the kernel lists a TCP end its process closed, once the other side has
    acknowledged the close, as a time-wait row whose uid is 0 whoever opened it. Another local
    user who sends a request and closes at once passed, on a server run as root without tokens,
    for root itself (the request, a hard forget, is read from the buffer and run). Now a closed
    end belongs to nobody: 403, like any connection whose owner cannot be told."""
    import encodings.idna  # noqa: F401 - the child cannot load it once it is another user
    import os
    import socket

    from tests.mcp_http import wait_for

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        server = listener.getsockname()
        child = os.fork()
        if child == 0:  # pragma: no cover - the child
            try:
                os.setgid(65534)
                os.setuid(65534)
                with socket.create_connection(server, timeout=60) as conn:
                    conn.sendall(b'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n{"hard": true}')
            finally:
                os._exit(0)
        conn, client = listener.accept()
        os.waitpid(child, 0)
        with conn:
            end = f"{int.from_bytes(socket.inet_aton(client[0]), 'little'):08X}:{client[1]:04X}"

            def closed() -> bool:
                rows = (row.split() for row in open("/proc/net/tcp", encoding="ascii"))
                # 05, FIN_WAIT2: the close acknowledged (a time-wait row)
                return any(f[1] == end and f[3] == "05" for f in rows if len(f) > 9)

            wait_for(closed, "the other user's end to be closed and acknowledged")
            assert _guarded(client, server) == 403


def _guarded(client: tuple[str, int], server: tuple[str, int]) -> int:
    """What a server without tokens answers a request over the connection from ``client`` to
    ``server`` (its Host/Origin guard, ``same_user``): 200 when the request reaches the app."""
    import anyio

    from hindsight_cli.serving.hostguard import HostGuard, host_policy

    answered: list[int] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        answered.append(200)

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answered.append(message["status"])

    guard = HostGuard(app, host_policy("::"), same_user=True)
    scope = {
        "type": "http",
        "headers": [(b"host", b"127.0.0.1")],
        "client": client[:2],
        "server": server[:2],
    }
    anyio.run(guard, scope, None, send)
    return answered[0]


@pytest.mark.skipif(
    not hasattr(__import__("os"), "getuid") or __import__("os").getuid() != 0,
    reason="needs root to act as another local user",
)
@pytest.mark.parametrize("who", ["its own user", "another local user"])
def test_a_dual_stack_server_tells_its_users_ipv4_loopback_apart(who: str) -> None:
    """Review M: a server listening on ``::`` (both address families) names an IPv4 peer
    ``::ffff:127.0.0.1``, which the IPv4 table lists as 127.0.0.1: the owner's own request over
    127.0.0.1 must be answered and another local user's refused."""
    import encodings.idna  # noqa: F401 - the child cannot load it once it is another user
    import os
    import socket

    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    with socket.socket(socket.AF_INET6) as listener:
        listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        listener.bind(("::", 0))
        listener.listen()
        port = listener.getsockname()[1]
        read, write = os.pipe()
        child = os.fork()
        if child == 0:  # pragma: no cover - the child
            try:
                if who != "its own user":
                    os.setgid(65534)
                    os.setuid(65534)
                with socket.create_connection(("127.0.0.1", port), timeout=60):
                    # held open until the parent has looked
                    os.read(read, 1)
            finally:
                os._exit(0)
        conn, client = listener.accept()
        with conn:
            status = _guarded(client, conn.getsockname())
        os.write(write, b"x")
        os.waitpid(child, 0)
    assert status == (200 if who == "its own user" else 403)
