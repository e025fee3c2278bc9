"""Forgetting and the audit trail: forget, restore, log."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from . import app
from .memory import SinceOption
from .options import (
    Action,
    AgentOption,
    JsonFlag,
    NlFlag,
    StoreOption,
    TaskOption,
    YesFlag,
    open_at,
    output_format,
)


@app.command()
def forget(
    memory_ids: Annotated[
        Optional[list[str]],
        typer.Argument(metavar="[ID]...", help="Memory ids to forget.", show_default=False),
    ] = None,
    task: TaskOption = None,
    agent: AgentOption = None,
    older_than: Annotated[
        Optional[str],
        typer.Option(
            "--older-than", help="Recorded longer ago than this, e.g. 30d.", show_default=False
        ),
    ] = None,
    expired: Annotated[
        bool, typer.Option("--expired", help="Memories whose TTL has passed.")
    ] = False,
    hard: Annotated[
        bool,
        typer.Option("--hard", help="Purge for good: no trace of the content stays in the store."),
    ] = False,
    archive: Annotated[
        bool,
        typer.Option(
            "--archive",
            help="Move to cold storage: out of search unless --include-archived; restorable.",
        ),
    ] = False,
    reason: Annotated[
        Optional[str],
        typer.Option("--reason", help="Why (kept in the audit log).", show_default=False),
    ] = None,
    yes: YesFlag = False,
    store: StoreOption = None,
    json_: JsonFlag = False,
) -> None:
    """Forget memories (soft by default; --archive keeps them cold; --hard purges).

    Soft-forgotten and archived memories are excluded from search and can be restored. --hard
    deletes the rows, their vectors, the summaries built from them, old index versions and the
    ledger's freed blocks. --expired purges memories whose TTL has passed.

    \b
    Example:
        hindsight forget 01a22ace-86eb-74f2-a7b6-349d907f4735
        hindsight forget --task task-42 --archive -y
        hindsight forget --task task-42 --hard -y
        hindsight forget --expired -y
    """
    from ..core.selection import cli_option
    from ..errors import InvalidInput
    from . import render

    ids = memory_ids or []
    target = open_at(store)
    # decided once: what the prompt counts is what is forgotten, however long it waits
    plan = target.plan_forget(
        ids,
        task_id=task,
        agent_id=agent,
        older_than=older_than,
        expired=expired,
        hard=hard,
        archive=archive,
        spell=cli_option,
    )
    # nothing matched: nothing to confirm
    if plan.ids and (plan.hard or plan.filters is not None) and not yes:
        what = "purge for good" if plan.hard else "archive" if archive else "forget"
        count = render.memories(len(plan.ids))
        if not sys.stdin.isatty():
            raise InvalidInput(f"This would {what} up to {count}; add -y to confirm.")
        typer.confirm(f"{what.capitalize()} up to {count}?", abort=True, err=True)
    result = target.forget_planned(plan, reason=reason)
    if json_:
        render.json_doc(result.to_dict())
    else:
        render.message(
            _forgot(result.forgotten, ids if plan.filters is None else [], plan.hard, archive)
        )


def _forgot(count: int, ids: list[str], hard: bool, archive: bool) -> str:
    """What a forget did, and how to undo it: the id to restore, or where to find them."""
    from .render import memories

    verb, done_to = (
        ("Purged", "purged")
        if hard
        else ("Archived", "archived")
        if archive
        else ("Forgot", "forgotten")
    )
    # nothing changed, so nothing to undo
    if not count:
        return f"No memory {'was' if ids else 'matched, so none was'} {done_to}" + (
            " (already forgotten or archived)." if ids else "."
        )
    done = f"{verb} {memories(count)}."
    if hard:
        return done
    if count == len(ids):
        return (
            f"{done} Undo with "
            + " and ".join(f"`hindsight restore {memory_id}`" for memory_id in ids)
            + "."
        )
    status = "archived" if archive else "invalidated"
    return (
        f"{done} Undo with `hindsight restore ID` for each; `hindsight list --status "
        f"{status}` lists them."
    )


@app.command()
def restore(
    memory_id: Annotated[
        str, typer.Argument(metavar="ID", help="The memory to bring back.", show_default=False)
    ],
    store: StoreOption = None,
    json_: JsonFlag = False,
) -> None:
    """Restore a soft-forgotten or archived memory.

    \b
    Example:
        hindsight restore 01a22ace-86eb-74f2-a7b6-349d907f4735
    """
    from . import render

    target = open_at(store)
    before = target.get(memory_id).status
    memory = target.restore(memory_id) if before != "active" else target.get(memory_id)
    if json_:
        render.json_doc(memory.to_dict())
    elif before == "active":
        render.message(f"{memory.id} is active already; nothing to restore.")
    else:
        render.message(f"Restored {memory.id} (it was {before}).")


@app.command(name="log")
def log_(
    memory_id: Annotated[
        Optional[str],
        typer.Option(
            "--id", metavar="ID", help="Only entries about this memory.", show_default=False
        ),
    ] = None,
    action: Annotated[
        Optional[Action], typer.Option("--action", help="Only this action.", show_default=False)
    ] = None,
    since: SinceOption = None,
    limit: Annotated[
        int, typer.Option("-n", "--limit", min=0, help="At most this many entries (0 = all).")
    ] = 50,
    store: StoreOption = None,
    json_: JsonFlag = False,
    nl: NlFlag = False,
) -> None:
    """Show the audit log: who changed which memories, when and why (never their content).

    \b
    Example:
        hindsight log
        hindsight log --action forget_hard --json
        hindsight log --id 01a22ace-86eb-74f2-a7b6-349d907f4735
    """
    from ..core.selection import shown, when
    from . import render

    fmt = output_format(json_, nl)
    entries = open_at(store).log(
        limit=shown(limit), action=action, memory_id=memory_id, since=when(since, "--since")
    )
    if fmt == "json":
        render.json_doc([e.to_dict() for e in entries])
    elif fmt == "nl":
        render.json_lines(e.to_dict() for e in entries)
    else:
        render.audit_table(entries)
