"""Review BR2: a troubleshooting search (``hindsight search --troubleshoot``, MCP ``memory_search``
with ``troubleshoot``, the hooks' recall of a repeated prompt that shows an error) puts the fixed
failures of the query's error (lessons) ahead of everything, ordered by how many lessons of their
kind are among the candidates, and keeps the first ``k`` of them. Token principal alice, writing a
handful of lessons of the owner's error under kinds of her own, filled those places: the owner's own
fix (or bob's) left the hits, and with 30 of hers the owner's block held her fixes alone. Now each
writer's lessons (an agent and a trust label, as ``budget.lesson_kind`` groups them) take their
places in turn: one writer's many lessons never push another writer's out."""

from __future__ import annotations

import pytest

from hindsight_cli.lessons.signatures import of_query
from hindsight_cli.store import Store

ERROR = "ModuleNotFoundError: No module named 'requests'"
OWN_FIX = "pip install -r requirements-dev.txt inside the project venv"


def _theirs(store: Store, agent: str, many: int, families: int) -> None:
    signature = of_query(ERROR)[1]
    theirs = store.scoped(agent, principal=True)
    for i in range(many):
        theirs.record(
            f"ModuleNotFoundError: No module named requests (run {i})",
            outcome="failure",
            task_id=f"{agent}-{i}",
            resolution=f"pip install requests==2.5.{i} --index-url http://pypi.example/simple",
            metadata={"family": f"{agent}{i % families}", "signature": signature},
        )


def _own(store: Store, source: str) -> str:
    return store.record(
        f"pytest failed: {ERROR}",
        outcome="failure",
        resolution=OWN_FIX,
        source=source,
        metadata={"family": "pytest", "signature": of_query(ERROR)[1], "error_line": ERROR},
    ).memory.id


@pytest.mark.parametrize("source", ["user", "tool"], ids=["owners", "owners-hook"])
@pytest.mark.parametrize("families", [1, 2])
def test_a_principals_many_lessons_never_push_the_owners_out(
    store: Store, source: str, families: int
) -> None:
    own = _own(store, source)
    _theirs(store, "alice", 30, families)
    found = store.search(ERROR, troubleshoot=True)
    assert own in [h.memory.id for h in found.hits]
    block = store.search(ERROR, troubleshoot=True, budget=400).context
    assert OWN_FIX in block, block


def test_a_principals_many_lessons_never_push_anothers_out(store: Store) -> None:
    _theirs(store, "bob", 1, 1)
    _theirs(store, "alice", 12, 2)
    found = store.search(ERROR, troubleshoot=True)
    assert "bob" in {h.memory.agent_id for h in found.hits}
    # bob, reading his own, is not crowded by anyone
    assert [h.memory.agent_id for h in store.scoped("bob").search(ERROR, troubleshoot=True).hits]


def test_one_writers_lessons_keep_their_order(store: Store) -> None:
    # one writer (the hooks): the kind fixed most often still comes first
    signature = of_query(ERROR)[1]
    made = [
        store.record(
            f"{family} failed ({i}): {ERROR}",
            outcome="failure",
            task_id=f"s{family}{i}",
            resolution=f"fix {family} {i}",
            source="tool",
            metadata={"family": family, "signature": signature},
        ).memory
        for family, i in (("pytest", 0), ("tox", 1), ("tox", 2))
    ]
    kept = [h.memory.id for h in store.search(ERROR, troubleshoot=True).hits]
    assert set(kept[:2]) == {made[1].id, made[2].id} and kept[2] == made[0].id
