"""The index: vectors and the keyword index in LanceDB, derived from the ledger and rebuildable.

Rows carry the ledger's change sequence number (``seq``); ``sync`` upserts every ledger row changed
since the index's watermark and drops rows the ledger no longer has, so a crash between a ledger
commit and the index write loses nothing. Appends from several processes are safe in LanceDB.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..errors import StoreBusy
from . import codec
from .base import Condition
from .locks import open_lock_file, wait_for_flock
from .rows import FILTER_COLUMNS, MemoryRow

log = logging.getLogger("hindsight.index")

TABLE = "memories"
_STATE = "hindsight-sync.json"
_COMPACT_AT_FRAGMENTS = 32
VECTOR_INDEX = "vector_idx"  # LanceDB's name for the index on the ``vector`` column
_VECTOR_STATE = "hindsight-vector.json"
_EXTEND_SHARE = 0.1  # fold rows added since the build into the vector index once they are a tenth of it
_RETRAIN_GROWTH = 2.0  # retrain it (new partitions) once the table holds twice the rows it was trained on
NPROBES = 20  # IVF partitions every vector search reads (more when a filter leaves too few rows in them)
REFINE_FACTOR = 2  # re-rank 2 x limit candidates by their full vectors: exact cosines for ranking


def _q(value: str) -> str:
    """A LanceDB SQL string literal; quotes are doubled so a value can never end the literal."""
    return "'" + str(value).replace("'", "''") + "'"


def _literal(value: Any) -> str:
    return str(codec.micros(value)) if isinstance(value, datetime) else _q(value)


def where_clause(conditions: Sequence[Condition]) -> str | None:
    """Conditions as a LanceDB ``where``: values become quoted literals (``_q``), times microseconds."""
    parts: list[str] = []
    for column, op, value in conditions:
        if column not in FILTER_COLUMNS:
            raise ValueError(f"the index cannot filter on {column}")
        if op == "in":
            parts.append(f"{column} IN ({', '.join(_literal(v) for v in value)})" if value else "FALSE")
        elif op == "has":
            parts.append(f"array_has({column}, {_literal(value)})")
        elif op == "expired":
            parts.append(f"({column} IS NOT NULL AND {column} <= {_literal(value)})")
        elif op == "unexpired":
            parts.append(f"({column} IS NULL OR {column} > {_literal(value)})")
        elif op == "is":
            parts.append(f"{column} IS NULL" if value is None else f"{column} = {_literal(value)}")
        elif op in ("=", ">=", "<=", "<"):
            parts.append(f"{column} {op} {_literal(value)}")
        else:
            raise ValueError(f"the index cannot apply {op!r}")
    return " AND ".join(parts) or None


class Index:
    """LanceDB access for one store; the connection may stay open (multi-process safe)."""

    def __init__(self, path: Path, dim: int, vector_index_rows: int = 0) -> None:
        self.path = path
        self.dim = dim
        self.vector_index_rows = vector_index_rows  # 0: never build one, and search exactly
        self._table: Any = None
        self._worker: threading.Thread | None = None

    def _schema(self) -> Any:
        import pyarrow as pa

        return pa.schema([
            ("id", pa.string()), ("seq", pa.int64()), ("vector", pa.list_(pa.float32(), self.dim)),
            ("terms", pa.string()), ("agent_id", pa.string()), ("task_id", pa.string()), ("type", pa.string()),
            ("status", pa.string()), ("outcome", pa.string()), ("tags", pa.list_(pa.string())),
            ("event_at", pa.int64()), ("expires_at", pa.int64()), ("memory", pa.string()),
        ])

    def table(self) -> Any:
        if self._table is None:
            import lancedb

            # Always read the newest version: other processes write and compact this table too.
            db = lancedb.connect(str(self.path), read_consistency_interval=timedelta(0))
            try:
                self._table = db.open_table(TABLE)
                if "memory" not in self._table.schema.names:  # an index from an older version: rebuild it
                    db.drop_table(TABLE)
                    self.set_watermark(0)
                    raise FileNotFoundError(TABLE)
            except (ValueError, FileNotFoundError):
                try:
                    self._table = db.create_table(TABLE, schema=self._schema())
                except (ValueError, OSError):  # another process created it first
                    self._table = db.open_table(TABLE)
            if not any(ix.index_type == "FTS" for ix in self._table.list_indices()):
                try:
                    self._create_fts(self._table)
                except (RuntimeError, ValueError, OSError):
                    # Another process built it at the same moment (a commit conflict); theirs will do.
                    if not any(ix.index_type == "FTS" for ix in self._table.list_indices()):
                        raise
        return self._table

    @staticmethod
    def _create_fts(table: Any) -> None:
        from lancedb.index import FTS

        table.create_index("terms", config=FTS(
            base_tokenizer="whitespace", lower_case=False, stem=False, remove_stop_words=False,
            ascii_folding=False, with_position=False), replace=True)

    @contextmanager
    def write_lock(self, timeout: float) -> Iterator[None]:
        """Serialise index writers across processes. LanceDB commits concurrent appends safely, but
        two processes upserting the same new id at once would both insert it."""
        try:
            import fcntl
        except ImportError:  # Windows: no lock; duplicates are removed by the next sync
            yield
            return
        self.path.mkdir(parents=True, exist_ok=True)
        handle = open_lock_file(self.path / ".hindsight-write.lock")
        try:
            wait_for_flock(fcntl, handle, fcntl.LOCK_EX, time.monotonic() + timeout, lambda: StoreBusy(
                f"The index {self.path} stayed busy with another process's update for {timeout:g} s; retry, "
                "or raise HINDSIGHT_LOCK_TIMEOUT."))
            yield
        finally:
            os.close(handle)

    # --- sync state ---------------------------------------------------------------------------------

    def watermark(self) -> int:
        try:
            return int(json.loads((self.path / _STATE).read_text())["seq"])
        except (OSError, ValueError, KeyError):
            return 0

    def set_watermark(self, seq: int) -> None:
        self._write_json(_STATE, {"seq": seq})

    def _write_json(self, name: str, data: dict[str, Any]) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        temp = self.path / f".{name}.{os.getpid()}.{threading.get_ident()}"
        temp.write_text(json.dumps(data))
        os.replace(temp, self.path / name)

    # --- writes -------------------------------------------------------------------------------------

    def upsert(self, rows: Iterable[MemoryRow], terms_text: dict[str, str]) -> int:
        """Insert or replace rows (with their vectors); ``terms_text`` holds each row's keyword terms."""
        records = [codec.index_record(r, terms_text[r.id]) for r in rows if r.embedding is not None]
        if records:
            import pyarrow as pa

            data = pa.Table.from_pylist(records, schema=self._schema())
            self.table().merge_insert("id").when_matched_update_all().when_not_matched_insert_all().execute(data)
        return len(records)

    def delete(self, ids: Sequence[str]) -> None:
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            self.table().delete(f"id IN ({', '.join(_q(i) for i in chunk)})")

    def ids(self) -> set[str]:
        return set(self.id_counts())

    def id_counts(self) -> dict[str, int]:
        """How many rows each id has (more than one only after an interrupted or unlocked write)."""
        rows = self._read(lambda table: table.to_arrow().select(["id"]).to_pylist())
        counts: dict[str, int] = {}
        for row in rows:
            counts[row["id"]] = counts.get(row["id"], 0) + 1
        return counts

    def count(self) -> int:
        return int(self._read(lambda table: [{"n": table.count_rows()}])[0]["n"])

    def fragments(self) -> int:
        return int(self.table().stats()["fragment_stats"]["num_fragments"])

    def compact(self, purge: bool = False) -> None:
        """Merge small fragments; ``purge`` also drops old versions so deleted data leaves the disk."""
        import warnings

        for attempt in range(4):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # "removes every version except the latest": the point
                    self.table().optimize(cleanup_older_than=timedelta(0) if purge else timedelta(hours=1))
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
        live rows, retrain the vector index on them (its partitions hold copies of the deleted vectors),
        and remove every older version. A vector index build under way waits: it must not commit the
        old vectors after this."""
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

    def maybe_compact(self) -> bool:
        if self.fragments() > _COMPACT_AT_FRAGMENTS:
            self.compact()
            return True
        return False

    def maintain(self, background: bool = False) -> None:
        """After a sync: compact when fragments pile up, and keep the vector index in step with the
        table (``maintain_vector_index``). With ``background`` (a long-running process) the vector
        index work runs in a thread of its own, since a build takes up to minutes: searches meanwhile
        are flat, and exact. ``wait`` waits for it."""
        self.maybe_compact()
        if not background:
            self._maintain_vector_index_quietly()
        elif self._worker is None or not self._worker.is_alive():
            self._worker = threading.Thread(target=self._maintain_vector_index_quietly, daemon=True,
                                            name="hindsight-vector-index")
            self._worker.start()

    def wait(self) -> None:
        """Wait for a vector index build that ``maintain(background=True)`` started."""
        if self._worker is not None:
            self._worker.join()

    def _maintain_vector_index_quietly(self) -> None:
        # Logged, not raised: searches stay correct without the vector index, and the next sync retries.
        try:
            self.maintain_vector_index()
        except Exception as error:  # noqa: BLE001 - LanceDB raises its own types too (RustPanic)
            log.warning("the vector index was not updated (the next sync retries): %s", error)

    # --- the vector index ---------------------------------------------------------------------------

    def vector_index(self) -> dict[str, Any] | None:
        """The approximate-nearest-neighbour index on the vectors (None while every search is flat):
        its type, the rows it covers, the rows added since (searched flat beside it) and the table
        size it was trained at."""
        stats = self.table().index_stats(VECTOR_INDEX)
        if stats is None:
            return None
        return {"type": stats.index_type, "rows": stats.num_indexed_rows, "unindexed_rows": stats.num_unindexed_rows,
                "trained_rows": self._trained_rows() or stats.num_indexed_rows}

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
                self.compact()  # LanceDB's optimize adds the new rows to the existing partitions
                return "extended"
        return None

    def build_vector_index(self) -> None:
        """Train the vector index on every row now in the table, replacing any old one: IVF-SQ (cosine,
        √rows partitions, 8-bit scalar-quantised vectors; docs/benchmarks.md compares it with IVF-PQ,
        IVF-flat and HNSW). Searches go on meanwhile (flat until it is committed), and so do other
        processes' writes: rows they add are searched flat beside the index until they are folded in.
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
            return int(json.loads((self.path / _VECTOR_STATE).read_text())["trained_rows"])
        except (OSError, ValueError, KeyError, TypeError):
            return 0

    @contextmanager
    def _build_lock(self, block: bool = False) -> Iterator[bool]:
        """Yields whether this process may build (without ``block``, False while another one does).
        A build takes seconds to minutes, so it has a lock of its own: holding the write lock that long
        would make other processes' syncs wait past their timeout."""
        try:
            import fcntl
        except ImportError:  # Windows: two processes may both build; the second commit replaces the first
            yield True
            return
        self.path.mkdir(parents=True, exist_ok=True)
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

    # --- reads --------------------------------------------------------------------------------------

    def _read(self, run: Any) -> list[dict[str, Any]]:
        """Run a query; if another process purged the version under us, reopen once and retry."""
        try:
            return run(self.table())
        except (RuntimeError, OSError, ValueError):
            self._table = None
            return run(self.table())

    _ROW = ["id", "memory", "vector"]

    def nearest(self, vector: Sequence[float], where: str | None, limit: int,
                rows: dict[str, MemoryRow] | None = None) -> list[tuple[str, float]]:
        """Top ``limit`` by cosine; with ``rows``, also collect each hit's stored fields into it."""
        def run(table: Any) -> list[dict[str, Any]]:
            query = table.search(list(vector)).distance_type("cosine")
            if self.vector_index_rows <= 0:
                query = query.bypass_vector_index()
            else:  # both are ignored while there is no vector index; rows added since it was built are searched flat
                query = query.maximum_nprobes(0).minimum_nprobes(NPROBES).refine_factor(REFINE_FACTOR)
            if where:
                query = query.where(where, prefilter=True)
            return query.limit(limit).select([*self._ROW, "_distance"] if rows is not None else
                                              ["id", "_distance"]).to_list()

        found = self._read(run)
        _collect(found, rows)
        return [(r["id"], 1.0 - float(r["_distance"])) for r in found]

    def keyword(self, query_terms: Sequence[str], where: str | None, limit: int,
                rows: dict[str, MemoryRow] | None = None) -> list[tuple[str, float]]:
        """Top ``limit`` by BM25 over the keyword terms; ``rows`` as in ``nearest``."""
        if not query_terms:
            return []

        def run(table: Any) -> list[dict[str, Any]]:
            query = table.search(" ".join(sorted(set(query_terms))), query_type="fts")
            if where:
                query = query.where(where, prefilter=True)
            return query.limit(limit).select([*self._ROW, "_score"] if rows is not None else
                                              ["id", "_score"]).to_list()

        found = self._read(run)
        _collect(found, rows)
        return [(r["id"], float(r["_score"])) for r in found]


def _collect(found: list[dict[str, Any]], rows: dict[str, MemoryRow] | None) -> None:
    if rows is None:
        return
    for record in found:
        if record["id"] not in rows:
            rows[record["id"]] = codec.from_json(record["memory"], record["vector"])
