"""Warm in-process search latency over the turns of two LoCoMo conversations, for whichever
hindsight_cli is imported, so two checkouts can be compared run for run. Not a test:

    python benchmarks/search_latency.py /tmp/lat-head                                    # this
    checkout PYTHONPATH=/path/to/other/checkout python benchmarks/search_latency.py /tmp/lat-base
    # another

The first run builds the store at the path (788 memories); later runs only search. It prints the
wall and CPU (process time, all threads) p50 of 150 questions after 10 warm-up searches. Alternate
the two checkouts a few times: on a shared machine wall times scatter, CPU times much less.

With ``--steps`` (a store of its own) the turns are recorded with their session as the task and
their place as the step, as ``hindsight eval locomo`` records them, so neighbours take part; the
searches run in a warm process (the in-memory index), and a ``--budget 400`` search (a block) is
timed beside ``-k 10``.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import hindsight_cli
from hindsight_cli.evals.locomo import load_locomo
from hindsight_cli.store import Store

# read at run time, never copied (its licence)
DATA = Path("/work/shared/bench/locomo/dev.json")


def _timed(store: Store, questions: list[str], **options: Any) -> dict[str, float]:
    for question in questions[:10]:
        store.search(question, **options)
    wall, cpu = [], []
    for question in questions:
        started, used = time.perf_counter(), time.process_time()
        store.search(question, **options)
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - used) * 1000)
    return {
        "p50_ms": round(statistics.median(wall), 1),
        "p95_ms": round(sorted(wall)[int(0.95 * len(wall))], 1),
        "cpu_p50_ms": round(statistics.median(cpu), 2),
    }


def main() -> None:
    steps = "--steps" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--steps"]
    path = Path(args[0])
    conversations = load_locomo(Path(args[1]) if len(args) > 1 else DATA, limit=2)
    store = Store(path)
    if not (path / "config.toml").exists():
        store.init()
        for conversation in conversations:
            for record in conversation.records:
                place: dict[str, Any] = (
                    {"task_id": record["task_id"], "step": record["step"]} if steps else {}
                )
                store.record(record["content"], merge=False, **place)
    questions = [q.text for c in conversations for q in c.questions][:150]
    out: dict[str, Any] = {"code": hindsight_cli.__file__, "memories": store.stats()["memories"]}
    if not steps:
        print(json.dumps({**out, "queries": len(questions), **_timed(store, questions, k=10)}))
        return
    warm = Store(path, warm=True)
    # twice each, alternating: the first rounds load the in-memory index
    for name, options in (("k10", {"k": 10}), ("budget400", {"budget": 400})) * 2:
        out[name] = _timed(warm, questions, **options)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
