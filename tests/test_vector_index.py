"""The automatic vector (ANN) index: built past `[index] vector_index_rows`, exact where it
matters."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from hindsight_cli.errors import InvalidInput
from hindsight_cli.models import Filters
from hindsight_cli.storage.index import where_clause
from hindsight_cli.store import Store
from hindsight_cli.timeutil import now as utcnow

WORDS = (
    "deploy cache token retry kafka redis docker nginx schema lockfile timeout backoff proxy "
    "queue shard "
    "replica index vacuum cron webhook bucket secret cluster pod ingress certificate dns latency "
    "quota "
    "billing invoice tenant gateway session cookie upload thumbnail parser lexer compiler linker"
).split()


def _records(count: int, seed: int, prefix: str = "note") -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [
        {
            "content": f"{prefix} {i}: " + " ".join(rng.sample(WORDS, 5)),
            "agent_id": f"agent-{i % 4}",
            "task_id": f"task-{i // 25}",
            "step": i % 25,
        }
        for i in range(count)
    ]


def _store(path: Path, fake: Any, rows: int, warm: bool = False) -> Store:
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.toml").write_text(f"[index]\nvector_index_rows = {rows}\n")
    store = Store(path, embedder=fake, warm=warm)
    store.init()
    return store


def _sync(store: Store) -> None:
    """Catch the index up; a warm store builds the vector index in a thread of its own: wait for
    it."""
    store.sync_index()
    store.index().wait()


def _writer_and_server(
    path: Path, fake: Any, threshold: int, records: list[dict[str, Any]]
) -> tuple[Store, Store]:
    """A store holding ``records``: a writing process's view of it, and a warm one (an MCP
    server's)."""
    writer = _store(path, fake, threshold)
    writer.import_records(records)
    warm = Store(writer.path, embedder=fake, warm=True)
    _sync(warm)
    return writer, warm


def _exact(store: Store) -> Any:
    """The store's index, searched flat: the exact answer."""
    flat = Store(store.path, embedder=store.embedder).index()
    flat.vector_index_rows = 0
    return flat


# The next four train an IVF index over hundreds of vectors (seconds each): the full suite's; the
# inner loop keeps the threshold's rules and a built index in stats (the last two tests).
@pytest.mark.slow
def test_the_vector_index_is_built_past_the_threshold_and_search_stays_exact(
    tmp_path: Path, fake: Any
) -> None:
    records = _records(260, seed=1)
    writer, warm = _writer_and_server(tmp_path / "s", fake, 300, records)
    # 260 rows: flat search serves them
    assert warm.stats()["index"]["vector_index"] is None

    writer.import_records(_records(240, seed=2, prefix="later"))
    _sync(warm)
    vector_index = warm.stats()["index"]["vector_index"]
    assert vector_index == {"type": "IVF_SQ", "rows": 500, "unindexed_rows": 0, "trained_rows": 500}

    # Planted queries: each memory's own text, whose exact nearest neighbour is itself (cosine 1).
    # The approximate search returns it first, most of the exact top 10 besides, and exact cosines.
    index, flat = warm.index(), _exact(warm)
    found = 0
    for record in records[:40]:
        vector = fake.embed([record["content"]])[0].tolist()
        approximate = index.nearest(vector, None, 10)
        exact = dict(flat.nearest(vector, None, 500))
        best = max(exact, key=exact.__getitem__)
        assert approximate[0][0] == best and approximate[0][1] == pytest.approx(1.0, abs=1e-5)
        assert [score for _, score in approximate] == pytest.approx(
            [exact[m] for m, _ in approximate], abs=1e-5
        )
        found += len({m for m, _ in approximate} & set(sorted(exact, key=exact.__getitem__)[-10:]))
        assert (
            warm.search(record["content"], mode="vector", k=3).hits[0].memory.content
            == record["content"]
        )
    # recall@10 against flat search
    assert found / 400 >= 0.9


@pytest.mark.slow
def test_filters_hold_and_rows_added_after_the_build_are_found(tmp_path: Path, fake: Any) -> None:
    records = _records(400, seed=3)
    writer, warm = _writer_and_server(tmp_path / "s", fake, 200, records)
    # (engine="index": a warm process would answer from its in-memory index; this is about the
    # LanceDB one)
    assert warm.stats()["index"]["vector_index"]["rows"] == 400

    # agent-3
    target = records[7]
    scoped = warm.search(
        target["content"],
        filters=Filters(agent_ids=("agent-3",)),
        engine="index",
        mode="vector",
        k=10,
    ).hits
    assert scoped[0].memory.content == target["content"]
    assert {h.memory.agent_id for h in scoped} == {"agent-3"} and len(scoped) == 10
    other = warm.search(
        target["content"],
        filters=Filters(agent_ids=("agent-0",)),
        engine="index",
        mode="vector",
        k=10,
    ).hits
    assert target["content"] not in {h.memory.content for h in other} and len(other) == 10
    # A narrow filter (one task: 25 of 400 rows) still gets every matching row, nearest first.
    vector = fake.embed([target["content"]])[0].tolist()
    where = where_clause(Filters(task_id="task-0").conditions(utcnow()))
    approximate, exact = (
        warm.index().nearest(vector, where, 30),
        _exact(warm).nearest(vector, where, 30),
    )
    assert [m for m, _ in approximate] == [m for m, _ in exact] and len(exact) == 25

    # Another process records after the build: found at once, before the index is extended.
    fresh = writer.record(
        "zebra giraffe okapi migrated the billing webhook", agent_id="agent-1"
    ).memory
    assert (
        warm.search("zebra giraffe okapi", engine="index", mode="vector", k=1).hits[0].memory.id
        == fresh.id
    )
    assert warm.stats()["index"]["vector_index"]["unindexed_rows"] == 1
    gone = warm.search(records[11]["content"], engine="index", mode="vector", k=1).hits[0].memory
    # a soft forget: the row stays in the index as invalidated, and is filtered out
    writer.forget([gone.id])
    assert gone.id not in {
        h.memory.id
        for h in warm.search(records[11]["content"], engine="index", mode="vector", k=5).hits
    }

    # Past a tenth of the index, the next sync folds the new rows in.
    writer.import_records(_records(60, seed=4, prefix="more"))
    _sync(warm)
    state = warm.stats()["index"]["vector_index"]
    assert state["unindexed_rows"] == 0 and state["rows"] == 461


@pytest.mark.slow
def test_the_index_is_retrained_when_the_table_doubles(tmp_path: Path, fake: Any) -> None:
    writer, warm = _writer_and_server(tmp_path / "s", fake, 200, _records(300, seed=5))
    assert warm.stats()["index"]["vector_index"]["trained_rows"] == 300
    writer.import_records(_records(300, seed=6, prefix="again"))
    _sync(warm)
    assert warm.stats()["index"]["vector_index"] == {
        "type": "IVF_SQ",
        "rows": 600,
        "unindexed_rows": 0,
        "trained_rows": 600,
    }


@pytest.mark.slow
def test_hard_forget_retrains_the_index_without_the_forgotten_vectors(
    tmp_path: Path, fake: Any
) -> None:
    store = _store(tmp_path / "s", fake, 200, warm=True)
    records = _records(300, seed=7)
    store.import_records(records)
    _sync(store)
    victim = store.search(records[0]["content"], mode="vector", k=1).hits[0].memory
    assert victim.content == records[0]["content"]
    store.forget([victim.id], hard=True)
    assert store.stats()["index"]["vector_index"]["rows"] == 299
    assert victim.id not in store.index().ids()
    assert victim.content not in {
        h.memory.content for h in store.search(records[0]["content"], k=5).hits
    }
    # Below the threshold again, it goes: flat search serves what is left.
    store.forget(filters=Filters(agent_ids=("agent-0", "agent-1")), hard=True)
    assert store.stats()["index"]["vector_index"] is None


def test_zero_means_never_and_a_negative_threshold_is_refused(
    tmp_path: Path, fake: Any, cli: Any
) -> None:
    store = _store(tmp_path / "s", fake, 0, warm=True)
    store.import_records(_records(300, seed=8))
    _sync(store)
    assert store.stats()["index"]["vector_index"] is None
    (store.path / "config.toml").write_text("[index]\nvector_index_rows = -1\n")
    with pytest.raises(InvalidInput, match="vector_index_rows"):
        Store(store.path, embedder=fake)


def test_stats_shows_the_vector_index(cli: Any, fake: Any) -> None:
    store = _store(cli.store_path, fake, 200, warm=True)
    store.import_records(_records(250, seed=9))
    _sync(store)
    result = cli("stats", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["index"]["vector_index"]["type"] == "IVF_SQ"
