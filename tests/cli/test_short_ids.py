"""Ids people can type: the random tail (shown in tables, never broken over two lines), any unique
prefix or tail of 4 or more characters, and an ambiguous one lists the candidates as git does (issue
20)."""

from __future__ import annotations

import json

import pytest

from hindsight_cli.errors import MemoryNotFound
from hindsight_cli.models import SHORT_ID, short_id
from hindsight_cli.store import Store

LONG = (
    "the deployment of the payments service to the staging cluster failed because the database "
    "migration "
    "took a lock on the orders table"
)


def _ids(cli, count: int) -> list[str]:
    for i in range(count):
        cli(
            "record",
            f"{LONG} (attempt {i})",
            "--agent",
            "deploy-bot-with-a-long-name",
            "--task",
            f"task-2026-05-01-payments-{i}",
            "--outcome",
            "failure",
            "--resolution",
            "ran it again",
        )
    return [m["id"] for m in json.loads(cli("list", "--json").stdout)]


def test_tables_show_the_tail_whole_at_80_columns(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    from hindsight_cli.cli import render

    # what Rich assumes when stdout is not a terminal
    monkeypatch.setattr(render.out, "width", 80)
    ids = _ids(cli, 3)
    for table in (
        cli("list").stdout,
        cli("search", "payments deployment staging").stdout,
        cli("log").stdout,
        cli("search", "payments deployment", "--explain").stdout,
    ):
        lines = table.splitlines()
        # explain lines are prose
        assert all(len(line) <= 80 for line in lines if not line.startswith("#"))
        for memory_id in ids:
            assert any(short_id(memory_id) in line for line in lines), table
            # the full id is for JSON; tables show the part people type
            assert memory_id not in table


def test_the_tail_and_any_unique_part_find_the_memory(cli) -> None:
    ids = _ids(cli, 3)
    target = ids[1]
    for part in (short_id(target), target[-4:], target[-12:], target.upper()[-8:], target):
        shown = cli("show", part, "--json")
        assert shown.exit_code == 0, (part, shown.stderr)
        assert json.loads(shown.stdout)["id"] == target
    assert cli("forget", short_id(target)).exit_code == 0
    restored = cli("restore", short_id(target))
    assert restored.exit_code == 0 and f"Restored {target} (it was invalidated)." in restored.stderr


def test_an_ambiguous_prefix_lists_the_candidates(cli) -> None:
    ids = _ids(cli, 3)
    # UUIDv7s made together share their time prefix
    common = ids[0][:6]
    assert all(i.startswith(common) for i in ids)
    result = cli("show", common)
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert (
        lines[0]
        == f"Error: '{common}' matches 3 memories; give more of the id. The candidates are:"
    )
    assert sorted(line.split()[0] for line in lines[1:]) == sorted(ids)
    assert all("[episodic] the deployment of the payments" in line for line in lines[1:])
    assert "Traceback" not in result.stderr


def test_too_short_or_unknown_is_not_found(cli) -> None:
    ids = _ids(cli, 1)
    for part in (ids[0][-3:], "ffffffff", "zz-not-an-id"):
        result = cli("show", part)
        assert result.exit_code == 1 and "No memory with id" in result.stderr


def test_python_and_another_agents_scope(store: Store) -> None:
    mine = store.record("kept by agent a", agent_id="a").memory
    theirs = store.record("kept by agent b", agent_id="b").memory
    assert store.get(short_id(mine.id)).id == mine.id
    scoped = store.scoped("a")
    with pytest.raises(MemoryNotFound, match="No memory"):
        # another agent's memory is not there for a scoped store
        scoped.get(short_id(theirs.id))
    assert len(short_id(mine.id)) == SHORT_ID


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_through_mcp_the_tail_gets_and_forgets_and_an_ambiguous_part_lists_candidates(
    cli, anyio_backend: str
) -> None:
    from mcp import Client

    from hindsight_cli.mcp_server import build_server

    ids = _ids(cli, 2)
    async with Client(build_server(cli.open())) as client:
        got = await client.call_tool("memory_get", {"id": short_id(ids[0])})
        ambiguous = await client.call_tool("memory_get", {"id": ids[0][:6]})
        forgot = await client.call_tool("memory_forget", {"ids": [short_id(ids[1])]})
    assert not got.is_error and got.structured_content["id"] == ids[0]
    assert ambiguous.is_error and "matches 2 memories" in ambiguous.content[0].text
    assert all(memory_id in ambiguous.content[0].text for memory_id in ids)
    assert not forgot.is_error and cli.open().get(ids[1]).status == "invalidated"
