"""`hindsight mcp`: serve the store over MCP (stdio for desktop clients, streamable HTTP for containers)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Optional

import typer

from .. import paths
from ..errors import InvalidInput
from .options import StoreOption

mcp_app = typer.Typer(
    name="mcp", no_args_is_help=False, invoke_without_command=True,
    rich_markup_mode=None,
)


@mcp_app.callback(invoke_without_command=True)
def mcp(
    ctx: typer.Context,
    store: StoreOption = None,
    agent: Annotated[Optional[str], typer.Option("--agent", help="Scope the server to this agent_id (default $HINDSIGHT_AGENT); tools cannot widen it.", show_default=False)] = None,
    transport: Annotated[str, typer.Option("--transport", help="stdio | http (streamable HTTP at /mcp).")] = "stdio",
    host: Annotated[str, typer.Option("--host", help="Address for --transport http.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port for --transport http.")] = 8765,
    log_file: Annotated[Optional[Path], typer.Option("--log-file", help="Write logs here instead of stderr.", show_default=False)] = None,
) -> None:
    """Run the MCP server (stdio by default). Nothing but protocol is written to stdout.

    \b
    Example:
        hindsight mcp --store ~/project/.hindsight
        hindsight mcp --transport http --host 0.0.0.0 --port 8765
    """
    if ctx.invoked_subcommand is not None:
        return
    if transport not in ("stdio", "http"):
        raise InvalidInput(f"--transport must be stdio or http, not {transport!r}.")
    from .. import mcp_server
    from ..store import open_store

    target = open_store(store, warm=True)
    mcp_server.run(target, agent=agent or os.environ.get(paths.ENV_AGENT) or None, transport=transport,
                   host=host, port=port, log_file=log_file)
