"""The local ledger: every memory, links and the audit log in one DuckDB file of the store
directory.

No process keeps the file open between operations (an open read-write DuckDB file locks out every
other process, readers included): each session attaches it to the process's DuckDB, works and
detaches it (``duckdb_instance``). A lock conflict is
retried with backoff up to the lock timeout, then reported as ``StoreBusy``.
"""

from __future__ import annotations

import logging
import os
import random
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ... import safefs
from ...errors import HindsightError, StoreBusy
from ...lazy import once
from .. import codec, locks
from ..base import Capabilities, Condition
from ..rows import COLUMNS, MemoryRow, arrow_type
from . import duckdb_instance
from .common import Dialect, SqlSession, integer, render
from .duckdb_schema import SCHEMA_VERSION, chunks_schema, migrate

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

log = logging.getLogger("hindsight.ledger")

DIALECT = Dialect(
    has="list_contains({name}, ?)",
    overlaps="len(list_intersect({name}, ?)) > 0",
    among="{name} IN (SELECT unnest(?::VARCHAR[]))",
    vector="?",
    audit_order="rowid",
    embedding="m.embedding",
    chunk_embedding="c.embedding",
)
CAPABILITIES = Capabilities(name="local", files=True, mirrored=True, shared=False)


def storage_error(path: Path, error: Exception) -> HindsightError:
    """A storage failure as one line that says what happened and what to do; the transaction it
    interrupted was rolled back, so nothing was half-written."""
    text = str(error)
    store = path.parent
    if any(s in text for s in ("No space left", "File too large", "Disk quota exceeded")):
        return HindsightError(
            f"The disk holding the store {store} is full ({_detail(text)}); nothing was "
            "written. Free some space and retry."
        )
    if any(
        s in text
        for s in (
            "Permission denied",
            "Read-only file system",
            "read-only",
            "Operation not permitted",
        )
    ):
        return read_only_error(store, _detail(text))
    return HindsightError(
        f"The ledger {path} failed: {_detail(text)}. Nothing was written; run "
        "`hindsight doctor store` to check it."
    )


def read_only_error(store: Path, detail: str) -> HindsightError:
    return HindsightError(
        f"The store {store} is read-only for this user ({detail}); nothing was written. "
        "Fix its permissions, or pass --store with a writable directory."
    )


def _detail(text: str) -> str:
    return " ".join(text.split())[:200]


def _is_lock_error(error: Exception) -> bool:
    text = str(error)
    return "lock" in text.lower() and ("Conflicting" in text or "Could not set lock" in text)


class DuckDBSession(SqlSession):
    """The shared session plus DuckDB's vector search, BM25 statement and Arrow bulk insert."""

    # Arrow tables are registered on it
    conn: DuckDBPyConnection

    def nearest(
        self, vector: Sequence[float], where: Sequence[Condition], limit: int
    ) -> list[tuple[str, float]]:
        """Exact cosine top-``limit`` among rows matching ``where`` (flat scan; ~35 ms at 10k
        rows)."""
        sql, params = render(where, self.dialect)
        dim = integer(len(vector))
        query = list(map(float, vector))
        # each memory by its best window: its own vector, or a long memory's further chunks'
        rows = self.conn.execute(
            f"""WITH v AS (SELECT m.id, array_cosine_similarity(m.embedding, ?::FLOAT[{dim}]) AS s FROM memories m
                           WHERE m.embedding IS NOT NULL AND {sql}
                           UNION ALL
                           SELECT c.id, array_cosine_similarity(c.embedding, ?::FLOAT[{dim}]) FROM chunks c
                           JOIN memories m ON m.id = c.id WHERE {sql})
                SELECT id, max(s) AS s FROM v GROUP BY id ORDER BY s DESC, id LIMIT ?""",
            [query, *params, query, *params, int(limit)],
        ).fetchall()
        return [(r[0], float(r[1])) for r in rows]

    def keyword(
        self,
        terms: Sequence[str],
        where: Sequence[Condition],
        limit: int,
        k1: float,
        b: float,
        agents: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """BM25 over the ``terms`` postings, with the statistics of the rows matching ``where``."""
        unique = sorted(set(terms))
        if not unique:
            return []
        sql, params = render(where, self.dialect)
        marks = ", ".join("?" for _ in unique)
        statement = f"""
            WITH stats AS (SELECT count(*) AS n, greatest(avg(m.doc_len), 1) AS avgdl FROM memories m WHERE {sql}),
                 hits AS (SELECT t.id, t.term, t.tf, m.doc_len FROM terms t JOIN memories m ON m.id = t.id
                          WHERE t.term IN ({marks}) AND {sql}),
                 df AS (SELECT term, count(*) AS df FROM hits GROUP BY term),
                 k AS (SELECT ?::DOUBLE AS k1, ?::DOUBLE AS b)
            SELECT h.id, sum(ln(1 + (s.n - df.df + 0.5) / (df.df + 0.5))
                       * h.tf * (k.k1 + 1) / (h.tf + k.k1 * (1 - k.b + k.b * h.doc_len / s.avgdl))) AS score
            FROM hits h JOIN df USING (term), stats s, k
            GROUP BY h.id ORDER BY score DESC, h.id LIMIT ?"""
        rows = self.conn.execute(
            statement, [*params, *unique, *params, k1, b, int(limit)]
        ).fetchall()
        return [(r[0], float(r[1])) for r in rows]

    def insert_many(self, items: Sequence[tuple[MemoryRow, dict[str, int]]]) -> None:
        """Bulk insert through Arrow (thousands of rows per second; row-by-row INSERT manages
        hundreds)."""
        if not items:
            return
        import numpy as np
        import pyarrow as pa

        text, i32 = pa.string(), pa.int32()
        values = [codec.sql_values(row) for row, _ in items]
        columns: dict[str, object] = {c: [v[i] for v in values] for i, c in enumerate(COLUMNS)}
        columns["doc_len"] = [sum(t.values()) for _, t in items]
        size = len(items[0][0].vector())
        # one float32 matrix, not a Python float per element: a third of the time at 2,000 rows
        matrix = np.asarray([row.embedding for row, _ in items], dtype=np.float32).reshape(-1)
        columns["embedding"] = pa.FixedSizeListArray.from_arrays(pa.array(matrix), size)
        table_schema = pa.schema(
            [(c, arrow_type(c)) for c in COLUMNS]
            + [("doc_len", i32), ("embedding", pa.list_(pa.float32(), size))]
        )
        incoming = pa.Table.from_pydict(columns, schema=table_schema)
        postings = pa.Table.from_pydict(
            {
                "id": [row.id for row, t in items for _ in t],
                "term": [term for _, t in items for term in t],
                "tf": [n for _, t in items for n in t.values()],
            },
            schema=pa.schema([("id", text), ("term", text), ("tf", i32)]),
        )
        names = ", ".join(COLUMNS)
        duckdb_instance.python_layer()
        self.conn.register("hindsight_incoming", incoming)
        self.conn.register("hindsight_postings", postings)
        try:
            self.conn.execute(
                f"INSERT INTO memories ({names}, seq, doc_len, embedding) SELECT {names}, "
                f"nextval('change_seq'), "
                f"doc_len, embedding::FLOAT[{integer(size)}] FROM hindsight_incoming"
            )
            self.conn.execute("INSERT INTO terms SELECT id, term, tf FROM hindsight_postings")
        finally:
            self.conn.unregister("hindsight_incoming")
            self.conn.unregister("hindsight_postings")
        for row, _ in items:
            self._chunks(row)

    def set_model(self, model: str, dim: int) -> None:
        """Switch the recorded model; recreates the embedding column for the new dimension."""
        self.conn.execute("UPDATE meta SET value = ? WHERE key = 'embedding_model'", [model])
        self.conn.execute("UPDATE meta SET value = ? WHERE key = 'embedding_dim'", [str(dim)])
        # DuckDB cannot alter a table that has an index
        self.conn.execute("DROP INDEX IF EXISTS memories_key")
        self.conn.execute("DROP INDEX IF EXISTS memories_agent_key")
        self.conn.execute("ALTER TABLE memories DROP COLUMN embedding")
        self.conn.execute(f"ALTER TABLE memories ADD COLUMN embedding FLOAT[{integer(dim)}]")
        self.conn.execute("CREATE INDEX memories_key ON memories (idempotency_key)")
        self.conn.execute(
            "CREATE UNIQUE INDEX memories_agent_key ON memories (agent_id, idempotency_key)"
        )
        self.conn.execute("DROP TABLE IF EXISTS chunks")
        for statement in chunks_schema(dim):
            self.conn.execute(statement)


# the change marker holds "<ns> <pid>": a token is never longer
_MARKER_BYTES = 256


class DuckDBLedger:
    """The ledger of a local store: ``ledger.duckdb`` in the store directory."""

    capabilities = CAPABILITIES

    def __init__(self, path: Path, lock_timeout: float = 10.0) -> None:
        self.path = path
        self.lock_timeout = lock_timeout
        # schema checked (and migrated) by this process
        self._current = False
        # a read-only connection every read uses meanwhile (``held``)
        self._held: DuckDBPyConnection | None = None

    @property
    def exists(self) -> bool:
        return self.path.exists()

    def describe(self) -> str:
        return str(self.path)

    def size_bytes(self) -> int:
        return sum(
            p.stat().st_size
            for p in (self.path, self.path.with_name(self.path.name + ".wal"))
            if p.is_file()
        )

    def probe(self) -> dict[str, str | None]:
        import duckdb

        return {"engine": f"DuckDB {duckdb.__version__}"}

    # --- sessions
    # -----------------------------------------------------------------------------------

    @contextmanager
    def _connect(self, read_only: bool) -> Iterator[DuckDBPyConnection]:
        duckdb = duckdb_instance.engine()
        with self._locks(exclusive=not read_only):
            conn = self._open(read_only)
            try:
                if not self._current:
                    conn = self._upgrade(conn, read_only)
                yield conn
            except duckdb.Error as error:
                raise storage_error(self.path, error) from None
            finally:
                self._close(conn)

    @contextmanager
    def read(self) -> Iterator[DuckDBSession]:
        if self._held is not None:
            yield DuckDBSession(self._held, DIALECT)
            return
        with self._connect(read_only=True) as conn:
            yield DuckDBSession(conn, DIALECT)

    @contextmanager
    def write(self) -> Iterator[DuckDBSession]:
        if self._held is not None:
            raise RuntimeError("the ledger is held for reads only")
        with self._connect(read_only=False) as conn:
            conn.execute("BEGIN TRANSACTION")
            try:
                yield DuckDBSession(conn, DIALECT)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        self.mark_changed()

    @contextmanager
    def held(self) -> Iterator[None]:
        """Serve every read from one read-only connection held open meanwhile (an evaluation's
        thousand searches on a store of its own); writes are refused until it is released."""
        with self._connect(read_only=True) as conn:
            self._held = conn
            try:
                yield
            finally:
                self._held = None

    def _open(self, read_only: bool) -> DuckDBPyConnection:
        """Connect, retrying with backoff while another process holds DuckDB's lock on the file."""
        duckdb = duckdb_instance.engine()
        deadline = time.monotonic() + self.lock_timeout
        delay = 0.01
        while True:
            try:
                return duckdb_instance.connect(self.path, read_only)
            except (duckdb.IOException, duckdb_instance.AttachedReadOnly) as error:
                # this process's readers hold the file as another process's lock would
                held = isinstance(error, duckdb_instance.AttachedReadOnly)
                if not held and not _is_lock_error(error):
                    raise storage_error(self.path, error) from None
                if time.monotonic() >= deadline:
                    raise self._busy() from None
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.25)

    def _close(self, conn: DuckDBPyConnection) -> None:
        """Give back a connection from ``_open`` (the last one on the file detaches it)."""
        duckdb_instance.close(conn, self.path)

    def _busy(self) -> StoreBusy:
        return StoreBusy(
            f"The store {self.path.parent} stayed locked by another process for "
            f"{self.lock_timeout:g} s; "
            "retry, or raise HINDSIGHT_LOCK_TIMEOUT."
        )

    def _locks(self, exclusive: bool) -> AbstractContextManager[None]:
        """Readers share ``ledger.duckdb.lock``; writers (and ``scrub``, which replaces the file)
        hold it alone, queueing on ``ledger.duckdb.queue`` (``locks.ordered``)."""
        return locks.ordered(
            self.lock_path,
            self.queue_path,
            exclusive,
            self.lock_timeout,
            self._busy,
            lambda: read_only_error(self.path.parent, f"cannot open {self.lock_path.name}"),
        )

    @property
    def queue_path(self) -> Path:
        return self.path.with_name(self.path.name + ".queue")

    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    def _upgrade(self, conn: DuckDBPyConnection, read_only: bool) -> DuckDBPyConnection:
        """Bring an older store's schema up to date, once per process (safe when two start at once:
        the migration runs on a read-write connection, which DuckDB grants to one process at a
        time)."""
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        except duckdb_instance.engine().CatalogException:
            row = None
        if row is None or row[0] is None:
            # a store being created
            return conn
        version = int(row[0])
        if version > SCHEMA_VERSION:
            raise HindsightError(
                f"The store {self.path.parent} was written by a newer hindsight (schema "
                f"{version}, this one "
                f"knows {SCHEMA_VERSION}); upgrade hindsight: pip install -U hindsight-cli."
            )
        if version < SCHEMA_VERSION:
            if read_only:
                self._close(conn)
                writer = self._open(False)
                try:
                    migrate(writer)
                finally:
                    self._close(writer)
                self.mark_changed()
                conn = self._open(True)
            else:
                migrate(conn)
        self._current = True
        return conn

    # --- the change marker
    # --------------------------------------------------------------------------

    @property
    def marker(self) -> Path:
        return self.path.with_name(self.path.name + ".changed")

    def mark_changed(self) -> None:
        """Tell long-running readers, without them opening DuckDB, that the ledger changed. Called
        after a commit, so a failure here (disk full) must not report the write as failed: a reader
        that misses the marker catches up at its next change token or sync."""
        try:
            safefs.write_private(self.marker, f"{time.time_ns()} {os.getpid()}")
        except OSError as error:
            log.warning("could not update %s: %s", self.marker, error)

    def change_token(self) -> str:
        # read with two system calls: every search of a long-lived process asks (Path.read_text's
        # text layer cost more than the rest of a warm search's checks together)
        try:
            fd = os.open(self._marker_name, os.O_RDONLY)
        except FileNotFoundError:
            return ""
        try:
            return os.read(fd, _MARKER_BYTES).decode("utf-8", "replace")
        finally:
            os.close(fd)

    @once
    def _marker_name(self) -> str:
        return os.fspath(self.marker)

    # --- schema and rewrite
    # -------------------------------------------------------------------------

    def create(self, model: str, dim: int, key: str | None = None) -> None:
        """Create the schema (idempotent) and record the embedding model and dimension, and the
        ledger's key (``key``, else a new one)."""
        from .duckdb_rewrite import create

        create(self, model, dim, key)

    def scrub(self) -> bool:
        """Rewrite the ledger into a new file that holds only live data, then swap it in (see
        ``duckdb_rewrite.scrub``). Returns False where there is no lock file to hold (Windows)."""
        from .duckdb_rewrite import scrub

        return scrub(self)
