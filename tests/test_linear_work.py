"""Work on outside text that grew with its square through a list's ``in`` (review AC; review Q9
found three): the event times a memory's text names (`text.when.spoken`), counted in comparisons,
not timed."""

from __future__ import annotations

import json
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from hindsight_cli.cli import app
from hindsight_cli.text import spans


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), prog_name="hindsight")


def test_a_text_naming_many_dates_is_read_in_linear_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: each date found was compared with every distinct one before it, 1,000,000 times for
    the 1,400 dates one 16 KB part can name (20 times the work of the rest of reading them), for
    the 3 the memory keeps."""
    text = " ".join((date(2001, 1, 1) + timedelta(days=i)).isoformat() for i in range(1400))
    compared = []
    equal = spans.Span.__eq__

    def counting(self: spans.Span, other: object) -> bool:
        compared.append(1)
        return equal(self, other)

    monkeypatch.setattr(spans.Span, "__eq__", counting)
    store = str(tmp_path / "s")
    done = _invoke("record", f"the backups ran on {text}", "--store", store, "--json")
    assert done.exit_code == 0, done.output
    monkeypatch.setattr(spans.Span, "__eq__", equal)
    shown = _invoke("list", "--json", "--store", store)
    spoken = json.loads(shown.stdout)[0]["metadata"].get("event_time")
    assert spoken and len(spoken) == 3 and spoken[0]["from"] == "2001-01-01", spoken
    assert len(compared) < 10_000, len(compared)


def test_a_search_of_many_hits_compares_each_with_the_summaries_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review AD: a block (a budget) keeps a summary or the memories it covers, not both
    (``summaries.one_of_each``); each hit was compared with every hit above it, though only a
    summary repeats another: 2,000 hits, 2,000,000 comparisons, 16 s of a search that held the
    in-memory index meanwhile (the MMR scores shown, the same again). Now a memory is compared
    with the summaries above it: none here."""
    from hindsight_cli.search import summaries
    from hindsight_cli.store import Store
    from tests.fake_embedder import FakeEmbedder

    store = Store(tmp_path / "s", embedder=FakeEmbedder())
    store.init()
    store.import_records(
        [{"content": f"the nightly build {n} ran on runner {n % 7}"} for n in range(400)]
    )
    compared = []
    repeats = summaries._repeats

    def counting(*args: Any) -> bool:
        compared.append(1)
        return repeats(*args)

    monkeypatch.setattr(summaries, "_repeats", counting)
    found = store.search("nightly build runner", k=400, budget=100_000)
    assert len(found.hits) > 100
    assert len(compared) < 400, len(compared)


def test_a_hard_forget_of_many_memories_finds_their_versions_in_linear_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review AY: a hard forget's plan (``lifecycle.versions``) made a set of every memory taken so
    far for each memory it took: a hard forget by task of 20,000 of a token principal's memories
    held every agent's writes 50 s (the owner's ``forget --hard --task`` made the same plan).
    Counted here in the members of the sets it makes."""
    from conftest import FakeEmbedder

    from hindsight_cli.core import lifecycle
    from hindsight_cli.models import Filters
    from hindsight_cli.store import Store

    count = 100
    base = Store(tmp_path / "s", embedder=FakeEmbedder())
    store = base.scoped("alice", principal=True)
    store.import_records(
        [{"content": f"scratch note {i}", "task_id": "scratch"} for i in range(count)]
    )
    made: list[int] = []

    def counting(found: Any = ()) -> set[Any]:
        members = set(found)
        made.append(len(members))
        return members

    monkeypatch.setattr(lifecycle, "set", counting, raising=False)
    result = store.forget_where([], task_id="scratch", hard=True)
    assert result.forgotten == count
    assert base.list(Filters(statuses=None), limit=None) == []
    # before: 10,300 members, each memory's set of all those before it
    assert sum(made) < 10 * count, sum(made)


@pytest.mark.parametrize("named", ["task", "one id"])
def test_a_hard_forget_of_a_texts_many_versions_reads_each_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str
) -> None:
    """Review BB: a hard forget's plan walked the chain of versions of each memory it took, a read
    a version, and again for every version in the chain: a token principal's hard forget by task
    of the 60 versions her edits made of one note read 5,600 memories one by one, 40 s at the
    write gate every agent's writes wait for (the owner's ``forget --hard --task`` too). Now each
    memory is read once, and every version goes whichever one is named. Counted in memories
    read."""
    from fake_embedder import FakeEmbedder

    from hindsight_cli.core import amend
    from hindsight_cli.models import Filters
    from hindsight_cli.storage.sql.duckdb_ledger import DuckDBSession
    from hindsight_cli.store import Store

    count = 20
    base = Store(tmp_path / "s", embedder=FakeEmbedder())
    alice = base.scoped("alice", principal=True)
    first = alice.record("scratch note of the nightly build", task_id="scratch").memory.id
    base.record("the owner's own note of the nightly build", task_id="scratch")
    rt = base._rt
    with rt.ledger.write() as session:
        [old] = session.by_ids([first])
        for i in range(count):
            change = amend.Amendment({"resolution": f"rerun it ({i})"}, "resolution added", "fixed")
            new = amend.new_version(old, change, old.created_at)
            amend.write(session, old, new, change, "alice")
            old = new
    real = DuckDBSession.by_ids
    read: list[int] = []

    def by_ids(self: DuckDBSession, ids: Any) -> Any:
        found = real(self, ids)
        read.append(len(found))
        return found

    monkeypatch.setattr(DuckDBSession, "by_ids", by_ids)
    which = {"task_id": "scratch"} if named == "task" else {"ids": [new.id]}
    plan = alice.plan_forget(hard=True, **which)
    # before: 880 memories read for a task of 21
    assert sum(read) < 5 * count, sum(read)
    # every version of hers, none of the owner's
    every = base.list(Filters(statuses=None), limit=None)
    assert sorted(plan.ids) == sorted(m.id for m in every if m.agent_id == "alice")
    assert len(plan.ids) == count + 1


def test_a_hard_forget_of_memories_superseded_by_changed_facts_reads_them_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review BB: each batch of a hard forget looks for the newer versions of its memories' texts
    made since the plan (``lifecycle._and_newer``), and walked the chain of each memory a newer
    memory supersedes one by one, a few reads each: a changed fact superseding it (another
    statement, which stays) is never among those taken, so a token principal's hard forget by task
    of 2,000 notes of hers each superseded by a changed fact read for 14 s in the ledger's write
    transaction, at the write gate. Counted in reads; the changed facts stay."""
    from fake_embedder import FakeEmbedder

    from hindsight_cli.core import lifecycle
    from hindsight_cli.models import Filters
    from hindsight_cli.storage.sql.duckdb_ledger import DuckDBSession
    from hindsight_cli.store import Store

    count = 10
    base = Store(tmp_path / "s", embedder=FakeEmbedder())
    alice = base.scoped("alice", principal=True)
    alice.import_records(
        [{"content": f"the build runs on r{i}", "task_id": "old"} for i in range(count)]
    )
    alice.import_records(
        [
            {"content": f"the build runs on q{i}", "task_id": "new", "supersedes": m.id}
            for i, m in enumerate(alice.list(Filters(task_id="old"), limit=None))
        ]
    )
    reads: list[int] = []
    inside: list[bool] = []
    real, newer = DuckDBSession.by_ids, lifecycle._and_newer

    def by_ids(self: DuckDBSession, ids: Any) -> Any:
        reads.extend([1] if inside else [])
        return real(self, ids)

    def and_newer(*args: Any) -> Any:
        inside.append(True)
        try:
            return newer(*args)
        finally:
            inside.clear()

    monkeypatch.setattr(DuckDBSession, "by_ids", by_ids)
    monkeypatch.setattr(lifecycle, "_and_newer", and_newer)
    assert alice.forget_where([], task_id="old", hard=True).forgotten == count
    # before: 3 reads a memory
    assert len(reads) < 5, len(reads)
    assert len(alice.list(Filters(task_id="new"), limit=None)) == count


@pytest.mark.parametrize(
    ("named", "who"), [("task", "alice"), ("newest", "owner"), ("oldest", "alice")]
)
def test_a_hard_forget_of_a_long_chain_of_versions_reads_it_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str, who: str
) -> None:
    """Review BE: a hard forget read a chain of versions a link a read, in its plan and again in
    each of its batches (``lifecycle._and_newer``, inside the ledger's write transaction): one
    import of 20,000 versions of a note of a token principal's made her hard forget of it read
    for 100 s to plan and a minute in each batch, at the write gate every agent's writes wait for
    (the owner's ``forget --hard`` of it too). Now every version is read at once, whatever the
    chain's length; the same words written apart (hers, the owner's) are no version and stay.
    Counted in reads, with batches of a few memories."""
    from fake_embedder import FakeEmbedder

    from hindsight_cli.core import amend, purge
    from hindsight_cli.models import Filters
    from hindsight_cli.storage.sql.duckdb_ledger import DuckDBSession
    from hindsight_cli.store import Store

    count = 40
    monkeypatch.setattr(purge, "FORGET_BATCH", 10)
    base = Store(tmp_path / "s", embedder=FakeEmbedder())
    alice = base.scoped("alice", principal=True)
    text = "scratch note of the nightly build"
    first = alice.record(text, task_id="scratch").memory.id
    # the same words, no version of it: hers in another task, the owner's
    kept = [
        alice.record(text, task_id="other", merge=False).memory.id,
        base.record(text, task_id="scratch", merge=False).memory.id,
    ]
    with base._rt.ledger.write() as session:
        [old] = session.by_ids([first])
        for i in range(count):
            change = amend.Amendment({"tags": [f"v{i}"]}, "tagged", "tagged")
            new = amend.new_version(old, change, old.created_at)
            amend.write(session, old, new, change, "alice")
            old = new
    reads: list[int] = []
    by_ids, select = DuckDBSession.by_ids, DuckDBSession.select
    monkeypatch.setattr(DuckDBSession, "by_ids", lambda *a, **k: reads.append(1) or by_ids(*a, **k))
    selected: set[str] = set()

    def selecting(*args: Any, **kwargs: Any) -> Any:
        reads.append(1)
        rows = select(*args, **kwargs)
        if any(column == "content_hash" for column, _, _ in args[1]):
            selected.update(r.id for r in rows)
        return rows

    monkeypatch.setattr(DuckDBSession, "select", selecting)
    store = alice if who == "alice" else base
    which: dict[str, Any] = (
        {"task_id": "scratch", "agent_id": "alice"}
        if named == "task"
        else {"ids": [new.id if named == "newest" else first]}
    )
    done = store.forget_where(hard=True, **which)
    # before: a read a version to plan, as many again in the batches (41 to 82)
    assert len(reads) < 30, len(reads)
    assert done.forgotten == count + 1
    left = base.list(Filters(statuses=None), limit=None)
    assert sorted(m.id for m in left) == sorted(kept)
    # nor read by its text: the same words of another agent's are none of its versions
    assert kept[1] not in selected


_TEXT = "deploy failed: permission denied writing /srv/releases"
_FAILURE = {"task_id": "t", "trigger": "tool_error", "outcome": "failure"}


def _versions(tmp_path: Path, count: int) -> tuple[Any, list[str]]:
    """A store whose token principal alice has a failure and ``count`` newer versions of it (tags
    given one by one, as her edits make them): the store and the versions' ids, oldest first."""
    from fake_embedder import FakeEmbedder

    from hindsight_cli.core import amend
    from hindsight_cli.store import Store

    base = Store(tmp_path / "s", embedder=FakeEmbedder())
    chain = [base.scoped("alice", principal=True).record(_TEXT, **_FAILURE).memory.id]
    with base._rt.ledger.write() as session:
        [old] = session.by_ids(chain)
        for i in range(count):
            change = amend.Amendment({"tags": [f"v{i}"]}, "tagged", "tagged")
            new = amend.new_version(old, change, old.created_at)
            amend.write(session, old, new, change, "alice")
            chain.append(new.id)
            old = new
    return base, chain


@pytest.mark.parametrize(
    ("how", "who"), [("write", "alice"), ("import", "alice"), ("import", "owner")]
)
def test_a_fix_for_a_text_with_a_long_chain_of_versions_goes_to_its_newest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str, who: str
) -> None:
    """Review BE: a write repeating a text (a fix for a failure stored already) looked for the
    text's newest version a read a link (``reading.current``), 200 links at most, in its write
    transaction: past 200 versions (a token principal's edits of a note of hers) each such write
    read 400 memories one by one at the write gate, and its fix went to the 200th version,
    superseded long ago, and was lost (the owner's import of it too). Now the chain is read at
    once and the fix is the newest version. With the walk's bound at 20 and 40 versions."""
    from hindsight_cli.core import reading
    from hindsight_cli.models import Filters
    from hindsight_cli.storage.sql.duckdb_ledger import DuckDBSession

    monkeypatch.setattr(reading, "_MAX_CHAIN", 20)
    base, chain = _versions(tmp_path, 40)
    alice, first = base.scoped("alice", principal=True), chain[0]
    reads: list[int] = []
    by_ids = DuckDBSession.by_ids
    monkeypatch.setattr(DuckDBSession, "by_ids", lambda *a, **k: reads.append(1) or by_ids(*a, **k))
    fix = "chown the releases directory to the deploy user"
    store = alice if who == "alice" else base
    if how == "write":
        store.record(_TEXT, agent_id="alice", resolution=fix, **_FAILURE)
    else:
        [record] = [r for r in alice.export() if r["id"] == first]
        store.import_records([{**record, "id": None, "resolution": fix, "status": "active"}])
    # before: 20 to 40 reads, a link each
    assert len(reads) < 15, len(reads)
    [active] = base.list(Filters(agent_ids=("alice",)), limit=None)
    assert active.resolution == fix
    assert base.get(chain[-1]).status == "superseded"


@pytest.mark.parametrize("how", ["write", "import", "supersede", "hard forget"])
def test_copies_of_a_text_in_other_tasks_are_not_read_with_its_chain_of_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Review BH: past ``_WALKED`` links the rest of a chain of versions was read by its text and
    agent, every memory of it whole: a token principal's copies of a note in other tasks of hers
    (each its own memory, none a version) were all read, twice in each write repeating the note,
    at the write gate every agent's writes wait for (3,000 copies: 6,000 rows a write). Now only
    the links of the text's memories are read, and whole only the versions they join. With the
    walk's bound at 1 and a chain of 4 versions beside 20 copies."""
    from hindsight_cli.core import reading
    from hindsight_cli.models import Filters
    from hindsight_cli.storage import codec

    monkeypatch.setattr(reading, "_WALKED", 1)
    base, chain = _versions(tmp_path, 3)
    alice, first = base.scoped("alice", principal=True), chain[0]
    [record] = [r for r in alice.export() if r["id"] == first]
    copies = [
        {**record, "id": None, "idempotency_key": None, "task_id": f"x{i}", "status": "active"}
        for i in range(20)
    ]
    for copy in copies:
        copy.update(supersedes=None, superseded_by=None)
    base.import_records(copies)
    decoded: list[int] = []
    from_sql = codec.from_sql
    monkeypatch.setattr(codec, "from_sql", lambda *a: decoded.append(1) or from_sql(*a))
    fix = "chown the releases directory to the deploy user"
    if how == "write":
        alice.record(_TEXT, resolution=fix, **_FAILURE)
    elif how == "import":
        base.import_records([{**record, "id": None, "resolution": fix, "status": "active"}])
    elif how == "supersede":
        alice.record(_TEXT, supersedes=chain[1], resolution=fix, **_FAILURE)
    else:
        assert alice.forget([chain[-1]], hard=True) == 4
    # before: the 20 copies read whole (twice in a write): 24 to 50 rows
    assert len(decoded) < 20, len(decoded)
    left = base.list(Filters(statuses=None), limit=None)
    assert sum(m.content == _TEXT and m.task_id != "t" for m in left) == 20
    if how != "hard forget":
        [active] = [m for m in left if m.task_id == "t" and m.status == "active"]
        assert active.resolution == fix and active.supersedes == chain[-1]


@pytest.mark.parametrize("how", ["write", "import"])
@pytest.mark.parametrize("who", ["alice", "owner"])
def test_a_link_an_import_brought_joins_no_other_agents_memory_to_a_chain(
    tmp_path: Path, how: str, who: str
) -> None:
    """Review BH: an import keeps a memory's links as its file wrote them, and a chain of versions
    was joined wherever a link stayed within one text, whatever the agents: an imported memory of
    token principal alice's naming the owner's memory of the same words as its newer version made
    that the newest of hers, so her write repeating it gave the owner's memory her fix (a new
    version under the owner's agent, the owner's superseded), and the owner's write repeating an
    imported memory of his naming alice's gave hers his fix, which she then read. Now a version is
    one agent's: each write's fix stays with its own agent and the other's memory is untouched."""
    from fake_embedder import FakeEmbedder

    from hindsight_cli.models import Filters
    from hindsight_cli.store import Store

    base = Store(tmp_path / "s", embedder=FakeEmbedder())
    other = "alice" if who == "owner" else "owner"
    writer = base.scoped("alice", principal=True) if who == "alice" else base
    theirs = base.record(_TEXT, agent_id=other, **_FAILURE).memory
    [record] = [r for r in base.export() if r["id"] == theirs.id]
    named = {**record, "id": None, "idempotency_key": None, "agent_id": who}
    base.import_records([{**named, "superseded_by": theirs.id, "status": "active"}])
    fix = "chown the releases directory to the deploy user"
    if how == "write":
        writer.record(_TEXT, agent_id=who, resolution=fix, **_FAILURE)
    else:
        writer.import_records([{**named, "id": None, "resolution": fix, "status": "active"}])
    left = base.list(Filters(statuses=None), limit=None)
    # before: the other agent's memory superseded by a version of it holding the fix
    assert [(m.status, m.resolution) for m in left if m.agent_id == other] == [("active", None)]
    [mine] = [m for m in left if m.agent_id == who and m.status == "active"]
    assert mine.resolution == fix


def _reads(monkeypatch: pytest.MonkeyPatch, *names: str) -> list[str]:
    """The ledger reads ``names`` (``by_key``, ``select``) made from now on, by name."""
    from hindsight_cli.storage.sql import common

    reads: list[str] = []
    for name in names:
        real = getattr(common.SqlSession, name)

        def counting(
            self: Any, *args: Any, _real: Any = real, _name: str = name, **kwargs: Any
        ) -> Any:
            reads.append(_name)
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(common.SqlSession, name, counting)
    return reads


@pytest.mark.parametrize("planted", [3, 12])
def test_an_import_planting_the_keys_a_write_moves_to_does_not_hold_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, planted: int
) -> None:
    """Review BN: a write whose key a less trusted memory holds moves to a key derived from it,
    and on while each is held (``writes._key_holder``), a read a key: an import file's memories
    (source web) under the owner's next key of a text and the keys each derives from the one
    before (anyone can derive them) held the owner's write of that text in its transaction, at the
    write gate, a read each (3,000 of them: 13 s a write, every write of it). Now the keys are read
    at once, ``amend.MOVED`` of them (4 here); past them the write moves to a key of its own id. Either
    way the write is stored once, and its retry finds it."""
    from hindsight_cli.core import amend
    from hindsight_cli.core.prepare import default_key, derived_key
    from hindsight_cli.store import Store
    from tests.fake_embedder import FakeEmbedder

    monkeypatch.setattr(amend, "MOVED", 4, raising=False)
    store = Store(tmp_path / "s", embedder=FakeEmbedder())
    agent, text = store.config.default_agent, "the deploy failed: permission denied"
    key, planted_rows = default_key(agent, None, None, text), []
    for i in range(planted):
        planted_rows.append(
            {"content": f"planted {i}", "agent_id": agent, "source": "web", "idempotency_key": key}
        )
        key = derived_key("over", key)
    store.import_records(planted_rows)
    reads = _reads(monkeypatch, "by_key", "select")
    first = store.record(text)
    # before: a read for each planted key
    assert len(reads) <= 3, reads
    again = store.record(text)
    assert again.deduplicated and again.memory.id == first.memory.id
    assert [m.content for m in store.list(limit=None)].count(text) == 1


def test_an_import_planting_the_keys_a_write_is_kept_beside_at_does_not_hold_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review BN, the same for the keys a less trusted write moves to beside a memory it would
    change (``writes._holder``, an import's ``amend._repeated``): an import file's trusted
    memories of token principal alice's text, each with a fix, under her key and the keys each
    derives from the one before, held her write of it a version chain's reads a key. Now
    ``amend.MOVED`` keys at most (4 here); then one of its own id."""
    from hindsight_cli.core import amend
    from hindsight_cli.core.prepare import default_key, derived_key
    from hindsight_cli.store import Store
    from tests.fake_embedder import FakeEmbedder

    monkeypatch.setattr(amend, "MOVED", 4, raising=False)
    owner = Store(tmp_path / "s", embedder=FakeEmbedder())
    text = "the deploy failed: permission denied"
    key, planted = default_key("alice", None, None, text), []
    for i in range(12):
        planted.append(
            {
                "content": text,
                "agent_id": "alice",
                "source": "user",
                "resolution": f"the owner's fix {i}",
                "idempotency_key": key,
            }
        )
        key = derived_key("beside", key)
    owner.import_records(planted)
    alice = owner.scoped("alice", principal=True)
    reads = _reads(monkeypatch, "select")
    mine = alice.record(text, resolution="her own fix")
    # before: a read of the key (and the chain's reads) for each of the 12 planted
    assert len(reads) <= 4 + 2, reads
    assert mine.memory.resolution == "her own fix" and mine.memory.source == "token:alice"
    assert len(owner.list(limit=None)) == 13


def test_an_import_planting_a_summarys_keys_does_not_hold_a_principals_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review BN, the same for a token principal's summary written beside a more trusted one
    under its key (``derive._write_derived``): an import file's trusted memories under the key of
    her summary of a task and the keys each derives from the one before held her summarize a
    read each, in its transaction at the write gate. Now ``amend.MOVED`` (4 here), then a key of
    its own id."""
    from hindsight_cli.core import amend
    from hindsight_cli.core.prepare import derived_key
    from hindsight_cli.store import Store
    from tests.fake_embedder import FakeEmbedder

    monkeypatch.setattr(amend, "MOVED", 4, raising=False)
    owner = Store(tmp_path / "s", embedder=FakeEmbedder())
    alice = owner.scoped("alice", principal=True)
    for step in (1, 2):
        alice.record(f"step {step} of the deploy ran", task_id="t", step=step)
    key, planted = derived_key("summary", "alice", "t", 0), []
    for i in range(12):
        planted.append({"content": f"the owner's {i}", "agent_id": "alice", "source": "user"})
        planted[-1]["idempotency_key"], key = key, derived_key("beside", key)
    owner.import_records(planted)
    reads = _reads(monkeypatch, "by_key")
    summary = alice.summarize(task_id="t")
    # before: a read for each of the 12 planted
    assert len(reads) <= 4 + 1, reads
    assert summary.memory.agent_id == "alice" and not summary.updated, summary
    assert "token:alice" in summary.memory.source, summary.memory.source


def test_an_import_repeating_a_planted_chain_of_keys_moves_past_few(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review BN, the same for an imported record kept beside a more trusted memory it would
    change (``amend._repeated``): the memories an earlier file planted under its key and the keys
    each derives from the one before were read a key each, in its read pass and again in its
    write transaction. Now ``amend.MOVED`` (4 here), then a key of its own id."""
    from hindsight_cli.core import amend
    from hindsight_cli.core.prepare import derived_key
    from hindsight_cli.store import Store
    from tests.fake_embedder import FakeEmbedder

    monkeypatch.setattr(amend, "MOVED", 4, raising=False)
    owner = Store(tmp_path / "s", embedder=FakeEmbedder())
    text, key, planted = "the deploy failed: permission denied", "k-1", []
    for i in range(12):
        fix = f"the owner's fix {i}"
        planted.append({"content": text, "source": "user", "resolution": fix})
        planted[-1]["idempotency_key"], key = key, derived_key("beside", key)
    owner.import_records(planted)
    reads = _reads(monkeypatch, "by_key")
    page = {
        "content": text,
        "source": "web",
        "resolution": "a page's fix",
        "idempotency_key": "k-1",
    }
    owner.import_records([page])
    # before: a read for each of the 12 planted, in the read pass and at the write
    assert len(reads) <= 2 * (4 + 1), reads
    kept = [m for m in owner.list(limit=None) if m.resolution == "a page's fix"]
    assert len(kept) == 1 and kept[0].source == "web"
