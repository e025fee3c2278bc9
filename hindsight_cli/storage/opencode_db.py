"""A read-only adapter over OpenCode's own SQLite database (``opencode.db``, OpenCode 1.2 and
later), for ``hindsight mine opencode``: the SQL that reads another program's store lives here, with
the rest of the SQL, and binds every value. Schema: ``session`` (id, directory, title, parent_id,
time_created, time_updated), ``message`` (id, session_id, time_created, data) and ``part`` (id,
message_id, data), the last two holding JSON; docs/import.md says which OpenCode versions were
checked."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..safefs.reading import MAX_IMPORT_VALUES, MAX_LINE, count_values, open_regular, size_text

Error = sqlite3.Error


# rows one query may return (sessions of a database, messages of a session, parts of a message)
MAX_ROWS = 1_000_000
# SQLite virtual-machine steps one connection may take (about a minute of work): a bound that holds
# whatever the file holds, though only real tables are read
MAX_STEPS = 4_000_000_000
_STEP = 10_000
# bytes of text and blobs one query may hand back in all (its rows are held together): a value is
# at most ``MAX_LINE``, and a million of them must not be held at once
MAX_HELD = 256 << 20
# and at most this many JSON values in them (``safefs.reading.count_values``), which the miner holds
# decoded together: 256 MiB of "{}," is 90 million dicts
MAX_HELD_VALUES = MAX_IMPORT_VALUES
_TABLES = ("session", "message", "part")


@contextmanager
def opened(path: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection (OpenCode may be writing: WAL readers see a consistent snapshot), to a
    regular file (SQLite's open of a FIFO would wait for a writer), with a value at most
    ``MAX_LINE`` long and at most ``MAX_STEPS`` of work."""
    try:
        open_regular(path).close()
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    except (OSError, sqlite3.Error) as error:
        raise InvalidInput(f"Cannot open the OpenCode database {path}: {error}") from None
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_LINE)
    steps = [0]

    def tick() -> int:
        steps[0] += _STEP
        return int(steps[0] > MAX_STEPS)

    conn.set_progress_handler(tick, _STEP)
    try:
        yield conn
    finally:
        conn.close()


def _tables(conn: sqlite3.Connection, path: Path, names: tuple[str, ...] = _TABLES) -> None:
    """Refuse a database whose ``session``, ``message`` or ``part`` is not a plain table: a view can
    be made to compute forever (an endless recursive one), and so can a virtual table or a column
    computed on every read (``GENERATED … VIRTUAL``: a 24 KiB file whose every row reads as 50 MB
    of ``printf``), which OpenCode never writes; a stored table cannot."""
    marks = ", ".join("?" * len(names))
    found = {
        name: (kind, str(sql or ""))
        for name, kind, sql in _rows(
            conn,
            path,
            f"SELECT name, type, sql FROM sqlite_master WHERE name IN ({marks})",
            names,
        )
    }
    for name in names:
        kind, sql = found.get(name, ("", ""))
        what = f"is {'a ' + kind if kind else 'missing'}, not a table"
        if kind == "table" and sql.lstrip().upper().startswith("CREATE VIRTUAL"):
            what = "is a virtual table, not a stored one"
        elif kind == "table":
            computed = [
                str(column)
                for column, hidden in _rows(
                    conn, path, "SELECT name, hidden FROM pragma_table_xinfo(?)", [name]
                )
                # 2: computed on every read (3, stored, is read as it was written)
                if hidden == 2
            ]
            if not computed:
                continue
            what = f"computes {', '.join(computed)} on every read (a generated column)"
        raise InvalidInput(
            f"{path} is not an OpenCode database hindsight reads: its {name} {what}; give the "
            "opencode.db OpenCode wrote."
        )


def _rows(conn: sqlite3.Connection, path: Path, sql: str, args: Sequence[Any]) -> list[Any]:
    """A query's rows, at most ``MAX_ROWS`` of them holding at most ``MAX_HELD`` bytes of text and
    blobs and ``MAX_HELD_VALUES`` JSON values (and its work bounded by the connection)."""
    rows: list[Any] = []
    held = values = 0
    try:
        for row in conn.execute(sql, args):
            rows.append(row)
            held += sum(len(v) for v in row if isinstance(v, (str, bytes)))
            values += sum(count_values(v) for v in row if isinstance(v, (str, bytes)))
            if len(rows) > MAX_ROWS:
                raise InvalidInput(
                    f"{path} holds more than {MAX_ROWS:,} rows where OpenCode writes far fewer; "
                    "check the file."
                )
            if held > MAX_HELD or values > MAX_HELD_VALUES:
                limit = (
                    size_text(MAX_HELD) if held > MAX_HELD else f"{MAX_HELD_VALUES:,} JSON values"
                )
                raise InvalidInput(
                    f"{path} holds more than {limit} in the rows of one query "
                    "(a session's messages, a message's parts), more than hindsight holds at once; "
                    "check the file."
                )
    except sqlite3.Error as error:
        if "interrupted" in str(error):
            raise InvalidInput(
                f"Reading {path} took more work than any OpenCode database needs; check the file."
            ) from None
        # SQLite reads the file at the first query, not at the open: not a database, a damaged
        # one, a table without OpenCode's columns
        raise InvalidInput(
            f"Cannot read the OpenCode database {path}: {error}; give the opencode.db OpenCode "
            "wrote."
        ) from None
    return rows


def is_opencode(path: Path) -> bool:
    """Whether ``path`` is a SQLite database with OpenCode's ``part`` table."""
    try:
        with opened(path) as conn:
            _tables(conn, path, ("part",))
            return True
    except (sqlite3.Error, InvalidInput):
        return False


def sessions(path: Path) -> tuple[list[tuple[Any, ...]], dict[str, int]]:
    """Every session as (id, directory, title, parent_id, time_updated), oldest first, and each
    session's number of messages."""
    with opened(path) as conn:
        _tables(conn, path)
        counts = dict(
            _rows(conn, path, "SELECT session_id, count(*) FROM message GROUP BY session_id", [])
        )
        rows = _rows(
            conn,
            path,
            "SELECT id, directory, title, parent_id, time_updated FROM session "
            "ORDER BY time_created, id",
            [],
        )
    return rows, counts


def messages(path: Path, session: str) -> list[tuple[str, Any]]:
    """A session's messages in order, as (id, data)."""
    with opened(path) as conn:
        _tables(conn, path)
        return _rows(
            conn,
            path,
            "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id",
            [session],
        )


def parts(conn: sqlite3.Connection, message: str, path: Path) -> list[Any]:
    """A message's parts' data, in order (the connection's database was checked when its messages
    were read)."""
    return [
        row[0]
        for row in _rows(
            conn, path, "SELECT data FROM part WHERE message_id = ? ORDER BY id", [message]
        )
    ]
