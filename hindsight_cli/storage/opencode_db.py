"""A read-only adapter over OpenCode's own SQLite database (``opencode.db``, OpenCode 1.2 and
later), for ``hindsight mine opencode``: the SQL that reads another program's store lives here, with
the rest of the SQL, and binds every value. Schema: ``session`` (id, directory, title, parent_id,
time_created, time_updated), ``message`` (id, session_id, time_created, data) and ``part`` (id,
message_id, data), the last two holding JSON; docs/import.md says which OpenCode versions were
checked."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import InvalidInput

Error = sqlite3.Error


@contextmanager
def opened(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection (OpenCode may be writing: WAL readers see a consistent snapshot)."""
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    except sqlite3.Error as error:
        raise InvalidInput(f"Cannot open the OpenCode database {path}: {error}") from None
    try:
        yield conn
    finally:
        conn.close()


def is_opencode(path: Path) -> bool:
    """Whether ``path`` is a SQLite database with OpenCode's ``part`` table."""
    try:
        with opened(path) as conn:
            return (
                conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'part'").fetchone()
                is not None
            )
    except (sqlite3.Error, InvalidInput):
        return False


def sessions(path: Path) -> tuple[list[tuple[Any, ...]], dict[str, int]]:
    """Every session as (id, directory, title, parent_id, time_updated), oldest first, and each
    session's number of messages."""
    with opened(path) as conn:
        counts = dict(
            conn.execute("SELECT session_id, count(*) FROM message GROUP BY session_id").fetchall()
        )
        rows = conn.execute(
            "SELECT id, directory, title, parent_id, time_updated FROM session "
            "ORDER BY time_created, id"
        ).fetchall()
    return rows, counts


def messages(path: Path, session: str) -> list[tuple[str, Any]]:
    """A session's messages in order, as (id, data)."""
    with opened(path) as conn:
        return list(
            conn.execute(
                "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id",
                [session],
            ).fetchall()
        )


def parts(conn: sqlite3.Connection, message: str) -> list[Any]:
    """A message's parts' data, in order."""
    return [
        row[0]
        for row in conn.execute(
            "SELECT data FROM part WHERE message_id = ? ORDER BY id", [message]
        ).fetchall()
    ]
