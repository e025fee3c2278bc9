"""What the audit log says of a memory leaves with it when it is forgotten for good (review BU).

The log names no content ("who did what to which memories, when and why"), but some of its reasons
quote the memory: an automatic update names the fact's old and new values (``Bluefalconcorp →
Redheronltd``), an edit or a repeated write the tags it added, a forget the reason the user gave.
A hard forget deleted the memories and kept those entries whole: the forgotten words stayed in the
ledger, and ``hindsight log`` showed them. A reason the user gave (a forget's, a supersede's) is the
user's own words and stays (``test_lifecycle.py``, the audit log's who, what, when and why).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import stored_data

from hindsight_cli.models import Filters
from hindsight_cli.store import Store

OLD, NEW = "Bluefalconcorp", "Redheronltd"


def _holding(store: Store, *words: str) -> list[str]:
    """Where the store (every file, or every table of a database) holds any of ``words``."""
    return [
        where
        for where, data in stored_data(store.path)
        if any(word.encode() in data for word in words)
    ]


def _reasons(store: Store) -> str:
    return " ".join(entry.reason or "" for entry in store.log(limit=None))


def _update(store: Store) -> list[str]:
    """A fact and its automatic update: the log says ``updated automatically: OLD → NEW``."""
    first = store.record(f"the acquisition target company is {OLD}", type="semantic")
    second = store.record(f"the acquisition target company is {NEW}", type="semantic")
    assert second.superseded == [first.memory.id]
    return [first.memory.id, second.memory.id]


def _tagged(store: Store) -> list[str]:
    """An edit adding a tag: the log says ``tag added: …``."""
    memory = store.record("the deploy of the billing service failed", outcome="failure").memory
    new = store.edit(memory.id, tags=[f"customer-{OLD.lower()}"], resolution=f"paged {NEW}")
    return [memory.id, new.memory.id]


def _repeated(store: Store) -> list[str]:
    """A repeated write adding a tag (a new version made by ``amend``)."""
    memory = store.record("the nightly export of invoices stalled").memory
    new = store.record("the nightly export of invoices stalled", tags=[f"client-{OLD.lower()}"])
    return [memory.id, new.memory.id]


MADE: dict[str, Callable[[Store], list[str]]] = {
    "automatic update": _update,
    "edit": _tagged,
    "repeated write": _repeated,
}


@pytest.mark.parametrize("made", sorted(MADE))
def test_a_hard_forget_takes_the_words_the_audit_log_quoted(store: Store, made: str) -> None:
    kept = store.record(f"the office moves to {NEW} street in may", tags=["office"]).memory
    ids = MADE[made](store)
    assert OLD in _reasons(store) or OLD.lower() in _reasons(store)
    store.forget(ids, hard=True)
    assert not [m for m in store.list(Filters(statuses=None), limit=None) if m.id in ids]
    assert OLD not in _reasons(store) and OLD.lower() not in _reasons(store)
    assert _holding(store, OLD, OLD.lower()) == []
    # the entries stay, without their words: when, what, which memories, who
    assert {e.action for e in store.log(limit=None) if set(e.ids) & set(ids)} >= {"forget_hard"}
    assert store.get(kept.id).content.endswith("street in may")


def test_the_log_of_memories_still_there_keeps_its_words(store: Store) -> None:
    ids = _update(store)
    other = _tagged(store)
    store.forget([other[0]], hard=True, reason="asked by the customer")
    assert f"{OLD} → {NEW}" in _reasons(store)
    assert ids
    # the user's own reasons stay, a soft forget's too
    memory = store.record("the printer on floor two jams").memory
    store.forget([memory.id], reason="fixed by facilities")
    store.forget([memory.id], hard=True)
    assert {"asked by the customer", "fixed by facilities"} <= {
        e.reason for e in store.log(limit=None)
    }
