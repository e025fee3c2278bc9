"""Who may use the web UI, and how a browser proves it on each request.

- Start-up prints a URL with a random login token; opening it exchanges the token for a session: an
  HttpOnly, SameSite=Strict cookie (named after the port, so two servers on one machine keep
  theirs apart) that scripts cannot read and other sites' pages cannot send. A login that another
  site's page starts (``Sec-Fetch-Site``) is refused.
- Served beyond loopback (``--host``), the MCP HTTP server's rule holds: a token file is required,
  the login token is one of its bearer tokens, and the session sees only that token's agent.
- Every state change is a POST from this server's own origin (exactly: scheme, host and port)
  carrying the session's CSRF token; no GET changes a memory.
- ``hostguard`` checks Host and Origin on every request before any of this runs.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from ..core import tokens
from ..core.scope import check_agent
from ..errors import InvalidInput
from ..serving.hostguard import is_loopback

# A page that another site frames or loads cannot show or run anything of ours. The referrer goes to
# this server only: "no-referrer" would make Chromium send ``Origin: null`` with our own forms.
HEADERS = (
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        b"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)
# sessions kept at most per agent (each login makes one; that agent's oldest go first): one token
# logging in again and again must never log another agent out
MAX_SESSIONS = 64


@dataclass
class Session:
    """One browser's login: its CSRF token, the agent it sees (None: every agent, as the CLI), the
    store it looks at (an index into the served stores) and the address it logged in from.

    A cookie belongs to a host, not to a port: a page of another server on the same host name (a
    dev server on 127.0.0.1:3000, another service of memory.internal) can set this server's cookie
    in the user's browser, with its own session id (one its author logged in for), and the browser
    would then act as that session: login CSRF without the login. So a session answers only the
    address it was opened from; from elsewhere its cookie is no login."""

    csrf: str
    agent: str | None
    store: int = 0
    # the address the login came from: the session answers that address only
    client: str | None = None
    # the digest of the token it logged in with (a token file's): it ends when that token goes
    token: str | None = None


@dataclass
class Gate:
    """The login token (or the token file's entries) and the open sessions."""

    login_token: str
    # read again when it changes: a revoke ends its agent's sessions from the next request
    file: tokens.Watched | None = None
    sessions: dict[str, Session] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def login(self, token: str, client: str | None = None) -> str | None:
        """A new session id for a valid login token (from the address ``client``), or None.

        Raises:
            InvalidInput: the token's agent name cannot be a scope (``check_agent``).
        """
        held: str | None = None
        if self.file is not None:
            held = tokens.digest(token) if token else None
            agent = tokens.holder(self.file.entries, held) if held else None
            if agent is None:
                return None
            # an older token file's name that cannot be a scope (InvalidInput, said on the page)
            check_agent(agent)
        elif not (token and tokens.same_secret(token, self.login_token)):
            return None
        else:
            agent = None
        sid = secrets.token_urlsafe(32)
        with self.lock:
            own = [k for k, s in self.sessions.items() if s.agent == agent]
            for oldest in own[: max(0, len(own) - MAX_SESSIONS + 1)]:
                del self.sessions[oldest]
            self.sessions[sid] = Session(
                secrets.token_urlsafe(32), agent, client=client, token=held
            )
        return sid

    def session(self, sid: str | None, client: str | None = None) -> Session | None:
        """The session of ``sid`` sent from the address ``client``, while the token it logged in
        with is still in the file, for the same agent (a revoke, a rotation or that token's
        removal ends it)."""
        if not sid:
            return None
        with self.lock:
            found = [
                s
                for k, s in self.sessions.items()
                if tokens.same_secret(sid, k) and s.client == client
            ]
        if found and self.file is not None:
            held = found[0].token
            if held is None or tokens.holder(self.file.entries, held) != found[0].agent:
                with self.lock:
                    self.sessions = {k: s for k, s in self.sessions.items() if s is not found[0]}
                return None
        return found[0] if found else None


def csrf_ok(session: Session, given: object) -> bool:
    return tokens.same_secret(given, session.csrf)


def same_origin(origin: str | None, host: str | None) -> bool:
    """Whether a POST comes from a page of this very server: its ``Origin`` names the ``Host`` it
    was sent to, port included. The Host/Origin guard accepts a loopback name on any port, and a
    cookie is sent to every port of its host, so a page of another local server (a dev server on
    127.0.0.1:3000) is same-site; only the exact origin tells our own pages apart from it."""
    if not origin or not host:
        return False
    try:
        parts = urlsplit(origin.strip())
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.strip().lower()


def opened_by_user(fetch_site: str | None) -> bool:
    """Whether a login request is one the user made: an address typed, pasted or opened from
    another program (``Sec-Fetch-Site: none``), or a browser that does not say. A login another
    site's page starts (login CSRF: a link, a redirect or a form carrying someone else's token)
    would put this browser in that token's session, and what the user then types into its forms
    would go to that agent."""
    return fetch_site is None or fetch_site.strip().lower() in ("none", "same-origin")


def cookie_name(port: int) -> str:
    return f"hindsight_ui_{port}"


def gate_for(host: str, token_file: Path | None) -> Gate:
    """The gate of a server on ``host``: a random login token on loopback; beyond it, the bearer
    tokens of ``token_file`` (required, as ``hindsight mcp --transport http`` requires them)."""
    if token_file is None or not token_file.exists():
        if not is_loopback(host):
            raise InvalidInput(
                f"Refusing to serve {host} without tokens: anyone who reaches it could read and "
                "forget every memory. Make one per person with `hindsight mcp token NAME` and "
                "log in with it, or serve 127.0.0.1 (the default) and reach it through an SSH "
                "tunnel."
            )
        return Gate(secrets.token_urlsafe(24))
    watched = tokens.Watched(token_file)
    if not watched.entries:
        raise InvalidInput(
            f"{token_file} holds no tokens; make one with `hindsight mcp token NAME`."
        )
    return Gate("", watched)
