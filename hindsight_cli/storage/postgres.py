"""The ledger on PostgreSQL + pgvector: one shared store for a team (docs/team.md).

The same tables as the DuckDB ledger (memories, keyword ``terms``, ``audit``, ``meta``) live in one
schema of one database, with the vectors in a pgvector column under an HNSW index, so a write (row,
vector, keyword postings, audit entry) is one transaction. Writers take a transaction-scoped advisory
lock, so the check-then-insert of idempotent writes is serialised across every machine exactly as the
lock file serialises it locally; readers never wait (MVCC).

The SQL of ``Ledger`` is shared: statements use ``?`` placeholders, which ``_Connection`` turns into
psycopg's ``%s``; the few dialect differences are the class attributes below. Passwords never leave
this module: ``describe()`` and every error message show the URL without one.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import HindsightError, InvalidInput, StoreBusy
from .ledger import COLUMNS, _JSON_COLUMNS, Ledger

_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
# Versions 1 and 2 match the DuckDB ledger's; 3 (keyword statistics per agent) is this backend's own.
SCHEMA_VERSION = 3


def _maintained(table: str, inserted: str, deleted: str, updated: str | None = None) -> list[str]:
    """Statement-level triggers (COPY fires them too) that run ``inserted``/``deleted``/``updated`` over
    the rows each statement added (``added``) or removed (``removed``) in ``table``."""
    statements = []
    events = [("insert", "INSERT", "NEW TABLE AS added", inserted), ("delete", "DELETE", "OLD TABLE AS removed", deleted)]
    if updated:
        events.append(("update", "UPDATE", "OLD TABLE AS removed NEW TABLE AS added", updated))
    for name, event, transition, body in events:
        statements += [
            f"""CREATE FUNCTION {table}_{name}_stats() RETURNS trigger LANGUAGE plpgsql
                SET search_path FROM CURRENT AS $$ BEGIN {body}; RETURN NULL; END $$""",
            f"""CREATE TRIGGER {table}_{name}_stats AFTER {event} ON {table} REFERENCING {transition}
                FOR EACH STATEMENT EXECUTE FUNCTION {table}_{name}_stats()""",
        ]
    return statements


def _steps(dim: int) -> dict[int, list[str]]:
    """The schema, version by version; a store at version N gets every step above N, in order."""
    return {
        1: [
            "CREATE TABLE meta (key text PRIMARY KEY, value text)",
            "CREATE SEQUENCE change_seq",
            f"""CREATE TABLE memories (
                id text PRIMARY KEY, content text NOT NULL, type text NOT NULL, agent_id text NOT NULL,
                task_id text, step integer, trigger text, outcome text NOT NULL, resolution text,
                importance double precision NOT NULL, confidence double precision NOT NULL, tags text[] NOT NULL,
                metadata text NOT NULL, env text NOT NULL, source text NOT NULL, created_at timestamp NOT NULL,
                event_at timestamp NOT NULL, valid_until timestamp, expires_at timestamp, status text NOT NULL,
                superseded_by text, source_ids text[] NOT NULL, version integer NOT NULL, content_hash text NOT NULL,
                idempotency_key text NOT NULL, seen_count integer NOT NULL, last_seen_at timestamp,
                updated_at timestamp, seq bigint NOT NULL, doc_len integer NOT NULL, embedding vector({dim}))""",
            "CREATE INDEX memories_key ON memories (idempotency_key)",
            "CREATE INDEX memories_agent ON memories (agent_id, status)",
            "CREATE INDEX memories_seq ON memories (seq)",
            "CREATE INDEX memories_sources ON memories USING gin (source_ids)",
            "CREATE INDEX memories_embedding ON memories USING hnsw (embedding vector_cosine_ops)",
            "CREATE TABLE terms (id text NOT NULL, term text NOT NULL, tf integer NOT NULL)",
            "CREATE INDEX terms_term ON terms (term)",
            "CREATE INDEX terms_id ON terms (id)",
            """CREATE TABLE audit (seq bigserial PRIMARY KEY, "at" timestamp NOT NULL, action text NOT NULL,
                ids text[] NOT NULL, reason text, actor text)""",
            "CREATE INDEX audit_ids ON audit USING gin (ids)",
        ],
        2: ["ALTER TABLE memories ADD COLUMN supersedes text"],
        # BM25's statistics per agent (keyword()): each term's document frequency and largest tf, the
        # number of memories and their total length, kept by triggers in the writing transaction.
        3: [
            # postings read from the index alone: a term's (id, tf) and a memory's (term, tf)
            "DROP INDEX terms_term",
            "CREATE INDEX terms_term ON terms (term) INCLUDE (id, tf)",
            "DROP INDEX terms_id",
            "CREATE INDEX terms_id ON terms (id) INCLUDE (term, tf)",
            """CREATE TABLE keyword_stats (term text NOT NULL, agent_id text NOT NULL, df bigint NOT NULL,
                max_tf integer NOT NULL, PRIMARY KEY (term, agent_id))""",
            """INSERT INTO keyword_stats SELECT t.term, m.agent_id, count(*), max(t.tf)
                FROM terms t JOIN memories m ON m.id = t.id GROUP BY 1, 2""",
            "CREATE TABLE corpus (agent_id text PRIMARY KEY, docs bigint NOT NULL, total_len bigint NOT NULL)",
            "INSERT INTO corpus SELECT agent_id, count(*), coalesce(sum(doc_len), 0) FROM memories GROUP BY 1",
            # (a memory's terms are written after it and deleted before it, so it is there to join)
            *_maintained(
                "terms",
                inserted="""INSERT INTO keyword_stats AS s SELECT a.term, m.agent_id, count(*), max(a.tf)
                        FROM added a JOIN memories m ON m.id = a.id GROUP BY 1, 2
                    ON CONFLICT (term, agent_id)
                        DO UPDATE SET df = s.df + excluded.df, max_tf = greatest(s.max_tf, excluded.max_tf)""",
                # a term no memory holds any more leaves no trace (a hard-forgotten word included)
                deleted="""UPDATE keyword_stats s SET df = s.df - r.n
                        FROM (SELECT r.term, m.agent_id, count(*) AS n FROM removed r JOIN memories m ON m.id = r.id
                              GROUP BY 1, 2) r
                        WHERE s.term = r.term AND s.agent_id = r.agent_id;
                    DELETE FROM keyword_stats s USING (SELECT DISTINCT term FROM removed) r
                        WHERE s.term = r.term AND s.df <= 0"""),
            *_maintained(
                "memories",
                inserted="""INSERT INTO corpus AS c SELECT agent_id, count(*), coalesce(sum(doc_len), 0) FROM added GROUP BY 1
                    ON CONFLICT (agent_id) DO UPDATE SET docs = c.docs + excluded.docs, total_len = c.total_len + excluded.total_len""",
                deleted="""UPDATE corpus c SET docs = c.docs - r.docs, total_len = c.total_len - r.total_len
                        FROM (SELECT agent_id, count(*) AS docs, sum(doc_len) AS total_len FROM removed GROUP BY 1) r
                        WHERE c.agent_id = r.agent_id;
                    DELETE FROM corpus c USING (SELECT DISTINCT agent_id FROM removed) r
                        WHERE c.agent_id = r.agent_id AND c.docs <= 0""",
                updated="""UPDATE corpus c SET total_len = c.total_len + d.change
                    FROM (SELECT agent_id, sum(change) AS change FROM (SELECT agent_id, doc_len AS change FROM added
                          UNION ALL SELECT agent_id, -doc_len FROM removed) x GROUP BY 1) d
                    WHERE c.agent_id = d.agent_id AND d.change <> 0"""),
        ],
    }


def check_target(url: str, schema: str) -> None:
    """Refuse, before anything is written, a URL that is not PostgreSQL's or a schema name that is not plain."""
    if not url.startswith(("postgresql://", "postgres://")):
        raise InvalidInput(f"{redact_url(url)!r} is not a PostgreSQL URL; give postgresql://user@host:5432/db.")
    if not _SCHEMA_NAME.match(schema):
        raise InvalidInput(f"[storage] schema {schema!r} is not a plain lower-case SQL name; use e.g. "
                           "\"hindsight\" or \"team_memory\".")


def redact_url(url: str) -> str:
    """The URL with any password removed (``postgresql://user@host/db``), for output and errors."""
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1@", url)


def password_of(url: str) -> str | None:
    match = re.search(r"://[^:/@]*:([^@/]*)@", url)
    return match.group(1) if match and match.group(1) else None


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise HindsightError("The postgres backend needs psycopg: pip install 'hindsight-cli[postgres]'.") from None
    return psycopg


class _Connection:
    """A psycopg connection that takes the ledger's ``?`` placeholders (all values stay parameters)."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    @staticmethod
    def _sql(sql: str) -> str:
        return sql.replace("%", "%%").replace("?", "%s")

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> Any:
        return self.raw.execute(self._sql(sql), list(params) if params is not None else [])

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        with self.raw.cursor() as cursor:
            cursor.executemany(self._sql(sql), rows)


class PostgresLedger(Ledger):
    """The ledger in one schema of a PostgreSQL database with the pgvector extension."""

    local = False
    HAS = "? = ANY({name})"
    OVERLAPS = "{name} && ?::text[]"
    VECTOR = "?::vector"
    AUDIT_ORDER = "seq"

    def __init__(self, url: str, schema: str = "hindsight", lock_timeout: float = 10.0,
                 store: Path | None = None) -> None:
        check_target(url, schema)
        self.url = url
        self.schema = schema
        self.lock_timeout = lock_timeout
        self.path = store or Path(".")  # the store directory (config.toml); the data lives in the database
        self._local = threading.local()
        self._current = False
        self._known = False
        self._vector_version: tuple[int, ...] | None = None

    # --- connections --------------------------------------------------------------------------------

    def describe(self) -> str:
        return f"{redact_url(self.url)} (schema {self.schema})"

    def _error(self, error: Exception) -> HindsightError:
        text = " ".join(str(error).split())
        secret = password_of(self.url)
        if secret:
            text = text.replace(secret, "***")
        text = redact_url(text)[:300]
        psycopg = _psycopg()
        if isinstance(error, psycopg.errors.LockNotAvailable):
            return self._busy()
        if isinstance(error, psycopg.errors.InsufficientPrivilege):
            return HindsightError(f"The database user of {self.describe()} lacks a privilege ({text}); nothing was "
                                  "written. Grant it, or connect as the schema's owner.")
        if isinstance(error, psycopg.OperationalError):
            return HindsightError(f"Cannot use the Postgres store at {self.describe()}: {text}. Check that the "
                                  "server is up and the URL (HINDSIGHT_DATABASE_URL or [storage] url) is right; "
                                  "`hindsight doctor store` checks it.")
        return HindsightError(f"The Postgres store at {self.describe()} failed: {text}. Nothing was written.")

    def _busy(self) -> StoreBusy:
        return StoreBusy(f"Another writer held the Postgres store {self.describe()} for {self.lock_timeout:g} s; "
                         "retry, or raise HINDSIGHT_LOCK_TIMEOUT.")

    def _raw(self) -> Any:
        """This thread's connection (opened on first use, reopened after it broke)."""
        psycopg = _psycopg()
        conn = getattr(self._local, "conn", None)
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        try:
            conn = psycopg.connect(self.url, autocommit=True, connect_timeout=max(1, int(self.lock_timeout)),
                                   application_name="hindsight")
            conn.execute(f'SET search_path TO "{self.schema}", public')
            conn.execute("SET TIME ZONE 'UTC'")
        except psycopg.Error as error:
            raise self._error(error) from None
        self._local.conn = conn
        return conn

    @contextmanager
    def connect(self, read_only: bool = False) -> Iterator[Any]:
        psycopg = _psycopg()
        raw = self._raw()
        try:
            if not self._current:
                self._upgrade_schema(raw)
            yield _Connection(raw)
        except psycopg.Error as error:
            raise self._error(error) from None

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        with self.connect() as conn:
            with conn.raw.transaction():
                conn.execute(f"SET LOCAL lock_timeout = '{int(self.lock_timeout * 1000)}ms'")
                conn.execute("SELECT pg_advisory_xact_lock(hashtext(?))", [f"hindsight-write:{self.schema}"])
                yield conn

    def mark_changed(self) -> None:
        """No marker file: nothing mirrors a Postgres store (the database indexes its own rows)."""

    def change_token(self) -> str:
        return ""

    # --- schema -------------------------------------------------------------------------------------

    @property
    def exists(self) -> bool:
        if self._known:
            return True
        raw = self._raw()
        try:
            found = raw.execute("SELECT to_regclass(%s) IS NOT NULL", [f'"{self.schema}".meta']).fetchone()[0]
        except _psycopg().Error as error:
            raise self._error(error) from None
        self._known = bool(found)
        return self._known

    def _version(self, conn: Any) -> int | None:
        if conn.execute("SELECT to_regclass(%s)", [f'"{self.schema}".meta']).fetchone()[0] is None:
            return None
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0]) if row else None

    def _upgrade_schema(self, raw: Any, target: int = SCHEMA_VERSION) -> None:
        """Apply the schema steps this database lacks, under an advisory lock: two processes starting
        at once do it once, the second finds it done."""
        version = self._version(raw)
        if version is None or version >= target:
            if version is not None and version > SCHEMA_VERSION:
                raise HindsightError(
                    f"The store {self.describe()} was written by a newer hindsight (schema {version}, this one "
                    f"knows {SCHEMA_VERSION}); upgrade hindsight: pip install -U hindsight-cli.")
            self._current = version is not None
            return
        with raw.transaction():
            raw.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"hindsight-schema:{self.schema}"])
            version = self._version(raw) or 0
            dim = int(raw.execute("SELECT value FROM meta WHERE key = 'embedding_dim'").fetchone()[0])
            self._apply(raw, version, target, dim)
        self._current = True

    def _apply(self, raw: Any, version: int, target: int, dim: int) -> None:
        for step, statements in sorted(_steps(dim).items()):
            if version < step <= target:
                for statement in statements:
                    raw.execute(statement)
        raw.execute("UPDATE meta SET value = %s WHERE key = 'schema_version'", [str(target)])

    def create(self, model: str, dim: int, target: int = SCHEMA_VERSION) -> None:
        """Create the schema (idempotent, safe from several processes at once) and record the model."""
        raw = self._raw()
        psycopg = _psycopg()
        try:
            with raw.transaction():
                # One lock for the whole database: two stores created at once would both try to add
                # the extension, and CREATE EXTENSION IF NOT EXISTS is not safe against that.
                raw.execute("SELECT pg_advisory_xact_lock(hashtext('hindsight-create'))")
                if raw.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
                    try:
                        with raw.transaction():
                            raw.execute("CREATE EXTENSION vector")
                    except psycopg.Error as error:
                        raise HindsightError(
                            f"The database {self.describe()} lacks the pgvector extension and this user cannot "
                            f"add it ({' '.join(str(error).split())[:120]}). Have an admin run CREATE EXTENSION "
                            "vector, or use the pgvector/pgvector image.") from None
                raw.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
                if self._version(raw) is None:
                    raw.execute("CREATE TABLE meta (key text PRIMARY KEY, value text)")
                    for key, value in (("schema_version", "0"), ("embedding_model", model),
                                       ("embedding_dim", str(dim))):
                        raw.execute("INSERT INTO meta VALUES (%s, %s)", [key, value])
                    steps = _steps(dim)
                    steps[1] = [s for s in steps[1] if not s.startswith("CREATE TABLE meta")]
                    for step, statements in sorted(steps.items()):
                        if step <= target:
                            for statement in statements:
                                raw.execute(statement)
                    raw.execute("UPDATE meta SET value = %s WHERE key = 'schema_version'", [str(target)])
        except psycopg.Error as error:
            raise self._error(error) from None
        self._known = True
        self._current = target == SCHEMA_VERSION

    def set_model(self, conn: Any, model: str, dim: int) -> None:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'embedding_model'", [model])
        conn.execute("UPDATE meta SET value = ? WHERE key = 'embedding_dim'", [str(dim)])
        conn.execute("ALTER TABLE memories DROP COLUMN embedding")
        conn.execute(f"ALTER TABLE memories ADD COLUMN embedding vector({int(dim)})")
        conn.execute("CREATE INDEX memories_embedding ON memories USING hnsw (embedding vector_cosine_ops)")

    def scrub(self) -> bool:
        """After a hard forget: VACUUM the tables, so the deleted rows' space is freed now, not at the
        next autovacuum. (What the server's WAL archive and backups keep is their retention's business;
        docs/team.md says so.)"""
        raw = self._raw()
        try:
            for table in ("memories", "terms", "keyword_stats"):  # the last holds terms too
                raw.execute(f'VACUUM "{self.schema}".{table}')
        except _psycopg().Error as error:
            raise self._error(error) from None
        return True

    def size_bytes(self) -> int:
        with self.connect(read_only=True) as conn:
            row = conn.execute(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relkind IN ('r', 'S')",
                [self.schema]).fetchone()
        return int(row[0])

    # --- dialect ------------------------------------------------------------------------------------

    def vector_value(self, vector: Sequence[float]) -> str:
        return "[" + ",".join(repr(float(x)) for x in vector) + "]"

    def _column(self, name: str) -> str:
        return "m.embedding::real[] AS embedding" if name == "embedding" else f"m.{name}"

    def insert_many(self, conn: Any, items: Sequence[tuple[dict[str, Any], Sequence[float], dict[str, int]]]) -> None:
        """Bulk insert with COPY (tens of thousands of rows per second)."""
        if not items:
            return
        import json

        seqs = [r[0] for r in conn.execute("SELECT nextval('change_seq') FROM generate_series(1, ?)",
                                           [len(items)]).fetchall()]
        names = ", ".join(COLUMNS)
        with conn.raw.cursor() as cursor:
            with cursor.copy(f"COPY memories ({names}, seq, doc_len, embedding) FROM STDIN") as copy:
                for (row, vector, terms), seq in zip(items, seqs):
                    values = [json.dumps(row[c], ensure_ascii=False) if c in _JSON_COLUMNS else row[c] for c in COLUMNS]
                    copy.write_row([*values, seq, sum(terms.values()), self.vector_value(vector)])
            with cursor.copy("COPY terms (id, term, tf) FROM STDIN") as copy:
                for row, _, terms in items:
                    for term, count in terms.items():
                        copy.write_row((row["id"], term, count))

    def nearest(self, conn: Any, vector: Sequence[float], dim: int, where: str, params: list[Any],
                limit: int) -> list[tuple[str, float]]:
        """Cosine top-``limit`` through the HNSW index.

        HNSW filters after its search, so a scope (one agent of several) can leave it short of ``limit``
        rows. pgvector 0.8 and later then keep scanning the graph (``hnsw.iterative_scan``); older ones
        get a second pass with a candidate list widened by the share of rows the filters kept. When the
        index still comes back short, the filters leave few rows, and those are searched exactly."""
        query = self.vector_value(vector)
        ef = self.ef_search(limit)
        iterative = self._pgvector(conn) >= (0, 8)
        rows: list[Any] = []
        while True:
            with conn.raw.transaction():
                conn.execute(f"SET LOCAL hnsw.ef_search = {ef}")
                if iterative:
                    conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
                rows = conn.execute(
                    f"SELECT m.id, 1 - (m.embedding <=> ?::vector) FROM memories m WHERE m.embedding IS NOT NULL "
                    f"AND {where} ORDER BY m.embedding <=> ?::vector LIMIT {int(limit)}",
                    [query, *params, query]).fetchall()
            wider = min(self.EF_MAX, math.ceil(ef * 1.5 * limit / max(len(rows), 1)))
            if len(rows) >= limit or iterative or wider <= ef:
                break
            ef = wider
        if len(rows) < limit:
            rows = self.exact_nearest(conn, query, where, params, limit)
        found = [(r[0], float(r[1])) for r in rows]
        return sorted(found, key=lambda pair: (-pair[1], pair[0]))

    def keyword(self, conn: Any, query_terms: Sequence[str], where: str, params: list[Any],
                limit: int, k1: float = 1.2, b: float = 0.75,
                agents: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """BM25 top-``limit`` among rows matching ``where``, exact, without reading every posting of the
        query's common words.

        The statistics (memories, their average length, each term's document frequency) are kept per
        agent by triggers (schema 3) and summed over ``agents``, the agents the search is scoped to (all
        of them when it is not), so an agent's words weigh as in a store of its own, as the DuckDB
        ledger weighs them within its filters. MaxScore then prunes: terms are taken rarest first (by
        the most one posting of theirs can add); only memories holding one of the terms taken so far
        are scored (with every query term), and once the ``limit``-th best of them beats what the
        remaining terms could add together, no other memory can enter the list. A query of common
        words only ends up reading their postings, like the single statement of the DuckDB ledger.
        """
        unique = sorted(set(query_terms))
        if not unique:
            return []
        scope, scoped = ("agent_id = ANY(?)", [list(agents)]) if agents else ("TRUE", [])
        docs, total_len = conn.execute(f"SELECT coalesce(sum(docs), 0)::bigint, coalesce(sum(total_len), 0)::bigint "
                                       f"FROM corpus WHERE {scope}", scoped).fetchone()
        if not docs:
            return []
        avgdl = max(total_len / docs, 1.0)
        weighted = []  # (bound, term, idf, df): the most one posting can add, the weight, the postings
        for term, df, max_tf in conn.execute(
                f"SELECT term, sum(df)::bigint, max(max_tf) FROM keyword_stats WHERE term = ANY(?) AND {scope} GROUP BY term",
                [unique, *scoped]).fetchall():
            idf = math.log(1 + (docs - df + 0.5) / (df + 0.5))
            # tf at most max_tf in a memory at least tf terms long
            weighted.append((idf * (k1 + 1) / (1 + k1 * (1 - b) / max_tf + k1 * b / avgdl), term, idf, df))
        if not weighted:
            return []
        weighted.sort(key=lambda w: (-w[0], w[1]))
        names, idfs = [w[1] for w in weighted], [w[2] for w in weighted]
        bm25 = f"sum(q.idf * t.tf * {k1 + 1}::float8 / (t.tf + {k1}::float8 * (1 - {b}::float8 + {b}::float8 * m.doc_len / ?::float8)))"
        taken, postings = 0, 0
        while True:
            # take terms until the postings to read have doubled (at least one more term)
            goal = max(2 * postings, 1)
            while taken < len(weighted) and (taken == 0 or postings < goal):
                postings += weighted[taken][3]
                taken += 1
            rest = sum(w[0] for w in weighted[taken:])
            if not rest:  # every term taken: one pass over their postings
                return [(r[0], float(r[1])) for r in conn.execute(
                    f"""SELECT t.id, {bm25} AS score
                        FROM unnest(?::text[], ?::float8[]) AS q(term, idf) JOIN terms t ON t.term = q.term
                        JOIN memories m ON m.id = t.id WHERE {where}
                        GROUP BY t.id ORDER BY score DESC, t.id LIMIT {int(limit)}""",
                    [avgdl, names, idfs, *params]).fetchall()]
            rows = conn.execute(
                f"""WITH held AS (SELECT DISTINCT id FROM terms WHERE term = ANY(?::text[])),
                         chosen AS (SELECT m.id, m.doc_len FROM held JOIN memories m ON m.id = held.id WHERE {where})
                    SELECT m.id, {bm25} AS score
                    FROM chosen m JOIN terms t ON t.id = m.id JOIN unnest(?::text[], ?::float8[]) AS q(term, idf)
                        ON q.term = t.term
                    GROUP BY m.id ORDER BY score DESC, m.id LIMIT {int(limit)}""",
                [names[:taken], *params, avgdl, names, idfs]).fetchall()
            if len(rows) == limit and float(rows[-1][1]) > rest * (1 + 1e-9):
                return [(r[0], float(r[1])) for r in rows]

    EF_MAX = 1000  # pgvector's largest hnsw.ef_search

    @classmethod
    def ef_search(cls, limit: int) -> int:
        """HNSW's candidate list for a top-``limit`` query: twice the rows asked for, at least 100 (at
        100k memories, top-10 recall against exact search measured 0.84 at pgvector's default of 40)."""
        return min(cls.EF_MAX, max(100, 2 * int(limit)))

    def _pgvector(self, conn: Any) -> tuple[int, ...]:
        """The pgvector version the database runs, e.g. (0, 8, 1); asked once per ledger."""
        if self._vector_version is None:
            row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
            self._vector_version = tuple(int(part) for part in re.findall(r"\d+", row[0] if row else "0"))
        return self._vector_version

    def exact_nearest(self, conn: Any, query: str, where: str, params: list[Any], limit: int) -> list[Any]:
        """Exact cosine top-``limit`` (a sequential scan: the ``+ 0`` keeps the planner off the HNSW index)."""
        return conn.execute(
            f"SELECT m.id, 1 - (m.embedding <=> ?::vector) AS s FROM memories m WHERE m.embedding IS NOT NULL "
            f"AND {where} ORDER BY (m.embedding <=> ?::vector) + 0, m.id LIMIT {int(limit)}",
            [query, *params, query]).fetchall()
