"""Warm in-process search latency over the turns of two LoCoMo conversations, for whichever
hindsight_cli is imported, so two checkouts can be compared run for run. Not a test:

    python benchmarks/search_latency.py /tmp/lat-head                                    # this
    checkout PYTHONPATH=/path/to/other/checkout python benchmarks/search_latency.py /tmp/lat-base
    # another

The first run builds the store at the path (788 memories); later runs only search. It prints the
wall and CPU (process time, all threads) p50 of 150 questions after 10 warm-up searches. Alternate
the two checkouts a few times: on a shared machine wall times scatter, CPU times much less.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import hindsight_cli
from hindsight_cli.evals.locomo import load_locomo
from hindsight_cli.store import Store

# read at run time, never copied (its licence)
DATA = Path("/work/shared/bench/locomo/dev.json")


def main() -> None:
    path = Path(sys.argv[1])
    conversations = load_locomo(Path(sys.argv[2]) if len(sys.argv) > 2 else DATA, limit=2)
    store = Store(path)
    if not (path / "config.toml").exists():
        store.init()
        for conversation in conversations:
            for record in conversation.records:
                store.record(record["content"], merge=False)
    questions = [q.text for c in conversations for q in c.questions][:150]
    for question in questions[:10]:
        store.search(question, k=10)
    wall, cpu = [], []
    for question in questions:
        started, used = time.perf_counter(), time.process_time()
        store.search(question, k=10)
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - used) * 1000)
    print(
        json.dumps(
            {
                "code": hindsight_cli.__file__,
                "memories": store.stats()["memories"],
                "queries": len(wall),
                "p50_ms": round(statistics.median(wall), 1),
                "p95_ms": round(sorted(wall)[int(0.95 * len(wall))], 1),
                "cpu_p50_ms": round(statistics.median(cpu), 1),
            }
        )
    )


if __name__ == "__main__":
    main()
