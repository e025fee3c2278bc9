"""A hard forget killed (SIGKILL) inside its scrub of the index's derived tables: the memories it
did not forget stay as findable as before, after the rerun and ever after (review AC).

Each kill happens at a named point, in the process itself (a driver replaces the call at that
point with one that kills its own process), never after a delay.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.kill_points import TESTS, killed

# `hindsight ARGS…` with the truncating stand-in of tests/test_long_memories.py (it reads a text's
# first 400 characters, as a model reads its first 256 word pieces; windows of that size), so a long
# memory's late answer is found by its chunk's vector alone; killed (when argv[1] is not `-`) as
# the index's table POINT is rewritten: right after every row of it is deleted (`delete("true")`) or
# after it is overwritten (`add(mode="overwrite")`), whichever its rewrite does.
DRIVER = """
import os, signal, sys
sys.path.insert(0, {tests!r})
from fake_embedder import FakeEmbedder
from hindsight_cli import embedding
from hindsight_cli.core import chunks
chunks._CHARS, chunks._CHAR_STRIDE = 400, 300
split = chunks.split
chunks.split = lambda text, model: split(text, "test/truncating")
class Truncating(FakeEmbedder):
    def embed(self, texts):
        return super().embed([text[:400] for text in texts])
for name, dim in ((embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM),
                  (embedding.MULTILINGUAL_MODEL, embedding.MULTILINGUAL_DIM)):
    embedding._CACHE[name] = Truncating(name, dim)
point = sys.argv[1]
if point != "-":
    from lancedb.table import LanceTable
    delete, add = LanceTable.delete, LanceTable.add
    def deleting(self, where, *args, **kwargs):
        answer = delete(self, where, *args, **kwargs)
        if where == "true" and self.name == point:
            os.kill(os.getpid(), signal.SIGKILL)
        return answer
    def adding(self, data, mode="append", *args, **kwargs):
        answer = add(self, data, mode, *args, **kwargs)
        if mode == "overwrite" and self.name == point:
            os.kill(os.getpid(), signal.SIGKILL)
        return answer
    LanceTable.delete, LanceTable.add = deleting, adding
sys.argv = ["hindsight", *sys.argv[2:]]
from hindsight_cli.cli import main
main()
"""

FILLER = " ".join(
    f"Meeting {i} covered calendars, lunch menus, parking permits and room bookings."
    for i in range(40)
)
ANSWER = "The flaky deploy came from an expired certificate on the staging balancer."
QUERY = "expired certificate staging balancer"


def _ok(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", DRIVER.format(tests=TESTS), "-", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HINDSIGHT_SEARCH_ENGINE": "index"},
    )
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def _found(store: Path) -> list[str]:
    """What a vector search of the index finds for the long memory's late answer."""
    hits = json.loads(_ok("search", QUERY, "--mode", "vector", "--json", "--store", str(store)))
    return [h["content"][-len(ANSWER) :] for h in hits]


@pytest.mark.slow
def test_a_hard_forget_killed_rewriting_the_indexs_chunks_keeps_the_long_memories_findable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the scrub rewrote the index's chunks table (each long memory's further windows) by
    deleting every row, then adding the live ones back: killed in between, the rerun (the next
    command finishing the owed purge) found the table empty and rewrote nothing, so every long
    memory's late text was lost to vector search for good (the sync never looks at chunks again)."""
    monkeypatch.setenv("HINDSIGHT_SEARCH_ENGINE", "index")
    store = tmp_path / "mine"
    _ok("record", FILLER + " " + ANSWER, "--store", str(store))
    _ok("record", "the deploy key lives in vault zebra-42", "--store", str(store))
    assert _found(store) == [ANSWER]
    listed = json.loads(_ok("list", "--json", "--store", str(store)))
    zebra = next(m["id"] for m in listed if "zebra-42" in m["content"])
    killed(DRIVER, "chunks", "forget", zebra, "--hard", "-y", "--store", str(store))
    # the next command finishes the owed purge
    assert [m["id"] for m in json.loads(_ok("list", "--json", "--store", str(store)))] != []
    assert _found(store) == [ANSWER]
    held = [p for p in store.rglob("*") if p.is_file() and b"zebra-42" in p.read_bytes()]
    assert held == []
    _ok("record", "another note about lunch", "--store", str(store))
    assert _found(store) == [ANSWER]
