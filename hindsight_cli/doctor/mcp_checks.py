"""Checks of MCP client set-ups: each known config file on this OS, hindsight's entry in it, then a
live handshake with every configured server it can start (hindsight's, started the way a host starts
it with a minimal environment, and every other stdio server or loopback HTTP server).

A file of project scope came with the checkout, and whoever wrote the repository chose its commands,
their environment and its URLs' headers: nothing it names is started or contacted unless the user asks
(``probe_project``), except hindsight's own entry exactly as ``mcp install`` writes it (this
installation's command, ``mcp`` and at most ``--store``, no environment but hindsight's)."""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .. import clients
from ..errors import HindsightError
from ..timeutil import check_wait
from . import Check, fail, handshake as probes, mcp_fixes, ok, skip, warn
from .servers import Server, entries, read

HANDSHAKE_TIMEOUT = probes.DEFAULT_TIMEOUT
# other servers are probed a few at a time: each waits on its own process
_PARALLEL = 4


def run(
    home: Path | None = None,
    project: Path | None = None,
    probe: bool = True,
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
    fix: bool = False,
    timeout: float = HANDSHAKE_TIMEOUT,
    probe_project: bool = False,
) -> list[Check]:
    """``fix``: apply the safe fixes of :mod:`mcp_fixes` (with backups) before checking each file.
    ``timeout``: seconds each server gets to answer each handshake step. ``probe_project``: also
    start what a project's own files name (the user trusts the checkout)."""
    check_wait(timeout)
    home = home or Path.home()
    project = project or Path.cwd()
    items: list[Check | Server] = []
    found = False
    for client in clients.CLIENTS:
        for target in clients.targets(client, home, project, env=env, platform=platform).values():
            if not target.path.exists():
                continue
            found = True
            if fix:
                items.extend(mcp_fixes.fix(target))
            items.extend(
                check_target(
                    target,
                    probe,
                    timeout=timeout,
                    home=home,
                    project=project,
                    env=env,
                    probe_project=probe_project,
                )
            )
    if not found:
        items.append(
            skip(
                "mcp.configs",
                "no MCP client config files found",
                "run `hindsight mcp install --client <name>` to add one",
            )
        )
    return _probe_others(items, timeout)


def _parse(target: clients.Target) -> tuple[dict[str, Any] | None, Check | None]:
    name = f"mcp.{target.client}.{target.scope}"
    try:
        return read(target), None
    except (HindsightError, tomllib.TOMLDecodeError) as error:
        return None, fail(
            f"{name}.parse",
            f"{target.path} does not parse",
            str(error).splitlines()[0],
            "fix the syntax (the client silently loads no servers from a broken file)",
        )
    except OSError as error:
        return None, fail(
            f"{name}.parse",
            f"{target.path} cannot be read",
            str(error),
            "fix its permissions: the client cannot read it either",
        )


def _misplaced(target: clients.Target, data: Mapping[str, Any]) -> Check | None:
    for wrong in mcp_fixes.WRONG_KEYS:
        if (
            wrong != target.key
            and isinstance(data.get(wrong), dict)
            and clients.SERVER_NAME in data[wrong]
        ):
            return fail(
                f"mcp.{target.client}.{target.scope}.key",
                f"hindsight is under {wrong!r}, which {target.client} ignores",
                str(target.path),
                f"move it under {target.key!r}: `hindsight doctor mcp --fix` "
                "does it (with a backup)",
            )
    return None


def check_target(
    target: clients.Target,
    probe: bool = True,
    timeout: float = HANDSHAKE_TIMEOUT,
    home: Path | None = None,
    project: Path | None = None,
    env: Mapping[str, str] | None = None,
    probe_project: bool = False,
) -> list[Check | Server]:
    """hindsight's entry in one file, checked now; every other server, returned to be probed (or,
    in a project's file without ``probe_project``, reported as not started)."""
    name = f"mcp.{target.client}.{target.scope}"
    data, problem = _parse(target)
    if data is None:
        return [problem] if problem else []
    listed = [
        s
        for s in entries(target, data, project or Path.cwd(), home or Path.home(), env)
        if s.name != clients.SERVER_NAME or s.scope != target.scope or s.url
    ]
    chosen = target.root is not None and not probe_project
    # a server of any file that runs in the checkout, or names it, reads what the repository put
    # there: started as a project's own is (``servers.names_project``)
    others: list[Check | Server] = (
        []
        if not probe
        else [
            _not_started(s) if chosen or (s.in_project and not probe_project) else s for s in listed
        ]
    )
    servers = data.get(target.key)
    if servers is None:
        moved = _misplaced(target, data)
        return [
            moved
            or skip(name, f"{target.client} ({target.scope}) has no MCP servers", str(target.path)),
            *others,
        ]
    entry = servers.get(clients.SERVER_NAME) if isinstance(servers, dict) else None
    if entry is None:
        return [
            skip(
                name, f"{target.client} ({target.scope}) does not run hindsight", str(target.path)
            ),
            *others,
        ]
    if not isinstance(entry, dict):
        return [
            fail(
                f"{name}.entry",
                "the hindsight entry is not an object",
                repr(entry)[:120],
                f"`hindsight mcp install --client {target.client} --scope {target.scope}` "
                f"rewrites it",
            ),
            *others,
        ]
    wrong = clients.entry_problem(entry)
    if wrong:
        return [
            fail(
                f"{name}.entry",
                f"the hindsight entry's {wrong}",
                str(target.path),
                f"`hindsight mcp install --client {target.client} --scope {target.scope}` "
                f"rewrites it",
            ),
            *others,
        ]
    head = ok(f"{name}.entry", f"{target.client} ({target.scope}) runs hindsight", str(target.path))
    if not entry.get("command") and (
        entry.get("url") or entry.get("serverUrl") or entry.get("httpUrl")
    ):
        # hindsight over HTTP: probed like any other server
        return [head, *others]
    return [
        head,
        *_hindsight_entry(
            name, target, entry, probe, timeout, chosen and not clients.is_ours(entry)
        ),
        *others,
    ]


_NOT_STARTED = (
    "look at it first; if you trust this checkout, `hindsight doctor mcp --probe-project` starts it"
)


def _not_started(server: Server) -> Check:
    """A project's server, or one that runs in the project or names it, reported without being
    started: the repository chose what it runs."""
    how = " ".join(server.argv) if server.command else str(server.url)
    why = (
        "it runs in this checkout or names it, whose files then choose what runs"
        if server.in_project and server.scope != "project"
        else f"the checkout's own {server.path.name} chose what it runs"
    )
    return skip(
        f"mcp.{server.client}.{server.scope}.{server.name}.handshake",
        f"{server.name} ({server.where}) not started: {why}",
        f"{how}; {server.path}",
        _NOT_STARTED,
    )


def _hindsight_entry(
    name: str,
    target: clients.Target,
    entry: dict[str, Any],
    probe: bool,
    timeout: float,
    chosen: bool = False,
) -> list[Check]:
    checks: list[Check] = []
    command: Any = entry.get("command")
    args = [str(a) for a in entry.get("args") or []]
    reinstall = f"`hindsight mcp install --client {target.client} --scope {target.scope}`"
    # Zed's older nested form
    if isinstance(command, dict):
        command, args = command.get("path"), [str(a) for a in command.get("args") or []]
    if not command or not Path(str(command)).is_absolute():
        how = (
            "`hindsight doctor mcp --fix` makes it absolute"
            if Path(str(command)).stem == "hindsight"
            else f"{reinstall} writes the absolute path"
        )
        checks.append(
            fail(
                f"{name}.command",
                "the command is not an absolute path",
                f"command = {command!r}",
                f"clients start servers with a minimal PATH; {how}",
            )
        )
        return checks
    if not os.access(str(command), os.X_OK):
        checks.append(
            fail(
                f"{name}.command",
                "the command does not exist or is not executable",
                str(command),
                f"reinstall hindsight or run {reinstall} from the environment it is installed in",
            )
        )
        return checks
    checks.append(ok(f"{name}.command", "command is absolute and executable", str(command)))
    checks.append(_store(name, args, reinstall))
    if (sys.platform == "win32") and entry.get("env", {}).get("PYTHONUTF8") != "1":
        checks.append(
            warn(
                f"{name}.encoding",
                "PYTHONUTF8 is not set",
                "non-ASCII text may be garbled",
                'add "PYTHONUTF8": "1" to the entry\'s env',
            )
        )
    seconds = None
    if probe and chosen:
        checks.append(
            skip(
                f"{name}.handshake",
                f"not started: the checkout's own {target.path.name} chose the command, its "
                "arguments or its environment (not what `hindsight mcp install` writes)",
                " ".join([str(command), *args]),
                _NOT_STARTED,
            )
        )
    elif probe and (missing := _missing_store(args, target.root)) is not None:
        checks.append(
            skip(
                f"{name}.handshake",
                "not started: its store does not exist yet, and a start would make it there",
                str(missing),
                f"`hindsight init --store {missing}` makes it, if it is yours",
            )
        )
    elif probe:
        # a project's entry where its client starts it (a `--store` relative to the project)
        where = str(target.root) if target.root is not None else None
        result = handshake(str(command), args, entry.get("env") or {}, timeout, where)
        checks.append(_probe_check(name, result, timeout))
        seconds = result.get("seconds")
    if target.client == "codex":
        checks.extend(codex_timeouts(name, entry, seconds))
    return checks


def _missing_store(args: list[str], root: Path | None) -> Path | None:
    """The store an entry's ``--store`` names when a server started would make it there (nothing
    there, or an empty directory: ``trust.would_make``): ``doctor`` never starts such a server,
    which would make a store and approve it at a path the config chose (a checkout's own project
    config may name any; review AR)."""
    from ..safefs import trust

    named = _store_arg(args)
    if named is None:
        return None
    store = Path(named).expanduser()
    if not store.is_absolute() and root is not None:
        store = root / store
    return store if trust.would_make(store) else None


def _store_arg(args: list[str]) -> str | None:
    """What an entry's ``--store`` names, if it names one."""
    if "--store" not in args or args.index("--store") + 1 >= len(args):
        return None
    return args[args.index("--store") + 1]


def _store(name: str, args: list[str], reinstall: str) -> Check:
    named = _store_arg(args)
    if named is None:
        return warn(
            f"{name}.store",
            "no --store pinned",
            " ".join(args),
            f"the server then picks a store from its working directory; {reinstall} pins one",
        )
    store = Path(named)
    parent = store if store.exists() else store.parent
    if not store.is_absolute():
        return fail(
            f"{name}.store",
            "--store is a relative path",
            str(store),
            "hosts start servers with cwd `/`: use an absolute path",
        )
    if not os.access(parent, os.W_OK):
        return fail(
            f"{name}.store",
            "the store path is not writable",
            str(store),
            f"fix the permissions of {parent} or point --store elsewhere",
        )
    return ok(f"{name}.store", "store path is absolute and writable", str(store))


def codex_timeouts(name: str, entry: Mapping[str, Any], seconds: float | None) -> list[Check]:
    """Codex's startup_timeout_sec against the measured start-up, and tool_timeout_sec against a
    cold search."""
    startup = mcp_fixes.codex_startup_timeout(dict(entry))
    shown = f"startup_timeout_sec = {startup:g}" + (
        ""
        if "startup_timeout_sec" in entry or "startup_timeout_ms" in entry
        else " (Codex's default)"
    )
    measured = f"; start-up measured {seconds:.2f} s" if seconds is not None else ""
    needed = max(mcp_fixes.CODEX_MIN_STARTUP, 3 * (seconds or 0))
    checks = []
    if seconds is not None and seconds >= startup:
        checks.append(
            fail(
                f"{name}.timeout",
                "Codex gives up before hindsight has started",
                shown + measured,
                f"set startup_timeout_sec = {max(30, int(needed) + 1)} in the entry",
            )
        )
    elif startup < needed:
        why = (
            "too close to the measured start-up"
            if seconds is not None and 3 * seconds > startup
            else f"below {mcp_fixes.CODEX_MIN_STARTUP:g} s"
        )
        checks.append(
            warn(
                f"{name}.timeout",
                f"Codex's start-up timeout is {why}; a cold start (first run after "
                "an install or a reboot) takes several times longer",
                shown + measured,
                f"set startup_timeout_sec = {max(30, int(needed) + 1)}; `hindsight doctor mcp "
                f"--fix` "
                "writes 30",
            )
        )
    else:
        checks.append(
            ok(f"{name}.timeout", "Codex's start-up timeout leaves room", shown + measured)
        )
    tool = entry.get("tool_timeout_sec")
    if isinstance(tool, (int, float)) and tool < 10:
        checks.append(
            warn(
                f"{name}.tool-timeout",
                "tool_timeout_sec is short for the first memory_search",
                f"tool_timeout_sec = {tool:g}; the first search loads the embedding model (about "
                f"4 s)",
                "set tool_timeout_sec = 60 (Codex's default) or remove it",
            )
        )
    return checks


def _probe_check(name: str, result: dict[str, Any], timeout: float) -> Check:
    outcome = result["outcome"]
    if outcome == "ok":
        seconds = result["seconds"]
        return ok(
            f"{name}.handshake",
            f"server answered initialize in {seconds:.2f} s and lists memory_search",
            result.get("server", ""),
        )
    return fail(
        f"{name}.handshake",
        f"handshake failed: {outcome}",
        result.get("evidence", ""),
        _FIXES.get(outcome, "run the exact command in a terminal to see the error").format(
            timeout=timeout
        ),
    )


_FIXES = {
    "not-found": "the command does not exist; reinstall, then rerun `hindsight mcp install`",
    "crashed": "run the exact command in a terminal to see the error; reinstall if imports fail",
    "timeout": "the server did not answer within {timeout:g} s; check what it waits for (a lock, "
    "a slow disk, "
    "a download on first start)",
    "polluted": "something prints to stdout before the protocol starts (a banner, a shell rc "
    "file); remove it",
    "no-tools": "the server answered but hindsight's tools are missing: the command starts "
    "another program",
    "refused": "the server answered with an error; see the evidence",
    "not-mcp": "the command is not an MCP server (a real one answers initialize with "
    "protocolVersion, capabilities and serverInfo): point the entry at the server's executable",
    "unauthorized": "the server wants credentials: put the token in the entry's headers "
    "(Authorization: Bearer …)",
    "unreachable": "nothing answers at that URL: start the server, or fix the host and port",
}


def handshake(
    command: str,
    args: list[str],
    env: Mapping[str, str],
    timeout: float = HANDSHAKE_TIMEOUT,
    cwd: str | None = None,
) -> dict[str, Any]:
    """Start hindsight's server as a host does (minimal environment), send initialize and
    tools/list."""
    return probes.stdio(command, args, env, timeout=timeout, need_tool="memory_search", cwd=cwd)


# --- every other configured server
# ----------------------------------------------------------------------


def _probe(server: Server, timeout: float) -> dict[str, Any]:
    if server.disabled:
        return {"outcome": "skipped", "evidence": "disabled in the config"}
    if server.unresolved:
        return {"outcome": "skipped", "evidence": server.unresolved}
    if server.transport == "sse":
        return {
            "outcome": "skipped",
            "evidence": f"{server.url}: the legacy SSE transport is not probed",
        }
    if server.url:
        return probes.http(server.url, server.headers, timeout=timeout)
    assert server.command is not None
    # Third-party commands are looked up on this shell's PATH, as terminal clients do; a GUI client
    # with a shorter PATH may still not find a bare `npx` (the evidence shows which one was run).
    path = os.environ.get("PATH", "")
    return probes.stdio(
        server.command, list(server.args), server.env, timeout=timeout, path=path, cwd=server.cwd
    )


def _key(server: Server) -> tuple[Any, ...]:
    return (
        server.command,
        server.args,
        tuple(sorted(server.env.items())),
        server.cwd,
        server.url,
        tuple(sorted(server.headers.items())),
        server.disabled,
        server.unresolved,
        server.transport,
    )


def _server_check(server: Server, result: dict[str, Any], timeout: float) -> Check:
    name = f"mcp.{server.client}.{server.scope}.{server.name}.handshake"
    how = " ".join(server.argv) if server.command else str(server.url)
    outcome = result["outcome"]
    if outcome == "skipped":
        return skip(name, f"{server.name} ({server.where}) not started", result["evidence"])
    if outcome == "ok":
        tools = result.get("tools")
        listed = f", {len(tools)} tool{'s' if len(tools) != 1 else ''}" if tools is not None else ""
        return ok(
            name,
            f"{server.name} ({server.where}) answered initialize in {result['seconds']:.2f} s",
            f"{result['server']}{listed}; {how}",
        )
    return fail(
        name,
        f"{server.name} ({server.where}): handshake failed: {outcome}",
        f"{result.get('evidence', '')}; {how}",
        _FIXES.get(outcome, "run the exact command in a terminal to see the error").format(
            timeout=timeout
        ),
    )


def _probe_others(items: list[Check | Server], timeout: float) -> list[Check]:
    """Probe each distinct server once (several at a time) and put its check where it was found."""
    pending = {_key(i): i for i in items if isinstance(i, Server)}
    with ThreadPoolExecutor(max_workers=_PARALLEL) as pool:
        results = dict(zip(pending, pool.map(lambda s: _probe(s, timeout), pending.values())))
    return [
        _server_check(i, results[_key(i)], timeout) if isinstance(i, Server) else i for i in items
    ]
