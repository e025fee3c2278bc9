"""Import embeds the next batch while it writes this one (issue 18): the overlap happens, and a
Ctrl-C, an embedding error and the progress bar behave as they did one batch at a time. Events, not
timers."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from fake_embedder import FakeEmbedder

from hindsight_cli.core import transfer
from hindsight_cli.errors import EmbeddingUnavailable, Interrupted
from hindsight_cli.models import part_position
from hindsight_cli.store import Store

# small batches: the behaviour is the same, the test is quicker
BATCH = 40


@pytest.fixture(autouse=True)
def _small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transfer, "IMPORT_BATCH", BATCH)


def _records(n: int) -> list[dict[str, str]]:
    return [
        {"content": f"pipelined note {i}: the worker handled job {i} on queue {i % 5}"}
        for i in range(n)
    ]


class Counting(FakeEmbedder):
    """Counts the texts it embedded; ``hook(done)`` runs before each call (``done``: texts so
    far)."""

    def __init__(self, hook=None) -> None:  # noqa: ANN001
        self.done, self.hook = 0, hook

    def embed(self, texts):  # noqa: ANN001, ANN201
        if self.hook is not None:
            self.hook(self.done)
        self.done += len(texts)
        return super().embed(texts)


def _new_threads(before: set[threading.Thread]) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t not in before]


def test_the_next_batch_is_embedded_while_this_one_is_written(tmp_path: Path, monkeypatch) -> None:
    second_started = threading.Event()
    embedder = Counting(lambda done: second_started.set() if done >= BATCH else None)
    real, waited = transfer._write, []

    def write(rt, chunk, stale=None):  # noqa: ANN001, ANN202
        # the first batch's write does not begin until the second batch's embedding has
        if not waited:
            waited.append(second_started.wait(timeout=120))
        return real(rt, chunk, stale)

    monkeypatch.setattr(transfer, "_write", write)
    result = Store(tmp_path / "store", embedder=embedder).import_records(_records(BATCH * 2 + 5))
    assert waited == [True]
    assert result.added == BATCH * 2 + 5


def test_ctrl_c_after_a_commit_keeps_it_and_drops_the_batch_being_embedded(
    tmp_path: Path, monkeypatch
) -> None:
    release, second_started = threading.Event(), threading.Event()

    def gate(done: int) -> None:
        if done >= BATCH:
            second_started.set()
            release.wait(timeout=120)

    embedder = Counting(gate)
    real = transfer._write

    def write_then_ctrl_c(rt, chunk, stale=None):  # noqa: ANN001, ANN202
        # committed, and the Ctrl-C comes before the import has counted it
        real(rt, chunk, stale)
        assert second_started.wait(timeout=120)
        raise KeyboardInterrupt

    monkeypatch.setattr(transfer, "_write", write_then_ctrl_c)
    store = Store(tmp_path / "store", embedder=embedder)
    before = set(threading.enumerate())
    with pytest.raises(
        Interrupted, match=f"Interrupted: {BATCH} of {BATCH * 3} imported; rerun to finish"
    ):
        store.import_records(_records(BATCH * 3))
    embedded = embedder.done
    release.set()
    # the embedding under way ends by itself, writing nothing
    for thread in _new_threads(before):
        thread.join(timeout=120)
        assert not thread.is_alive() and thread.daemon
    # the call under way finished; no further one was made
    assert embedder.done == embedded + BATCH
    assert store.stats()["memories"] == BATCH
    monkeypatch.setattr(transfer, "_write", real)
    rerun = store.import_records(_records(BATCH * 3))
    assert (rerun.added, rerun.skipped) == (BATCH * 2, BATCH)


def test_an_embedding_error_in_the_next_batch_is_raised_as_it_was(tmp_path: Path) -> None:
    def fail_second(done: int) -> None:
        if done >= BATCH:
            raise EmbeddingUnavailable("The model is gone.")

    store = Store(tmp_path / "store", embedder=Counting(fail_second))
    with pytest.raises(EmbeddingUnavailable, match=r"^The model is gone\.$"):
        store.import_records(_records(BATCH * 2))
    # the batch before it was written
    assert store.stats()["memories"] == BATCH


def test_progress_counts_up_across_batches_and_the_phase_is_said_once(tmp_path: Path) -> None:
    counts: list[tuple[int, int]] = []
    phases: list[str] = []
    total = BATCH * 3 + 7
    store = Store(tmp_path / "store", embedder=FakeEmbedder())
    store.import_records(
        _records(total), progress=lambda done, of: counts.append((done, of)), phase=phases.append
    )
    assert phases.count("Embedding and writing") == 1
    assert [c[0] for c in counts] == sorted(c[0] for c in counts) and counts[-1] == (total, total)
    assert {c[1] for c in counts} == {total}


def test_a_text_in_linked_parts_is_never_cut_apart_by_a_batch(tmp_path: Path) -> None:
    store = Store(tmp_path / "store", embedder=FakeEmbedder())
    # > 3 × 16 KB
    long = {
        "content": " ".join(f"paragraph {i}: " + "the deploy log said " * 120 for i in range(24))
    }
    prepared = transfer._prepared(store._rt, [*_records(BATCH - 2), long], store.scope)
    parts = [i for i, p in enumerate(prepared) if part_position(p.row.metadata)]
    # across the first batch's end
    assert len(parts) >= 3 and parts[0] == BATCH - 2
    assert list(transfer._batches(prepared)) == [(0, len(prepared))]


@pytest.mark.no_store
def test_the_index_json_is_the_public_memory_and_vectors_stay_the_same_floats() -> None:
    import json
    from datetime import datetime

    import numpy as np

    from hindsight_cli.core.embedding_jobs import _floats
    from hindsight_cli.storage import codec
    from hindsight_cli.storage.rows import MemoryRow

    row = MemoryRow(
        "0190-x",
        "naïve 用户 \u2028 note",
        tags=["a", "b"],
        metadata={"k": [1, {"n": None}], "é": 1.5},
        env={"os": "linux"},
        created_at=datetime(2026, 1, 2, 3, 4, 5, 6),
        resolution="fixed it",
    )
    assert codec.to_json(row) == json.dumps(codec.to_memory(row).to_dict(), ensure_ascii=False)
    for vector in (
        np.random.default_rng(1).standard_normal(384).astype(np.float32),
        np.arange(3.0),
        [1, 2.5],
    ):
        floats = _floats(vector)
        assert floats == [float(x) for x in vector] and all(type(x) is float for x in floats)


# 1,200 memories embedded, written and indexed (seconds): the full suite's
@pytest.mark.slow
@pytest.mark.parametrize(("ann_threshold", "updated"), [(50_000, False), (500, True)])
def test_a_big_import_updates_the_search_index_only_when_searches_read_it(
    tmp_path: Path, ann_threshold: int, updated: bool
) -> None:
    """1,200 memories: below ``ann_threshold`` a CLI search asks the ledger, so the import leaves
    the LanceDB index to the first search that reads it; past it, the import brings the index up to
    date itself."""
    from hindsight_cli.config import Config

    store = Store(
        tmp_path / "store", embedder=FakeEmbedder(), config=Config(ann_threshold=ann_threshold)
    )
    assert store.import_records(_records(1200)).added == 1200
    index = tmp_path / "store" / "index.lance"
    assert (index / "hindsight-sync.json").exists() == updated
    if updated:
        assert store.index().watermark() == store.index().count() == 1200
    # either way, both engines find every memory
    for engine in ("ledger", "index"):
        found = store.search("pipelined note 1103 job 1103", engine=engine, k=1)
        assert found.hits[0].memory.content.startswith("pipelined note 1103:")
    assert store.index().count() == 1200


def test_rerunning_an_import_that_adds_nothing_writes_nothing(tmp_path: Path) -> None:
    """A rerun of an import (after a kill, or by habit) whose records are all in the store opened a
    write transaction per record and marked the ledger changed each time (every long-running
    reader of the store reloaded); it now reads which records add anything first. A record that
    does add something (a fix the stored memory lacks) still makes its new version."""
    store = Store(tmp_path / "s", embedder=FakeEmbedder())
    records = [
        {"content": f"the build of module m{i} failed", "type": "episodic"} for i in range(30)
    ]
    assert store.import_records(records).added == 30
    marker = Path(store._rt.ledger.marker)
    before = marker.read_bytes()
    again = store.import_records(records)
    assert (again.added, again.skipped) == (0, 30)
    assert marker.read_bytes() == before
    fixed = [dict(records[3], resolution="pinned the compiler to 13.2")]
    assert store.import_records(fixed).updated == 1
    assert marker.read_bytes() != before
    found = [m for m in store.list(limit=None) if "module m3 " in m.content]
    assert {(m.status, m.resolution) for m in found} == {
        ("active", "pinned the compiler to 13.2"),
        ("superseded", None),
    }
