"""A forget of many memories never holds the ledger for all of them (review AG's open medium): every
other process's reads and writes wait while a ledger transaction is open, and a forget by task or
age (soft, archive or hard) took every memory it matched in one, about half a millisecond a memory:
a principal forgetting 20,000 memories of hers held the owner's hooks and commands past the lock
timeout. Now ``purge.FORGET_BATCH`` memories go a transaction; a crash between two batches of a
hard forget leaves the purge owed, and the next open deletes and scrubs the rest."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fake_embedder import FakeEmbedder

from hindsight_cli.core import purge
from hindsight_cli.models import Filters
from hindsight_cli.storage.sql.duckdb_ledger import DuckDBLedger, DuckDBSession
from hindsight_cli.store import Store
from tests.test_derived_batches import _alices

pytestmark = pytest.mark.local_only

BATCH = 40
COUNT = 130


class _Transactions:
    """How many memories each ledger transaction's status change or delete took; ``during`` runs
    once, as the second transaction begins."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.taken: list[int] = []
        self.during: Callable[[], None] = lambda: None
        self.fail_at: int | None = None
        write = DuckDBLedger.write
        set_status, delete = DuckDBSession.set_status, DuckDBSession.delete
        outer = self
        changed = threading.local()

        @contextmanager
        def counted(ledger: DuckDBLedger) -> Iterator[DuckDBSession]:
            changed.n = 0
            if len(outer.taken) == 1:
                outer.during()
            with write(ledger) as session:
                yield session
            if changed.n:
                outer.taken.append(changed.n)

        def counting(call: Callable[..., int]) -> Callable[..., int]:
            def wrapped(session: DuckDBSession, ids: Sequence[str], *args: Any) -> int:
                if outer.fail_at is not None and len(outer.taken) == outer.fail_at:
                    raise OSError("killed between two batches")
                changed.n = getattr(changed, "n", 0) + len(ids)
                return call(session, ids, *args)

            return wrapped

        monkeypatch.setattr(DuckDBLedger, "write", counted)
        monkeypatch.setattr(DuckDBSession, "set_status", counting(set_status))
        monkeypatch.setattr(DuckDBSession, "delete", counting(delete))


@pytest.mark.parametrize("how", ["soft", "archive", "hard"])
def test_a_forget_by_task_takes_its_memories_a_batch_a_transaction(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    store = _alices(store_dir, COUNT)
    monkeypatch.setattr(purge, "FORGET_BATCH", BATCH)
    transactions = _Transactions(monkeypatch)
    seen: list[int] = []

    def owners_read() -> None:
        # another process's read of the ledger between two of the forget's transactions
        owner = Store(store_dir, embedder=FakeEmbedder())
        seen.append(len(owner.list(Filters(agent_ids=("alice",)), limit=None)))

    transactions.during = owners_read
    result = store.forget_where(task_id="build", hard=how == "hard", archive=how == "archive")
    assert result.forgotten == COUNT
    assert max(transactions.taken) <= BATCH and len(transactions.taken) >= COUNT // BATCH
    # the owner read the ledger after the first batch, before the last
    assert seen and BATCH <= COUNT - seen[0] < COUNT
    left = store.list(Filters(agent_ids=("alice",), statuses=None), limit=None)
    if how == "hard":
        assert left == [] and purge.owed(store._rt) == []
    else:
        assert len(left) == COUNT and {m.status for m in left} == {
            "archived" if how == "archive" else "invalidated"
        }
    assert [m.content for m in store.list(Filters(), limit=None)] == [
        "the deploy key lives in the vault"
    ]


def test_a_hard_forget_killed_between_two_batches_is_finished_by_the_next_open(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _alices(store_dir, COUNT)
    monkeypatch.setattr(purge, "FORGET_BATCH", BATCH)
    transactions = _Transactions(monkeypatch)
    transactions.fail_at = 1
    with pytest.raises(OSError, match="killed"):
        store.forget_where(task_id="build", hard=True)
    # one batch went; the purge is owed, not cancelled
    assert transactions.taken == [BATCH]
    assert len(purge.owed(store._rt)) == 1
    monkeypatch.undo()
    reopened = Store(store_dir, embedder=FakeEmbedder())
    assert reopened.list(Filters(agent_ids=("alice",), statuses=None), limit=None) == []
    assert purge.owed(reopened._rt) == []
    ledger = (store_dir / "ledger.duckdb").read_bytes()
    assert b"compiled module m1" not in ledger and b"the deploy key" in ledger


def test_a_soft_forget_killed_between_two_batches_is_finished_by_the_same_forget_again(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _alices(store_dir, COUNT)
    monkeypatch.setattr(purge, "FORGET_BATCH", BATCH)
    transactions = _Transactions(monkeypatch)
    transactions.fail_at = 2
    with pytest.raises(OSError, match="killed"):
        store.forget_where(task_id="build")
    active = store.list(Filters(agent_ids=("alice",)), limit=None)
    assert len(active) == COUNT - 2 * BATCH
    transactions.fail_at = None
    assert store.forget_where(task_id="build").forgotten == COUNT - 2 * BATCH
    assert store.list(Filters(agent_ids=("alice",)), limit=None) == []


def test_a_journal_that_cannot_be_written_after_a_batch_does_not_fail_the_committed_forget(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    store = _alices(store_dir, COUNT)
    monkeypatch.setattr(purge, "FORGET_BATCH", BATCH)

    def disk_full(path: Path, ids: Sequence[str]) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(purge, "add_ids", disk_full)
    # every batch is deleted and the forget says so, as it did in one transaction
    assert store.forget_where(task_id="build", hard=True).forgotten == COUNT
    assert "could not name this batch" in caplog.text
    assert store.list(Filters(agent_ids=("alice",), statuses=None), limit=None) == []
    assert purge.owed(store._rt) == []
    assert b"compiled module m1" not in (store_dir / "ledger.duckdb").read_bytes()
