"""A memory's page in ``hindsight ui`` lists a bounded number of its audit entries (review AV,
low): each repeat of a memory (a merge) adds an entry, so a writer repeating hers, a token
principal on a shared server, made its page, the owner's as well as hers, as long as she liked."""

from __future__ import annotations

import pytest
from fake_embedder import FakeEmbedder

from hindsight_cli.store import Store
from hindsight_cli.ui import memory_page

pytestmark = pytest.mark.local_only


@pytest.mark.parametrize("reader", [None, "alice"], ids=["owner", "principal"])
def test_a_memorys_page_lists_its_newest_audit_entries(
    store: Store, fake: FakeEmbedder, monkeypatch: pytest.MonkeyPatch, reader: str | None
) -> None:
    monkeypatch.setattr(memory_page, "AUDIT_SHOWN", 2, raising=False)
    alice = store.scoped("alice", principal=True)
    memory = alice.record("the deploy of api needs the vpn up first").memory
    for said in ("The", "THE"):
        # the same statement again: merged, an audit entry each
        alice.record(f"{said} deploy of api needs the vpn up first")
    assert len(store.log(limit=None, memory_id=memory.id)) == 3
    viewer = store.scoped(reader, principal=True) if reader else store
    _, body = memory_page.render(viewer, memory.id, None, "csrf")
    audit = str(body).split("<h2>Audit log</h2>", 1)[1]
    assert audit.count("<tr") - 1 == 2, audit
    assert f"hindsight log --id {memory.id} --limit 0" in audit
    # fewer than the bound: every entry, and no note
    other = alice.record("the cache of api is warmed at nine").memory
    _, body = memory_page.render(viewer, other.id, None, "csrf")
    assert "hindsight log --id" not in str(body)
