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


def test_a_principals_searches_never_cut_the_owners_lines_out_of_the_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review AY: the record was cut to its newest lines whoever wrote them, and a token
    principal's every search adds one (``by``): alice's searches past the bound took the owner's
    verdicts out, so her memory flagged as misleading went back into the owner's automatic
    injection, the owner's memory lost its use, and the owner's injections of the day left the
    caps. Now the owner's lines are kept first; hers fill the room they leave."""
    monkeypatch.setattr(injections, "MAX_RECORD", BOUND)
    (tmp_path / "s").mkdir()
    store = Store(tmp_path / "s", embedder=MODEL)
    alice = store.scoped("alice", principal=True)
    # the record names memories by id alone: no ledger is read here
    hers, mine = "m-hers", "m-mine"
    for n in range(2):
        store.record_verdict(f"inj-{n}", hers, "misleading", session="s1")
    store.record_verdict("inj-2", mine, "used", session="s1")
    store.record_injection("session-start", [mine], 70, session="s1")
    store.record_injection("mcp-search", [mine], 20, session="owners-task")
    assert store.flagged() == [hers] and store.standing()[mine] > 0
    record = injections.path_of(tmp_path / "s")
    # her searches, each as long as a search of 100 hits makes it, past the bound twice
    searches = 2 * BOUND // 3000
    for n in range(searches):
        alice.record_injection("mcp-search", [f"{k:036}" for k in range(100)], 10, session=f"t{n}")
    assert record.stat().st_size <= BOUND
    assert store.flagged() == [hers]
    assert store.standing()[mine] > 0
    assert store.injection_spend("s1") == (70, 70)
    entries, _ = store.injections()
    assert [e.session for e in entries if e.by is None] == ["s1", "owners-task"]
    # hers: the newest, in the room left
    assert [e.session for e in entries if e.by][-1] == f"t{searches - 1}"
