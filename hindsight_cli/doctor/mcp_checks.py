"""Checks of MCP client set-ups: each known config file on this OS, then a live handshake with every
configured hindsight server, started the way a host starts it (a minimal environment)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import clients
from ..errors import HindsightError
from . import Check, fail, mcp_fixes, ok, skip, warn

HANDSHAKE_TIMEOUT = 10.0  # the strictest client's default start-up timeout (Codex)


def run(home: Path | None = None, project: Path | None = None, probe: bool = True,
        env: Mapping[str, str] | None = None, platform: str | None = None, fix: bool = False) -> list[Check]:
    """``fix``: apply the safe fixes of :mod:`mcp_fixes` (with backups) before checking each file."""
    home = home or Path.home()
    project = project or Path.cwd()
    checks: list[Check] = []
    found = False
    for client in clients.CLIENTS:
        for target in clients.targets(client, home, project, env=env, platform=platform).values():
            if not target.path.exists():
                continue
            found = True
            if fix:
                checks.extend(mcp_fixes.fix(target))
            checks.extend(check_target(target, probe))
    if not found:
        checks.append(skip("mcp.configs", "no MCP client config files found",
                           "run `hindsight mcp install --client <name>` to add one"))
    return checks


def _entry(target: clients.Target) -> tuple[dict[str, Any] | None, Check | None]:
    name = f"mcp.{target.client}.{target.scope}"
    text = target.path.read_text(encoding="utf-8", errors="replace")
    try:
        if target.fmt == "toml":
            data = tomllib.loads(text)
        else:
            data, _ = clients.load_json(target, text)
    except (HindsightError, tomllib.TOMLDecodeError) as error:
        return None, fail(f"{name}.parse", f"{target.path} does not parse", str(error).splitlines()[0],
                          "fix the syntax (the client silently loads no servers from a broken file)")
    servers = data.get(target.key)
    if servers is None:
        for wrong in ("mcpServers", "servers", "mcp_servers", "context_servers"):
            if wrong != target.key and isinstance(data.get(wrong), dict) and "hindsight" in data[wrong]:
                return None, fail(f"{name}.key", f"hindsight is under {wrong!r}, which {target.client} ignores",
                                  str(target.path), f"move it under {target.key!r}: `hindsight doctor mcp --fix` "
                                  "does it (with a backup)")
        return None, skip(f"{name}", f"{target.client} ({target.scope}) has no MCP servers", str(target.path))
    entry = servers.get(clients.SERVER_NAME) if isinstance(servers, dict) else None
    if entry is None:
        return None, skip(f"{name}", f"{target.client} ({target.scope}) does not run hindsight", str(target.path))
    if not isinstance(entry, dict):
        return None, fail(f"{name}.entry", "the hindsight entry is not an object", repr(entry)[:120],
                          f"`hindsight mcp install --client {target.client} --scope {target.scope}` rewrites it")
    return entry, None


def check_target(target: clients.Target, probe: bool = True) -> list[Check]:
    name = f"mcp.{target.client}.{target.scope}"
    entry, problem = _entry(target)
    if problem is not None:
        return [problem]
    assert entry is not None
    checks = [ok(f"{name}.entry", f"{target.client} ({target.scope}) runs hindsight", str(target.path))]
    command = entry.get("command")
    args = [str(a) for a in entry.get("args", [])]
    reinstall = f"`hindsight mcp install --client {target.client} --scope {target.scope}`"
    if isinstance(command, dict):  # Zed's older nested form
        command, args = command.get("path"), [str(a) for a in command.get("args", [])]
    if not command or not Path(str(command)).is_absolute():
        how = "`hindsight doctor mcp --fix` makes it absolute" if Path(str(command)).stem == "hindsight" \
            else f"{reinstall} writes the absolute path"
        checks.append(fail(f"{name}.command", "the command is not an absolute path", f"command = {command!r}",
                           f"clients start servers with a minimal PATH; {how}"))
        return checks
    if not os.access(str(command), os.X_OK):
        checks.append(fail(f"{name}.command", "the command does not exist or is not executable", str(command),
                           f"reinstall hindsight or run {reinstall} from the environment it is installed in"))
        return checks
    checks.append(ok(f"{name}.command", "command is absolute and executable", str(command)))
    if "--store" in args and args.index("--store") + 1 < len(args):
        store = Path(args[args.index("--store") + 1])
        parent = store if store.exists() else store.parent
        if not store.is_absolute():
            checks.append(fail(f"{name}.store", "--store is a relative path", str(store),
                               "hosts start servers with cwd `/`: use an absolute path"))
        elif not os.access(parent, os.W_OK):
            checks.append(fail(f"{name}.store", "the store path is not writable", str(store),
                               f"fix the permissions of {parent} or point --store elsewhere"))
        else:
            checks.append(ok(f"{name}.store", "store path is absolute and writable", str(store)))
    else:
        checks.append(warn(f"{name}.store", "no --store pinned", " ".join(args),
                           f"the server then picks a store from its working directory; {reinstall} pins one"))
    if (sys.platform == "win32") and entry.get("env", {}).get("PYTHONUTF8") != "1":
        checks.append(warn(f"{name}.encoding", "PYTHONUTF8 is not set", "non-ASCII text may be garbled",
                           "add \"PYTHONUTF8\": \"1\" to the entry's env"))
    seconds = None
    if probe:
        result = handshake(str(command), args, entry.get("env") or {})
        checks.append(_probe_check(name, result))
        seconds = result.get("seconds")
    if target.client == "codex":
        checks.extend(codex_timeouts(name, entry, seconds))
    return checks


def codex_timeouts(name: str, entry: Mapping[str, Any], seconds: float | None) -> list[Check]:
    """Codex's startup_timeout_sec against the measured start-up, and tool_timeout_sec against a cold search."""
    startup = mcp_fixes.codex_startup_timeout(dict(entry))
    shown = f"startup_timeout_sec = {startup:g}" + ("" if "startup_timeout_sec" in entry or
                                                     "startup_timeout_ms" in entry else " (Codex's default)")
    measured = f"; start-up measured {seconds:.2f} s" if seconds is not None else ""
    needed = max(mcp_fixes.CODEX_MIN_STARTUP, 3 * (seconds or 0))
    checks = []
    if seconds is not None and seconds >= startup:
        checks.append(fail(f"{name}.timeout", "Codex gives up before hindsight has started", shown + measured,
                           f"set startup_timeout_sec = {max(30, int(needed) + 1)} in the entry"))
    elif startup < needed:
        why = "too close to the measured start-up" if seconds is not None and 3 * seconds > startup \
            else f"below {mcp_fixes.CODEX_MIN_STARTUP:g} s"
        checks.append(warn(f"{name}.timeout", f"Codex's start-up timeout is {why}; a cold start (first run after "
                           "an install or a reboot) takes several times longer", shown + measured,
                           f"set startup_timeout_sec = {max(30, int(needed) + 1)}; `hindsight doctor mcp --fix` "
                           "writes 30"))
    else:
        checks.append(ok(f"{name}.timeout", "Codex's start-up timeout leaves room", shown + measured))
    tool = entry.get("tool_timeout_sec")
    if isinstance(tool, (int, float)) and tool < 10:
        checks.append(warn(f"{name}.tool-timeout", "tool_timeout_sec is short for the first memory_search",
                           f"tool_timeout_sec = {tool:g}; the first search loads the embedding model (about 4 s)",
                           "set tool_timeout_sec = 60 (Codex's default) or remove it"))
    return checks


def _probe_check(name: str, result: dict[str, Any]) -> Check:
    outcome = result["outcome"]
    if outcome == "ok":
        seconds = result["seconds"]
        return ok(f"{name}.handshake", f"server answered initialize in {seconds:.2f} s and lists memory_search")
    fixes = {
        "not-found": "the command does not exist; reinstall, then rerun `hindsight mcp install`",
        "crashed": "run the exact command in a terminal to see the error; reinstall if imports fail",
        "timeout": "the server did not answer within 10 s; check what it waits for (a lock, a slow disk)",
        "polluted": "something prints to stdout before the protocol starts (a banner, a shell rc file); remove it",
        "no-tools": "the server answered but hindsight's tools are missing: the command starts another program",
    }
    return fail(f"{name}.handshake", f"handshake failed: {outcome}", result.get("evidence", ""), fixes[outcome])


def handshake(command: str, args: list[str], env: Mapping[str, str], timeout: float = HANDSHAKE_TIMEOUT) -> dict[str, Any]:
    """Start a server as a host does (minimal environment), send initialize and tools/list."""
    base = {key: os.environ[key] for key in ("HOME", "LOGNAME", "USER", "SHELL", "TERM", "SYSTEMROOT", "APPDATA",
                                             "USERPROFILE", "TEMP", "HINDSIGHT_HOME") if key in os.environ}
    base["PATH"] = "/usr/bin:/bin" if os.name != "nt" else os.environ.get("PATH", "")
    started = time.monotonic()
    try:
        proc = subprocess.Popen([command, *args], env={**base, **env}, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    except OSError as error:
        return {"outcome": "not-found", "evidence": str(error)}
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True)  # type: ignore[union-attr]
    reader.start()
    try:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "hindsight-doctor", "version": "1"}}}) + "\n")
        proc.stdin.flush()
        reply = _wait(lines, 1, proc, started + timeout, timeout)
        if reply.get("outcome"):
            return reply
        seconds = time.monotonic() - started
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}) + "\n")
        proc.stdin.flush()
        tools = _wait(lines, 2, proc, time.monotonic() + timeout, timeout)
        if tools.get("outcome"):
            return tools
        names = [t.get("name") for t in tools.get("result", {}).get("tools", [])]
        if "memory_search" not in names:
            return {"outcome": "no-tools", "evidence": f"tools: {names}"}
        return {"outcome": "ok", "seconds": seconds}
    except (BrokenPipeError, OSError):
        return {"outcome": "crashed", "evidence": _stderr_tail(proc)}
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def _wait(lines: list[str], message_id: int, proc: subprocess.Popen, deadline: float,
          timeout: float) -> dict[str, Any]:
    seen = 0
    while time.monotonic() < deadline:
        while seen < len(lines):
            line = lines[seen]
            seen += 1
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                return {"outcome": "polluted", "evidence": f"stdout line {seen}: {line.strip()[:120]!r}"}
            if message.get("id") == message_id:
                return message
        if proc.poll() is not None and seen >= len(lines):
            time.sleep(0.05)
            if seen >= len(lines):
                return {"outcome": "crashed", "evidence": _stderr_tail(proc)}
        time.sleep(0.02)
    return {"outcome": "timeout", "evidence": f"no reply within {timeout:g} s"}


def _stderr_tail(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        proc.kill()
    try:
        err = proc.stderr.read() if proc.stderr else ""  # type: ignore[union-attr]
    except (OSError, ValueError):
        err = ""
    tail = " | ".join(line for line in err.strip().splitlines()[-3:])
    return f"exit code {proc.returncode}: {tail}" if tail else f"exit code {proc.returncode}"
