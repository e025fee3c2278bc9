"""Keeping the LanceDB index in step with the ledger it mirrors (local stores only).

Every ledger change takes the next value of a sequence; the index remembers the highest it holds. A
sync upserts every row changed since, and drops rows the ledger lost, in short ledger reads closed
before any index write, so a sync (in an MCP server, or after an import) never keeps other processes
from writing, and a crash between a ledger commit and the index write loses nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from ..text import terms
from .base import LEDGER_KEY, Ledger
from .index import Index
from .rows import MemoryRow, keyword_text

log = logging.getLogger("hindsight.sync")

Progress = Callable[[int, int], None]
_CHUNK = 2000


def upsert(index: Index, rows: Sequence[MemoryRow]) -> int:
    return index.upsert(rows, {r.id: " ".join(terms(keyword_text(r))) for r in rows})


class Mirror:
    """The index of one local store and what it last matched of the ledger."""

    def __init__(
        self,
        directory: Path,
        ledger: Ledger,
        lock_timeout: float,
        vector_index_rows: int,
        background: bool,
    ) -> None:
        self.directory = directory
        self.ledger = ledger
        self.lock_timeout = lock_timeout
        self.vector_index_rows = vector_index_rows
        # a long-lived process builds the vector index in a thread
        self.background = background
        self._index: Index | None = None
        # (ledger change token, dim) the index last matched
        self.synced: tuple[str, int] | None = None

    @property
    def open(self) -> bool:
        return self._index is not None

    def index(self, dim: int | None = None) -> Index:
        if self._index is None or (dim is not None and self._index.dim != dim):
            if dim is None:
                with self.ledger.read() as session:
                    dim = int(session.meta().get("embedding_dim", 384))
            self._index = Index(self.directory, dim, int(self.vector_index_rows))
        return self._index

    def forget_index(self) -> None:
        self._index = None
        self.synced = None

    def current(self) -> bool:
        """Whether the open index matches the ledger's latest change (then a search needs no
        ledger)."""
        index = self._index
        return (
            index is not None
            and self.synced is not None
            and self.synced[0] == self.ledger.change_token()
            and self.synced[1] == index.dim
        )

    def sync(
        self, progress: Progress | None = None, dim: int | None = None, wait: float | None = None
    ) -> int:
        """Bring the index up to the ledger: upsert changed rows, drop rows the ledger lost.
        ``wait``: how long to wait for another process's index update (default the lock timeout)
        before StoreBusy."""
        index = self.index(dim)
        # read first: a write during the sync leaves the index stale
        token = self.ledger.change_token()
        changed = 0
        with index.write_lock(self.lock_timeout if wait is None else wait):
            # first: an index of another model's vectors is dropped, its watermark with it
            index.reshape()
            with self.ledger.read() as session:
                key = session.meta().get(LEDGER_KEY, "")
            if index.built_from() != key:
                # an index built from another ledger (review AE: one a project archive brought
                # holds its author's memories, whatever its watermark says): built again
                index.reset()
            mark = index.watermark()
            with self.ledger.read() as session:
                head = session.max_seq()
                rows = session.changed_since(mark) if head > mark else []
                held = session.vectors_held()
                dim = int(session.meta().get("embedding_dim", 0))
            for start in range(0, len(rows), _CHUNK):
                changed += upsert(index, rows[start : start + _CHUNK])
                if progress:
                    progress(min(start + _CHUNK, len(rows)), len(rows))
            if index.count() != held:
                self._repair(index)
            if head > mark or index.built_from() != key:
                index.set_watermark(max(head, mark), key)
        index.maintain(background=self.background)
        self.synced = (token, dim)
        return changed

    def _repair(self, index: Index) -> None:
        """Make the index hold exactly the ledger's rows once each: drop rows of ids the ledger
        lost, and rewrite ids that have more than one row (from a write that was not serialised)."""
        counts = index.id_counts()
        with self.ledger.read() as session:
            known = {identity[0] for identity in session.identities()}
            doubled = [m for m, n in counts.items() if n > 1 and m in known]
            rows = session.by_ids(doubled, vectors=True) if doubled else []
        gone = sorted(set(counts) - known)
        if gone or doubled:
            index.delete(gone + doubled)
        if rows:
            upsert(index, rows)

    def after_write(self) -> None:
        """After a committed write: bring an open index up to date. The write already succeeded, so
        an index failure (disk full, another process compacting) is logged, not raised: the index is
        derived and the next sync catches up."""
        if self._index is not None:
            try:
                self.sync()
            except Exception as error:  # noqa: BLE001 - see above
                log.warning("index sync after a write failed (it catches up later): %s", error)

    def scrub(self, ids: Sequence[str]) -> None:
        """After a hard forget: the vectors and every old index version that still holds them go,
        with any other row the ledger no longer has (what was built from them, deleted before a
        crash)."""
        if not self.directory.exists():
            return
        index = self.index()
        with index.write_lock(self.lock_timeout):
            with self.ledger.read() as session:
                known = {identity[0] for identity in session.identities()}
            index.scrub(sorted(set(ids) | (index.ids() - known)))

    def delete(self, ids: Sequence[str]) -> None:
        if self.directory.exists():
            self.index().delete(list(ids))
