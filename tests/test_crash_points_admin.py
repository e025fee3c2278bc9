"""A process killed (SIGKILL) at the worst moment of `allow`, `deny`, `init` over a store a checkout
shipped, `migrate --to` and the injection record's retention: a rerun completes, and in between the
store is never trusted more, nor broken more, than before or after the command (review O).

Each kill happens at a named point, in the process itself (a driver replaces the call at that point
with one that kills its own process), never after a delay.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kill_points import TESTS, cli, killed, made

# Runs `hindsight ARGS…` killed at one point: `write:NAME` as the file NAME (a suffix of its path)
# is about to be written through `safefs.write_private`, `unlinked:NAME` right after NAME is
# unlinked (`unlinking:NAME` right before), `after:MODULE:ATTR` right after that function
# returns, `before:MODULE:ATTR` as it is called.
DRIVER = """
import importlib, os, signal, sys
sys.path.insert(0, {tests!r})
from fake_embedder import FakeEmbedder
from hindsight_cli import embedding, safefs
for name, dim in ((embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM),
                  (embedding.MULTILINGUAL_MODEL, embedding.MULTILINGUAL_DIM)):
    embedding._CACHE[name] = FakeEmbedder(name, dim)
how, _, where = sys.argv[1].partition(":")
def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
if how == "write":
    written = safefs.write_private
    def write_private(path, *args, **kwargs):
        if os.fspath(path).endswith(where):
            die()
        return written(path, *args, **kwargs)
    safefs.write_private = write_private
elif how in ("unlinked", "unlinking"):
    unlink = os.unlink
    def unlinked(path, *args, **kwargs):
        if how == "unlinking" and os.fspath(path).endswith(where):
            die()
        unlink(path, *args, **kwargs)
        if os.fspath(path).endswith(where):
            die()
    os.unlink = unlinked
else:
    module, _, attr = where.partition(":")
    owner = importlib.import_module(module)
    *outer, last = attr.split(".")
    for part in outer:
        owner = getattr(owner, part)
    real = getattr(owner, last)
    def wrapped(*args, **kwargs):
        if how == "before":
            die()
        answer = real(*args, **kwargs)
        die()
        return answer
    setattr(owner, last, wrapped)
sys.argv = ["hindsight", *sys.argv[2:]]
from hindsight_cli.cli import main
main()
"""


def _killed(point: str, *args: str) -> None:
    killed(DRIVER, point, *args)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return cli(*args)


def _ok(*args: str) -> str:
    done = _cli(*args)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def _trust(store: Path) -> str:
    done = _cli("doctor", "store", "--store", str(store), "--json")
    checks = {c["id"]: c["status"] for c in json.loads(done.stdout)["checks"]}
    return str(checks.get("store.trust"))


def _database_store(tmp_path: Path, url: str) -> Path:
    """A store whose memories live in a Postgres database (none listens: nothing here connects
    before the approval is checked), approved by the user."""
    store = tmp_path / "team"
    store.mkdir(mode=0o700)
    (store / "config.toml").write_text(f'[storage]\nbackend = "postgres"\nurl = "{url}"\n')
    made("allow", str(store))
    return store


@pytest.mark.slow
@pytest.mark.parametrize("point", ["unlinked:.storage", "unlinking:.storage"])
def test_a_deny_killed_midway_never_leaves_an_approval_bound_to_nothing(
    tmp_path: Path, point: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: `deny` removed what the approval binds (`.storage`: where the memories may go)
    before the approval itself, so a kill in between left the store approved for any database:
    a later pull that pointed its config at another server was connected to, unasked."""
    # an allow-list of its own: the session's holds the other tests' approvals
    monkeypatch.setenv("HINDSIGHT_ALLOWED_DIR", str(tmp_path / "allowed"))
    approved = "postgresql://me@127.0.0.1:1/team"
    store = _database_store(tmp_path, approved)
    (store / "config.toml").write_text(
        '[storage]\nbackend = "postgres"\nurl = "postgresql://them@127.0.0.1:9/theirs"\n'
    )
    assert "hindsight allow" in " ".join(_cli("list", "--store", str(store)).stderr.split())
    (store / "config.toml").write_text(f'[storage]\nbackend = "postgres"\nurl = "{approved}"\n')
    _killed(point, "deny", str(store))
    # what a pull brings next
    (store / "config.toml").write_text(
        '[storage]\nbackend = "postgres"\nurl = "postgresql://them@127.0.0.1:9/theirs"\n'
    )
    done = _cli("list", "--store", str(store))
    assert done.returncode == 1
    assert "hindsight allow" in " ".join(done.stderr.split()), done.stderr
    assert "127.0.0.1:9" not in done.stderr or "approv" in done.stderr
    # the rerun says it is denied, and it stays so
    again = _cli("deny", str(store))
    assert again.returncode == 0, again.stderr
    assert _trust(store) == "fail"
    assert not [p for p in Path(os.environ["HINDSIGHT_ALLOWED_DIR"]).iterdir()]


@pytest.mark.slow
@pytest.mark.parametrize("point", ["unlinked:.storage", "unlinking:.storage", "write:.storage"])
def test_a_deny_or_allow_killed_midway_of_a_local_store_reruns_clean(
    tmp_path: Path, point: str
) -> None:
    """A local store: a kill in `deny` leaves it approved or denied, and the rerun denies it; a
    kill in `allow` of a store already approved leaves it approved, and the rerun approves it."""
    store = tmp_path / "mine"
    made("record", "the staging database listens on 5433", "--store", str(store))
    command = "allow" if point.startswith("write") else "deny"
    _killed(point, command, str(store))
    assert _trust(store) in ("ok", "fail")
    _ok(command, str(store))
    assert _trust(store) == ("ok" if command == "allow" else "fail")
    _ok("allow", str(store))
    assert "5433" in _ok("list", "--store", str(store))


SHIPPED_ID = "0123456789abcdef0123456789abcdef"


def _shipped(tmp_path: Path) -> Path:
    store = tmp_path / "checkout" / ".hindsight"
    store.mkdir(parents=True, mode=0o700)
    (store / "store-id").write_text(SHIPPED_ID + "\n")
    # one that ignores nothing, as a checkout may ship (init makes it `*`)
    (store / ".gitignore").write_text("# nothing ignored\n")
    (store / "config.toml").write_text("# the project's settings\n")
    return store


@pytest.mark.slow
@pytest.mark.parametrize(
    "point",
    [
        "write:.gitignore",
        "write:.storage",
        f"write:{os.sep}store-id",
        "before:hindsight_cli.storage.sql.duckdb_ledger:DuckDBLedger.create",
        "after:hindsight_cli.storage.sql.duckdb_ledger:DuckDBLedger.create",
        "before:hindsight_cli.core.lifecycle:expiry_checked",
    ],
)
def test_an_init_over_a_shipped_store_killed_at_each_step_reruns_to_a_store_of_its_own(
    tmp_path: Path, point: str
) -> None:
    """`init` in a checkout that ships `.hindsight/` with a config, a `.gitignore` and a store id
    (adopted, with an id of its own), killed at each step: the rerun makes it this user's store,
    approved under a new id, holding what is recorded next."""
    store = _shipped(tmp_path)
    _killed(point, "init", "--store", str(store))
    _ok("init", "--store", str(store))
    assert (store / "store-id").read_text().strip() != SHIPPED_ID
    _ok("record", "the staging database listens on 5433", "--store", str(store))
    assert "5433" in _ok("list", "--store", str(store))
    assert _trust(store) == "ok"


@pytest.mark.slow
@pytest.mark.parametrize(
    "point",
    [
        "before:hindsight_cli.core.admin:lay_out",
        "after:hindsight_cli.core.admin:lay_out",
        "after:hindsight_cli.storage.sql.duckdb_ledger:DuckDBLedger.create",
        "before:hindsight_cli.core.admin:configure_model",
        "after:hindsight_cli.core.admin:configure_model",
        "after:hindsight_cli.storage.sql.duckdb_ledger:DuckDBSession.insert_many",
        "before:hindsight_cli.storage.sync:Mirror.sync",
    ],
)
def test_a_migrate_killed_at_each_step_reruns_to_a_whole_usable_copy(
    tmp_path: Path, point: str
) -> None:
    """`migrate --to` a new local store from one of another model than the default, killed at each
    step: the rerun adds exactly what is missing and the copy answers searches. Before: killed
    after the target's ledger was created and before its config named the source's model, the
    rerun (the target existing) never named it: every later command on the copy failed (`This
    store's vectors come from … but the configured model is …`)."""
    source, target = tmp_path / "source", tmp_path / "target"
    made("init", "--store", str(source), "--embedding-model", "multilingual")
    for n in range(3):
        made(
            "record", f"memory {n}: the staging database listens on 543{n}", "--store", str(source)
        )
    _killed(point, "migrate", "--to", str(target), "--store", str(source))
    _ok("migrate", "--to", str(target), "--store", str(source))
    listed = json.loads(_ok("list", "--store", str(target), "--json"))
    assert sorted(m["content"] for m in listed) == [
        f"memory {n}: the staging database listens on 543{n}" for n in range(3)
    ]
    found = _ok("search", "staging database", "--store", str(target))
    assert "5430" in found
    assert _trust(target) == "ok"


@pytest.mark.slow
@pytest.mark.parametrize(
    "point",
    [
        "before:hindsight_cli.core.embedding_jobs:embed_rows",
        "before:shutil:rmtree",
        "unlinked:.lance",
        "before:hindsight_cli.storage.sync:Mirror.sync",
    ],
)
def test_a_reindex_to_another_model_killed_at_each_step_leaves_searches_answering(
    tmp_path: Path, point: str
) -> None:
    """`reindex` after the config names a model of another dimension, killed at each step. Before:
    killed after the ledger took the new vectors and before the index was rebuilt, every later
    search was a `ValueError: Vector column 'vector' has variable length vectors` traceback (the
    index, of the old model's 384-d vectors, was synced with 512-d ones), while `doctor store`
    said the index would catch up on its next use. Now the sync rebuilds an index of another
    dimension than the ledger's (`Index.reshape`)."""
    store = tmp_path / "mine"
    for n in range(3):
        made("record", f"memory {n}: the staging database listens on 543{n}", "--store", str(store))
    made("reindex", "--store", str(store))
    assert (store / "index.lance").is_dir()
    made("config", "set", "embedding.model", "multilingual", "--store", str(store))
    _killed(point, "reindex", "--store", str(store))
    os.environ["HINDSIGHT_SEARCH_ENGINE"] = "index"
    try:
        found = _cli("search", "staging database 5431", "-k", "1", "--store", str(store))
        assert "Traceback" not in found.stderr, found.stderr
        if point.endswith("embed_rows"):
            # killed before a vector changed: the old ones, and a line saying what to run
            assert found.returncode == 1 and "Run `hindsight reindex`" in found.stderr
        else:
            assert found.returncode == 0 and "5431" in found.stdout, found.stderr
        _ok("reindex", "--store", str(store))
        assert "5431" in _ok("search", "staging database 5431", "-k", "1", "--store", str(store))
    finally:
        del os.environ["HINDSIGHT_SEARCH_ENGINE"]


RECORDER = """
import os, signal, sys
sys.path.insert(0, {tests!r})
from fake_embedder import FakeEmbedder
from hindsight_cli import embedding, safefs
from hindsight_cli.store import Store
embedding._CACHE[embedding.DEFAULT_MODEL] = FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)
if sys.argv[2] == "kill":
    written = safefs.write_private
    def write_private(path, *args, **kwargs):
        if os.fspath(path).endswith("injections.jsonl"):
            os.kill(os.getpid(), signal.SIGKILL)
        return written(path, *args, **kwargs)
    safefs.write_private = write_private
Store(sys.argv[1]).record_injection("session-start", [sys.argv[3]], 40, session="s1")
"""


@pytest.mark.slow
def test_the_injection_records_expiry_killed_as_it_rewrites_loses_no_recent_line(
    tmp_path: Path,
) -> None:
    """The record's retention (lines past `keep_days` go when an injection is appended) killed
    as it writes the kept lines: the record holds every line it held, the new one included; the
    next injection drops the old line and keeps the rest, once each; a hard forget leaves no
    temp file of the killed rewrite."""
    from datetime import UTC, datetime, timedelta

    store = tmp_path / "mine"
    made("record", "the staging database listens on 5433", "--store", str(store))
    record = store / "injections.jsonl"
    old = (datetime.now(UTC) - timedelta(days=40)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    record.write_text(
        json.dumps(
            {
                "kind": "injection",
                "id": "old",
                "at": old,
                "event": "session-start",
                "ids": ["m0"],
                "tokens": 1,
            }
        )
        + "\n"
    )
    script = RECORDER.format(tests=TESTS)
    killed = subprocess.run(
        [sys.executable, "-c", script, str(store), "kill", "m1"], capture_output=True, timeout=120
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    ids = [json.loads(line)["ids"] for line in record.read_text().split("\n") if line]
    assert ids == [["m0"], ["m1"]]
    again = subprocess.run(
        [sys.executable, "-c", script, str(store), "run", "m2"], capture_output=True, timeout=120
    )
    assert again.returncode == 0, again.stderr
    ids = [json.loads(line)["ids"] for line in record.read_text().split("\n") if line]
    assert ids == [["m1"], ["m2"]]
    (memory,) = json.loads(_ok("list", "--json", "--store", str(store)))
    _ok("forget", memory["id"], "--hard", "-y", "--store", str(store))
    assert not [p for p in store.iterdir() if p.name.endswith(".tmp")]
