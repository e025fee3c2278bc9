"""`hindsight supersede OLD --by NEW`: mark a stored memory as replaced by another stored one
(registered by ``cli/__init__``)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .options import JsonFlag, StoreOption


def supersede(
    old_id: Annotated[
        str,
        typer.Argument(
            metavar="OLD",
            help="The memory that is out of date (its id or a unique part of it).",
            show_default=False,
        ),
    ],
    by: Annotated[
        str,
        typer.Option(
            "--by",
            metavar="NEW",
            help="The memory that replaces it (its id or a unique part of it; same agent).",
            show_default=False,
        ),
    ],
    reason: Annotated[
        Optional[str],
        typer.Option("--reason", help="Why (kept in the audit log).", show_default=False),
    ] = None,
    store: StoreOption = None,
    json_: JsonFlag = False,
) -> None:
    """Mark a memory as superseded by another one already stored.

    The older memory leaves search and stays as history; the two link both ways and the audit
    log says who and why. Summaries quoting the older one leave search with it. To undo, forget
    the newer one, then `hindsight restore OLD`.

    \b
    Example:
        hindsight supersede 4735 --by 9c1e --reason "we deploy with Argo now"
    """
    from ..store import open_store
    from . import render

    memory = open_store(store).supersede(old_id, by, reason=reason)
    if json_:
        render.json_doc(memory.to_dict())
        return
    render.message(
        f"{memory.id} is now superseded by {memory.superseded_by}: out of search, kept as "
        f"history. `hindsight show {memory.id}` shows both."
    )
