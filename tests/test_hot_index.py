"""The in-memory index of a long-lived process (``Store(warm=True)``): it must answer exactly what
the ledger engine answers (for every filter: test_candidate_sources.py) and after every kind of
write by another process, without reading the ledger while nothing changed, and give way to the
LanceDB index past its memory limit.

The filled store of ``pair`` is filled once per module (one xdist group) and copied for each test,
its clock where the fill left it."""

from __future__ import annotations

import subprocess
import sys
import threading
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import FakeEmbedder, copy_store
from filter_fixtures import FILLER, QUERIES, Clock, fill

from hindsight_cli.config import Config, load as load_config
from hindsight_cli.errors import InvalidInput
from hindsight_cli.models import Filters
from hindsight_cli.search import columns
from hindsight_cli.search.candidates import HotSource, LedgerSource
from hindsight_cli.search.query import SEARCH_TYPES
from hindsight_cli.store import Store
from hindsight_cli.text import terms

# a postgres store searches its database: it has no in-memory index
pytestmark = [pytest.mark.local_only, pytest.mark.xdist_group("hot-index")]


@pytest.fixture
def clock() -> Clock:
    return Clock()


def _ledger_and_hot(store: Store, warm: Store, filters: list[Filters]) -> list[tuple[Any, Any]]:
    """The ledger's and the in-memory index's keyword and vector candidates, per filter and query;
    the ledger's from one read."""
    now = store.clock()
    asked = [(f.conditions(now), query) for f in filters for query in QUERIES]
    vectors = {query: v.tolist() for query, v in zip(QUERIES, store.embedder.embed(QUERIES))}
    with store.ledger.read() as session:
        ledger = LedgerSource(session)
        expected = [
            (
                ledger.keyword(terms(query), where, 100, store.config.ranking),
                ledger.nearest(vectors[query], where, 100),
            )
            for where, query in asked
        ]
    index = warm._rt.hot.synced_index()  # type: ignore[union-attr]
    assert index is not None
    hot = HotSource(index)
    got = [
        (
            hot.keyword(terms(query), where, 100, store.config.ranking),
            hot.nearest(vectors[query], where, 100),
        )
        for where, query in asked
    ]
    return list(zip(expected, got, strict=True))


def _same(expected: list[tuple[str, float]], got: list[tuple[str, float]], places: float) -> None:
    assert [m for m, _ in got] == [m for m, _ in expected]
    assert all(abs(a - b) <= places for (_, a), (_, b) in zip(expected, got))


def _ledger_chunks(store: Store) -> int:
    with store.ledger.read() as session:
        return int(session.conn.execute("SELECT count(*) FROM chunks").fetchone()[0])  # type: ignore[attr-defined]


def _searches_agree(store: Store, warm: Store, **options: Any) -> None:
    for query in QUERIES:
        expected = store.search(query, engine="ledger", k=10, **options)
        got = warm.search(query, k=10, **options)
        # The same memories in the same order; scores equal up to float32 arithmetic (BLAS and
        # DuckDB round the same cosine a unit in the sixth place apart).
        _same(
            [(h.memory.id, h.score) for h in expected.hits],
            [(h.memory.id, h.score) for h in got.hits],
            1e-5,
        )
        assert got.context == expected.context


@pytest.fixture(scope="module")
def filled(
    tmp_path_factory: pytest.TempPathFactory, module_isolated: Path
) -> tuple[Path, dict[str, str], Any]:
    """``fill`` once: the store's directory, the names' ids and where the fill left its clock."""
    clock = Clock()
    store = Store(tmp_path_factory.mktemp("hot") / "store", embedder=FakeEmbedder(), clock=clock)
    made = fill(store)
    return store.path, made, clock.now


@pytest.fixture
def pair(
    filled: tuple[Path, dict[str, str], Any], store_dir: Path, fake: Any, clock: Clock
) -> tuple[Store, Store, dict[str, str]]:
    """A cold and a warm view of a copy of the filled store, on a clock where the fill left it."""
    path, made, now = filled
    copy_store(path, store_dir)
    clock.now = now
    store = Store(store_dir, embedder=fake, clock=clock)
    return store, Store(store_dir, embedder=fake, warm=True, clock=clock), made


def test_warm_search_ranks_as_the_ledger_engine_does(pair) -> None:
    store, warm, _ = pair
    _searches_agree(store, warm)
    _searches_agree(store, warm, filters=Filters(agent_ids=("a",)), troubleshoot=True)
    _searches_agree(store, warm, mode="keyword")
    _searches_agree(
        store, warm, mode="vector", filters=Filters(statuses=None, include_expired=True)
    )
    _searches_agree(store.scoped("a"), warm.scoped("a"))
    assert warm._rt.hot is not None and warm._rt.hot.current()


def test_no_ledger_read_while_nothing_changed(pair, monkeypatch: pytest.MonkeyPatch) -> None:
    store, warm, _ = pair
    warm.warm_up()
    opened: list[bool] = []
    real = warm.ledger.read
    monkeypatch.setattr(
        warm.ledger, "read", lambda *a, **k: (opened.append(True), real(*a, **k))[1]
    )
    for query in QUERIES:
        warm.search(query)
    assert opened == []
    store.record("a new note on database replication", merge=False)
    assert any(
        "a new note" in h.memory.content
        for h in warm.search("database replication note", k=20).hits
    )
    # the change marker moved: it read what changed
    assert opened


def _writes(store: Store, made: dict[str, str], tmp_path: Path) -> list[tuple[str, Any]]:
    """One of every kind of write, as another process makes them (its own Store: nothing shared but
    files)."""

    def summary() -> None:
        for step in range(3, 7):
            store.record(
                f"step {step} of t1: replication lag checked", agent_id="a", task_id="t1", step=step
            )
        store.summarize(task_id="t1")
        store.record("step 7 of t1: replication lag fixed", agent_id="a", task_id="t1", step=7)
        # rewrites the same summary row
        store.summarize(task_id="t1")

    def in_another_process(action: str) -> None:
        code = (
            "import sys; sys.path.insert(0, sys.argv[2]); from conftest import FakeEmbedder; "
            "from hindsight_cli.store import Store; "
            f"Store(sys.argv[1], embedder=FakeEmbedder()).{action}"
        )
        subprocess.run(
            [sys.executable, "-c", code, str(store.path), str(Path(__file__).parent)], check=True
        )

    return [
        ("record", lambda: store.record("database replication lag grew again", agent_id="b")),
        (
            "merge",
            lambda: store.record(
                "database replication lag note (a1)",
                agent_id="a",
                task_id="t1",
                step=1,
                tags=["infra"],
                event_at="2026-01-10T00:00:00Z",
            ),
        ),
        (
            "supersede",
            lambda: store.record(
                "weather api now returns 403", supersedes=made["a2"], agent_id="a"
            ),
        ),
        ("forget", lambda: store.forget([made["b1"]])),
        ("archive", lambda: store.forget([made["s1"]], archive=True)),
        ("restore", lambda: store.restore(made["b1"])),
        ("hard forget", lambda: store.forget([made["p1"]], hard=True)),
        (
            "import",
            lambda: store.import_records(
                [{"content": f"imported replication note {i}", "agent_id": "c"} for i in range(5)]
            ),
        ),
        ("summary rewrite", summary),
        ("expiry purge", store.expire),
        ("reindex", lambda: store.reindex()),
        (
            "long record",
            lambda: store.record(f"{FILLER} the deploy failed twice, rolled back", agent_id="b"),
        ),
        (
            "another process",
            lambda: in_another_process("record('database replication lag from a process')"),
        ),
        (
            "hard forget by another process",
            lambda: in_another_process(f"forget([{made['l2']!r}], hard=True)"),
        ),
    ]


@pytest.mark.slow
def test_the_hot_index_follows_every_kind_of_write(pair, tmp_path: Path) -> None:
    store, warm, made = pair
    _searches_agree(store, warm)
    # another process's view
    other = Store(store.path, embedder=store.embedder, clock=store.clock)
    for name, write in _writes(other, made, tmp_path):
        write()
        index = warm._rt.hot.synced_index()  # type: ignore[union-attr]
        with store.ledger.read() as session:
            assert index is not None and set(index.slot_of) == {
                i for i, _, _ in session.identities()
            }, name
        assert index.chunk_rows == _ledger_chunks(store), name
        everything = Filters(statuses=None, include_expired=True, types=None)
        for (keyword, nearest), (hot_keyword, hot_nearest) in _ledger_and_hot(
            store, warm, [Filters(types=SEARCH_TYPES), everything]
        ):
            _same(keyword, hot_keyword, 1e-9)
            _same(nearest, hot_nearest, 1e-6)
        _searches_agree(store, warm)


def test_a_rewritten_ledger_whose_sequence_restarted_is_reconciled(
    store_dir: Path, fake: Any
) -> None:
    store = Store(store_dir, embedder=fake)
    keep = store.record("kafka consumer lag on the billing topic").memory.id
    gone = store.record("kafka consumer lag after the deploy").memory.id
    warm = Store(store_dir, embedder=fake, warm=True)
    assert {h.memory.id for h in warm.search("kafka consumer lag").hits} == {keep, gone}
    # the newest row goes; the rewritten ledger's sequence restarts below it
    store.forget([gone], hard=True)
    new = store.record("kafka consumer lag on the search topic").memory.id
    assert {h.memory.id for h in warm.search("kafka consumer lag").hits} == {keep, new}


def test_a_supersede_of_two_stored_memories_reaches_the_warm_index(
    store_dir: Path, fake: Any
) -> None:
    store = Store(store_dir, embedder=fake)
    old = store.record("kafka consumer lag on the billing topic").memory.id
    new = store.record("kafka consumer lag alerts page the billing team now").memory.id
    warm = Store(store_dir, embedder=fake, warm=True)
    assert {h.memory.id for h in warm.search("kafka consumer lag").hits} == {old, new}
    assert store.supersede(old, new, reason="the alerts replace the note").status == "superseded"
    assert {h.memory.id for h in warm.search("kafka consumer lag").hits} == {new}
    assert warm.get(new).supersedes == old and warm.get(old).superseded_by == new


def test_compaction_and_long_memories_keep_the_answers(pair) -> None:
    store, warm, made = pair
    warm.warm_up()
    for _ in range(3):
        store.forget([made["a1"]])
        store.restore(made["a1"])
    index = warm._rt.hot.synced_index()  # type: ignore[union-attr]
    assert index is not None and index.dead > 0
    before = [h.memory.id for h in warm.search("database replication lag", k=10).hits]
    index.compact()
    assert index.dead == 0 and len(index.ids) == index.live
    assert [h.memory.id for h in warm.search("database replication lag", k=10).hits] == before
    _searches_agree(store, warm)
    # A long memory is one candidate, at its best window's cosine, its chunks kept through
    # compactions.
    for _ in range(3):
        store.forget([made["l1"]])
        store.restore(made["l1"])
    index = warm._rt.hot.synced_index()  # type: ignore[union-attr]
    assert index is not None
    index.compact()
    query = store.embedder.embed(
        ["parking permits and room bookings: deploy failed, rolled back (l1)"]
    )[0]
    found = dict(HotSource(index).nearest(query.tolist(), [], 100))
    with store.ledger.read() as session:
        windows = [r.embedding for r in session.select([("id", "=", made["l1"])], vectors=True)]
        windows += session.select([("id", "=", made["l1"])], vectors=True)[0].chunks or []
    best = max(float(np.dot(w, query) / np.linalg.norm(w) / np.linalg.norm(query)) for w in windows)
    assert len(windows) == 3 and found[made["l1"]] == pytest.approx(best, abs=1e-6)
    assert index.chunk_rows == _ledger_chunks(store) > 0
    _searches_agree(store, warm)


def test_the_ranking_reads_the_rows_own_fields_from_the_index(pair) -> None:
    """What the ranking reads of every candidate, taken from the index's columns by slot, is what
    the rows hold (each type, outcome, resolution, importance, confidence, validity, task and
    time), after a write and a compaction too."""
    store, warm, made = pair
    store.record(
        "the nightly export now runs at 02:00 UTC",
        type="procedural",
        outcome="success",
        importance=0.95,
        confidence=0.3,
        valid_until=store.clock() + timedelta(days=3),
        task_id="export",
        merge=False,
    )
    warm.warm_up()
    for _ in range(2):
        index = warm._rt.hot.synced_index()  # type: ignore[union-attr]
        assert index is not None
        ids = list(index.slot_of)
        rows = [index.stored[index.slot_of[m]] for m in ids]
        assert _decoded(columns.of_index(index, ids)) == _decoded(columns.of_rows(rows))
        store.forget([made["a1"]])
        store.restore(made["a1"])
        warm.search("database replication lag")
        index.compact()


def _decoded(found: columns.Columns) -> dict[str, list[Any]]:
    out = {}
    for name, value in vars(found).items():
        if isinstance(value, columns.Coded):
            out[name] = [value.names[c] if c >= 0 else None for c in value.codes.tolist()]
        else:
            out[name] = value.tolist()
    return out


def test_past_its_limit_search_uses_the_lancedb_index(store_dir: Path, fake: Any) -> None:
    store = Store(store_dir, embedder=fake)
    store.import_records(
        [{"content": f"grafana alert {i} for the checkout latency"} for i in range(400)]
    )
    target = store.record("grafana alert routed to the payments on-call").memory.id
    small = replace(load_config(store_dir), hot_index_mb=1)
    warm = Store(store_dir, embedder=fake, config=small, warm=True)
    warm._rt.hot.limit = 300_000  # type: ignore[union-attr]  # bytes: fewer than these memories need
    hits = warm.search("grafana alert payments on-call").hits
    assert hits[0].memory.id == target
    assert warm._rt.hot.full and warm._rt.hot.index is None  # type: ignore[union-attr]
    # answered by the LanceDB index
    assert warm._rt.mirror is not None and warm._rt.mirror.current()
    # well under the limit again
    store.forget(store.select_ids(Filters(statuses=None))[:-10], hard=True)
    assert warm.search("grafana alert payments on-call").hits[0].memory.id == target
    assert warm._rt.hot.index is not None and not warm._rt.hot.full  # type: ignore[union-attr]


def test_the_limit_is_a_setting(store_dir: Path, fake: Any) -> None:
    store_dir.mkdir(parents=True, exist_ok=True)
    (store_dir / "config.toml").write_text("[search]\nhot_index_mb = 0\n")
    assert Store(store_dir, embedder=fake, warm=True)._rt.hot is None
    (store_dir / "config.toml").write_text("[search]\nhot_index_mb = -1\n")
    with pytest.raises(InvalidInput, match="hot_index_mb"):
        load_config(store_dir)
    assert Config().hot_index_mb > 0


def test_the_limit_counts_a_long_memorys_chunks(tmp_path: Path, fake: Any) -> None:
    from hindsight_cli.storage.hot import HotIndex
    from hindsight_cli.storage.hot_sync import ESTIMATE

    rows = 40
    # the rows, not their chunks
    limit = HotIndex(fake.dim).nbytes + rows * (4 * fake.dim + ESTIMATE) + 4_000
    answers = {}
    for kind, text in (
        ("short", "grafana alert {i} for the checkout latency"),
        ("long", FILLER + " " + FILLER + " grafana alert {i} for the checkout latency"),
    ):
        store = Store(tmp_path / kind, embedder=fake)
        store.import_records([{"content": text.format(i=i)} for i in range(rows)])
        warm = Store(tmp_path / kind, embedder=fake, warm=True)
        warm._rt.hot.limit = limit  # type: ignore[union-attr]
        assert warm.search("grafana alert 7 checkout").hits
        answers[kind] = warm._rt.hot.full  # type: ignore[union-attr]
    assert answers == {"short": False, "long": True}


def test_a_search_during_the_first_load_is_answered_by_the_ledger(pair) -> None:
    store, warm, _ = pair
    hot = warm._rt.hot
    assert hot is not None and hot.index is None
    loading, done = threading.Event(), threading.Event()

    # holds the index's lock as its first load does (the MCP server's warm-up)
    def first_load() -> None:
        with hot.lock:
            loading.set()
            done.wait()

    loader = threading.Thread(target=first_load)
    loader.start()
    loading.wait()
    answers: list[Any] = []
    searcher = threading.Thread(target=lambda: answers.append(warm.search(QUERIES[0], k=10)))
    searcher.start()
    # a deadlock guard, not a timing: the search must not wait for the load
    searcher.join(60)
    finished = not searcher.is_alive()
    done.set()
    loader.join()
    searcher.join()
    # answered without the in-memory index
    assert finished and hot.index is None
    expected = store.search(QUERIES[0], engine="ledger", k=10)
    assert [h.memory.id for h in answers[0].hits] == [h.memory.id for h in expected.hits]
    # once free, the index loads
    assert warm.search(QUERIES[0], k=10).hits and hot.index is not None


@pytest.mark.no_store
@pytest.mark.parametrize("warm", [True, False])
def test_a_long_lived_process_warms_the_model_it_was_handed_once(
    tmp_path: Path, warm: bool
) -> None:
    """``Store(embedder=..., warm=True)`` (the bench, the evaluation, a library user) gets the
    optimised model a loaded one gets: its ``warm`` runs once, before the first embedding; a
    CLI-like store never pays it."""
    from conftest import FakeEmbedder

    class Warmable(FakeEmbedder):
        def __init__(self) -> None:
            self.events: list[str] = []

        def warm(self) -> None:
            self.events.append("warm")

        def embed(self, texts):  # noqa: ANN001, ANN201
            self.events.append("embed")
            return super().embed(texts)

    model = Warmable()
    store = Store(tmp_path / "store", embedder=model, warm=warm)
    store.record("the nightly build runs at 02:00")
    store.search("nightly build")
    assert model.events == (["warm", "embed", "embed"] if warm else ["embed", "embed"])


@pytest.mark.no_store
def test_the_query_model_does_not_spin_after_a_run() -> None:
    """The bundled model's query session lets its threads sleep after a run, so the search that
    follows has the cores (benchmarks.md, run G: the part after the embedding at 10k 7.2 -> 2.9 ms
    p50)."""
    from hindsight_cli.embedding import OnnxEmbedder, bundled_model_dir

    for optimize in (False, True):
        session = OnnxEmbedder(bundled_model_dir(), optimize=optimize)._session
        assert (
            session.get_session_options().get_session_config_entry(
                "session.intra_op.allow_spinning"
            )
            == "0"
        )


@pytest.mark.no_store
def test_threads_that_ask_for_the_model_at_once_share_one_warmed_model(
    tmp_path: Path, monkeypatch
) -> None:
    """An MCP server's warm-up and its first search ask for the model together. Each used to load
    its own and the last one assigned stayed, unwarmed in half the starts (every query then 15 ms
    slower)."""
    from conftest import FakeEmbedder

    from hindsight_cli.core import runtime

    loading, release = threading.Event(), threading.Event()
    loaded: list[Any] = []

    class Slow(FakeEmbedder):
        def __init__(self) -> None:
            self.warmed = 0

        def warm(self) -> None:
            self.warmed += 1

    def load(name: str) -> Slow:
        model = Slow()
        loaded.append(model)
        # the first loader holds on until the second thread has asked
        if len(loaded) == 1:
            loading.set()
            release.wait(timeout=60)
        return model

    monkeypatch.setattr(runtime, "load_embedder", load)
    store = Store(tmp_path / "store", warm=True)
    got: list[Any] = []
    first = threading.Thread(target=lambda: got.append(store.embedder))
    first.start()
    assert loading.wait(timeout=60)
    second = threading.Thread(target=lambda: got.append(store.embedder))
    second.start()
    # it waits for the first load (it must not start one of its own)
    second.join(timeout=0.5)
    release.set()
    first.join(timeout=60)
    second.join(timeout=60)
    assert len(loaded) == 1 and got == [loaded[0], loaded[0]] and loaded[0].warmed == 1


@pytest.mark.no_store
def test_a_query_during_the_warm_up_waits_for_the_optimised_graph(monkeypatch) -> None:
    from hindsight_cli import embedding

    building, release = threading.Event(), threading.Event()
    made: list[bool] = []

    class Session:
        def __init__(self, model_dir: Path, optimize: bool = False) -> None:
            made.append(optimize)
            if optimize:
                building.set()
                release.wait(timeout=60)
            self.optimized = optimize

        def embed(self, texts: list[str]) -> np.ndarray:
            return np.zeros((len(texts), 384), dtype=np.float32)

    monkeypatch.setattr(embedding, "OnnxEmbedder", Session)
    monkeypatch.setattr(embedding, "bundled_model_dir", lambda: Path("unused"))
    model = embedding.BundledEmbedder()
    warm = threading.Thread(target=model.warm)
    warm.start()
    assert building.wait(timeout=60)
    query = threading.Thread(target=model.embed, args=(["why did the deploy fail"],))
    query.start()
    # it waits for the optimised graph (it must not build the plain one)
    query.join(timeout=0.5)
    release.set()
    warm.join(timeout=60)
    query.join(timeout=60)
    assert made == [True] and model._optimized is not None and model._optimized.optimized


def test_a_warm_search_drops_a_memory_the_moment_it_expires(
    store_dir: Path, fake: Any, clock: Clock
) -> None:
    # the same filters search after search, while time moves past a memory's expiry
    warm = Store(store_dir, embedder=fake, warm=True, clock=clock)
    kept = warm.record("the staging database password rotates on mondays").memory.id
    brief = warm.record("the staging database is read-only this afternoon", ttl="2h").memory.id
    found = [h.memory.id for h in warm.search("staging database").hits]
    assert kept in found and brief in found
    clock.now += timedelta(hours=1)
    assert brief in [h.memory.id for h in warm.search("staging database").hits]
    clock.now += timedelta(hours=1, seconds=1)
    found = [h.memory.id for h in warm.search("staging database").hits]
    assert kept in found and brief not in found
    # and a search as of a time before its expiry still finds it, then the present does not
    earlier = warm.search("staging database", now=clock.now - timedelta(hours=1))
    assert brief in [h.memory.id for h in earlier.hits]
    assert brief not in [h.memory.id for h in warm.search("staging database").hits]


def test_equal_keyword_scores_at_the_cut_are_kept_as_the_ledger_keeps_them(
    store_dir: Path, fake: Any, clock: Clock
) -> None:
    """Past the limit, among equal BM25 scores the ledger's ``ORDER BY score DESC, id`` decides
    which stay: so does the index, whether a query's postings are few (sorted) or many (summed per
    memory)."""
    store = Store(store_dir, embedder=fake, clock=clock)
    records = [{"content": "kafka consumer lag", "task_id": f"tie-{i}"} for i in range(12)]
    records += [
        {"content": f"filler note {i} about the deploy", "task_id": f"fill-{i}"} for i in range(120)
    ]
    store.import_records(records)
    index = Store(store_dir, embedder=fake, warm=True, clock=clock)._rt.hot.synced_index()  # type: ignore[union-attr]
    assert index is not None
    where = Filters().conditions(clock())
    asked = [("kafka", 5), ("filler note deploy", 7), ("kafka deploy", 20), ("kafka lag", 100)]
    with store.ledger.read() as session:
        expected = [
            LedgerSource(session).keyword(terms(q), where, limit, store.config.ranking)
            for q, limit in asked
        ]
    got = [
        HotSource(index).keyword(terms(q), where, limit, store.config.ranking) for q, limit in asked
    ]
    for (query, limit), want, have in zip(asked, expected, got, strict=True):
        assert len(have) == min(limit, len(want)) and have, query
        _same(want, have, 1e-9)


def test_a_memory_without_direction_scores_zero_in_the_vector_search(
    store_dir: Path, fake: Any, clock: Clock
) -> None:
    """A zero vector (no direction: no cosine) scores 0 for every query, after every memory with
    one, which keep the ledger's order."""

    class Blank(FakeEmbedder):
        def embed(self, texts: Any) -> np.ndarray:
            vectors = super().embed(texts)
            vectors[[i for i, text in enumerate(texts) if "blank" in text]] = 0.0
            return vectors

    model = Blank()
    store = Store(store_dir, embedder=model, clock=clock)
    store.import_records(
        [{"content": "blank page", "task_id": "b"}]
        + [{"content": f"redis timeout number {i}", "task_id": f"r{i}"} for i in range(8)]
    )
    index = Store(store_dir, embedder=model, warm=True, clock=clock)._rt.hot.synced_index()  # type: ignore[union-attr]
    assert index is not None
    blank = next(row.id for row in index.stored if row.content == "blank page")
    where = Filters().conditions(clock())
    vector = model.embed(["redis timeout"])[0].tolist()
    with store.ledger.read() as session:
        expected = LedgerSource(session).nearest(vector, where, 100)
    got = HotSource(index).nearest(vector, where, 100)
    assert got[-1] == (blank, 0.0)
    _same([found for found in expected if found[0] != blank], got[:-1], 1e-5)


def test_top_orders_as_the_ledger_does_with_equal_scores_by_id() -> None:
    # ``ORDER BY score DESC, id LIMIT k``: the in-memory index's top-k must give the same list,
    # whatever the ties (duplicated memories have equal cosines, BM25 ties often at the cut)
    import random

    import numpy as np

    from hindsight_cli.storage.hot_columns import top

    rng = random.Random(7)
    for _ in range(2000):
        ids = [f"m{rng.randint(0, 999):03d}" for _ in range(120)]
        ids = [*dict.fromkeys(ids), *(f"x{i}" for i in range(120))]
        n = rng.randint(0, 60)
        slots = np.array(rng.sample(range(len(ids)), n), dtype=np.int64)
        scores = np.array([rng.choice([0.5, 0.25, 1.0, rng.random()]) for _ in range(n)])
        limit = rng.randint(1, 70)
        pairs = sorted((-float(score), ids[slot]) for score, slot in zip(scores, slots.tolist()))
        assert top(ids, slots, scores, limit) == [(mid, -value) for value, mid in pairs[:limit]]
