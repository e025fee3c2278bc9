"""`hindsight plugin`: write hindsight as a plugin for clients that install plugins, and the MCP
registry's server.json."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .options import StoreOption

plugin_app = typer.Typer(
    name="plugin",
    help="Write hindsight as a Claude Code or Codex plugin, or the MCP registry's server.json.\n\n"
    "\b\nExample:\n    hindsight plugin claude-code ~/hindsight-plugin\n"
    "    hindsight plugin codex ~/hindsight-codex\n"
    "    hindsight plugin server-json --name io.github.OWNER/hindsight",
    no_args_is_help=True,
    rich_markup_mode=None,
)
DirArgument = Annotated[
    Path, typer.Argument(help="The directory to write the plugin into.", show_default=False)
]


def _written(directory: Path, files: dict[str, str], then: str) -> None:
    from .. import bundle
    from . import render

    paths = bundle.write(directory, files)
    for path in paths:
        render.plain(str(path))
    render.message(f"Wrote {len(paths)} files. {then}")


@plugin_app.command(name="claude-code")
def claude_code(directory: DirArgument, store: StoreOption = None) -> None:
    """Write a Claude Code plugin (MCP server, hooks, a skill) that is its own marketplace.

    The MCP server and the hooks run this installation's hindsight, as `hindsight mcp install` and
    `hindsight hooks install` write them; without --store each project's store is found from the
    session's directory.

    \b
    Example:
        hindsight plugin claude-code ~/hindsight-plugin
        # then, in Claude Code:
        #   /plugin marketplace add ~/hindsight-plugin
        #   /plugin install hindsight@hindsight
    """
    from .. import bundle

    _written(
        directory,
        bundle.claude_code(store),
        f"In Claude Code: /plugin marketplace add {directory}, then /plugin install "
        "hindsight@hindsight.",
    )


@plugin_app.command()
def codex(directory: DirArgument, store: StoreOption = None) -> None:
    """Write a Codex plugin (MCP server, hooks, a skill) in a marketplace of its own.

    \b
    Example:
        hindsight plugin codex ~/hindsight-codex
        codex plugin marketplace add ~/hindsight-codex   # then install hindsight from /plugins
    """
    from .. import bundle

    _written(
        directory,
        bundle.codex(store),
        f"Run `codex plugin marketplace add {directory}`, then install hindsight from /plugins "
        "(its hooks need `[features] hooks = true` in Codex's config.toml on older versions).",
    )


@plugin_app.command(name="server-json")
def server_json(
    name: Annotated[
        str,
        typer.Option(
            "--name",
            help="The registry name, NAMESPACE/NAME in reverse-DNS form "
            "(io.github.OWNER/hindsight).",
            show_default=False,
        ),
    ],
    repository: Annotated[
        Optional[str],
        typer.Option("--repository", help="The source repository's https URL.", show_default=False),
    ] = None,
    output: Annotated[
        Optional[Path],
        typer.Option("--output", "-o", help="Write it here instead of stdout.", show_default=False),
    ] = None,
) -> None:
    """Print the MCP registry's server.json for hindsight (the PyPI package over stdio).

    \b
    Example:
        hindsight plugin server-json --name io.github.OWNER/hindsight \\
            --repository https://github.com/OWNER/hindsight -o server.json
    """
    from .. import bundle
    from ..safefs.outside import write_outside
    from . import render

    text = bundle.to_json(bundle.server_json(name, repository))
    if output is None:
        sys.stdout.write(text)
        return
    write_outside(output, text)
    render.message(f"Wrote {output}.")
