"""`hindsight config …`: see each setting's effective value and where it came from, set one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from .. import paths
from ..errors import BadUsage, InvalidInput
from .options import JsonFlag, StoreOption

config_app = typer.Typer(
    name="config",
    no_args_is_help=True,
    rich_markup_mode=None,
    help="""See each setting's effective value and where it came from; set one (docs/storage.md).

\b
Example:
    hindsight config list --show-origin
    hindsight config set write.on_change keep_both
""",
)

UserFlag = Annotated[bool, typer.Option("--user", help="The user config file.")]


def _store(store: Path | None) -> Path:
    return paths.resolve_store(store).path


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return value if isinstance(value, str) else json.dumps(value)


@config_app.command(name="list")
def list_(
    store: StoreOption = None,
    show_origin: Annotated[
        bool, typer.Option("--show-origin", help="Say which layer set each value.")
    ] = False,
    json_: JsonFlag = False,
) -> None:
    """Every setting's effective value: default, then the user file, the store's file, the env.

    \b
    Example:
        hindsight config list --show-origin
    """
    from ..core import settings
    from ..text import visible
    from . import render

    entries = settings.effective(_store(store))
    if json_:
        render.json_doc([{"key": e.key, "value": e.value, "origin": e.origin} for e in entries])
        return
    for e in entries:
        line = f"{e.key}={_shown(e.value)}"
        # a checkout's `embedding.model` of `m\x1b[2K` erased the line it is on (review BS)
        render.plain(visible(f"{e.origin}\t{line}" if show_origin else line))


@config_app.command()
def get(
    key: Annotated[str, typer.Argument(help="The setting, e.g. embedding.model.")],
    store: StoreOption = None,
) -> None:
    """Print one setting's effective value.

    \b
    Example:
        hindsight config get search.engine
    """
    from ..core import settings
    from ..text import visible
    from . import render

    # a checkout's value, as `config list` shows it (review BS2, low)
    render.plain(visible(_shown(settings.get(_store(store), key).value)))


@config_app.command(name="set")
def set_(
    key: Annotated[str, typer.Argument(help="The setting, e.g. write.on_change.")],
    value: Annotated[str, typer.Argument(help="Its value, checked before anything is written.")],
    store: StoreOption = None,
    user: UserFlag = False,
) -> None:
    """Write a setting into the store's config.toml (or, with --user, the user config file).

    \b
    Example:
        hindsight config set write.on_change keep_both
        hindsight config set hooks.recall_budget 600 --user
    """
    from ..core import settings
    from . import render

    if user and store is not None:
        raise BadUsage("Give --user or --store, not both.")
    if user:
        target, owner = paths.user_config_path(), None
    else:
        owner = _store(store)
        if not owner.is_dir():
            raise InvalidInput(
                f"No store at {owner} yet; run `hindsight init` first, or pass --user."
            )
        target = owner / paths.CONFIG_FILE
    written = settings.set_value(target, key, value, owner)
    render.message(f"{key} = {_shown(written)} in {target}")


@config_app.command()
def path(store: StoreOption = None, user: UserFlag = False) -> None:
    """Print the config files' paths: the user file, then the store's (--user or --store: one).

    \b
    Example:
        hindsight config path --user
    """
    from . import render

    if user or store is None:
        render.plain(str(paths.user_config_path()))
    if not user:
        render.plain(str(_store(store) / paths.CONFIG_FILE))
