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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import safefs
from ..errors import StoreBusy
from ..safefs.reading import MAX_SMALL, load_own
from . import codec
from .base import Condition
from .index_upkeep import Upkeep
from .locks import open_lock_file, wait_for_flock
from .rows import FILTER_COLUMNS, MemoryRow

if TYPE_CHECKING:
    import pyarrow as pa
    from lancedb.db import LanceDBConnection
    from lancedb.table import LanceTable

# what a query returns: one record per row, of the columns it selects
Records = list[dict[str, Any]]

log = logging.getLogger("hindsight.index")

TABLE = "memories"
# a long memory's further chunks' vectors (core/chunks.py), searched flat beside the table
CHUNKS = "chunks"
_STATE = "hindsight-sync.json"
# IVF partitions every vector search reads (more when a filter leaves too few rows in them)
NPROBES = 20
# re-rank 2 x limit candidates by their full vectors: exact cosines for ranking
REFINE_FACTOR = 2


def _q(value: str) -> str:
    """A LanceDB SQL string literal; quotes are doubled so a value can never end the literal."""
    return "'" + str(value).replace("'", "''") + "'"


def _literal(value: Any) -> str:
    return str(codec.micros(value)) if isinstance(value, datetime) else _q(value)


def where_clause(conditions: Sequence[Condition]) -> str | None:
    """Conditions as a LanceDB ``where``: values become quoted literals (``_q``), times
    microseconds."""
    parts: list[str] = []
    for column, op, value in conditions:
        if column not in FILTER_COLUMNS:
            raise ValueError(f"the index cannot filter on {column}")
        if op == "in":
            parts.append(
                f"{column} IN ({', '.join(_literal(v) for v in value)})" if value else "FALSE"
            )
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


class Index(Upkeep):
    """LanceDB access for one store; the connection may stay open (multi-process safe)."""

    def __init__(self, path: Path, dim: int, vector_index_rows: int = 0) -> None:
        self.path = path
        self.dim = dim
        # 0: never build one, and search exactly
        self.vector_index_rows = vector_index_rows
        self._table: LanceTable | None = None
        self._chunk_table: LanceTable | None = None
        self._worker: threading.Thread | None = None

    def _schema(self) -> pa.Schema:
        import pyarrow as pa

        return pa.schema(
            [
                ("id", pa.string()),
                ("seq", pa.int64()),
                ("vector", pa.list_(pa.float32(), self.dim)),
                ("terms", pa.string()),
                *self._filter_fields(),
                ("memory", pa.string()),
            ]
        )

    def _chunk_schema(self) -> pa.Schema:
        import pyarrow as pa

        return pa.schema(
            [
                ("id", pa.string()),
                ("part", pa.int32()),
                ("vector", pa.list_(pa.float32(), self.dim)),
                *self._filter_fields(),
            ]
        )

    @staticmethod
    def _filter_fields() -> list[tuple[str, pa.DataType]]:
        import pyarrow as pa

        return [
            ("agent_id", pa.string()),
            ("task_id", pa.string()),
            ("type", pa.string()),
            ("status", pa.string()),
            ("outcome", pa.string()),
            ("source", pa.string()),
            ("tags", pa.list_(pa.string())),
            ("event_at", pa.int64()),
            ("expires_at", pa.int64()),
        ]

    @staticmethod
    def _connect(path: Path) -> LanceDBConnection:
        import lancedb
        from lancedb.db import LanceDBConnection

        # Always read the newest version: other processes write and compact these tables too.
        db = lancedb.connect(str(path), read_consistency_interval=timedelta(0))
        # what a local directory gets
        assert isinstance(db, LanceDBConnection)
        return db

    def chunk_table(self) -> LanceTable:
        """The table of long memories' further chunks (created on first use)."""
        if self._chunk_table is None:
            db = self._connect(self.path)
            try:
                self._chunk_table = db.open_table(CHUNKS)
            except (ValueError, FileNotFoundError):
                try:
                    self._chunk_table = db.create_table(CHUNKS, schema=self._chunk_schema())
                # another process created it first
                except (ValueError, OSError):
                    self._chunk_table = db.open_table(CHUNKS)
        return self._chunk_table

    def table(self) -> LanceTable:
        if self._table is None:
            db = self._connect(self.path)
            try:
                self._table = db.open_table(TABLE)
                # an older version's index: rebuild it
                if {"memory", "source"} - set(self._table.schema.names):
                    db.drop_table(TABLE)
                    if CHUNKS in db.table_names():
                        db.drop_table(CHUNKS)
                    self.set_watermark(0)
                    raise FileNotFoundError(TABLE)
            except (ValueError, FileNotFoundError):
                try:
                    self._table = db.create_table(TABLE, schema=self._schema())
                # another process created it first
                except (ValueError, OSError):
                    self._table = db.open_table(TABLE)
            if not any(ix.index_type == "FTS" for ix in self._table.list_indices()):
                try:
                    self._create_fts(self._table)
                except (RuntimeError, ValueError, OSError):
                    # Another process built it at the same moment (a commit conflict); theirs will
                    # do.
                    if not any(ix.index_type == "FTS" for ix in self._table.list_indices()):
                        raise
        return self._table

    def reshape(self) -> None:
        """Drop the tables when their vectors are of another dimension than the ledger's (a
        ``reindex`` to another model killed after the ledger took the new vectors and before it
        rebuilt the index), so that the sync rebuilds them rather than fail at every search on
        rows they cannot take. Under the write lock (the sync's): a read leaves them as they are."""
        vector = self.table().schema.field("vector").type
        if getattr(vector, "list_size", self.dim) == self.dim:
            return
        self.reset()

    def reset(self) -> None:
        """Drop the tables (the next sync rebuilds them from the ledger). Under the write lock."""
        import shutil

        db = self._connect(self.path)
        for name in (TABLE, CHUNKS):
            try:
                db.drop_table(name)
            except (ValueError, OSError):
                # not there, or half removed (a `reindex` killed while deleting the index)
                shutil.rmtree(self.path / f"{name}.lance", ignore_errors=True)
        self._table = self._chunk_table = None
        self.set_watermark(0)

    @staticmethod
    def _create_fts(table: LanceTable) -> None:
        from lancedb.index import FTS

        table.create_index(
            "terms",
            config=FTS(
                base_tokenizer="whitespace",
                lower_case=False,
                stem=False,
                remove_stop_words=False,
                ascii_folding=False,
                with_position=False,
            ),
            replace=True,
        )

    @contextmanager
    def write_lock(self, timeout: float) -> Iterator[None]:
        """Serialise index writers across processes. LanceDB commits concurrent appends safely, but
        two processes upserting the same new id at once would both insert it."""
        try:
            import fcntl
        # Windows: no lock; duplicates are removed by the next sync
        except ImportError:
            yield
            return
        safefs.private_dir(self.path, "The index directory")
        handle = open_lock_file(self.path / ".hindsight-write.lock")
        try:
            wait_for_flock(
                fcntl,
                handle,
                fcntl.LOCK_EX,
                time.monotonic() + timeout,
                lambda: StoreBusy(
                    f"The index {self.path} stayed busy with another process's update for "
                    f"{timeout:g} s; retry, "
                    "or raise HINDSIGHT_LOCK_TIMEOUT."
                ),
            )
            # LanceDB writes (and a scrub deletes) files by name in the table's directories: one
            # made a link since the store was opened (a pull under a long-lived server) is refused
            for finding in safefs.entry_findings(self.path.parent):
                finding.raise_()
            yield
        finally:
            os.close(handle)

    # --- sync state
    # ---------------------------------------------------------------------------------

    def watermark(self) -> int:
        try:
            return int(load_own(self.path / _STATE, MAX_SMALL)["seq"])
        # any other shape (a file that came with a repository's store): not synced
        except (OSError, ValueError, KeyError, TypeError):
            return 0

    def built_from(self) -> str | None:
        """The key of the ledger the index was built from (``base.LEDGER_KEY``, "" for a ledger
        without one); None when it names none (an index from before ledger keys, or not one
        hindsight wrote): review AE, an index an archive brought holds its author's memories."""
        try:
            value = load_own(self.path / _STATE, MAX_SMALL).get("ledger")
        except (OSError, ValueError, AttributeError):
            return None
        return value if isinstance(value, str) else None

    def set_watermark(self, seq: int, ledger: str | None = None) -> None:
        """Record the highest change sequence number the index holds, and the key of the ledger
        it holds them from."""
        self._write_json(_STATE, {"seq": seq} if ledger is None else {"seq": seq, "ledger": ledger})

    def _write_json(self, name: str, data: Mapping[str, object]) -> None:
        safefs.private_dir(self.path, "The index directory")
        safefs.write_private(self.path / name, json.dumps(data))

    # --- writes
    # -------------------------------------------------------------------------------------

    def upsert(self, rows: Iterable[MemoryRow], terms_text: dict[str, str]) -> int:
        """Insert or replace rows (with their vectors, and a long memory's chunks'); ``terms_text``
        holds each row's keyword terms."""
        vectored = [r for r in rows if r.embedding is not None]
        if vectored:
            import pyarrow as pa

            data = pa.Table.from_pylist(
                [codec.index_record(r, terms_text[r.id]) for r in vectored], schema=self._schema()
            )
            self.table().merge_insert(
                "id"
            ).when_matched_update_all().when_not_matched_insert_all().execute(data)
            self._replace_chunks(vectored)
        return len(vectored)

    def _replace_chunks(self, rows: Sequence[MemoryRow]) -> None:
        """A row's chunks carry its filter columns, so they are rewritten with it (and dropped when
        it no longer has any: its text was shortened)."""
        chunks = [record for row in rows for record in codec.chunk_records(row)]
        if not chunks and not self._has_chunks():
            return
        self._delete_from(self.chunk_table(), [r.id for r in rows])
        if chunks:
            import pyarrow as pa

            self.chunk_table().add(pa.Table.from_pylist(chunks, schema=self._chunk_schema()))

    def _has_chunks(self) -> bool:
        return (
            CHUNKS in self._connect(self.path).table_names() and self.chunk_table().count_rows() > 0
        )

    @staticmethod
    def _delete_from(table: LanceTable, ids: Sequence[str]) -> None:
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            table.delete(f"id IN ({', '.join(_q(i) for i in chunk)})")

    def delete(self, ids: Sequence[str]) -> None:
        self._delete_from(self.table(), ids)
        if self._has_chunks():
            self._delete_from(self.chunk_table(), ids)

    def ids(self) -> set[str]:
        """Every id the index holds a vector of (a chunk's too)."""
        held = set(self.id_counts())
        if self._has_chunks():
            held |= {r["id"] for r in self.chunk_table().to_arrow().select(["id"]).to_pylist()}
        return held

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
        # LanceDB's annotation says a TableStatistics; it returns a dict
        stats: dict[str, dict[str, int]] = self.table().stats()  # type: ignore[assignment]
        return int(stats["fragment_stats"]["num_fragments"])

    # --- reads
    # --------------------------------------------------------------------------------------

    def _read(self, run: Callable[[LanceTable], Records], chunks: bool = False) -> Records:
        """Run a query; if another process purged the version under us, reopen once and retry."""
        try:
            found = run(self.chunk_table() if chunks else self.table())
        except (RuntimeError, OSError, ValueError):
            self._table = self._chunk_table = None
            found = run(self.chunk_table() if chunks else self.table())
        return found

    _ROW = ["id", "memory", "vector"]

    def nearest(
        self,
        vector: Sequence[float],
        where: str | None,
        limit: int,
        rows: dict[str, MemoryRow] | None = None,
    ) -> list[tuple[str, float]]:
        """Top ``limit`` by cosine, a long memory by its best chunk; with ``rows``, also collect
        each hit's stored fields into it."""

        def run(table: LanceTable) -> Records:
            query = table.search(list(vector)).distance_type("cosine")
            if self.vector_index_rows <= 0:
                query = query.bypass_vector_index()
            # both are ignored while there is no vector index; rows added since it was built are
            # searched flat
            else:
                query = (
                    query.maximum_nprobes(0).minimum_nprobes(NPROBES).refine_factor(REFINE_FACTOR)
                )
            if where:
                query = query.where(where, prefilter=True)
            return (
                query.limit(limit)
                .select([*self._ROW, "_distance"] if rows is not None else ["id", "_distance"])
                .to_list()
            )

        found = self._read(run)
        _collect(found, rows)
        best = {r["id"]: 1.0 - float(r["_distance"]) for r in found}
        if self._has_chunks():
            self._best_chunks(vector, where, limit, best, rows)
        return sorted(best.items(), key=lambda hit: -hit[1])[:limit]

    def _best_chunks(
        self,
        vector: Sequence[float],
        where: str | None,
        limit: int,
        best: dict[str, float],
        rows: dict[str, MemoryRow] | None,
    ) -> None:
        """Raise each memory's score to its best chunk's: the top ``limit`` by best window is within
        the top ``limit`` first windows and the top ``limit`` memories by chunk, merged."""

        def run(table: LanceTable) -> Records:
            query = table.search(list(vector)).distance_type("cosine").bypass_vector_index()
            if where:
                query = query.where(where, prefilter=True)
            return query.limit(limit * 4).select(["id", "_distance"]).to_list()

        by_chunk: dict[str, float] = {}
        for record in self._read(run, chunks=True):
            score = 1.0 - float(record["_distance"])
            by_chunk[record["id"]] = max(score, by_chunk.get(record["id"], -1.0))
        top = sorted(by_chunk.items(), key=lambda hit: -hit[1])[:limit]
        if rows is not None:
            self._fetch([m for m, _ in top if m not in rows], rows)
        held = set(best) | (
            set(rows) if rows is not None else self._present([m for m, _ in top if m not in best])
        )
        for memory_id, score in top:
            # a chunk whose memory left the table (a crash between two deletes) is not a hit
            if memory_id in held:
                best[memory_id] = max(score, best.get(memory_id, -1.0))

    def _fetch(self, ids: Sequence[str], rows: dict[str, MemoryRow]) -> None:
        if ids:
            where = f"id IN ({', '.join(_q(i) for i in ids)})"
            _collect(
                self._read(
                    lambda table: (
                        table.search().where(where).select(self._ROW).limit(len(ids)).to_list()
                    )
                ),
                rows,
            )

    def select(self, where: str | None, limit: int = 100_000) -> list[MemoryRow]:
        """The stored rows of the memories ``where`` holds (at most ``limit``, in no order)."""
        rows: dict[str, MemoryRow] = {}

        def run(table: LanceTable) -> Records:
            query = table.search()
            return (query.where(where) if where else query).select(self._ROW).limit(limit).to_list()

        _collect(self._read(run), rows)
        return list(rows.values())

    def _present(self, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        where = f"id IN ({', '.join(_q(i) for i in ids)})"
        return {
            r["id"]
            for r in self._read(
                lambda table: table.search().where(where).select(["id"]).limit(len(ids)).to_list()
            )
        }

    def keyword(
        self,
        query_terms: Sequence[str],
        where: str | None,
        limit: int,
        rows: dict[str, MemoryRow] | None = None,
    ) -> list[tuple[str, float]]:
        """Top ``limit`` by BM25 over the keyword terms; ``rows`` as in ``nearest``."""
        if not query_terms:
            return []

        def run(table: LanceTable) -> Records:
            query = table.search(" ".join(sorted(set(query_terms))), query_type="fts")
            if where:
                query = query.where(where, prefilter=True)
            return (
                query.limit(limit)
                .select([*self._ROW, "_score"] if rows is not None else ["id", "_score"])
                .to_list()
            )

        found = self._read(run)
        _collect(found, rows)
        return [(r["id"], float(r["_score"])) for r in found]


def _collect(found: Records, rows: dict[str, MemoryRow] | None) -> None:
    if rows is None:
        return
    for record in found:
        if record["id"] not in rows:
            rows[record["id"]] = codec.from_json(record["memory"], record["vector"])
