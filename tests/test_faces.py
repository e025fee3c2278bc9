"""One rule, every face: the same requests through the CLI, a real MCP client and the Python API
give the same results (selection, forgetting, scope, result shapes), because each face only parses,
calls the core once and renders."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from hindsight_cli.mcp_server import build_server
from hindsight_cli.search.query import SearchQuery
from hindsight_cli.store import Store

pytestmark = pytest.mark.anyio
PAST = "2020-01-01T00:00:00Z"
FACES = ["cli", "mcp", "python"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _seed(store: Store) -> dict[str, str]:
    """A store that holds one memory of each kind a selection rule tells apart; returns id →
    name."""
    names = {}
    for name, fields in {
        "active": {"content": "the deploy key rotates every week"},
        "expired": {"content": "a deploy scratch note that expired", "expires_at": PAST},
        "expired-forgotten": {"content": "a deploy note forgotten and expired", "expires_at": PAST},
        "archived": {"content": "an archived deploy runbook"},
        "other-agent": {"content": "agent b's deploy plan", "agent_id": "b"},
    }.items():
        content = fields.pop("content")
        names[store.record(content, merge=False, **fields).memory.id] = name
    by_name = {v: k for k, v in names.items()}
    store.forget([by_name["expired-forgotten"]])
    store.forget([by_name["archived"]], archive=True)
    return names


Call = Callable[[str, dict[str, Any]], Awaitable[Any]]


def _cli_face(cli: Any) -> Call:
    async def call(request: str, args: dict[str, Any]) -> Any:
        if request == "search":
            argv = ["search", args["query"], "--json"] + (
                ["--agent", args["agent"]] if args.get("agent") else []
            )
            return [hit["id"] for hit in json.loads(cli(*argv).stdout)]
        if request == "forget":
            argv = (
                ["forget", "-y", "--json"]
                + (["--expired"] if args.get("expired") else [])
                + (["--agent", args["agent"]] if args.get("agent") else [])
                + (["--hard"] if args.get("hard") else [])
            )
            return json.loads(cli(*argv).stdout)
        if request == "consolidate":
            return sorted(json.loads(cli("consolidate", "--dry-run", "--json").stdout))
        raise AssertionError(request)

    return call


def _mcp_face(client: Client) -> Call:
    async def call(request: str, args: dict[str, Any]) -> Any:
        if request == "search":
            query = {
                "query": args["query"],
                **({"agent_id": args["agent"]} if args.get("agent") else {}),
            }
            result = await client.call_tool("memory_search", query)
            return [hit["id"] for hit in result.structured_content["hits"]]
        if request == "forget":
            result = await client.call_tool(
                "memory_forget",
                {"expired": args.get("expired", False), "hard": args.get("hard", False)},
            )
            return result.structured_content
        if request == "consolidate":
            return sorted(
                (await client.call_tool("memory_consolidate", {"dry_run": True})).structured_content
            )
        raise AssertionError(request)

    return call


def _python_face(store: Store) -> Call:
    async def call(request: str, args: dict[str, Any]) -> Any:
        if request == "search":
            from hindsight_cli.core.selection import browse_filters

            filters = browse_filters(agent_id=args.get("agent"), search=True)
            return [hit.memory.id for hit in store.search(SearchQuery(args["query"], filters)).hits]
        if request == "forget":
            return store.forget_where(
                expired=args.get("expired", False),
                agent_id=args.get("agent"),
                hard=args.get("hard", False),
            ).to_dict()
        if request == "consolidate":
            return sorted(store.consolidate(dry_run=True).to_dict())
        raise AssertionError(request)

    return call


async def _run(
    face: str, path: Path, cli: Any, requests: list[tuple[str, dict[str, Any]]]
) -> list[Any]:
    # the default model, as the CLI's own store uses
    store = Store(path)
    store.init()
    names = _seed(store)
    rename = lambda value: [names.get(v, v) for v in value] if isinstance(value, list) else value  # noqa: E731
    out: list[Any] = []
    if face == "mcp":
        async with Client(build_server(store), raise_exceptions=True) as client:
            call = _mcp_face(client)
            for request, args in requests:
                out.append(rename(await call(request, args)))
    else:
        call = _cli_face(cli) if face == "cli" else _python_face(store)
        for request, args in requests:
            out.append(rename(await call(request, args)))
    out.append(sorted((names.get(m.id, m.id), m.status) for m in store.list(limit=None)))
    return out


REQUESTS = [
    ("search", {"query": "deploy"}),
    ("search", {"query": "deploy", "agent": "b"}),
    ("consolidate", {}),
    # the drift the redesign issue found: CLI purged 1, MCP 0
    ("forget", {"expired": True}),
    ("search", {"query": "deploy"}),
]


async def test_the_same_requests_give_the_same_results_in_every_face(
    tmp_path: Path, cli: Any, backend: str, request: pytest.FixtureRequest
) -> None:
    from conftest import postgres_store_dir

    results = {}
    for face in FACES:
        path = cli.store_path if face == "cli" else tmp_path / f"{face}-store"
        if backend == "postgres" and face != "cli":
            path = postgres_store_dir(path, request.getfixturevalue("postgres_url"))
        results[face] = await _run(face, path, cli, REQUESTS)
    assert results["cli"] == results["mcp"] == results["python"]
    cli_results = results["cli"]
    assert set(cli_results[0]) == {"active", "other-agent"}
    assert cli_results[1] == ["other-agent"]
    # both expired ones, purged
    assert cli_results[3] == {"forgotten": 2, "hard": True, "archived": False}
    assert [name for name, _ in cli_results[-1]] == ["active", "archived", "other-agent"]
