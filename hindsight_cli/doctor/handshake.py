"""Live MCP handshakes: start a stdio server the way a host does, or POST to a loopback HTTP one,
and send ``initialize`` (then ``tools/list``) with a bounded wait.

Raw JSON-RPC, not the MCP SDK's client: doctor imports no MCP library, and the SDK's client skips a
non-JSON stdout line that real hosts choke on, which is exactly what a probe must catch. Every wait
is a queue read or a process wait with a deadline, so a hung server costs at most the timeout.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Mapping
from typing import Any

from .. import safefs

# the strictest client's default start-up timeout (Codex)
DEFAULT_TIMEOUT = 10.0
PROTOCOL = "2025-06-18"
# seconds a server gets to exit on its own once its stdin is closed, then on SIGTERM
_GRACE = 0.5
# What hosts pass on to a server (plus the entry's env); hindsight's own HINDSIGHT_HOME too.
_HOST_ENV = (
    "HOME",
    "LOGNAME",
    "USER",
    "SHELL",
    "TERM",
    "TMPDIR",
    "LANG",
    "SYSTEMROOT",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
    "TEMP",
    "PATHEXT",
    "HINDSIGHT_HOME",
    "HINDSIGHT_ALLOWED_DIR",
)
_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": PROTOCOL,
        "capabilities": {},
        "clientInfo": {"name": "hindsight-doctor", "version": "1"},
    },
}


# the methods doctor sends, which only a client sends
_OURS = ("initialize", "tools/list")


def _object(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one: a server's reply is not trusted to be
    well formed."""
    return value if isinstance(value, dict) else {}


def not_initialize_result(message: Mapping[str, Any]) -> str | None:
    """Why a reply to ``initialize`` is not one an MCP server gives (None when it is)."""
    result = message.get("result")
    if not isinstance(result, dict):
        return "the reply has no result object"
    missing = [
        key
        for key, kind in (("protocolVersion", str), ("capabilities", dict), ("serverInfo", dict))
        if not isinstance(result.get(key), kind)
    ]
    if missing:
        return f"the initialize result lacks {', '.join(missing)}"
    return None


def _describe(result: dict[str, Any]) -> str:
    info = _object(result.get("serverInfo"))
    name = (
        " ".join(str(info[k]) for k in ("name", "version") if info.get(k))
        or "a server with no serverInfo"
    )
    return f"{name} (protocol {result.get('protocolVersion', '?')})"


class _Process:
    """A started server: stdout lines arrive on a queue (None at end of file), stderr keeps its
    tail."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.lines: queue.Queue[str | None] = queue.Queue()
        # read all the time, so a chatty server never blocks on it
        self.stderr: deque[str] = deque(maxlen=20)
        self.readers = [
            threading.Thread(
                target=self._pump, args=(proc.stdout, self.lines.put, True), daemon=True
            ),
            threading.Thread(
                target=self._pump, args=(proc.stderr, self.stderr.append, False), daemon=True
            ),
        ]
        for reader in self.readers:
            reader.start()

    @staticmethod
    def _pump(stream: Any, put: Any, mark_end: bool) -> None:
        try:
            for line in iter(stream.readline, ""):
                put(line)
        except (OSError, ValueError):
            pass
        if mark_end:
            put(None)

    def send(self, *messages: Mapping[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages))
        self.proc.stdin.flush()

    def wait_for(self, message_id: int, deadline: float, timeout: float) -> dict[str, Any]:
        """The reply with this id, or an outcome: polluted stdout, a crash, or the deadline
        passing."""
        seen = 0
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=remaining)
            except queue.Empty:
                break
            if line is None:
                return {"outcome": "crashed", "evidence": self.tail(exited=True)}
            seen += 1
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                return {
                    "outcome": "polluted",
                    "evidence": f"stdout line {seen}: {line.strip()[:120]!r}",
                }
            if isinstance(message, dict) and message.get("id") == message_id:
                if message.get("method") in _OURS:
                    # a server never sends these: this is our own request, echoed (`cat`)
                    return {
                        "outcome": "not-mcp",
                        "evidence": f"stdout line {seen} is a request ({message['method']!r}), "
                        f"not a reply: the command echoes its input",
                    }
                if "method" in message:
                    # the server's own request (a ping) that happens to use our id: not the reply
                    continue
                if isinstance(message.get("error"), dict):
                    error = message["error"]
                    return {
                        "outcome": "refused",
                        "evidence": f"error {error.get('code')}: {error.get('message')}",
                    }
                return message
        tail = self.tail()
        return {
            "outcome": "timeout",
            "evidence": f"no reply within {timeout:g} s" + (f"; stderr: {tail}" if tail else ""),
        }

    def tail(self, exited: bool = False) -> str:
        """The last stderr lines; after end of file, with the exit code."""
        if exited:
            try:
                self.proc.wait(timeout=_GRACE * 2)
            except subprocess.TimeoutExpired:
                pass
            self.readers[1].join(timeout=_GRACE)
        text = " | ".join(line.strip() for line in list(self.stderr)[-3:] if line.strip())
        if not exited:
            return text
        code = self.proc.returncode
        head = f"exit code {code}" if code is not None else "stdout closed"
        return f"{head}: {text}" if text else head

    def close(self) -> None:
        """Close stdin (a server exits at end of input; `docker run -i --rm` then removes its
        container), then SIGTERM and SIGKILL the whole process group if it lingers."""
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except OSError:
            pass
        for stop in (None, signal.SIGTERM, getattr(signal, "SIGKILL", signal.SIGTERM)):
            if stop is not None:
                self._signal(stop)
            try:
                self.proc.wait(timeout=_GRACE)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            self.proc.kill()
            self.proc.wait()
        if os.name != "nt":
            # what the server left behind in its group does not outlive doctor
            self._signal(signal.SIGKILL)

    def _signal(self, stop: int) -> None:
        try:
            if os.name == "nt":
                self.proc.kill()
            else:
                # npx, uvx and docker start children of their own
                os.killpg(self.proc.pid, stop)
        except OSError:
            pass


def host_env(env: Mapping[str, str], path: str | None = None) -> dict[str, str]:
    """The environment a host gives a server: a short allowlist, a PATH, then the entry's own
    env."""
    base = {key: os.environ[key] for key in _HOST_ENV if key in os.environ}
    base["PATH"] = (
        path
        if path is not None
        else ("/usr/bin:/bin" if os.name != "nt" else os.environ.get("PATH", ""))
    )
    return {**base, **env}


def stdio(
    command: str,
    args: list[str],
    env: Mapping[str, str],
    timeout: float = DEFAULT_TIMEOUT,
    need_tool: str | None = None,
    path: str | None = None,
    cwd: str | None = None,
) -> dict[str, Any]:
    """Start a server, send initialize and, when it offers tools (or ``need_tool`` is set),
    tools/list.

    Returns ``outcome`` (ok, not-found, crashed, timeout, polluted, refused, not-mcp, no-tools),
    ``evidence`` and, on success, ``seconds`` (to the initialize reply), ``server`` and ``tools``.

    Started in ``cwd``, else the user's home, never in the working directory: doctor runs in a
    checkout, and a server's launcher reads it (`npx` runs the checkout's `node_modules/.bin/` of
    the package's name, `uvx` its `uv.toml`); a bare command is found in the absolute directories
    of the server's ``PATH`` only (``safefs.program``), never in the checkout through an empty or
    relative entry (review AR).
    """
    started = time.monotonic()
    environment = host_env(env, path)
    program = (
        command
        if os.path.dirname(command)
        else safefs.program(command, environment.get("PATH", ""))
    )
    if program is None:
        return {
            "outcome": "not-found",
            "evidence": f"{command}: not in the absolute directories of PATH",
        }
    try:
        proc = subprocess.Popen(
            [program, *args],
            env=environment,
            cwd=cwd or os.path.expanduser("~"),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=os.name != "nt",
        )
    except OSError as error:
        return {"outcome": "not-found", "evidence": str(error)}
    server = _Process(proc)
    try:
        server.send(_INITIALIZE)
        reply = server.wait_for(1, started + timeout, timeout)
        if reply.get("outcome"):
            return reply
        if (problem := not_initialize_result(reply)) is not None:
            return {"outcome": "not-mcp", "evidence": f"{problem}: {json.dumps(reply)[:120]}"}
        seconds = time.monotonic() - started
        result = _object(reply.get("result"))
        found: dict[str, Any] = {
            "outcome": "ok",
            "seconds": seconds,
            "server": _describe(result),
            "tools": None,
        }
        if need_tool is None and "tools" not in _object(result.get("capabilities")):
            return found
        server.send(
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
        )
        tools = server.wait_for(2, time.monotonic() + timeout, timeout)
        if tools.get("outcome"):
            return tools
        listed = _object(tools.get("result")).get("tools")
        found["tools"] = [t.get("name") for t in listed or [] if isinstance(t, dict)]
        if need_tool is not None and need_tool not in found["tools"]:
            return {"outcome": "no-tools", "evidence": f"tools: {found['tools']}"}
        return found
    except (BrokenPipeError, OSError):
        return {"outcome": "crashed", "evidence": server.tail(exited=True)}
    finally:
        server.close()


# --- streamable HTTP
# ----------------------------------------------------------------------------------


def is_loopback(url: str) -> bool:
    import ipaddress
    from urllib.parse import urlsplit

    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _sse_message(response: Any, deadline: float) -> dict[str, Any] | None:
    """The first JSON-RPC message with id 1 in a text/event-stream answer."""
    while time.monotonic() < deadline:
        line = response.readline()
        if not line:
            return None
        text = line.decode("utf-8", errors="replace").strip()
        if text.startswith("data:"):
            try:
                message = json.loads(text[5:].strip())
            except json.JSONDecodeError:
                continue
            if isinstance(message, dict) and message.get("id") == 1:
                return message
    return None


def http(url: str, headers: Mapping[str, str], timeout: float = DEFAULT_TIMEOUT) -> dict[str, Any]:
    """POST initialize to a streamable-HTTP server on a loopback address (never anything else)."""
    import urllib.error
    import urllib.request

    if not is_loopback(url):
        return {
            "outcome": "skipped",
            "evidence": f"{url} is not a loopback address; doctor makes no network calls",
        }
    started = time.monotonic()
    # a loopback URL never goes through a proxy
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(
        url,
        data=json.dumps(_INITIALIZE).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
    )
    try:
        with opener.open(request, timeout=timeout) as response:
            session = response.headers.get("Mcp-Session-Id")
            if "text/event-stream" in response.headers.get("Content-Type", ""):
                message = _sse_message(response, started + timeout)
            else:
                message = json.loads(response.read().decode("utf-8", errors="replace") or "null")
    except urllib.error.HTTPError as error:
        outcome = "unauthorized" if error.code in (401, 403) else "refused"
        return {"outcome": outcome, "evidence": f"HTTP {error.code} {error.reason} from {url}"}
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", error)
        return {"outcome": "unreachable", "evidence": f"{url}: {reason}"}
    if not isinstance(message, dict) or not isinstance(message.get("result"), dict):
        problem = _object(_object(message).get("error"))
        return {
            "outcome": "refused",
            "evidence": f"{url} answered no initialize result"
            + (f": error {problem.get('code')}: {problem.get('message')}" if problem else ""),
        }
    if session:
        _end_session(opener, url, {**headers, "Mcp-Session-Id": session})
    if (wrong := not_initialize_result(message)) is not None:
        return {"outcome": "not-mcp", "evidence": f"{url}: {wrong}"}
    return {
        "outcome": "ok",
        "seconds": time.monotonic() - started,
        "server": _describe(message["result"]),
        "tools": None,
    }


def _end_session(opener: Any, url: str, headers: Mapping[str, str]) -> None:
    import urllib.request

    try:
        opener.open(
            urllib.request.Request(url, method="DELETE", headers=dict(headers)), timeout=2
        ).close()
    except OSError:
        # the server keeps the session until it times out; nothing is lost
        pass
