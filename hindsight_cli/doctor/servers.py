"""Every MCP server the clients on this machine are configured to run, read from their config files.

One shape for all clients: a stdio server (command, args, env, cwd) or a remote one (url, headers),
whatever the client calls its keys (``serverUrl``, ``httpUrl``, Zed's nested ``command``, Codex's
``bearer_token_env_var``). Variables are expanded as the clients do (``${VAR}``,
``${VAR:-default}``, ``${env:VAR}``, ``${workspaceFolder}``, ``${userHome}``); a value that needs
the client itself (VS Code's ``${input:…}`` prompts) leaves the server unresolved, with the reason.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from .. import clients
from ..errors import HindsightError
from ..safefs.reading import parse_toml
from . import reach

# a `${` that never closes runs to the end of the text, once, and stays as written (group 2 empty):
# tried again from every later `${`, the work was quadratic (review AL, as `compose_file._VARIABLE`)
_VARIABLE = re.compile(r"\$\{([^}]+)(\}|\Z)")


@dataclass(frozen=True)
class Server:
    """One configured server, with the variables expanded."""

    client: str
    scope: str
    name: str
    path: Path
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    # stdio | http | sse
    transport: str = "stdio"
    headers: Mapping[str, str] = field(default_factory=dict)
    disabled: bool = False
    # why it cannot be started as configured
    unresolved: str = ""
    # what it runs reads the project, the checkout (``names_project``)
    in_project: bool = False

    @property
    def where(self) -> str:
        return f"{self.client} ({self.scope})"

    @property
    def argv(self) -> list[str]:
        return [self.command, *self.args] if self.command else []


def read(target: clients.Target) -> dict[str, Any]:
    """The parsed file; raises HindsightError (JSON) or TOMLDecodeError with the line."""
    from ..safefs.outside import read_outside

    # bounded, a regular file, no link out of the project
    text = (read_outside(target.path, target.root) or b"").decode("utf-8", "replace")
    if target.fmt == "toml":
        return parse_toml(text)
    return clients.load_json(target, text)[0]


def _expander(project: Path, home: Path, env: Mapping[str, str]) -> Any:
    missing: list[str] = []

    def one(match: re.Match[str]) -> str:
        body = match.group(1)
        if not match.group(2):
            return match.group(0)
        if body in ("workspaceFolder", "workspaceRoot"):
            return str(project)
        if body == "userHome":
            return str(home)
        name, sep, default = body.removeprefix("env:").partition(":-")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            missing.append(match.group(0))
            return match.group(0)
        if name in env and (env[name] or not sep):
            return env[name]
        if sep:
            return default
        missing.append(match.group(0))
        return match.group(0)

    def expand(value: Any) -> str:
        return _VARIABLE.sub(one, str(value))

    return expand, missing


def _headers(entry: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, str]:
    headers = dict(entry.get("headers") or entry.get("http_headers") or {})
    # Codex
    for header, variable in (entry.get("env_http_headers") or {}).items():
        if isinstance(variable, str) and variable in env:
            headers[header] = env[variable]
    token_var = entry.get("bearer_token_env_var")
    if isinstance(token_var, str) and token_var in env:
        headers["Authorization"] = f"Bearer {env[token_var]}"
    return {str(k): str(v) for k, v in headers.items()}


def server(
    target: clients.Target,
    name: str,
    entry: Any,
    project: Path,
    home: Path,
    env: Mapping[str, str] | None = None,
    scope: str | None = None,
) -> Server:
    """One entry of a config file as a :class:`Server`."""
    env = os.environ if env is None else env
    make = partial(Server, target.client, scope or target.scope, name, target.path)
    if not isinstance(entry, dict):
        return make(unresolved=f"the entry is not an object: {entry!r}"[:120])
    disabled = entry.get("disabled") is True or entry.get("enabled") is False
    problem = clients.entry_problem(entry)
    if problem:
        return make(disabled=disabled, unresolved=problem)
    command: Any = entry.get("command")
    args, own_env = entry.get("args") or [], entry.get("env") or {}
    # Zed's older nested form
    if isinstance(command, dict):
        command, args, own_env = (
            command.get("path"),
            command.get("args") or [],
            command.get("env") or own_env,
        )
    expand, missing = _expander(project, home, env)
    own_env = {str(k): expand(v) for k, v in own_env.items()} if isinstance(own_env, dict) else {}
    # Codex: forwarded from the client's environment
    for variable in entry.get("env_vars") or []:
        if isinstance(variable, str) and variable in env:
            own_env.setdefault(variable, env[variable])
    url = entry.get("url") or entry.get("serverUrl") or entry.get("httpUrl")
    if command:
        found = make(
            command=expand(command),
            args=tuple(expand(a) for a in args),
            env=own_env,
            # a project's server (started only when the user trusts the checkout, as its client
            # does) in the project; any other in the user's home (``handshake.stdio``)
            cwd=expand(entry["cwd"])
            if entry.get("cwd")
            else (str(project) if target.root is not None else None),
            disabled=disabled,
        )
        found = replace(found, in_project=names_project(found, project, env, home))
    elif isinstance(url, str):
        kind = str(entry.get("type") or entry.get("transport") or "")
        sse = kind == "sse" or (
            target.client == "gemini" and "url" in entry and "httpUrl" not in entry
        )
        found = make(
            url=expand(url),
            transport="sse" if sse else "http",
            headers={k: expand(v) for k, v in _headers(entry, env).items()},
            disabled=disabled,
        )
    else:
        return make(disabled=disabled, unresolved="neither a command nor a url")
    if missing:
        return replace(
            found, unresolved=f"uses {', '.join(dict.fromkeys(missing))}, which is not set here"
        )
    return found


def names_project(
    found: Server, project: Path, env: Mapping[str, str], home: Path | None = None
) -> bool:
    """Whether a stdio server, as expanded, runs in or names the project, the checkout: a ``cwd``
    in it or relative (a client resolves it there), or a command, argument or variable naming a
    path in it (``${workspaceFolder}``, ``${env:PWD}``, the path written out). Whatever the file
    that configures it, what it starts then reads what the repository put there: `node
    ${workspaceFolder}/build/index.js` runs the checkout's code, `npx foo-mcp` started there its
    ``node_modules/.bin/foo-mcp``, `uvx` its ``uv.toml`` (review AT). A path reaching it another way
    counts too: through a link, ``..``, ``~``, relative to the start, a ``PATH`` entry in it
    (``reach.reached``, review AW). Never when the project holds the user's home (doctor run there): a
    checkout is no such place."""
    real = os.path.realpath(project)
    if home is not None and reach.within(os.path.realpath(home), real):
        return False
    if found.cwd is not None and (
        not os.path.isabs(found.cwd) or reach.within(os.path.realpath(found.cwd), real)
    ):
        return True
    spellings = {str(project), real}
    logical = env.get("PWD")
    if logical and os.path.isabs(logical) and os.path.realpath(logical) == real:
        spellings.add(logical)
    # the path, then nothing that goes on with its last name
    named = re.compile(
        "|".join(re.escape(place.rstrip("/\\")) for place in sorted(spellings)) + r"(?![\w.~+@-])"
    )
    values = [found.command or "", *found.args, *found.env.values(), found.cwd or ""]
    if any(named.search(value) for value in values):
        return True
    home_text = os.fspath(home) if home is not None else os.path.expanduser("~")
    return any(
        reach.within(place, real) for place in reach.reached(found, values, home_text, env, real)
    )


def entries(
    target: clients.Target,
    data: Mapping[str, Any],
    project: Path,
    home: Path,
    env: Mapping[str, str] | None = None,
) -> Iterator[Server]:
    """Every server in one parsed file; Claude Code's ``~/.claude.json`` also holds the local scope
    (``projects[<this project>].mcpServers``)."""
    servers = data.get(target.key)
    if isinstance(servers, dict):
        for name, entry in servers.items():
            yield server(target, str(name), entry, project, home, env)
    if target.client == "claude-code" and target.scope == "user":
        local = (data.get("projects") or {}).get(str(project)) or {}
        for name, entry in (
            (local.get("mcpServers") or {}).items() if isinstance(local, dict) else ()
        ):
            yield server(target, str(name), entry, project, home, env, scope="local")


def configured(
    home: Path, project: Path, env: Mapping[str, str] | None = None, platform: str | None = None
) -> Iterator[Server]:
    """Every server in every config file that exists and parses (the mcp checks report the
    others)."""
    for client in clients.CLIENTS:
        for target in clients.targets(client, home, project, env=env, platform=platform).values():
            if not target.path.is_file():
                continue
            try:
                data = read(target)
            except (OSError, HindsightError, tomllib.TOMLDecodeError):
                continue
            yield from entries(target, data, project, home, env)
