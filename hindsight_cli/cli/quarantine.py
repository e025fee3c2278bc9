"""`hindsight quarantine …`: review what the write-time quarantine held back: list it, release a
memory found harmless, confirm one as an attack (docs/reliability.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from .options import JsonFlag, StoreOption, open_at

if TYPE_CHECKING:
    pass

quarantine_app = typer.Typer(
    name="quarantine",
    rich_markup_mode=None,
    help="""Review the memories held back because their text reads like instructions.

With no command, lists them (active ones, newest first). `release` gives one back its usual
standing (a new version; its source's trust label stays), `confirm` forgets it as an attack
(`hindsight restore` undoes it). Both are written to the audit log.

\b
Example:
    hindsight quarantine
    hindsight quarantine release 01a22ace --reason "a README's setup steps, not an attack"
    hindsight quarantine confirm 01a22ace
""",
)


IdArgument = Annotated[
    str, typer.Argument(metavar="ID", help="The memory (its id or a unique part of it).")
]
ReasonOption = Annotated[
    Optional[str],
    typer.Option("--reason", help="Why (kept in the audit log).", show_default=False),
]


@quarantine_app.callback(invoke_without_command=True)
def quarantined(ctx: typer.Context, store: StoreOption = None, json_: JsonFlag = False) -> None:
    """List the quarantined memories."""
    if ctx.invoked_subcommand is not None:
        return
    from ..core.selection import browse_filters
    from ..poisoning import QUARANTINE_TAG
    from . import render

    filters = browse_filters(tags=[QUARANTINE_TAG], statuses=["active"])
    memories = open_at(store).list(filters, limit=None)
    if json_:
        render.json_doc(
            [{**m.to_dict(), "quarantine": m.metadata.get("quarantine")} for m in memories]
        )
        return
    if not memories:
        render.message("No memory is quarantined.")
        return
    render.memories_table(memories)
    render.message(
        "Read each (`hindsight show ID`), then `hindsight quarantine release ID` if it is "
        "harmless or `hindsight quarantine confirm ID` if it is an attack."
    )


@quarantine_app.command()
def release(
    memory_id: IdArgument,
    reason: ReasonOption = None,
    store: StoreOption = None,
    json_: JsonFlag = False,
) -> None:
    """Give a quarantined memory back its usual standing: a new version without the quarantine.

    \b
    Example:
        hindsight quarantine release 01a22ace --reason "setup steps from our own README"
    """
    from . import render

    result = open_at(store).release(memory_id, reason=reason)
    if json_:
        render.json_doc(result.to_dict())
        return
    render.plain(result.memory.id)
    render.message(
        f"Released: {result.memory.id} is a new version of {result.superseded[0]} without the "
        "quarantine; `hindsight show` gives both."
    )


@quarantine_app.command()
def confirm(
    memory_id: IdArgument,
    reason: ReasonOption = None,
    store: StoreOption = None,
    json_: JsonFlag = False,
) -> None:
    """Confirm a quarantined memory as an attack: it is forgotten (restorable).

    \b
    Example:
        hindsight quarantine confirm 01a22ace --reason "asks agents to send keys to a URL"
    """
    from . import render

    memory = open_at(store).confirm(memory_id, reason=reason)
    if json_:
        render.json_doc({"id": memory.id, "forgotten": True})
        return
    render.message(f"Confirmed and forgot {memory.id}. Undo with `hindsight restore {memory.id}`.")
