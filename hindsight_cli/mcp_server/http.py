"""The streamable HTTP server: who may start one (no unauthenticated network server), what it
answers (``guard``: Host and Origin; bearer tokens; ``sessions``: open sessions per agent) and how
it runs."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BadUsage, InvalidInput
from ..serving.hostguard import HostGuard, host_policy, is_loopback

if TYPE_CHECKING:
    from mcp.server.auth.provider import AccessToken
    from mcp.server.mcpserver import MCPServer
    from starlette.types import ASGIApp

    from ..config import Config
    from ..core.tokens import Entry
    from .stopping import Stopper

log = logging.getLogger("hindsight.mcp")


class TokenVerifier:
    """The SDK's ``TokenVerifier`` over a token file: a known token is an access token whose client
    is its agent."""

    def __init__(self, path: Path) -> None:
        from ..core import tokens

        # read again when it changes: a revoke counts from the next request
        self.file = tokens.Watched(path)
        if not self.entries:
            raise InvalidInput(
                f"{path} holds no tokens; make one with `hindsight mcp token AGENT`."
            )

    @property
    def entries(self) -> list[Entry]:
        return self.file.entries

    @property
    def agents(self) -> list[str]:
        return sorted({e["agent"] for e in self.entries})

    def check_fixed_agent(self, agent: str | None, path: Path | None) -> None:
        """Refuse a server-wide ``--agent`` beside tokens unless every token is that agent's: a
        request's scope comes from its token, and nothing else may stand in for it."""
        from ..core.scope import agent_name

        if agent is None or self.agents == [agent_name(agent)]:
            return
        raise BadUsage(
            f"--agent {agent!r} disagrees with the token file {path} (agents "
            f"{', '.join(self.agents)}): with tokens each request acts as its token's agent; "
            "leave --agent out."
        )

    def agent_for(self, authorization: str) -> str | None:
        """The agent of an ``Authorization: Bearer …`` header's token, or None."""
        from ..core.tokens import agent_of

        scheme, _, token = authorization.strip().partition(" ")
        return (
            agent_of(self.entries, token.strip())
            if scheme.lower() == "bearer" and token.strip()
            else None
        )

    async def verify_token(self, token: str) -> AccessToken | None:
        from mcp.server.auth.provider import AccessToken

        agent = self.agent_for(f"Bearer {token}")
        return AccessToken(token=token, client_id=agent, scopes=[]) if agent is not None else None


@dataclass(frozen=True)
class HttpSettings:
    """Where the server listens and what it lets in (``[mcp]`` in config.toml, then the options)."""

    host: str = "127.0.0.1"
    port: int = 8765
    allowed_hosts: tuple[str, ...] = ()
    allow_unauthenticated: bool = False
    sessions_per_agent: int = 16
    # seconds
    session_idle: float = 15 * 60.0


def check_exposure(settings: HttpSettings, verifier: TokenVerifier | None, store: Path) -> bool:
    """Refuse a server that anyone on the network could use: a non-loopback address without tokens,
    unless the user said so. Whether it is one (``warn_exposed`` then says so on every start)."""
    if verifier is not None or is_loopback(settings.host):
        return False
    if not settings.allow_unauthenticated:
        raise InvalidInput(
            f"Refusing to serve {settings.host} without tokens: anyone who reaches it could read "
            "and forget every memory. Make one per agent with `hindsight mcp token AGENT` (it "
            f"writes {store / 'mcp-tokens.json'}), or on a network you trust pass "
            "--allow-unauthenticated."
        )
    return True


def warn_exposed(settings: HttpSettings) -> None:
    log.warning(
        "serving %s:%d WITHOUT tokens (--allow-unauthenticated): whoever reaches the port reads, "
        "writes "
        "and forgets every memory; make tokens with `hindsight mcp token AGENT`",
        settings.host,
        settings.port,
    )


def http_app(server: MCPServer, settings: HttpSettings, verifier: TokenVerifier | None) -> ASGIApp:
    """The ASGI app: Host/Origin checks around the per-agent session quota around the SDK's app
    (bearer tokens and the session manager, which closes a session idle for ``session_idle``)."""
    from mcp.server.transport_security import TransportSecuritySettings

    from .sessions import SessionQuota

    policy = host_policy(settings.host, settings.allowed_hosts)
    # The SDK checks Host only on a loopback bind, against loopback names; HostGuard checks it on
    # every bind, against the server's own names and the user's, so the SDK's check is off.
    app = server.streamable_http_app(
        streamable_http_path="/mcp",
        host=settings.host,
        session_idle_timeout=settings.session_idle,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )

    def agent_of(headers: dict[bytes, bytes]) -> str | None:
        value = headers.get(b"authorization")
        return (
            verifier.agent_for(value.decode("latin-1")) if verifier is not None and value else None
        )

    quota = SessionQuota(app, server.session_manager, settings.sessions_per_agent, agent_of)
    log.info("answering to the host names %s", ", ".join(policy.names()))
    # without tokens, the server is its user's alone: never another local account's
    return HostGuard(quota, policy, same_user=verifier is None)


def serve(app: ASGIApp, settings: HttpSettings, stopper: Stopper) -> None:
    """Run uvicorn until a stop signal (``stopping``)."""
    import anyio
    import uvicorn

    from .stopping import uvicorn_server

    # log_config=None: uvicorn's access log joins ours (stderr or --log-file) instead of printing to
    # stdout.
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_config=None,
        log_level="info",
        timeout_graceful_shutdown=1,
    )
    anyio.run(uvicorn_server(config, stopper).serve)


def settings_from(
    config: Config,
    *,
    host: str,
    port: int,
    allowed_hosts: Iterable[str] = (),
    allow_unauthenticated: bool = False,
) -> HttpSettings:
    """The store's ``[mcp]`` settings with the command line's on top (allowed hosts add up)."""
    from ..timeutil import parse_duration

    return HttpSettings(
        host,
        port,
        (*config.mcp_allowed_hosts, *allowed_hosts),
        allow_unauthenticated,
        config.mcp_sessions_per_agent,
        parse_duration(config.mcp_session_idle, "[mcp] session_idle").total_seconds(),
    )
