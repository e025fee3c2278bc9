"""Latency of `hindsight ui` on large stores: start-up, each page, and search.

    python benchmarks/bench_ui.py [--sizes 10000,100000] [--runs 3] [--requests 20] [--json]

Each size is a new store of ``evals.benchmark.synthetic`` memories imported with stand-in vectors
(``floor.Seeded``: a random unit vector seeded by each text, under the bundled model's name), so a
100,000-memory store is built in minutes; searches still embed their queries with the real model.
Then `hindsight ui --no-open --port 0` runs as a user starts it, in a new process:

- start: from spawning the process to the login address on stdout, and to the first page answered
  (median of ``--runs`` starts);
- pages: each page's time over HTTP with the session cookie (p50 and p95 of ``--requests``);
- search: the first search (which loads the model) and the warm ones after it.

The issue's bounds: a browse page under 200 ms at 10,000 memories; start-up under 1.5 s. The tests
check what pages answer, never how fast.
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
from typing import Any

import httpx

from hindsight_cli.evals.benchmark import synthetic
from hindsight_cli.evals.floor import Seeded
from hindsight_cli.evals.measure import percentiles
from hindsight_cli.store import Store

HINDSIGHT = [sys.executable, "-m", "hindsight_cli"]
QUERIES = [
    "why did the deploy fail",
    "connection refused from the database",
    "rate limit on the API",
    "how was the timeout fixed",
]


def build(path: Path, size: int) -> Store:
    store = Store(path)
    Store(path, embedder=Seeded(store.embedder)).import_records(synthetic(size))
    return store


def start(path: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], str, float]:
    began = time.perf_counter()
    proc = subprocess.Popen(
        [*HINDSIGHT, "ui", "--store", str(path), "--no-open", "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    return proc, url, time.perf_counter() - began


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    proc.wait(30)


def timed(client: httpx.Client, path: str, n: int) -> tuple[float, float]:
    times = []
    for _ in range(n):
        began = time.perf_counter()
        answer = client.get(path)
        times.append((time.perf_counter() - began) * 1000)
        assert answer.status_code == 200, (path, answer.status_code)
    return percentiles(times)


def measure(size: int, runs: int, requests: int) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="hindsight-bench-ui-"))
    env = {**os.environ, "HINDSIGHT_HOME": str(root / "home")}
    os.environ["HINDSIGHT_HOME"] = env["HINDSIGHT_HOME"]
    figures: dict[str, Any] = {"size": size, "vectors": "stand-in"}
    try:
        began = time.perf_counter()
        store = build(root / "store", size)
        figures["build_s"] = round(time.perf_counter() - began, 1)
        starts, firsts = [], []
        for _ in range(runs):
            began = time.perf_counter()
            proc, url, seconds = start(store.path, env)
            try:
                with httpx.Client(timeout=120) as client:
                    client.get(url)
                    assert client.get(url.split("/login")[0] + "/").status_code == 200
                firsts.append(time.perf_counter() - began)
                starts.append(seconds)
            finally:
                stop(proc)
        figures["start_to_address_s"] = round(statistics.median(starts), 3)
        figures["start_to_first_page_s"] = round(statistics.median(firsts), 3)
        figures.update(_pages(store, env, requests))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return figures


def _pages(store: Store, env: dict[str, str], requests: int) -> dict[str, Any]:
    one = store.list(limit=1)[0]
    last = max(0, store.page(limit=1).total - 50)
    pages = {
        "browse": "/",
        "browse_filtered": "/?outcome=failure&agent=agent-3",
        "browse_sorted": "/?sort=importance&dir=asc",
        "browse_last_page": f"/?o={last}",
        "memory": f"/m/{one.id}",
        "timeline_day": f"/timeline?day={one.event_at[:10]}",
        "stats": "/stats",
    }
    out: dict[str, Any] = {}
    proc, url, _ = start(store.path, env)
    try:
        with httpx.Client(timeout=300) as client:
            client.get(url)
            base = url.split("/login")[0]
            for name, path in pages.items():
                out[f"{name}_p50_ms"], out[f"{name}_p95_ms"] = timed(client, base + path, requests)
            began = time.perf_counter()
            client.get(base + "/search", params={"q": QUERIES[0]})
            out["first_search_ms"] = round((time.perf_counter() - began) * 1000, 1)
            times = []
            for i in range(requests):
                began = time.perf_counter()
                client.get(base + "/search", params={"q": QUERIES[i % len(QUERIES)]})
                times.append((time.perf_counter() - began) * 1000)
            out["search_p50_ms"], out["search_p95_ms"] = percentiles(times)
    finally:
        stop(proc)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    for size in (int(s) for s in args.sizes.split(",")):
        print(f"{size:,} memories …", file=sys.stderr, flush=True)
        results.append(measure(size, args.runs, args.requests))
        print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    keys = [k for k in results[0] if k != "size"]
    print("| | " + " | ".join(f"{r['size']:,}" for r in results) + " |")
    print("|---|" + "---|" * len(results))
    for key in keys:
        print(f"| {key} | " + " | ".join(str(r.get(key)) for r in results) + " |")


if __name__ == "__main__":
    main()
