"""One agent floods the HTTP server with sessions: the server's memory (RSS) before and after, and
whether another agent is still served.

    python benchmarks/bench_mcp_sessions.py [--sessions 3000] [--compare OTHER_CHECKOUT]

Starts `hindsight mcp --transport http` with tokens for alice and bob, lets alice open
``--sessions`` sessions (initialize, never closed, as a careless or hostile client does), then has
bob open one and search. ``--compare`` runs another checkout's code (say, a worktree of main) the
same way: there the sessions pile up to the SDK's server-wide 10,000, after which bob gets 503.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx2  # noqa: E402

from tests.mcp_http import answer, call, free_port, listening, open_session, wait_for  # noqa: E402


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run(code: Path, sessions: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = {**os.environ, "HINDSIGHT_HOME": str(work / "home"), "PYTHONPATH": str(code)}
        hindsight = [sys.executable, "-m", "hindsight_cli"]
        token = {
            agent: subprocess.run(
                [*hindsight, "mcp", "token", agent, "--store", str(work / "s")],
                env=env,
                cwd=work,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            for agent in ("alice", "bob")
        }
        port = free_port()
        proc = subprocess.Popen(
            [
                *hindsight,
                "mcp",
                "--transport",
                "http",
                "--port",
                str(port),
                "--store",
                str(work / "s"),
                "--log-file",
                str(work / "mcp.log"),
            ],
            env=env,
            cwd=work,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_for(lambda: listening(port), "the server")
            with httpx2.Client(timeout=120) as http:
                first = open_session(http, url, token["bob"]).headers["mcp-session-id"]
                # the model is loaded
                call(http, url, "memory_search", {"query": "warm"}, token["bob"], first)
                before = rss_mib(proc.pid)
                started, statuses = time.monotonic(), {}
                for _ in range(sessions):
                    status = open_session(http, url, token["alice"]).status_code
                    statuses[status] = statuses.get(status, 0) + 1
                flood = time.monotonic() - started
                after = rss_mib(proc.pid)
                bob = open_session(http, url, token["bob"])
                served = bob.status_code
                if served == 200:
                    found = call(
                        http,
                        url,
                        "memory_search",
                        {"query": "x"},
                        token["bob"],
                        bob.headers["mcp-session-id"],
                    )
                    served = found.status_code if "result" in answer(found) else -1
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    return {
        "rss before": f"{before:.0f} MiB",
        "rss after": f"{after:.0f} MiB",
        "alice's answers": statuses,
        "flood": f"{flood:.1f} s",
        "bob": served,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=3000)
    parser.add_argument("--compare", type=Path)
    options = parser.parse_args()
    codes = {"this": ROOT, **({"compare": options.compare.resolve()} if options.compare else {})}
    for name, code in codes.items():
        print(name, run(code, options.sessions), flush=True)


if __name__ == "__main__":
    main()
