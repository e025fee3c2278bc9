"""What the in-memory index of a long-lived process reads from the local ledger (``storage.hot_sync``):
the rows changed since a change sequence number, columnar (Arrow, vectors included, no Python objects per
value), with their keyword postings exactly as the ledger holds them, and every row's (id, seq) for a
reconciliation. Fixed SQL, every value a bound parameter."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..rows import COLUMNS

_ROWS = f"SELECT {', '.join('m.' + c for c in COLUMNS)}, m.seq, m.doc_len, m.embedding FROM memories m WHERE "
_POSTINGS = "SELECT m.seq, t.term, t.tf FROM terms t JOIN memories m ON m.id = t.id WHERE "


@dataclass(frozen=True)
class Changes:
    """Rows and their postings: ``rows`` holds ``COLUMNS`` + seq, doc_len, embedding (ordered by seq);
    ``postings`` holds (seq, term, tf), the seq naming the row it belongs to."""

    rows: Any  # pyarrow.Table
    postings: Any  # pyarrow.Table


def head(conn: Any) -> tuple[int, int, dict[str, str]]:
    """The highest change sequence number, the number of rows, and the ledger's meta table."""
    top, count = conn.execute("SELECT coalesce(max(seq), 0), count(*) FROM memories").fetchone()
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    return int(top), int(count), meta


def changed_since(conn: Any, seq: int) -> Changes:
    """Every row whose change sequence number is above ``seq``."""
    rows = conn.sql(_ROWS + "m.seq > ? ORDER BY m.seq", params=[int(seq)]).to_arrow_table()
    postings = conn.sql(_POSTINGS + "m.seq > ?", params=[int(seq)]).to_arrow_table()
    return Changes(rows, postings)


def by_ids(conn: Any, ids: Sequence[str]) -> Changes:
    """The rows with these ids (a reconciliation's missing or changed ones)."""
    wanted = [str(i) for i in ids]
    rows = conn.sql(_ROWS + "list_contains(?::VARCHAR[], m.id) ORDER BY m.seq", params=[wanted]).to_arrow_table()
    postings = conn.sql(_POSTINGS + "list_contains(?::VARCHAR[], m.id)", params=[wanted]).to_arrow_table()
    return Changes(rows, postings)


def versions(conn: Any) -> dict[str, int]:
    """Every row's id and change sequence number."""
    table = conn.sql("SELECT id, seq FROM memories").to_arrow_table()
    return dict(zip(table.column("id").to_pylist(), table.column("seq").to_pylist()))
