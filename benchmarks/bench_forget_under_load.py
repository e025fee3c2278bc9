"""MCP searches while six writer processes record and a hard forget purges (issue 16, point 10).

Not a test: a measurement for docs/reliability.md. One store of ``--memories`` memories (stand-in
embedder, so the model does not set the pace); a stdio MCP server (warm, as a client runs it) that
this script queries in a loop; six processes recording for ``--seconds``; and, after a third of
that, a hard forget of one task's memories through the CLI. Reports search latency (p50 / p99 / max)
before, during and after the purge, search errors, writer errors, and what the forget said.

    python benchmarks/bench_forget_under_load.py --memories 3000 --seconds 40
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from hindsight_cli.evals import floor as bench_floor

REPO = Path(__file__).resolve().parents[1]
PRELUDE = (
    f"import sys\nsys.path.insert(0, {str(REPO / 'tests')!r})\nfrom conftest import FakeEmbedder\n"
    "from hindsight_cli.store import Store\n"
)


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", PRELUDE + code]


def _rpc(proc: subprocess.Popen[str], number: int, method: str, params: dict) -> dict:
    message = bench_floor.rpc(proc, number, method, params)
    return message.get("result") or {"isError": True, "error": message.get("error")}


def _percentiles(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (
        f"p50 {statistics.median(ordered):.0f} ms, p99 {p99:.0f} ms, max {ordered[-1]:.0f} ms "
        f"(n={len(ordered)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=3000)
    parser.add_argument("--seconds", type=float, default=40.0)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hindsight-forget-load-"))
    store = root / "store"
    env = {**os.environ, "HINDSIGHT_HOME": str(root / "home"), "HINDSIGHT_LOCK_TIMEOUT": "30"}
    subprocess.run(
        _python(f"""
s = Store({str(store)!r}, embedder=FakeEmbedder())
s.import_records([{{"content": f"worker {{i % 7}} handled job {{i}} on queue {{i % 13}}",
                    "task_id": "doomed" if i % 10 == 0 else f"t{{i % 50}}"}} for i in range({args.memories})])
s.sync_index()
"""),
        check=True,
        env=env,
    )
    server = subprocess.Popen(
        _python(f"""
from hindsight_cli import mcp_server
mcp_server.run(Store({str(store)!r}, embedder=FakeEmbedder(), warm=True), agent=None, transport="stdio",
               host="", port=0, log_file=None)
"""),
        env=env,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    _rpc(
        server,
        0,
        "initialize",
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        },
    )
    writers = [
        subprocess.Popen(
            _python(f"""
import time
s = Store({str(store)!r}, embedder=FakeEmbedder())
end, i, errors = time.time() + {args.seconds}, 0, 0
while time.time() < end:
    try:
        s.record(f"writer {w} note {{i}} about queue {{i % 13}}", merge=False)
    except Exception as error:
        errors += 1
    i += 1
print(i, errors)
"""),
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for w in range(6)
    ]
    phases: dict[str, list[float]] = {"before": [], "during": [], "after": []}
    search_errors, forget, number = 0, None, 1
    started = time.monotonic()
    while time.monotonic() - started < args.seconds + 5:
        elapsed = time.monotonic() - started
        if forget is None and elapsed > args.seconds / 3:
            forget = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "hindsight_cli",
                    "forget",
                    "--task",
                    "doomed",
                    "--hard",
                    "-y",
                    "--json",
                    "--store",
                    str(store),
                ],
                env=env,
                text=True,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        phase = "before" if forget is None else "during" if forget.poll() is None else "after"
        t0 = time.monotonic()
        result = _rpc(
            server,
            number,
            "tools/call",
            {"name": "memory_search", "arguments": {"query": f"job on queue {number % 13}"}},
        )
        phases[phase].append((time.monotonic() - t0) * 1000)
        search_errors += bool(result.get("isError"))
        number += 1
    assert forget is not None
    forget_out, forget_err = forget.communicate(timeout=300)
    writes = [w.communicate(timeout=300)[0].split() for w in writers]
    server.stdin.close()  # type: ignore[union-attr]
    server.wait(timeout=60)
    for name, values in phases.items():
        print(f"memory_search {name:6s} the purge: {_percentiles(values)}")
    print(
        f"search errors: {search_errors}; writes: {sum(int(w[0]) for w in writes)}, "
        f"writer errors: {sum(int(w[1]) for w in writes)}"
    )
    print(f"forget exit {forget.returncode}: {forget_out.strip() or forget_err.strip()}")


if __name__ == "__main__":
    main()
