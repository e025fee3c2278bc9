"""Time from one SIGINT (Ctrl-C) to the exit of `hindsight mcp`, on both transports.

    python benchmarks/bench_mcp_stop.py [--runs 3] [--cap 60] [--compare OTHER_CHECKOUT]

Scenarios: stdio with stdin open (idle; a call waiting on a store another process keeps busy by
holding its ledger's write lock), HTTP with a client's event stream open (idle; the same stuck
call). ``--compare`` runs another checkout's code (say, a worktree of main) through this interpreter
in the same rounds. A server still running after ``--cap`` seconds is killed and reported as
``>cap``.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx2  # noqa: E402

from tests.mcp_http import call, free_port, headers, listening, open_session, wait_for  # noqa: E402


def _start(code: Path, work: Path, transport: str, port: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "HINDSIGHT_HOME": str(work / "home"),
        "HINDSIGHT_LOCK_TIMEOUT": "300",
        "PYTHONPATH": str(code),
    }
    args = ["--transport", "http", "--port", str(port)] if transport == "http" else []
    return subprocess.Popen(
        [sys.executable, "-m", "hindsight_cli", "mcp", "--store", str(work / "s"), *args],
        env=env,
        cwd=work,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def _stdio(proc: subprocess.Popen, busy: bool) -> None:
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
                    "clientInfo": {"name": "b", "version": "0"},
                },
            }
        )
        + "\n"
    )
    proc.stdin.flush()
    proc.stdout.readline()
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
                    "params": {"name": "memory_write", "arguments": {"content": "x"}},
                }
            )
            + "\n"
        )
        proc.stdin.flush()
        # let the call reach the store (a benchmark, not a test)
        time.sleep(0.5)


def _http(port: int, busy: bool) -> None:
    url = f"http://127.0.0.1:{port}"
    wait_for(lambda: listening(port), "the server")
    http = httpx2.Client(timeout=600)
    session = open_session(http, url).headers["mcp-session-id"]

    def quietly(action) -> None:  # noqa: ANN001
        try:
            action()
        except httpx2.HTTPError:
            pass

    def stream() -> None:
        with (
            httpx2.Client(timeout=600) as own,
            own.stream(
                "GET",
                f"{url}/mcp",
                headers={**headers(session=session), "Accept": "text/event-stream"},
            ) as events,
        ):
            for _ in events.iter_bytes():
                pass

    threading.Thread(target=quietly, args=(stream,), daemon=True).start()
    if busy:
        threading.Thread(
            target=quietly,
            args=(lambda: call(http, url, "memory_write", {"content": "x"}, session=session),),
            daemon=True,
        ).start()
    time.sleep(0.5)


def once(code: Path, transport: str, busy: bool, cap: float) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        subprocess.run(
            [sys.executable, "-m", "hindsight_cli", "init", "--store", str(work / "s")],
            check=True,
            env={**os.environ, "HINDSIGHT_HOME": str(work / "home"), "PYTHONPATH": str(code)},
            capture_output=True,
            cwd=work,
        )
        with open(work / "s" / "ledger.duckdb.lock", "a+") as lock:
            if busy:
                fcntl.flock(lock, fcntl.LOCK_EX)
            port = free_port()
            proc = _start(code, work, transport, port)
            _stdio(proc, busy) if transport == "stdio" else _http(port, busy)
            started = time.monotonic()
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=cap)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                return float("inf")
            return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cap", type=float, default=60)
    parser.add_argument("--compare", type=Path)
    options = parser.parse_args()
    codes = {"this": ROOT, **({"compare": options.compare.resolve()} if options.compare else {})}
    print(f"{'scenario':<28} " + " ".join(f"{name + ' median (max) s':>26}" for name in codes))
    for transport in ("stdio", "http"):
        for busy in (False, True):
            row = []
            for code in codes.values():
                times = [once(code, transport, busy, options.cap) for _ in range(options.runs)]
                shown = [
                    f">{options.cap:.0f}" if t == float("inf") else f"{t:.2f}"
                    for t in (statistics.median(times), max(times))
                ]
                row.append(f"{shown[0]} ({shown[1]})")
            label = f"{transport}, {'store busy, call in flight' if busy else 'idle'}"
            print(f"{label:<28} " + " ".join(f"{cell:>26}" for cell in row))


if __name__ == "__main__":
    main()
