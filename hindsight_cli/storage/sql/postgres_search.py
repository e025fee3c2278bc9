"""The Postgres session: the shared SQL plus HNSW vector search, BM25 by MaxScore and bulk COPY."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING

from ...errors import HindsightError
from ..base import Condition
from ..rows import COLUMNS, JSON_COLUMNS, MemoryRow
from .common import Dialect, Params, Row, SqlSession, integer, render
from .postgres_schema import chunks_table

if TYPE_CHECKING:
    from psycopg import Connection, Cursor
    from psycopg.rows import TupleRow

    from ..rows import Vector

DIALECT = Dialect(
    has="? = ANY({name})",
    overlaps="{name} && ?::text[]",
    among="{name} = ANY(?::text[])",
    vector="?::vector",
    audit_order="seq",
    embedding="m.embedding::real[] AS embedding",
    chunk_embedding="c.embedding::real[]",
)
# pgvector's largest hnsw.ef_search
EF_MAX = 1000


def psycopg() -> ModuleType:
    try:
        import psycopg as driver
        import psycopg.sql  # noqa: F401  (Identifier, for the schema name)
    except ImportError:
        raise HindsightError(
            "The postgres backend needs psycopg: pip install 'hindsight-cli[postgres]'."
        ) from None
    return driver


def ef_search(limit: int) -> int:
    """HNSW's candidate list for a top-``limit`` query: twice the rows asked for, at least 100 (at
    100k memories, top-10 recall against exact search measured 0.84 at pgvector's default of 40)."""
    return min(EF_MAX, max(100, 2 * int(limit)))


def vector_text(vector: Iterable[float]) -> str:
    return "[" + ",".join(repr(float(x)) for x in vector) + "]"


class PsycopgConnection:
    """A psycopg connection that takes the sessions' ``?`` placeholders (all values stay
    parameters)."""

    def __init__(self, raw: Connection[TupleRow]) -> None:
        self.raw = raw

    @staticmethod
    def _sql(sql: str) -> str:
        return sql.replace("%", "%%").replace("?", "%s")

    def execute(self, sql: str, params: Params | None = None) -> Cursor[TupleRow]:
        return self.raw.execute(self._sql(sql), list(params) if params is not None else [])

    def executemany(self, sql: str, rows: Sequence[Params]) -> None:
        with self.raw.cursor() as cursor:
            cursor.executemany(self._sql(sql), rows)


class PostgresSession(SqlSession):
    """One connection (or transaction) of the Postgres ledger; ``facts`` is the ledger's cache of
    what the server is (its pgvector version), asked once per ledger."""

    conn: PsycopgConnection

    def __init__(
        self, conn: PsycopgConnection, dialect: Dialect, facts: dict[str, tuple[int, ...]]
    ) -> None:
        super().__init__(conn, dialect)
        self.facts = facts

    def _vector(self, vector: Vector | None) -> str | None:
        return None if vector is None else vector_text(vector)

    def _pgvector(self) -> tuple[int, ...]:
        if "pgvector" not in self.facts:
            row = self.conn.execute(
                "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
            ).fetchone()
            self.facts["pgvector"] = tuple(
                int(part) for part in re.findall(r"\d+", row[0] if row else "0")
            )
        version: tuple[int, ...] = self.facts["pgvector"]
        return version

    def nearest(
        self, vector: Sequence[float], where: Sequence[Condition], limit: int
    ) -> list[tuple[str, float]]:
        """Cosine top-``limit`` through the HNSW index.

        HNSW filters after its search, so a scope (one agent of several) can leave it short of
        ``limit`` rows. pgvector 0.8 and later then keep scanning the graph
        (``hnsw.iterative_scan``); older ones get a second pass with a candidate list widened by the
        share of rows the filters kept. When the index still comes back short, the filters leave few
        rows, and those are searched exactly."""
        sql, params = render(where, self.dialect)
        query = vector_text(vector)
        ef = ef_search(limit)
        iterative = self._pgvector() >= (0, 8)
        rows: list[Row] = []
        while True:
            with self.conn.raw.transaction():
                self.conn.execute("SELECT set_config('hnsw.ef_search', ?, true)", [str(ef)])
                if iterative:
                    self.conn.execute(
                        "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)"
                    )
                rows = self.conn.execute(
                    f"SELECT m.id, 1 - (m.embedding <=> ?::vector) FROM memories m WHERE "
                    f"m.embedding IS NOT NULL "
                    f"AND {sql} ORDER BY m.embedding <=> ?::vector LIMIT ?",
                    [query, *params, query, int(limit)],
                ).fetchall()
            wider = min(EF_MAX, math.ceil(ef * 1.5 * limit / max(len(rows), 1)))
            if len(rows) >= limit or iterative or wider <= ef:
                break
            ef = wider
        if len(rows) < limit:
            rows = self.exact_nearest(query, sql, params, limit)
        best = {r[0]: float(r[1]) for r in rows}
        # a long memory's further windows (few rows: no index)
        for memory_id, cosine in self.conn.execute(
            f"SELECT c.id, max(1 - (c.embedding <=> ?::vector)) AS s FROM chunks c JOIN memories "
            f"m ON m.id = c.id "
            f"WHERE {sql} GROUP BY c.id ORDER BY s DESC, c.id LIMIT ?",
            [query, *params, int(limit)],
        ).fetchall():
            best[memory_id] = max(best.get(memory_id, -1.0), float(cosine))
        return sorted(best.items(), key=lambda pair: (-pair[1], pair[0]))[:limit]

    def exact_nearest(self, query: str, sql: str, params: list[object], limit: int) -> list[Row]:
        """Exact cosine top-``limit`` (a sequential scan: the ``+ 0`` keeps the planner off the HNSW
        index)."""
        rows = self.conn.execute(
            f"SELECT m.id, 1 - (m.embedding <=> ?::vector) AS s FROM memories m WHERE "
            f"m.embedding IS NOT NULL "
            f"AND {sql} ORDER BY (m.embedding <=> ?::vector) + 0, m.id LIMIT ?",
            [query, *params, query, int(limit)],
        ).fetchall()
        return rows

    def keyword(
        self,
        terms: Sequence[str],
        where: Sequence[Condition],
        limit: int,
        k1: float,
        b: float,
        agents: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """BM25 top-``limit`` among rows matching ``where``, exact, without reading every posting of
        the query's common words (``postgres_maxscore``)."""
        from .postgres_maxscore import maxscore

        unique = sorted(set(terms))
        if not unique:
            return []
        sql, params = render(where, self.dialect)
        return maxscore(self.conn, unique, sql, params, limit, k1, b, agents)

    def insert_many(self, items: Sequence[tuple[MemoryRow, dict[str, int]]]) -> None:
        """Bulk insert with COPY (tens of thousands of rows per second)."""
        if not items:
            return
        seqs = [
            r[0]
            for r in self.conn.execute(
                "SELECT nextval('change_seq') FROM generate_series(1, ?)", [len(items)]
            ).fetchall()
        ]
        names = ", ".join(COLUMNS)
        raw = self.conn.raw
        with raw.cursor() as cursor:
            with cursor.copy(
                f"COPY memories ({names}, seq, doc_len, embedding) FROM STDIN"
            ) as copy:
                for (row, terms), seq in zip(items, seqs):
                    values = [
                        json.dumps(getattr(row, c), ensure_ascii=False)
                        if c in JSON_COLUMNS
                        else getattr(row, c)
                        for c in COLUMNS
                    ]
                    copy.write_row([*values, seq, sum(terms.values()), vector_text(row.vector())])
                    row.seq = seq
            with cursor.copy("COPY terms (id, term, tf) FROM STDIN") as copy:
                for row, terms in items:
                    for term, count in terms.items():
                        copy.write_row((row.id, term, count))
            with cursor.copy("COPY chunks (id, part, embedding) FROM STDIN") as copy:
                for row, _ in items:
                    for part, vector in enumerate(row.chunks or [], 1):
                        copy.write_row((row.id, part, vector_text(vector)))

    def set_model(self, model: str, dim: int) -> None:
        self.conn.execute("UPDATE meta SET value = ? WHERE key = 'embedding_model'", [model])
        self.conn.execute("UPDATE meta SET value = ? WHERE key = 'embedding_dim'", [str(dim)])
        self.conn.execute("ALTER TABLE memories DROP COLUMN embedding")
        self.conn.execute(f"ALTER TABLE memories ADD COLUMN embedding vector({integer(dim)})")
        self.conn.execute(
            "CREATE INDEX memories_embedding ON memories USING hnsw (embedding vector_cosine_ops)"
        )
        self.conn.execute("DROP TABLE IF EXISTS chunks")
        for statement in chunks_table(dim):
            self.conn.execute(statement)
