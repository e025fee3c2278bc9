"""Keeping a long-lived process's in-memory index (``storage.hot``) in step with the local ledger.

While the ledger's change marker is unchanged a search uses the index as it is, without opening
DuckDB. Once any process writes, the next search reads only what changed: the rows whose change
sequence number is above the index's, with their postings, in one short ledger read (closed before
they are decoded). Rows the ledger lost (a hard forget, an expiry purge) show as a row count that
differs, and a rewritten ledger file (a hard forget's scrub, which may restart the sequence lower)
as a new file: either way the index compares every row's (id, seq) with the ledger's and fetches
what differs.

The index is bounded: past ``limit`` bytes it is dropped and searches use the LanceDB index instead,
until the ledger shrinks well below the size at which it was given up.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from .base import Ledger, Reader
from .sql import duckdb_feed as feed

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

    from .hot import HotIndex

log = logging.getLogger("hindsight.hot")

# bytes a memory takes besides its vector, for the check made before loading
ESTIMATE = 1500
# bytes a further vector row takes besides its vector: its norm and its slot
CHUNK_OVERHEAD = 12
# a given-up index is tried again once the ledger holds this share of the rows it had
_RETRY_SHARE = 0.9


def _needed(index: HotIndex, count: int, chunks: int) -> int:
    """The bytes the index will take once it holds ``count`` rows and ``chunks`` further vector
    rows."""
    vector = 4 * index.dim
    return (
        index.nbytes
        + max(0, count - index.live) * (vector + ESTIMATE)
        + max(0, chunks - index.chunk_rows) * (vector + CHUNK_OVERHEAD)
    )


def _connection(session: Reader) -> DuckDBPyConnection:
    """The DuckDB connection of a session of the local ledger, the only one an index mirrors; the
    feed reads it through relations (``duckdb_feed``)."""
    from .sql.duckdb_instance import python_layer
    from .sql.duckdb_ledger import DuckDBSession

    if not isinstance(session, DuckDBSession):
        raise TypeError(f"the in-memory index mirrors a local ledger, not {type(session)}")
    python_layer()
    return session.conn


class HotMirror:
    """The in-memory index of one local store, and what it last matched of the ledger."""

    def __init__(
        self, ledger: Ledger, limit: int, on_full: Callable[[], None] | None = None
    ) -> None:
        self.ledger = ledger
        # bytes
        self.limit = limit
        # told once when the index outgrows ``limit``
        self.on_full = on_full
        self.index: HotIndex | None = None
        self.meta: dict[str, str] = {}
        # one refresh or search at a time
        self.lock = threading.RLock()
        self._token: str | None = None
        self._file: tuple[int, int] | None = None
        # rows the ledger held when the index was given up
        self._full_at: int | None = None

    @property
    def full(self) -> bool:
        return self._full_at is not None

    def current(self) -> bool:
        """Whether the index matches the ledger's latest change (no ledger read needed)."""
        return self.index is not None and self._token == self.ledger.change_token()

    def synced_index(self) -> HotIndex | None:
        """The index, brought up to the ledger's latest change (loaded first if it is not yet); None
        while it is over its limit."""
        with self.lock:
            token = self.ledger.change_token()
            if self._token != token or (self.index is None and self._full_at is None):
                self.refresh(token)
            return self.index

    def refresh(self, token: str | None = None) -> int:
        """Read what changed since the index's sequence number; returns how many rows were
        applied."""
        with self.lock:
            token = self.ledger.change_token() if token is None else token
            try:
                return self._refresh(token)
            except BaseException:
                # half-applied: the next search loads it afresh
                self.index, self._token = None, None
                raise

    def _refresh(self, token: str) -> int:
        where = self._ledger_file()
        index = self.index
        with self.ledger.read() as session:
            conn = _connection(session)
            top, count, chunks, meta = feed.head(conn)
            if self._full_at is not None and count > _RETRY_SHARE * self._full_at:
                self._token, self.meta = token, meta
                return 0
            dim = int(meta.get("embedding_dim", 0))
            if index is None or index.dim != dim:
                # numpy: only a process that searches in memory loads it
                from .hot import HotIndex

                index = HotIndex(dim)
            needed = _needed(index, count, chunks)
            if needed > self.limit:
                # too big: not even loaded
                self.meta, self._token, self.index = meta, token, None
                self._give_up(count, needed)
                return 0
            changes = feed.changed_since(conn, index.seq)
            versions = (
                feed.versions(conn) if self._differs(index, changes, top, count, where) else None
            )
        applied = self._apply(index, changes, versions)
        self.meta, self._token, self._file = meta, token, where
        if index.nbytes > self.limit:
            self._give_up(count, index.nbytes)
            self.index = None
            return applied
        if index.dead > max(1024, index.live):
            index.compact()
        self.index, self._full_at = index, None
        return applied

    def _differs(
        self,
        index: HotIndex,
        changes: feed.Changes,
        top: int,
        count: int,
        where: tuple[int, int] | None,
    ) -> bool:
        """Whether applying ``changes`` may leave the index unlike the ledger: rows were deleted, or
        the ledger file was rewritten (its sequence may then have restarted below the index's)."""
        if index.seq and (where != self._file or top < index.seq):
            return True
        ids = changes.rows.column("id").to_pylist()
        new = sum(1 for mid in ids if mid not in index.slot_of)
        return index.live + new != count

    def _apply(
        self, index: HotIndex, changes: feed.Changes, versions: dict[str, int] | None
    ) -> int:
        index.apply(changes)
        applied = int(changes.rows.num_rows)
        if versions is None:
            return applied
        index.remove([mid for mid in list(index.slot_of) if mid not in versions])
        stale = [
            mid
            for mid, seq in versions.items()
            if mid not in index.slot_of or index.stored[index.slot_of[mid]].seq != seq
        ]
        if stale:
            with self.ledger.read() as session:
                more = feed.by_ids(_connection(session), stale)
            index.apply(more)
            applied += int(more.rows.num_rows)
        return applied

    def _give_up(self, count: int, size: int) -> None:
        self._full_at = count
        log.info(
            "the in-memory index needs %.0f MB, over its limit of %.0f MB; searching the LanceDB "
            "index",
            size / 1e6,
            self.limit / 1e6,
        )
        if self.on_full is not None:
            self.on_full()

    def _ledger_file(self) -> tuple[int, int] | None:
        try:
            stat = os.stat(self.ledger.path)
        except OSError:
            return None
        return stat.st_dev, stat.st_ino
