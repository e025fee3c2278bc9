"""A hard forget deletes the versions of its texts made between its plan and its delete (review
AV): the plan named the versions there were, the delete took only those, so an edit, a fix given by
a repeated write or a release that committed meanwhile (while the user read the confirmation,
another agent's write on a shared server) kept the words the user asked to remove, active."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fake_embedder import FakeEmbedder

from hindsight_cli.core import purge
from hindsight_cli.models import Filters
from hindsight_cli.store import Store

pytestmark = pytest.mark.local_only

TEXT = "the staging database password is kept in vault path ops/db"

MEANWHILE: dict[str, Callable[[Store, str], object]] = {
    "edit": lambda alice, memory_id: alice.edit(memory_id, resolution="rotated on monday"),
    "repeat with a fix": lambda alice, _: alice.record(TEXT, resolution="rotated on monday"),
    "two edits": lambda alice, memory_id: alice.edit(
        alice.edit(memory_id, resolution="rotated").memory.id, tags=["ops"]
    ),
}


@pytest.mark.parametrize("change", sorted(MEANWHILE))
@pytest.mark.parametrize(
    ("forgetter", "batch"), [(None, 1), ("alice", 1000)], ids=["owner-batches", "principal"]
)
def test_a_version_made_after_the_plan_goes_with_the_hard_forget(
    store: Store,
    fake: FakeEmbedder,
    monkeypatch: pytest.MonkeyPatch,
    change: str,
    batch: int,
    forgetter: str | None,
) -> None:
    monkeypatch.setattr(purge, "FORGET_BATCH", batch)
    alice = store.scoped("alice", principal=True)
    other = alice.record("the cache of api is warmed at nine").memory
    memory = alice.record(TEXT).memory
    bob = store.scoped("bob", principal=True).record(TEXT).memory
    caller = store.scoped(forgetter, principal=True) if forgetter else store
    plan = caller.plan_forget([memory.id], hard=True)
    assert list(plan.ids) == [memory.id]
    MEANWHILE[change](alice, memory.id)
    caller.forget_planned(plan)
    left = {m.id: m for m in store.list(Filters(statuses=None), limit=None)}
    assert [m.id for m in left.values() if "password" in m.content] == [bob.id]
    assert other.id in left
