"""Review BR: the metadata keys hindsight itself writes and reads (``event_time``: the times a
text speaks of; ``quarantine``: why a memory was held back) were stored as any writer gave them. A
token principal's ``memory_write`` (or an import file's record) with ``metadata.event_time`` naming
the last day of the calendar ended the owner's every search that names a time ("what failed last
week?": the owner's ``hindsight search``, the hooks' recall of a repeated prompt, ``memory_search``
on the owner's server) with ``OverflowError``; a ``quarantine`` of her own shape ended the owner's
page of her memory in ``hindsight ui`` with ``TypeError``. Now both are kept only in the shape
hindsight writes them (``prepare._owned``): times as real days, a quarantine as ``assess`` writes
one; and their readers skip what a store written before holds of another shape."""

from __future__ import annotations

import pytest

from hindsight_cli.poisoning import is_quarantined
from hindsight_cli.store import Store
from hindsight_cli.ui import memory_page

EVENT_TIMES = {
    "last-day": [{"from": "9999-12-31", "to": "9999-12-31"}],
    "whole-calendar": [{"from": "0001-01-01", "to": "9999-12-31"}],
    "first-day": [{"from": "0001-01-01", "to": "0001-01-01"}],
    "a-day-she-names": [{"from": "2026-01-05", "to": "2026-01-05", "said": "last week"}],
}
QUERIES = ("what failed last week?", "when did the deploy fail?", "deploy failed on 2026-01-05")


def _owners_failure(store: Store) -> str:
    return store.record(
        "the deploy failed with a timeout", outcome="failure", resolution="raise the timeout"
    ).memory.id


@pytest.mark.parametrize("claim", list(EVENT_TIMES), ids=list(EVENT_TIMES))
def test_a_principals_stated_event_times_never_break_nor_date_a_search(
    store: Store, claim: str
) -> None:
    owners = _owners_failure(store)
    alice = store.scoped("alice", principal=True)
    hers = alice.record(
        "the deploy failed again", outcome="failure", metadata={"event_time": EVENT_TIMES[claim]}
    ).memory
    # kept only as real days: the calendar's last day has no day after it
    kept = store.get(hers.id).metadata.get("event_time", [])
    assert all("0001-01-01" <= span["to"] < "9999-12-31" for span in kept), kept
    for query in QUERIES:
        found = store.search(query, budget=400)
        assert owners in [h.memory.id for h in found.hits], query
        assert alice.search(query).hits is not None


def test_an_imported_records_stated_event_times_never_break_a_search(store: Store) -> None:
    owners = _owners_failure(store)
    store.import_records(
        [
            {
                "content": "the deploy failed again",
                "metadata": {"event_time": EVENT_TIMES["last-day"]},
            }
        ]
    )
    assert owners in [h.memory.id for h in store.search(QUERIES[0]).hits]


def test_a_text_that_names_a_time_still_keeps_it(store: Store) -> None:
    said = store.record("the deploy failed yesterday", metadata={"event_time": "mine"}).memory
    assert isinstance(said.metadata.get("event_time"), list), said.metadata
    # an export's times come back as they were
    store.forget([said.id], hard=True)
    store.import_records([said.to_dict()])
    assert store.get(said.id).metadata["event_time"] == said.metadata["event_time"]


QUARANTINES = {
    "numbers": {"reason": 5, "matched": 5, "fields": 5},
    "a-text": "yes",
    "a-list": [1, 2],
    "matched-a-text": {"reason": "x", "matched": "abc"},
    "reason-an-object": {"reason": {"a": 1}, "matched": [1, None]},
}


@pytest.mark.parametrize("claim", list(QUARANTINES), ids=list(QUARANTINES))
def test_a_stated_quarantine_is_kept_in_hindsights_shape(store: Store, claim: str) -> None:
    alice = store.scoped("alice", principal=True)
    hers = alice.record("a note of mine", metadata={"quarantine": QUARANTINES[claim]}).memory
    stored = store.get(hers.id)
    # it holds her memory back (what it claims), and reads as every quarantine does
    assert is_quarantined(stored.tags, stored.metadata)
    record = stored.metadata["quarantine"]
    assert isinstance(record["reason"], str)
    assert all(isinstance(m, str) for m in record["matched"])
    assert all(isinstance(f, str) for f in record["fields"])
    for reader in (store, alice):
        _, body = memory_page.render(reader, hers.id, None, "csrf")
        assert "Quarantined" in str(body)
    assert store.search("a note of mine").hits


@pytest.mark.parametrize("claim", [False, None, {}, "", []], ids=repr)
def test_a_stated_empty_quarantine_holds_nothing_back(store: Store, claim: object) -> None:
    hers = store.scoped("alice", principal=True).record(
        "a note of mine", metadata={"quarantine": claim}
    )
    stored = store.get(hers.memory.id)
    assert not is_quarantined(stored.tags, stored.metadata)
