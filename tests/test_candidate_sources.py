"""Every candidate source (``search/candidates.py``) answers alike.

The exact ledger of each backend (DuckDB, PostgreSQL), the LanceDB index of a local store and the
in-memory index of a long-lived process give the same candidate ids, keyword and vector, and so the
same fused candidates, for the same filters: agent scope, type, status, outcome, task, tags, time
range, expiry. The DuckDB ledger is the reference; the in-memory index matches it score for score.
Then the same filters through ``Store.search``, on every engine of every backend. The stores are
built once per module and per worker: the tests only read them.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import BACKEND_PARAMS, FakeEmbedder, postgres_store_dir, shared_store_dir
from filter_fixtures import FILTERS, QUERIES, Clock, fill

from hindsight_cli.models import Filters
from hindsight_cli.search.candidates import HotSource, IndexSource, LedgerSource, Source, gather
from hindsight_cli.storage.index import where_clause
from hindsight_cli.store import Store
from hindsight_cli.text import terms

# one xdist group: the module's stores (and the ledger's reference answers) are built once
pytestmark = pytest.mark.xdist_group("candidate-sources")
FAKE = FakeEmbedder()
# past every row: each answer is every matching row, not a top few
LIMIT = 100


Answers = tuple[list[tuple[str, float]], list[tuple[str, float]], list[str]]


@dataclass
class Sources:
    """``filter_fixtures.fill`` in a local store (with its LanceDB index, and a warm process's
    in-memory index); ``names`` maps ids to the memories' names."""

    local: Store
    warm: Store
    names: dict[str, str]
    # the local ledger's answers per filter, asked once for every source
    reference: dict[str, dict[str, Answers]] = field(default_factory=dict)

    def expected(self, filters: Filters, where: list[Any]) -> dict[str, Answers]:
        key = repr(filters)
        if key not in self.reference:
            self.reference[key] = _in_ledger(self.local, filters, where)
        return self.reference[key]


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory, module_isolated: Path) -> Sources:
    local = Store(tmp_path_factory.mktemp("sources") / "local", embedder=FAKE, clock=Clock())
    made = fill(local)
    # the LanceDB index holds every ledger row
    local.sync_index()
    warm = Store(local.path, embedder=FAKE, warm=True, clock=local.clock)
    return Sources(local, warm, {i: n for n, i in made.items()})


@pytest.fixture(scope="module")
def postgres(
    tmp_path_factory: pytest.TempPathFactory, postgres_url: str, module_isolated: Path
) -> tuple[Store, dict[str, str]]:
    """The same memories, written alike to a Postgres store."""
    path = postgres_store_dir(tmp_path_factory.mktemp("sources") / "pg", postgres_url)
    store = Store(path, embedder=FAKE, clock=Clock())
    return store, {i: n for n, i in fill(store).items()}


def _answers(source: Source, query: str, where: list[Any], store: Store) -> Answers:
    """A source's keyword and vector candidates for ``query`` and the ids ``gather`` fuses."""
    words = terms(query)
    vector = FAKE.embed([query])[0].tolist()
    weights = store.config.ranking
    keyword = source.keyword(words, where, LIMIT, weights)
    nearest = source.nearest(vector, where, LIMIT)
    rows, fused = gather(source, words, lambda: vector, where, LIMIT, weights, "hybrid")
    assert set(rows) == set(fused)
    return keyword, nearest, sorted(fused)


def _in_ledger(store: Store, filters: Filters, where: list[Any]) -> dict[str, Answers]:
    """The ledger's answers to every query, from one read."""
    with store.ledger.read() as session:
        source = LedgerSource(session, filters.agent_ids)
        return {query: _answers(source, query, where, store) for query in QUERIES}


def _named(answers: Answers, names: dict[str, str]) -> Any:
    keyword, nearest, fused = answers
    return (
        sorted(names[m] for m, _ in keyword),
        sorted(names[m] for m, _ in nearest),
        sorted(names[m] for m in fused),
    )


def _same(expected: list[tuple[str, float]], got: list[tuple[str, float]], places: float) -> None:
    assert [m for m, _ in got] == [m for m, _ in expected]
    assert all(abs(a - b) <= places for (_, a), (_, b) in zip(expected, got, strict=True))


def _close(expected: list[tuple[str, float]], got: list[tuple[str, float]], places: float) -> None:
    """The same candidates with the same scores, in whatever order equal scores come."""
    assert dict(got).keys() == dict(expected).keys()
    assert all(abs(dict(got)[m] - s) <= places for m, s in expected)


def _hot(sources: Sources) -> Callable[[], Source]:
    def source() -> Source:
        index = sources.warm._rt.hot.synced_index()  # type: ignore[union-attr]
        assert index is not None
        return HotSource(index)

    return source


@pytest.mark.parametrize(
    "source", ["hot", "index", pytest.param("postgres", marks=pytest.mark.slow)]
)
@pytest.mark.parametrize("filters", FILTERS, ids=[str(i) for i in range(len(FILTERS))])
def test_every_source_gives_the_ledgers_candidates(
    sources: Sources, filters: Filters, source: str, request: pytest.FixtureRequest
) -> None:
    local = sources.local
    where = filters.conditions(local.clock())
    if source == "index" and any(column == "created_at" for column, _, _ in where):
        # a selection's filter (forget --older-than), never a search's: the ledger alone has it
        with pytest.raises(ValueError, match="cannot filter on created_at"):
            where_clause(where)
        return
    reference = sources.expected(filters, where)
    if source == "postgres":
        store, ids = request.getfixturevalue("postgres")
        assert store.clock() == local.clock()
        names = sources.names | ids
        for query, got in _in_ledger(store, filters, where).items():
            expected = reference[query]
            assert _named(got, names) == _named(expected, names)
            # cosine is cosine on every engine
            _close(
                [(names[m], s) for m, s in expected[1]], [(names[m], s) for m, s in got[1]], 1e-5
            )
        return
    for query, expected in reference.items():
        if source == "hot":
            keyword, nearest, fused = _answers(_hot(sources)(), query, where, local)
            _same(expected[0], keyword, 1e-9)
            _same(expected[1], nearest, 1e-6)
        else:
            keyword, nearest, fused = _answers(IndexSource(local.index()), query, where, local)
            # LanceDB's full-text search scores with statistics of its own: the same ids
            assert sorted(m for m, _ in keyword) == sorted(m for m, _ in expected[0])
            _close(expected[1], nearest, 1e-5)
        assert fused == expected[2]


def test_rows_read_ahead_are_the_rows_read_at_once(sources: Sources) -> None:
    # a cold search reads its keyword candidates' rows while the query is embedded, the rest
    # after: the same rows, with their vectors and chunks, in the ledger's newest-first order
    local = sources.local
    kept = 0
    for filters in FILTERS:
        where = filters.conditions(local.clock())
        words = terms(QUERIES[0])
        with local.ledger.read() as session:
            found = LedgerSource(session).keyword(words, where, LIMIT, local.config.ranking)
            ids = [m for m, _ in found]
            # asked for in no order of the ledger's
            wanted = [*ids, *sources.names]
            random.Random(len(ids)).shuffle(wanted)
            at_once = LedgerSource(session).rows(wanted, where)
            ahead = LedgerSource(session)
            ahead.read_ahead(ids[: len(ids) // 2], where)
            in_two = ahead.rows(wanted, where)
        assert [r.id for r in in_two] == [r.id for r in at_once]
        assert in_two == at_once
        newest = sorted(at_once, key=lambda r: (r.created_at, r.id), reverse=True)
        assert [r.id for r in at_once] == [r.id for r in newest]
        kept += bool(at_once) and bool(ids)
    assert kept >= 3, "the filters keep rows and keyword candidates"


# --- the same filters through search, on every engine and backend
# --------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=BACKEND_PARAMS)
def searched(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, module_isolated: Path
) -> tuple[Store, dict[str, str]]:
    """Memories told apart by agent, task, outcome, tags, type, source and time, and one expired
    one, in a store of each backend."""
    path = shared_store_dir(request, tmp_path_factory.mktemp("searched"))
    clock = Clock()
    store = Store(path, embedder=FAKE, clock=clock)
    names = {}
    for name, fields in {
        "a1": {"agent_id": "a", "event_at": "2026-01-10T00:00:00Z", "tags": ["infra"]},
        "a2": {"agent_id": "a", "event_at": "2026-03-01T00:00:00Z", "outcome": "failure"},
        "b1": {
            "agent_id": "b",
            "task_id": "t2",
            "event_at": "2026-03-02T00:00:00Z",
            "tags": ["infra", "db"],
            "source": "user",
        },
        "s1": {"agent_id": "c", "type": "semantic", "event_at": "2026-03-03T00:00:00Z"},
    }.items():
        names[store.record(f"database replication lag note {name}", **fields).memory.id] = name
    store.record("database replication lag note expired", ttl="1s")
    clock.now += timedelta(seconds=2)
    return store, names


@pytest.mark.parametrize("engine", ["ledger", "index", "warm"])
@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (Filters(agent_ids=("a",)), {"a1", "a2"}),
        (Filters(agent_ids=()), set()),
        (Filters(task_id="t2"), {"b1"}),
        (Filters(outcomes=("failure",)), {"a2"}),
        (Filters(tags=("infra", "db")), {"b1"}),
        (Filters(types=("semantic",)), {"s1"}),
        (Filters(since=datetime(2026, 2, 1)), {"a2", "b1", "s1"}),
        (Filters(until=datetime(2026, 2, 1), agent_ids=("a", "b")), {"a1"}),
        # quotes are data, never syntax
        (Filters(agent_ids=("it's", "a' OR '1'='1")), set()),
        (Filters(sources=("User", "web")), {"b1"}),
    ],
)
def test_filters_mean_the_same_in_every_engine(
    searched: tuple[Store, dict[str, str]], engine: str, filters: Filters, expected: set[str]
) -> None:
    store, names = searched
    searcher, engine_name = store, engine
    # served from the index alone, without the ledger re-checking anything
    if engine == "warm":
        searcher = Store(store.path, embedder=store.embedder, warm=True, clock=store.clock)
        engine_name = None
        searcher.sync_index()
    hits = searcher.search(
        "database replication lag note", filters=filters, k=10, engine=engine_name
    ).hits
    if engine == "warm" and store.ledger.capabilities.files:
        assert searcher._rt.mirror is not None and searcher._rt.mirror.current()
    assert {names[h.memory.id] for h in hits} == expected


def test_the_stores_hold_the_same_memories(
    sources: Sources, postgres: tuple[Store, dict[str, str]]
) -> None:
    names = sources.names | postgres[1]

    def held(store: Store) -> list[tuple[Any, ...]]:
        return sorted(
            (names[m.id], m.content, m.agent_id, m.status, m.expires_at, m.event_at)
            for m in store.list(Filters(statuses=None, include_expired=True, types=None))
        )

    assert held(sources.local) == held(postgres[0]) and len(held(sources.local)) == 12
