"""Keeping the LanceDB index fast and small: compaction, the vector (ANN) index's build, extension
and retraining, and the scrub of a hard forget. A mixin of ``Index``, which provides ``table()``,
``path``, ``count()`` and the rest."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from .. import safefs
from ..safefs.reading import MAX_SMALL, load_own
from .locks import open_lock_file

if TYPE_CHECKING:
    from lancedb.table import LanceTable

log = logging.getLogger("hindsight.index")

_COMPACT_AT_FRAGMENTS = 32
# LanceDB's name for the index on the ``vector`` column
VECTOR_INDEX = "vector_idx"
_VECTOR_STATE = "hindsight-vector.json"
# fold rows added since the build into the vector index once they are a tenth of it
_EXTEND_SHARE = 0.1
# retrain it (new partitions) once the table holds twice the rows it was trained on
_RETRAIN_GROWTH = 2.0


class VectorIndexState(TypedDict):
    """The vector index as ``hindsight stats`` shows it."""

    type: str
    # rows it covers, rows added since (searched flat beside it), the table size it was trained at
    rows: int
    unindexed_rows: int
    trained_rows: int


class Upkeep:
    path: Path
    vector_index_rows: int
    _table: LanceTable | None
    _worker: threading.Thread | None

    # Provided by Index:
    def table(self) -> LanceTable:
        raise NotImplementedError

    def count(self) -> int:
        raise NotImplementedError

    def fragments(self) -> int:
        raise NotImplementedError

    def delete(self, ids: Sequence[str]) -> None:
        raise NotImplementedError

    def chunk_table(self) -> LanceTable:
        raise NotImplementedError

    def _has_chunks(self) -> bool:
        raise NotImplementedError

    def _write_json(self, name: str, data: Mapping[str, object]) -> None:
        raise NotImplementedError

    @staticmethod
    def _create_fts(table: LanceTable) -> None:
        raise NotImplementedError

    def compact(self, purge: bool = False) -> None:
        """Merge small fragments; ``purge`` also drops old versions so deleted data leaves the
        disk."""
        import warnings

        for attempt in range(4):
            try:
                with warnings.catch_warnings():
                    # "removes every version except the latest": the point
                    warnings.simplefilter("ignore")
                    # A purge runs under the index's write and build locks, so no write is under
                    # way: the files no version names are a killed write's (whole rows), which
                    # LanceDB would otherwise keep for 7 days in case they were one in progress.
                    self.table().optimize(
                        cleanup_older_than=timedelta(0) if purge else timedelta(hours=1),
                        delete_unverified=purge,
                    )
                return
            except RuntimeError as error:
                # Another process committed meanwhile; LanceDB says to retry. Compaction only tidies
                # up, so after a few tries an ordinary one gives up (a purge must not).
                if "conflict" not in str(error).lower() or (attempt == 3 and purge):
                    raise
                if attempt == 3:
                    return
                self._table = None
                time.sleep(0.05 * (attempt + 1))

    def scrub(self, ids: Sequence[str]) -> None:
        """Delete ``ids`` so that none of their bytes stay on disk: rewrite every live row into new
        data files (which empties, and so drops, the old ones), rebuild the keyword index from the
        live rows, retrain the vector index on them (its partitions hold copies of the deleted
        vectors), and remove every older version. A vector index build under way waits: it must not
        commit the old vectors after this."""
        self.wait()
        with self._build_lock(block=True):
            self.delete(list(ids))
            table = self.table()
            live = table.to_arrow()
            if live.num_rows:
                table.merge_insert("id").when_matched_update_all().execute(live)
            self._create_fts(table)
            if self.vector_index() is not None:
                if 0 < self.vector_index_rows < live.num_rows:
                    self.build_vector_index()
                else:
                    self._drop_vector_index()
            self.compact(purge=True)
            if self._has_chunks():
                self._scrub_chunks()

    def _scrub_chunks(self) -> None:
        """The chunks table the same way: its live rows rewritten (under a new table), old versions
        gone. The rewrite is one commit (an overwrite): a kill between emptying the table and
        adding its rows back lost every long memory's further windows for good, since a rerun
        found nothing to add and the sync never writes a chunk again (review AC)."""
        import warnings

        chunks = self.chunk_table()
        live = chunks.to_arrow()
        if live.num_rows:
            chunks.add(live, mode="overwrite")
        else:
            chunks.delete("true")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            chunks.optimize(cleanup_older_than=timedelta(0), delete_unverified=True)

    def maybe_compact(self) -> bool:
        if self.fragments() > _COMPACT_AT_FRAGMENTS:
            self.compact()
            return True
        return False

    def maintain(self, background: bool = False) -> None:
        """After a sync: compact when fragments pile up, and keep the vector index in step with the
        table (``maintain_vector_index``). With ``background`` (a long-running process) the vector
        index work runs in a thread of its own, since a build takes up to minutes: searches
        meanwhile are flat, and exact. ``wait`` waits for it."""
        self.maybe_compact()
        if not background:
            self._maintain_vector_index_quietly()
        elif self._worker is None or not self._worker.is_alive():
            self._worker = threading.Thread(
                target=self._maintain_vector_index_quietly,
                daemon=True,
                name="hindsight-vector-index",
            )
            self._worker.start()

    def wait(self) -> None:
        """Wait for a vector index build that ``maintain(background=True)`` started."""
        if self._worker is not None:
            self._worker.join()

    def _maintain_vector_index_quietly(self) -> None:
        # Logged, not raised: searches stay correct without the vector index, and the next sync
        # retries.
        try:
            self.maintain_vector_index()
        except Exception as error:  # noqa: BLE001 - LanceDB raises its own types too (RustPanic)
            log.warning("the vector index was not updated (the next sync retries): %s", error)

    # --- the vector index
    # ---------------------------------------------------------------------------

    def vector_index(self) -> VectorIndexState | None:
        """The approximate-nearest-neighbour index on the vectors (None while every search is flat):
        its type, the rows it covers, the rows added since (searched flat beside it) and the table
        size it was trained at."""
        stats = self.table().index_stats(VECTOR_INDEX)
        if stats is None:
            return None
        return {
            "type": stats.index_type,
            "rows": stats.num_indexed_rows,
            "unindexed_rows": stats.num_unindexed_rows,
            "trained_rows": self._trained_rows() or stats.num_indexed_rows,
        }

    def maintain_vector_index(self) -> str | None:
        """Build the vector index once the table outgrows ``vector_index_rows``; fold the rows added
        since into it once they are a tenth of it; retrain it once the table has doubled. Returns
        ``built``, ``extended``, ``retrained`` or None. One process at a time; another one skips."""
        if self.vector_index_rows <= 0:
            return None
        with self._build_lock() as mine:
            if not mine:
                return None
            rows, state = self.count(), self.vector_index()
            if state is None:
                if rows <= self.vector_index_rows:
                    return None
                self.build_vector_index()
                return "built"
            if rows >= _RETRAIN_GROWTH * state["trained_rows"]:
                self.build_vector_index()
                return "retrained"
            if state["unindexed_rows"] > _EXTEND_SHARE * max(state["rows"], 1):
                # LanceDB's optimize adds the new rows to the existing partitions
                self.compact()
                return "extended"
        return None

    def build_vector_index(self) -> None:
        """Train the vector index on every row now in the table, replacing any old one: IVF-SQ
        (cosine, √rows partitions, 8-bit scalar-quantised vectors; docs/benchmarks.md compares it
        with IVF-PQ, IVF-flat and HNSW). Searches go on meanwhile (flat until it is committed), and
        so do other processes' writes: rows they add are searched flat beside the index until they
        are folded in.
        """
        from lancedb.index import IvfSq

        rows = self.count()
        self.table().create_index("vector", config=IvfSq(distance_type="cosine"), replace=True)
        self._write_json(_VECTOR_STATE, {"trained_rows": rows})

    def _drop_vector_index(self) -> None:
        self.table().drop_index(VECTOR_INDEX)
        (self.path / _VECTOR_STATE).unlink(missing_ok=True)

    def _trained_rows(self) -> int:
        try:
            return int(load_own(self.path / _VECTOR_STATE, MAX_SMALL)["trained_rows"])
        except (OSError, ValueError, KeyError, TypeError):
            return 0

    @contextmanager
    def _build_lock(self, block: bool = False) -> Iterator[bool]:
        """Yields whether this process may build (without ``block``, False while another one does).
        A build takes seconds to minutes, so it has a lock of its own: holding the write lock that
        long would make other processes' syncs wait past their timeout."""
        try:
            import fcntl
        # Windows: two processes may both build; the second commit replaces the first
        except ImportError:
            yield True
            return
        safefs.private_dir(self.path, "The index directory")
        handle = open_lock_file(self.path / ".hindsight-vector.lock")
        try:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX if block else fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                yield False
                return
            yield True
        finally:
            os.close(handle)
