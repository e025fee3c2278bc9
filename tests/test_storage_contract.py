"""The storage contract (``storage.base.Ledger``), the same on every registered backend.

What a write stores, a read returns field for field; a write that fails commits nothing; updates
and status changes touch exactly the rows they name and move the change sequence; every filter
operator selects the same rows; keyword and vector search answer within the filters; a delete
leaves no posting, chunk or link behind. Each test runs once per backend: the ``backend`` fixture's
params are ``storage.registry.BACKENDS``' names, and the fixtures check that each run holds that
backend's ledger. The tests that only read share one filled ledger per backend.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import BACKEND_PARAMS, FakeEmbedder, shared_store_dir

from hindsight_cli.config import Ranking
from hindsight_cli.storage import base
from hindsight_cli.storage.base import Condition, Ledger
from hindsight_cli.storage.rows import MemoryRow, embedding_text, row_term_counts
from hindsight_cli.store import Store
from hindsight_cli.text import terms

T0 = datetime(2026, 3, 10, 12, 0, 0)
FAKE = FakeEmbedder()
RANKING = Ranking()


def _id(n: int) -> str:
    return f"0190a0e0-0000-7000-8000-{n:012d}"


# name -> the row's fields beyond its content; n is its place (id, key and times follow it)
SPECS: dict[str, dict[str, Any]] = {
    "a": {
        "agent_id": "a",
        "task_id": "t1",
        "step": 1,
        "trigger": "tool_error",
        "outcome": "failure",
        "resolution": "rotated the token",
        "tags": ["infra"],
        "metadata": {"k": "värde", "n": [1, 2], "nested": {"x": None}},
        "env": {"tool_version": "weather-api-v2"},
        "event_at": datetime(2026, 1, 10, 8, 30, 0, 123456),
    },
    "b": {
        "agent_id": "b",
        "task_id": "t2",
        "type": "semantic",
        "tags": ["infra", "db"],
        "source": "user",
        "importance": 0.9,
        "confidence": 0.8,
        "event_at": datetime(2026, 3, 2),
        "expires_at": T0 - timedelta(hours=1),
    },
    "c": {
        "agent_id": "a",
        "type": "procedural",
        "status": "archived",
        "event_at": datetime(2026, 3, 3),
        "expires_at": T0 + timedelta(days=1),
        "valid_until": T0 + timedelta(days=30),
    },
    "d": {
        "agent_id": "it's",
        "task_id": 'o\'brien "t"',
        "tags": ["it's"],
        "outcome": "success",
        "event_at": datetime(2026, 3, 4),
    },
    "e": {"agent_id": "a", "task_id": "t1", "step": 2, "event_at": datetime(2026, 3, 5)},
}
TEXTS = {
    "a": "the weather api returned 401 because the token had expired",
    "b": "the user prefers short answers about the replication database",
    "c": "how to deploy: run make deploy and wait for the health check",
    "d": "o'brien's quoted cache key was evicted",
    # a long memory: further chunks carry its later windows
    "e": "a long incident review about parking permits and room bookings",
}
NAMES = {_id(n): name for n, name in enumerate(SPECS, 1)}


def _row(name: str) -> MemoryRow:
    n = list(SPECS).index(name) + 1
    row = MemoryRow(
        id=_id(n),
        content=TEXTS[name],
        created_at=T0 + timedelta(minutes=n),
        idempotency_key=f"key-{n}",
        content_hash=f"hash-{n}",
        **{"event_at": T0, **SPECS[name]},
    )
    row.embedding = FAKE.embed([embedding_text(row)])[0].tolist()
    if name == "e":
        row.chunks = [v.tolist() for v in FAKE.embed(["canary balancer", "certificate renewal"])]
    return row


def _stored(row: MemoryRow) -> MemoryRow:
    """What a read without vectors returns of ``row``."""
    return row.replace(seq=0, embedding=None, chunks=None)


def _floats(vector: Any) -> list[float]:
    return [float(x) for x in vector]


def _names(ids: Iterable[str]) -> list[str]:
    return [NAMES[i] for i in ids]


@pytest.fixture
def ledger(store: Store, backend: str) -> Ledger:
    ledger = store.ledger
    # the run holds the backend it is named for
    assert ledger.capabilities.name == backend
    return ledger


def _fill(ledger: Ledger) -> Ledger:
    """Every row of ``SPECS``, ``a`` and ``b`` one by one and the rest in one bulk insert."""
    with ledger.write() as writer:
        for name in ("a", "b"):
            row = _row(name)
            writer.insert(row, row_term_counts(row))
        writer.insert_many([(row, row_term_counts(row)) for row in map(_row, ("c", "d", "e"))])
    return ledger


@pytest.fixture
def filled(ledger: Ledger) -> Ledger:
    """A ledger of its own, for a test that writes."""
    return _fill(ledger)


@pytest.fixture(scope="module", params=BACKEND_PARAMS)
def read_only(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, module_isolated: Path
) -> Ledger:
    """One filled ledger per backend, for the tests that only read it."""
    store = Store(shared_store_dir(request, tmp_path_factory.mktemp("contract")), embedder=FAKE)
    store.init()
    assert store.ledger.capabilities.name == request.param
    return _fill(store.ledger)


def _declared(*protocols: type) -> set[str]:
    return {name for protocol in protocols for name in vars(protocol) if not name.startswith("_")}


def test_the_ledger_says_what_it_is_and_creating_it_again_keeps_the_rows(filled: Ledger) -> None:
    # every member the contract declares, on the ledger and on both kinds of session
    assert all(hasattr(filled, name) for name in _declared(base.Ledger))
    with filled.write() as writer:
        assert all(callable(getattr(writer, name)) for name in _declared(base.Writer, base.Reader))
    capabilities = filled.capabilities
    assert filled.exists and filled.describe() and filled.size_bytes() > 0
    assert isinstance(filled.probe(), dict)
    filled.create(FAKE.name, FAKE.dim)
    with filled.read() as reader:
        assert reader.meta()["embedding_model"] == FAKE.name
        assert reader.meta()["embedding_dim"] == str(FAKE.dim)
        assert reader.count([]) == len(SPECS)
    before = filled.change_token()
    filled.mark_changed()
    # a mirrored ledger tells its readers that it changed; one nothing mirrors says nothing
    assert (filled.change_token() != before) == capabilities.mirrored
    with filled.held(), filled.read() as reader:
        assert reader.count([]) == len(SPECS)


def test_a_row_reads_back_as_it_was_written(read_only: Ledger) -> None:
    written = {name: _row(name) for name in SPECS}
    with read_only.read() as reader:
        rows = reader.by_ids(list(NAMES))
        assert {NAMES[r.id]: r for r in rows} == {n: _stored(r) for n, r in written.items()}
        full = {NAMES[r.id]: r for r in reader.by_ids(list(NAMES), vectors=True)}
    # the vectors as float32, the change sequence in the order of the writes
    for name, row in full.items():
        assert _floats(row.embedding) == pytest.approx(written[name].embedding, abs=1e-6)
    assert full["e"].chunks is not None and len(full["e"].chunks) == 2
    for got, chunk in zip(full["e"].chunks, written["e"].chunks or [], strict=True):
        assert _floats(got) == pytest.approx(chunk, abs=1e-6)
    assert all(full[name].chunks is None for name in "abcd")
    assert [name for name, _ in sorted(full.items(), key=lambda item: item[1].seq)] == list(SPECS)
    assert all(row.seq > 0 for row in full.values())


def test_reads_order_count_and_find_by_id_key_prefix_and_suffix(read_only: Ledger) -> None:
    with read_only.read() as reader:
        assert _names(r.id for r in reader.select([])) == ["e", "d", "c", "b", "a"]
        assert _names(r.id for r in reader.select([], order="oldest", limit=2)) == ["a", "b"]
        assert _names(r.id for r in reader.select([], order="event")) == ["a", "b", "c", "d", "e"]
        assert _names(r.id for r in reader.select([], order="seq")) == list(SPECS)
        assert _names(r.id for r in reader.select([], order="id")) == list(SPECS)
        assert _names(reader.ids([("agent_id", "in", ["a"])])) == ["a", "c", "e"]
        assert reader.count([("agent_id", "in", ["a"])]) == 3
        # keys are per agent: another agent's key is not found
        found = reader.by_key("key-1", "a")
        assert found is not None and found.id == _id(1)
        assert reader.by_key("key-1", "b") is None
        assert reader.by_prefix(_id(0)[:-1]) == [_id(1), _id(2), _id(3)]
        assert reader.by_prefix(_id(0)[:-1], limit=5) == list(NAMES)
        assert reader.by_prefix("ffff") == []
        assert reader.by_suffix("000000000004") == [_id(4)]
        assert reader.by_suffix("9") == []
        assert reader.identities() == {
            (_id(n), SPECS[name]["agent_id"], f"key-{n}") for n, name in enumerate(SPECS, 1)
        }
        assert reader.present([_id(2)], ["key-4", "no-such-key"]) == {
            (_id(2), "b", "key-2"),
            (_id(4), "it's", "key-4"),
        }
        assert reader.present([], []) == set()
        assert reader.vectors_held() == len(SPECS)
        assert reader.max_seq() == max(r.seq for r in reader.changed_since(0))
        assert _names(r.id for r in reader.changed_since(0)) == list(SPECS)


FILTERS: list[tuple[list[Condition], set[str]]] = [
    ([], set(SPECS)),
    ([("agent_id", "in", ["a"])], {"a", "c", "e"}),
    ([("agent_id", "in", [])], set()),
    # quotes are data, never syntax
    ([("agent_id", "in", ["it's", "a' OR '1'='1"])], {"d"}),
    ([("task_id", "=", 'o\'brien "t"')], {"d"}),
    ([("task_id", "is", None)], {"c"}),
    ([("task_id", "is", "t1")], {"a", "e"}),
    ([("task_id", "null_or_eq", "t2")], {"b", "c"}),
    ([("task_id", "null_or_eq", None)], set(SPECS)),
    ([("type", "in", ["semantic", "procedural"])], {"b", "c"}),
    ([("status", "in", ["active"])], {"a", "b", "d", "e"}),
    ([("outcome", "=", "failure")], {"a"}),
    ([("source", "=", "user")], {"b"}),
    ([("tags", "has", "infra")], {"a", "b"}),
    ([("tags", "has", "it's")], {"d"}),
    ([("event_at", ">=", datetime(2026, 3, 3))], {"c", "d", "e"}),
    ([("event_at", "<=", datetime(2026, 3, 3))], {"a", "b", "c"}),
    ([("event_at", "<", datetime(2026, 3, 3))], {"a", "b"}),
    ([("expires_at", "expired", T0)], {"b"}),
    ([("expires_at", "unexpired", T0)], {"a", "c", "d", "e"}),
    ([("created_at", "<", T0 + timedelta(minutes=3))], {"a", "b"}),
    ([("id", "in", [_id(2), _id(5), "no-such-id"])], {"b", "e"}),
    ([("trigger", "=", "tool_error")], {"a"}),
    ([("step", "=", 2)], {"e"}),
    # conditions are ANDed
    ([("agent_id", "in", ["a", "b"]), ("tags", "has", "infra"), ("type", "=", "episodic")], {"a"}),
]


@pytest.mark.parametrize(("where", "expected"), FILTERS, ids=[str(i) for i in range(len(FILTERS))])
def test_every_filter_operator_selects_the_same_rows(
    read_only: Ledger, where: list[Condition], expected: set[str]
) -> None:
    with read_only.read() as reader:
        assert {NAMES[r.id] for r in reader.select(where)} == expected
        assert set(_names(reader.ids(where))) == expected
        assert reader.count(where) == len(expected)
        # both searches stay inside the filters
        vector = FAKE.embed(["the token expired"])[0].tolist()
        assert {NAMES[m] for m, _ in reader.nearest(vector, where, 50)} == expected
        every_word = terms(" ".join(TEXTS.values()))
        words = reader.keyword(every_word, where, 50, RANKING.bm25_k1, RANKING.bm25_b)
        assert {NAMES[m] for m, _ in words} == expected


def test_unknown_columns_and_operators_are_refused(ledger: Ledger) -> None:
    with ledger.read() as reader:
        with pytest.raises(ValueError, match="cannot filter on"):
            reader.select([("content", "=", "x")])
        with pytest.raises(ValueError, match="unknown operator"):
            reader.select([("agent_id", "LIKE", "x")])


def test_a_write_that_fails_commits_nothing(filled: Ledger) -> None:
    extra = _row("a").replace(id=_id(99), idempotency_key="key-99")
    with pytest.raises(RuntimeError), filled.write() as writer:
        writer.insert(extra, row_term_counts(extra))
        writer.set_status([_id(1)], "invalidated", T0)
        raise RuntimeError("the process fails mid-write")
    with filled.read() as reader:
        assert reader.count([]) == len(SPECS) and reader.by_ids([_id(99)]) == []
        assert reader.by_ids([_id(1)])[0].status == "active"


def test_updates_touch_only_their_rows_and_move_the_change_sequence(filled: Ledger) -> None:
    at = T0 + timedelta(hours=2)
    with filled.read() as reader:
        before = reader.max_seq()
        untouched = reader.by_ids([_id(4)])
    rewritten = _row("e").replace(
        content="the canary balancer certificate was renewed",
        content_hash="hash-new",
        source_ids=[_id(1)],
        metadata={"rewritten": True},
        outcome="success",
        resolution=None,
        confidence=0.95,
        event_at=T0,
        created_at=at,
        chunks=None,
    )
    rewritten.embedding = FAKE.embed([rewritten.content])[0].tolist()
    with filled.write() as writer:
        writer.touch(_id(1), at, 0.95)
        # a lower importance never lowers it
        writer.touch(_id(2), at, 0.1)
        writer.supersede(_id(3), _id(1), at)
        assert writer.set_status([_id(2), _id(5)], "invalidated", at) == 2
        # already so: not counted, not changed
        assert writer.set_status([_id(2)], "invalidated", at) == 0
        writer.rewrite(rewritten, row_term_counts(rewritten))
    with filled.read() as reader:
        rows = {NAMES[r.id]: r for r in reader.by_ids(list(NAMES))}
        changed = reader.changed_since(before)
        assert reader.by_ids([_id(4)]) == untouched
        long_words = reader.keyword(terms("parking"), [], 10, RANKING.bm25_k1, RANKING.bm25_b)
        new_words = reader.keyword(terms("renewed"), [], 10, RANKING.bm25_k1, RANKING.bm25_b)
        chunk = FAKE.embed(["canary balancer"])[0].tolist()
        by_chunk = dict(reader.nearest(chunk, [], 10))
    a, b, c, e = rows["a"], rows["b"], rows["c"], rows["e"]
    assert (a.seen_count, a.last_seen_at, a.updated_at, a.importance, a.version) == (
        2,
        at,
        at,
        0.95,
        2,
    )
    assert (b.seen_count, b.importance, b.status, b.version) == (2, 0.9, "invalidated", 3)
    assert (c.status, c.superseded_by, c.updated_at, c.version) == ("superseded", _id(1), at, 2)
    assert (e.content, e.source_ids, e.metadata, e.outcome, e.confidence, e.updated_at) == (
        rewritten.content,
        [_id(1)],
        {"rewritten": True},
        "success",
        0.95,
        at,
    )
    # the invalidated row comes back to life as the rewritten one, with its postings replaced
    assert (e.status, e.version, e.content_hash) == ("active", 3, "hash-new")
    assert long_words == [] and [m for m, _ in new_words] == [_id(5)]
    # its old chunks are gone with the old text
    assert by_chunk.get(_id(5), 0.0) < 0.99
    # every change moved the sequence, once per row, in the order of the writes
    assert _names(r.id for r in changed) == ["a", "c", "b", "e"]
    assert all(r.seq > before for r in changed)


def test_the_back_link_of_a_supersede_is_set_on_an_existing_row(filled: Ledger) -> None:
    at = T0 + timedelta(hours=3)
    with filled.read() as reader:
        before = reader.max_seq()
        was = reader.by_ids([_id(1)])[0]
    with filled.write() as writer:
        writer.supersede(_id(3), _id(1), at)
        writer.link_supersedes(_id(1), _id(3), at)
    with filled.read() as reader:
        a, c = reader.by_ids([_id(1)])[0], reader.by_ids([_id(3)])[0]
        changed = reader.changed_since(before)
    assert (a.supersedes, a.updated_at, a.version) == (_id(3), at, was.version + 1)
    assert (a.status, a.content) == (was.status, was.content)
    assert (c.status, c.superseded_by) == ("superseded", _id(1))
    # the index of a long-lived process notices both rows
    assert _names(r.id for r in changed) == ["c", "a"]


def test_links_and_a_long_list_of_ids_read_the_rows_named(
    filled: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``links``: the linked rows ``where`` selects, their text, agent and links alone; ``by_ids``
    past ``_LISTED_IDS`` ids (one list parameter, review BH) reads what the values read."""
    from hindsight_cli.storage.sql import common

    at = T0 + timedelta(hours=3)
    with filled.write() as writer:
        writer.supersede(_id(3), _id(1), at)
        writer.link_supersedes(_id(1), _id(3), at)
    with filled.read() as reader:
        rows = {r.id: r for r in reader.by_ids(list(NAMES))}
        links = reader.links([("agent_id", "in", sorted({r.agent_id for r in rows.values()}))])
        listed = reader.by_ids([*NAMES, _id(99)])
        monkeypatch.setattr(common, "_LISTED_IDS", 2)
        joined = reader.by_ids([*NAMES, _id(99)])
        assert reader.by_ids([_id(99)]) == []
    assert sorted(links) == sorted(
        (r.id, r.content_hash, r.agent_id, r.supersedes, r.superseded_by)
        for r in rows.values()
        if r.supersedes or r.superseded_by
    )
    assert {_id(1), _id(3)} <= {link[0] for link in links}
    assert joined == listed and len(joined) == len(SPECS)


def test_searches_rank_within_the_filters(read_only: Ledger) -> None:
    with read_only.read() as reader:
        words = reader.keyword(terms("token expired"), [], 10, RANKING.bm25_k1, RANKING.bm25_b)
        assert [m for m, _ in words] == [_id(1)] and words[0][1] > 0
        # the fix and the tags are read too
        assert _names(
            m for m, _ in reader.keyword(terms("rotated"), [], 10, RANKING.bm25_k1, RANKING.bm25_b)
        ) == ["a"]
        assert sorted(
            _names(
                m
                for m, _ in reader.keyword(terms("infra"), [], 10, RANKING.bm25_k1, RANKING.bm25_b)
            )
        ) == ["a", "b"]
        assert reader.keyword([], [], 10, RANKING.bm25_k1, RANKING.bm25_b) == []
        scoped = reader.keyword(
            terms("token"), [("agent_id", "in", ["b"])], 10, RANKING.bm25_k1, RANKING.bm25_b
        )
        assert scoped == []
        # every row, nearest first; a row's own vector is its nearest at cosine 1
        near = reader.nearest(_row("d").embedding, [], 10)
        assert near[0][0] == _id(4) and near[0][1] == pytest.approx(1.0, abs=1e-5)
        assert [s for _, s in near] == sorted((s for _, s in near), reverse=True)
        assert {m for m, _ in near} == set(NAMES)
        assert len(reader.nearest(_row("d").embedding, [], 2)) == 2
        # a long memory is found by its best window, as one candidate
        chunk = FAKE.embed(["certificate renewal"])[0].tolist()
        best = reader.nearest(chunk, [], 10)
        assert best[0][0] == _id(5) and best[0][1] == pytest.approx(1.0, abs=1e-5)
        assert [m for m, _ in best].count(_id(5)) == 1


def test_a_delete_leaves_no_posting_chunk_or_link(filled: Ledger) -> None:
    successor = _row("a").replace(
        id=_id(6), idempotency_key="key-6", content="the weather api wants a key now"
    )
    successor.supersedes = _id(1)
    with filled.write() as writer:
        writer.insert(successor, row_term_counts(successor))
    with filled.write() as writer:
        assert writer.delete([_id(1), _id(5), "no-such-id"]) == 2
        assert writer.delete([_id(1)]) == 0 and writer.delete([]) == 0
    with filled.read() as reader:
        assert reader.by_ids([_id(1), _id(5)]) == []
        # no link points at a deleted memory
        assert reader.by_ids([_id(6)])[0].supersedes is None
        assert reader.keyword(terms("401 parking"), [], 10, RANKING.bm25_k1, RANKING.bm25_b) == []
        for vector in (_row("a").embedding, FAKE.embed(["canary balancer"])[0].tolist()):
            assert {m for m, _ in reader.nearest(vector, [], 10)} == {
                _id(2),
                _id(3),
                _id(4),
                _id(6),
            }
        assert reader.count([]) == 4 and reader.vectors_held() == 4


def test_derived_memories_are_found_from_their_sources_transitively(filled: Ledger) -> None:
    summary = _row("a").replace(id=_id(7), idempotency_key="key-7", source_ids=[_id(1), _id(5)])
    pattern = _row("a").replace(id=_id(8), idempotency_key="key-8", source_ids=[_id(7)])
    # another agent's memory naming one is not built on it (review BK: an import's links)
    other = _row("b").replace(id=_id(9), idempotency_key="key-9", source_ids=[_id(1), _id(7)])
    with filled.write() as writer:
        writer.insert_many([(row, row_term_counts(row)) for row in (summary, pattern, other)])
    with filled.read() as reader:
        assert reader.derived_from([_id(1)]) == [_id(7), _id(8)]
        assert reader.derived_from([_id(1)], transitive=False) == [_id(7)]
        assert reader.derived_from([_id(8)]) == []
        assert reader.derived_from([]) == []


def test_the_audit_log_keeps_every_entry_newest_first(filled: Ledger) -> None:
    with filled.write() as writer:
        writer.audit("record", [_id(1)], T0, actor="agent a")
        writer.audit("forget", [_id(1), _id(2)], T0 + timedelta(minutes=1), reason="stale")
        writer.audit("restore", [_id(2)], T0 + timedelta(minutes=1))
    with filled.read() as reader:
        everything = reader.audit_log(limit=None, action=None, memory_id=None, since=None)
        assert everything == [
            (T0 + timedelta(minutes=1), "restore", [_id(2)], None, None),
            (T0 + timedelta(minutes=1), "forget", [_id(1), _id(2)], "stale", None),
            (T0, "record", [_id(1)], None, "agent a"),
        ]
        assert reader.audit_log(limit=1, action=None, memory_id=None, since=None) == everything[:1]
        assert reader.audit_log(limit=None, action="forget", memory_id=None, since=None) == [
            everything[1]
        ]
        assert (
            reader.audit_log(limit=None, action=None, memory_id=_id(1), since=None)
            == everything[1:]
        )
        assert (
            reader.audit_log(
                limit=None, action=None, memory_id=None, since=T0 + timedelta(minutes=1)
            )
            == everything[:2]
        )
        assert reader.counts()["audit_entries"] == 3


def test_counts_group_what_the_ledger_holds(filled: Ledger) -> None:
    with filled.read() as reader:
        counts = reader.counts()
    assert (counts["memories"], counts["oldest"], counts["newest"]) == (
        5,
        T0 + timedelta(minutes=1),
        T0 + timedelta(minutes=5),
    )
    assert counts["by_status"] == {"active": 4, "archived": 1}
    assert counts["by_type"] == {"episodic": 3, "procedural": 1, "semantic": 1}
    assert counts["by_agent"] == {"a": 3, "b": 1, "it's": 1}
    assert counts["by_outcome"] == {"unknown": 3, "failure": 1, "success": 1}
    assert counts["audit_entries"] == 0


def test_new_vectors_replace_the_old_ones_and_their_chunks(filled: Ledger) -> None:
    with filled.read() as reader:
        rows = reader.by_ids(list(NAMES), vectors=True)
        before = reader.max_seq()
    swapped = FAKE.embed(["an unrelated text about gardening"])[0].tolist()
    for row in rows:
        row.embedding = swapped if row.id == _id(4) else row.embedding
        row.chunks = None
    with filled.write() as writer:
        writer.set_embeddings(rows)
    with filled.read() as reader:
        near = reader.nearest(swapped, [], 1)
        chunk = FAKE.embed(["canary balancer"])[0].tolist()
        assert near[0][0] == _id(4) and near[0][1] == pytest.approx(1.0, abs=1e-5)
        assert dict(reader.nearest(chunk, [], 10)).get(_id(5), 0.0) < 0.99
        assert reader.by_ids([_id(5)], vectors=True)[0].chunks is None
        assert reader.max_seq() > before
