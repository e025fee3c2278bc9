"""A principal's summary or consolidation of many memories never holds the ledger for all of it
(review AG): every other process's reads and writes wait while a ledger transaction is open, and a
summary chain of thousands of memories (a part per five) was written in one. On a shared server,
alice's ``memory_summarize`` of 4,000 memories of hers held the ledger for 24 s: the owner's hooks
and commands, and bob's search once anything else had written, waited and failed as busy."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fake_embedder import FakeEmbedder
from mcp.server.auth.middleware.auth_context import auth_context_var
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken

from hindsight_cli.mcp_server.memories import ToolStore
from hindsight_cli.models import Filters
from hindsight_cli.storage.sql.duckdb_ledger import DuckDBLedger, DuckDBSession
from hindsight_cli.store import Store

pytestmark = pytest.mark.local_only

# a guard against a test that hangs, never a measure: every wait here ends on an event
GUARD = 60.0


def _alices(store_dir: Path, count: int) -> Store:
    base = Store(store_dir, embedder=FakeEmbedder())
    base.record("the deploy key lives in the vault", agent_id="owner")
    base.import_records(
        [
            {"content": f"step {i} of the build: compiled module m{i}", "agent_id": "alice"}
            | {"task_id": "build"}
            for i in range(count)
        ]
    )
    return base


def _as_alice(call: Callable[[], Any]) -> threading.Thread:
    """``call`` in a thread, as a request carrying alice's token on a shared server."""
    context = contextvars.copy_context()
    token = AccessToken(token="t-alice", client_id="alice", scopes=[])
    context.run(auth_context_var.set, AuthenticatedUser(token))
    thread = threading.Thread(target=context.run, args=(call,), daemon=True, name="alice")
    thread.start()
    return thread


class _Transactions:
    """Each ledger transaction of the thread named ``who``: how many memories it wrote; a hook
    run as the second one begins, before it takes the ledger."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, who: str) -> None:
        self.rows: list[int] = []
        self.before_second: Callable[[], None] = lambda: None
        write, insert, rewrite = DuckDBLedger.write, DuckDBSession.insert, DuckDBSession.rewrite
        counting = threading.local()

        @contextmanager
        def counted(ledger: DuckDBLedger) -> Iterator[DuckDBSession]:
            mine = threading.current_thread().name == who
            if mine and len(self.rows) == 1:
                self.before_second()
            with write(ledger) as session:
                counting.n = 0
                yield session
            if mine:
                self.rows.append(counting.n)

        def counts(call: Callable[..., None]) -> Callable[..., None]:
            def wrapped(*args: Any) -> None:
                counting.n = getattr(counting, "n", 0) + 1
                call(*args)

            return wrapped

        monkeypatch.setattr(DuckDBLedger, "write", counted)
        monkeypatch.setattr(DuckDBSession, "insert", counts(insert))
        monkeypatch.setattr(DuckDBSession, "rewrite", counts(rewrite))


def test_the_owners_read_is_answered_while_a_principals_long_summary_is_written(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _alices(store_dir, 250)
    tools = ToolStore(base, per_request=True)
    transactions = _Transactions(monkeypatch, "alice")
    seen: list[list[str]] = []
    answered = threading.Event()

    def owners_read() -> None:
        # another process's read of the ledger (the owner's hook or command): a store of its own
        owner = Store(store_dir, embedder=FakeEmbedder())
        rows = owner.list(Filters(agent_ids=("alice",), types=("semantic",)), limit=None)
        seen.append([m.trigger for m in rows])
        answered.set()

    def hold_for_the_owner() -> None:
        reading = threading.Thread(target=owners_read, daemon=True)
        reading.start()
        assert answered.wait(GUARD)

    transactions.before_second = hold_for_the_owner
    summarizing = _as_alice(lambda: tools.summarize("build", None, None))
    summarizing.join(GUARD)
    assert not summarizing.is_alive()
    # the owner read the ledger between two of alice's transactions: some parts, no summary yet
    assert len(seen) == 1 and seen[0] and set(seen[0]) == {"summary_part"}
    summary = base.list(Filters(task_id="build", types=("semantic",)), limit=None)
    assert sorted(m.trigger for m in summary).count("summary_part") == 50
    [top] = [m for m in summary if m.trigger == "summary"]
    assert len(top.source_ids) == 50 and top.source.startswith("hindsight")


def _longest(store: Path, monkeypatch: pytest.MonkeyPatch, how: str, count: int) -> int:
    """The most memories one of alice's ledger transactions writes as she summarises a task of
    ``count`` memories of hers (again, after one more: ``rerun``) or consolidates ``count``
    episodes, two of each."""
    base = _alices(store, count)
    tools = ToolStore(base, per_request=True)
    if how == "rerun":
        _as_alice(lambda: tools.summarize("build", None, None)).join(GUARD)
        # one memory more: every part is read again, the last rewritten
        base.record(f"step {count} of the build: linked", agent_id="alice", task_id="build")
    if how == "consolidate":
        base.import_records(
            [
                {"content": f"flaky test t{i} failed on runner r{i}", "agent_id": "alice"}
                for i in range(count // 2)
                for _ in range(2)
            ]
        )
    transactions = _Transactions(monkeypatch, "alice")
    running = _as_alice(
        (lambda: tools.consolidate(False))
        if how == "consolidate"
        else (lambda: tools.summarize("build", None, None))
    )
    running.join(GUARD)
    assert not running.is_alive() and transactions.rows
    return max(transactions.rows)


@pytest.mark.parametrize("how", ["summarize", "rerun", "consolidate"])
def test_no_ledger_transaction_grows_with_what_a_principal_summarises(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    longest = [_longest(store_dir / str(n), monkeypatch, how, n) for n in (200, 400)]
    # as many memories again, and no longer: the same bound
    assert max(longest) <= 40, longest


def test_a_pattern_another_consolidation_wrote_meanwhile_is_not_written_twice(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review AY: a shared server's consolidations no longer hold its write gate while they group
    and embed, so two of one agent's may plan the same new pattern at once; the one that writes
    second leaves it (written once, no error), as it leaves one whose episodes left meanwhile."""
    from hindsight_cli.core import derive

    base = Store(store_dir, embedder=FakeEmbedder())
    base.import_records(
        [{"content": f"flaky test failed on runner r{i}", "agent_id": "alice"} for i in range(3)]
    )
    real = derive.embedding_jobs.embed_rows
    calls: list[int] = []

    def embed_rows(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            # another consolidation plans, embeds and writes the same pattern meanwhile
            assert [c.action for c in base.consolidate().patterns] == ["create"]
        return real(*args, **kwargs)

    monkeypatch.setattr(derive.embedding_jobs, "embed_rows", embed_rows)
    result = base.consolidate()
    assert len(calls) == 2 and result.patterns == []
    patterns = base.list(Filters(types=("semantic",)), limit=None)
    assert [m.trigger for m in patterns] == ["consolidate"]
