"""Creating a Postgres store's schema, and vacuuming it after a hard forget."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import HindsightError
from ...safefs import ledger_key
from ..base import LEDGER_KEY
from .postgres_schema import steps
from .postgres_search import psycopg

if TYPE_CHECKING:
    from psycopg import Connection
    from psycopg.rows import TupleRow

    from .postgres_ledger import PostgresLedger


def _extension(raw: Connection[TupleRow], ledger: PostgresLedger) -> None:
    driver = psycopg()
    if raw.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
        try:
            with raw.transaction():
                raw.execute("CREATE EXTENSION vector")
        except driver.Error as error:
            raise HindsightError(
                f"The database {ledger.describe()} lacks the pgvector extension and this user "
                f"cannot add it "
                f"({' '.join(str(error).split())[:120]}). Have an admin run CREATE EXTENSION "
                f"vector, or use "
                "the pgvector/pgvector image."
            ) from None


def create(
    ledger: PostgresLedger, model: str, dim: int, target: int, key: str | None = None
) -> None:
    """The schema (idempotent, safe from several processes at once) with the model recorded."""
    driver = psycopg()
    raw = ledger._raw()
    try:
        with raw.transaction():
            # One lock for the whole database: two stores created at once would both try to add the
            # extension, and CREATE EXTENSION IF NOT EXISTS is not safe against that.
            raw.execute("SELECT pg_advisory_xact_lock(hashtext('hindsight-create'))")
            _extension(raw, ledger)
            raw.execute(
                driver.sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(
                    driver.sql.Identifier(ledger.schema)
                )
            )
            if ledger._version(raw) is not None:
                return
            raw.execute("CREATE TABLE meta (key text PRIMARY KEY, value text)")
            for name, value in (
                ("schema_version", "0"),
                ("embedding_model", model),
                ("embedding_dim", str(dim)),
                (LEDGER_KEY, key or ledger_key.new()),
            ):
                raw.execute("INSERT INTO meta VALUES (%s, %s)", [name, value])
            schema = steps(dim)
            schema[1] = [s for s in schema[1] if not s.startswith("CREATE TABLE meta")]
            for step, statements in sorted(schema.items()):
                if step <= target:
                    for statement in statements:
                        raw.execute(statement)
            raw.execute("UPDATE meta SET value = %s WHERE key = 'schema_version'", [str(target)])
    except driver.Error as error:
        raise ledger._error(error) from None


def vacuum(ledger: PostgresLedger) -> bool:
    """After a hard forget: VACUUM the tables, so the deleted rows' space is freed now, not at the
    next autovacuum. (What the server's WAL archive and backups keep is their retention's business;
    docs/team.md says so.)"""
    driver = psycopg()
    raw = ledger._raw()
    try:
        # keyword_stats holds terms too
        for table in ("memories", "terms", "keyword_stats", "chunks"):
            raw.execute(
                driver.sql.SQL("VACUUM {}").format(driver.sql.Identifier(ledger.schema, table))
            )
    except driver.Error as error:
        raise ledger._error(error) from None
    return True
