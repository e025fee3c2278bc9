"""What the in-memory index of a long-lived process reads from the local ledger
(``storage.hot_sync``): the rows changed since a change sequence number, columnar (Arrow, vectors
included, no Python objects per value), with their keyword postings exactly as the ledger holds
them, and every row's (id, seq) for a reconciliation. Fixed SQL, every value a bound parameter."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..rows import COLUMNS
from .common import one

if TYPE_CHECKING:
    import pyarrow as pa
    from duckdb import DuckDBPyConnection

_ROWS = (
    f"SELECT {', '.join('m.' + c for c in COLUMNS)}, m.seq, m.doc_len, m.embedding FROM "
    f"memories m WHERE "
)
_POSTINGS = "SELECT m.seq, t.term, t.tf FROM terms t JOIN memories m ON m.id = t.id WHERE "
# a long memory's further windows (written in the same transaction as its row, so a row's seq covers
# them)
_CHUNKS = "SELECT m.seq, c.embedding FROM chunks c JOIN memories m ON m.id = c.id WHERE "


@dataclass(frozen=True)
class Changes:
    """Rows, their postings and chunks: ``rows`` holds ``COLUMNS`` + seq, doc_len, embedding
    (ordered by seq); ``postings`` holds (seq, term, tf) and ``chunks`` (seq, embedding), the seq
    naming the row each belongs to."""

    rows: pa.Table
    postings: pa.Table
    chunks: pa.Table


def head(conn: DuckDBPyConnection) -> tuple[int, int, int, dict[str, str]]:
    """The highest change sequence number, the number of rows and of chunks, and the ledger's meta
    table."""
    top, count = one(conn.execute("SELECT coalesce(max(seq), 0), count(*) FROM memories"))
    chunks = one(conn.execute("SELECT count(*) FROM chunks"))[0]
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    return int(top), int(count), int(chunks), meta


def changed_since(conn: DuckDBPyConnection, seq: int) -> Changes:
    """Every row whose change sequence number is above ``seq``."""
    rows = conn.sql(_ROWS + "m.seq > ? ORDER BY m.seq", params=[int(seq)]).to_arrow_table()
    postings = conn.sql(_POSTINGS + "m.seq > ?", params=[int(seq)]).to_arrow_table()
    chunks = conn.sql(
        _CHUNKS + "m.seq > ? ORDER BY m.seq, c.part", params=[int(seq)]
    ).to_arrow_table()
    return Changes(rows, postings, chunks)


def by_ids(conn: DuckDBPyConnection, ids: Sequence[str]) -> Changes:
    """The rows with these ids (a reconciliation's missing or changed ones)."""
    wanted = [str(i) for i in ids]
    rows = conn.sql(
        _ROWS + "list_contains(?::VARCHAR[], m.id) ORDER BY m.seq", params=[wanted]
    ).to_arrow_table()
    postings = conn.sql(
        _POSTINGS + "list_contains(?::VARCHAR[], m.id)", params=[wanted]
    ).to_arrow_table()
    chunks = conn.sql(
        _CHUNKS + "list_contains(?::VARCHAR[], m.id) ORDER BY m.seq, c.part", params=[wanted]
    ).to_arrow_table()
    return Changes(rows, postings, chunks)


def versions(conn: DuckDBPyConnection) -> dict[str, int]:
    """Every row's id and change sequence number."""
    table = conn.sql("SELECT id, seq FROM memories").to_arrow_table()
    return dict(zip(table.column("id").to_pylist(), table.column("seq").to_pylist()))
