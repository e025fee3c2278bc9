"""One DuckDB database per process, each ledger file attached to it for the sessions that use it.

Opening a DuckDB file starts a database of its own, and building that database's catalog of
built-in functions costs 11–13 ms of CPU every time; attaching a file to a database kept for the
process costs about 1 ms. A long-running process (the MCP server, the web UI, an evaluation, a
Python program) pays the first once instead of at every operation.

What other processes see does not change: the file is attached only while a session works on it.
Sessions on one file share its attachment and the last one to finish detaches it, which checkpoints
and releases DuckDB's lock on the file as closing a connection did. Readers share a read-only
attachment; a writer attaches it read-write and alone (the ledger's lock files order the sessions of
every thread and process; where they are missing, a writer that finds the file attached read-only
here waits as it would for another process). A forked child starts a database of its own.

The file's path is a bound parameter of ``ATTACH``, never SQL text; the alias is a name this module
makes (``ledger`` and a counter), quoted as every identifier is.

A file holds hindsight's tables, their indexes and a sequence, nothing else: DuckDB keeps views and
macros in the file and runs them as the process that reads it, and a ledger's own database is
searched before the built-in functions, so a view named ``memories`` or a macro named ``coalesce``
in a ledger a repository ships would read any of the user's files (``read_text``) into what
hindsight prints and injects. A file holding one is detached unread (``ForeignSql``).
"""

from __future__ import annotations

import importlib
import itertools
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from ... import paths
from ...errors import UnsafeLocation
from .duckdb_rewrite import identifier
from .duckdb_schema import quiet

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection


def engine() -> ModuleType:
    """DuckDB's engine: the compiled module the ``duckdb`` package wraps, which holds all a session
    uses (``connect``, the connection, its statements, the exceptions). The package's Python layer
    on top (relational API, expression builder, a version lookup through ``importlib.metadata``)
    costs a cold search ~40 ms of CPU beside the model's load, and imports that stall the model's
    own; only Arrow scans and relations need it (``python_layer``). A DuckDB whose engine is not a
    module of its own is the package itself."""
    try:
        return importlib.import_module("_duckdb")
    except ImportError:
        return importlib.import_module("duckdb")


def python_layer() -> None:
    """The ``duckdb`` package over its engine, before a connection registers an Arrow table or
    asks for a relation (``conn.sql``): those are the package's Python code."""
    import duckdb  # noqa: F401


class ForeignSql(UnsafeLocation):
    """A ledger file holding a view or a macro: SQL that is not hindsight's, refused unread."""


# what in an attached file is SQL that runs when hindsight names a table or calls a function
_FOREIGN_SQL = (
    "SELECT 'a view', schema_name, view_name FROM duckdb_views() "
    "WHERE database_name = ? AND NOT internal "
    "UNION ALL SELECT 'a macro', schema_name, function_name FROM duckdb_functions() "
    "WHERE database_name = ? LIMIT 1"
)
# the files found to hold none, with their state then: a process checks a file once per change
# (listing the functions costs ~15 ms; a long-lived process attaches a file at every read)
_CHECKED: dict[str, tuple[object, ...]] = {}


def _state(key: str) -> tuple[object, ...]:
    out: list[object] = []
    for name in (key, key + ".wal"):
        try:
            st = os.stat(name)
        except OSError:
            out.append(None)
            continue
        out.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(out)


def _refuse_foreign_sql(
    process: _Process, key: str, alias: str, before: tuple[object, ...]
) -> None:
    """Detach ``alias`` and raise ``ForeignSql`` when the file attached there holds a view or a
    macro; remember a clean file's state."""
    if _CHECKED.get(key) == before:
        return
    found = process.database.execute(_FOREIGN_SQL, [alias, alias]).fetchone()
    if found is None:
        if _state(key) == before:
            _CHECKED[key] = before
        return
    process.database.execute(f"DETACH {identifier(alias)}")
    what, schema, name = found
    store = os.path.dirname(key)
    raise ForeignSql(
        f"The ledger {key} holds {what} ({schema}.{name}), which hindsight never makes: SQL its "
        "author wrote, which would run as you whenever hindsight reads the file (a view or a "
        "macro can read any of your files). hindsight does not open it; if the store came with "
        f"a repository, move it away (mv {store} {store}.untrusted)."
    )


class AttachedReadOnly(Exception):
    """A writer found its file attached read-only by this process's readers: it waits and retries,
    as for another process's lock."""


@dataclass
class _Attachment:
    alias: str
    read_only: bool
    # the sessions' connections (by id) that use it now
    users: set[int] = field(default_factory=set)


@dataclass
class _Process:
    pid: int
    database: DuckDBPyConnection
    attached: dict[str, _Attachment] = field(default_factory=dict)
    names: itertools.count[int] = field(default_factory=itertools.count)


_LOCK = threading.Lock()
_PROCESS: list[_Process] = []


def _process() -> _Process:
    """This process's database (under ``_LOCK``); a forked child never touches its parent's."""
    if not _PROCESS or _PROCESS[0].pid != os.getpid():
        # where a query larger than memory spills: the user's own cache directory (an in-memory
        # database would use ``.tmp`` in the working directory; a file's own was beside it)
        spill = str(paths.user_cache_dir() / "duckdb-spill")
        database = engine().connect(":memory:", config={"temp_directory": spill})
        quiet(database)
        _PROCESS[:] = [_Process(os.getpid(), database)]
    return _PROCESS[0]


def connect(path: Path, read_only: bool) -> DuckDBPyConnection:
    """A connection of its own whose default database is the file at ``path``; give it back with
    ``close``. Raises DuckDB's own errors (a lock held by another process, a missing file) and
    ``AttachedReadOnly``."""
    key = str(path)
    with _LOCK:
        process = _process()
        attachment = process.attached.get(key)
        if attachment is not None and not attachment.users and attachment.read_only != read_only:
            # left attached by a detach that failed: detach it now, or attach it again below
            _let_go(process, key, None)
            attachment = None
        if attachment is None:
            attachment = _Attachment(f"ledger{next(process.names)}", read_only)
            before = _state(key)
            if read_only:
                process.database.execute(
                    f"ATTACH ? AS {identifier(attachment.alias)} (READ_ONLY)", [key]
                )
            else:
                process.database.execute(f"ATTACH ? AS {identifier(attachment.alias)}", [key])
            _refuse_foreign_sql(process, key, attachment.alias, before)
            process.attached[key] = attachment
        elif attachment.read_only and not read_only:
            raise AttachedReadOnly
        conn = process.database.cursor()
        attachment.users.add(id(conn))
        try:
            quiet(conn)
            conn.execute(f"USE {identifier(attachment.alias)}")
        except BaseException:
            _let_go(process, key, conn)
            raise
    return conn


def close(conn: DuckDBPyConnection, path: Path) -> None:
    """Close a connection from ``connect``; the file's last one detaches it (a checkpoint). Closing
    one twice changes nothing."""
    conn.close()
    with _LOCK:
        process = _process()
        if str(path) in process.attached:
            _let_go(process, str(path), conn)


def _let_go(process: _Process, key: str, conn: DuckDBPyConnection | None) -> None:
    attachment = process.attached[key]
    attachment.users.discard(id(conn))
    if not attachment.users:
        try:
            process.database.execute(f"DETACH {identifier(attachment.alias)}")
        except engine().Error:
            # a checkpoint that failed (a disk full) detaches it all the same, what was committed
            # kept in the WAL for the next attach: no error for a write already made (it was a
            # traceback after `record` had recorded; review AX). Still attached otherwise, for the
            # next session to reuse and detach.
            found = process.database.execute(
                "SELECT count(*) FROM duckdb_databases() WHERE database_name = ?",
                [attachment.alias],
            ).fetchone()
            if found and found[0]:
                return
        del process.attached[key]


__all__ = ["AttachedReadOnly", "ForeignSql", "close", "connect", "engine", "python_layer"]
