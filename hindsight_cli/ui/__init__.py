"""``hindsight ui``: a local web app to see, search and curate a store (docs/ui.md).

A face beside the CLI and the MCP server: every page reads through ``Store`` and every action is the
core call the CLI makes, with the UI named in the audit log. No script runs inline and nothing is
fetched from elsewhere: the page's one script and style sheet are package data.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core import tokens
from ..errors import BadUsage
from ..serving.hostguard import HostGuard, host_policy, is_loopback, split_host
from ..store import Store
from .app import Ui, build
from .security import cookie_name, gate_for

if TYPE_CHECKING:
    import uvicorn
    from starlette.types import ASGIApp

log = logging.getLogger("hindsight.ui")


@dataclass
class Served:
    """A UI ready to serve: the app, the listening socket and the address that logs a browser in."""

    app: ASGIApp
    sock: socket.socket
    url: str
    ui: Ui


def prepare(
    stores: Sequence[Store],
    *,
    host: str = "127.0.0.1",
    port: int = 8766,
    token_file: Path | None = None,
    allowed_hosts: Sequence[str] = (),
) -> Served:
    """Bind the socket (port 0: any free one) and build the app. Connections made from now on wait
    in the socket's queue until ``run`` answers them.

    Raises:
        InvalidInput: a non-loopback host without tokens, a bad allowed host.
        BadUsage: several stores beyond loopback without ``token_file``.
        OSError: the port is taken.
    """
    if token_file is None and not is_loopback(host):
        if len(stores) > 1:
            # a store's token file is that store's: its tokens must not open the other stores
            raise BadUsage(
                f"Serving {len(stores)} stores beyond loopback needs --tokens FILE: without it "
                f"the tokens of {stores[0].path / 'mcp-tokens.json'} would open every store "
                "served, not only their own. Give the token file whose agents may see all of "
                "them, or serve one store per `hindsight ui`."
            )
        token_file = tokens.of_store(stores[0].path)
    gate = gate_for(host, token_file)
    policy = host_policy(host, [*stores[0].config.mcp_allowed_hosts, *allowed_hosts])
    name, _ = split_host(host)
    family = socket.AF_INET6 if ":" in name else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((name, port))
    sock.listen(128)
    bound = sock.getsockname()[1]
    ui = Ui(list(stores), gate, cookie_name(bound))
    shown = "127.0.0.1" if name in ("0.0.0.0", "") else f"[{name}]" if ":" in name else name
    token = gate.login_token or "YOUR-TOKEN"
    url = f"http://{shown}:{bound}/login?token={token}"
    # without a token file the login token is the only key, and it travels on command lines
    # (the browser this opens is given the URL): the server answers its own user's connections only
    guard = HostGuard(build(ui), policy, log, same_user=gate.file is None)
    return Served(guard, sock, url, ui)


def server(served: Served) -> uvicorn.Server:
    """The uvicorn server for ``served`` (``.run(sockets=[served.sock])``; ``.should_exit`` stops
    it)."""
    import uvicorn

    config = uvicorn.Config(
        served.app, log_config=None, log_level="warning", timeout_graceful_shutdown=1
    )
    return uvicorn.Server(config)


__all__ = ["Served", "prepare", "server"]
