"""The Python API (no CLI), with the deterministic fake embedder."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import stored_data

from hindsight_cli import Filters, InvalidInput, MemoryNotFound, StoreNotFound
from hindsight_cli.errors import EmbeddingMismatch, StoreBusy
from hindsight_cli.search.query import SearchQuery
from hindsight_cli.store import Store, open_store
from hindsight_cli.timeutil import now


def test_record_returns_the_stored_memory_with_defaults(store: Store) -> None:
    result = store.record(
        "weather API returned 401",
        agent_id="a1",
        task_id="t1",
        trigger="tool_error",
        outcome="failure",
        resolution="refreshed the token",
        env={"tool_version": "v2"},
    )
    memory = result.memory
    assert not result.deduplicated and result.redactions == 0
    assert (memory.type, memory.agent_id, memory.task_id, memory.outcome) == (
        "episodic",
        "a1",
        "t1",
        "failure",
    )
    # tool_error default
    assert memory.importance == 0.8
    assert memory.env == {"tool_version": "v2"}
    # UUIDv7
    assert memory.id[14] == "7" and len(memory.id) == 36
    assert store.get(memory.id) == memory


def test_same_key_is_idempotent(store: Store) -> None:
    first = store.record("deploy finished", task_id="t", step=3)
    again = store.record("deploy finished", task_id="t", step=3)
    assert again.deduplicated and again.memory.id == first.memory.id
    assert len(store.list()) == 1
    other_step = store.record("deploy finished", task_id="t", step=4)
    assert not other_step.deduplicated
    explicit = store.record("something else entirely", key="k-1")
    assert store.record("and another text", key="k-1").memory.id == explicit.memory.id


def test_near_duplicate_merges_and_counts(store: Store) -> None:
    first = store.record("The build cache must be cleared after upgrading node")
    merged = store.record("the build cache must be cleared after upgrading node!", task_id=None)
    assert merged.deduplicated and merged.memory.id == first.memory.id
    assert merged.memory.seen_count == 2 and merged.memory.last_seen_at is not None
    kept = store.record("the build cache must be cleared after upgrading node!!", merge=False)
    assert not kept.deduplicated
    assert len(store.list()) == 2


def test_secrets_are_redacted_before_storage(store: Store) -> None:
    result = store.record(
        "login with postgres://app:s3cretPass@db/x and key AKIAQ3EGRZ7KVN2LWX5T",
        metadata={"api_key": "abcd1234", "note": "token=ghp_Zq7Vx3Lm9Pk2Wr8Tn4Bc6Hy1Jd5Fg0Ks3Qe7"},
    )
    assert result.redactions == 4
    stored = store.get(result.memory.id)
    assert "s3cretPass" not in stored.content and "AKIAQ3EGRZ7KVN2LWX5T" not in stored.content
    assert stored.metadata == {
        "api_key": "[REDACTED:secret]",
        "note": "token=[REDACTED:github_token]",
    }
    raw = b"".join(data for _, data in stored_data(store.path))
    assert b"s3cretPass" not in raw and b"AKIAQ3EGRZ7KVN2LWX5T" not in raw
    # the grep sees what was stored
    assert b"[REDACTED:github_token]" in raw


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"content": ""}, "content is empty"),
        ({"content": "x", "type": "dream"}, "type must be one of"),
        ({"content": "x", "outcome": "meh"}, "outcome must be one of"),
        ({"content": "x", "importance": 1.5}, "importance must be between 0 and 1"),
        ({"content": "x", "confidence": "high"}, "confidence must be a number"),
        ({"content": "x", "step": -1}, "step must be 0 or more"),
        ({"content": "x", "ttl": "soon"}, "Invalid ttl"),
        ({"content": "x", "event_at": "yesterday-ish"}, "Invalid event_at"),
        ({"content": "x" * (16384 * 64 + 1)}, "more than 64 parts of 16384 bytes"),
    ],
)
def test_invalid_input_is_refused_whole(store: Store, fields: dict, message: str) -> None:
    fields = dict(fields)
    content = fields.pop("content")
    with pytest.raises(InvalidInput, match=message):
        store.record(content, **fields)
    assert store.list() == []


def test_control_characters_are_stripped(store: Store) -> None:
    memory = store.record("bell\x07 and \x1b[31mescape\x00 kept\ttab\nline").memory
    assert memory.content == "bell and [31mescape kept\ttab\nline"


def test_search_finds_by_keyword_and_vector_and_respects_filters(store: Store) -> None:
    weather = store.record(
        "weather API returned 401 because the token expired",
        agent_id="a1",
        task_id="t1",
        outcome="failure",
        resolution="refresh the token",
    ).memory
    store.record("user prefers dark mode in the editor", agent_id="a2", type="semantic")
    store.record("database migration succeeded", agent_id="a1", outcome="success")
    hits = store.search("weather API 401").hits
    assert hits[0].memory.id == weather.id
    assert set(hits[0].matched) == {"vector", "keyword"}
    assert store.search("weather API 401", filters=Filters(agent_ids=("a2",))).hits == []
    scoped = store.search("dark mode editor", filters=Filters(agent_ids=("a2",))).hits
    assert [h.memory.agent_id for h in scoped] == ["a2"]
    assert store.search("weather", filters=Filters(task_id="nope")).hits == []


def test_word_forms_and_cjk_match_by_keyword(store: Store) -> None:
    english = store.record("The tokens expired while retrying requests").memory
    chinese = store.record("调用天气API时返回401，原因是token过期").memory
    assert store.search("token expires retry", mode="keyword").hits[0].memory.id == english.id
    hits = store.search("天气 过期", mode="keyword").hits
    assert [h.memory.id for h in hits] == [chinese.id]


def test_working_memories_and_forgotten_ones_are_not_searched(store: Store) -> None:
    scratch = store.record("scratch note about parsing", type="working").memory
    # default TTL for working memory
    assert scratch.expires_at is not None
    gone = store.record("parsing failed on empty input").memory
    store.forget([gone.id])
    assert store.search("parsing").hits == []
    asked = store.search("parsing", filters=Filters(types=("working",))).hits
    assert [h.memory.id for h in asked] == [scratch.id]
    store.restore(gone.id)
    assert [h.memory.id for h in store.search("parsing").hits] == [gone.id]


def test_expired_memories_are_excluded_and_forgettable(store: Store) -> None:
    old = store.record("temporary credentials rotate hourly", ttl="1s").memory
    fresh = store.record("credentials live in the vault").memory
    later = now() + timedelta(seconds=2)
    assert old.expires_at is not None
    store.clock = lambda: later
    assert [h.memory.id for h in store.search("credentials").hits] == [fresh.id]
    assert (
        store.forget(filters=Filters(statuses=None, expired_only=True, include_expired=True)) == 1
    )
    assert store.get(old.id).status == "invalidated"


def test_ranking_prefers_fixed_failures_recent_and_same_task(store: Store) -> None:
    fixed = store.record(
        "payment API timeout on checkout",
        outcome="failure",
        resolution="raised the timeout",
        event_at="2026-01-01T00:00:00Z",
    ).memory
    unfixed = store.record(
        "payment API timeout on checkout page", outcome="failure", event_at="2026-01-01T00:00:00Z"
    ).memory
    hits = store.search("payment API checkout").hits
    assert [h.memory.id for h in hits[:2]] == [fixed.id, unfixed.id]
    in_task = store.record("payment API checkout flow notes", task_id="task-9").memory
    top = store.search("payment API checkout", current_task="task-9").hits[0]
    assert top.memory.id == in_task.id and top.explain["signals"]["same_task"] == 1.0


def test_env_mismatch_downranks_and_explains(store: Store) -> None:
    v2 = store.record("weather tool returns celsius", env={"tool_version": "v2"}).memory
    v3 = store.record("weather tool returns celsius by default", env={"tool_version": "v3"}).memory
    hits = store.search("weather tool celsius", env={"tool_version": "v3"}).hits
    assert hits[0].memory.id == v3.id
    mismatch = next(h for h in hits if h.memory.id == v2.id)
    assert mismatch.explain["factor"] < hits[0].explain["factor"]
    assert "env differs: tool_version=v2 (now v3)" in mismatch.explain["notes"]


def test_budget_limits_the_context_block(store: Store) -> None:
    for i in range(8):
        store.record(
            f"deploy step {i}: the deploy script needs the --force flag on staging number {i}",
            step=i,
            task_id="deploy",
        )
    unlimited = store.search("deploy script staging", k=8)
    small = store.search("deploy script staging", k=8, budget=60)
    assert len(unlimited.hits) == 8
    assert 0 < len(small.hits) < 8 and small.tokens <= 60
    assert small.context.startswith(f"[hindsight: {len(small.hits)} memor")
    assert (
        f"{small.tokens} tokens; {8 - len(small.hits)} more did not fit]"
        in (small.context.splitlines()[0])
    )


def test_search_takes_a_query_object_or_keywords_not_both(store: Store) -> None:
    # one import rather than 25 records (a write each): the search's defaults are the point
    store.import_records(
        [
            {"content": f"staging deploy note {i}: the script takes flag {i}", "step": i}
            for i in range(25)
        ]
    )
    text = "staging deploy script flag"
    # the request's own defaults, whichever form asks: 5 hits, or 20 for a budget to choose from
    assert len(store.search(text).hits) == len(store.search(SearchQuery(text)).hits) == 5
    assert len(store.search(text, budget=10_000).hits) == 20
    assert len(store.search(SearchQuery(text, budget=10_000)).hits) == 20
    keywords = store.search(text, k=3, mode="keyword", troubleshoot=True)
    whole = store.search(SearchQuery(text, k=3, mode="keyword", troubleshoot=True))
    assert len(whole.hits) == 3
    assert [h.memory.id for h in whole.hits] == [h.memory.id for h in keywords.hits]
    # keywords beside a query object would be ignored: refused instead, saying what to do
    with pytest.raises(TypeError) as both:
        store.search(SearchQuery(text), k=3)
    assert str(both.value) == (
        "Store.search() takes a SearchQuery or keyword arguments, not both: set k in the "
        "SearchQuery itself (dataclasses.replace(query, ...))."
    )
    with pytest.raises(
        TypeError, match="unexpected keyword argument\\(s\\) 'top_k'; it takes filters, k,"
    ):
        store.search(text, top_k=3)


def test_mmr_diversifies(store: Store) -> None:
    for i in range(4):
        store.record(f"redis connection refused on port 6379 attempt {i}", merge=False, step=i)
    other = store.record("redis memory limit reached, eviction policy changed").memory
    ids = [h.memory.id for h in store.search("redis", k=3).hits]
    assert other.id in ids


def test_forget_hard_purges_rows_and_index(store: Store) -> None:
    keep = store.record("keep this memory about caching").memory
    drop = store.record("purge this memory about caching").memory
    store.sync_index()
    assert store.forget([drop.id], hard=True) == 1
    with pytest.raises(MemoryNotFound):
        store.get(drop.id)
    if store.ledger.capabilities.files:
        assert store.index().ids() == {keep.id}
    assert [h.memory.id for h in store.search("caching", engine="index").hits] == [keep.id]
    assert not [name for name, data in stored_data(store.path) if b"purge this memory" in data]


def test_index_engine_matches_ledger_engine(store: Store) -> None:
    for text in (
        "git push rejected: non-fast-forward",
        "pip install failed: no matching distribution",
        "docker daemon not running",
        "git rebase conflict in README",
        "用户喜欢简短的回答",
    ):
        store.record(text)
    for query in ("git push", "install failed", "简短 回答", "docker"):
        ledger = [h.memory.id for h in store.search(query, engine="ledger").hits]
        index = [h.memory.id for h in store.search(query, engine="index").hits]
        assert ledger[:1] == index[:1], query


def test_index_catches_up_after_writes_by_others(store: Store, fake) -> None:
    warm = Store(store.path, embedder=fake, warm=True)
    first = store.record("first memory about kafka").memory
    assert [h.memory.id for h in warm.search("kafka").hits] == [first.id]
    # written by another Store
    second = store.record("second memory about kafka consumers").memory
    assert {h.memory.id for h in warm.search("kafka").hits} == {first.id, second.id}
    store.forget([first.id], hard=True)
    assert [h.memory.id for h in warm.search("kafka").hits] == [second.id]


def test_export_import_round_trip_is_idempotent(store: Store, tmp_path: Path, fake) -> None:
    store.record("alpha memory", tags=["x"], metadata={"k": 1})
    gone = store.record("beta memory").memory
    store.forget([gone.id])
    exported = list(store.export())
    other = Store(tmp_path / "other", embedder=fake)
    first = other.import_records(exported)
    assert (first.added, first.skipped) == (2, 0)
    again = other.import_records(exported)
    assert (again.added, again.skipped) == (0, 2)
    assert list(other.export()) == exported


def test_import_refuses_a_bad_record_whole(store: Store) -> None:
    with pytest.raises(InvalidInput, match="Record 2: outcome must be one of"):
        store.import_records([{"content": "fine"}, {"content": "bad", "outcome": "perhaps"}])
    assert store.list() == []


def test_model_mismatch_names_reindex(store: Store) -> None:
    class Other:
        name, dim = "other/model", 8

        def embed(self, texts):  # pragma: no cover - never reached
            raise AssertionError

    store.record("something")
    with pytest.raises(EmbeddingMismatch, match="hindsight reindex"):
        Store(store.path, embedder=Other()).search("something")


def test_reindex_switches_model(store: Store, fake) -> None:
    store.record("graphql schema drift detected")

    class Bigger(type(fake)):
        name, dim = "test/bigger", 48

    bigger = Store(store.path, embedder=Bigger())
    assert bigger.reindex() == 1
    assert bigger.stats()["embedding_dim"] == 48
    assert bigger.search("graphql schema").hits[0].memory.content == "graphql schema drift detected"


def test_missing_store_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreNotFound, match="hindsight init"):
        Store(tmp_path / "nowhere").search("x")


@pytest.mark.slow
@pytest.mark.local_only
def test_lock_conflict_retries_then_fails_clearly(store: Store, tmp_path: Path) -> None:
    import subprocess
    import sys

    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', flush=True);"
            " time.sleep(1.0); open(sys.argv[2], 'w').close()",
            str(store.ledger.path),
            str(tmp_path / "releasing"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    # retried with backoff until the holder exits: it marks the moment it lets go, and the write
    # cannot have gone through before it
    store.record("written once the lock is released")
    assert (tmp_path / "releasing").exists()
    holder.wait()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', flush=True);"
            " time.sleep(float(sys.argv[2]))",
            str(store.ledger.path),
            # held until killed below, however slowly this machine runs
            "300",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        store.ledger.lock_timeout = 0.3
        with pytest.raises(StoreBusy, match="HINDSIGHT_LOCK_TIMEOUT"):
            store.list()
    finally:
        holder.kill()
        holder.wait()


def test_open_store_uses_lookup_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "work" / ".hindsight"
    project.mkdir()
    nested = tmp_path / "work" / "a" / "b"
    nested.mkdir(parents=True)
    monkeypatch.chdir(nested)
    assert open_store().path == project.resolve()
    monkeypatch.setenv("HINDSIGHT_STORE", str(tmp_path / "env-store"))
    assert open_store().path == (tmp_path / "env-store").resolve()
    assert open_store(tmp_path / "flag").path == (tmp_path / "flag").resolve()


def test_strong_evidence_outranks_small_signal_differences(store: Store) -> None:
    strong = store.record(
        "weather api returned 401 because the token expired", importance=0.3
    ).memory
    store.record("the api said 401 once", importance=1.0, trigger="tool_error")
    top = store.search("weather api 401 token expired").hits[0]
    assert top.memory.id == strong.id
    assert top.explain["signals"]["relevance"] > 0.9


@pytest.mark.local_only
def test_warm_search_skips_the_ledger_until_someone_writes(store: Store, fake, monkeypatch) -> None:
    first = store.record("grafana dashboard shows p99 latency spikes").memory
    warm = Store(store.path, embedder=fake, warm=True)
    warm.sync_index()
    # the approval is asked once as the store is first searched (its ledger's key read with it,
    # review AE), then again only when a file it reads changes
    assert warm.origin is None
    opened: list[bool] = []
    real_read = warm.ledger.read

    def counting_read(*args, **kwargs):
        opened.append(True)
        return real_read(*args, **kwargs)

    monkeypatch.setattr(warm.ledger, "read", counting_read)
    assert [h.memory.id for h in warm.search("grafana latency").hits] == [first.id]
    # served from the index alone
    assert opened == []
    # another process's write
    second = store.record("grafana alert for latency routed to on-call").memory
    assert {h.memory.id for h in warm.search("grafana latency").hits} == {first.id, second.id}
    # the change marker made it catch up through the ledger
    assert opened
    opened.clear()
    store.forget([second.id])
    assert [h.memory.id for h in warm.search("grafana latency").hits] == [first.id]


def _task(store: Store, count: int, task: str = "t-9") -> list:
    topics = [
        "checked out the repository",
        "installed the dependencies with pip",
        "ran the unit tests",
        "the integration tests failed on a missing env var",
        "built the docker image",
        "pushed the image to the registry",
        "deployed to staging",
        "smoke tests passed on staging",
    ]
    out = []
    for step in range(count):
        failed = step == 3
        out.append(
            store.record(
                f"step {step}: {topics[step % len(topics)]}",
                task_id=task,
                step=step,
                outcome="failure" if failed else "success",
                resolution="exported DATABASE_URL and reran" if failed else None,
            ).memory
        )
    return out


def test_summarize_writes_a_linked_semantic_memory_and_updates_on_rerun(store: Store) -> None:
    originals = _task(store, 4)
    result = store.summarize(task_id="t-9")
    summary = result.memory
    assert (summary.type, summary.trigger, summary.task_id, result.sources, result.parts) == (
        "semantic",
        "summary",
        "t-9",
        4,
        [],
    )
    assert summary.source_ids == [m.id for m in originals]
    assert summary.content.startswith("Summary of task t-9 (4 memories, ")
    assert "3 succeeded, 1 failed (1 fixed)" in summary.content
    assert (
        "integration tests failed on a missing env var → fix: exported DATABASE_URL and reran"
        in summary.content
    )
    again = store.summarize(task_id="t-9")
    assert again.memory.id == summary.id and not again.updated
    # a fifth step arrives (steps 0-3 are idempotent repeats)
    _task(store, 5)
    grown = store.summarize(task_id="t-9")
    assert grown.memory.id == summary.id and grown.updated and grown.sources == 5
    assert grown.memory.version == 2
    assert len([m for m in store.list() if m.trigger == "summary"]) == 1


def test_long_tasks_get_a_summary_chain_that_walks_down_to_the_originals(store: Store) -> None:
    originals = _task(store, 8)
    result = store.summarize(task_id="t-9")
    assert len(result.parts) == 2 and result.memory.source_ids == result.parts
    chain = store.sources(result.memory.id)
    assert [depth for depth, _ in chain] == [0, 1, 2, 2, 2, 2, 2, 1, 2, 2, 2]
    assert [m.id for depth, m in chain if depth == 2] == [m.id for m in originals]
    assert "part 1 of 2" in chain[1][1].content
    top = store.search("what happened in task t-9 tests", filters=Filters(task_id="t-9")).hits
    assert any(h.memory.trigger == "summary" for h in top)


def test_summarize_needs_a_selection_with_memories(store: Store) -> None:
    with pytest.raises(InvalidInput, match="Say what to summarize"):
        store.summarize()
    with pytest.raises(
        InvalidInput, match="Nothing to summarize: no active episodic memories for task nope"
    ):
        store.summarize(task_id="nope")


def test_two_processes_creating_the_index_at_once(store: Store, fake) -> None:
    import threading

    store.record("first memory about index creation races")
    errors: list[BaseException] = []

    def open_and_search() -> None:
        try:
            Store(store.path, embedder=fake, warm=True).search("index creation", engine="index")
        except BaseException as error:  # noqa: BLE001 - collected for the assertion
            errors.append(error)

    threads = [threading.Thread(target=open_and_search) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_a_scoped_store_sees_and_changes_only_its_agent(store: Store) -> None:
    from hindsight_cli import InvalidInput, MemoryNotFound

    theirs = store.record("agent b keeps the release checklist in notion", agent_id="b").memory
    mine = store.scoped("a")
    own = mine.record("agent a keeps the release checklist in git").memory
    assert own.agent_id == "a"
    assert [h.memory.id for h in mine.search("release checklist").hits] == [own.id]
    assert [m.id for m in mine.list()] == [own.id]
    with pytest.raises(MemoryNotFound):
        mine.get(theirs.id)
    with pytest.raises(MemoryNotFound):
        mine.forget([theirs.id], hard=True)
    with pytest.raises(InvalidInput, match="scoped to agent 'a'"):
        mine.record("written as b", agent_id="b")
    with pytest.raises(InvalidInput, match="scoped to agent 'a'"):
        mine.search("release", filters=Filters(agent_ids=("b",)))
    assert mine.forget_where(agent_id="a").forgotten == 1
    assert store.get(theirs.id).status == "active"
    assert Store(store.path, embedder=store.embedder, agent="b").list()[0].id == theirs.id


def test_a_time_zone_aware_now_works_everywhere_a_time_is_taken(store: Store) -> None:
    """``now=``, filters and an injected clock with a time zone mean the same moment in UTC."""
    from datetime import UTC, datetime, timezone

    from hindsight_cli.models import Filters as F

    old = store.record("the cache was flushed by hand", event_at="2026-01-10T08:00:00Z").memory
    store.record("the cache was resized", event_at="2026-03-10T08:00:00Z")
    tokyo = timezone(timedelta(hours=9))
    aware = datetime(2026, 3, 11, 2, 0, tzinfo=tokyo)
    naive = aware.astimezone(UTC).replace(tzinfo=None)
    as_aware = [h.memory.id for h in store.search("cache", now=aware).hits]
    assert as_aware == [h.memory.id for h in store.search("cache", now=naive).hits]
    # 2026-01-10T17:00+09:00 is 08:00 UTC: the first memory is at the bound, the second after it
    until = datetime(2026, 1, 10, 17, 0, tzinfo=tokyo)
    assert [m.id for m in store.list(F(until=until))] == [old.id]
    assert [m.id for m in store.list(F(since=datetime(2026, 2, 1, tzinfo=tokyo)))] != [old.id]
    clocked = Store(store.path, embedder=store.embedder, clock=lambda: aware)
    made = clocked.record("the cache was warmed").memory
    assert made.created_at.startswith("2026-03-10T17:00")


def test_a_long_session_is_summarised_from_a_sample_of_its_sentences(store: Store) -> None:
    """A session of hundreds of lines (an autonomous agent's) is summarised by embedding at most
    ``MAX_POOL`` of its sentences, sampled across it, not every one."""
    from conftest import FakeEmbedder

    from hindsight_cli.core.extractive import MAX_POOL, key_sentences

    texts = [
        f"Step {n}: ran check number {n} on module m{n % 7} and it passed." for n in range(300)
    ]
    asked: list[int] = []
    fake = FakeEmbedder()

    def embed(batch: list[str]) -> Any:
        asked.append(len(batch))
        return fake.embed(batch)

    points = key_sentences(texts, embed)
    assert asked == [MAX_POOL] and len(points) == 3
    # and the store's summary of such a session still has its key points
    store.record("\n".join(texts[:150]), task_id="long")
    store.record("\n".join(texts[150:]), task_id="long")
    assert "Key points:" in store.summarize(task_id="long").memory.content
