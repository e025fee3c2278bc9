"""The block never drops its best hit and says what it left out (issue 30, point 3): through the
CLI (``hindsight search --budget N --format context``) and a real MCP client's ``memory_search``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from hindsight_cli.mcp_server import build_server
from hindsight_cli.store import Store

LONG_FIX = "raised maxclients to 20000, moved the session keys to their own instance and " * 6


def _fill(record: Any) -> None:
    record(
        "During the Friday sale the Redis cache timed out under load: every checkout waited on "
        "GET session:* until the pool ran dry",
        outcome="failure",
        resolution=LONG_FIX,
    )
    for n in range(6):
        record(f"The Redis cache timed out under load again on day {n}: replica {n} lagged")
    record("The CI runner image moved to Ubuntu 24.04")


def _cli_record(cli: Any) -> Any:
    def record(text: str, outcome: str | None = None, resolution: str | None = None) -> None:
        extra = ["--outcome", outcome] if outcome else []
        extra += ["--resolution", resolution] if resolution else []
        result = cli("record", text, "--no-merge", *extra)
        assert result.exit_code == 0, result.stderr

    return record


def test_the_cli_block_holds_the_best_hit_at_every_budget_and_counts_what_it_left_out(
    cli: Any,
) -> None:
    _fill(_cli_record(cli))
    query = "Redis cache timed out under load during the Friday sale"
    best = json.loads(cli("search", query, "--json").stdout)[0]
    assert "Friday sale" in best["content"]
    left_out = 0
    for budget in range(40, 260, 11):
        result = cli("search", query, "--format", "context", "--budget", str(budget))
        assert result.exit_code == 0, result.stderr
        lines = result.stdout.splitlines()
        assert "During the Friday sale" in lines[1], (budget, result.stdout)
        shown = len(lines) - 1
        assert lines[0].startswith(f"[hindsight: {shown} memor")
        # what the budget left out is in the block, not on stderr alone
        if "more hit(s) left out" in result.stderr:
            assert "more did not fit]" in lines[0], (budget, lines[0])
            left_out += 1
    assert left_out > 5
    # a budget too small for any line: the header says so
    result = cli("search", query, "--format", "context", "--budget", "5")
    assert result.exit_code == 0, result.stderr
    header = result.stdout.splitlines()[0]
    assert header.startswith("[hindsight: 0 memories, ") and "more did not fit]" in header


pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_an_mcp_search_holds_the_best_hit_at_every_budget(store: Store) -> None:
    def record(text: str, outcome: str | None = None, resolution: str | None = None) -> None:
        store.record(text, outcome=outcome or "neutral", resolution=resolution, merge=False)

    _fill(record)
    query = "Redis cache timed out under load during the Friday sale"
    left_out = 0
    async with Client(build_server(store), raise_exceptions=True) as client:
        for budget in range(40, 260, 11):
            result = await client.call_tool(
                "memory_search", {"query": query, "budget_tokens": budget}
            )
            assert not result.is_error
            text = "".join(block.text for block in result.content)
            lines = text.splitlines()
            assert "During the Friday sale" in lines[1], (budget, text)
            found = result.structured_content
            left_out += bool(found["dropped_for_budget"])
            if found["dropped_for_budget"]:
                assert f"; {found['dropped_for_budget']} more did not fit]" in lines[0]
        assert left_out > 5
        result = await client.call_tool("memory_search", {"query": query, "budget_tokens": 20})
        text = "".join(block.text for block in result.content)
        assert text.startswith("[hindsight: 0 memories") and "more did not fit" in text
