"""Whether two checkouts rank alike: every hit (id, score, matched lists, explanation) and the
context block of the bench's 200 queries and of ~140 other cases (troubleshooting, budgets, a task,
an environment, identifiers, times, each mode, k from 5 to 50), for whichever hindsight_cli is
imported. Not a test:

    python benchmarks/same_answers.py dump STORE /tmp/after.jsonl hot ledger       # this checkout
    PYTHONPATH=/path/to/other python benchmarks/same_answers.py dump STORE /tmp/before.jsonl hot ledger
    python benchmarks/same_answers.py compare /tmp/before.jsonl /tmp/after.jsonl

STORE is any store (e.g. one `hindsight bench` builds: ``evals.benchmark.synthetic`` memories
imported with ``evals.floor.Seeded`` vectors). Searches run as of a fixed time, so recency is the
same in both runs. ``compare`` counts identical cases and those within float tolerance.
"""

from __future__ import annotations

import json
import math
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

NOW = datetime(2026, 12, 6, 12, 0)
EXTRA = [
    "127.0.0.1:5432 connection refused",
    "numpy==2.1.0 import error",
    "what happened yesterday with docker",
    "last week terraform",
    "when did the redis fix happen",
    "ModuleNotFoundError: No module named foo",
    "kubectl apply failed timeout",
    "用户 偏好",
    "deploy rollback 2026-11-30",
]
OPTIONS: list[dict[str, Any]] = [
    {},
    {"k": 25},
    {"troubleshoot": True},
    {"budget": 400},
    {"current_task": "task-3"},
    {"env": {"tool_version": "v2"}},
    {"mode": "vector"},
    {"mode": "keyword"},
    {"min_score": 0.3, "k": 10},
]


def cases() -> list[tuple[str, dict[str, Any]]]:
    from hindsight_cli.evals.floor import new_query

    out: list[tuple[str, dict[str, Any]]] = [(new_query(i), {}) for i in range(200)]
    out += [(query, options) for query in EXTRA for options in OPTIONS]
    for i in range(0, 200, 7):
        out += [(new_query(i), {"k": 50}), (new_query(i), {"troubleshoot": True, "k": 10})]
    return out


def dump(store_path: Path, out: Path, engines: list[str]) -> None:
    from hindsight_cli.store import Store

    with out.open("w") as f:
        for engine in engines:
            store = Store(store_path, warm=True) if engine == "hot" else Store(store_path)
            if engine == "hot":
                store.warm_up()
            for query, options in cases():
                asked = {**options, **({} if engine == "hot" else {"engine": engine})}
                found = store.search(query, now=NOW, **asked)
                hits = [[h.memory.id, h.score, h.matched, h.explain] for h in found.hits]
                line = {"engine": engine, "q": query, "opts": options}
                line |= {"context": found.context, "hits": hits}
                f.write(json.dumps(line, sort_keys=True, default=str) + "\n")


def _close(x: Any, y: Any) -> bool:
    if isinstance(x, float) or isinstance(y, float):
        numbers = isinstance(x, (int, float)) and isinstance(y, (int, float))
        return numbers and math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(x, dict):
        return isinstance(y, dict) and x.keys() == y.keys() and all(_close(x[k], y[k]) for k in x)
    if isinstance(x, list):
        return isinstance(y, list) and len(x) == len(y) and all(map(_close, x, y))
    return bool(x == y)


def compare(before: Path, after: Path) -> int:
    a = [json.loads(line) for line in before.open()]
    b = [json.loads(line) for line in after.open()]
    if len(a) != len(b):
        print(f"different cases: {len(a)} against {len(b)}")
        return 1
    same = near = 0
    for x, y in zip(a, b):
        if [h[0] for h in x["hits"]] != [h[0] for h in y["hits"]]:
            print("other hits or order:", x["engine"], x["q"], x["opts"])
        elif x == y:
            same += 1
        elif _close(x, y):
            near += 1
        else:
            print("other scores or explanations:", x["engine"], x["q"], x["opts"])
    print(f"{len(a)} cases: {same} identical, {near} within float tolerance")
    return 0 if same + near == len(a) else 1


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4:] or ["hot"])
    else:
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
