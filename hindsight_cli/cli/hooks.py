"""`hindsight hook EVENT` (what a client runs) and `hindsight hooks
install|uninstall|status|flush`."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional, TypeAlias

import typer

from .. import paths
from ..errors import InvalidInput
from . import app
from .hook_health import project_of as _project, readable, stale, warm_server
from .options import JsonFlag, StoreOption

if TYPE_CHECKING:
    from ..clients import Plan, Target

hooks_app = typer.Typer(
    name="hooks",
    no_args_is_help=True,
    rich_markup_mode=None,
    help="""Lifecycle hooks for coding agents: install, remove, inspect, flush (docs/hooks.md).

\b
Example:
    hindsight hooks install --client claude-code
    hindsight hooks status
""",
)

# hooks.events.CLIENTS, spelled out: importing the hooks package here would cost every command's
# start-up (tests/cli/test_choices.py keeps the two equal).
HOOK_CLIENTS = ("claude-code", "codex", "cursor", "gemini")
HOOK_SCOPES = ("user", "project", "local")
if TYPE_CHECKING:
    HookClient: TypeAlias = str
    HookScope: TypeAlias = str
else:
    HookClient = StrEnum("HookClient", {client: client for client in HOOK_CLIENTS})
    HookScope = StrEnum("HookScope", {scope: scope for scope in HOOK_SCOPES})
ClientOption = Annotated[
    HookClient,
    typer.Option("--client", help="The coding agent whose settings to change.", show_default=False),
]
ScopeOption = Annotated[
    HookScope,
    typer.Option(
        "--scope", help="Every project (user) or this one (project; claude-code also local)."
    ),
]


# what a client runs; people use `hindsight hooks`
@app.command(hidden=True)
def hook(
    event: Annotated[
        str,
        typer.Argument(
            help="session-start | prompt | tool | tool-failure | stop | pre-compact | "
            "session-end (or the client's own name).",
            show_default=False,
        ),
    ],
    client: Annotated[
        str,
        typer.Option(
            "--client",
            help="Whose payload and answer format: claude-code | codex | cursor | gemini.",
        ),
    ] = "claude-code",
    store: StoreOption = None,
) -> None:
    """Handle one hook call: read the client's JSON payload on stdin, answer on stdout, always exit
    0.

    Recording events only append to the store's spool; session start and repeated questions or
    errors answer with memories. Errors go to <store>/spool/hooks.log, never to the agent.

    \b
    Example:
        echo '{"session_id":"s1","cwd":"'$PWD'"}' | hindsight hook session-start --client claude-code
    """
    from ..hooks import read_payload, run

    out, _ = run(event, client, read_payload(), str(store) if store else None)
    if out:
        sys.stdout.write(out + "\n")


def _target(client: str, scope: str, store: Optional[Path]) -> tuple[Target, Optional[Path]]:
    from ..hooks import install

    project, pinned = _project(store)
    options = install.targets(client, Path.home(), project)
    if scope not in options:
        raise InvalidInput(
            f"{client} has no {scope} hook settings; use --scope {' or '.join(options)}."
        )
    return options[scope], pinned


def _write(change: Plan) -> Optional[Path]:
    """Apply a plan; an empty plan means the file held nothing but our hooks: back it up, remove
    it."""
    from .. import clients

    path = change.target.path
    if change.after == "" and change.before is not None:
        backup = clients.backup_of(change.target)
        path.unlink()
        return backup
    return clients.apply(change)


@hooks_app.command()
def install(
    client: ClientOption,
    scope: ScopeOption = "user",
    store: StoreOption = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show the new file; write nothing.")
    ] = False,
    json_: JsonFlag = False,
) -> None:
    """Add hindsight's hooks to a client's settings (merged, backed up, idempotent).

    Every other hook and setting is kept. Without --store, each session uses the store of its
    project (the nearest .hindsight/ above it, else the global store). For codex, the config.toml
    beside hooks.json also gets [features] hooks = true, unless it sets that flag itself.

    \b
    Example:
        hindsight hooks install --client claude-code
        hindsight hooks install --client cursor --scope project --dry-run
    """
    from ..hooks import install as hooks_install
    from ..text import visible
    from . import render

    target, pinned = _target(client, scope, store)
    change = hooks_install.plan_install(target, pinned)
    # a checkout's hooks.json may hold its author's commands: turning Codex's hooks on there
    # would run them too (review AO); the user turns them on once they have looked
    held = (
        hooks_install.others(change, pinned)
        if client == "codex" and target.root is not None
        else []
    )
    flag = (
        hooks_install.plan_codex_flag(hooks_install.codex_config(target), on=True)
        if client == "codex" and not held
        else None
    )
    if held:
        render.warning(
            f"{target.path} and the config.toml beside it hold {len(held)} hook(s) hindsight did "
            f"not write (the checkout's: {held[0]!r}{', …' if len(held) > 1 else ''}): Codex's "
            f"hooks were not turned on in {hooks_install.codex_config(target).path}, which would "
            "run them too. "
            "Look at them; then set `hooks = true` under [features] there yourself."
        )
    if dry_run:
        # a checkout's file, as it is where nothing changes: its comments' escapes shown (review BS)
        render.plain(visible(change.after.rstrip("\n")))
        if flag is not None and flag.changed:
            render.message(f"and in {flag.target.path}:")
            render.plain(visible(flag.after.rstrip("\n")))
        render.message(
            f"Dry run: nothing was written to {target.path}"
            + (" or its config.toml." if flag else ".")
        )
        return
    backup = _write(change) if change.changed else None
    flag_backup = _write(flag) if flag is not None and flag.changed else None
    if json_:
        render.json_doc(
            {
                "client": client,
                "scope": scope,
                "path": str(target.path),
                "changed": change.changed,
                "backup": str(backup) if backup else None,
                **_flag_report(flag, flag_backup),
            }
        )
        return
    render.plain(str(target.path))
    if not change.changed:
        render.message(f"{client}'s hooks already run hindsight; nothing changed.")
    else:
        render.message(
            f"Added hindsight's hooks to {target.path}"
            + (f"; the old file is at {backup}" if backup else "")
            + ". New sessions use them: they recall at session start and on repeats, record "
            "failures "
            "and their fixes, and keep each session's whole exchange (the transcript is mined as "
            "the session closes; `hindsight mine` takes in the history from before)."
        )
    if flag is not None:
        _say_flag(flag, flag_backup)


def _flag_report(flag: Optional[Plan], backup: Optional[Path]) -> dict[str, Any]:
    """The Codex feature flag part of a --json report (nothing for the other clients)."""
    if flag is None:
        return {}
    from ..hooks import install as hooks_install

    return {
        "feature_flag": {
            "path": str(flag.target.path),
            "changed": flag.changed,
            "backup": str(backup) if backup else None,
            "hooks": hooks_install.codex_flag(flag.target),
        }
    }


def _say_flag(flag: Plan, backup: Optional[Path]) -> None:
    from ..hooks import install as hooks_install
    from . import render

    path, state = flag.target.path, hooks_install.codex_flag(flag.target)
    old = f"; the old file is at {backup}" if backup else ""
    if flag.changed and state:
        render.message(f"Turned Codex's hooks on in {path} ([features] hooks = true){old}.")
    elif flag.changed:
        render.message(f"Removed the [features] hooks = true that install added to {path}{old}.")
    elif state is False:
        render.warning(
            f"Codex's hooks are turned off in {path} ([features] hooks = false, or the older "
            "codex_hooks = false): hindsight's hooks run once you set `hooks = true` there."
        )


@hooks_app.command()
def uninstall(
    client: ClientOption,
    scope: ScopeOption = "user",
    store: StoreOption = None,
    json_: JsonFlag = False,
) -> None:
    """Remove exactly the hooks (and the Codex feature flag) that `hooks install` added; keep
    everything else.

    \b
    Example:
        hindsight hooks uninstall --client claude-code
    """
    from ..hooks import install as hooks_install
    from . import render

    target, _ = _target(client, scope, store)
    change = hooks_install.plan_uninstall(target)
    flag = (
        hooks_install.plan_codex_flag(hooks_install.codex_config(target), on=False)
        if client == "codex"
        else None
    )
    backup = _write(change) if change.changed else None
    flag_backup = _write(flag) if flag is not None and flag.changed else None
    if json_:
        render.json_doc(
            {
                "client": client,
                "scope": scope,
                "path": str(target.path),
                "changed": change.changed,
                "backup": str(backup) if backup else None,
                **_flag_report(flag, flag_backup),
            }
        )
        return
    render.plain(str(target.path))
    render.message(
        f"Removed hindsight's hooks from {target.path}."
        if change.changed
        else f"{target.path} runs no hindsight hooks; nothing changed."
    )
    if flag is not None and flag.changed:
        _say_flag(flag, flag_backup)


@hooks_app.command()
def status(store: StoreOption = None, json_: JsonFlag = False) -> None:
    """Which clients run hindsight's hooks, where, and what is waiting in the spool.

    \b
    Example:
        hindsight hooks status --json
    """
    from ..hooks import install as hooks_install
    from ..hooks.events import CLIENTS
    from ..storage import spool
    from ..text import visible
    from . import render

    project, _ = _project(store)
    rows = []
    for client in CLIENTS:
        for scope, target in hooks_install.targets(client, Path.home(), project).items():
            events = readable(hooks_install.installed, target)
            row = {
                "client": client,
                "scope": scope,
                "path": str(target.path),
                "events": events if isinstance(events, list) else [events],
            }
            gone = readable(hooks_install.broken, target)
            # files the commands run that are gone: an environment removed or moved
            row["missing"] = (
                sorted({p for found in gone.values() for p in found})
                if isinstance(gone, dict)
                else []
            )
            # None: the file leaves it to Codex (on by default in current versions)
            if client == "codex":
                row["feature_flag"] = readable(
                    hooks_install.codex_flag, hooks_install.codex_config(target)
                )
            rows.append(row)
    location = paths.resolve_store(store)
    directory = spool.spool_dir(location.path)
    pending = (
        sum(
            1
            for f in directory.glob("*.jsonl")
            if f.name not in (spool.SEEN, spool.REJECTED)
            for _ in spool.lines(f)
        )
        if directory.is_dir()
        else 0
    )
    log = directory / spool.LOG
    refused, reason = spool.rejected(location.path)
    report = {
        "store": str(location.path),
        "pending_events": pending,
        "rejected_events": refused,
        "rejected_reason": reason,
        "log": str(log) if log.exists() else None,
        "warm_server": warm_server(location.path),
        "clients": rows,
    }
    if json_:
        render.json_doc(report)
        return
    for row in rows:
        state = ", ".join(row["events"]) if row["events"] else "-"
        value: Any = row.get("feature_flag")
        flag = {True: "on", False: "off", None: "unset"}.get(value, value)
        # the events are a checkout's own names: `UserPrompt\x1b[1A\x1b[2K…` erased a line, half a
        # character (`"\ud800"`) ended the command with a traceback (review BS2)
        render.plain(
            visible(
                f"{row['client']:<12} {row['scope']:<8} {state}  ({row['path']})"
                + (f"  [features] hooks: {flag}" if "feature_flag" in row else "")
            )
        )
    for row in rows:
        if row["missing"]:
            render.warning(stale(row))
    render.message(
        f"Store {location.path}: {pending} event(s) waiting in the spool"
        + (f"; hook errors are logged in {log}" if log.exists() else "")
        + "."
    )
    render.message(
        "A hindsight mcp / ui of this store answers the hooks' repeat recall (warm)."
        if report["warm_server"]
        else "No hindsight mcp / ui of this store is listening: a repeat recall starts cold."
    )
    if refused:
        render.warning(
            f"{refused} event(s) the store refused were set aside in "
            f"{directory / spool.REJECTED} (latest: {reason}); read them there, then delete "
            "the file."
        )


@hooks_app.command()
def flush(store: StoreOption = None, json_: JsonFlag = False) -> None:
    """Ingest the spool now (failures, fixes, prompts) instead of at the next session start.

    \b
    Example:
        hindsight hooks flush
    """
    from ..store import open_store
    from . import render

    report = open_store(store).ingest_events()
    if json_:
        render.json_doc(report)
        return
    render.message(
        f"Ingested {report['events']} event(s): {report['added']} memories added, "
        f"{report['fixed']} failure(s) linked to their fix."
    )
