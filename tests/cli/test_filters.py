"""list/search --source, and --task/--tag filter values redacted as the write path redacts them,
through the CLI and MCP (issue 20)."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from hindsight_cli.mcp_server import build_server

# a GitHub token's shape, no real token
TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
TASK = f"deploy-{TOKEN}"
TAG = f"token={TOKEN}"


def _record(cli, text: str, *more: str) -> str:
    result = cli("record", text, *more)
    assert result.exit_code == 0, result.stderr
    return result.stdout.strip()


def _contents(result) -> set[str]:
    assert result.exit_code == 0, result.stderr
    found = json.loads(result.stdout)
    return {m["content"] for m in found}


def test_list_and_search_by_source(cli) -> None:
    _record(cli, "the user wants answers in French", "--source", "user")
    _record(cli, "a web page says the API is rate limited", "--source", "web")
    # source agent, the default
    _record(cli, "the agent noted the API is rate limited")
    assert _contents(cli("list", "--source", "User", "--json")) == {
        "the user wants answers in French"
    }
    assert _contents(cli("list", "--source", "user", "--source", "web", "--json")) == {
        "the user wants answers in French",
        "a web page says the API is rate limited",
    }
    assert _contents(cli("search", "API rate limited", "--source", "agent", "--json")) == {
        "the agent noted the API is rate limited"
    }
    assert _contents(cli("list", "--source", "tool", "--json")) == set()
    assert "--source" in cli("list", "--help", store=False).stdout


def test_a_secret_in_task_or_tag_filters_finds_what_was_recorded_with_it(cli) -> None:
    kept = _record(cli, "the deploy needed a fresh token", "--task", TASK, "--tag", TAG)
    _record(cli, "another deploy note", "--task", "deploy-plain")
    stored = json.loads(cli("show", kept, "--json").stdout)
    # the write path redacted both
    assert TOKEN not in json.dumps(stored)
    for args in (
        ["list", "--task", TASK],
        ["list", "--tag", TAG],
        ["search", "deploy token", "--task", TASK],
        ["search", "deploy token", "--tag", TAG],
    ):
        assert _contents(cli(*args, "--json")) == {"the deploy needed a fresh token"}, args
        shown = cli(*args)
        assert shown.exit_code == 0 and TOKEN not in shown.stdout + shown.stderr
    forgot = cli("forget", "--task", TASK, "-y")
    assert forgot.exit_code == 0 and forgot.stderr.startswith("Forgot 1 memory.")
    assert {
        m["content"] for m in json.loads(cli("list", "--status", "active", "--json").stdout)
    } == {"another deploy note"}


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_through_mcp_sources_and_redacted_filters(cli, anyio_backend: str) -> None:
    _record(
        cli, "the deploy needed a fresh token", "--task", TASK, "--tag", TAG, "--source", "tool"
    )
    _record(cli, "the deploy token lives in the vault", "--source", "user")
    async with Client(build_server(cli.open()), raise_exceptions=True) as client:
        by_task = await client.call_tool(
            "memory_search", {"query": "deploy token", "task_id": TASK, "tags": [TAG]}
        )
        by_source = await client.call_tool(
            "memory_search", {"query": "deploy token", "sources": ["user"]}
        )
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert [h["content"] for h in by_task.structured_content["hits"]] == [
        "the deploy needed a fresh token"
    ]
    assert [h["content"] for h in by_source.structured_content["hits"]] == [
        "the deploy token lives in the vault"
    ]
    assert "sources" in tools["memory_search"].input_schema["properties"]


def test_min_score_cuts_what_scores_under_it_and_is_checked(cli) -> None:
    for text in (
        "users get logged out randomly: the session cookie expired",
        "sessions disappear after a deploy",
        "the billing export runs nightly",
    ):
        _record(cli, text)
    query = "users get logged out randomly, sessions disappear"
    hits = json.loads(cli("search", query, "-k", "10", "--json").stdout)
    assert len(hits) > 1
    floor = hits[0]["score"] - 0.01
    kept = json.loads(cli("search", query, "--min-score", str(floor), "--json").stdout)
    assert [h["id"] for h in kept] == [hits[0]["id"]]
    result = cli("search", query, "--min-score", "1.5")
    assert result.exit_code == 2 and "1.5" in result.stderr
