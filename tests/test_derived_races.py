"""A summary or a pattern is built from what was read before it is written (its embedding, then
``derive.DERIVED_BATCH`` memories a transaction). Review AJ: a forget of the memories it is built
from that committed meanwhile (the owner's `forget --hard` of a secret alice recorded, from another
process, while her `memory_summarize` or `memory_consolidate` ran) did not stop it: the summary and
its parts, or the pattern, were written with the forgotten text after the purge, active and
searchable, and a pattern the forget had withdrawn was made active again. Now every derived memory
is written only while what it is built from is still active, in the same transaction."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from fake_embedder import FakeEmbedder

from hindsight_cli.core import derive
from hindsight_cli.core.runtime import Runtime
from hindsight_cli.errors import InvalidInput
from hindsight_cli.models import Filters
from hindsight_cli.store import Store

pytestmark = pytest.mark.local_only

MARK = "walrus-7731"


def _owner(path: Path) -> Store:
    """The owner's own process on the same store (the CLI, a hook)."""
    return Store(path, embedder=FakeEmbedder())


def _everywhere(path: Path) -> list[str]:
    """The memories anywhere in the store whose text holds the marker, and the store's files that
    hold it."""
    every = _owner(path).list(Filters(statuses=None), limit=None)
    found = [m.id for m in every if MARK in m.content]
    files = [p.name for p in path.rglob("*") if p.is_file() and MARK.encode() in p.read_bytes()]
    return found + files


def _active(path: Path) -> list[str]:
    """The active memories whose text holds the marker (what search and the hooks read)."""
    return [m.trigger or "" for m in _owner(path).list(Filters(), limit=None) if MARK in m.content]


def _left_nothing(path: Path, hard: bool) -> None:
    """Nothing active holds the forgotten text; after a hard forget, nothing anywhere."""
    if hard:
        assert _everywhere(path) == []
    assert _active(path) == []


def _failures(store: Store, numbers: Iterable[int]) -> list[str]:
    """Alike failures of ``store``'s agent, one a number: what consolidate makes a pattern of."""
    return [
        store.record(
            f"deploy to staging failed: {MARK} token expired ({n})", outcome="failure", merge=False
        ).memory.id
        for n in numbers
    ]


def _forget_while(monkeypatch: pytest.MonkeyPatch, where: str, forget: Any, at: int = 1) -> None:
    """Run ``forget`` just before the ``at``-th call of ``derive.<where>`` (the derived memories
    built and embedded, about to be written)."""
    real = getattr(derive, where)
    calls = {"n": 0}

    def racing(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == at:
            forget()
        return real(*args, **kwargs)

    monkeypatch.setattr(derive, where, racing)


@pytest.mark.parametrize("hard", [True, False])
def test_a_summary_of_memories_forgotten_meanwhile_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hard: bool
) -> None:
    path = tmp_path / "s"
    alice = _owner(path).scoped("alice", principal=True)
    alice.import_records(
        [
            {"content": f"step {i}: the staging hint is {MARK} {i}", "task_id": "T", "step": i}
            for i in range(4)
        ]
    )
    _forget_while(
        monkeypatch,
        "_in_batches",
        lambda: _owner(path).forget_where([], task_id="T", hard=hard, agent_id="alice"),
    )
    with pytest.raises(InvalidInput, match="forgotten or changed while it was being written"):
        alice.summarize(task_id="T")
    _left_nothing(path, hard)


def test_a_forget_between_two_batches_of_parts_stops_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parts written before the forget are withdrawn by it (they name what it took); the parts
    and the summary after it are never written."""
    monkeypatch.setattr(derive, "DERIVED_BATCH", 1)
    path = tmp_path / "s"
    alice = _owner(path).scoped("alice", principal=True)
    alice.import_records(
        [
            {"content": f"step {i}: note {i} {MARK if i >= 2 else 'plain'}", "task_id": "T"}
            | {"step": i}
            for i in range(6)
        ]
    )
    ids = [m.id for m in sorted(alice.list(limit=None), key=lambda m: m.step or 0)]
    real, done = Runtime.after_write, []

    def committed(rt: Runtime) -> None:
        real(rt)
        if not done:
            # after the first part's transaction, before the next one's
            done.append(_owner(path).forget_where(ids[2:], hard=True))

    monkeypatch.setattr(Runtime, "after_write", committed)
    with pytest.raises(InvalidInput, match="forgotten or changed"):
        alice.summarize(task_id="T", chunk=2)
    assert _everywhere(path) == []
    # the first part (steps 0-1) was written before and stays; its memories were not forgotten
    assert done and _active(path) == []
    parts = [m for m in _owner(path).list(limit=None) if m.trigger == "summary_part"]
    assert [m.source_ids for m in parts] == [ids[:2]]


@pytest.mark.parametrize("hard", [True, False])
def test_a_pattern_of_episodes_forgotten_meanwhile_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hard: bool
) -> None:
    path = tmp_path / "s"
    alice = _owner(path).scoped("alice", principal=True)
    ids = _failures(alice, range(3))
    _forget_while(monkeypatch, "_in_batches", lambda: _owner(path).forget_where(ids, hard=hard))
    # the pattern is left unwritten, the consolidation goes on (the next one groups what is left)
    assert alice.consolidate().patterns == []
    _left_nothing(path, hard)


def test_a_pattern_withdrawn_meanwhile_is_not_made_active_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s"
    alice = _owner(path).scoped("alice", principal=True)
    first = _failures(alice, range(2))
    [made] = [c for c in alice.consolidate(min_evidence=2).patterns if c.action == "create"]
    _failures(alice, [2])
    # the owner forgets one of the pattern's episodes: the pattern leaves search with it
    _forget_while(monkeypatch, "_in_batches", lambda: _owner(path).forget_where(first[:1]))
    assert made.row.id not in {c.row.id for c in alice.consolidate(min_evidence=2).patterns}
    assert _owner(path).get(made.row.id).status == "invalidated"


@pytest.mark.parametrize("other", ["alice", "owner"])
def test_a_pattern_another_consolidation_updated_meanwhile_is_not_written_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, other: str
) -> None:
    """Review BB: a consolidation that planned a pattern's update (new evidence) wrote that plan
    over the pattern whatever happened to it meanwhile: another consolidation (alice's other
    session on the shared server, the owner's CLI) that had updated it with a newer episode lost
    that update, the episode no longer among its evidence. The plan is written only over the
    version it read; the next consolidation groups what is left."""
    path = tmp_path / "s"
    alice = _owner(path).scoped("alice", principal=True)
    _failures(alice, range(2))
    [made] = [c for c in alice.consolidate(min_evidence=2).patterns if c.action == "create"]
    _failures(alice, [2])
    newer: list[str] = []

    def meanwhile() -> None:
        newer.extend(_failures(alice, [3]))
        racer = alice if other == "alice" else _owner(path)
        assert [c.action for c in racer.consolidate(min_evidence=2).patterns] == ["update"]

    _forget_while(monkeypatch, "_in_batches", meanwhile)
    assert alice.consolidate(min_evidence=2).patterns == []
    pattern = _owner(path).get(made.row.id)
    assert pattern.status == "active" and newer[0] in pattern.source_ids
    assert pattern.metadata["pattern"]["evidence"] == 4
