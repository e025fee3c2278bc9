"""What was read before a purge is never written after it (review AK).

``summarize`` and ``consolidate`` read their sources, compose the text (which quotes them) and embed
it before the ledger's write transaction opens: the session-end hook's summary, or a consolidation,
ran for as long as the model took while the user's ``forget --hard`` (or an expiry) of one of those
sources purged it. The summary was then written after the purge had finished, quoting the forgotten
text and linking a memory that was gone: the hard forget had left its text in the store, and
nothing would ever purge it again (forgetting the source again found no such memory). The hooks'
ingestion was the same: it read the spooled events, embedded them, and wrote them after a hard forget
had scrubbed those holding the forgotten words from the spool.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fake_embedder import FakeEmbedder

from hindsight_cli.core import derive, embedding_jobs, purge
from hindsight_cli.errors import InvalidInput
from hindsight_cli.models import Filters
from hindsight_cli.storage import spool_scrub
from hindsight_cli.storage.sync import Mirror
from hindsight_cli.store import Store
from tests import spool_lines

pytestmark = pytest.mark.local_only

FORGOTTEN = "narwhalcode"


def _purged_while_embedding(
    monkeypatch: pytest.MonkeyPatch, store_dir: Path, purge: Callable[[Store], object]
) -> None:
    """Another process (a store of its own) purges once, as the derived memories are first
    embedded, after they were composed from their sources."""
    embed_rows = embedding_jobs.embed_rows
    pending = [purge]

    def racing(*args: Any) -> None:
        while pending:
            pending.pop()(Store(store_dir, embedder=FakeEmbedder()))
        embed_rows(*args)

    monkeypatch.setattr(embedding_jobs, "embed_rows", racing)


def _nothing_of_it(store: Store, store_dir: Path) -> None:
    """No memory quotes the forgotten text, none links a memory that is gone, and no file of the
    store holds it."""
    rows = store.list(Filters(statuses=None), limit=None)
    ids = {m.id for m in rows}
    assert not [m for m in rows if FORGOTTEN in m.content + (m.resolution or "")]
    assert all(set(m.source_ids) <= ids for m in rows), [m.source_ids for m in rows]
    held = [p for p in store_dir.rglob("*") if p.is_file() and FORGOTTEN.encode() in p.read_bytes()]
    assert not held


def _steps(store: Store, victim_at: int, count: int) -> str:
    texts = [f"step {i} of deploying the api service with helm charts" for i in range(count)]
    if victim_at < count:
        texts[victim_at] = f"the staging password rotation {FORGOTTEN} for quarterly audits"
    store.import_records(
        [{"content": text, "task_id": "t9", "step": i} for i, text in enumerate(texts)]
    )
    return "".join(m.id for m in store.list(limit=None) if FORGOTTEN in m.content)


@pytest.mark.parametrize(
    ("count", "victim_at"), [(4, 3), (12, 7), (12, 1)], ids=["summary", "second-part", "first-part"]
)
def test_a_summary_is_not_written_over_a_source_purged_meanwhile(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch, count: int, victim_at: int
) -> None:
    store = Store(store_dir, embedder=FakeEmbedder())
    victim = _steps(store, victim_at, count)
    _purged_while_embedding(monkeypatch, store_dir, lambda other: other.forget([victim], hard=True))
    with pytest.raises(InvalidInput, match="forgotten for good"):
        store.summarize(task_id="t9", chunk=5)
    _nothing_of_it(store, store_dir)
    # the next run summarises what is left
    done = store.summarize(task_id="t9", chunk=5)
    assert FORGOTTEN not in done.memory.content and done.sources == count - 1


def test_a_summary_is_not_written_over_a_source_that_expired_meanwhile(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(store_dir, embedder=FakeEmbedder())
    _steps(store, 99, 3)
    store.record(f"the {FORGOTTEN} rotation runs on fridays", task_id="t9", ttl="1h")
    later = store.clock() + timedelta(hours=2)

    def expire(other: Store) -> None:
        other.clock = lambda: later
        assert other.expire() == 1

    _purged_while_embedding(monkeypatch, store_dir, expire)
    with pytest.raises(InvalidInput, match="forgotten for good"):
        store.summarize(task_id="t9")
    _nothing_of_it(store, store_dir)


def test_a_pattern_is_not_written_over_an_episode_purged_meanwhile(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(store_dir, embedder=FakeEmbedder())
    failed = "the build failed because the gradle daemon cache was stale"
    store.record(failed, outcome="failure", task_id="a")
    store.record(failed, outcome="failure", task_id="b", resolution=FORGOTTEN)
    [victim] = [m.id for m in store.list(limit=None) if m.resolution]
    planned = store.consolidate(dry_run=True).patterns
    assert [FORGOTTEN in c.row.content for c in planned] == [True]
    _purged_while_embedding(monkeypatch, store_dir, lambda other: other.forget([victim], hard=True))
    done = store.consolidate()
    assert not done.patterns
    _nothing_of_it(store, store_dir)
    assert derive.SOURCES_GONE.startswith("Memories this summary")


def _spooled(store: Store, kind: str) -> str:
    """The forgotten memory, and two events spooled after it: one that repeats its words, one not."""
    forgotten = f"the staging password rotation {FORGOTTEN} for quarterly audits"
    victim = store.record(forgotten).memory.id
    field = {"prompt": "text", "tool_error": "error"}[kind]
    for n, text in enumerate([f"remind me: {forgotten}", "how is the weather service deployed"]):
        extra = {"tool": "Bash", "call": f"c{n}"} if kind == "tool_error" else {}
        line = {"id": f"e{n}", "kind": kind, "session": "s1", field: text, **extra}
        spool_lines.write(store.path, line)
    return victim


@pytest.mark.parametrize("kind", ["prompt", "tool_error"])
@pytest.mark.parametrize("finished", [True, False], ids=["purged", "purge-under-way"])
def test_events_a_hard_forget_scrubbed_while_they_were_ingested_are_not_stored(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch, kind: str, finished: bool
) -> None:
    """The purge finished (its spool scrub done) before the events were written, or under way (its
    delete committed, its scrub still to come): the event that holds the forgotten words is not
    stored, the other is."""
    store = Store(store_dir, embedder=FakeEmbedder())
    victim = _spooled(store, kind)

    def forget(other: Store) -> None:
        if not finished:
            # the purge's process stopped after its delete: the journal is left owed
            with monkeypatch.context() as stopped:
                stopped.setattr(spool_scrub, "scrub", _stop)
                other.forget([victim], hard=True)
            assert purge.forgetting(store_dir)
        else:
            other.forget([victim], hard=True)

    _purged_while_embedding(monkeypatch, store_dir, forget)
    done = store.ingest_events()
    assert done["events"] == 2 and done["added"] == 1
    texts = [m.content for m in store.list(limit=None)]
    assert any("weather service" in t for t in texts)
    if finished:
        _nothing_of_it(store, store_dir)
    else:
        assert not [t for t in texts if FORGOTTEN in t]
        # the next open finishes the purge: nothing of it stays anywhere
        _nothing_of_it(Store(store_dir, embedder=FakeEmbedder()), store_dir)


def test_an_ingestion_no_purge_met_reads_its_claimed_files_once(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check costs nothing when nothing was purged: the claimed files, unchanged and with no
    purge under way, are not read again for each batch written."""
    from hindsight_cli.core import events, transfer

    store = Store(store_dir, embedder=FakeEmbedder())
    store.record("the weather service runs on k3s")
    for n in range(5):
        spool_lines.write(store.path, {"id": f"e{n}", "kind": "prompt", "text": f"deploy {n}"})
    monkeypatch.setattr(transfer, "IMPORT_BATCH", 2)
    reads: list[int] = []
    by_id = events._by_id
    monkeypatch.setattr(events, "_by_id", lambda claimed: reads.append(1) or by_id(claimed))
    assert store.ingest_events()["added"] == 5 and not reads


def _stop(*_: object) -> int:
    raise OSError("stopped")


def _chunked(store: Store) -> dict[str, int]:
    """How many further windows' vectors the ledger holds for each memory."""
    with store.ledger.read() as session:
        found = session.conn.execute("SELECT id, count(*) FROM chunks GROUP BY id").fetchall()
    return {str(memory): int(count) for memory, count in found}


def test_a_reindex_writes_vectors_only_for_memories_still_there(store_dir: Path) -> None:
    """A reindex reads every memory, embeds them all (minutes for a large store), then wrote their
    vectors (``Writer.set_embeddings``): it deleted every chunk (a long memory's further windows'
    vectors) and put back those of the memories it had read. A memory hard-forgotten meanwhile got
    its text's vectors back, and one recorded meanwhile lost its own (review AK)."""
    store = Store(store_dir, embedder=FakeEmbedder())
    forgotten = store.record(" ".join(f"{FORGOTTEN}{i} word{i}" for i in range(120))).memory.id
    store.record("a short one")
    with store.ledger.read() as session:
        rows = session.select([], order="seq", vectors=True)
    for row in rows:
        row.chunks = [row.embedding, row.embedding]
    # meanwhile, another process
    other = Store(store_dir, embedder=FakeEmbedder())
    other.forget([forgotten], hard=True)
    recorded = other.record(" ".join(f"otter{i} word{i}" for i in range(120))).memory.id
    held = _chunked(store)[recorded]
    with store.ledger.write() as session:
        session.set_embeddings(rows)
    written = {recorded: held, rows[1].id: 2}
    assert _chunked(store) == written
    # with nothing recorded meanwhile, every chunk is written again from what was read
    with store.ledger.read() as session:
        rows = session.select([], order="seq", vectors=True)
    with store.ledger.write() as session:
        session.set_embeddings(rows)
    assert _chunked(store) == written


def test_a_migration_keeps_nothing_the_source_purged_meanwhile(
    store_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A migration reads every memory, then copies them batch by batch: one the source purged
    meanwhile (a hard forget, an expiry) stayed in the target, where no purge of the source
    reaches it (review AK). Now it is purged from the target before the migration ends."""
    from hindsight_cli.core import migrate

    store = Store(store_dir, embedder=FakeEmbedder())
    victim = store.record(f"the staging password rotation {FORGOTTEN} for audits").memory.id
    store.record("the weather service runs on k3s")
    prepare = migrate._prepare_target

    def purged_meanwhile(*args: Any) -> None:
        Store(store_dir, embedder=FakeEmbedder()).forget([victim], hard=True)
        prepare(*args)

    monkeypatch.setattr(migrate, "_prepare_target", purged_meanwhile)
    # the target's LanceDB index is built at its first search, not here (7 s of this test)
    monkeypatch.setattr(Mirror, "sync", lambda *_, **__: 0)
    target = Store(tmp_path / "target", embedder=FakeEmbedder())
    done = store.migrate(target)
    assert done.added == 1
    assert [m.content for m in target.list(limit=None)] == ["the weather service runs on k3s"]
    _nothing_of_it(target, tmp_path / "target")
