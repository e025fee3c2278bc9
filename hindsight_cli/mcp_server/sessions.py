"""Open HTTP sessions per agent, so one agent cannot take the server's session table from the
others.

The SDK's session manager closes a session after an idle period and caps the sessions of the whole
server (10,000 by default), so one token that opens sessions without end fills that table and every
other agent gets 503 "Too many open sessions". ``SessionQuota`` sits in front of the manager and,
when a request would open a session for an agent that already holds ``per_agent`` of them, closes
that agent's least recently used idle session (through the manager's own idle-expiry path: its
client gets 404 on its next request and opens a new one, as the protocol has it); when every one of
them is busy, that agent alone is refused with 429.

A session's idle countdown is the SDK transport's ``idle_scope``: its deadline is the last activity
plus the idle timeout while no request is in flight, infinite while one is (an open GET stream
included). The manager's tables are private to the SDK; ``tests/test_mcp_sessions.py`` floods a real
server, so an SDK that changes them fails there.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp.server.auth.middleware.bearer_auth import AuthorizationContext
    from mcp.server.streamable_http import StreamableHTTPServerTransport
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from starlette.types import ASGIApp, Receive, Scope, Send

log = logging.getLogger("hindsight.mcp")
SESSION_HEADER = b"mcp-session-id"
VERSION_HEADER = b"mcp-protocol-version"


def _idle_since(transport: StreamableHTTPServerTransport) -> float | None:
    """The deadline of an idle session's countdown (earlier = idle for longer), None if it is busy
    or already closing."""
    scope = getattr(transport, "idle_scope", None)
    if scope is None or scope.cancel_called or math.isinf(scope.deadline):
        return None
    return float(scope.deadline)


def _opens_session(headers: dict[bytes, bytes]) -> bool:
    """A request without a session id on a protocol generation that has sessions (the 2026-07-28
    one has none: the SDK serves it statelessly), as the session manager itself routes it."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    version = headers.get(VERSION_HEADER)
    return SESSION_HEADER not in headers and (
        version is None or version.decode("latin-1") in HANDSHAKE_PROTOCOL_VERSIONS
    )


def _owner(context: AuthorizationContext | None) -> str | None:
    """The agent a session was opened by (None on a server without tokens)."""
    return context.get("client_id") if context else None


def _closing(transport: StreamableHTTPServerTransport) -> bool:
    scope = getattr(transport, "idle_scope", None)
    return bool(transport.is_terminated or (scope is not None and scope.cancel_called))


class SessionQuota:
    """ASGI middleware: at most ``per_agent`` open sessions per agent (``agent_of`` reads the agent
    from a request's headers; None for a server without tokens, whose clients share one quota)."""

    def __init__(
        self,
        app: ASGIApp,
        manager: StreamableHTTPSessionManager,
        per_agent: int,
        agent_of: Callable[[dict[bytes, bytes]], str | None],
    ) -> None:
        import anyio

        self.app = app
        self.manager = manager
        self.per_agent = per_agent
        self.agent_of = agent_of
        self._lock = anyio.Lock()

    def sessions(self, agent: str | None) -> list[StreamableHTTPServerTransport]:
        """The agent's open sessions' transports (the manager's table, read without awaiting)."""
        owners = self.manager._session_owners
        return [
            transport
            for sid, transport in list(self.manager._server_instances.items())
            if _owner(owners.get(sid)) == agent and not _closing(transport)
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") == "POST":
            headers = dict(scope.get("headers") or [])
            if _opens_session(headers) and not await self._make_room(self.agent_of(headers)):
                await _too_many(send, self.per_agent)
                return
        await self.app(scope, receive, send)

    async def _make_room(self, agent: str | None) -> bool:
        """Close the agent's least recently used idle sessions until a new one fits; False if every
        one of its sessions is busy."""
        async with self._lock:
            open_now = self.sessions(agent)
            while len(open_now) >= self.per_agent:
                idle = [(since, t) for t in open_now if (since := _idle_since(t)) is not None]
                if not idle:
                    log.warning(
                        "refused a new session for %s: its %d sessions are all busy",
                        agent or "the server's clients",
                        len(open_now),
                    )
                    return False
                oldest = min(idle, key=lambda pair: pair[0])[1]
                # the manager's own path: the session ends and is discarded
                if oldest.idle_scope is not None:
                    oldest.idle_scope.cancel()
                open_now.remove(oldest)
                log.info(
                    "closed the least recently used idle session of %s (%d per agent)",
                    agent or "the server's clients",
                    self.per_agent,
                )
        return True


async def _too_many(send: Send, limit: int) -> None:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32000,
                "message": f"This agent already has {limit} open sessions, all busy; close one "
                "(DELETE /mcp) or retry later.",
            },
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"retry-after", b"5"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
