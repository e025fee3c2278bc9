"""The ledger on PostgreSQL + pgvector: one shared store for a team (docs/team.md).

The same tables as the DuckDB ledger (memories, keyword ``terms``, ``audit``, ``meta``) live in one
schema of one database, with the vectors in a pgvector column under an HNSW index, so a write (row,
vector, keyword postings, audit entry) is one transaction. Writers take a transaction-scoped
advisory lock, so the check-then-insert of idempotent writes is serialised across every machine
exactly as the lock file serialises it locally; readers never wait (MVCC). The schema name is quoted
by psycopg's ``Identifier``; every value is a parameter. Passwords never leave this module:
``describe()`` and every error message show the URL without one.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import HindsightError, StoreBusy
from ..base import Capabilities
from ..urls import check_target, password_of, redact_url
from .common import one
from .postgres_schema import SCHEMA_VERSION, steps
from .postgres_search import DIALECT, PostgresSession, PsycopgConnection, psycopg

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg.rows import TupleRow

CAPABILITIES = Capabilities(name="postgres", files=False, mirrored=False, shared=True)


class PostgresLedger:
    """The ledger in one schema of a PostgreSQL database with the pgvector extension."""

    capabilities = CAPABILITIES

    def __init__(
        self,
        url: str,
        schema: str = "hindsight",
        lock_timeout: float = 10.0,
        store: Path | None = None,
    ) -> None:
        check_target(url, schema)
        self.url = url
        self.schema = schema
        self.lock_timeout = lock_timeout
        # the store directory (config.toml); the data lives in the database
        self.path = store or Path(".")
        self._local = threading.local()
        self._current = False
        self._known = False
        self._facts: dict[str, tuple[int, ...]] = {}

    # --- connections
    # --------------------------------------------------------------------------------

    def describe(self) -> str:
        return f"{redact_url(self.url)} (schema {self.schema})"

    def _error(self, error: Exception) -> HindsightError:
        text = " ".join(str(error).split())
        secret = password_of(self.url)
        if secret:
            text = text.replace(secret, "***")
        text = redact_url(text)[:300]
        errors = psycopg()
        if isinstance(error, errors.errors.LockNotAvailable):
            return self._busy()
        if isinstance(error, errors.errors.InsufficientPrivilege):
            return HindsightError(
                f"The database user of {self.describe()} lacks a privilege ({text}); nothing was "
                "written. Grant it, or connect as the schema's owner."
            )
        if isinstance(error, errors.OperationalError):
            return HindsightError(
                f"Cannot use the Postgres store at {self.describe()}: {text}. Check that the "
                "server is up and the URL (HINDSIGHT_DATABASE_URL or [storage] url) is right; "
                "`hindsight doctor store` checks it."
            )
        return HindsightError(
            f"The Postgres store at {self.describe()} failed: {text}. Nothing was written."
        )

    def _busy(self) -> StoreBusy:
        return StoreBusy(
            f"Another writer held the Postgres store {self.describe()} for {self.lock_timeout:g} "
            f"s; "
            "retry, or raise HINDSIGHT_LOCK_TIMEOUT."
        )

    def _raw(self) -> Connection[TupleRow]:
        """This thread's connection (opened on first use, reopened after it broke)."""
        driver = psycopg()
        conn: Connection[TupleRow] | None = getattr(self._local, "conn", None)
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        try:
            conn = driver.connect(
                self.url,
                autocommit=True,
                connect_timeout=max(1, int(self.lock_timeout)),
                application_name="hindsight",
            )
            conn.execute(
                driver.sql.SQL("SET search_path TO {}, public").format(
                    driver.sql.Identifier(self.schema)
                )
            )
            conn.execute("SET TIME ZONE 'UTC'")
        except driver.Error as error:
            raise self._error(error) from None
        self._local.conn = conn
        return conn

    @contextmanager
    def _connect(self) -> Iterator[PsycopgConnection]:
        raw = self._raw()
        try:
            if not self._current:
                self._upgrade_schema(raw)
            yield PsycopgConnection(raw)
        except psycopg().Error as error:
            raise self._error(error) from None

    @contextmanager
    def read(self) -> Iterator[PostgresSession]:
        with self._connect() as conn:
            yield PostgresSession(conn, DIALECT, self._facts)

    @contextmanager
    def write(self) -> Iterator[PostgresSession]:
        with self._connect() as conn:
            with conn.raw.transaction():
                conn.execute(
                    "SELECT set_config('lock_timeout', ?, true)",
                    [f"{int(self.lock_timeout * 1000)}ms"],
                )
                conn.execute(
                    "SELECT pg_advisory_xact_lock(hashtext(?))", [f"hindsight-write:{self.schema}"]
                )
                yield PostgresSession(conn, DIALECT, self._facts)

    @contextmanager
    def held(self) -> Iterator[None]:
        """Reads already share this thread's connection; nothing to hold."""
        yield

    def mark_changed(self) -> None:
        """No marker file: nothing mirrors a Postgres store (the database indexes its own rows)."""

    def change_token(self) -> str:
        return ""

    # --- schema
    # -------------------------------------------------------------------------------------

    @property
    def exists(self) -> bool:
        if self._known:
            return True
        raw = self._raw()
        try:
            found = one(
                raw.execute("SELECT to_regclass(%s) IS NOT NULL", [f'"{self.schema}".meta'])
            )[0]
        except psycopg().Error as error:
            raise self._error(error) from None
        self._known = bool(found)
        return self._known

    def _version(self, conn: Connection[TupleRow]) -> int | None:
        if one(conn.execute("SELECT to_regclass(%s)", [f'"{self.schema}".meta']))[0] is None:
            return None
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0]) if row else None

    def _upgrade_schema(self, raw: Connection[TupleRow], target: int = SCHEMA_VERSION) -> None:
        """Apply the schema steps this database lacks, under an advisory lock: two processes
        starting at once do it once, the second finds it done."""
        version = self._version(raw)
        if version is None or version >= target:
            if version is not None and version > SCHEMA_VERSION:
                raise HindsightError(
                    f"The store {self.describe()} was written by a newer hindsight (schema "
                    f"{version}, this one "
                    f"knows {SCHEMA_VERSION}); upgrade hindsight: pip install -U hindsight-cli."
                )
            self._current = version is not None
            return
        with raw.transaction():
            raw.execute(
                "SELECT pg_advisory_xact_lock(hashtext(%s))", [f"hindsight-schema:{self.schema}"]
            )
            version = self._version(raw) or 0
            dim = int(one(raw.execute("SELECT value FROM meta WHERE key = 'embedding_dim'"))[0])
            self._apply(raw, version, target, dim)
        self._current = True

    def _apply(self, raw: Connection[TupleRow], version: int, target: int, dim: int) -> None:
        for step, statements in sorted(steps(dim).items()):
            if version < step <= target:
                for statement in statements:
                    raw.execute(statement)
        raw.execute("UPDATE meta SET value = %s WHERE key = 'schema_version'", [str(target)])

    def create(
        self, model: str, dim: int, key: str | None = None, target: int = SCHEMA_VERSION
    ) -> None:
        """Create the schema (idempotent, safe from several processes at once) and record the
        model and the ledger's key (``key``, else a new one)."""
        from .postgres_admin import create

        create(self, model, dim, target, key)
        self._known = True
        self._current = target == SCHEMA_VERSION

    def scrub(self) -> bool:
        from .postgres_admin import vacuum

        return vacuum(self)

    def size_bytes(self) -> int:
        with self.read() as session:
            row = one(
                session.conn.execute(
                    "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                    "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND "
                    "c.relkind IN ('r', 'S')",
                    [self.schema],
                )
            )
        return int(row[0])

    def probe(self) -> dict[str, str | None]:
        """The server's version, pgvector's, and the HNSW index's definition (``doctor store``)."""
        with self.read() as session:
            server = one(session.conn.execute("SHOW server_version"))[0]
            vector = session.conn.execute(
                "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
            ).fetchone()
            hnsw = session.conn.execute(
                "SELECT indexdef FROM pg_indexes WHERE schemaname = ? AND indexname = "
                "'memories_embedding'",
                [self.schema],
            ).fetchone()
        return {
            "engine": f"PostgreSQL {server}",
            "server": server,
            "pgvector": vector[0] if vector else None,
            "hnsw": hnsw[0] if hnsw else None,
        }
