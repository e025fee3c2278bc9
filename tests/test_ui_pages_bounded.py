"""A memory's page in ``hindsight ui`` lists a bounded number of its audit entries (review AV,
low): each repeat of a memory (a merge) adds an entry, so a writer repeating hers, a token
principal on a shared server, made its page, the owner's as well as hers, as long as she liked."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from fake_embedder import FakeEmbedder

from hindsight_cli.models import Memory, short_id
from hindsight_cli.store import Store
from hindsight_cli.ui import memory_page

pytestmark = pytest.mark.local_only


def _repeated(alice: Store, spellings: tuple[str, ...]) -> Memory:
    """A memory of alice's, then the same statement again in each of ``spellings`` of its first
    word: merged, an audit entry each."""
    memory = alice.record("the deploy of api needs the vpn up first").memory
    for said in spellings:
        alice.record(f"{said} deploy of api needs the vpn up first")
    return memory


@pytest.mark.parametrize("reader", [None, "alice"], ids=["owner", "principal"])
def test_a_memorys_page_lists_its_newest_audit_entries(
    store: Store, fake: FakeEmbedder, monkeypatch: pytest.MonkeyPatch, reader: str | None
) -> None:
    monkeypatch.setattr(memory_page, "AUDIT_SHOWN", 2, raising=False)
    alice = store.scoped("alice", principal=True)
    memory = _repeated(alice, ("The", "THE"))
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


def _summaries_of_one(alice: Store, many: int) -> tuple[str, list[str]]:
    """One memory of alice's and ``many`` summaries of hers, each of a time range holding it."""
    first = alice.record(
        "the deploy of api needs the vpn up first", event_at="2026-03-01T10:00:00Z"
    ).memory
    summaries = []
    for day in range(2, 2 + many):
        alice.record(
            f"the cache of api was warmed on day {day}",
            event_at=f"2026-03-{day:02d}T10:00:00Z",
            merge=False,
        )
        summary = alice.summarize(
            since=datetime(2026, 2, 28, tzinfo=UTC), until=datetime(2026, 3, day, 23, tzinfo=UTC)
        )
        summaries.append(summary.memory.id)
    return first.id, summaries


@pytest.mark.parametrize("reader", [None, "alice"], ids=["owner", "principal"])
def test_a_memorys_page_lists_the_oldest_memories_built_on_it(
    store: Store, fake: FakeEmbedder, monkeypatch: pytest.MonkeyPatch, reader: str | None
) -> None:
    # review BB (low): a principal making many summaries of one memory of hers made its page, the
    # owner's too, list every one of them
    monkeypatch.setattr(memory_page, "CHAIN_SHOWN", 2, raising=False)
    alice = store.scoped("alice", principal=True)
    memory_id, summaries = _summaries_of_one(alice, 4)
    viewer = store.scoped(reader, principal=True) if reader else store
    assert [m.id for m in viewer.built_on(memory_id)] == summaries
    assert [m.id for m in viewer.built_on(memory_id, limit=3)] == summaries[:3]
    _, body = memory_page.render(viewer, memory_id, None, "csrf")
    up = str(body).split('<div id="up">', 1)[1].split("</div>", 1)[0]
    assert up.count("<li>") == 2, up
    assert all(short_id(s) in up for s in summaries[:2])
    assert "The oldest 2 shown." in up
    # the last summary's sources (every memory of its range): the first two, and how to see all
    last = viewer.get(summaries[-1])
    assert len(last.source_ids) == 5
    assert len(viewer.sources(last.id, depth=1, limit=3)) == 4
    _, body = memory_page.render(viewer, last.id, None, "csrf")
    down = str(body).split('<div id="down">', 1)[1].split("</div>", 1)[0]
    assert down.count("<li>") == 2, down
    assert f"hindsight show {last.id} --sources" in down
    fields = str(body).split("<h2>Fields</h2>", 1)[1]
    assert "and 3 more" in fields
    # under the bound: every one, and no note
    _, body = memory_page.render(viewer, summaries[0], None, "csrf")
    assert "shown" not in str(body).split("<h2>Summary chain</h2>", 1)[1].split("</div></div>")[0]


def test_a_principals_page_reads_no_more_audit_entries_than_it_shows(
    store: Store, fake: FakeEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # review BH (low): a token login's audit read took every entry naming the memory, then kept
    # hers: a memory of hers she repeats made each view of its page read them all
    from hindsight_cli.storage.sql.common import SqlSession

    monkeypatch.setattr(memory_page, "AUDIT_SHOWN", 2, raising=False)
    alice = store.scoped("alice", principal=True)
    memory = _repeated(alice, ("The", "THE", "tHe", "ThE"))
    read: list[int] = []
    real = SqlSession.audit_log

    def counted(self: SqlSession, **kwargs: object) -> list:  # type: ignore[type-arg]
        rows = real(self, **kwargs)  # type: ignore[arg-type]
        read.append(len(rows))
        return rows

    monkeypatch.setattr(SqlSession, "audit_log", counted)
    _, body = memory_page.render(alice, memory.id, None, "csrf")
    assert str(body).split("<h2>Audit log</h2>", 1)[1].count("<tr") - 1 == 2
    assert read == [3]
    assert len(alice.log(limit=None, memory_id=memory.id)) == 5
