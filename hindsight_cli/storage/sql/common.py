"""The SQL both ledgers share: conditions rendered with bound parameters, and a session that
implements the storage contract's reads and writes over a connection that takes ``?`` placeholders.

Values are always parameters. The only text put into a statement besides fixed SQL is a column name
from ``rows.COLUMNS`` and, where an engine cannot bind one (a vector type's size), a number that
``integer`` has checked; ``tests/test_sql_safety.py`` greps for anything else.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from .. import codec
from ..base import LEDGER_KEY, SORTS, AuditRow, Condition, Counts, Order
from ..rows import COLUMNS, FILTER_COLUMNS, MemoryRow

if TYPE_CHECKING:
    from ..rows import Vector

_ORDERS: dict[str, str] = {
    "newest": "m.created_at DESC, m.id DESC",
    "oldest": "m.created_at ASC, m.id ASC",
    "event": "m.event_at ASC, m.id ASC",
    "seq": "m.seq",
    "id": "m.id",
}
# filterable beyond the index's columns
# ``content_hash``: every version of a text at once (``reading.version_chains``), never a search's
# ids a read lists as values (each found by the primary key); more are one list parameter
_LISTED_IDS = 256
_EXTRA = frozenset(
    {"id", "trigger", "created_at", "source", "step", "content_hash", "idempotency_key"}
)
_NAMES = ", ".join(COLUMNS)
_SHOWN = ", ".join(f"m.{c}" for c in COLUMNS)
_INSERT = (
    f"INSERT INTO memories ({_NAMES}, seq, doc_len, embedding) VALUES "
    f"({', '.join('?' for _ in COLUMNS)}, ?, ?, "
)


# A result row: its values are of the types of the statement's columns.
Row: TypeAlias = tuple[Any, ...]
# A statement's values, every one a bound parameter.
Params: TypeAlias = Sequence[object]


class Cursor(Protocol):
    """A statement's results, as DB-API hands them out."""

    def fetchall(self) -> list[Row]: ...
    def fetchone(self) -> Row | None: ...


class Connection(Protocol):
    """What the sessions need of a connection (DuckDB's, or psycopg's behind the Postgres ledger's
    wrapper): ``?`` placeholders, DB-API results."""

    def execute(self, sql: str, params: Params = ..., /) -> Cursor: ...
    def executemany(self, sql: str, rows: Sequence[Params], /) -> object: ...


def one(cursor: Cursor) -> Row:
    """The row of a statement that always returns one (an aggregate, a key every ledger holds)."""
    row = cursor.fetchone()
    if row is None:
        raise LookupError("the statement returned no row")
    return row


def integer(value: int) -> str:
    """A whole number as SQL text, for the few places an engine cannot bind one (a vector's
    size)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"not a whole number: {value!r}")
    return str(int(value))


@dataclass(frozen=True)
class Dialect:
    """How an engine writes the few things the SQL standard leaves open."""

    # a list column holds one value
    has: str
    # a list column shares a value with a list parameter
    overlaps: str
    # a column's value is one of a list parameter's (a join, not a value compared per row)
    among: str
    # an embedding parameter
    vector: str
    # insertion order of the audit log
    audit_order: str
    # the embedding column as selected
    embedding: str
    # a chunk's embedding column as selected
    chunk_embedding: str


def render(conditions: Sequence[Condition], dialect: Dialect) -> tuple[str, list[object]]:
    """SQL for ``conditions`` over ``memories m``, every value a bound parameter."""
    clauses: list[str] = []
    params: list[object] = []
    for column, op, value in conditions:
        if column not in FILTER_COLUMNS and column not in _EXTRA:
            raise ValueError(f"cannot filter on {column!r}")
        name = f"m.{column}"
        if op == "in":
            clauses.append(f"{name} IN ({', '.join('?' for _ in value)})" if value else "FALSE")
            params.extend(value)
            continue
        if op == "has":
            clauses.append(dialect.has.format(name=name))
        elif op == "expired":
            clauses.append(f"({name} IS NOT NULL AND {name} <= ?)")
        elif op == "unexpired":
            clauses.append(f"({name} IS NULL OR {name} > ?)")
        elif op == "is":
            clauses.append(f"{name} IS NOT DISTINCT FROM ?")
        elif op == "null_or_eq":
            if value is None:
                continue
            clauses.append(f"({name} IS NULL OR {name} = ?)")
        elif op in ("=", ">=", "<=", "<"):
            clauses.append(f"{name} {op} ?")
        else:
            raise ValueError(f"unknown operator {op!r}")
        params.append(value)
    return (" AND ".join(clauses) or "TRUE"), params


class SqlSession:
    """The storage contract's ``Reader`` and ``Writer`` over one SQL connection."""

    def __init__(self, conn: Connection, dialect: Dialect) -> None:
        self.conn = conn
        self.dialect = dialect

    def _vector(self, vector: Vector | None) -> object:
        return None if vector is None else list(map(float, vector))

    # --- reads
    # --------------------------------------------------------------------------------------

    def meta(self) -> dict[str, str]:
        return dict(self.conn.execute("SELECT key, value FROM meta").fetchall())

    def _select(
        self,
        where: str,
        params: list[object],
        order: Order | None,
        limit: int | None,
        vectors: bool,
    ) -> list[MemoryRow]:
        """The rows ``where`` selects, in ``order`` (None: where at most one row can match, as a
        unique index decides: an ORDER BY there made DuckDB scan and sort, 5 ms a lookup at 2,000
        memories against 0.9)."""
        columns = [*COLUMNS, "embedding", "seq"] if vectors else list(COLUMNS)
        shown = ", ".join(self.dialect.embedding if c == "embedding" else f"m.{c}" for c in columns)
        sql = f"SELECT {shown} FROM memories m WHERE {where}"
        if order is not None:
            sql += f" ORDER BY {_ORDERS[order]}"
        query = [*params, int(limit)] if limit is not None else params
        if limit is not None:
            sql += " LIMIT ?"
        rows = [
            codec.from_sql(columns, values) for values in self.conn.execute(sql, query).fetchall()
        ]
        if vectors and rows:
            self._load_chunks(
                rows,
                *(
                    (where, params)
                    if limit is None
                    else (f"m.id IN ({', '.join('?' for _ in rows)})", [r.id for r in rows])
                ),
            )
        return rows

    def _load_chunks(self, rows: list[MemoryRow], where: str, params: list[object]) -> None:
        """The further chunks' vectors of the long memories among ``rows`` (those ``where``
        selects)."""
        found: dict[str, list[list[float]]] = {}
        for memory_id, vector in self.conn.execute(
            f"SELECT c.id, {self.dialect.chunk_embedding} FROM chunks c WHERE c.id IN "
            f"(SELECT m.id FROM memories m WHERE {where}) ORDER BY c.id, c.part",
            params,
        ).fetchall():
            found.setdefault(memory_id, []).append(list(vector))
        for row in rows:
            row.chunks = found.get(row.id)

    def select(
        self,
        where: Sequence[Condition],
        *,
        order: Order = "newest",
        limit: int | None = None,
        vectors: bool = False,
    ) -> list[MemoryRow]:
        sql, params = render(where, self.dialect)
        return self._select(sql, params, order, limit, vectors)

    def page(
        self, where: Sequence[Condition], sort: str, descending: bool, limit: int, offset: int
    ) -> list[MemoryRow]:
        """One page of rows in ``sort`` order (a column of ``SORTS``; ties by id, so pages never
        overlap)."""
        if sort not in SORTS:
            raise ValueError(f"cannot sort by {sort!r}")
        sql, params = render(where, self.dialect)
        way = "DESC" if descending else "ASC"
        statement = (
            f"SELECT {_SHOWN} FROM memories m WHERE {sql} "
            f"ORDER BY m.{sort} {way} NULLS LAST, m.id {way} LIMIT ? OFFSET ?"
        )
        rows = self.conn.execute(statement, [*params, int(limit), int(offset)]).fetchall()
        return [codec.from_sql(list(COLUMNS), values) for values in rows]

    def per_day(self, where: Sequence[Condition]) -> list[tuple[str, int]]:
        """How many rows happened (``event_at``) each day (UTC), oldest day first; days without any
        are left out."""
        sql, params = render(where, self.dialect)
        rows = self.conn.execute(
            f"SELECT CAST(CAST(m.event_at AS DATE) AS VARCHAR), count(*) FROM memories m "
            f"WHERE {sql} GROUP BY 1 ORDER BY 1",
            params,
        ).fetchall()
        return [(str(day), int(n)) for day, n in rows]

    def ids(self, where: Sequence[Condition]) -> list[str]:
        sql, params = render(where, self.dialect)
        return [
            r[0]
            for r in self.conn.execute(
                f"SELECT m.id FROM memories m WHERE {sql} ORDER BY m.seq", params
            ).fetchall()
        ]

    def links(
        self, where: Sequence[Condition]
    ) -> list[tuple[str, str, str, str | None, str | None]]:
        """(id, content_hash, agent_id, supersedes, superseded_by) of the rows ``where`` selects
        that are linked to another (a version of a chain): five short columns, not a row's whole
        text and metadata, and never a memory no supersede names (``reading.version_chains``)."""
        sql, params = render(where, self.dialect)
        return [
            (r[0], r[1], r[2], r[3], r[4])
            for r in self.conn.execute(
                "SELECT m.id, m.content_hash, m.agent_id, m.supersedes, m.superseded_by "
                "FROM memories m "
                f"WHERE {sql} AND (m.supersedes IS NOT NULL OR m.superseded_by IS NOT NULL)",
                params,
            ).fetchall()
        ]

    def count(self, where: Sequence[Condition]) -> int:
        sql, params = render(where, self.dialect)
        return int(
            one(self.conn.execute(f"SELECT count(*) FROM memories m WHERE {sql}", params))[0]
        )

    def by_ids(self, ids: Sequence[str], vectors: bool = False) -> list[MemoryRow]:
        if not ids:
            return []
        if len(ids) > _LISTED_IDS:
            # a list of values as long as a chain of versions (``reading.version_chains``) took
            # DuckDB 33 µs a value; one list parameter is a join (20,000 ids: 0.66 s → 0.04 s)
            where = self.dialect.among.format(name="m.id")
            return self._select(where, [list(ids)], "newest", None, vectors)
        return self._select(
            f"m.id IN ({', '.join('?' for _ in ids)})", list(ids), "newest", None, vectors
        )

    def by_key(self, key: str, agent_id: str) -> MemoryRow | None:
        """The memory of ``agent_id`` written with this idempotency key: keys are unique per agent,
        so another agent's key is never found (nor returned, updated or revealed)."""
        # one row at most: the unique index on (agent_id, idempotency_key)
        rows = self._select(
            "m.agent_id = ? AND m.idempotency_key = ?", [agent_id, key], None, None, False
        )
        return rows[0] if rows else None

    def by_prefix(self, prefix: str, limit: int = 3, where: Sequence[Condition] = ()) -> list[str]:
        """Ids starting with ``prefix`` among the rows ``where`` selects (a caller's scope: another
        agent's ids must neither crowd the caller's out of ``limit`` nor be counted)."""
        sql, params = render(where, self.dialect)
        return [
            r[0]
            for r in self.conn.execute(
                f"SELECT m.id FROM memories m WHERE starts_with(m.id, ?) AND {sql} "
                "ORDER BY m.id LIMIT ?",
                [prefix, *params, int(limit)],
            ).fetchall()
        ]

    def by_suffix(self, suffix: str, limit: int = 3, where: Sequence[Condition] = ()) -> list[str]:
        """Ids ending with ``suffix`` (the random tail of a UUIDv7, the short form tables show)
        among the rows ``where`` selects."""
        sql, params = render(where, self.dialect)
        return [
            r[0]
            for r in self.conn.execute(
                f"SELECT m.id FROM memories m WHERE right(m.id, ?) = ? AND {sql} "
                "ORDER BY m.id LIMIT ?",
                [len(suffix), suffix, *params, int(limit)],
            ).fetchall()
        ]

    def identities(self) -> set[tuple[str, str, str]]:
        return {
            (r[0], r[1], r[2])
            for r in self.conn.execute(
                "SELECT id, agent_id, idempotency_key FROM memories"
            ).fetchall()
        }

    def present(self, ids: Sequence[str], keys: Sequence[str]) -> set[tuple[str, str, str]]:
        """The identities (id, agent, key) of rows that hold one of ``ids`` or ``keys`` (a key of
        any agent: the caller compares agent and key together)."""
        if not ids and not keys:
            return set()

        def marks(values: Sequence[str]) -> str:
            return ", ".join("?" for _ in values) or "NULL"

        return {
            (r[0], r[1], r[2])
            for r in self.conn.execute(
                f"SELECT id, agent_id, idempotency_key FROM memories WHERE id IN ({marks(ids)}) "
                f"OR idempotency_key IN ({marks(keys)})",
                [*ids, *keys],
            ).fetchall()
        }

    def nearest(
        self, vector: Sequence[float], where: Sequence[Condition], limit: int
    ) -> list[tuple[str, float]]:
        raise NotImplementedError

    def keyword(
        self,
        terms: Sequence[str],
        where: Sequence[Condition],
        limit: int,
        k1: float,
        b: float,
        agents: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        raise NotImplementedError

    def derived_from(self, ids: Sequence[str], *, transitive: bool = True) -> list[str]:
        """Every memory built from ``ids`` (summaries, parts, patterns), transitively, or only
        those built on them directly; each level oldest first. A memory is built on its own
        agent's only (a summary, a pattern, a text's parts are one agent's): a link an import file
        wrote to another agent's memory is not followed, so one agent's forget never takes, nor
        its restore brings back, another's (review BK)."""
        found: list[str] = []
        agents = dict(self._agents(ids))
        frontier, seen = list(ids), set(ids)
        while frontier:
            rows = self.conn.execute(
                f"SELECT id, agent_id, source_ids FROM memories "
                f"WHERE {self.dialect.overlaps.format(name='source_ids')} ORDER BY created_at, id",
                [frontier],
            ).fetchall()
            level = set(frontier)
            frontier = [
                memory_id
                for memory_id, agent, sources in rows
                if memory_id not in seen
                # a source gone took what was built on it in its own transaction
                and any(s in level and agents.get(s) == agent for s in sources)
            ]
            agents.update((r[0], r[1]) for r in rows)
            seen.update(frontier)
            found.extend(frontier)
            if not transitive:
                break
        return found

    def _agents(self, ids: Sequence[str]) -> list[tuple[str, str]]:
        """(id, agent) of the memories with these ids."""
        if not ids:
            return []
        return [
            (r[0], r[1])
            for r in self.conn.execute(
                "SELECT m.id, m.agent_id FROM memories m WHERE "
                + self.dialect.among.format(name="m.id"),
                [list(ids)],
            ).fetchall()
        ]

    def audit_log(
        self,
        *,
        limit: int | None,
        action: str | None,
        memory_id: str | None,
        since: datetime | None,
        actor: str | None = None,
    ) -> list[AuditRow]:
        clauses: list[str] = ["TRUE"]
        params: list[object] = []
        for clause, value in (
            ("action = ?", action),
            ('"at" >= ?', since),
            (self.dialect.has.format(name="ids"), memory_id),
            ("actor = ?", actor),
        ):
            if value:
                clauses.append(clause)
                params.append(value)
        sql = (
            f'SELECT "at", action, ids, reason, actor FROM audit WHERE {" AND ".join(clauses)} '
            f'ORDER BY "at" DESC, {self.dialect.audit_order} DESC'
        )
        if limit:
            sql += " LIMIT ?"
            params.append(int(limit))
        return [
            (r[0], r[1], list(r[2]), r[3], r[4]) for r in self.conn.execute(sql, params).fetchall()
        ]

    def max_seq(self) -> int:
        return int(one(self.conn.execute("SELECT coalesce(max(seq), 0) FROM memories"))[0])

    def changed_since(self, seq: int) -> list[MemoryRow]:
        return self._select("m.seq > ?", [seq], "seq", None, True)

    def vectors_held(self) -> int:
        return int(
            one(self.conn.execute("SELECT count(*) FROM memories WHERE embedding IS NOT NULL"))[0]
        )

    def counts(self) -> Counts:
        def grouped(column: str) -> dict[str, int]:
            rows = self.conn.execute(
                f"SELECT {column}, count(*) FROM memories GROUP BY 1 ORDER BY 2 DESC, 1"
            ).fetchall()
            return {str(k): int(v) for k, v in rows}

        total = one(
            self.conn.execute("SELECT count(*), min(created_at), max(created_at) FROM memories")
        )
        return {
            "memories": int(total[0]),
            "oldest": total[1],
            "newest": total[2],
            "by_status": grouped("status"),
            "by_type": grouped("type"),
            "by_source": grouped("source"),
            "by_agent": grouped("agent_id"),
            "by_outcome": grouped("outcome"),
            "audit_entries": int(one(self.conn.execute("SELECT count(*) FROM audit"))[0]),
        }

    # --- writes
    # -------------------------------------------------------------------------------------

    def _next_seq(self) -> int:
        return int(one(self.conn.execute("SELECT nextval('change_seq')"))[0])

    def _postings(self, memory_id: str, terms: dict[str, int]) -> None:
        if terms:
            self.conn.executemany(
                "INSERT INTO terms VALUES (?, ?, ?)", [[memory_id, t, n] for t, n in terms.items()]
            )

    def _chunks(self, row: MemoryRow, replace: bool = False) -> None:
        if replace:
            self.conn.execute("DELETE FROM chunks WHERE id = ?", [row.id])
        if row.chunks:
            self.conn.executemany(
                f"INSERT INTO chunks (id, part, embedding) VALUES (?, ?, {self.dialect.vector})",
                [[row.id, part, self._vector(v)] for part, v in enumerate(row.chunks, 1)],
            )

    def insert(self, row: MemoryRow, terms: dict[str, int]) -> None:
        row.seq = self._next_seq()
        self.conn.execute(
            _INSERT + f"{self.dialect.vector})",
            [*codec.sql_values(row), row.seq, sum(terms.values()), self._vector(row.embedding)],
        )
        self._postings(row.id, terms)
        self._chunks(row)

    def insert_many(self, items: Sequence[tuple[MemoryRow, dict[str, int]]]) -> None:
        for row, terms in items:
            self.insert(row, terms)

    def rewrite(self, row: MemoryRow, terms: dict[str, int]) -> None:
        """Replace a derived memory's text, links, outcome, trust (source, confidence, importance,
        tags) and vector in place: what it is built from now decides its label (review Y)."""
        self.conn.execute(
            f"""UPDATE memories SET content = ?, content_hash = ?, source_ids = ?, event_at = ?, metadata = ?,
               outcome = ?, resolution = ?, confidence = ?, source = ?, importance = ?, tags = ?,
               embedding = {self.dialect.vector}, doc_len = ?,
               updated_at = ?, version = version + 1, status = 'active', seq = nextval('change_seq') WHERE id = ?""",
            [
                row.content,
                row.content_hash,
                list(row.source_ids),
                row.event_at,
                json.dumps(row.metadata, ensure_ascii=False),
                row.outcome,
                row.resolution,
                row.confidence,
                row.source,
                row.importance,
                list(row.tags),
                self._vector(row.embedding),
                sum(terms.values()),
                row.created_at,
                row.id,
            ],
        )
        self.conn.execute("DELETE FROM terms WHERE id = ?", [row.id])
        self._postings(row.id, terms)
        self._chunks(row, replace=True)

    def touch(self, memory_id: str, at: datetime, importance: float) -> None:
        self.conn.execute(
            """UPDATE memories SET seen_count = seen_count + 1, last_seen_at = ?, updated_at = ?,
               importance = greatest(importance, ?), version = version + 1, seq = nextval('change_seq')
               WHERE id = ?""",
            [at, at, importance, memory_id],
        )

    def supersede(self, old_id: str, new_id: str, at: datetime) -> None:
        self.conn.execute(
            """UPDATE memories SET status = 'superseded', superseded_by = ?, updated_at = ?, version = version + 1,
               seq = nextval('change_seq') WHERE id = ?""",
            [new_id, at, old_id],
        )

    def link_supersedes(self, new_id: str, old_id: str, at: datetime) -> None:
        self.conn.execute(
            """UPDATE memories SET supersedes = ?, updated_at = ?, version = version + 1,
               seq = nextval('change_seq') WHERE id = ?""",
            [old_id, at, new_id],
        )

    def set_status(self, ids: Sequence[str], status: str, at: datetime) -> int:
        if not ids:
            return 0
        changed = self.conn.execute(
            f"""UPDATE memories SET status = ?, updated_at = ?, version = version + 1, seq = nextval('change_seq')
                WHERE id IN ({", ".join("?" for _ in ids)}) AND status <> ? RETURNING id""",
            [status, at, *ids, status],
        ).fetchall()
        return len(changed)

    def delete(self, ids: Sequence[str]) -> int:
        if not ids:
            return 0
        marks = ", ".join("?" for _ in ids)
        # The log's entries of these memories stay (when, what, which, who) without the reasons
        # hindsight composed from them: an automatic update names the fact's old and new values, a
        # new version the tags it added, and those words left the store with the memories (review
        # BU). A reason the user gave (a forget's, a supersede's) is the user's own and stays.
        self.conn.execute(
            "UPDATE audit SET reason = NULL WHERE reason IS NOT NULL AND (action IN ('fixed', "
            "'updated') OR (action = 'supersede' AND reason LIKE 'updated automatically:%')) "
            f"AND {self.dialect.overlaps.format(name='ids')}",
            [list(ids)],
        )
        self.conn.execute(f"DELETE FROM terms WHERE id IN ({marks})", list(ids))
        self.conn.execute(f"DELETE FROM chunks WHERE id IN ({marks})", list(ids))
        deleted = len(
            self.conn.execute(
                f"DELETE FROM memories WHERE id IN ({marks}) RETURNING id", list(ids)
            ).fetchall()
        )
        # No link may point at a deleted memory: its successor forgets where it came from.
        self.conn.execute(
            f"UPDATE memories SET supersedes = NULL, seq = nextval('change_seq') WHERE "
            f"supersedes IN "
            f"({marks})",
            list(ids),
        )
        return deleted

    def audit(
        self,
        action: str,
        ids: Sequence[str],
        at: datetime,
        reason: str | None = None,
        actor: str | None = None,
    ) -> None:
        self.conn.execute(
            'INSERT INTO audit ("at", action, ids, reason, actor) VALUES (?, ?, ?, ?, ?)',
            [at, action, list(ids), reason, actor],
        )

    def set_embeddings(self, rows: Sequence[MemoryRow]) -> None:
        """New vectors (a reindex): each row's ``embedding`` and ``chunks``, for the rows still
        there. The rows were read before they were embedded: a memory another process hard-forgot
        meanwhile must not get its text's vectors back, and one recorded meanwhile keeps its own
        (review AK: every chunk was deleted, then those of the rows read put back)."""
        there = {str(r[0]) for r in self.conn.execute("SELECT id FROM memories").fetchall()}
        rows = [row for row in rows if row.id in there]
        self.conn.executemany(
            f"UPDATE memories SET embedding = {self.dialect.vector}, seq = nextval('change_seq') "
            "WHERE id = ?",
            [[self._vector(row.embedding), row.id] for row in rows],
        )
        # every chunk goes but those of the memories recorded meanwhile (few; none kept: a repair)
        kept = sorted(there - {row.id for row in rows})
        self.conn.execute(
            f"DELETE FROM chunks WHERE id NOT IN ({', '.join('?' for _ in kept)})"
            if kept
            else "DELETE FROM chunks",
            kept,
        )
        for row in rows:
            self._chunks(row)

    def set_model(self, model: str, dim: int) -> None:
        raise NotImplementedError

    def set_ledger_key(self, key: str) -> None:
        """Give the ledger its key (``base.LEDGER_KEY``), in place of any it holds."""
        self.conn.execute("DELETE FROM meta WHERE key = ?", [LEDGER_KEY])
        self.conn.execute("INSERT INTO meta VALUES (?, ?)", [LEDGER_KEY, key])
