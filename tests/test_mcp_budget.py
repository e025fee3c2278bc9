"""What a model reads from every MCP tool stays within the call's token budget (issue 17).

Tokens are counted as the product counts them (``estimate_tokens``: one per CJK character, one per
four other characters), on the text content of each result, through a real MCP client.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import BACKEND_PARAMS, FakeEmbedder, copy_store, postgres_store_dir, shared_store_dir
from mcp import Client

from hindsight_cli.mcp_server import build_server
from hindsight_cli.store import Store
from hindsight_cli.text import estimate_tokens

# one xdist group: the module's filled store is built once, on one worker
pytestmark = [pytest.mark.anyio, pytest.mark.xdist_group("mcp-budget")]
BUDGETS = (50, 100, 200, 400, 800, 1000, 2000)
FAKE = FakeEmbedder()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _fill(store: Store) -> list[str]:
    """Short and long memories, English and Chinese, failures with fixes: several per task."""
    ids = []
    for n in range(12):
        ids.append(
            store.record(
                f"deploy {n} to staging failed: migration {n} timed out holding a lock on "
                f"orders_{n}",
                outcome="failure",
                resolution=f"ran migration {n} in batches of 1,000 rows",
                task_id=f"deploy-{n % 3}",
                step=n,
                tags=["deploy"],
            ).memory.id
        )
        ids.append(
            store.record(
                "部署到预发布环境失败：数据库迁移超时，锁住了订单表。" * (1 + n % 4),
                task_id=f"deploy-{n % 3}",
                outcome="failure",
                resolution="分批执行迁移",
                step=100 + n,
            ).memory.id
        )
        ids.append(
            store.record(
                "How to deploy to staging: "
                + " ".join(
                    f"step {s}: run make deploy-{s} ENV=staging {n} and wait for the health check;"
                    for s in range(4 + 3 * n)
                ),
                type="procedural",
            ).memory.id
        )
    return ids


def _text(result) -> str:  # noqa: ANN001
    assert not result.is_error, result.content
    return "".join(block.text for block in result.content)


async def test_every_tool_text_is_within_its_budget(
    filled_copy: tuple[Store, list[str]],
) -> None:
    store, ids = filled_copy
    # the longest memory a store takes
    store.record("x" * 16_000, type="semantic")
    longest = store.list(limit=1)[0].id
    calls = [
        ("memory_search", {"query": "staging deploy failed migration lock", "top_k": 30}),
        ("memory_search", {"query": "部署 迁移 超时", "top_k": 30, "mode": "keyword"}),
        ("memory_get", {"id": longest}),
        ("memory_get", {"id": ids[2]}),
        ("memory_summarize", {"task_id": "deploy-0"}),
        ("memory_consolidate", {"dry_run": True}),
    ]
    kept: dict[int, int] = {}
    async with Client(build_server(store), raise_exceptions=True) as client:
        for name, arguments in calls:
            for budget in BUDGETS:
                result = await client.call_tool(name, {**arguments, "budget_tokens": budget})
                text = _text(result)
                assert estimate_tokens(text) <= budget, (
                    name,
                    budget,
                    estimate_tokens(text),
                    text[-300:],
                )
                if name != "memory_search":
                    continue
                found = result.structured_content
                if "mode" not in arguments:
                    kept[budget] = len(found["hits"])
                # the block, then the ids of exactly the hits it shows, in order
                if found["hits"]:
                    dropped = found["dropped_for_budget"]
                    assert text == found["context"] + "\nids in order: " + " ".join(
                        h["id"] for h in found["hits"]
                    )
                    # what the budget left out, the header says
                    assert (f"; {dropped} more did not fit]" in text) == bool(dropped)
        for name, arguments in [
            ("memory_write", {"content": "the staging deploy needs the VPN up first"}),
            ("memory_write", {"content": "token AKIAQ3EGRZ7KVN2LWX5T for s3", "verbose": True}),
            ("memory_forget", {"ids": ids[:3]}),
        ]:
            assert estimate_tokens(_text(await client.call_tool(name, arguments))) <= min(BUDGETS)
    # a larger budget shows more, never past its limit
    assert kept[50] < kept[400] < kept[2000]


@pytest.fixture(scope="module", params=BACKEND_PARAMS)
def filled_once(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, module_isolated: Path
) -> tuple[Store, list[str], Path | None]:
    """``_fill`` once: the store, its ids, and (local) a copy of it as filled, before any test
    searched it, for a test that changes it to copy again."""
    root = tmp_path_factory.mktemp("filled")
    store = Store(shared_store_dir(request, root), embedder=FAKE)
    ids = _fill(store)
    pristine = (
        copy_store(store.path, root / "pristine") if store.ledger.capabilities.files else None
    )
    return store, ids, pristine


@pytest.fixture
def filled(filled_once: tuple[Store, list[str], Path | None]) -> Store:
    """The filled store, for the tests that only search it."""
    return filled_once[0]


@pytest.fixture
def filled_copy(
    filled_once: tuple[Store, list[str], Path | None],
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> tuple[Store, list[str]]:
    """The filled store as it was filled, and its ids, for a test that writes to it: a copy of a
    local store, a database's filled afresh."""
    _, ids, pristine = filled_once
    if pristine is not None:
        return Store(copy_store(pristine, tmp_path / "filled"), embedder=FAKE), ids
    path = postgres_store_dir(tmp_path / "filled", request.getfixturevalue("postgres_url"))
    store = Store(path, embedder=FAKE)
    return store, _fill(store)


async def test_a_search_without_a_budget_gets_the_default(filled: Store) -> None:
    store = filled
    async with Client(build_server(store), raise_exceptions=True) as client:
        result = await client.call_tool(
            "memory_search", {"query": "how to deploy to staging", "top_k": 30}
        )
    assert 300 < estimate_tokens(_text(result)) <= 400
    assert result.structured_content["dropped_for_budget"] > 0


async def test_structured_hits_are_compact_unless_asked(filled: Store) -> None:
    """Against the issue's measure: the structured hits hold no internal fields, so they are far
    smaller than every field of every hit."""
    store = filled
    async with Client(build_server(store), raise_exceptions=True) as client:
        compact = await client.call_tool(
            "memory_search", {"query": "staging deploy", "budget_tokens": 150, "top_k": 20}
        )
        full = await client.call_tool(
            "memory_search",
            {"query": "staging deploy", "budget_tokens": 150, "top_k": 20, "verbose": True},
        )
    hits, all_fields = compact.structured_content["hits"], full.structured_content["hits"]
    assert [h["id"] for h in hits] == [h["id"] for h in all_fields] and hits
    assert all("content_hash" not in h and "idempotency_key" not in h for h in hits)
    assert all(len(h["content_hash"]) == 64 for h in all_fields)
    assert len(json.dumps(hits)) < len(json.dumps(all_fields))
    assert estimate_tokens(_text(compact)) <= 150
