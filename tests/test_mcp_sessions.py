"""Open HTTP sessions per agent (issue 16): one agent that opens session after session, or holds
them all busy, never keeps another agent out; idle sessions close. Through a real server, raw
requests."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest

from hindsight_cli.core import tokens
from hindsight_cli.mcp_server import build_server
from hindsight_cli.mcp_server.http import HttpSettings, TokenVerifier, http_app
from hindsight_cli.store import Store
from tests.fake_embedder import FakeEmbedder
from tests.mcp_http import answer, call, headers, open_session, serving, wait_for


@pytest.fixture
def agents(tmp_path: Path) -> dict[str, str]:
    path = tmp_path / "tokens.json"
    return {name: tokens.create(path, name) for name in ("alice", "bob")}


@contextmanager
def _server(tmp_path: Path, per_agent: int = 2, idle: float = 600) -> Iterator[tuple[str, object]]:
    store = Store(tmp_path / "store", embedder=FakeEmbedder())
    store.init()
    server = build_server(
        store,
        tokens=(verifier := TokenVerifier(tmp_path / "tokens.json")),
        url="http://127.0.0.1:8765",
    )
    app = http_app(server, HttpSettings(sessions_per_agent=per_agent, session_idle=idle), verifier)
    with serving(app) as url:
        yield url, server.session_manager


def _owned(manager: object, agent: str) -> list[str]:
    owners = manager._session_owners  # type: ignore[attr-defined]
    return [
        sid
        for sid in list(manager._server_instances)
        if owners.get(sid, {}).get("client_id") == agent
    ]  # type: ignore[attr-defined]


def _works(http: httpx2.Client, url: str, token: str, session: str) -> bool:
    found = call(http, url, "memory_search", {"query": "anything"}, token, session)
    return found.status_code == 200 and "result" in answer(found)


def test_one_agent_flooding_sessions_never_keeps_another_out(
    tmp_path: Path, agents: dict[str, str]
) -> None:
    with _server(tmp_path) as (url, manager), httpx2.Client(timeout=60) as http:
        bob = open_session(http, url, agents["bob"]).headers["mcp-session-id"]
        opened = []
        for _ in range(12):
            response = open_session(http, url, agents["alice"])
            # alice's own oldest idle session makes room
            assert response.status_code == 200
            opened.append(response.headers["mcp-session-id"])
            assert (
                len(
                    wait_for(
                        lambda: len(_owned(manager, "alice")) <= 2 and _owned(manager, "alice"),
                        "alice's evicted sessions to close",
                    )
                )
                <= 2
            )
        assert set(_owned(manager, "alice")) == set(opened[-2:])
        assert (
            call(http, url, "memory_search", {"query": "x"}, agents["alice"], opened[0]).status_code
            == 404
        )
        assert _works(http, url, agents["alice"], opened[-1])
        assert _works(http, url, agents["bob"], bob) and _owned(manager, "bob") == [bob]
        second = open_session(http, url, agents["bob"])
        assert second.status_code == 200 and _works(
            http, url, agents["bob"], second.headers["mcp-session-id"]
        )


def test_an_agent_whose_sessions_are_all_busy_is_refused_alone(
    tmp_path: Path, agents: dict[str, str]
) -> None:
    """Sessions with an open event stream are in use: none is closed; alice gets 429, bob is
    served."""
    with _server(tmp_path) as (url, manager), httpx2.Client(timeout=60) as http:
        streams, stop = [], threading.Event()
        for _ in range(2):
            session = open_session(http, url, agents["alice"]).headers["mcp-session-id"]
            opened = threading.Event()

            def listen(session: str = session, opened: threading.Event = opened) -> None:
                with (
                    httpx2.Client(timeout=60) as own,
                    own.stream(
                        "GET",
                        f"{url}/mcp",
                        headers={
                            **headers(agents["alice"], session),
                            "Accept": "text/event-stream",
                        },
                    ) as stream,
                ):
                    opened.set()
                    for _ in stream.iter_bytes():
                        if stop.is_set():
                            return

            thread = threading.Thread(target=listen, daemon=True)
            thread.start()
            wait_for(opened.is_set, "the event stream to open")
            streams.append((session, thread))
        refused = open_session(http, url, agents["alice"])
        assert refused.status_code == 429 and "open sessions, all busy" in refused.text
        assert sorted(_owned(manager, "alice")) == sorted(s for s, _ in streams)
        bob = open_session(http, url, agents["bob"])
        assert bob.status_code == 200 and _works(
            http, url, agents["bob"], bob.headers["mcp-session-id"]
        )
        stop.set()
        # a client that ends its session frees its place
        for session, _ in streams:
            assert http.delete(
                f"{url}/mcp", headers=headers(agents["alice"], session)
            ).status_code in (200, 204)
        assert open_session(http, url, agents["alice"]).status_code == 200


def test_idle_sessions_close(tmp_path: Path, agents: dict[str, str]) -> None:
    with (
        _server(tmp_path, per_agent=16, idle=0.3) as (url, manager),
        httpx2.Client(timeout=60) as http,
    ):
        session = open_session(http, url, agents["alice"]).headers["mcp-session-id"]
        wait_for(lambda: not _owned(manager, "alice"), "the idle session to close")
        assert (
            call(http, url, "memory_search", {"query": "x"}, agents["alice"], session).status_code
            == 404
        )


def test_the_stateless_protocol_generation_is_not_counted(
    tmp_path: Path, agents: dict[str, str]
) -> None:
    """2026-07-28 requests open no session; a full quota must not refuse them."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    with _server(tmp_path, per_agent=1) as (url, manager), httpx2.Client(timeout=60) as http:
        legacy = open_session(http, url, agents["alice"]).headers["mcp-session-id"]
        import anyio

        async def modern() -> bool:
            client = streamable_http_client(
                f"{url}/mcp",
                http_client=httpx2.AsyncClient(
                    headers={"Authorization": f"Bearer {agents['alice']}"}, timeout=60
                ),
            )
            async with Client(client, mode="auto") as session:
                return not (await session.call_tool("memory_search", {"query": "x"})).is_error

        assert anyio.run(modern)
        # not closed to make room for them
        assert _owned(manager, "alice") == [legacy]


def _open_with(http: httpx2.Client, url: str, auth: list[str]) -> httpx2.Response:
    """Open a session sending these Authorization header values, in this order."""
    from tests.mcp_http import initialize

    sent = [(k, v) for k, v in headers().items()] + [("Authorization", a) for a in auth]
    return http.post(f"{url}/mcp", json=initialize(), headers=sent)


@pytest.mark.parametrize(
    "second",
    ["Bearer hst_not-a-token", "Basic YWxpY2U6eA==", "Bearer", "", "BOB"],
    ids=["bogus-bearer", "basic", "bare-scheme", "empty", "word"],
)
def test_a_second_credential_never_takes_a_request_out_of_its_agents_quota(
    tmp_path: Path, agents: dict[str, str], second: str
) -> None:
    """The SDK authenticates a request by its first Authorization header; a quota that read the
    last one counted alice's sessions under no agent, and she kept all of them open (the server's
    whole session table, for everyone, in the end). A request naming its credential twice is
    refused; alice stays within her own quota."""
    with _server(tmp_path, per_agent=2) as (url, manager), httpx2.Client(timeout=60) as http:
        answers = [_open_with(http, url, [f"Bearer {agents['alice']}", second]) for _ in range(4)]
        assert all(a.status_code == 400 for a in answers), [a.status_code for a in answers]
        assert "Authorization" in answers[0].text and "once" in answers[0].text
        assert _owned(manager, "alice") == []
        # one credential: served as before
        assert _open_with(http, url, [f"Bearer {agents['alice']}"]).status_code == 200


def _open_sending(
    http: httpx2.Client, url: str, token: str, name: str, values: list[str]
) -> httpx2.Response:
    """Open a session (initialize, no session id) sending header ``name`` with these values."""
    from tests.mcp_http import initialize

    sent = [*headers(token).items(), *((name, value) for value in values)]
    return http.post(f"{url}/mcp", json=initialize(), headers=sent)


@pytest.mark.parametrize(
    ("name", "second"),
    [
        ("MCP-Protocol-Version", "x"),
        ("MCP-Protocol-Version", "2099-01-01"),
        ("MCP-Protocol-Version", ""),
        ("Mcp-Session-Id", "0" * 32),
    ],
    ids=["version-word", "version-unknown", "version-empty", "session-id"],
)
def test_a_second_routing_header_never_takes_a_session_out_of_its_agents_quota(
    tmp_path: Path, agents: dict[str, str], name: str, second: str
) -> None:
    """The SDK routes a request by the first MCP-Protocol-Version (a handshake version: a session
    is opened), the quota read the last (an unknown one: not a session, not counted): alice opened
    as many sessions as she liked past her quota of 2 (the server's whole table of 10,000 in the
    end, and bob's 503). A request naming its protocol version or session twice is refused."""
    from tests.mcp_http import LEGACY

    values = [LEGACY, second] if name == "MCP-Protocol-Version" else [second, second]
    with _server(tmp_path, per_agent=2) as (url, manager), httpx2.Client(timeout=60) as http:
        answers = [_open_sending(http, url, agents["alice"], name, values) for _ in range(4)]
        statuses = [a.status_code for a in answers]
        assert statuses == [400] * 4, statuses
        text = answers[0].text
        assert name.title() in text.title() and "once" in text, text
        assert len(_owned(manager, "alice")) <= 2
        # sent once: served as before
        assert open_session(http, url, agents["alice"]).status_code == 200
        assert open_session(http, url, agents["bob"]).status_code == 200
