"""The JSON-lines files hindsight writes in a store (the hooks' spool, the injection record), read
back (review O): lines end at "\\n" alone, a rewrite keeps what a hook appends meanwhile, and a
file that never ends is read only so far.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from hindsight_cli import hooks
from hindsight_cli.core import injections
from hindsight_cli.safefs import spool_key
from hindsight_cli.storage import spool, spool_scrub
from hindsight_cli.store import Store

pytestmark = pytest.mark.local_only

# the characters str.splitlines ends a line at besides "\n" and "\r" that a JSON line holds raw
# (json writes the others escaped): U+2028, U+2029, and NEL, which cleaning removes afterwards
SEPARATORS = ["\u2028", "\u2029", "\x85", "a\u2028b\u2029c\x85d"]


def _prompt(project: Path, text: str, session: str = "s1") -> None:
    payload = {"session_id": session, "cwd": str(project), "prompt": text}
    _, ok = hooks.run("UserPromptSubmit", "claude-code", json.dumps(payload))
    assert ok


def _failure(project: Path, error: str, session: str = "s1") -> None:
    payload = {
        "session_id": session,
        "cwd": str(project),
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "make deploy-staging"},
        "error": error,
    }
    _, ok = hooks.run("PostToolUseFailure", "claude-code", json.dumps(payload))
    assert ok


def _contents(project: Path) -> list[str]:
    store = Store(project / ".hindsight")
    store.ingest_events()
    return [m.content for m in store.list(limit=None)]


@pytest.mark.parametrize("separator", SEPARATORS)
def test_a_prompt_holding_a_line_separator_is_recorded(project: Path, separator: str) -> None:
    """Before: the spooled line holds the character raw, ingestion split the file with
    str.splitlines: both halves were bad JSON, and the prompt was lost without a word."""
    _prompt(project, f"how do I rotate the staging deploy key{separator} before friday")
    _prompt(project, "and where does the staging database listen")
    found = " ".join(_contents(project))
    assert "rotate the staging deploy key" in found and "before friday" in found
    assert "where does the staging database listen" in found


@pytest.mark.parametrize("separator", SEPARATORS[:2])
def test_a_failure_whose_output_holds_a_line_separator_is_recorded(
    project: Path, separator: str
) -> None:
    """A tool's output is the attacker's text: before, a failure whose error held U+2028 was never
    recorded (its spooled event cut in two)."""
    _failure(project, f"Exit code 2{separator}error: the staging cluster refused the manifest")
    found = " ".join(_contents(project))
    assert "the staging cluster refused the manifest" in found


@pytest.mark.parametrize("separator", SEPARATORS[:2])
def test_a_hard_forget_keeps_a_pending_event_holding_a_line_separator(
    project: Path, separator: str
) -> None:
    """A hard forget rewrites the spool without the forgotten text's lines; before, it rewrote the
    rest split at U+2028, so a pending event holding one was cut in two and lost."""
    _prompt(project, "the legacy billing cron runs at midnight on sundays")
    store = Store(project / ".hindsight")
    store.ingest_events()
    (forgotten,) = store.list(limit=None)
    # pending, not ingested yet: a restatement the forget drops, and another prompt it keeps
    # (in the same session: another session's repeat is recalled, which ingests the spool)
    _prompt(project, "why does the legacy billing cron run at midnight on sundays")
    _prompt(project, f"rotate the staging deploy key{separator} before friday")
    assert store.forget(ids=[forgotten.id], hard=True) == 1
    found = " ".join(_contents(project))
    assert "billing cron" not in found
    assert "rotate the staging deploy key" in found and "before friday" in found


def _meanwhile(path: Path, record: dict[str, Any], waiting: list[threading.Thread]) -> None:
    """Append ``record`` to ``path`` as another process's hook would at this moment: at once when
    nobody holds the file's lock, else as soon as its holder lets go."""
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            later = threading.Thread(target=spool.append, args=(path, record))
            later.start()
            waiting.append(later)
            return
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
    spool.append(path, record)


def _on_call(
    monkeypatch: pytest.MonkeyPatch, owner: object, name: str, nth: int, then: Callable[[], None]
) -> None:
    """Run ``then`` as ``owner.name`` is called the ``nth`` time."""
    real = getattr(owner, name)
    calls = [0]

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == nth:
            then()
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapped)


EVENT = {"id": "e-late", "kind": "prompt", "session": "s9", "prompt": "a prompt spooled meanwhile"}


def test_a_hard_forget_keeps_an_event_a_hook_spools_while_it_rewrites_the_spool(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the spool's scrub read a file, then took its lock to write what it kept: an event a
    hook appended in between was lost."""
    _prompt(project, "the legacy billing cron runs at midnight on sundays")
    store = Store(project / ".hindsight")
    store.ingest_events()
    (forgotten,) = store.list(limit=None)
    _prompt(project, "why does the legacy billing cron run at midnight on sundays")
    events = project / ".hindsight" / "spool" / "events.jsonl"
    assert events.is_file()
    waiting: list[threading.Thread] = []
    _on_call(monkeypatch, spool_scrub, "_line_words", 1, lambda: _meanwhile(events, EVENT, waiting))
    assert store.forget(ids=[forgotten.id], hard=True) == 1
    for thread in waiting:
        thread.join(60)
    # every line kept, the hook's late one too, still carries a valid tag
    refused: list[str] = []
    key = spool_key.of(project / ".hindsight")
    kept = list(spool.read([events], key, lambda _, why: refused.append(why)))
    assert any(e.get("id") == "e-late" for e in kept) and not refused


def _injection(at: datetime, ident: str) -> dict[str, Any]:
    return {
        "kind": "injection",
        "id": ident,
        "at": at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "event": "session-start",
        "session": "s1",
        "ids": ["m1"],
        "tokens": 40,
        "ms": 1.0,
        "budget": None,
    }


@pytest.mark.parametrize("how", ["expiry", "scrub"])
def test_a_record_rewrite_keeps_a_line_appended_meanwhile(
    project: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Before: the injection record's expiry (at an injection, when the oldest line is past
    `keep_days`) and its scrub (a hard forget) read the file, then took its lock to write what
    they kept: an injection another hook or server recorded in between was lost, and the daily
    cap counted less than was spent."""
    store = project / ".hindsight"
    record = injections.path_of(store)
    now = datetime.now(UTC)
    spool.append(record, _injection(now - timedelta(days=40), "old"))
    spool.append(record, _injection(now - timedelta(hours=1), "recent"))
    waiting: list[threading.Thread] = []
    late = _injection(now, "late")
    # the second line read: after the first is judged, inside the rewrite
    owner, name = (injections, "_at") if how == "expiry" else (injections, "parse_json")
    _on_call(monkeypatch, owner, name, 2, lambda: _meanwhile(record, late, waiting))
    if how == "expiry":
        entry = injections.make("session-start", ["m2"], 30, at=now, session="s1")
        injections.append(store, entry, keep_days=30, now=now)
    else:
        assert injections.scrub(store, {"m1"}) > 0
    for thread in waiting:
        thread.join(60)
    ids = [json.loads(line)["id"] for line in record.read_text().split("\n") if line]
    assert "late" in ids, ids
    assert ("old" in ids) == (how == "scrub")


CLI = """
import sys
sys.path.insert(0, {tests!r})
from fake_embedder import FakeEmbedder
from hindsight_cli import embedding
embedding._CACHE[embedding.DEFAULT_MODEL] = FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)
sys.argv = ["hindsight", *sys.argv[1:]]
from hindsight_cli.cli import main
main()
"""


def _limited(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A command under 4 GB of address space (LanceDB reserves more than 1.5 GB for its
    threads): a file of 4.5 GiB read whole fails with ``MemoryError`` at once instead of taking the
    machine's memory."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    return subprocess.run(
        [sys.executable, "-c", CLI.format(tests=str(Path(__file__).parent)), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        preexec_fn=limit,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "command"),
    [
        ("injections.jsonl", ["search", "staging"]),
        ("injections.jsonl", ["stats", "--recall"]),
        ("index.lance/hindsight-sync.json", ["stats"]),
        ("index.lance/hindsight-sync.json", ["doctor", "store"]),
        ("spool/rejected.jsonl", ["hooks", "status"]),
        ("spool/rejected.jsonl", ["doctor", "store"]),
        ("spool/events.jsonl", ["hooks", "status"]),
    ],
)
def test_a_store_file_that_never_ends_is_read_only_so_far(
    tmp_path: Path, name: str, command: list[str]
) -> None:
    """A store that came with a repository (git checks out a file of gigabytes from a blob of a
    few megabytes: zeros, or one line over and over, pack a thousand to one) holding such a file
    at a name hindsight writes. Before: each of these commands read it whole: `MemoryError`
    traceback. Now the record is read in its newest 64 MiB, the spool a line at a time (a line
    past any hindsight writes skipped), a state file at most 1 MiB."""
    mine = tmp_path / "mine"
    Store(mine).record("the staging database listens on 5433")
    store = tmp_path / "checkout" / ".hindsight"
    store.parent.mkdir()
    subprocess.run(["cp", "-a", str(mine), str(store)], check=True)
    (store / name).parent.mkdir(exist_ok=True)
    with open(store / name, "wb") as handle:
        # past the 4 GB the command may map: read whole, it fails at once
        handle.truncate((4 << 30) + (512 << 20))
    done = _limited(store.parent, *command, "--store", str(store))
    assert "Traceback" not in done.stderr and "MemoryError" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), done.stderr
    if command[0] == "search":
        assert "5433" in done.stdout
