"""Hard forget is crash-safe and complete (issue 16, points 3, 7, 8): a process killed at any point
of a hard forget leaves no trace of the text once the store is next opened; the hook spool is
scrubbed too; what left search takes its summaries with it; expiry purges as a hard forget does."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, FakeEmbedder

from hindsight_cli import hooks
from hindsight_cli.store import Store

pytestmark = pytest.mark.local_only
HOST = "db-quokka-7731.internal"
SECRET = "the quokka launch code name is tangerine-owl"


def _claude(project: Path, event: str, **fields: Any) -> str:
    payload = {
        "session_id": "s-crash",
        "transcript_path": "/t.jsonl",
        "cwd": str(project),
        "hook_event_name": event,
        **fields,
    }
    return json.dumps(payload)


def _seed(path: Path) -> dict[str, str]:
    """A store that holds the text to forget in every place it can be: a memory, a summary quoting
    it, a memory a hook brought in (with its "seen before" signature in the spool), the LanceDB
    index."""
    store = Store(path, embedder=FakeEmbedder())
    store.init()
    store.import_records(
        [
            {
                "content": f"routine deployment note number {i} for the payments service",
                "task_id": "t-other",
                "source": "agent",
            }
            for i in range(25)
        ]
    )
    secret = store.record(SECRET, task_id="t-secret").memory
    store.record("a second note about the launch", task_id="t-secret")
    store.summarize(task_id="t-secret")
    hooks.run(
        "PostToolUseFailure",
        "claude-code",
        _claude(
            path.parent,
            "PostToolUseFailure",
            tool_name="Bash",
            tool_use_id="t1",
            tool_input={"command": f"psql -h {HOST} -c 'select 1'"},
            error=f"psql: error: could not connect to server {HOST} port 5432: connection refused",
        ),
        str(path),
    )
    store.ingest_events()
    store.sync_index()
    hooked = next(m for m in store.list(limit=None) if HOST in m.content)
    # the injection record names them (issue 36): a hard forget leaves no id of theirs there
    other = next(m for m in store.list(limit=None) if m.task_id == "t-other").id
    entry = store.record_injection("session-start", [secret.id, other], 90, dropped=[hooked.id])
    assert entry is not None
    store.record_verdict(entry.id, secret.id, "used")
    return {"secret": secret.id, "hooked": hooked.id}


def _in_record(path: Path, ids: dict[str, str]) -> list[str]:
    """The forgotten ids the injection record still names."""
    record = path / "injections.jsonl"
    text = record.read_text() if record.exists() else ""
    return [i for i in ids.values() if i in text]


def _traces(path: Path) -> list[str]:
    found = []
    for file in path.rglob("*"):
        if file.is_file():
            data = file.read_bytes()
            if b"tangerine-owl" in data or HOST.encode() in data or b"quokka" in data:
                found.append(str(file.relative_to(path)))
    return found


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("purge-template")
    ids = _seed(root / ".hindsight")
    # the grep sees the text before any forget
    assert _traces(root / ".hindsight")
    return root, ids


def _copy(template: tuple[Path, dict[str, str]], tmp_path: Path) -> tuple[Path, dict[str, str]]:
    from hindsight_cli.core import binding
    from hindsight_cli.safefs import trust

    shutil.copytree(template[0], tmp_path / "p")
    # a copy is another store: an id of its own, approved as init approves a store (a store that
    # is not approved takes no writes)
    (tmp_path / "p" / ".hindsight" / trust.ID_FILE).unlink()
    # with the key of its ledger, as `hindsight allow` records it (review AE)
    binding.approve(tmp_path / "p" / ".hindsight")
    return tmp_path / "p" / ".hindsight", template[1]


# Where a kill lands: the function the child process dies in, before (or, with "after", after) it
# runs.
PHASES = [
    # the journal is written, the delete is not
    ("hindsight_cli.core.lifecycle", "_delete", "before"),
    # the delete committed
    ("hindsight_cli.core.purge", "add_ids", "before"),
    ("hindsight_cli.storage.sync.Mirror", "scrub", "before"),
    ("hindsight_cli.storage.sync.Mirror", "scrub", "after"),
    ("hindsight_cli.storage.spool_scrub", "scrub", "before"),
    ("hindsight_cli.core.injections", "scrub", "before"),
    # half the new ledger written
    ("hindsight_cli.storage.sql.duckdb_rewrite", "_copy", "after"),
    # all scrubbed, journal left
    ("hindsight_cli.storage.sql.duckdb_ledger.DuckDBLedger", "scrub", "after"),
]

CHILD = """
import importlib, os, signal, sys
sys.path.insert(0, {tests!r})
from fake_embedder import FakeEmbedder
from hindsight_cli.store import Store
where, name, when = {phase!r}
module_name, _, owner = where.partition(".")
try:
    target = importlib.import_module(where)
    holder = target
except ImportError:
    module_name, _, cls = where.rpartition(".")
    holder = getattr(importlib.import_module(module_name), cls)
original = getattr(holder, name)
def dying(*args, **kwargs):
    if when == "before":
        os.kill(os.getpid(), signal.SIGKILL)
    result = original(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)
    return result
if when != "never":
    setattr(holder, name, dying)
from hindsight_cli.core import purge
begin = purge.begin
def beginning(*args, **kwargs):  # the parent waits for this file: the forget has begun
    journal = begin(*args, **kwargs)
    open({begun!r}, "w").close()
    return journal
purge.begin = beginning
store = Store({path!r}, embedder=FakeEmbedder())
store.forget([{secret!r}, {hooked!r}], hard=True, reason="crash test")
"""


def _forget_in_child(
    path: Path, ids: dict[str, str], phase: tuple[str, str, str] | None
) -> subprocess.Popen[str]:
    code = CHILD.format(
        tests=str(REPO / "tests"),
        phase=phase or ("hindsight_cli.core.purge", "owed", "never"),
        path=str(path),
        begun=str(path.parent / "begun"),
        **ids,
    )
    return subprocess.Popen(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _reopened_leaves_no_trace(path: Path, ids: dict[str, str]) -> None:
    store = Store(path, embedder=FakeEmbedder())
    # the next open finishes what was owed; nothing else went
    assert len(store.list(limit=None)) >= 25
    assert store.owed_purges() == []
    assert _traces(path) == [], _traces(path)
    assert _in_record(path, ids) == []
    assert not [
        h
        for h in store.search("tangerine-owl quokka launch", engine="index").hits
        if "tangerine" in h.memory.content
    ]
    assert store.record("the store takes writes after a finished purge").memory.id


@pytest.mark.slow
@pytest.mark.parametrize("phase", PHASES, ids=[f"{p[1]}-{p[2]}" for p in PHASES])
def test_a_kill_at_every_phase_of_a_hard_forget_leaves_no_trace(
    template: Any, tmp_path: Path, phase: tuple[str, str, str]
) -> None:
    path, ids = _copy(template, tmp_path)
    child = _forget_in_child(path, ids, phase)
    _, err = child.communicate(timeout=300)
    assert child.returncode == -signal.SIGKILL, err
    if phase[1] != "_delete" or phase[2] != "before":
        assert Store(path, embedder=FakeEmbedder()).owed_purges() or phase[2] == "after"
    _reopened_leaves_no_trace(path, ids)


@pytest.mark.slow
@pytest.mark.parametrize("trial", range(6))
def test_kills_at_random_moments_leave_no_trace_after_the_next_open(
    template: Any, tmp_path: Path, trial: int
) -> None:
    path, ids = _copy(template, tmp_path)
    child = _forget_in_child(path, ids, None)
    begun = path.parent / "begun"
    # the forget has begun once its purge is owed
    while not begun.exists() and child.poll() is None:
        time.sleep(0.01)
    # Then a kill at a random moment: while it deletes, while it scrubs, or after it is done.
    try:
        child.wait(timeout=random.Random(trial).uniform(0.0, 4.0))
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGKILL)
    child.communicate(timeout=300)
    _reopened_leaves_no_trace(path, ids)


@pytest.mark.slow
def test_doctor_fails_while_a_purge_is_owed_and_fix_finishes_it(
    template: Any, tmp_path: Path, cli: Any
) -> None:
    path, ids = _copy(template, tmp_path)
    child = _forget_in_child(path, ids, ("hindsight_cli.core.purge", "add_ids", "before"))
    child.communicate(timeout=300)
    report = cli("doctor", "store", "--json", "--store", str(path))
    assert report.exit_code == 1
    check = next(c for c in json.loads(report.stdout)["checks"] if c["id"] == "store.purges")
    assert check["status"] == "fail" and "hindsight doctor store --fix" in check["fix"]
    # doctor changed nothing
    assert _traces(path)
    fixed = cli("doctor", "store", "--fix", "--json", "--store", str(path))
    assert (
        next(c for c in json.loads(fixed.stdout)["checks"] if c["id"] == "store.purges")["status"]
        == "ok"
    )
    assert _traces(path) == []


def test_a_hook_memory_leaves_no_residue_in_the_spool(template: Any, tmp_path: Path) -> None:
    path, ids = _copy(template, tmp_path)
    # the hook's failure, waiting for its fix, and its kind (the error, normalised)
    assert any(b"quokka" in p.read_bytes() for p in (path / "spool" / "open").iterdir())
    assert _in_record(path, ids)
    Store(path, embedder=FakeEmbedder()).forget([ids["hooked"], ids["secret"]], hard=True)
    assert _traces(path) == []
    assert _in_record(path, ids) == []
    # the injection stays, with the id that was not forgotten
    [entry] = Store(path, embedder=FakeEmbedder()).injections()[0]
    assert len(entry.ids) == 1 and entry.dropped == [] and entry.tokens == 90


def test_what_leaves_search_takes_its_summaries_with_it(store: Store) -> None:
    notes = [
        store.record(f"migration step {i}: moved table orders_{i}", task_id="t-mig").memory
        for i in range(3)
    ]
    summary = store.summarize(task_id="t-mig").memory
    # soft: the summary quotes it, so it leaves search too
    store.forget([notes[0].id])
    assert store.get(summary.id).status == "invalidated"
    assert summary.id not in {
        h.memory.id for h in store.search("migration step moved table orders_0", k=10).hits
    }
    rebuilt = store.summarize(task_id="t-mig")
    assert (
        rebuilt.memory.id == summary.id
        and rebuilt.memory.status == "active"
        and "orders_0" not in rebuilt.memory.content
    )
    old = store.record("the orders table lives in db-a", task_id="t-fact").memory
    about = store.summarize(task_id="t-fact")
    # a replaced memory leaves search
    store.record("the orders table moved to db-b", supersedes=old.id)
    assert (
        store.get(old.id).status == "superseded"
        and store.get(about.memory.id).status == "invalidated"
    )
    archived = store.record("the reports job runs nightly", task_id="t-arch").memory
    kept = store.summarize(task_id="t-arch").memory
    store.forget([archived.id], archive=True)
    assert store.get(kept.id).status == "invalidated"


def test_expiry_purges_like_a_hard_forget(store: Store) -> None:
    from datetime import timedelta

    from hindsight_cli.timeutil import now

    gone = store.record(f"a scratch note about {HOST}", type="working", task_id="t-x").memory
    store.summarize(task_id="t-x")
    # past the working memory's 24 h
    store.clock = lambda: now() + timedelta(days=2)
    assert store.expire() >= 1
    assert [m for m in store.list(limit=None) if HOST in m.content] == []
    if store.ledger.capabilities.files:
        assert _traces(store.path) == []
    assert store.log(action="expire")[0].ids == [gone.id]


@pytest.mark.slow
def test_a_purge_a_live_process_is_working_on_is_left_to_it(template: Any, tmp_path: Path) -> None:
    path, ids = _copy(template, tmp_path)
    owner = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"""
import sys
sys.path.insert(0, {str(REPO / "tests")!r})
from fake_embedder import FakeEmbedder
from hindsight_cli.core import purge
from hindsight_cli.store import Store
store = Store({str(path)!r}, embedder=FakeEmbedder())
purge.begin(store._rt, [{ids["secret"]!r}], [], "slow purge", "owner")
print("owed", flush=True)
sys.stdin.readline()  # holds the journal's lock until told to go
""",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert owner.stdout and owner.stdout.readline().strip() == "owed"
    other = Store(path, embedder=FakeEmbedder())
    # not stolen from its live owner
    assert len(other.list(limit=None)) > 25 and other.owed_purges()
    assert other.get(ids["secret"]).content == SECRET
    owner.kill()
    owner.wait(timeout=60)
    # the owner died: the next open finishes its purge
    Store(path, embedder=FakeEmbedder()).list()
    assert Store(path, embedder=FakeEmbedder()).owed_purges() == []
    assert SECRET not in [m.content for m in Store(path, embedder=FakeEmbedder()).list(limit=None)]
