"""A line appended to one of the store's JSON-lines files goes in whole or not at all (review AX).

Before, the spool, the injection record, the spool's fixed-kind lists and the hook log were
appended with one ``os.write`` whose count was never read: a disk with room for part of a line
(full, or a file-size limit) took half an event and the hook went on as if it were spooled; the
next line appended once there was room again was glued to the half, and both were lost to every
reader (one JSON line that decodes to nothing). Now a write the disk cannot take whole is cut back
and raises, and a torn last line is ended before the next one is written.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import FakeEmbedder, fresh_local_store

from hindsight_cli.core import injections
from hindsight_cli.hooks import log_failure
from hindsight_cli.safefs import spool_key
from hindsight_cli.storage import spool
from hindsight_cli.store import Store

AT = datetime(2026, 1, 2, tzinfo=UTC)


@pytest.fixture
def local(tmp_path: Path, fake: FakeEmbedder) -> Store:
    """A store of this user's, approved as ``init`` approves it."""
    return Store(fresh_local_store(tmp_path / ".hindsight"), embedder=fake)


@contextmanager
def _full_disk(monkeypatch: pytest.MonkeyPatch, room: int) -> Iterator[None]:
    """A disk with ``room`` bytes left: a write past it is short, the next one fails."""
    real = os.write
    left = [room]

    def write(fd: int, data: bytes) -> int:
        if not left[0]:
            raise OSError(errno.ENOSPC, "No space left on device")
        done = real(fd, bytes(memoryview(data)[: left[0]]))
        left[0] -= done
        return done

    with monkeypatch.context() as patch:
        patch.setattr(os, "write", write)
        yield


def _events(store: Path) -> list[str]:
    found = spool.read(spool.claim(store), spool_key.of(store), lambda value, reason: None)
    return [str(value["id"]) for value in found]


def test_an_event_the_disk_takes_in_part_is_refused_and_the_next_is_read(
    local: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = local.path
    events = store / spool.SPOOL_DIR / spool.EVENTS
    spool.append(events, {"id": "before", "kind": "prompt", "text": "a"})
    size = events.stat().st_size
    with _full_disk(monkeypatch, 40), pytest.raises(OSError):
        spool.append(events, {"id": "half", "kind": "prompt", "text": "b" * 200})
    assert events.stat().st_size == size
    spool.append(events, {"id": "after", "kind": "prompt", "text": "c"})
    assert _events(store) == ["before", "after"]


def test_a_torn_last_line_does_not_swallow_the_next(local: Store) -> None:
    store = local.path
    events = store / spool.SPOOL_DIR / spool.EVENTS
    spool.append(events, {"id": "before", "kind": "prompt", "text": "a"})
    with events.open("ab") as handle:
        handle.write(b'{"id":"torn","kind":"pro')
    spool.append(events, {"id": "after", "kind": "prompt", "text": "c"})
    assert _events(store) == ["before", "after"]


def test_a_verdict_after_a_full_disk_is_read_from_the_injection_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / ".hindsight"

    def verdict(memory: str) -> injections.Verdict:
        return injections.Verdict(at=AT.isoformat(), injection="i", memory=memory, verdict="used")

    injections.append(store, verdict("m-1"), 30, AT)
    with _full_disk(monkeypatch, 30), pytest.raises(OSError):
        injections.append(store, verdict("m-2"), 30, AT)
    injections.append(store, verdict("m-3"), 30, AT)
    assert [v.memory for v in injections.verdicts(store)] == ["m-1", "m-3"]


def test_the_hook_log_and_the_fixed_kinds_keep_whole_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "spool" / spool.LOG
    log_failure(str(log), "prompt", "claude-code", ValueError("first"))
    size = log.stat().st_size
    with _full_disk(monkeypatch, 10):
        # (the hook log swallows its own failure: the agent is never broken)
        log_failure(str(log), "prompt", "claude-code", ValueError("second"))
    assert log.stat().st_size == size
    log_failure(str(log), "prompt", "claude-code", ValueError("third"))
    assert "first" in log.read_text() and "third" in log.read_text()

    store = str(tmp_path / ".hindsight")
    spool.note_fixed(store, "missing-module", "s1")
    with _full_disk(monkeypatch, 1), pytest.raises(OSError):
        spool.note_fixed(store, "missing-module", "s2")
    spool.note_fixed(store, "missing-module", "s3")
    assert spool.fixed_by(store, "missing-module") == {"s1", "s3"}


def test_a_spool_secret_the_disk_takes_in_part_is_never_linked(
    local: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review AX (low): the store's spool secret, made at the first event, was written with one
    ``os.write``: a disk with room for part of it linked half a secret, which read as damaged, and
    the event it was made for was refused with a misleading reason. Now it is written whole or
    not at all, and the next event, once there is room, makes it whole and is read."""
    store = local.path
    events = store / spool.SPOOL_DIR / spool.EVENTS
    secret = spool_key.path_of(store)
    assert secret is not None and not os.path.exists(secret)
    with _full_disk(monkeypatch, 20), pytest.raises(OSError):
        spool.append(events, {"id": "lost", "kind": "prompt", "text": "a"})
    assert not os.path.exists(secret)
    spool.append(events, {"id": "after", "kind": "prompt", "text": "c"})
    assert len(Path(secret).read_text()) == 65
    assert _events(store) == ["after"]


@pytest.mark.parametrize("room", [0, 1, 1000])
def test_a_file_made_on_a_disk_with_room_for_part_of_it_is_never_left_torn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, room: int
) -> None:
    """Review BA: ``init`` on a disk with room for part of the store's ``config.toml`` left half of
    it (cut inside ``[search]``), and once there was room again every command refused the store's
    config; the ``.gitignore`` of ``*`` was left empty. Each is made whole or not at all now, and
    made whole by the next run."""
    from hindsight_cli.config import load
    from hindsight_cli.core import admin
    from hindsight_cli.safefs import tracked

    store = tmp_path / ".hindsight"
    store.mkdir()
    with _full_disk(monkeypatch, room):
        for make in (lambda: admin.config_file(store), lambda: tracked.keep_ignored(store)):
            with pytest.raises(OSError):
                make()
    assert sorted(os.listdir(store)) == []
    admin.config_file(store)
    tracked.keep_ignored(store)
    assert (store / ".gitignore").read_text() == tracked.IGNORE_ALL
    assert load(store).default_agent == "default"
