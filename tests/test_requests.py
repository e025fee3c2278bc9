"""One request object per operation: a search is one ``SearchQuery`` (its budget fitted once, in the
core, whichever face asks) and a forget is one plan, shown, counted and carried out as it is."""

from __future__ import annotations

import pytest
from mcp import Client

from hindsight_cli.core.selection import browse_filters
from hindsight_cli.mcp_server import build_server
from hindsight_cli.search.query import SearchQuery
from hindsight_cli.store import Store


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_mcp_search_answers_what_the_core_fitted(store: Store) -> None:
    for n in range(12):
        store.record(
            f"deploy {n} to staging failed: migration {n} timed out holding a lock on orders_{n}",
            outcome="failure",
            resolution=f"ran migration {n} in batches of 1,000 rows",
            step=n,
        )
    text = "staging deploy failed migration lock"
    async with Client(build_server(store), raise_exceptions=True) as client:
        for budget in (100, 200, 300):
            answer = await client.call_tool(
                "memory_search", {"query": text, "top_k": 12, "budget_tokens": budget}
            )
            found = store.search(
                SearchQuery(text, browse_filters(search=True), k=12, budget=budget, listed=True)
            )
            shown = answer.structured_content
            assert [h["id"] for h in shown["hits"]] == [h.memory.id for h in found.hits]
            assert (shown["context"], shown["tokens"], shown["dropped_for_budget"]) == (
                found.context,
                found.tokens,
                found.dropped_for_budget,
            )
            assert 0 < len(found.hits) < 12 and found.dropped_for_budget == 12 - len(found.hits)
