"""`hindsight doctor --fix`: the few safe repairs of a client config, each written with a backup.

Safe means the meaning of the entry is clear and only hindsight's own entry changes: the entry moved
from a key the client ignores to the one it reads, a bare ``hindsight`` command made absolute (this
installation's), and Codex's start-up timeout raised when it is below 20 s. Every other server and
setting is kept; a JSONC file whose comments a rewrite would lose is left alone.

In a file of project scope, which came with the checkout, an entry is repaired only when it is
hindsight's own (``clients.is_ours``): a repository may put any command, arguments or environment
under the name ``hindsight``, and moving or completing it would make the client start the
repository's program.

Other servers under the ignored key stay where they are, and the fix names them: moving them would
make the client start programs it has never run (often pasted from another client's file, with
commands or env that only work there), which is the user's call, not a repair.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from .. import clients
from ..errors import HindsightError
from ..safefs.reading import parse_toml
from . import Check, ok, warn

WRONG_KEYS = ("mcpServers", "servers", "mcp_servers", "context_servers")
# seconds, when startup_timeout_sec is not set
CODEX_DEFAULT_STARTUP = 10.0
CODEX_MIN_STARTUP = 20.0
CODEX_FIXED_STARTUP = 30


def codex_startup_timeout(entry: dict[str, Any]) -> float:
    """The start-up timeout Codex applies to this entry (``startup_timeout_ms`` is the older
    spelling)."""
    if isinstance(entry.get("startup_timeout_sec"), (int, float)):
        return float(entry["startup_timeout_sec"])
    if isinstance(entry.get("startup_timeout_ms"), (int, float)):
        return entry["startup_timeout_ms"] / 1000
    return CODEX_DEFAULT_STARTUP


def _repair(target: clients.Target, data: dict[str, Any]) -> tuple[list[str], Check | None]:
    """Change ``data`` in place; say what changed, and which other servers the client still
    ignores."""
    done = []
    ignored = None
    servers = data.get(target.key)
    if target.fmt != "toml" and not (isinstance(servers, dict) and clients.SERVER_NAME in servers):
        for wrong in WRONG_KEYS:
            moved = data.get(wrong)
            if wrong != target.key and isinstance(moved, dict) and clients.SERVER_NAME in moved:
                if not isinstance(servers, dict):
                    servers = data[target.key] = {}
                servers[clients.SERVER_NAME] = moved.pop(clients.SERVER_NAME)
                if not moved:
                    del data[wrong]
                else:
                    ignored = _still_ignored(target, wrong, list(moved))
                done.append(f"moved hindsight from {wrong!r} to {target.key!r}")
                break
    entry = servers.get(clients.SERVER_NAME) if isinstance(servers, dict) else None
    if not isinstance(entry, dict) or clients.entry_problem(entry):
        return done, ignored
    command = entry.get("command")
    if (
        isinstance(command, str)
        and Path(command).name in ("hindsight", "hindsight.exe")
        and not Path(command).is_absolute()
    ):
        absolute = clients.server_command()
        entry["command"] = absolute[0]
        entry["args"] = [*absolute[1:], *(entry.get("args") or [])]
        done.append(f"command {command!r} → {absolute[0]}")
    if target.client == "codex" and codex_startup_timeout(entry) < CODEX_MIN_STARTUP:
        was = codex_startup_timeout(entry)
        entry.pop("startup_timeout_ms", None)
        entry["startup_timeout_sec"] = CODEX_FIXED_STARTUP
        done.append(f"startup_timeout_sec {was:g} → {CODEX_FIXED_STARTUP}")
    return done, ignored


def _entry_anywhere(target: clients.Target, data: dict[str, Any]) -> Any:
    """hindsight's entry, under the key the client reads or one it ignores."""
    for key in (target.key, *WRONG_KEYS):
        servers = data.get(key)
        if isinstance(servers, dict) and clients.SERVER_NAME in servers:
            return servers[clients.SERVER_NAME]
    return None


def _still_ignored(target: clients.Target, wrong: str, names: list[str]) -> Check:
    listed = ", ".join(names)
    them = "it" if len(names) == 1 else "them"
    return warn(
        f"mcp.{target.client}.{target.scope}.ignored",
        f"{wrong!r} still holds {listed}: {target.client} ignores {them} too",
        f"{target.path}: {wrong}: {listed}",
        f"if {target.client} should start {them}, move {them} under {target.key!r} by hand "
        "(doctor moves only hindsight's own entry)",
    )


def fix(target: clients.Target) -> list[Check]:
    """Repair one config file if a safe fix applies; report what changed and where the backup is."""
    name = f"mcp.{target.client}.{target.scope}.fixed"
    from ..safefs.outside import read_outside

    # bounded, a regular file, no link out of the project
    text = (read_outside(target.path, target.root) or b"").decode("utf-8", "replace")
    try:
        if target.fmt == "toml":
            data, had_comments = parse_toml(text), False
        else:
            data, had_comments = clients.load_json(target, text)
    except (HindsightError, tomllib.TOMLDecodeError):
        # the parse check reports it; nothing safe to do
        return []
    found = _entry_anywhere(target, data)
    done, ignored = _repair(target, data)
    if not done:
        return []
    if target.root is not None and not clients.is_ours(found):
        return [
            warn(
                name,
                f"not fixed: the hindsight entry of this checkout's {target.path.name} is not "
                "hindsight's own (its command, arguments or environment)",
                f"{target.path}: " + "; ".join(done),
                "look at what it runs; if it should be hindsight, `hindsight mcp install "
                f"--client {target.client} --scope project` writes hindsight's own",
            )
        ]
    if had_comments:
        return [
            warn(
                name,
                "not fixed: rewriting would drop the file's comments",
                "; ".join(done),
                f"edit {target.path} by hand",
            )
        ]
    if target.fmt == "toml":
        try:
            change = clients.plan(target, data[target.key][clients.SERVER_NAME])
        except HindsightError as error:
            # a file the TOML editor will not take (review AT): the other files are still fixed
            return [warn(name, "not fixed: " + "; ".join(done), str(error), "edit it by hand")]
    else:
        try:
            change = clients.Plan(target, text, clients.json_text(target, data))
        except HindsightError as error:
            return [warn(name, "not fixed: " + "; ".join(done), str(error), "edit it by hand")]
    backup = clients.apply(change)
    fixed = ok(name, "fixed: " + "; ".join(done), f"{target.path}; backup {backup}")
    return [fixed, ignored] if ignored else [fixed]
