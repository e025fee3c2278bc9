"""`hindsight ui`: the local web app (registered by ``cli/__init__``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .options import AllowedHostOption


def ui(
    store: Annotated[
        Optional[list[Path]],
        typer.Option(
            "--store",
            help="A store to show (repeatable: the page switches between them). Default: the "
            "one `hindsight where` names.",
            show_default=False,
        ),
    ] = None,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Address to listen on. Beyond loopback it needs the store's MCP tokens "
            "(`hindsight mcp token NAME`): each person logs in with theirs and sees that agent's "
            "memories.",
        ),
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port (0: any free one).")
    ] = 8766,
    no_open: Annotated[
        bool, typer.Option("--no-open", help="Print the address; do not open a browser.")
    ] = False,
    tokens: Annotated[
        Optional[Path],
        typer.Option(
            "--tokens",
            help="Log in with a token of this file (made by `hindsight mcp token`) instead of the "
            "printed one; its tokens see every store served. Default beyond loopback: the "
            "store's mcp-tokens.json (one store only).",
            show_default=False,
        ),
    ] = None,
    allowed_host: AllowedHostOption = None,
) -> None:
    """Serve a local web page to browse, search and curate the memory (Ctrl-C stops it).

    It prints an address with a login token (new at each start); opening it logs the browser
    in. Every change is a form you confirm, written to the audit log as done by `ui`. The model
    loads on the first search.

    \b
    Example:
        hindsight ui
        hindsight ui --no-open --port 9000
        hindsight ui --store ~/a/.hindsight --store ~/b/.hindsight
    """
    import webbrowser

    from ..errors import StoreNotFound
    from ..store import open_store
    from ..ui import prepare, server
    from . import render

    chosen: list[Path | None] = list(store) if store else [None]
    opened = [open_store(path) for path in chosen]
    for target in opened:
        if not target.exists:
            raise StoreNotFound(f"No hindsight store at {target.path}; run `hindsight init`.")
    served = prepare(
        opened, host=host, port=port, token_file=tokens, allowed_hosts=allowed_host or ()
    )
    render.plain(served.url)
    sys.stdout.flush()
    render.message("Serving hindsight ui; Ctrl-C stops it.")
    if not no_open:
        from ..safefs import AbsolutePath

        # never a browser a `.` entry of PATH finds in the working directory (a checkout)
        with AbsolutePath():
            webbrowser.open(served.url)
    from contextlib import ExitStack

    from ..hooks import warm

    with ExitStack() as listening:
        for target in opened:
            # the hooks' repeat recall of each store, answered warm from here
            listening.enter_context(warm.listening(target))
        server(served).run(sockets=[served.sock])
