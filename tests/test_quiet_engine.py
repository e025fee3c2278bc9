"""DuckDB draws a progress bar on the process's stdout (past Python's ``sys.stdout``) for any query
that runs longer than its wait, two seconds by default (a loaded machine, a large ledger, a hard
forget's copy): seen in the JSON of a replay's ``--json`` output, which no longer parsed. Every
connection hindsight opens turns it off (``duckdb_schema.quiet``).

The tests run hindsight in a child whose every DuckDB query outlasts the wait, the way a slow
machine would, and read what reaches stdout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fake_embedder import FakeEmbedder

from hindsight_cli import embedding
from hindsight_cli.store import Store

# every connection the child opens (the process's database, each cursor of it, the rewrite's copy)
# waits 0 ms before it draws from its first query on (DuckDB's own setting)
DRIVER = """
import os
import sys
sys.path.insert(0, {tests!r})
import duckdb
from fake_embedder import FakeEmbedder
from hindsight_cli import embedding
from hindsight_cli.storage.sql import duckdb_instance

embedding._CACHE[embedding.DEFAULT_MODEL] = FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)


class Slow:
    \"\"\"A connection whose every query but its settings outlasts DuckDB's wait before it draws.\"\"\"

    def __init__(self, real):
        self.real, self.waits, self.settings = real, True, []

    def __getattr__(self, name):
        return getattr(self.real, name)

    def execute(self, sql, *args, **kwargs):
        setting = sql.lstrip().upper().startswith("SET ")
        if self.waits and not setting:
            self.real.execute("SET progress_bar_time = 0")
            # setting the wait turns the bar on again: the settings hindsight made come again
            # after it, each hushed (a setting never outlasts the wait; here it would)
            for made in self.settings:
                hushed(self.real.execute, made)
            self.waits = False
        if setting:
            self.settings.append(sql)
        return self.real.execute(sql, *args, **kwargs)

    def cursor(self):
        return Slow(self.real.cursor())


def hushed(call, *args):
    sys.stdout.flush()
    saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    try:
        return call(*args)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


class Engine:
    def __init__(self, real):
        self.real = real

    def __getattr__(self, name):
        return getattr(self.real, name)

    def connect(self, *args, **kwargs):
        return Slow(self.real.connect(*args, **kwargs))


real_engine, real_connect = duckdb_instance.engine, duckdb.connect
duckdb_instance.engine = lambda: Engine(real_engine())
duckdb.connect = lambda *args, **kwargs: Slow(real_connect(*args, **kwargs))
sys.argv = ["hindsight", *sys.argv[1:]]
from hindsight_cli.cli import main
main()
"""
BAR = ("\r", "\u2595", "\u258f", "%")


def _driver() -> list[str]:
    return [sys.executable, "-c", DRIVER.format(tests=str(Path(__file__).parent))]


def _fake() -> FakeEmbedder:
    # under the bundled model's name, as the child's
    return FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)


def _store(tmp_path: Path) -> Path:
    path = tmp_path / "s"
    store = Store(path, embedder=_fake())
    for n in range(3):
        store.record(f"the staging database listens on port 543{n}", task_id=f"t{n}")
    return path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*_driver(), *args], capture_output=True, text=True, timeout=120)


def test_json_output_is_only_json_however_long_a_query_takes(tmp_path: Path) -> None:
    store = str(_store(tmp_path))
    for args in (["search", "staging database", "--json"], ["list", "--json"], ["stats", "--json"]):
        done = _run(*args, "--store", store)
        assert done.returncode == 0, done.stderr
        json.loads(done.stdout)
        assert not any(mark in done.stdout for mark in BAR[:3]), (args, done.stdout[:200])


def test_a_hard_forget_prints_no_bar_while_it_copies_the_ledger(tmp_path: Path) -> None:
    path = _store(tmp_path)
    victim = Store(path, embedder=_fake()).list(limit=1)[0].id
    done = _run("forget", victim, "--hard", "-y", "--store", str(path))
    assert done.returncode == 0, done.stderr
    assert not any(mark in done.stdout for mark in BAR[:3]), done.stdout[:200]
