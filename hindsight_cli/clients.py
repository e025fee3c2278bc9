"""MCP client configuration files: where each client keeps its servers, and a safe merge of ours.

Facts per client (paths, top-level keys, formats) follow the project's reference notes on MCP
client configs. Writing keeps every other server and setting, backs the old file up, is atomic and
idempotent, and refuses a file it cannot parse (nothing is overwritten).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from . import safefs
from .errors import HindsightError, InvalidInput
from .safefs.reading import (
    MAX_EDITED_DOTTED as MAX_EDITED_DOTTED,
    MAX_EDITED_TOML as MAX_EDITED_TOML,
    parse_json,
    parse_toml,
    too_long_to_edit,
)

SERVER_NAME = "hindsight"
CLIENTS = (
    "claude-desktop",
    "claude-code",
    "cursor",
    "codex",
    "vscode",
    "windsurf",
    "gemini",
    "zed",
)


@dataclass(frozen=True)
class Target:
    """One config file of one client, and how our entry sits in it."""

    client: str
    # "user" or "project"
    scope: str
    path: Path
    # the top-level key that holds the servers
    key: str
    # "json", "jsonc" or "toml"
    fmt: str
    # the project a file of project scope belongs to: no link on the way may leave it
    root: Path | None = None

    def read(self) -> str | None:
        """The file's text (None: no file), read without following a link out of ``root``."""
        from .safefs import outside

        data = outside.read_outside(self.path, self.root)
        if data is None:
            return None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            # a checkout's `.mcp.json` of Latin-1 or UTF-16 ended `mcp install` and `hooks
            # install` with a traceback (review BS)
            raise HindsightError(
                f"{self.path} is not UTF-8 text (byte {error.start}); fix it or move it aside, "
                "then run the command again. Nothing was changed."
            ) from None
        # as read_text reads it: universal newlines
        return text.replace("\r\n", "\n").replace("\r", "\n")


def _dirs(home: Path, env: Mapping[str, str], platform: str) -> dict[str, Path]:
    appdata = Path(env.get("APPDATA") or home / "AppData" / "Roaming")
    xdg = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    if platform == "darwin":
        support = home / "Library" / "Application Support"
        return {"claude": support / "Claude", "code": support / "Code" / "User", "zed": xdg / "zed"}
    if platform == "win32":
        return {
            "claude": appdata / "Claude",
            "code": appdata / "Code" / "User",
            "zed": appdata / "Zed",
        }
    return {"claude": xdg / "Claude", "code": xdg / "Code" / "User", "zed": xdg / "zed"}


def targets(
    client: str,
    home: Path,
    project: Path,
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
) -> dict[str, Target]:
    """The config files of ``client`` by scope, for this OS layout."""
    env = os.environ if env is None else env
    dirs = _dirs(home, env, platform or sys.platform)
    codex_home = Path(env.get("CODEX_HOME") or home / ".codex")
    table: dict[str, dict[str, tuple[Path, str, str]]] = {
        "claude-desktop": {
            "user": (dirs["claude"] / "claude_desktop_config.json", "mcpServers", "json")
        },
        "claude-code": {
            "user": (home / ".claude.json", "mcpServers", "json"),
            "project": (project / ".mcp.json", "mcpServers", "json"),
        },
        "cursor": {
            "user": (home / ".cursor" / "mcp.json", "mcpServers", "json"),
            "project": (project / ".cursor" / "mcp.json", "mcpServers", "json"),
        },
        "codex": {
            "user": (codex_home / "config.toml", "mcp_servers", "toml"),
            "project": (project / ".codex" / "config.toml", "mcp_servers", "toml"),
        },
        "vscode": {
            "user": (dirs["code"] / "mcp.json", "servers", "jsonc"),
            "project": (project / ".vscode" / "mcp.json", "servers", "jsonc"),
        },
        "windsurf": {
            "user": (home / ".codeium" / "windsurf" / "mcp_config.json", "mcpServers", "json")
        },
        "gemini": {
            "user": (home / ".gemini" / "settings.json", "mcpServers", "json"),
            "project": (project / ".gemini" / "settings.json", "mcpServers", "json"),
        },
        "zed": {
            "user": (dirs["zed"] / "settings.json", "context_servers", "jsonc"),
            "project": (project / ".zed" / "settings.json", "context_servers", "jsonc"),
        },
    }
    if client not in table:
        raise InvalidInput(f"Unknown client {client!r}; choose one of {', '.join(CLIENTS)}.")
    return {
        scope: Target(client, scope, *spec, root=None if scope == "user" else project)
        for scope, spec in table[client].items()
    }


def server_command() -> list[str]:
    """An absolute command that starts this installation's hindsight, whatever the client's PATH.
    Without a script, the module through ``-P``: a client starts its servers in the project, and
    ``python -m`` looks there first for every module it imports (a checkout's ``typer.py`` ran in
    place of Typer; review AW)."""
    script = installed_script()
    return [script] if script is not None else [sys.executable, "-P", "-m", "hindsight_cli"]


def installed_script() -> str | None:
    """This installation's ``hindsight`` script: beside the interpreter, else on ``PATH``."""
    script = Path(sys.executable).with_name("hindsight.exe" if os.name == "nt" else "hindsight")
    if script.exists():
        return str(script)
    found = safefs.program("hindsight")
    return str(Path(found).resolve()) if found else None


def entry(target: Target, store: Path | None, command: list[str] | None = None) -> dict[str, Any]:
    """Our server entry in the shape this client expects (without a store, the server finds one
    from its working directory, as a plugin's server does)."""
    command = command or server_command()
    base: dict[str, Any] = {
        "command": command[0],
        "args": [*command[1:], "mcp", *(["--store", str(store)] if store else [])],
        "env": dict(_OUR_ENV),
    }
    if target.client == "vscode":
        return {"type": "stdio", **base}
    if target.client == "claude-code":
        return {"type": "stdio", **base}
    if target.client == "codex":
        return {**base, "startup_timeout_sec": 30}
    if target.client == "zed":
        return {"source": "custom", **base}
    return base


# the environment `entry` gives our server; nothing else is ours
_OUR_ENV = {"PYTHONUNBUFFERED": "1", "PYTHONUTF8": "1"}
# the keys an entry of ours may hold beside its command, arguments and environment (what `entry`
# writes, and the clients' own timeouts and switches): any other (`envFile`, `cwd`, `env_vars`,
# `dev`, `url`, `trust`) changes what the client starts, or how
_OUR_KEYS = frozenset(
    {
        "command",
        "args",
        "env",
        "type",
        "source",
        "startup_timeout_sec",
        "startup_timeout_ms",
        "tool_timeout_sec",
        "timeout",
        "enabled",
        "disabled",
    }
)


def is_ours(entry: Any) -> bool:
    """Whether ``entry`` starts this installation's server as :func:`entry` writes it (or with a
    bare ``hindsight`` command): ``mcp``, at most ``--store PATH``, no environment but ours, no key
    but ours (``_OUR_KEYS``: a client's ``envFile`` or ``cwd`` changes what it starts). A file a
    repository ships may name anything under our name; only this is safe to start or repair."""
    if not isinstance(entry, dict):
        return False
    command, args, env = entry.get("command"), entry.get("args") or [], entry.get("env") or {}
    if not isinstance(command, str) or not isinstance(args, list) or not isinstance(env, dict):
        return False
    if not set(entry) <= _OUR_KEYS or entry.get("type", "stdio") != "stdio":
        return False
    if entry.get("source", "custom") != "custom":
        return False
    ours = server_command()
    argv = [command, *map(str, args)]
    if command in ("hindsight", "hindsight.exe"):
        rest = argv[1:]
    elif argv[: len(ours)] == ours:
        rest = argv[len(ours) :]
    else:
        return False
    plain = rest == ["mcp"] or (len(rest) == 3 and rest[:2] == ["mcp", "--store"])
    return plain and env.items() <= _OUR_ENV.items()


# the kinds of value the keys of a server entry that hindsight reads may hold (Zed's older form
# nests `path`, `args` and `env` in `command`); null is as absent
_ENTRY_KINDS: dict[str, tuple[type, ...]] = {
    "command": (str, dict),
    "path": (str,),
    "args": (list,),
    "env": (dict,),
    "cwd": (str,),
    "env_vars": (list,),
    "headers": (dict,),
    "http_headers": (dict,),
    "env_http_headers": (dict,),
    "bearer_token_env_var": (str,),
    "url": (str,),
    "serverUrl": (str,),
    "httpUrl": (str,),
}
_KIND_NAMES: dict[type, str] = {str: "a string", dict: "an object", list: "a list"}


def entry_problem(entry: Mapping[str, Any]) -> str | None:
    """What is wrong with the shape of a server entry (a key holding another kind of value than
    its client reads), or None: a checkout's `.mcp.json` whose entry has `args: 5` or `headers:
    "x"` ended `hindsight doctor` with a traceback (review BL)."""
    command = entry.get("command")
    for where, part in (("", entry), ("command.", command if isinstance(command, dict) else {})):
        for key, kinds in _ENTRY_KINDS.items():
            value = part.get(key)
            if value is not None and not isinstance(value, kinds):
                names = " or ".join(_KIND_NAMES[kind] for kind in kinds)
                return f"`{where}{key}` is not {names}"
            unpassable = None if value is None else _unpassable(value)
            if unpassable:
                # no program can be given it (a path, an argument, a variable): a checkout's
                # `cwd` or `--store` of `"/a\u0000"` ended doctor with `ValueError: embedded null
                # byte` (review BS), a `cwd` or hindsight's `command` of `"\ud800"` (JSON's
                # escape of half a character) with `UnicodeEncodeError` (review BS2)
                return f"`{where}{key}` holds {unpassable}"
    return None


# what no path, argument or environment variable can hold: a NUL, and a lone surrogate (half of
# a character, which JSON can escape and no encoding writes)
_UNPASSABLE = re.compile("[\x00\ud800-\udfff]")


def _unpassable(value: Any) -> str | None:
    """What a value of an entry holds, in a string or a key at any depth, that no program can be
    given (walked without recursion: a parsed config nests at most ``MAX_DEPTH`` levels), named;
    None when it holds none."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if found := _UNPASSABLE.search(item):
                return "a NUL character" if found.group() == "\x00" else "half a character"
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


# --- JSON / JSONC
# ------------------------------------------------------------------------------------

# A string, or a block comment, that is not closed runs to the end of the text: tried again from
# every later quote or `/*`, each scan to the end made the work quadratic (review AL: a checkout's
# 60 KB `.vscode/mcp.json` of quotes and backslashes held `hindsight doctor` for a minute).
_STRING = r'("(?:\\.|[^"\\])*+(?:"|\\?\Z))'
_COMMENTS = re.compile(_STRING + r"|//[^\n]*|/\*.*?(?:\*/|\Z)", re.S)
_TRAILING_COMMAS = re.compile(_STRING + r"|,(\s*[}\]])", re.S)


def strip_jsonc(text: str) -> tuple[str, bool]:
    """Remove comments, then trailing commas, never touching strings; say whether there were
    comments."""
    had_comments = False

    def drop_comment(match: re.Match[str]) -> str:
        nonlocal had_comments
        if match.group(1):
            return match.group(1)
        had_comments = True
        return ""

    text = _COMMENTS.sub(drop_comment, text)
    text = _TRAILING_COMMAS.sub(lambda m: m.group(1) or m.group(2), text)
    return text, had_comments


def load_json(target: Target, text: str) -> tuple[dict[str, Any], bool]:
    source, had_comments = strip_jsonc(text) if target.fmt == "jsonc" else (text, False)
    try:
        data = parse_json(source) if source.strip() else {}
    except json.JSONDecodeError as error:
        raise HindsightError(
            f"{target.path} is not valid JSON (line {error.lineno}, column {error.colno}: "
            f"{error.msg}); "
            "fix it or move it aside, then run the command again. Nothing was changed."
        ) from None
    if not isinstance(data, dict):
        raise HindsightError(
            f"{target.path} does not hold a JSON object; fix it first. Nothing was changed."
        )
    return data, had_comments


def json_text(target: Target, data: Any) -> str:
    """``data`` as the JSON text of ``target``'s file, which its client reads back: a lone
    surrogate (JSON's ``"\\ud800"``, which UTF-8 cannot hold) is written as the escape it was read
    as, and a number JSON cannot write (``1e400`` read as an infinity, ``NaN``) refuses the file.
    Each ended `mcp install`, `hooks install` and `doctor --fix` with a traceback, or wrote
    ``Infinity``, which no client's reader parses (review BS)."""
    try:
        text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError:
        raise HindsightError(
            f"{target.path} holds a number JSON cannot write back (NaN, Infinity, or one past a "
            "float's range such as 1e400); fix it first. Nothing was changed."
        ) from None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(data, indent=2, ensure_ascii=True)
    return text + "\n"


# --- TOML (Codex)
# -------------------------------------------------------------------------------------


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    # a TOML basic string is a JSON string
    return json.dumps(str(value), ensure_ascii=False)


def _toml_block(name: str, data: Mapping[str, Any]) -> str:
    lines = [f"[mcp_servers.{name}]"] + [
        f"{key} = {_toml_value(value)}" for key, value in data.items()
    ]
    return "\n".join(lines) + "\n"


def _update(container: Any, values: Mapping[str, Any]) -> None:
    """Make a TOML table (or inline table) hold ``values``, key by key, in place."""
    import tomlkit
    from tomlkit.items import InlineTable, Table

    for key in [k for k in container if k not in values]:
        del container[key]
    for key, value in values.items():
        current = container.get(key)
        if isinstance(value, Mapping) and isinstance(current, (Table, InlineTable)):
            _update(current, value)
        elif isinstance(value, Mapping):
            inline = tomlkit.inline_table()
            inline.update(dict(value))
            container[key] = inline
        elif current != value:
            container[key] = value


def _with_server(text: str, name: str, server: Mapping[str, Any]) -> str:
    """``text`` with ``mcp_servers.<name>`` set to ``server``, edited through a model of the document
    (tomlkit) so that everything else stays as it was: comments, order, other servers, and the style
    of the entry replaced (``hindsight = { … }`` under ``[mcp_servers]`` stays an inline table; a hand
    edit of the text took that for no entry, and the check of the result failed with a traceback)."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError
    from tomlkit.items import InlineTable, Table

    if past := too_long_to_edit(text, MAX_EDITED_TOML, MAX_EDITED_DOTTED):
        raise HindsightError(
            f"holds {past[0]}, more than this installer edits ({past[1]}); add the server by hand "
            "(hindsight mcp config prints it). Nothing was changed."
        )
    try:
        doc = tomlkit.parse(text)
    except TOMLKitError as error:
        raise HindsightError(
            f"is TOML this installer cannot edit ({error}); add the server by hand (hindsight mcp "
            "config prints it). Nothing was changed."
        ) from None
    servers = doc.get("mcp_servers")
    if servers is None:
        servers = tomlkit.table(is_super_table=True)
        doc.append("mcp_servers", servers)
    elif not isinstance(servers, dict):
        raise HindsightError("'mcp_servers' is not a table; fix it first. Nothing was changed.")
    existing = servers.get(name)
    if isinstance(existing, (Table, InlineTable)):
        # in place: its comments, its style (inline, dotted keys, sub-tables) and its place stay
        _update(existing, server)
    elif isinstance(servers, InlineTable) or any(
        isinstance(v, InlineTable) for v in servers.values()
    ):
        entry = tomlkit.inline_table()
        entry.update(dict(server))
        servers[name] = entry
    else:
        table = tomlkit.table()
        _update(table, server)
        # a blank line before whatever follows
        table.add(tomlkit.nl())
        servers[name] = table
    after = tomlkit.dumps(doc)
    return after.rstrip("\n") + "\n"


# --- the merge
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """What installing would do to one file."""

    target: Target
    # None: the file does not exist yet
    before: str | None
    after: str
    dropped_comments: bool = False

    @property
    def changed(self) -> bool:
        # no file, none to make
        return self.before != self.after and not (self.before is None and self.after == "")


def plan(target: Target, server: Mapping[str, Any]) -> Plan:
    """Compute the new file text; raises if the existing file cannot be parsed."""
    before = target.read()
    if target.fmt == "toml":
        text = before or ""
        try:
            current = parse_toml(text)
        except tomllib.TOMLDecodeError as error:
            raise HindsightError(
                f"{target.path} is not valid TOML ({error}); fix it or move it aside, then run "
                f"the command "
                "again. Nothing was changed."
            ) from None
        servers = current.get("mcp_servers", {})
        if isinstance(servers, dict) and servers.get(SERVER_NAME) == dict(server):
            return Plan(target, before, text)
        try:
            after = _with_server(text, SERVER_NAME, server)
        except HindsightError as error:
            raise HindsightError(f"{target.path}: {error}") from None
        # never write a file that would not parse
        parse_toml(after)
        return Plan(target, before, after)
    data, had_comments = load_json(target, before or "")
    servers = data.get(target.key)
    if servers is None:
        servers = data[target.key] = {}
    if not isinstance(servers, dict):
        raise HindsightError(
            f"{target.path}: {target.key!r} is not an object; fix it first. Nothing was changed."
        )
    if servers.get(SERVER_NAME) == dict(server):
        return Plan(target, before, before or "")
    servers[SERVER_NAME] = dict(server)
    return Plan(target, before, json_text(target, data), had_comments)


def apply(change: Plan) -> Path | None:
    """Write the plan atomically; back the old file up first. Returns the backup's path, if any."""
    if not change.changed:
        return None
    backup = backup_of(change.target) if change.before is not None else None
    from .safefs import outside

    outside.write_outside(change.target.path, change.after, change.target.root)
    return backup


def backup_of(target: Target) -> Path | None:
    """A copy of ``target``'s file beside it, named for now (None: no file), written as the file
    itself is: never through a link, never from one that leaves the project."""
    from .safefs import outside

    data = outside.read_outside(target.path, target.root)
    if data is None:
        return None
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    backup = target.path.with_name(f"{target.path.name}.hindsight-backup-{stamp}")
    # a backup of this second already (two installers of one file in a script, one run twice):
    # another name, never over it, or the file as the user had it is lost (review AE). A link
    # there keeps the name and is refused, as at any name hindsight writes
    number = 1
    while backup.is_file() and not backup.is_symlink():
        number += 1
        backup = target.path.with_name(f"{target.path.name}.hindsight-backup-{stamp}-{number}")
    outside.write_outside(backup, data, target.root)
    return backup


def snippet(target: Target, server: Mapping[str, Any]) -> str:
    """The config text a user would paste for this client."""
    if target.fmt == "toml":
        return _toml_block(SERVER_NAME, server)
    return (
        json.dumps({target.key: {SERVER_NAME: dict(server)}}, indent=2, ensure_ascii=False) + "\n"
    )
