"""Helpers for the HTTP MCP tests: the real app under uvicorn in a thread, raw protocol requests,
and waiting for conditions (never for a fixed time)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx2

# a protocol generation with sessions
LEGACY = "2025-06-18"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def listening(port: int) -> bool:
    with socket.socket() as attempt:
        return attempt.connect_ex(("127.0.0.1", port)) == 0


def wait_for(condition: Callable[[], Any], what: str, timeout: float = 60) -> Any:
    """Poll ``condition`` until it is true; fail naming ``what`` after a generous ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


@contextmanager
def serving(app: Any, port: int | None = None) -> Iterator[str]:
    """``app`` under a real uvicorn in a thread; yields the base URL once it accepts connections."""
    import uvicorn

    port = port or free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: server.started, "the server to start")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def rpc(method: str, params: dict | None = None, id: int | None = 1) -> dict:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params or {}}
    if id is not None:
        message["id"] = id
    return message


def initialize(message_id: int = 1) -> dict:
    return rpc(
        "initialize",
        {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "raw-test", "version": "0"},
        },
        message_id,
    )


def headers(token: str | None = None, session: str | None = None, **more: str) -> dict[str, str]:
    out = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        **more,
    }
    if token:
        out["Authorization"] = f"Bearer {token}"
    if session:
        out["mcp-session-id"] = session
        out["mcp-protocol-version"] = LEGACY
    return out


def answer(response: httpx2.Response) -> dict:
    """The JSON-RPC message of a response (a JSON body, or the data of an event stream)."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return json.loads(data[-1])
    return response.json()


def open_session(http: httpx2.Client, url: str, token: str | None = None) -> httpx2.Response:
    """Initialize a session (and send `initialized` when it opened); the response carries its id."""
    response = http.post(f"{url}/mcp", json=initialize(), headers=headers(token))
    session = response.headers.get("mcp-session-id")
    if response.status_code == 200 and session:
        http.post(
            f"{url}/mcp",
            json=rpc("notifications/initialized", id=None),
            headers=headers(token, session),
        )
    return response


def call(
    http: httpx2.Client,
    url: str,
    name: str,
    arguments: dict,
    token: str | None = None,
    session: str | None = None,
    **more: str,
) -> httpx2.Response:
    return http.post(
        f"{url}/mcp",
        json=rpc("tools/call", {"name": name, "arguments": arguments}, 7),
        headers=headers(token, session, **more),
    )


def machine_address() -> str | None:
    """An IPv4 address of this machine that is not a loopback one (``/proc/net/fib_trie``'s local
    host routes), or None: a local process may connect to 127.0.0.1 from it."""
    try:
        lines = Path("/proc/net/fib_trie").read_text().splitlines()
    except OSError:
        return None
    found = {
        before.split()[-1]
        for before, line in pairwise(lines)
        if "/32 host LOCAL" in line and not before.split()[-1].startswith("127.")
    }
    return min(found) if found else None


def as_another_user(
    url: str, body: bytes | None = None, source: str | None = None
) -> tuple[int, str]:
    """POST ``body`` (GET without one) to ``url`` from a child process that runs as uid 65534
    (another local account of this machine): the status and the body of the answer. ``source``:
    the local address the child connects from (default the kernel's choice). Needs root."""
    status, _, text = another_users_answer(url, body, source)
    return status, text


def another_users_answer(
    url: str, body: bytes | None = None, source: str | None = None, cookie: str | None = None
) -> tuple[int, str, str]:
    """``as_another_user``'s request (with ``cookie`` as its Cookie header, if given): the
    status, the head and the body of the answer."""
    import os
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    request = (
        (
            f"POST {target} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        ).encode()
        + body
        if body is not None
        else (
            f"GET {target} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            + (f"Cookie: {cookie}\r\n" if cookie else "")
            + "Connection: close\r\n\r\n"
        ).encode()
    )
    # the child cannot read this interpreter's files once it is another user: load the codec its
    # connection needs now
    import encodings.idna  # noqa: F401

    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child
        try:
            os.close(read)
            os.setgid(65534)
            os.setuid(65534)
            with socket.create_connection(
                (parts.hostname, parts.port),
                timeout=60,
                source_address=(source, 0) if source else None,
            ) as conn:
                conn.sendall(request)
                answer = b""
                while chunk := conn.recv(65536):
                    answer += chunk
            os.write(write, answer[:60000])
        except BaseException as error:
            os.write(write, f"HTTP/1.1 999 child\r\n\r\n{error!r}".encode())
        finally:
            os._exit(0)
    os.close(write)
    answer = b""
    while chunk := os.read(read, 65536):
        answer += chunk
    os.close(read)
    os.waitpid(child, 0)
    head, _, text = answer.decode("utf-8", "replace").partition("\r\n\r\n")
    return int(head.split()[1]), head, text


@contextmanager
def serving_with_tokens(store: Any, home: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """``store``'s HTTP MCP server with a token file under ``home`` that issues one token each to
    alice and bob: its ``/mcp`` URL and the tokens by agent."""
    from hindsight_cli.core import tokens
    from hindsight_cli.mcp_server import build_server
    from hindsight_cli.mcp_server.http import HttpSettings, TokenVerifier, http_app

    path = home / "tokens.json"
    issued = {name: tokens.create(path, name) for name in ("alice", "bob")}
    verifier = TokenVerifier(path)
    server = build_server(store, tokens=verifier, url="http://127.0.0.1:8765")
    with serving(http_app(server, HttpSettings(), verifier)) as url:
        yield f"{url}/mcp", issued


@asynccontextmanager
async def as_principal(url: str, token: str) -> AsyncIterator[Any]:
    """An MCP SDK client of the server at ``url`` holding ``token`` (one principal)."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    transport = streamable_http_client(
        url,
        http_client=httpx2.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(60)
        ),
    )
    async with Client(transport) as client:
        yield client
