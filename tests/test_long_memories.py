"""Long memories (issue 17, point 3): a memory longer than the model reads is embedded in
overlapping chunks and found by its best one, on every engine and after every way a memory is
copied."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from fake_embedder import FakeEmbedder

from hindsight_cli import Store
from hindsight_cli.core import chunks
from hindsight_cli.text import terms

# characters the truncating fake reads, like a model reading its first 256 word pieces
_READS = 400

FILLER = " ".join(
    f"Meeting {i} covered calendars, lunch menus, parking permits and room bookings."
    for i in range(40)
)
ANSWER = "The flaky deploy came from an expired certificate on the staging balancer."
QUERY = "expired certificate staging balancer"


class Truncating(FakeEmbedder):
    """The fake embedder, reading only the start of a text the way a real model does."""

    name = "test/truncating"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return super().embed([text[:_READS] for text in texts])


def _fill(store: Store) -> str:
    for i in range(12):
        store.record(f"Note {i}: the staging rota for week {i} is on the wiki.")
    return store.record(FILLER + " " + ANSWER, type="episodic").memory.id


def _top(store: Store, mode: str = "vector", engine: str | None = None) -> str:
    hits = store.search(QUERY, k=3, mode=mode, engine=engine).hits
    return hits[0].memory.id if hits else ""


@pytest.fixture
def short_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    # the truncating fake reads 400 characters: windows of that size, so a chunk is read whole
    monkeypatch.setattr(chunks, "_CHARS", _READS)
    monkeypatch.setattr(chunks, "_CHAR_STRIDE", 300)


@pytest.mark.usefixtures("short_windows")
def test_an_answer_at_the_end_of_a_long_memory_is_found_by_its_chunk(
    store_dir: Path, backend: str
) -> None:
    store = Store(store_dir, embedder=Truncating())
    long_id = _fill(store)
    engines = ["ledger", "index"] if backend == "local" else [None]
    assert [_top(store, engine=e) for e in engines] == [long_id] * len(engines)
    assert _top(store, mode="hybrid") == long_id


@pytest.mark.usefixtures("short_windows")
def test_without_chunks_the_same_answer_is_missed(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control: the memory above, searched by its first window only, is not the top hit."""
    monkeypatch.setattr(chunks, "split", lambda text, model: [text])
    store = Store(store_dir, embedder=Truncating())
    long_id = _fill(store)
    assert _top(store) not in ("", long_id)


@pytest.mark.usefixtures("short_windows")
def test_chunks_survive_export_import_and_reindex(store_dir: Path, tmp_path: Path) -> None:
    store = Store(store_dir, embedder=Truncating())
    long_id = _fill(store)
    copy = Store(tmp_path / "copy", embedder=Truncating())
    copy.import_records(list(store.export()))
    assert _top(copy) == long_id
    store.reindex()
    assert _top(store, engine="ledger") == long_id
    if store.ledger.capabilities.mirrored:
        assert _top(store, engine="index") == long_id


@pytest.mark.local_only
@pytest.mark.usefixtures("short_windows")
def test_a_hard_forget_takes_the_chunks_from_ledger_and_index(store_dir: Path) -> None:
    store = Store(store_dir, embedder=Truncating())
    long_id = _fill(store)
    # the index holds its chunks
    store.search(QUERY, engine="index")
    assert long_id in {r["id"] for r in store.index().chunk_table().to_arrow().to_pylist()}
    store.forget([long_id], hard=True)
    assert long_id not in store.index().ids()
    with store.ledger.read() as session:
        assert session.conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 0
    assert _top(store, engine="index") != long_id and _top(store, engine="ledger") != long_id


@pytest.mark.local_only
@pytest.mark.usefixtures("short_windows")
def test_a_store_from_before_chunks_upgrades_and_reindex_chunks_its_long_memories(
    store_dir: Path,
) -> None:
    import duckdb

    from hindsight_cli.storage.sql.duckdb_schema import SCHEMA_VERSION

    store = Store(store_dir, embedder=Truncating())
    long_id = _fill(store)
    path = store.ledger.path
    del store
    # what schema 3 left: no chunks table
    conn = duckdb.connect(str(path))
    conn.execute("DROP TABLE chunks")
    conn.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    conn.close()
    old = Store(store_dir, embedder=Truncating())
    assert old.stats()["schema_version"] == SCHEMA_VERSION
    # one vector, as before
    assert old.get(long_id) is not None and _top(old, engine="ledger") != long_id
    old.reindex()
    assert _top(old, engine="ledger") == long_id and _top(old, engine="index") == long_id


@pytest.mark.usefixtures("short_windows")
def test_a_scoped_search_never_finds_another_agents_chunk(store_dir: Path) -> None:
    store = Store(store_dir, embedder=Truncating())
    long_id = _fill(store)
    other = store.scoped("someone-else")
    assert long_id not in [h.memory.id for h in other.search(QUERY, k=10, mode="vector").hits]


@pytest.mark.no_store
@pytest.mark.parametrize(
    "text",
    [
        " ".join(
            f"Sentence {i} says something about deployments, and certificates." for i in range(200)
        ),
        "".join(f"第{i}次部署失败，因为证书过期了。" for i in range(300)),
    ],
)
def test_the_bundled_models_windows_cover_the_text_and_fit_the_model(text: str) -> None:
    from hindsight_cli.config import DEFAULT_MODEL

    windows = chunks.split(text, DEFAULT_MODEL)
    tokenizer = chunks._tokenizer()
    assert len(windows) > 2
    assert all(
        len(tokenizer.encode(w, add_special_tokens=False).ids) <= chunks.WINDOW for w in windows
    )
    assert text.startswith(windows[0]) and text.endswith(windows[-1])
    starts = [text.index(w) for w in windows]
    assert starts == sorted(starts)
    for before, start in zip(windows, starts[1:]):
        # consecutive windows overlap: nothing falls between
        assert text.index(before) + len(before) > start
    assert set(terms(text)) == set().union(*(terms(w) for w in windows))


@pytest.mark.no_store
def test_other_models_get_windows_of_whole_words() -> None:
    text = " ".join(f"word{i}" for i in range(1000))
    windows = chunks.split(text, "some/other-model")
    assert len(windows) > 3 and all(len(w) <= chunks._CHARS for w in windows)
    # no word cut in two
    assert all(set(w.split()) <= set(text.split()) for w in windows)
    assert set(text.split()) == set().union(*(w.split() for w in windows))
    assert chunks.split("short text", "some/other-model") == ["short text"]
