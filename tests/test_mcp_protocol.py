"""The protocol's utilities and a client's choices (issue 34, MCP): titles, logging/setLevel,
completion/complete, budgets on resources and small memory_get budgets, tool profiles and the
compact schema; through the SDK's real client."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from mcp import Client
from mcp.types import PromptReference, ResourceTemplateReference

from hindsight_cli.mcp_server import build_server
from hindsight_cli.mcp_server.results import GET_BUDGET, RECENT_BUDGET
from hindsight_cli.store import Store
from hindsight_cli.text import estimate_tokens

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_tools_prompt_and_resources_have_titles(store: Store) -> None:
    async with Client(build_server(store)) as client:
        tools = (await client.list_tools()).tools
        prompts = (await client.list_prompts()).prompts
        resources = (await client.list_resources()).resources
        templates = (await client.list_resource_templates()).resource_templates
    assert {t.name: t.title for t in tools} == {
        "memory_write": "Write a memory",
        "memory_search": "Search memories",
        "memory_summarize": "Summarize a task",
        "memory_consolidate": "Consolidate episodes",
        "memory_get": "Get a memory",
        "memory_forget": "Forget memories",
    }
    assert all(t.annotations.title == t.title for t in tools)
    assert [(p.name, p.title) for p in prompts] == [("recall", "Recall for a task")]
    assert [r.title for r in resources] == ["Recent memories"]
    assert [t.title for t in templates] == ["A memory"]


async def test_set_level_decides_what_the_server_logs_to_the_client(store: Store) -> None:
    heard: list = []

    async def listen(params) -> None:  # type: ignore[no-untyped-def]
        heard.append(params)

    async with Client(build_server(store), mode="legacy", logging_callback=listen) as client:
        await client.call_tool("memory_get", {"id": "0123abcd"})
        # nothing before the client asks
        assert heard == []
        assert (await client.set_logging_level("error")).model_dump(exclude_none=True) == {}
        await client.call_tool("memory_get", {"id": "0123abcd"})
        assert heard == []
        await client.set_logging_level("info")
        await client.call_tool("memory_get", {"id": "0123abcd"})
    assert [(p.level, p.logger) for p in heard] == [("info", "hindsight.mcp")]
    assert heard[0].data.startswith("memory_get refused: No memory with id '0123abcd'.")


async def test_a_2026_request_opts_in_to_the_log_itself(store: Store) -> None:
    heard: list = []

    async def listen(params) -> None:  # type: ignore[no-untyped-def]
        heard.append(params)

    async with Client(build_server(store), logging_callback=listen, log_level="info") as client:
        await client.call_tool("memory_get", {"id": "0123abcd"})
    assert [(p.level, p.logger) for p in heard] == [("info", "hindsight.mcp")]


async def test_completion_offers_the_requesting_agent_s_ids_and_tasks(store: Store) -> None:
    mine = [
        store.record(f"step {i} of the deploy", agent_id="a", task_id=f"deploy-{i % 2}").memory
        for i in range(3)
    ]
    mine.append(
        store.record(
            "Ship the release notes\nfor 2.0", agent_id="a", task_id="notes", trigger="task_start"
        ).memory
    )
    other = store.record("b's secret plan", agent_id="b", task_id="heist").memory
    template = ResourceTemplateReference(type="ref/resource", uri="hindsight://memory/{memory_id}")
    recall = PromptReference(type="ref/prompt", name="recall")
    async with Client(build_server(store, agent="a")) as client:
        ids = (await client.complete(template, {"name": "memory_id", "value": ""})).completion
        start = mine[0].id[:30]
        typed = (await client.complete(template, {"name": "memory_id", "value": start})).completion
        tasks = (await client.complete(recall, {"name": "task_id", "value": "dep"})).completion
        goals = (await client.complete(recall, {"name": "task", "value": "Ship"})).completion
        budgets = (
            await client.complete(recall, {"name": "budget_tokens", "value": "4"})
        ).completion
        # a prompt or argument it does not know: nothing offered, no error
        stranger = await client.complete(
            PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
            {"name": "arg1", "value": "test"},
        )
    assert sorted(ids.values) == sorted(m.id for m in mine) and other.id not in ids.values
    assert ids.total == 4 and ids.has_more is False
    assert typed.values == [m.id for m in mine if m.id.startswith(start)]
    assert sorted(tasks.values) == ["deploy-0", "deploy-1"]
    # a task's goal, from its task_start memory
    assert goals.values == ["Ship the release notes"]
    assert budgets.values == ["400"]
    assert stranger.completion.values == []


async def test_completion_is_bounded(store: Store) -> None:
    # one import rather than 120 records: what completion offers is the point, not how they came
    store.import_records([{"content": f"note number {i}", "task_id": f"t{i}"} for i in range(120)])
    recall = PromptReference(type="ref/prompt", name="recall")
    async with Client(build_server(store)) as client:
        tasks = (await client.complete(recall, {"name": "task_id", "value": "t"})).completion
    assert len(tasks.values) == 100 and tasks.total == 120 and tasks.has_more is True


async def test_resources_answer_within_a_budget(store: Store) -> None:
    long = "the deploy log says: " + "step ok, " * 1000
    # in one import (25 long records took seconds), a minute apart: the newest is the last
    start = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
    store.import_records(
        [
            {"content": f"{i}: {long}", "step": i, "source": "agent"}
            | {"created_at": (start + timedelta(minutes=i)).isoformat()}
            for i in range(25)
        ]
    )
    ids = [m.id for m in sorted(store.list(limit=None), key=lambda m: m.step or 0)]
    async with Client(build_server(store)) as client:
        recent = (await client.read_resource("hindsight://memories/recent")).contents[0].text
        one = (await client.read_resource(f"hindsight://memory/{ids[0]}")).contents[0].text
    shown = json.loads(recent)
    assert estimate_tokens(recent) <= RECENT_BUDGET
    # newest first, every field kept, the text cut rather than the memory left out
    assert shown and shown[0]["id"] == ids[-1] and set(shown[0]) == set(store.get(ids[0]).to_dict())
    assert shown[0]["content"].startswith("24: the deploy log says: step ok") and shown[0][
        "content"
    ].endswith("…")
    assert estimate_tokens(one) <= GET_BUDGET and json.loads(one)["id"] == ids[0]


async def test_memory_get_with_a_small_budget_still_reads_the_text(store: Store) -> None:
    memory = store.record(
        "the weather API returned 401 because the token had expired; " * 20,
        task_id="weather",
        trigger="tool_error",
        outcome="failure",
        resolution="refresh the token first",
    ).memory
    async with Client(build_server(store)) as client:
        # every budget reads the same memory through one server
        for budget in (5, 12, 20, 40):
            got = await client.call_tool("memory_get", {"id": memory.id, "budget_tokens": budget})
            text = got.content[0].text
            assert not got.is_error and estimate_tokens(text) <= budget, budget
            assert "the we" in text and text.endswith(("…", "… [cut at budget_tokens]")), budget
            assert memory.id[-8:] in text


async def test_a_profile_lists_and_serves_only_its_tools(store: Store) -> None:
    async with Client(build_server(store, tools=["search", "memory_write", "get"])) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        written = await client.call_tool("memory_write", {"content": "profiles keep it small"})
        refused = await client.call_tool(
            "memory_forget", {"ids": [written.structured_content["id"]]}
        )
    assert names == ["memory_write", "memory_search", "memory_get"]
    assert refused.is_error and refused.content[0].text.startswith("Unknown tool: memory_forget;")
    assert len(store.list()) == 1


async def test_the_compact_schema_costs_fewer_tokens_and_accepts_every_argument(
    store: Store,
) -> None:
    sizes = {}
    for schema in ("full", "compact"):
        async with Client(build_server(store, schema=schema), mode="legacy") as client:
            listed = await client.session.list_tools()
            sizes[schema] = estimate_tokens(
                json.dumps(listed.model_dump(mode="json", by_alias=True, exclude_none=True))
            )
            tools = {t.name: t for t in listed.tools}
            if schema == "compact":
                # a listed-out argument is still taken
                written = await client.call_tool(
                    "memory_write", {"content": "compact", "importance": 0.9, "step": 2}
                )
                assert not written.is_error
    search = tools["memory_search"]
    assert "\n" not in search.description and search.description.endswith(".")
    assert set(search.input_schema["properties"]) == {
        "query",
        "top_k",
        "budget_tokens",
        "task_id",
        "types",
        "troubleshoot",
    }
    assert search.input_schema["properties"]["task_id"] == {
        "type": "string",
        "description": "The task the memory belongs to; a task's steps are summarized and "
        "ranked together.",
    }
    assert sizes["compact"] < sizes["full"] * 0.6
    assert store.get(written.structured_content["id"]).importance == 0.9


@pytest.mark.slow
async def test_the_command_line_serves_the_profile(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`hindsight mcp --tools search,get --schema compact`, started by a client over stdio."""
    import sys

    from mcp import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "hindsight_cli", "mcp", "--store", str(tmp_path / "s")]
        + ["--tools", "search,get", "--schema", "compact"],
        env={"HINDSIGHT_HOME": str(tmp_path / "home")},
    )
    async with Client(params) as client:
        tools = (await client.list_tools()).tools
        refused = await client.call_tool("memory_write", {"content": "x"})
    assert [(t.name, t.title) for t in tools] == [
        ("memory_search", "Search memories"),
        ("memory_get", "Get a memory"),
    ]
    assert set(tools[1].input_schema["properties"]) == {"id", "budget_tokens"}
    assert refused.is_error and refused.content[0].text == (
        "Unknown tool: memory_write; this server offers memory_search, memory_get."
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["--tools", "search,remember"],
            "No tool 'remember' in --tools: choose from write, search, summarize, consolidate, "
            "get, forget (comma-separated, e.g. --tools search,write,get).",
        ),
        (["--schema", "tiny"], "--schema must be one of full, compact, not 'tiny'."),
    ],
)
def test_an_unknown_tool_or_schema_is_a_usage_error(args: list[str], said: str) -> None:
    from typer.testing import CliRunner

    from hindsight_cli.cli import app

    result = CliRunner().invoke(app, ["mcp", *args])
    assert result.exit_code == 2
    assert said in " ".join(result.stderr.split())
