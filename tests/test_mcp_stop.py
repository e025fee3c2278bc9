"""One Ctrl-C stops `hindsight mcp` (issue 20): a real SIGINT to a real server process, on stdio
with its stdin still open and on HTTP with a client's event stream open, idle or with a tool call
stuck on a store that another process keeps busy (it holds the ledger's write lock, as a long hard
forget does). The bound is generous (a condition, not a timing: `benchmarks/bench_mcp_stop.py`
measures the time)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx2
import pytest

from tests.mcp_http import call, free_port, headers, listening, open_session, wait_for

HINDSIGHT = [sys.executable, "-m", "hindsight_cli"]
pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")]


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "HINDSIGHT_HOME": str(tmp_path / "home"), "HINDSIGHT_LOCK_TIMEOUT": "300"}


@contextmanager
def _busy_store(path: Path, busy: bool) -> Iterator[None]:
    """The store, with its ledger's write lock held by this process while ``busy``."""
    import fcntl

    from hindsight_cli.store import Store

    Store(path).init()
    with open(path / "ledger.duckdb.lock", "a+") as lock:
        if busy:
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _stopped(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = proc.stderr.read() if proc.stderr else ""
    assert proc.returncode in (130, 0), (proc.returncode, err)
    assert "Traceback" not in err, err
    return err


@pytest.mark.parametrize("busy", [False, True])
def test_one_sigint_stops_the_stdio_server(tmp_path: Path, busy: bool) -> None:
    with _busy_store(tmp_path / "s", busy):
        _stdio(tmp_path, busy)


def _stdio(tmp_path: Path, busy: bool) -> None:
    proc = subprocess.Popen(
        [*HINDSIGHT, "mcp", "--store", str(tmp_path / "s")],
        env=_env(tmp_path),
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "0"},
                },
            }
        )
        + "\n"
    )
    proc.stdin.flush()
    # up and serving; stdin stays open
    assert json.loads(proc.stdout.readline())["id"] == 1
    # a call that waits for the store
    if busy:
        proc.stdin.write(
            json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n"
        )
        proc.stdin.write(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "tools/call",
                    "params": {
                        "name": "memory_write",
                        "arguments": {"content": "written as the server stops"},
                    },
                }
            )
            + "\n"
        )
        proc.stdin.flush()
    assert "stopping (SIGINT)" in _stopped(proc)


@pytest.mark.parametrize("busy", [False, True])
def test_one_sigint_stops_the_http_server_with_a_client_connected(
    tmp_path: Path, busy: bool
) -> None:
    with _busy_store(tmp_path / "s", busy):
        _http(tmp_path)


def _http(tmp_path: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [
            *HINDSIGHT,
            "mcp",
            "--transport",
            "http",
            "--port",
            str(port),
            "--store",
            str(tmp_path / "s"),
        ],
        env=_env(tmp_path),
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: listening(port), "the server to listen")
        http = httpx2.Client(timeout=120)
        session = open_session(http, url).headers["mcp-session-id"]
        opened = threading.Event()

        # an open event stream: a request uvicorn would wait for
        def listen() -> None:
            try:
                with (
                    httpx2.Client(timeout=120) as own,
                    own.stream(
                        "GET",
                        f"{url}/mcp",
                        headers={**headers(session=session), "Accept": "text/event-stream"},
                    ) as stream,
                ):
                    opened.set()
                    for _ in stream.iter_bytes():
                        pass
            except httpx2.HTTPError:
                # the server went away, as it should
                pass

        # a tool call in flight
        def write() -> None:
            try:
                call(
                    http,
                    url,
                    "memory_write",
                    {"content": "written as the server stops"},
                    session=session,
                )
            except httpx2.HTTPError:
                pass

        threading.Thread(target=listen, daemon=True).start()
        wait_for(opened.is_set, "the event stream to open")
        threading.Thread(target=write, daemon=True).start()
    except BaseException:
        proc.kill()
        raise
    _stopped(proc)
