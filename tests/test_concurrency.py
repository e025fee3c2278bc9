"""Several processes on one store at once: nothing lost, nothing duplicated, no errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hindsight_cli.store import Store

pytestmark = pytest.mark.slow

# the fake embedder in every process: the model proves nothing about sharing a store, and four
# processes loading it were a quarter of the test
PRELUDE = f"""
import sys
from pathlib import Path
sys.path.insert(0, {str(Path(__file__).parent)!r})
from fake_embedder import FakeEmbedder
from hindsight_cli.store import Store
"""

WRITER = (
    PRELUDE
    + """
store = Store(Path(sys.argv[1]), embedder=FakeEmbedder())
name = sys.argv[2]
for i in range(int(sys.argv[3])):
    text = f"process {name} wrote memory number {i} about topic {i % 3}"
    store.record(text, agent_id=name, step=i, task_id="load")
"""
)

READER = (
    PRELUDE
    + """
store = Store(Path(sys.argv[1]), embedder=FakeEmbedder(), warm=True)
for i in range(int(sys.argv[2])):
    store.search("memory about topic 1")
    store.list(limit=5)
print("reader ok")
"""
)


def test_writers_and_a_warm_reader_share_a_store(tmp_path: Path, fake: Any) -> None:
    path = tmp_path / "shared"
    Store(path, embedder=fake).init()
    env = {**os.environ, "HINDSIGHT_LOCK_TIMEOUT": "60"}
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), f"w{n}", "10"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(3)
    ]
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(path), "10"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    outputs = []
    for proc in [*writers, reader]:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        outputs.append(out)
    assert "reader ok" in outputs[-1]
    memories = Store(path, embedder=fake).list(limit=None)
    assert len(memories) == 30
    assert len({(m.agent_id, m.step) for m in memories}) == 30
    hits = (
        Store(path, embedder=fake, warm=True).search("process w2 wrote memory number 7", k=1).hits
    )
    assert hits[0].memory.content == "process w2 wrote memory number 7 about topic 1"
