"""An untrusted memory read by id keeps its trust label (review M).

A search's block labels every untrusted memory (``[from web, untrusted]``, ``[from token:alice,
untrusted]``), but ``memory_get`` answered with a facts line naming ``source web`` at best, and
under a tight ``budget_tokens`` that line gave way first: the model read another principal's (or a
web page's) text with nothing saying where it came from. The ``hindsight://memory/{id}`` and
``hindsight://memories/recent`` resources carried the source field only. Now the label leads the
text at every budget, and the resources' JSON carries it (``label``)."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from hindsight_cli.mcp_server import build_server
from hindsight_cli.store import Store

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


TEXT = "The staging database is rebuilt every night at 02:00 from the production snapshot. " * 3


@pytest.mark.parametrize(
    ("source", "label"),
    [("web", "[from web, untrusted]"), ("token:alice", "[from token:alice, untrusted]")],
)
async def test_a_memory_read_by_id_keeps_its_trust_label(
    store: Store, source: str, label: str
) -> None:
    memory = store.record(TEXT, source=source).memory
    mine = store.record("The team deploys on Tuesdays.", source="user").memory
    async with Client(build_server(store), raise_exceptions=True) as client:
        for budget in (None, 400, 40, 12, 3):
            arguments: dict[str, object] = {"id": memory.id}
            if budget:
                arguments["budget_tokens"] = budget
            result = await client.call_tool("memory_get", arguments)
            text = "".join(block.text for block in result.content)
            assert text.startswith(label), (budget, text)
        trusted = await client.call_tool("memory_get", {"id": mine.id})
        assert "untrusted" not in "".join(block.text for block in trusted.content)
        one = json.loads(
            (await client.read_resource(f"hindsight://memory/{memory.id}")).contents[0].text
        )
        assert one["label"] == label
        recent = json.loads(
            (await client.read_resource("hindsight://memories/recent")).contents[0].text
        )
        shown = {m["id"]: m for m in recent}
        assert shown[memory.id]["label"] == label
        assert "label" not in shown[mine.id]


async def test_what_is_derived_from_untrusted_text_is_labelled_where_it_is_answered(
    store: Store,
) -> None:
    """``memory_summarize`` and ``memory_consolidate`` answer with the text they wrote, derived
    from the memories' own words: from web text, that text is ``hindsight:web``, labelled in a
    block, and was answered unlabelled."""
    for text in (
        "pytest hit the import error for numpy again",
        "pytest hit the import error for numpy",
        "pytest import error for numpy noted",
    ):
        store.record(
            text,
            source="web",
            task_id="numpy",
            outcome="failure",
            merge=False,
            resolution="reinstalled numpy in the venv",
        )
    async with Client(build_server(store), raise_exceptions=True) as client:
        summary = await client.call_tool("memory_summarize", {"task_id": "numpy"})
        patterns = await client.call_tool("memory_consolidate", {})
    said = "".join(block.text for block in summary.content)
    assert "[from web via hindsight, untrusted]" in said.splitlines()[0], said
    assert patterns.structured_content["created"] == 1
    lines = "".join(block.text for block in patterns.content).splitlines()
    assert "[from web via hindsight, untrusted]" in lines[1], lines
