"""Summaries do not crowd out what they summarise (issue 30, point 5), through the CLI and a real
MCP client: a block holds a summary or the memories it covers, never both; a summary of a time range
never ranks above a precise memory; a range's title is one a person reads."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from hindsight_cli.mcp_server import build_server
from hindsight_cli.store import Store

EPISODES = [
    (
        "Release 9 build failed: pnpm install could not resolve @acme/ui from the registry",
        "2026-11-30T14:05:00Z",
        ["--outcome", "failure", "--resolution", "pinned @acme/ui to 3.2.0 in package.json"],
    ),
    ("Release 9 build passed once @acme/ui was pinned", "2026-11-30T14:40:00Z", []),
    ("Release 9 deployed to staging after the pnpm install fix", "2026-11-30T16:40:00Z", []),
]
FACT = "The repo pins pnpm 9.12.0 through the packageManager field of package.json"


def _build(cli: Any) -> dict[str, str]:
    ids = {}
    for n, (text, at, extra) in enumerate(EPISODES):
        result = cli("record", text, "--task", "rel-9", "--event-at", at, "--json", *extra)
        assert result.exit_code == 0, result.stderr
        ids[f"episode{n}"] = json.loads(result.stdout)["id"]
    result = cli(
        "record", FACT, "--type", "semantic", "--event-at", "2026-11-30T15:00:00Z", "--json"
    )
    ids["fact"] = json.loads(result.stdout)["id"]
    task = cli("summarize", "--task", "rel-9", "--json")
    assert task.exit_code == 0, task.stderr
    ids["task"] = json.loads(task.stdout)["id"]
    span = ["--since", "2026-11-30T14:05:00Z", "--until", "2026-11-30T16:40:00Z"]
    plain = cli("summarize", *span)
    assert plain.exit_code == 0, plain.stderr
    # a title a person reads: minutes, the end's date left out on the same day
    assert plain.stdout.startswith("Summary of 2026-11-30 14:05 → 16:40"), plain.stdout
    assert ".000000" not in plain.stdout and "T14" not in plain.stdout
    ids["range"] = json.loads(cli("summarize", *span, "--json").stdout)["id"]
    return ids


def _beside(ids: dict[str, str], found: list[str]) -> list[str]:
    """The summaries in ``found`` shown beside a memory they cover, or beside each other (both
    cover the release's memories)."""
    episodes = {v for k, v in ids.items() if k.startswith("episode")}
    beside = [s for s in ("task", "range") if ids[s] in found and episodes & set(found)]
    return beside + (["both"] if {ids["task"], ids["range"]} <= set(found) else [])


QUERIES = (
    "pnpm install could not resolve @acme/ui in the release 9 build",
    "what happened with release 9",
    "which pnpm version does the repo pin",
)


def test_a_cli_block_holds_a_summary_or_its_sources_and_ranges_rank_after_facts(cli: Any) -> None:
    ids = _build(cli)
    for query in QUERIES:
        for extra in (["--budget", "400"], ["--troubleshoot"]):
            result = cli("search", query, "--json", *extra)
            assert result.exit_code == 0, result.stderr
            found = [h["id"] for h in json.loads(result.stdout)]
            assert found and not _beside(ids, found), (query, extra, found)
        # in any list, the range's summary comes after every precise memory found with it
        found = [h["id"] for h in json.loads(cli("search", query, "--json", "-k", "10").stdout)]
        if ids["range"] in found:
            precise = [i for i in found if i not in (ids["range"], ids["task"])]
            assert all(found.index(i) < found.index(ids["range"]) for i in precise), query
    fact_first = json.loads(cli("search", QUERIES[2], "--json", "-k", "10").stdout)
    assert fact_first[0]["id"] == ids["fact"]


pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_an_mcp_search_holds_a_summary_or_its_sources(store: Store) -> None:
    ids = {}
    for n, (text, at, extra) in enumerate(EPISODES):
        resolution = extra[3] if extra else None
        ids[f"episode{n}"] = store.record(
            text,
            task_id="rel-9",
            event_at=at,
            outcome="failure" if extra else "neutral",
            resolution=resolution,
        ).memory.id
    ids["fact"] = store.record(FACT, type="semantic").memory.id
    ids["task"] = store.summarize(task_id="rel-9").memory.id
    async with Client(build_server(store), raise_exceptions=True) as client:
        summary = await client.call_tool(
            "memory_summarize", {"since": "2026-11-30T14:05:00Z", "until": "2026-11-30T16:40:00Z"}
        )
        text = "".join(b.text for b in summary.content)
        assert "Summary of 2026-11-30 14:05 → 16:40" in text and ".000000" not in text
        ids["range"] = summary.structured_content["id"]
        for query in QUERIES:
            result = await client.call_tool(
                "memory_search", {"query": query, "budget_tokens": 400, "top_k": 10}
            )
            found = [h["id"] for h in result.structured_content["hits"]]
            assert found and not _beside(ids, found), (query, found)
        # the recall prompt opens with the memories, not with a summary repeating them
        prompt = await client.get_prompt("recall", {"task": QUERIES[1]})
        text = prompt.messages[0].content.text
        assert "Release 9 build failed" in text and ".000000" not in text
        # one summary of the release's memories, not two repeating each other
        assert text.count("Summary of") <= 1, text
