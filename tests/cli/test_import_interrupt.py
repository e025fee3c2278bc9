"""`hindsight import`: Ctrl-C keeps the finished batches and says so; a file that holds two
different records with one id, or an id that is no UUID, is refused whole (issue 20)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hindsight_cli.core import transfer
from hindsight_cli.store import Store

# the import's batch here: smaller than the product's, the same code path
IMPORT_BATCH = 300

REPO = Path(__file__).resolve().parents[2]

# The real CLI in a process of its own, with the test's embedder. When the second batch's embedding
# starts (in a thread, while the first batch is written), the embedder says "gate" and waits until
# the main thread has taken the SIGINT: the test sends it once the first batch is committed, so the
# interrupt lands while the second batch is held, at a point the test knows, and that batch cannot
# be embedded (and written) before the interrupt is raised, however loaded the machine.
CHILD = f"""
import os, signal, sys, threading
sys.path.insert(0, {str(REPO)!r})
from tests.fake_embedder import FakeEmbedder
from hindsight_cli.core import runtime, transfer
transfer.IMPORT_BATCH = {IMPORT_BATCH}

interrupted = threading.Event()

def on_interrupt(signum, frame):
    interrupted.set()
    raise KeyboardInterrupt

signal.signal(signal.SIGINT, on_interrupt)

class Gated(FakeEmbedder):
    done = 0
    def embed(self, texts):
        if self.done >= {IMPORT_BATCH}:
            print("gate", flush=True)
            interrupted.wait()
        self.done += len(texts)
        return super().embed(texts)

runtime.load_embedder = lambda name: Gated()
sys.argv = ["hindsight", *sys.argv[1:]]
from hindsight_cli.cli import main
main()
"""


def _records(n: int) -> list[dict[str, str]]:
    return [
        {
            "content": f"imported note {i}: the worker handled job {i} on queue {i % 5}",
            "task_id": f"t-{i // 50}",
        }
        for i in range(n)
    ]


@pytest.mark.slow
def test_ctrl_c_keeps_the_finished_batches_and_says_what_was_kept(
    tmp_path: Path, fake, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transfer, "IMPORT_BATCH", IMPORT_BATCH)
    store = tmp_path / "store"
    Store(store, embedder=fake).init()
    data = tmp_path / "big.jsonl"
    total = IMPORT_BATCH + 150
    data.write_text("".join(json.dumps(r) + "\n" for r in _records(total)))
    env = {**os.environ, "HINDSIGHT_EMBEDDING_MODEL": fake.name}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, "import", str(data), "--store", str(store)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    # the second batch's embedding is under way
    assert child.stdout.readline().strip() == "gate"
    # and the first batch is committed
    _await_count(Store(store, embedder=fake), IMPORT_BATCH, child)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    assert err.strip() == (
        f"Interrupted: {IMPORT_BATCH:,} of {total:,} imported; rerun to finish — it skips what "
        "is there."
    )
    # whole batches, nothing half
    assert Store(store, embedder=fake).stats()["memories"] == IMPORT_BATCH
    rerun = Store(store, embedder=fake).import_records(_records(total))
    assert (rerun.added, rerun.skipped) == (150, IMPORT_BATCH)
    assert len({m.content for m in Store(store, embedder=fake).list(limit=None)}) == total


def _await_count(store: Store, count: int, child: subprocess.Popen) -> None:
    """Wait until ``store`` holds ``count`` memories (the child commits them; its lock may refuse a
    read)."""
    from hindsight_cli.errors import StoreBusy

    deadline = time.monotonic() + 120
    while child.poll() is None and time.monotonic() < deadline:
        try:
            if store.stats()["memories"] == count:
                return
        except StoreBusy:
            pass
        time.sleep(0.02)
    raise AssertionError(f"the store never held {count} memories while the import ran")


def test_ctrl_c_through_python_raises_interrupted_with_the_count(
    tmp_path: Path, fake, monkeypatch
) -> None:
    from hindsight_cli.core import embedding_jobs
    from hindsight_cli.errors import Interrupted

    store = Store(tmp_path / "store", embedder=fake)
    real = embedding_jobs.embed_many
    calls = []

    def interrupted_second(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(embedding_jobs, "embed_many", interrupted_second)
    monkeypatch.setattr(transfer, "IMPORT_BATCH", IMPORT_BATCH)
    with pytest.raises(
        Interrupted, match=f"Interrupted: {IMPORT_BATCH:,} of {IMPORT_BATCH + 10:,} imported"
    ):
        store.import_records(_records(IMPORT_BATCH + 10))
    assert store.stats()["memories"] == IMPORT_BATCH


def _line(record: dict) -> str:
    return json.dumps(record) + "\n"


def test_two_different_records_with_one_id_refuse_the_file(cli, tmp_path: Path) -> None:
    cli("record", "a memory to export")
    exported = cli("export").stdout
    first = json.loads(exported)
    changed = {**first, "content": "the same id, other words"}
    path = tmp_path / "clash.jsonl"
    path.write_text(
        _line({"content": "an unrelated record", "id": "01a22ad6-0000-7000-8000-000000000001"})
        + exported
        + _line(changed)
    )
    result = cli("import", str(path), "--store", str(tmp_path / "other"))
    assert result.exit_code == 1
    assert result.stderr.startswith(
        f"Error: Records 2 and 3 both have id {first['id']} but differ (content)"
    )
    assert "Nothing was imported" in result.stderr and not (tmp_path / "other").exists()
    twice = tmp_path / "twice.jsonl"
    # the same record twice (two exports put together) is fine
    twice.write_text(exported + exported)
    again = cli("import", str(twice), "--store", str(tmp_path / "other"))
    assert again.exit_code == 0 and "Imported 1, skipped 1 already present." in again.stderr


@pytest.mark.parametrize(
    "bad", ["note-1", "01a22ad6", "12345", "01a22ad6-ea1d-72c4-ab23-672152ba9c3z"]
)
def test_an_id_that_is_no_uuid_refuses_the_file(cli, tmp_path: Path, bad: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(
        _line({"content": "fine"}) + _line({"content": "an id nobody could find again", "id": bad})
    )
    result = cli("import", str(path))
    assert result.exit_code == 1 and result.stderr.startswith("Error: Record 2: id must be a UUID")
    assert not cli.open().exists or cli.open().list() == []


def test_an_id_in_another_spelling_is_stored_in_the_one_form(cli, tmp_path: Path) -> None:
    path = tmp_path / "upper.jsonl"
    path.write_text(
        _line({"content": "written by another tool", "id": "01A22AD6EA1D72C4AB23672152BA9C31"})
    )
    assert cli("import", str(path)).exit_code == 0
    assert [m.id for m in cli.open().list()] == ["01a22ad6-ea1d-72c4-ab23-672152ba9c31"]
    assert cli("show", "2152ba9c31").exit_code == 0
