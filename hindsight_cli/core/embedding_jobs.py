"""Embedding beside other work, and in batches of similar length."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import EmbeddingMismatch
from ..storage.rows import MemoryRow, embedding_text
from . import chunks, jobs
from .jobs import Progress
from .runtime import Runtime

if TYPE_CHECKING:
    import numpy as np

# texts per call of the model
BATCH = 256
# queries whose vectors each model keeps (agents repeat their queries)
RECENT_QUERIES = 256
# keyed by who asked as well as the words (``start_query``)
_recent: weakref.WeakKeyDictionary[Any, OrderedDict[tuple[Hashable, str], np.ndarray]] = (
    weakref.WeakKeyDictionary()
)
_recent_lock = threading.Lock()


def start(rt: Runtime, texts: Sequence[str], beside: bool = True) -> Callable[[], np.ndarray]:
    """Embed ``texts`` beside the caller's ledger work when that is safe and worth it (``beside``);
    calling what it returns gives the vectors (or raises the embedding's error).

    In a cold process loading the model is the slowest step; it runs while the ledger opens (DuckDB
    and onnxruntime release the GIL). A configured hub model is only loaded after the store's model
    check has passed, so a mismatch never starts a download: then the texts are embedded when their
    vectors are asked for. Work of a millisecond (the in-memory index) is not worth a thread, whose
    start alone costs that much or more on a busy machine.
    """

    def embed() -> np.ndarray:
        return rt.embedder.embed(texts)

    return _run(rt, embed, beside)


def start_query(
    rt: Runtime, text: str, beside: bool = True, asker: Hashable = None
) -> Callable[[], np.ndarray]:
    """``start`` for a search's query: its vector (1 x dim) comes from the last
    ``RECENT_QUERIES`` queries' of this model when ``asker`` (the caller's scope) asked it before,
    else from the model. Never from another asker's: on a shared server a query answered from the
    memory takes a tenth of the time (1.5 ms against 11), so a token principal searching a guess
    could tell whether another agent, or the owner's hooks answered warm, had just searched exactly
    those words: their prompt, or the error their session hit (review AM)."""
    key = (asker, text)

    def embed() -> np.ndarray:
        model = rt.embedder
        with _recent_lock:
            seen = _recent.setdefault(model, OrderedDict())
            if key in seen:
                seen.move_to_end(key)
                return seen[key]
        vectors = model.embed([text])
        # shared by every later search of the same words: none may change it
        vectors.setflags(write=False)
        with _recent_lock:
            seen[key] = vectors
            if len(seen) > RECENT_QUERIES:
                seen.popitem(last=False)
        return vectors

    return _run(rt, embed, beside)


def _run(rt: Runtime, embed: Callable[[], np.ndarray], beside: bool) -> Callable[[], np.ndarray]:
    return jobs.beside(embed).result if beside and rt.model_is_known() else embed


def checked(rt: Runtime, vectors: np.ndarray, dim: int) -> np.ndarray:
    """``vectors``, once their dimension is the store's."""
    if vectors.shape[1] != dim:
        raise EmbeddingMismatch(
            f"The model {rt.embedder.name} makes {vectors.shape[1]}-d vectors but this "
            f"store holds {dim}-d "
            "ones. Run `hindsight reindex` to re-embed every memory."
        )
    return vectors


def embed(rt: Runtime, texts: Sequence[str], dim: int) -> np.ndarray:
    return checked(rt, rt.embedder.embed(texts), dim)


def embed_many(
    rt: Runtime, texts: Sequence[str], dim: int | None, progress: Progress | None = None
) -> list[np.ndarray]:
    """Embed in batches of similar length: padding to the longest text in a batch costs up to 3x.
    With ``dim``, every batch is checked against the store's dimension."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    vectors: list[Any] = [None] * len(texts)
    for start_at in range(0, len(order), BATCH):
        chunk = order[start_at : start_at + BATCH]
        batch = [texts[i] for i in chunk]
        embedded = embed(rt, batch, dim) if dim is not None else rt.embedder.embed(batch)
        for position, vector in zip(chunk, embedded):
            vectors[position] = vector
        if progress:
            progress(start_at + len(chunk), len(texts))
    return vectors


def windows(rt: Runtime, row: MemoryRow) -> list[str]:
    """The texts a memory's vectors are made from: its embedding text, in the model's windows."""
    return chunks.split(embedding_text(row), rt.model)


def assign(row: MemoryRow, vectors: np.ndarray | Sequence[np.ndarray]) -> None:
    """A memory's first window's vector, and its further windows' (a long memory's chunks)."""
    row.embedding = _floats(vectors[0])
    row.chunks = [_floats(v) for v in vectors[1:]] or None


def _floats(vector: Any) -> list[float]:
    """A vector as a list of Python floats (a float array's ``tolist`` gives the same ones, in
    C)."""
    if (
        getattr(getattr(vector, "dtype", None), "kind", None) == "f"
        and getattr(vector, "ndim", 0) == 1
    ):
        return vector.tolist()  # type: ignore[no-any-return]
    return [float(x) for x in vector]


def embed_rows(
    rt: Runtime, rows: Sequence[MemoryRow], dim: int | None, progress: Progress | None = None
) -> None:
    """Embed every row (each window of a long one) in batches of similar length."""
    texts: list[str] = []
    spans: list[tuple[int, int]] = []
    for row in rows:
        parts = windows(rt, row)
        spans.append((len(texts), len(texts) + len(parts)))
        texts.extend(parts)
    # Progress counts memories, not windows: a long memory's windows are a share of one.
    step = (
        (lambda done, total: progress(done * len(rows) // max(total, 1), len(rows)))
        if progress
        else None
    )
    vectors = embed_many(rt, texts, dim, step)
    for row, (start, end) in zip(rows, spans):
        assign(row, vectors[start:end])
