"""Tokens of what a model reads from each MCP tool: the text content of every tool's result, per
budget.

    python benchmarks/bench_mcp_results.py [--memories 40]

Fills a throwaway store with memories of mixed lengths (episodes with failures and fixes, facts, a
long how-to), then calls every tool through a real MCP client with budget_tokens 50 … 2,000 (where a
tool takes one) and counts the tokens of its text content and of its structured content's JSON,
the way the product counts them (``hindsight_cli.text.estimate_tokens``). Nothing is asserted here;
tests/test_mcp_budget.py holds the limits.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

BUDGETS = (50, 100, 200, 400, 800, 1000, 2000)


def fill(store: Any, count: int) -> list[str]:
    ids = []
    for n in range(count):
        if n % 4 == 0:
            result = store.record(
                f"deploy {n} to staging failed: the migration {n} timed out after 30 s while "
                f"holding a lock on table orders_{n}",
                outcome="failure",
                task_id=f"deploy-{n}",
                resolution=f"ran migration {n} in batches of 1,000 rows with lock_timeout 5 s",
                trigger="tool_error",
                tags=["deploy", "staging"],
            )
        elif n % 4 == 1:
            result = store.record(
                f"the user prefers deploys to staging {n} to run after 18:00 UTC",
                type="semantic",
                source="user",
            )
        elif n % 4 == 2:
            result = store.record(
                "How to deploy to staging: "
                + " ".join(
                    f"step {s}: run make deploy-{s} ENV=staging and wait for the health check;"
                    for s in range(12)
                ),
                type="procedural",
            )
        else:
            result = store.record(
                f"deploy {n} to staging succeeded in 4 minutes",
                outcome="success",
                task_id=f"deploy-{n}",
            )
        ids.append(result.memory.id)
    return ids


async def measure(store: Any, ids: list[str]) -> list[tuple[str, int | None, int, int]]:
    from mcp import Client

    from hindsight_cli.mcp_server import build_server
    from hindsight_cli.text import estimate_tokens

    rows = []
    async with Client(build_server(store), raise_exceptions=True) as client:
        schemas = {t.name: t.input_schema["properties"] for t in (await client.list_tools()).tools}
        calls: list[tuple[str, dict[str, Any]]] = [
            ("memory_search", {"query": "why did the staging deploy fail", "top_k": 10}),
            ("memory_get", {"id": ids[2]}),
            ("memory_summarize", {"task_id": "deploy-0"}),
            ("memory_consolidate", {"dry_run": True}),
            (
                "memory_write",
                {"content": "the staging deploy needs the VPN up first", "tags": ["deploy"]},
            ),
            ("memory_forget", {"ids": [ids[-1]]}),
        ]
        for name, arguments in calls:
            budgets: tuple[int | None, ...] = (
                BUDGETS if "budget_tokens" in schemas[name] else (None,)
            )
            for budget in budgets:
                args = {**arguments, **({"budget_tokens": budget} if budget else {})}
                result = await client.call_tool(name, args)
                text = "".join(getattr(c, "text", "") for c in result.content)
                structured = json.dumps(result.structured_content, ensure_ascii=False)
                rows.append((name, budget, estimate_tokens(text), estimate_tokens(structured)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=40)
    options = parser.parse_args()
    import anyio

    from hindsight_cli.store import Store

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "store")
        store.init()
        ids = fill(store, options.memories)
        rows = anyio.run(measure, store, ids)
    print(f"{'tool':<20} {'budget':>7} {'text tokens':>12} {'structured tokens':>18}")
    for name, budget, text, structured in rows:
        print(f"{name:<20} {budget or '-':>7} {text:>12} {structured:>18}")


if __name__ == "__main__":
    main()
