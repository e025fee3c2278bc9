"""Creating the DuckDB ledger, and rewriting it after a hard forget so no freed block keeps old
bytes."""

from __future__ import annotations

import os
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from ... import safefs
from ...safefs import ledger_key
from ..base import LEDGER_KEY
from .common import integer, one
from .duckdb_schema import SCHEMA_VERSION, TABLES, quiet, schema

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

    from .duckdb_ledger import DuckDBLedger

_BATCH_ROWS = 4096


def identifier(name: str) -> str:
    """A double-quoted SQL identifier; quotes inside are doubled so a name can never end it."""
    if "\x00" in name:
        raise ValueError("an identifier cannot hold NUL")
    return '"' + name.replace('"', '""') + '"'


def create(ledger: DuckDBLedger, model: str, dim: int, key: str | None = None) -> None:
    safefs.private_dir(ledger.path.parent)
    with ledger.write() as session:
        for statement in schema(dim):
            session.conn.execute(statement)
        existing = session.meta()
        defaults = {
            "schema_version": str(SCHEMA_VERSION),
            "embedding_model": model,
            "embedding_dim": str(dim),
            LEDGER_KEY: key or ledger_key.new(),
        }
        for key, value in defaults.items():
            if key not in existing:
                session.conn.execute("INSERT INTO meta VALUES (?, ?)", [key, value])
    os.chmod(ledger.path, 0o600)


def _columns(conn: DuckDBPyConnection, table: str) -> list[str]:
    return [
        r[0]
        for r in conn.execute(
            "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() "
            "AND table_name = ? "
            "ORDER BY column_index",
            [table],
        ).fetchall()
    ]


def _copy(old: DuckDBPyConnection, new: DuckDBPyConnection, table: str) -> None:
    """Stream one table from ``old`` into ``new`` in Arrow batches (bounded memory at any size)."""
    import pyarrow as pa

    names = ", ".join(identifier(c) for c in _columns(old, table))
    # the audit log keeps its insertion order
    order = " ORDER BY rowid" if table == "audit" else ""
    reader = old.sql(f"SELECT {names} FROM {identifier(table)}{order}").to_arrow_reader(_BATCH_ROWS)
    for batch in reader:
        new.register("hindsight_batch", pa.Table.from_batches([batch]))
        try:
            new.execute(
                f"INSERT INTO {identifier(table)} ({names}) SELECT {names} FROM hindsight_batch"
            )
        finally:
            new.unregister("hindsight_batch")


# the name of a rewrite's new file beside the ledger: this prefix, then the writer's pid
_REWRITE_PREFIX = ".{}.rewrite-"


def sweep_rewrites(path: Path) -> int:
    """Delete every rewrite a killed process left beside the ledger at ``path`` (the new file and
    its write-ahead log). Call it only while holding the ledger's lock exclusively. Returns how
    many files went."""
    prefix = _REWRITE_PREFIX.format(path.name)
    removed = 0
    try:
        names = os.listdir(path.parent)
    except OSError:
        return 0
    for name in names:
        if name.startswith(prefix):
            try:
                os.unlink(path.parent / name)
                removed += 1
            except FileNotFoundError:
                pass
    return removed


def scrub(ledger: DuckDBLedger) -> bool:
    """Rewrite the ledger into a new file that holds only live data, then swap it in.

    DuckDB reuses the blocks of deleted rows but never wipes them, so after a hard forget the old
    bytes would stay in the file. Holding the lock file exclusively means no other process has the
    file open; they wait, then open the new file. The new file is written through its own connection
    (its path is an argument, never SQL text). Returns False where there is no lock file to hold
    (Windows).
    """
    try:
        import fcntl  # noqa: F401
    except ImportError:
        return False
    import duckdb

    fresh = ledger.path.with_name(f"{_REWRITE_PREFIX.format(ledger.path.name)}{os.getpid()}")
    with ledger._locks(exclusive=True):
        # A rewrite killed before its swap left a whole copy of the ledger under its own pid's
        # name: no rewrite is under way while this lock is held, so every such copy goes (one
        # kept would hold the text of every memory a later hard forget forgets).
        sweep_rewrites(ledger.path)
        old = ledger._open(False)
        try:
            old.execute("CHECKPOINT")
            dim = int(dict(old.execute("SELECT key, value FROM meta").fetchall())["embedding_dim"])
            head = int(one(old.execute("SELECT coalesce(max(seq), 0) FROM memories"))[0])
            with closing(duckdb.connect(str(fresh))) as new:
                quiet(new)
                for statement in schema(dim, start=head + 1):
                    new.execute(statement)
                for table in TABLES:
                    _copy(old, new, table)
                new.execute("CHECKPOINT")
        finally:
            # detached before the new file takes its place
            ledger._close(old)
        os.chmod(fresh, 0o600)
        with open(fresh, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(fresh, ledger.path)
    ledger.mark_changed()
    return True


__all__ = ["create", "identifier", "integer", "scrub", "sweep_rewrites"]
