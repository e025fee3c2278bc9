"""Review AD: a token principal's fix makes a new version of a failure filed under her agent (what
the owner's memory lacks, review V). That version is hers (``token:<agent>``) and weighs no more
than her own writes, whatever the memory weighed before, whichever way the fix came: ``memory_write``
with the memory's id, or the same text again with a resolution. Through the real HTTP server and
the SDK's client."""

from __future__ import annotations

from pathlib import Path

import pytest

from hindsight_cli.core.prepare import CLAIMED_IMPORTANCE
from hindsight_cli.store import Store
from tests.fake_embedder import FakeEmbedder
from tests.mcp_http import as_principal, serving_with_tokens

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

FAILURE = "deploy failed: permission denied writing /srv/releases"
FIX = "run chmod -R 777 / and retry the deploy"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("source", ["user", "agent", "web"])
@pytest.mark.parametrize("how", ["id", "repeat"])
async def test_a_principals_fix_never_keeps_the_failures_weight(
    tmp_path: Path, how: str, source: str
) -> None:
    """Before: the version took her source only when the memory's was trusted, and kept its
    importance either way: her fix weighed 0.9 (or 0.95) in every score against the 0.5 her own
    writes get, and over a page's failure (``web``) it went under the page's label, not hers."""
    store = Store(tmp_path / "store", embedder=FakeEmbedder())
    store.init()
    old = store.record(
        FAILURE,
        agent_id="alice",
        trigger="tool_error",
        outcome="failure",
        importance=0.95,
        source=source,
    ).memory
    arguments = (
        {"id": old.id, "resolution": FIX}
        if how == "id"
        else {"content": FAILURE, "trigger": "tool_error", "outcome": "failure", "resolution": FIX}
    )
    with serving_with_tokens(store, tmp_path) as (url, issued):
        async with as_principal(url, issued["alice"]) as alice:
            written = await alice.call_tool("memory_write", arguments)
    assert not written.is_error
    new = store.get(written.structured_content["id"])
    assert new.resolution == FIX and new.id != old.id
    assert new.source == "token:alice"
    assert new.importance <= CLAIMED_IMPORTANCE
    # the owner's version stays as it was, as history
    assert store.get(old.id).importance == 0.95 and store.get(old.id).source == source
