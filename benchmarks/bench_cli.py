"""Measure the issue-2 figures: cold CLI start-up, cold record/search on a big store, bulk import
rate, warm in-process search. Not a test (pytest does not collect it); run it by hand:

    python benchmarks/bench_cli.py --size 10000 [--json]

It builds a store of synthetic but realistic memories (several agents and tasks, tools, errors and
their fixes, English and Chinese, varied lengths) in a temporary directory and leaves nothing
behind.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
# shared with `hindsight bench`
from hindsight_cli.evals.benchmark import synthetic


def median_wall(
    cmd: list[str], env: dict, runs: int = 5, stdin: str | None = None
) -> tuple[float, list[float]]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        result = subprocess.run(cmd, env=env, input=stdin, capture_output=True, text=True)
        times.append(time.perf_counter() - started)
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed: {result.stderr}")
    return statistics.median(times), times


def _rpc(proc: subprocess.Popen, message_id: int, method: str, params: dict) -> dict:
    proc.stdin.write(
        json.dumps({"jsonrpc": "2.0", "id": message_id, "method": method, "params": params}) + "\n"
    )
    proc.stdin.flush()
    while True:
        message = json.loads(proc.stdout.readline())
        if message.get("id") == message_id:
            return message


def mcp_figures(exe: str, store: Path, env: dict, queries: list[str]) -> dict:
    """Start-up to a completed initialize (median of 5), and memory_search round trips over
    stdio."""
    init = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    }
    starts = []
    for _ in range(5):
        started = time.perf_counter()
        proc = subprocess.Popen(
            [exe, "mcp", "--store", str(store)],
            env=env,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        _rpc(proc, 1, "initialize", init)
        starts.append(time.perf_counter() - started)
        proc.kill()
        proc.wait()
    proc = subprocess.Popen(
        [exe, "mcp", "--store", str(store)],
        env=env,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    _rpc(proc, 1, "initialize", init)
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    call = {"name": "memory_search", "arguments": {"query": "warm up", "budget_tokens": 400}}
    started = time.perf_counter()
    _rpc(proc, 2, "tools/call", call)
    first = time.perf_counter() - started
    times = []
    for i in range(60):
        call["arguments"]["query"] = queries[i % len(queries)]
        started = time.perf_counter()
        reply = _rpc(proc, 3 + i, "tools/call", call)
        times.append((time.perf_counter() - started) * 1000)
        assert not reply["result"]["isError"], reply
    proc.stdin.close()
    proc.wait(timeout=60)
    times.sort()
    return {
        "mcp_initialize_median_s": round(statistics.median(starts), 3),
        "mcp_initialize_runs_s": [round(t, 3) for t in starts],
        "mcp_first_search_s": round(first, 3),
        "mcp_search_p50_ms": round(statistics.median(times), 1),
        "mcp_search_p95_ms": round(times[int(len(times) * 0.95) - 1], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    exe = shutil.which("hindsight") or str(Path(sys.executable).with_name("hindsight"))
    root = Path(tempfile.mkdtemp(prefix="hindsight-bench-"))
    env = {**os.environ, "HINDSIGHT_HOME": str(root / "home")}
    store = root / "store"
    figures: dict = {"size": args.size}
    try:
        data = root / "data.jsonl"
        data.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in synthetic(args.size))
        )
        started = time.perf_counter()
        subprocess.run(
            [exe, "import", str(data), "--store", str(store)],
            env=env,
            check=True,
            capture_output=True,
        )
        elapsed = time.perf_counter() - started
        figures["import_seconds"] = round(elapsed, 2)
        figures["import_per_second"] = round(args.size / elapsed, 1)

        # Floors on this machine, for context: the interpreter, and importing what a cold search
        # needs.
        python = str(Path(exe).with_name("python"))
        figures["floor_python_median_s"], _ = median_wall([python, "-c", "pass"], env)
        figures["floor_import_typer_median_s"], _ = median_wall([python, "-c", "import typer"], env)
        figures["floor_import_search_deps_median_s"], _ = median_wall(
            [python, "-c", "import typer, rich.table, duckdb, numpy, onnxruntime, tokenizers"], env
        )
        figures["help_median_s"], _ = median_wall([exe, "--help"], env)
        figures["search_cold_median_s"], runs = median_wall(
            [exe, "search", "why did the weather API return 401", "--store", str(store)], env
        )
        figures["search_cold_runs_s"] = [round(t, 3) for t in runs]
        figures["search_json_cold_median_s"], _ = median_wall(
            [exe, "search", "天气 token 过期", "--json", "--store", str(store)], env
        )
        figures["record_cold_median_s"], runs = median_wall(
            [
                exe,
                "record",
                "bench note: kafka consumer lag spiked after the deploy",
                "--no-merge",
                "--store",
                str(store),
            ],
            env,
        )
        figures["record_cold_runs_s"] = [round(t, 3) for t in runs]

        os.environ["HINDSIGHT_HOME"] = env["HINDSIGHT_HOME"]
        from hindsight_cli.embedding import load_embedder
        from hindsight_cli.storage.rows import MemoryRow, embedding_text
        from hindsight_cli.store import Store

        # The embedding ceiling for import: the same texts, embedded the same way, stored nowhere.
        sample = [
            embedding_text(MemoryRow("", r["content"], resolution=r.get("resolution")))
            for r in synthetic(args.size)[:2000]
        ]
        sample.sort(key=len)
        model = load_embedder()
        started = time.perf_counter()
        for start in range(0, len(sample), 256):
            model.embed(sample[start : start + 256])
        figures["floor_embed_per_second"] = round(len(sample) / (time.perf_counter() - started), 1)

        queries = [
            "weather API 401",
            "kubectl timed out",
            "how was the redis connection fixed",
            "用户希望回答简短",
            "rate limit on stripe",
            "terraform schema mismatch",
            "docker ran out of memory",
            "npm lockfile",
        ]
        for engine in ("ledger", "index"):
            warm = Store(store, warm=True)
            warm.search("warm up", engine=engine)
            times = []
            for i in range(60):
                started = time.perf_counter()
                warm.search(queries[i % len(queries)], engine=engine)
                times.append((time.perf_counter() - started) * 1000)
            times.sort()
            figures[f"warm_{engine}_p50_ms"] = round(statistics.median(times), 1)
            figures[f"warm_{engine}_p95_ms"] = round(times[int(len(times) * 0.95) - 1], 1)
        figures.update(mcp_figures(exe, store, env, queries))
        figures["ledger_mb"] = round((store / "ledger.duckdb").stat().st_size / 1e6, 1)
        figures["index_mb"] = round(
            sum(p.stat().st_size for p in (store / "index.lance").rglob("*") if p.is_file()) / 1e6,
            1,
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for key, value in list(figures.items()):
        if isinstance(value, float) and key.endswith("_s"):
            figures[key] = round(value, 3)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key:28} {value}")


if __name__ == "__main__":
    main()
