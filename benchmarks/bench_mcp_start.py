"""Time from starting `hindsight mcp` (stdio) to its answer to initialize, against the strictest
client's default start-up timeout (Codex's ``startup_timeout_sec``, 10 s).

    python benchmarks/bench_mcp_start.py [--runs 5] [--bound 10] [--compare OTHER_CHECKOUT]

Two ways in, each a new process on a new store: a raw JSON-RPC session as a host drives it
(``initialize`` only) and `hindsight doctor mcp`'s own handshake (``initialize``, then
``tools/list``, in the minimal environment a host gives a server). ``--compare`` runs another
checkout's code (say, a worktree of main) through this interpreter in the same rounds. Exits 1 when
any start-up reaches the bound. The tests check what a start-up answers, never how long it takes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


def raw(code: Path, work: Path) -> float:
    """Seconds from spawning the server to its initialize reply."""
    env = {**os.environ, "HINDSIGHT_HOME": str(work / "home"), "PYTHONPATH": str(code)}
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hindsight_cli", "mcp", "--store", str(work / "s")],
        env=env,
        cwd=work,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write(json.dumps(_INITIALIZE) + "\n")
    proc.stdin.flush()
    reply = json.loads(proc.stdout.readline())
    seconds = time.monotonic() - started
    assert reply["result"]["serverInfo"]["name"] == "hindsight", reply
    proc.communicate(timeout=60)
    return seconds


def doctor(code: Path, work: Path) -> float:
    """The seconds `hindsight doctor mcp` measures (its handshake, run from ``code``)."""
    program = (
        "import json, sys\n"
        "from hindsight_cli.doctor import mcp_checks\n"
        "store, home, code = sys.argv[1:]\n"
        "args = ['-m', 'hindsight_cli', 'mcp', '--store', store]\n"
        "env = {'HINDSIGHT_HOME': home, 'PYTHONPATH': code}\n"
        "print(json.dumps(mcp_checks.handshake(sys.executable, args, env)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", program, str(work / "s"), str(work / "home"), str(code)],
        env={**os.environ, "PYTHONPATH": str(code)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    result = json.loads(out)
    assert result["outcome"] == "ok", result
    return float(result["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bound", type=float, default=10.0)
    parser.add_argument("--compare", type=Path)
    options = parser.parse_args()
    codes = {"this": ROOT, **({"compare": options.compare.resolve()} if options.compare else {})}
    print(f"load {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores, bound {options.bound:g} s")
    print(f"{'start-up':<24} " + " ".join(f"{name + ' median (max) s':>26}" for name in codes))
    worst = 0.0
    for label, measure in (("raw initialize", raw), ("doctor handshake", doctor)):
        row = []
        for code in codes.values():
            times = []
            for _ in range(options.runs):
                with tempfile.TemporaryDirectory(prefix="hindsight-start-") as work:
                    times.append(measure(code, Path(work)))
            worst = max(worst, *times)
            row.append(f"{statistics.median(times):.2f} ({max(times):.2f})")
        print(f"{label:<24} " + " ".join(f"{cell:>26}" for cell in row))
    if worst >= options.bound:
        print(f"slowest start-up {worst:.2f} s reaches the {options.bound:g} s bound")
        sys.exit(1)


if __name__ == "__main__":
    main()
