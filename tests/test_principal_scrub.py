"""A hard forget scrubs the spool and the mining state by the forgotten memories' words (they hold
no ids): review AA. A token principal's words never came through them (the hooks are the store
owner's), so a text of hers must never take the owner's pending hook events, "seen before"
signatures or open failures with it, whoever forgets it. Through a real MCP client over HTTP with
tokens, and the hook entry."""

from __future__ import annotations

from pathlib import Path

import hook_calls
import pytest
from fake_embedder import FakeEmbedder
from typer.testing import CliRunner

from hindsight_cli import embedding
from hindsight_cli.cli import app
from hindsight_cli.store import Store
from tests.mcp_http import as_principal as _as, serving_with_tokens

pytestmark = [pytest.mark.slow, pytest.mark.anyio]
MODEL = FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)
# words the owner's hook events hold (a pytest run's failure), among a vocabulary of common ones
VOCABULARY = (
    "pytest tests test zanzibar py exit code modulenotfounderror no module named requests bash "
    "command error failed not found file install pip run the a of to and in is it for on with"
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _flush(project: Path) -> None:
    done = CliRunner().invoke(
        app, ["hooks", "flush", "--json", "--store", str(project / ".hindsight")]
    )
    assert done.exit_code == 0, done.output[-800:]


@pytest.mark.parametrize("forgetter", ["herself", "the owner"])
async def test_a_token_principals_hard_forget_never_scrubs_the_owners_hook_events(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forgetter: str
) -> None:
    monkeypatch.setitem(embedding._CACHE, embedding.DEFAULT_MODEL, MODEL)
    project = tmp_path / "weather"
    (project / ".hindsight").mkdir(parents=True)
    store = Store(project / ".hindsight", embedder=MODEL)
    store.init()
    # the owner's session: a failure spooled (an open failure awaiting its fix)
    hook_calls.fail(project, "s1")
    with serving_with_tokens(store, tmp_path) as (url, issued):
        async with _as(url, issued["alice"]) as alice:
            wrote = await alice.call_tool("memory_write", {"content": VOCABULARY})
            assert not wrote.is_error
            mine = wrote.structured_content["id"]
            if forgetter == "herself":
                gone = await alice.call_tool("memory_forget", {"ids": [mine], "hard": True})
                assert not gone.is_error and gone.structured_content["forgotten"] == 1
    if forgetter == "the owner":
        done = CliRunner().invoke(
            app, ["forget", mine, "--hard", "-y", "--store", str(project / ".hindsight")]
        )
        assert done.exit_code == 0, done.output[-800:]
    # her text is gone from the store
    assert all(m.id != mine for m in store.list(limit=None))
    # the owner's session goes on: the fix of its failure, then its end
    hook_calls.fix(project, "s1")
    hook_calls.run(project, "SessionEnd", "s1", reason="exit")
    _flush(project)
    failures = [m for m in store.list(limit=None) if hook_calls.FAILED in m.content]
    assert failures, [m.content for m in store.list(limit=None)]
    assert any("pip install requests" in (m.resolution or "") for m in failures), [
        (m.content, m.resolution) for m in failures
    ]
    assert all("token:" not in m.source for m in failures)
