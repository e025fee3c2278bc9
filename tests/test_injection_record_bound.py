"""The injection record past its bound is cut once, with room to grow, never at each line (review
X).

Before, a record past ``injections.MAX_RECORD`` (64 MiB: an agent's searches on a shared server
write a line each, a store can come with one) was rewritten to its newest 64 MiB by the next
injection or verdict, which left it within a line of the bound: about every other line after that
rewrote the whole 64 MiB again, under the record's lock (1.1 to 1.5 s a line measured, 2 cores),
so every search and hook of every user of the store paid it. Now the cut keeps the newest half,
and the next one is due only after as much again was written.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_embedder import FakeEmbedder
from typer.testing import CliRunner

from hindsight_cli import embedding
from hindsight_cli.cli import app
from hindsight_cli.core import injections
from hindsight_cli.store import Store

MODEL = FakeEmbedder(embedding.DEFAULT_MODEL, embedding.BUNDLED_DIM)
BOUND = 64 << 10


@pytest.mark.parametrize("kind", ["injection", "verdict"])
def test_lines_past_the_records_bound_rewrite_it_once_not_at_each_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.setattr(injections, "MAX_RECORD", BOUND)
    store_dir = tmp_path / "s"
    done = CliRunner().invoke(
        app, ["record", "deploys go through ./deploy.sh", "--store", str(store_dir)]
    )
    assert done.exit_code == 0, done.output
    store = Store(store_dir, embedder=MODEL)
    record = injections.path_of(store_dir)

    def add(n: int) -> None:
        if kind == "injection":
            store.record_injection("mcp-search", [f"m-{n}"], 10, session="s1")
        else:
            store.record_verdict(f"inj-{n}", f"m-{n}", "used", session="s1")

    n = 0
    while not record.exists() or record.stat().st_size <= BOUND - 512:
        add(n)
        n += 1
    rewrites, inode = 0, record.stat().st_ino
    for _ in range(100):
        add(n)
        n += 1
        if record.stat().st_ino != inode:
            rewrites, inode = rewrites + 1, record.stat().st_ino
    # before: about every other line rewrote the whole record
    assert rewrites <= 1, rewrites
    assert record.stat().st_size <= BOUND
    injected, verdicts = store.injections()
    kept = [i.ids[0] for i in injected] if kind == "injection" else [v.memory for v in verdicts]
    # the newest lines are all there
    assert kept[-100:] == [f"m-{k}" for k in range(n - 100, n)]
