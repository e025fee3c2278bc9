"""A later fix is never lost through MCP (issue 30, point 1): `memory_write` of the same text with
the fix, or with `id`, gives the stored memory a new version, through the SDK's client."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from hindsight_cli import Filters
from hindsight_cli.mcp_server import build_server
from hindsight_cli.store import Store

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


FAILURE = {"content": "the iOS build failed: provisioning profile expired", "outcome": "failure"}


async def test_the_same_write_with_the_fix_updates_the_memory(store: Store) -> None:
    async with Client(build_server(store), raise_exceptions=True) as client:
        first = (await client.call_tool("memory_write", FAILURE)).structured_content["id"]
        fixed = await client.call_tool(
            "memory_write", {**FAILURE, "resolution": "renewed the profile in the dev portal"}
        )
        again = await client.call_tool(
            "memory_write", {**FAILURE, "resolution": "renewed the profile in the dev portal"}
        )
    answer = fixed.structured_content
    assert not fixed.is_error
    assert answer["superseded"] == [first] and answer["change"] == "resolution added"
    assert answer["updated"] is True and answer["deduplicated"] is False
    assert fixed.content[0].text == (
        f"Updated: resolution added. {answer['id']} is the new version of {first}, which stays "
        "as history."
    )
    assert (
        again.structured_content["id"] == answer["id"] and again.structured_content["deduplicated"]
    )
    [memory] = store.list(Filters(), limit=None)
    assert memory.id == answer["id"]
    assert memory.resolution == "renewed the profile in the dev portal"
    assert [e.action for e in store.log(action="fixed")] == ["fixed"]


async def test_memory_write_with_id_edits_what_was_learnt(store: Store) -> None:
    async with Client(build_server(store), raise_exceptions=True) as client:
        first = (await client.call_tool("memory_write", FAILURE)).structured_content["id"]
        edited = await client.call_tool(
            "memory_write",
            {"id": first[-8:], "resolution": "renewed the profile", "tags": ["ios"]},
        )
        other_text = await client.call_tool(
            "memory_write", {"id": edited.structured_content["id"], "content": "something else"}
        )
        other_field = await client.call_tool(
            "memory_write",
            {"id": edited.structured_content["id"], "task_id": "t-2", "outcome": "success"},
        )
        nothing = await client.call_tool("memory_write", {"outcome": "failure"})
    assert not edited.is_error
    assert edited.structured_content["change"] == "resolution added, tag added: ios"
    assert edited.structured_content["superseded"] == [first]
    memory = store.get(edited.structured_content["id"])
    assert (memory.content, memory.resolution, memory.tags) == (
        FAILURE["content"],
        "renewed the profile",
        ["ios"],
    )
    assert other_text.is_error and "keeps the text" in other_text.content[0].text
    assert other_field.is_error and "task_id cannot be edited" in other_field.content[0].text
    assert nothing.is_error and "content is missing" in nothing.content[0].text
    assert [m.id for m in store.list(Filters(), limit=None)] == [memory.id]


@pytest.mark.slow
async def test_a_later_fix_through_a_stdio_server(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "hindsight_cli", "mcp", "--store", str(tmp_path / "s")],
        env={"HINDSIGHT_HOME": str(tmp_path / "home")},
    )
    async with Client(params) as client:
        first = (await client.call_tool("memory_write", FAILURE)).structured_content["id"]
        fixed = await client.call_tool(
            "memory_write", {**FAILURE, "resolution": "renewed the profile"}
        )
        tagged = await client.call_tool(
            "memory_write", {"id": fixed.structured_content["id"], "tags": ["ios"]}
        )
    assert fixed.content[0].text.startswith("Updated: resolution added.")
    assert fixed.structured_content["superseded"] == [first]
    assert tagged.structured_content["change"] == "tag added: ios"
    [memory] = Store(tmp_path / "s").list(Filters(), limit=None)
    assert (memory.resolution, memory.tags) == ("renewed the profile", ["ios"])
