"""A hard forget killed (SIGKILL) at the worst moment of its scrubs: whatever it leaves behind, the
forgotten text, and the text of every memory a later hard forget forgets, leaves every file of the
store (review R).

Each kill happens at a named point, in the process itself (a driver replaces the function at that
point with one that kills its own process after its Nth call), never after a delay.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kill_points import CLI, TESTS, cli, killed, made

# Runs `hindsight ARGS…` killed right after the COUNTth call of MODULE:ATTR returns.
DRIVER = """
import importlib, os, signal, sys
sys.path.insert(0, {tests!r})
from fake_embedder import FakeEmbedder
from hindsight_cli import embedding
for name, dim in ((embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM),
                  (embedding.MULTILINGUAL_MODEL, embedding.MULTILINGUAL_DIM)):
    embedding._CACHE[name] = FakeEmbedder(name, dim)
where, count = sys.argv[1].rsplit("@", 1)
module, _, attr = where.partition(":")
owner = importlib.import_module(module)
real = getattr(owner, attr)
calls = []
def wrapped(*args, **kwargs):
    answer = real(*args, **kwargs)
    calls.append(1)
    if len(calls) == int(count):
        os.kill(os.getpid(), signal.SIGKILL)
    return answer
setattr(owner, attr, wrapped)
sys.argv = ["hindsight", *sys.argv[2:]]
from hindsight_cli.cli import main
main()
"""


def _killed(point: str, *args: str) -> None:
    killed(DRIVER, point, *args)


def _ok(*args: str) -> str:
    done = cli(*args)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def _holding(store: Path, text: bytes) -> list[str]:
    """The files of the store whose bytes hold ``text``."""
    return [
        str(p.relative_to(store))
        for p in store.rglob("*")
        if p.is_file() and not p.is_symlink() and text in p.read_bytes()
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    "point",
    [
        # the ledger's rewrite (tables meta, memories, terms, audit, chunks), killed after it copied
        # the memories, after the audit log, and after every table, before its swap
        "hindsight_cli.storage.sql.duckdb_rewrite:_copy@2",
        "hindsight_cli.storage.sql.duckdb_rewrite:_copy@4",
        "hindsight_cli.storage.sql.duckdb_rewrite:_copy@5",
    ],
)
def test_a_hard_forget_killed_in_the_ledgers_rewrite_leaves_no_copy_a_later_forget_misses(
    tmp_path: Path, point: str
) -> None:
    """Before: the killed rewrite left `.ledger.duckdb.rewrite-<pid>`, a whole copy of the ledger,
    which no later command removed (each rewrite cleared only its own pid's name): the memories
    a later `forget --hard` forgot stayed on disk in it, readable with DuckDB."""
    store = tmp_path / "mine"
    made("record", "the staging hint is walrus-17", "--store", str(store))
    made("record", "the deploy key lives in vault zebra-42", "--store", str(store))
    listed = json.loads(made("list", "--json", "--store", str(store)))
    ids = {("walrus" in m["content"]): m["id"] for m in listed}
    _killed(point, "forget", ids[True], "--hard", "-y", "--store", str(store))
    # the next command finishes the owed purge
    remaining = json.loads(_ok("list", "--json", "--store", str(store)))
    assert [m["content"] for m in remaining] == ["the deploy key lives in vault zebra-42"]
    assert _holding(store, b"walrus-17") == []
    _ok("forget", ids[False], "--hard", "-y", "--store", str(store))
    assert json.loads(_ok("list", "--json", "--store", str(store))) == []
    assert _holding(store, b"zebra-42") == []
    assert not [p.name for p in store.iterdir() if ".rewrite-" in p.name]


@pytest.mark.slow
def test_a_hard_forget_removes_what_a_killed_index_write_left_unnamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write to the index killed inside LanceDB (a `record`'s sync, a scrub's rewrite) leaves a
    data file no version names, holding whole rows. The kill falls in native code, so its
    leftover is made here as it leaves one: a copy of a live data file under a new name. Before:
    a hard forget's compaction left such files for 7 days (LanceDB's guard for writes still under
    way), holding the forgotten text; now the scrub, which holds the index's write and build
    locks (no write can be under way), removes them."""
    import shutil
    import uuid

    # searches read the LanceDB index (as a long-lived process's, or a big store's, do)
    monkeypatch.setenv("HINDSIGHT_SEARCH_ENGINE", "index")
    store = tmp_path / "mine"
    _ok("record", "the staging hint is walrus-17", "--store", str(store))
    _ok("record", "the vault is zebra-42", "--store", str(store))
    _ok("search", "zebra-42 vault", "--store", str(store))
    data = store / "index.lance" / "memories.lance" / "data"
    (live,) = [p for p in data.iterdir() if b"zebra-42" in p.read_bytes()]
    shutil.copyfile(live, data / f"{uuid.uuid4()}.lance")
    listed = json.loads(_ok("list", "--json", "--store", str(store)))
    (vault,) = [m["id"] for m in listed if "zebra-42" in m["content"]]
    _ok("forget", vault, "--hard", "-y", "--store", str(store))
    assert _holding(store, b"zebra-42") == []
    assert "walrus-17" in _ok("search", "staging hint", "--store", str(store))


# Runs `hindsight ARGS…` held still as it is about to write NAME through `safefs.write_private`
# (under the lock of the file it rewrites): it creates READY, then waits for GO to exist.
HELD = """
import os, sys, time
sys.path.insert(0, {tests!r})
from fake_embedder import FakeEmbedder
from hindsight_cli import embedding, safefs
for name, dim in ((embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM),
                  (embedding.MULTILINGUAL_MODEL, embedding.MULTILINGUAL_DIM)):
    embedding._CACHE[name] = FakeEmbedder(name, dim)
where, ready, go = sys.argv[1:4]
written = safefs.write_private
def write_private(path, *args, **kwargs):
    if os.fspath(path).endswith(where) and not os.path.exists(go):
        open(ready, "w").close()
        while not os.path.exists(go):
            time.sleep(0.01)
    return written(path, *args, **kwargs)
safefs.write_private = write_private
sys.argv = ["hindsight", *sys.argv[4:]]
from hindsight_cli.cli import main
main()
"""


def _until(condition: object, process: subprocess.Popen[str]) -> None:
    """Wait for ``condition()`` (a state another process reaches), failing if ``process`` ends
    first."""
    import time

    while not condition():  # type: ignore[operator]
        assert process.poll() is None, process.communicate()
        time.sleep(0.01)


@pytest.mark.slow
def test_an_ingestion_that_claims_the_spool_during_a_hard_forgets_rewrite_never_brings_it_back(
    tmp_path: Path,
) -> None:
    """A hard forget rewrites `spool/events.jsonl` without the lines of the forgotten text, under
    the file's lock; an ingestion (`hooks flush`, a session end, an MCP server's start) claims the
    spool by renaming that file, then waits for its lock. Before: the rename took the old file
    away under the rewrite's feet: the rewrite wrote the kept lines to a new `events.jsonl` and
    the ingestion read the old one, forgotten line included, and stored the forgotten failure
    again (review R)."""
    import hook_calls

    project = tmp_path / "weather"
    store = project / ".hindsight"
    _ok("init", "--store", str(store))
    hook_calls.fail(project, "s1")
    _ok("hooks", "flush", "--store", str(store))
    (memory,) = [
        m
        for m in json.loads(_ok("list", "--json", "--store", str(store)))
        if hook_calls.FAILED in m["content"]
    ]
    # the same failure again, spooled, not ingested yet
    hook_calls.fail(project, "s2")
    spool = store / "spool"
    assert hook_calls.FAILED in (spool / "events.jsonl").read_text()
    ready, go = tmp_path / "ready", tmp_path / "go"
    forget = subprocess.Popen(
        [sys.executable, "-c", HELD.format(tests=TESTS), "events.jsonl", str(ready), str(go)]
        + ["forget", memory["id"], "--hard", "-y", "--store", str(store)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    flush = None
    try:
        _until(ready.exists, forget)
        flush = subprocess.Popen(
            [
                sys.executable,
                "-c",
                CLI.format(tests=TESTS),
                "hooks",
                "flush",
                "--store",
                str(store),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        # the ingestion has claimed the spool (renamed the file) and waits for its lock
        _until(lambda: not (spool / "events.jsonl").exists(), flush)
    finally:
        go.touch()
        assert forget.wait(timeout=120) == 0, forget.communicate()
        if flush is not None:
            assert flush.wait(timeout=120) == 0, flush.communicate()
    _ok("hooks", "flush", "--store", str(store))
    listed = json.loads(_ok("list", "--json", "--store", str(store)))
    assert [m["content"] for m in listed if hook_calls.FAILED in m["content"]] == []
    assert _holding(store, hook_calls.FAILED.encode()) == []


# Runs `hindsight ARGS…` killed as it is about to rename its COUNTth file into the store's
# `purges/` (the purge journal, written before the delete and again after it): what it wrote to
# the temp file is on disk, the rename never happens.
JOURNAL_KILL = """
import os, signal, sys
sys.path.insert(0, {tests!r})
from fake_embedder import FakeEmbedder
from hindsight_cli import embedding
for name, dim in ((embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM),
                  (embedding.MULTILINGUAL_MODEL, embedding.MULTILINGUAL_DIM)):
    embedding._CACHE[name] = FakeEmbedder(name, dim)
count = int(sys.argv[1])
real = os.replace
seen = []
def replace(src, dst, *args, **kwargs):
    if os.path.basename(os.path.dirname(os.fspath(dst))) == "purges":
        seen.append(dst)
        if len(seen) == count:
            os.kill(os.getpid(), signal.SIGKILL)
    return real(src, dst, *args, **kwargs)
os.replace = replace
sys.argv = ["hindsight", *sys.argv[2:]]
from hindsight_cli.cli import main
main()
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "count",
    [
        # the journal as the purge begins (before the delete): the forget did not happen
        1,
        # the journal again after the delete, naming what it took: the purge is owed
        2,
    ],
)
def test_a_hard_forget_killed_writing_its_journal_leaves_no_copy_of_it(
    tmp_path: Path, count: int
) -> None:
    """Review U. Before: the journal was written to `purges/.NAME.json.tmp`, a name no sweep knew:
    killed before its rename, that file (the forgotten memories' ids, and every word of them as a
    digest beside its salt: each word can be confirmed by guessing it) stayed in the store for good,
    after the rerun (or the next open) had finished the purge."""
    store = tmp_path / "mine"
    made("record", "the staging hint is walrus-17", "--store", str(store))
    made("record", "the deploy key lives in vault zebra-42", "--store", str(store))
    listed = json.loads(made("list", "--json", "--store", str(store)))
    (walrus,) = [m["id"] for m in listed if "walrus" in m["content"]]
    done = subprocess.run(
        [sys.executable, "-c", JOURNAL_KILL.format(tests=TESTS), str(count)]
        + ["forget", walrus, "--hard", "-y", "--store", str(store)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stderr)
    assert list((store / "purges").glob(".*.tmp")), "the kill left no temp file to test"
    if count == 1:
        # nothing was deleted: the user runs the forget again
        _ok("forget", walrus, "--hard", "-y", "--store", str(store))
    remaining = json.loads(_ok("list", "--json", "--store", str(store)))
    assert [m["content"] for m in remaining] == ["the deploy key lives in vault zebra-42"]
    assert _holding(store, b"walrus-17") == []
    # (a killed purge's lock file may stay: it holds nothing)
    left = [p.name for p in (store / "purges").iterdir() if not p.name.endswith(".lock")]
    assert left == []


@pytest.mark.slow
def test_a_journal_temp_file_an_older_version_left_is_swept_by_the_next_hard_forget(
    tmp_path: Path,
) -> None:
    """Review U: a killed purge of a version before this one left its journal's temp file as
    `purges/.NAME.json.tmp`; the next hard forget removes it."""
    store = tmp_path / "mine"
    _ok("record", "the staging hint is walrus-17", "--store", str(store))
    listed = json.loads(_ok("list", "--json", "--store", str(store)))
    (store / "purges").mkdir(mode=0o700, exist_ok=True)
    left = store / "purges" / ".20260101T000000-0a1b2c3d.json.tmp"
    left.write_text('{"ids": ["x"], "salt": "s", "words": ["d"], "reason": null, "actor": "a"}')
    _ok("forget", listed[0]["id"], "--hard", "-y", "--store", str(store))
    assert not left.exists()
    assert [p.name for p in (store / "purges").iterdir() if not p.name.endswith(".lock")] == []
