"""A memory's resolution (the fix) is a text of the memory as its content is, within the same
limit (``[limits] max_content_bytes``), refused past it in one line before it is redacted (review
AS): it had no bound, and its redaction ran while the write held every agent's writes on a shared
server (alice's 256 KB resolution held them 24 s; 4 MiB, many minutes), then it was read with every
hit. Every way a resolution arrives: a write, a later fix (an edit, the MCP tool's ``id``), the CLI,
an import line. So is a memory's environment: at most ``MAX_ENV_KEYS`` keys, each value at most
``MAX_LABEL`` characters (alice's value of 256 KB held them 18 s, 1,000 keys of 200 characters
27 s)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client
from typer.testing import CliRunner

from hindsight_cli.cli import app
from hindsight_cli.errors import BadUsage, InvalidInput
from hindsight_cli.mcp_server import build_server
from hindsight_cli.store import Store

pytestmark = pytest.mark.anyio

LIMIT = 16 * 1024
OVER = "x" * (LIMIT + 1)
FAR_OVER = "x" * (4 * LIMIT + 1)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_a_resolution_over_the_limit_is_refused(store: Store) -> None:
    fits = store.record("the build failed: disk full", outcome="failure", resolution="y" * LIMIT)
    assert fits.memory.resolution == "y" * LIMIT
    for long in (OVER, FAR_OVER):
        with pytest.raises(InvalidInput, match=f"resolution is .* the {LIMIT}-byte limit"):
            store.record("the deploy failed: token expired", outcome="failure", resolution=long)
        with pytest.raises(InvalidInput, match=f"resolution is .* the {LIMIT}-byte limit"):
            store.edit(fits.memory.id, resolution=long)
    assert [m.resolution for m in store.list()] == ["y" * LIMIT]


async def test_an_mcp_write_or_fix_with_a_long_resolution_is_refused(store: Store) -> None:
    mine = store.record("alice: the runner ran out of disk", agent_id="alice").memory
    async with Client(build_server(store, agent="alice")) as client:
        for call in (
            {"content": "alice: the cache is stale", "resolution": FAR_OVER},
            {"id": mine.id, "resolution": OVER},
        ):
            refused = await client.call_tool("memory_write", call)
            assert refused.is_error and "resolution is" in refused.content[0].text
    assert [(m.id, m.resolution) for m in store.list()] == [(mine.id, None)]


def test_the_cli_and_an_import_refuse_a_long_resolution(store: Store, tmp_path: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(
        app,
        ["record", "the job failed", "--resolution", OVER, "--store", str(store.path)],
    )
    assert done.exit_code != 0 and "resolution is" in done.output
    assert "Traceback" not in done.output
    lines = tmp_path / "in.jsonl"
    lines.write_text(json.dumps({"content": "an imported failure", "resolution": FAR_OVER}) + "\n")
    runner.invoke(app, ["import", str(lines), "--store", str(store.path)])
    assert store.list() == []


def test_an_environment_is_bounded(store: Store) -> None:
    fits = {"tool_version": "v" * 200, "os": "linux\nubuntu"}
    assert store.record("the upload needs multipart", env=fits).memory.env == fits
    with pytest.raises(BadUsage, match="env value of 'tool_version' is 201 characters"):
        store.record("the upload needs chunks", env={"tool_version": "v" * 201})
    with pytest.raises(BadUsage, match="env holds at most 64 keys, not 65"):
        store.record("the upload needs chunks", env={f"k{n}": "v" for n in range(65)})
    assert store.record("the upload needs parts", env={f"k{n}": "v" for n in range(64)}).memory
    assert len(store.list()) == 2


async def test_an_mcp_write_with_a_long_environment_value_is_refused(store: Store) -> None:
    async with Client(build_server(store, agent="alice")) as client:
        refused = await client.call_tool(
            "memory_write", {"content": "alice: the cache is stale", "env": {"os": OVER}}
        )
        assert refused.is_error and "env value of 'os'" in refused.content[0].text
    assert store.list() == []
