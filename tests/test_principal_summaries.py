"""Review BQ: a memory that claims to be a summary (``metadata.summary_of``, which any writer sets)
stands in a block only for memories of its own agent. A token principal's memory claiming to be a
summary of ``x`` (no task, no range: every episode) ranked above another principal's memories, or
the owner's from a page or a tool (as untrusted as hers), and the owner's block (a hook's recall,
``search --budget``) held it alone: their fix was gone from the owner's recall."""

from __future__ import annotations

import pytest

from hindsight_cli.store import Store
from tests.test_untrusted_links import EPISODES, FAKE, FIX

CLAIMS = {
    "every-episode": {"summary_of": "x"},
    "a-time-range": {"summary_of": "2000-01-01T00:00:00Z..2099-12-31T00:00:00Z"},
    "the-task-without-one": {"summary_of": "deploy"},
}


def _victim(store: Store, who: str) -> list[str]:
    """The episodes and fix of ``who``: principal bob, or the owner's from a page or a tool."""
    writer = store.scoped(who, principal=True) if who == "bob" else store
    extra = {} if who == "bob" else {"source": who}
    return [
        writer.record(EPISODES[0], task_id="deploy", **extra).memory.id,
        writer.record(
            EPISODES[1], task_id="deploy", outcome="failure", resolution=FIX, **extra
        ).memory.id,
    ]


def _block(store: Store) -> str:
    return store.search("deploy", budget=400).context


@pytest.mark.parametrize("claim", list(CLAIMS), ids=list(CLAIMS))
@pytest.mark.parametrize("who", ["bob", "web"])
def test_a_principals_claimed_summary_never_hides_anothers_memories(
    store: Store, who: str, claim: str
) -> None:
    """Before: the block held her text alone (the same text claiming nothing leaves the failure
    and its fix in it, as they are here now)."""
    _victim(store, who)
    store.scoped("alice", principal=True).record(FAKE, type="semantic", metadata=CLAIMS[claim])
    block = _block(store)
    assert EPISODES[1] in block and FIX in block, block


def test_an_imported_summary_of_one_agent_never_hides_anothers(store: Store) -> None:
    """An import file's summary filed under alice, naming bob's memories by id."""
    ids = _victim(store, "bob")
    store.import_records(
        [
            {
                "content": FAKE,
                "type": "semantic",
                "agent_id": "alice",
                "trigger": "summary",
                "metadata": {"summary_of": "x"},
                "source_ids": ids,
            }
        ]
    )
    assert FIX in _block(store)


def test_a_principals_summary_still_stands_for_her_own_memories(store: Store) -> None:
    """Her own summary of her task: her block holds it or her memories, as before."""
    alice = store.scoped("alice", principal=True)
    for text in EPISODES:
        alice.record(text, task_id="deploy")
    made = alice.summarize(task_id="deploy")
    block = alice.search("deploy", budget=400).context
    assert made.memory.content in block or all(t in block for t in EPISODES)
    assert not (made.memory.content in block and all(t in block for t in EPISODES)), block
