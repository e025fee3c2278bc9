"""The memory lifecycle through the Python API: supersede, validity, TTL and expiry, archive, hard
forget that leaves no trace on disk, the audit log, troubleshooting recall, consolidation, schema
migration."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb
import pytest
from conftest import REPO, stored_data

from hindsight_cli import Filters
from hindsight_cli.config import Config, Ranking
from hindsight_cli.errors import InvalidInput, MemoryNotFound
from hindsight_cli.storage.sql.duckdb_schema import SCHEMA_VERSION
from hindsight_cli.store import Store

UNIQUE = "zebracorn-7f3a9c"


def _store_bytes(path: Path) -> list[str]:
    """Every file under the store directory (and, on Postgres, every table) that holds the unique
    marker."""
    return [name for name, data in stored_data(path) if UNIQUE.encode() in data]


# --- supersede
# ---------------------------------------------------------------------------------------


def test_supersede_replaces_in_search_and_keeps_history(store: Store) -> None:
    old = store.record("the weather API wants a bearer token in the Authorization header").memory
    new = store.record(
        "the weather API now wants an X-Api-Key header instead of a bearer token",
        supersedes=old.id[:13],
    ).memory
    assert new.supersedes == old.id
    before = store.get(old.id)
    assert (before.status, before.superseded_by) == ("superseded", new.id)
    hits = store.search("weather API header token", k=5).hits
    assert [h.memory.id for h in hits] == [new.id]
    assert [m.id for m in store.history(old.id)] == [old.id, new.id]
    assert [m.id for m in store.history(new.id)] == [old.id, new.id]
    entry = store.log(action="supersede")[0]
    assert entry.ids == [old.id, new.id] and entry.actor == "default"


def test_supersede_refusals_write_nothing(store: Store) -> None:
    old = store.record("deploys go through the staging cluster first").memory
    store.record("deploys now go straight to production behind a flag", supersedes=old.id)
    other = store.record("agent b's note about deploys", agent_id="agent-b").memory
    count = len(store.list())
    with pytest.raises(InvalidInput, match="already superseded by"):
        store.record("deploys go through canary", supersedes=old.id)
    # an agent named, not inherited
    with pytest.raises(InvalidInput, match="belongs to agent 'agent-b'"):
        store.record("agent default replacing b's note", supersedes=other.id, agent_id="default")
    with pytest.raises(MemoryNotFound):
        store.record("replacing nothing", supersedes="01234567-dead-beef")
    assert len(store.list()) == count
    assert store.get(other.id).status == "active"


def test_superseded_memory_comes_back_when_its_replacement_is_purged(store: Store) -> None:
    old = store.record("the cache lives in redis").memory
    new = store.record("the cache lives in memcached", supersedes=old.id).memory
    with pytest.raises(InvalidInput, match="which is active: forget that one first"):
        store.restore(old.id)
    store.forget([new.id], hard=True)
    assert store.restore(old.id).status == "active"


def test_a_supersede_checks_both_memories_again_in_its_write(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = store.record("the cache lives in redis").memory
    new = store.record("session data moved to the postgres cluster").memory
    ledger = store.ledger
    write = ledger.write

    def meanwhile() -> Any:
        # another process forgets the newer memory between the checks and the write
        monkeypatch.setattr(ledger, "write", write)
        store.forget([new.id])
        return write()

    monkeypatch.setattr(ledger, "write", meanwhile)
    with pytest.raises(InvalidInput, match=f"{new.id} is invalidated"):
        store.supersede(old.id, new.id)
    assert store.get(old.id).status == "active" and store.get(new.id).supersedes is None
    assert not store.log(action="supersede")


# --- validity and environment
# ------------------------------------------------------------------------


def test_past_valid_until_ranks_lower_and_explains(store: Store) -> None:
    stale = store.import_records(
        [{"content": "the release branch is release-41", "valid_until": "2020-01-01"}]
    )
    assert stale.added == 1
    fresh = store.record("the release branch is release-42").memory
    hits = store.search("release branch", k=2).hits
    assert hits[0].memory.id == fresh.id
    assert "past valid_until" in hits[1].explain["notes"]


def test_env_mismatch_can_drop_instead_of_downranking(tmp_path: Path, fake) -> None:
    config = replace(Config(), ranking=Ranking(env_mismatch="drop"))
    store = Store(tmp_path / "s", embedder=fake, config=config)
    v2 = store.record(
        "retry the upload with multipart for large files", env={"tool_version": "v2"}
    ).memory
    other = store.record(
        "retry the upload with multipart chunks of 8 MB", env={"os": "linux"}
    ).memory
    hits = store.search("retry the upload multipart", env={"tool_version": "v3"}).hits
    # no tool_version recorded: nothing to mismatch
    assert [h.memory.id for h in hits] == [other.id]
    assert v2.id in [
        h.memory.id
        for h in store.search("retry the upload multipart", env={"tool_version": "v2"}).hits
    ]


# --- TTL and expiry
# ----------------------------------------------------------------------------------


def test_per_type_ttl_defaults_and_explicit_ttl(tmp_path: Path, fake) -> None:
    config = replace(Config(), episodic_ttl="30d")
    store = Store(tmp_path / "s", embedder=fake, config=config)
    working = store.record("scratch: halfway through the migration", type="working").memory
    episodic = store.record("migrated the users table").memory
    semantic = store.record("the users table is sharded by region", type="semantic").memory
    short = store.record("temporary note", type="semantic", ttl="2h").memory
    assert working.expires_at and episodic.expires_at and short.expires_at
    assert semantic.expires_at is None
    hours = {
        m.id: (
            time.mktime(time.strptime(m.expires_at[:19], "%Y-%m-%dT%H:%M:%S"))
            - time.mktime(time.strptime(m.created_at[:19], "%Y-%m-%dT%H:%M:%S"))
        )
        / 3600
        for m in (working, episodic, short)
    }
    assert (
        round(hours[working.id]) == 24
        and round(hours[episodic.id]) == 720
        and round(hours[short.id]) == 2
    )


def test_expired_memories_are_never_returned_and_are_purged_from_time_to_time(
    store: Store, clock
) -> None:
    store.clock = clock
    store.record("short-lived note about the flaky build", ttl="1s")
    kept = store.record("lasting note about the flaky build").memory
    clock.advance(1.5)
    assert [h.memory.id for h in store.search("flaky build").hits] == [kept.id]
    # hidden, not yet purged: the last purge was less than an hour ago
    assert len(store.list()) == 2
    stamp = store.path / ".expiry-checked"
    two_hours_ago = time.time() - 7200
    os.utime(stamp, (two_hours_ago, two_hours_ago))
    other = store.record("a later write purges what expired").memory
    assert sorted(m.id for m in store.list()) == sorted([kept.id, other.id])
    assert store.log(action="expire")[0].actor == "hindsight"
    store.record("another short one", ttl="1s")
    clock.advance(1.5)
    # purged less than [ttl] purge_every (1h) ago: not yet
    assert store.expire_if_due() == 0
    assert store.expire() == 1


def test_bad_ttl_config_is_refused_with_the_setting_named(tmp_path: Path) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "config.toml").write_text('[ttl]\nepisodic = "forever"\n')
    from hindsight_cli.config import load

    with pytest.raises(InvalidInput, match="Invalid \\[ttl\\] episodic 'forever'"):
        load(tmp_path / "s")


# --- archive and forget
# ------------------------------------------------------------------------------


def test_archive_is_cold_searchable_on_request_and_restorable(store: Store) -> None:
    old = store.record("the legacy billing service runs on port 8081").memory
    assert store.forget([old.id], archive=True, reason="legacy") == 1
    assert store.get(old.id).status == "archived"
    assert store.search("billing service port").hits == []
    wide = Filters(statuses=("active", "archived"))
    assert [h.memory.id for h in store.search("billing service port", filters=wide).hits] == [
        old.id
    ]
    assert store.restore(old.id).status == "active"
    assert [e.action for e in store.log(memory_id=old.id)][:2] == ["restore", "archive"]
    with pytest.raises(InvalidInput, match="Choose one"):
        store.forget([old.id], hard=True, archive=True)


def test_hard_forget_leaves_no_trace_in_any_file(store: Store) -> None:
    # the bystanders in one import (a write each took a second in all)
    store.import_records(
        [
            {
                "content": f"routine deployment note number {i} for the payments service",
                "task_id": "t-other",
                "source": "agent",
            }
            for i in range(30)
        ]
    )
    secret = store.record(
        f"the customer code name is {UNIQUE}, keep it private", task_id="t-secret"
    ).memory
    store.record(f"second note on {UNIQUE} rollout", task_id="t-secret")
    # a summary quotes the sources
    store.summarize(task_id="t-secret")
    # the LanceDB index holds it too
    assert store.search(UNIQUE, engine="index").hits
    # the grep sees it before the forget
    assert _store_bytes(store.path)
    store.forget(
        [secret.id],
        filters=Filters(task_id="t-secret", types=("episodic",), statuses=None),
        hard=True,
        reason="privacy",
    )
    assert _store_bytes(store.path) == []
    assert store.list(Filters(task_id="t-secret", statuses=None, include_expired=True)) == []
    # and nothing else went
    assert len(store.list(limit=None)) == 30
    assert store.search("deployment note payments", engine="index").hits
    assert store.search("deployment note payments", engine="ledger").hits
    entries = store.log(action="forget_hard")
    assert {e.reason for e in entries} == {"privacy", "built from hard-forgotten memories"}
    assert store.record("the store still takes writes after the rewrite").memory.id


@pytest.mark.slow
def test_hard_forget_while_another_process_writes_loses_nothing(
    store: Store, tmp_path: Path
) -> None:
    for i in range(20):
        store.record(f"note {i} to forget later")
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"""
import sys
sys.path.insert(0, {str(REPO)!r})
from tests.fake_embedder import FakeEmbedder
from hindsight_cli.store import Store
s = Store({str(store.path)!r}, embedder=FakeEmbedder())
for i in range(40):
    s.record(f"concurrent write {{i}} from another process")
""",
        ]
    )
    forgotten = 0
    while writer.poll() is None and forgotten < 20:
        victim = store.list(Filters(statuses=("active",)), limit=None)
        targets = [m.id for m in victim if m.content.startswith("note ")][:4]
        if targets:
            forgotten += store.forget(targets, hard=True)
    assert writer.wait(timeout=120) == 0
    contents = [m.content for m in store.list(limit=None)]
    assert sum(c.startswith("concurrent write") for c in contents) == 40


# --- audit log
# ---------------------------------------------------------------------------------------


def test_audit_log_records_who_what_when_why_but_never_content(store: Store) -> None:
    a = store.record(f"note about {UNIQUE}", agent_id="agent-a").memory
    store.forget([a.id], reason="wrong", actor="reviewer")
    store.restore(a.id, actor="reviewer")
    store.forget([a.id], hard=True, reason="gdpr request")
    actions = [(e.action, e.actor, e.reason) for e in store.log()]
    assert actions[:4] == [
        ("forget_hard", "default", "gdpr request"),
        ("restore", "reviewer", None),
        ("forget", "reviewer", "wrong"),
        ("record", "agent-a", None),
    ]
    assert all(e.ids == [a.id] for e in store.log(memory_id=a.id))
    assert all(UNIQUE not in str(e.to_dict()) for e in store.log())
    assert len(store.log(limit=2)) == 2


def test_the_audit_log_keeps_no_secret_a_reason_or_actor_carried(store: Store) -> None:
    memory = store.record("a note about the ci token").memory
    token = "ghp_Zq7Vx3Lm9Pk2Wr8Tn4Bc6Hy1Jd5Fg0Ks3Qe7"
    store.forget(
        [memory.id],
        reason=f"leaked: export GITHUB_TOKEN={token}",
        actor=f"bot password=hunter2x{token}",
    )
    entry = store.log(action="forget")[0]
    assert token not in str(entry.to_dict()) and "hunter2x" not in str(entry.to_dict())
    assert entry.reason.startswith("leaked: export GITHUB_TOKEN=[REDACTED")
    if store.ledger.capabilities.files:
        assert token.encode() not in store.ledger.path.read_bytes()


# --- troubleshooting recall
# --------------------------------------------------------------------------


def test_troubleshoot_puts_fixed_failures_first(store: Store) -> None:
    store.record("npm install failed with ERESOLVE peer dependency conflict", outcome="failure")
    fixed = store.record(
        "npm install failed with ERESOLVE peer dependency conflict in the web app",
        outcome="failure",
        resolution="pinned react 18 and reran npm install",
    ).memory
    store.record(
        "npm install ERESOLVE peer dependency conflict noted in the web app readme",
        outcome="success",
    )
    store.record("docker build failed", outcome="failure", resolution="cleared the build cache")
    result = store.search("npm install ERESOLVE peer dependency conflict", troubleshoot=True, k=4)
    assert result.hits[0].memory.id == fixed.id
    assert "troubleshoot: a failure with a fix, ranked first" in result.hits[0].explain["notes"]
    unrelated = [h for h in result.hits if h.memory.content == "docker build failed"]
    # an unrelated fix never jumps the queue
    assert not unrelated or result.hits.index(unrelated[0]) > 0


# --- consolidation
# -----------------------------------------------------------------------------------


def _episodes(
    store: Store, agent: str = "default", fix: str = "refresh the token and retry"
) -> list[str]:
    texts = [
        "weather api returned 401 unauthorized token expired during the forecast sync",
        "weather api returned 401 unauthorized token expired during the forecast sync again",
        "weather api returned 401 unauthorized token expired during the forecast sync today",
    ]
    return [
        store.record(
            t, agent_id=agent, outcome="failure", resolution=fix, task_id=f"t{i}"
        ).memory.id
        for i, t in enumerate(texts)
    ]


def test_consolidate_writes_one_pattern_with_evidence_and_reruns_write_nothing(
    store: Store,
) -> None:
    ids = _episodes(store)
    store.record("user prefers the CLI over the GUI", outcome="neutral")
    plan = store.consolidate(dry_run=True, similarity=0.7)
    assert [p.action for p in plan.patterns] == ["create"] and len(store.list()) == 4
    result = store.consolidate(similarity=0.7)
    (change,) = result.patterns
    pattern = store.get(change.memory.id)
    assert pattern.type == "semantic" and pattern.trigger == "consolidate"
    assert sorted(pattern.source_ids) == sorted(ids)
    assert pattern.resolution == "refresh the token and retry" and pattern.outcome == "failure"
    assert pattern.confidence == pytest.approx(0.7)
    assert "seen 3 times" in pattern.content
    again = store.consolidate(similarity=0.7)
    assert [p.action for p in again.patterns] == ["unchanged"] and len(store.list()) == 5
    store.record(
        "weather api returned 401 unauthorized token expired during the forecast sync twice",
        outcome="failure",
        resolution="refresh the token and retry",
    )
    grown = store.consolidate(similarity=0.7)
    assert [p.action for p in grown.patterns] == ["update"]
    assert grown.patterns[0].memory.id == pattern.id and len(store.get(pattern.id).source_ids) == 4
    assert store.get(pattern.id).confidence > pattern.confidence


def test_consolidate_conflicts_lower_confidence_and_scopes_stay_apart(store: Store) -> None:
    _episodes(store, "agent-a")
    a_ids = _episodes(store, "agent-b")
    store.record(
        "weather api returned 401 unauthorized token expired during the forecast sync still",
        agent_id="agent-b",
        outcome="failure",
        resolution="refresh the token and retry",
        task_id="x",
    )
    store.record(
        "weather api returned 401 unauthorized token expired during the forecast sync once more",
        # not fixed: disagrees
        agent_id="agent-b",
        outcome="failure",
        task_id="y",
    )
    result = store.consolidate(similarity=0.6)
    by_agent = {p.memory.agent_id: p.memory for p in result.patterns}
    assert set(by_agent) == {"agent-a", "agent-b"}
    assert set(a_ids) <= set(by_agent["agent-b"].source_ids)
    assert all(store.get(i).agent_id == "agent-b" for i in by_agent["agent-b"].source_ids)
    assert by_agent["agent-b"].confidence < 0.9 * min(0.95, 0.5 + 0.1 * 4)
    only_a = store.consolidate(agent_id="agent-a", similarity=0.6)
    assert {p.memory.agent_id for p in only_a.patterns} == {"agent-a"}


# --- schema migration
# --------------------------------------------------------------------------------


@pytest.mark.local_only
def test_a_schema_1_store_is_migrated_on_open(store: Store, fake) -> None:
    kept = store.record("written before the upgrade").memory
    conn = duckdb.connect(str(store.ledger.path))
    conn.execute("DROP INDEX memories_key")
    # schema 3's, which a schema 1 store never had
    conn.execute("DROP INDEX memories_agent_key")
    conn.execute("ALTER TABLE memories DROP COLUMN supersedes")
    conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    conn.close()
    reopened = Store(store.path, embedder=fake)
    assert reopened.get(kept.id).content == "written before the upgrade"
    assert reopened.stats()["schema_version"] == SCHEMA_VERSION
    new = reopened.record("written after the upgrade", supersedes=kept.id).memory
    assert reopened.get(kept.id).superseded_by == new.id
