"""`hindsight mcp`: serve the store over MCP (stdio for desktop clients, streamable HTTP for
containers)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from .. import paths
from ..errors import InvalidInput
from .options import AllowedHostOption, ClientScope, McpClient, StoreOption, Transport

if TYPE_CHECKING:
    from ..clients import Target

mcp_app = typer.Typer(
    name="mcp",
    no_args_is_help=False,
    invoke_without_command=True,
    rich_markup_mode=None,
)


@mcp_app.callback(invoke_without_command=True)
def mcp(
    ctx: typer.Context,
    store: StoreOption = None,
    agent: Annotated[
        Optional[str],
        typer.Option(
            "--agent",
            help="Scope the server to this agent_id (stdio: default $HINDSIGHT_AGENT); tools "
            "cannot widen it. Over HTTP with tokens each request acts as its token's agent.",
            show_default=False,
        ),
    ] = None,
    transport: Annotated[
        Transport, typer.Option("--transport", help="stdio, or http (streamable HTTP at /mcp).")
    ] = "stdio",
    host: Annotated[
        str, typer.Option("--host", help="Address for --transport http.")
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port for --transport http.")
    ] = 8765,
    log_file: Annotated[
        Optional[Path],
        typer.Option("--log-file", help="Write logs here instead of stderr.", show_default=False),
    ] = None,
    tokens: Annotated[
        Optional[Path],
        typer.Option(
            "--tokens",
            help="For --transport http: require a bearer token from this file (made by "
            "`hindsight mcp token`) and scope each request to its agent. Default: the "
            "store's mcp-tokens.json when it exists.",
            show_default=False,
        ),
    ] = None,
    allowed_host: AllowedHostOption = None,
    allow_unauthenticated: Annotated[
        bool,
        typer.Option(
            "--allow-unauthenticated",
            help="For --transport http: serve a non-loopback --host without tokens (whoever "
            "reaches the port reads and writes every memory).",
        ),
    ] = False,
    tools: Annotated[
        Optional[str],
        typer.Option(
            "--tools",
            help="Offer only these tools (comma-separated: write, search, summarize, "
            "consolidate, get, forget); the others are neither listed nor callable.",
            show_default=False,
        ),
    ] = None,
    schema: Annotated[
        str,
        typer.Option(
            "--schema",
            help="full, or compact: one-sentence descriptions and each tool's common "
            "arguments only (the others are still accepted), for fewer tokens per turn.",
        ),
    ] = "full",
) -> None:
    """Run the MCP server (stdio by default). Nothing but protocol is written to stdout.

    Over HTTP, once the store has tokens (`hindsight mcp token AGENT`), every request needs one and
    sees only its agent's memories. A --host other than loopback needs tokens (or
    --allow-unauthenticated), and every request must name the server by one of its own host names.

    \b
    Example:
        hindsight mcp --store ~/project/.hindsight
        hindsight mcp token ci-bot            # a token per agent, then:
        hindsight mcp --transport http --host 0.0.0.0 --port 8765
        hindsight mcp --tools search,write,get --schema compact
    """
    if ctx.invoked_subcommand is not None:
        return
    from ..mcp_server.profiles import check_schema, tool_names

    # refused before the store opens (exit 2)
    offered = tool_names(tools)
    check_schema(schema)
    for given, name in (
        (tokens, "--tokens"),
        (allowed_host, "--allowed-host"),
        (allow_unauthenticated, "--allow-unauthenticated"),
    ):
        if given and transport != "http":
            raise InvalidInput(
                f"{name} is for --transport http; a stdio server serves only the client that "
                f"started it."
            )
    from .. import mcp_server
    from ..core import tokens as token_file
    from ..mcp_server.http import settings_from
    from ..paths import TOKENS_FILE as DEFAULT_FILE
    from ..store import open_store

    target = open_store(store, warm=True)
    from ..safefs import trust

    # a store that came with a repository is not served until the user allows it (issue 31)
    trust.check(target.path, create=True)
    if tokens is None and transport == "http" and (target.path / DEFAULT_FILE).exists():
        # never one the repository holding the store ships
        tokens = token_file.of_store(target.path)
    if tokens is not None and not tokens.exists():
        raise InvalidInput(
            f"No token file {tokens}; make tokens with `hindsight mcp token AGENT --tokens "
            f"{tokens}`."
        )
    if tokens is not None:
        import shlex

        from . import render

        # a file that lets no token in is refused before anything starts, in one line
        for one, other in token_file.alike(token_file.load(tokens)):
            render.warning(
                f"The token agents {one!r} and {other!r} of {tokens} have names that read alike: "
                "their memories carry labels you cannot tell apart. Revoke one "
                f"(`hindsight mcp token {shlex.quote(other)} --revoke --tokens "
                f"{shlex.quote(str(tokens))}`) and give it "
                "another name."
            )
    http = settings_from(
        target.config,
        host=host,
        port=port,
        allowed_hosts=allowed_host or (),
        allow_unauthenticated=allow_unauthenticated,
    )
    from ..hooks import warm

    # the hooks' repeat recall, answered warm from here while the server runs
    with warm.listening(target):
        mcp_server.run(
            target,
            # an environment default is never an identity on a server others reach
            agent=agent
            or (os.environ.get(paths.ENV_AGENT) if transport == "stdio" else None)
            or None,
            transport=str(transport),
            log_file=log_file,
            tokens=tokens,
            http=http,
            tools=offered,
            schema=schema,
        )


@mcp_app.command()
def token(
    agent: Annotated[
        str, typer.Argument(help="The agent_id the token acts as.", show_default=False)
    ],
    revoke: Annotated[
        bool, typer.Option("--revoke", help="Remove every token of this agent instead.")
    ] = False,
    tokens: Annotated[
        Optional[Path],
        typer.Option(
            "--tokens",
            help="The token file (default: mcp-tokens.json in the store).",
            show_default=False,
        ),
    ] = None,
    store: StoreOption = None,
) -> None:
    """Make a bearer token for one agent of an HTTP MCP server (printed once).

    The file keeps only the token's SHA-256. A server started with --transport http then requires a
    token on every request, and each request reads and writes only its token's agent's memories.

    \b
    Example:
        hindsight mcp token ci-bot          # prints hst_...; give it to that agent's client
        hindsight mcp token ci-bot --revoke
    """
    from .. import safefs
    from ..core import tokens as token_file
    from . import render

    if tokens is None:
        # a token file in another user's store: no
        safefs.check_store(paths.resolve_store(store).path)
        from ..safefs import trust

        # the store the token file makes is this user's (issue 31); one that came with a
        # repository takes no token of the user's until they allow it (review W)
        trust.check(paths.resolve_store(store).path, create=True)
    path = tokens or token_file.of_store(paths.resolve_store(store).path)
    if revoke:
        count = token_file.revoke(path, agent)
        render.message(
            f"Revoked {count} token(s) of {agent} in {path}."
            if count
            else f"{agent} has no token in {path}."
        )
        return
    from ..config import load as load_config
    from ..core.scope import agent_name
    from ..errors import HindsightError

    try:
        own = agent_name(load_config(paths.resolve_store(store).path).default_agent)
    except HindsightError:
        # a config that does not load says so in the command that reads it; the token is made
        own = None
    dropped = token_file.foreign(path)
    render.plain(token_file.create(path, agent))
    if dropped is not None:
        render.warning(
            f"{path} was not the one `hindsight mcp token` wrote (an archive or a copy may have "
            "replaced it): its tokens were dropped, and the file now holds this token alone. If "
            "you wrote it yourself, make your other tokens again."
        )
    render.message(
        f"A token for agent {agent}, kept as a hash in {path}; it is shown only now. Clients "
        f"send it as "
        "the header Authorization: Bearer TOKEN."
    )
    if own is not None and agent_name(agent) == own:
        # a token's agent is a scope it holds whole: the owner's own memories go under this one
        render.warning(
            f"{own} is the agent memories written here go under when none is named (default_agent,"
            f" {paths.ENV_AGENT}, the hooks): this token reads and can forget them all, yours "
            "included. Make each token for the agent it is for; revoke this one with hindsight "
            f"mcp token {agent} --revoke."
        )


@mcp_app.command()
def health(
    port: Annotated[
        int, typer.Option("--port", min=1, max=65535, help="The server's port.")
    ] = 8765,
    host: Annotated[str, typer.Option("--host", help="The address to ask.")] = "127.0.0.1",
    timeout: Annotated[
        float, typer.Option("--timeout", min=0.1, help="Seconds to wait for the answer.")
    ] = 3.0,
) -> None:
    """Check that an HTTP MCP server answers (exit 0), else exit 1: a container's health check.

    Any HTTP answer below 500 counts, such as the 401 a request without a token gets.

    \b
    Example:
        hindsight mcp health                  # the server on 127.0.0.1:8765
        hindsight mcp health --port 9000
    """
    from ..mcp_server.health import probe
    from . import render

    render.message(probe(host, port, timeout))


ClientOption = Annotated[
    McpClient,
    typer.Option("--client", help="The MCP client whose config to change.", show_default=False),
]
ScopeOption = Annotated[
    Optional[ClientScope],
    typer.Option(
        "--scope",
        help="Every project (user, the default), or this one (project): chosen by you, never by "
        "what the repository holds.",
        show_default=False,
    ),
]


def _target_and_entry(
    client: str, scope: Optional[str], store: Optional[Path]
) -> tuple[Target, dict[str, Any], paths.StoreLocation]:
    from .. import clients

    location = paths.resolve_store(store)
    project = location.path.parent if location.path.name == paths.STORE_DIRNAME else Path.cwd()
    options = clients.targets(client, Path.home(), project)
    # a repository holding .hindsight/ does not choose project scope by itself
    scope = scope or "user"
    if scope not in options:
        raise InvalidInput(
            f"{client} has no {scope} configuration; use --scope {' or '.join(options)}."
        )
    target = options[scope]
    return target, clients.entry(target, location.path), location


@mcp_app.command()
def install(
    client: ClientOption,
    scope: ScopeOption = None,
    store: StoreOption = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the new file; write nothing.")
    ] = False,
    json_: Annotated[bool, typer.Option("--json", help="Output JSON.")] = False,
) -> None:
    """Add hindsight to an MCP client's config (merged, backed up, idempotent).

    The entry runs this installation's hindsight by absolute path with --store pinned, so it works
    whatever the client's PATH and working directory. Every other server and setting is kept.

    \b
    Example:
        hindsight mcp install --client claude-desktop
        hindsight mcp install --client cursor --scope project --dry-run
    """
    from .. import clients
    from ..store import Store
    from ..text import visible
    from . import render

    target, server, location = _target_and_entry(client, scope, store)
    change = clients.plan(target, server)
    if dry_run:
        # a checkout's file, as it is where nothing changes: its comments' escapes shown (review BS)
        render.plain(visible(change.after.rstrip("\n")))
        render.message(
            f"Dry run: {target.path} would be "
            f"{'left as it is' if not change.changed else 'written'}; "
            "nothing was written."
        )
        return
    Store(location.path).init()
    backup = clients.apply(change)
    if json_:
        render.json_doc(
            {
                "client": client,
                "scope": target.scope,
                "path": str(target.path),
                "changed": change.changed,
                "backup": str(backup) if backup else None,
                "store": str(location.path),
            }
        )
        return
    render.plain(str(target.path))
    if not change.changed:
        render.message(f"{client} already runs hindsight from {target.path}; nothing changed.")
        return
    render.message(
        f"Added hindsight (store {location.path}) to {target.path}"
        + (f"; the old file is at {backup}" if backup else "")
        + ". Restart the client to load it."
    )
    if change.dropped_comments:
        render.warning(f"comments in {target.path} were not kept; the backup has them.")


@mcp_app.command()
def config(
    client: ClientOption,
    scope: ScopeOption = None,
    store: StoreOption = None,
) -> None:
    """Print the config snippet for a client; change nothing.

    \b
    Example:
        hindsight mcp config --client codex
    """
    from .. import clients
    from . import render

    target, server, _ = _target_and_entry(client, scope, store)
    render.plain(clients.snippet(target, server).rstrip("\n"))
    render.message(f"Paste this into {target.path}.")
