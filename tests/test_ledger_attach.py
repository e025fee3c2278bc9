"""The ledger is attached to one DuckDB database per process for each session, never held: between
operations another process opens the file read-write at once; threads of one process share it; a
child forked between operations works on a database of its own. (A child forked while a session of
its parent has the file attached cannot attach it: DuckDB's registry of attached files is
process-wide and the child inherits it, as it inherited DuckDB's cache of open files before.)"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
from contextlib import nullcontext
from pathlib import Path

import pytest

from hindsight_cli.storage.sql import duckdb_instance
from hindsight_cli.store import Store

pytestmark = pytest.mark.local_only

# opens the file read-write with DuckDB's own connect, no retry: fails while anything holds it
OPEN_READ_WRITE = """
import sys, duckdb
conn = duckdb.connect(sys.argv[1])
print(conn.execute("SELECT count(*) FROM memories").fetchone()[0])
conn.close()
"""


def _attached() -> list[str]:
    return sorted(duckdb_instance._PROCESS[0].attached) if duckdb_instance._PROCESS else []


def test_between_operations_another_process_opens_the_file_read_write(store: Store) -> None:
    store.record("the nightly export failed on a full disk", merge=False)
    store.search("nightly export")
    store.list()
    with store.ledger.read():
        assert _attached() == [str(store.ledger.path)]  # type: ignore[attr-defined]
    assert _attached() == []
    opened = subprocess.run(
        [sys.executable, "-c", OPEN_READ_WRITE, str(store.ledger.path)],  # type: ignore[attr-defined]
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (opened.returncode, opened.stdout.strip()) == (0, "1"), opened.stderr


def test_a_query_larger_than_memory_spills_into_the_users_cache_not_the_working_directory(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hindsight_cli import paths

    # this test's own database, started under this test's home
    monkeypatch.setattr(duckdb_instance, "_PROCESS", [])
    with store.ledger.read() as session:
        setting = session.conn.execute("SELECT current_setting('temp_directory')").fetchone()
    assert setting == (str(paths.user_cache_dir() / "duckdb-spill"),)


def test_threads_read_and_write_one_store_at_once(store: Store) -> None:
    errors: list[BaseException] = []
    found: list[int] = []

    def write(n: int) -> None:
        try:
            for i in range(5):
                store.record(f"thread {n} wrote memory {i} about the cache", merge=False)
        except BaseException as error:  # noqa: BLE001 - collected for the assertion
            errors.append(error)

    def read() -> None:
        try:
            for _ in range(10):
                found.append(len(store.list(limit=None)))
        except BaseException as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(3)]
    threads += [threading.Thread(target=read) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(store.list(limit=None)) == 15
    assert len(found) == 30 and all(0 <= n <= 15 for n in found)
    assert _attached() == []


def test_closing_a_session_twice_leaves_the_others_attached(store: Store) -> None:
    path = store.ledger.path  # type: ignore[attr-defined]
    with store.ledger.read() as first:
        second = duckdb_instance.connect(path, read_only=True)
        duckdb_instance.close(second, path)
        duckdb_instance.close(second, path)
        assert first.conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)
    assert _attached() == []


def test_a_writer_waits_for_this_processs_readers_of_its_file(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the lock files order nothing (Windows, a lock file that cannot be opened), a writer
    that finds the file attached read-only here waits as for another process's lock."""
    path = store.ledger.path  # type: ignore[attr-defined]
    held = duckdb_instance.connect(path, read_only=True)
    refused = threading.Event()
    connect = duckdb_instance.connect

    def noting(at: Path, read_only: bool) -> object:
        try:
            return connect(at, read_only)
        except duckdb_instance.AttachedReadOnly:
            refused.set()
            raise

    monkeypatch.setattr(duckdb_instance, "connect", noting)
    # the ledger's own lock files stand aside, as where there are none
    monkeypatch.setattr(type(store.ledger), "_locks", lambda self, exclusive: nullcontext())
    errors: list[BaseException] = []

    def write() -> None:
        try:
            store.record("written once the readers let go", merge=False)
        except BaseException as error:  # noqa: BLE001 - collected for the assertion
            errors.append(error)

    writer = threading.Thread(target=write)
    writer.start()
    assert refused.wait(timeout=60)
    duckdb_instance.close(held, path)
    writer.join(timeout=60)
    assert errors == []
    assert [m.content for m in store.list(limit=None)] == ["written once the readers let go"]


def _child(path: str, embedder: object, queue: multiprocessing.Queue[object]) -> None:
    try:
        store = Store(Path(path), embedder=embedder)  # type: ignore[arg-type]
        store.record("the forked child recorded this", merge=False)
        own = duckdb_instance._PROCESS[0].pid == os.getpid()
        queue.put((len(store.list(limit=None)), own))
    except BaseException as error:  # noqa: BLE001 - reported to the parent
        queue.put(repr(error))


@pytest.mark.skipif(sys.platform != "linux", reason="fork")
def test_a_forked_child_works_on_a_database_of_its_own(store: Store, fake: object) -> None:
    store.record("the parent recorded this first", merge=False)
    parent = duckdb_instance._PROCESS[0]
    context = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue[object] = context.Queue()
    child = context.Process(target=_child, args=(str(store.path), fake, queue))
    child.start()
    # the parent goes on with its own database while the child writes through one of its own
    assert len(store.list(limit=None)) >= 1
    assert queue.get(timeout=120) == (2, True)
    child.join(timeout=120)
    assert child.exitcode == 0
    assert duckdb_instance._PROCESS[0] is parent
    assert len(store.list(limit=None)) == 2


# Each store operation in a process that has not imported the ``duckdb`` package: the ledger
# connects through DuckDB's engine module alone, and the operations that need the package's Python
# layer (Arrow inserts, the in-memory index's feed, the rewrite after a hard forget) import it.
ENGINE_ONLY = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from fake_embedder import FakeEmbedder
from hindsight_cli.store import Store
assert "duckdb" not in sys.modules
store = Store(Path(sys.argv[1]), embedder=FakeEmbedder(), warm=sys.argv[3] == "warm")
"""

OPERATIONS = {
    "record": 'store.record("the deploy failed: the registry token expired", merge=False)',
    "import": 'store.import_records([{"content": f"imported note {i}"} for i in range(3)])',
    "warm search": 'assert store.search("registry token").hits',
    "export": "assert list(store.export())",
    "hard forget": "store.forget([store.list()[0].id], hard=True)",
}


@pytest.mark.slow
@pytest.mark.parametrize("operation", OPERATIONS)
def test_each_operation_works_without_the_duckdb_package_imported_first(
    store: Store, operation: str
) -> None:
    store.record("the registry token expired again", merge=False)
    code = ENGINE_ONLY + OPERATIONS[operation] + "\nprint('ok')\n"
    warm = "warm" if operation == "warm search" else "cold"
    done = subprocess.run(
        [sys.executable, "-c", code, str(store.path), str(Path(__file__).parent), warm],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert (done.returncode, done.stdout.strip()) == (0, "ok"), done.stderr[-2000:]
