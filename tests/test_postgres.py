"""The postgres backend's own behaviour, beyond the suite that runs against both backends: schema
creation and migration from several processes, eight writers at once, the write lock, passwords,
the HNSW index and `hindsight migrate`. A real PostgreSQL with pgvector (pgserver) serves them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import REPO, Cli, FakeEmbedder, postgres_store_dir, stored_data

from hindsight_cli.errors import StoreBusy
from hindsight_cli.storage.sql.postgres_ledger import SCHEMA_VERSION, PostgresLedger
from hindsight_cli.storage.sql.postgres_search import vector_text
from hindsight_cli.store import Store

pytest.importorskip("pgserver")
# every test here needs the session's PostgreSQL server
pytestmark = pytest.mark.slow


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """The CLI, once (these tests choose their stores themselves)."""
    return Cli(tmp_path / "unused")


def _schema(path: Path) -> str:
    return Store(path).ledger.schema


def _processes(store: Path, script: str, count: int) -> list[subprocess.Popen]:
    """``count`` processes that each run ``script`` (with ``s``, a Store on ``store``, and ``n``,
    its number) at the same moment."""
    start = time.time() + 2.0
    code = f"""
import sys, time
sys.path.insert(0, {str(REPO)!r})
from tests.fake_embedder import FakeEmbedder
from hindsight_cli.store import Store
n = int(sys.argv[1])
s = Store({str(store)!r}, embedder=FakeEmbedder())
time.sleep(max(0.0, {start!r} - time.time()))
{script}
"""
    return [
        subprocess.Popen([sys.executable, "-c", code, str(n)], stderr=subprocess.PIPE, text=True)
        for n in range(count)
    ]


def _finish(procs: list[subprocess.Popen]) -> None:
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err


def test_processes_creating_and_upgrading_one_schema_at_once(
    postgres_url: str, tmp_path: Path
) -> None:
    fresh = postgres_store_dir(tmp_path / "fresh", postgres_url)
    _finish(_processes(fresh, "s.init()\ns.record(f'written by process {n}')", 4))
    assert len(Store(fresh, embedder=FakeEmbedder()).list()) == 4
    old = postgres_store_dir(tmp_path / "old", postgres_url)
    PostgresLedger(postgres_url, _schema(old)).create(FakeEmbedder.name, FakeEmbedder.dim, target=1)
    _finish(_processes(old, "s.record(f'written after the upgrade by {n}')", 4))
    upgraded = Store(old, embedder=FakeEmbedder())
    assert upgraded.stats()["schema_version"] == SCHEMA_VERSION and len(upgraded.list()) == 4
    first, second = upgraded.list()[:2]
    # the column schema 2 added
    newer = upgraded.record("a replacement", supersedes=first.id).memory
    assert upgraded.get(first.id).superseded_by == newer.id and second.status == "active"


def test_eight_writers_lose_nothing_and_duplicate_nothing(
    postgres_url: str, tmp_path: Path
) -> None:
    path = postgres_store_dir(tmp_path / "shared", postgres_url)
    Store(path, embedder=FakeEmbedder()).init()
    script = """
for i in range(30):
    s.record(f"process {n} note {i} about the rollout of service {n * 100 + i}", merge=False)
for i in range(10):
    s.record(f"the shared runbook step {i}: drain the node, then upgrade it")  # every process writes these
"""
    _finish(_processes(path, script, 8))
    memories = Store(path, embedder=FakeEmbedder()).list(limit=None)
    contents = [m.content for m in memories]
    assert len(memories) == 8 * 30 + 10 and len(set(contents)) == len(contents)
    assert len({m.id for m in memories}) == len(memories)
    recorded = Store(path, embedder=FakeEmbedder()).log(action="record", limit=None)
    # the seven repeats of each shared step were idempotent
    assert len(recorded) == len(memories)


def test_a_writer_holding_the_lock_makes_others_wait_then_busy(
    postgres_url: str, tmp_path: Path
) -> None:
    store = Store(postgres_store_dir(tmp_path / "s", postgres_url), embedder=FakeEmbedder())
    kept = store.record("written before the lock was taken").memory
    holder = PostgresLedger(postgres_url, store.ledger.schema)
    # another writer mid-transaction
    with holder.write():
        store.ledger.lock_timeout = 0.3
        started = time.monotonic()
        with pytest.raises(StoreBusy, match="HINDSIGHT_LOCK_TIMEOUT"):
            store.record("waits for the other writer")
        assert time.monotonic() - started >= 0.25
        # readers never wait
        assert [m.id for m in store.list()] == [kept.id]
        assert store.search("written before").hits
    assert store.record("goes through once the lock is free").memory.id


def test_a_password_never_shows_and_never_lands_in_a_file(
    postgres_url: str, tmp_path: Path, cli
) -> None:
    secret = "hunter2-" + os.urandom(4).hex()
    # trust auth ignores it
    with_password = postgres_url.replace("postgres:@", f"postgres:{secret}@")
    target = tmp_path / "team"
    made = cli(
        "init",
        "--backend",
        "postgres",
        "--url",
        with_password,
        "--schema",
        "team_a",
        "--store",
        str(target),
    )
    assert made.exit_code == 0, made.output
    assert "password was not saved" in made.stderr and secret not in made.output
    assert secret not in (target / "config.toml").read_text()
    assert 'backend = "postgres"' in (target / "config.toml").read_text()
    os.environ["HINDSIGHT_DATABASE_URL"] = with_password
    try:
        assert cli("record", "a team memory", "--store", str(target)).exit_code == 0
        assert all(secret.encode() not in data for _, data in stored_data(target))
        where = cli("where", "--json", "--store", str(target))
        stats = cli("stats", "--json", "--store", str(target))
        assert (
            json.loads(where.stdout)["backend"] == "postgres"
            and json.loads(stats.stdout)["memories"] == 1
        )
        assert secret not in where.output + stats.output
        assert "schema team_a" in json.loads(where.stdout)["database"]
        down = f"postgresql://hindsight:{secret}@127.0.0.1:9/hindsight"
        # nothing listens on port 9
        os.environ["HINDSIGHT_DATABASE_URL"] = down
        failed = cli("search", "team", "--store", str(target))
        assert failed.exit_code == 1 and failed.stderr.count("\n") == 1
        assert (
            "Cannot use the Postgres store at postgresql://hindsight@127.0.0.1:9/hindsight"
            in failed.stderr
        )
        assert secret not in failed.output
    finally:
        del os.environ["HINDSIGHT_DATABASE_URL"]
    (target / "config.toml").write_text(f'[storage]\nurl = "{with_password}"\n')
    refused = cli("search", "team", "--store", str(target))
    assert refused.exit_code == 1 and "holds a database password in clear text" in refused.stderr
    assert secret not in refused.output


def test_the_url_in_the_environment_selects_postgres(
    postgres_url: str, tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", postgres_url)
    assert cli("record", "stored in the database", store=False).exit_code == 0
    assert json.loads(cli("where", "--json", store=False).stdout)["backend"] == "postgres"
    assert not list(Path(os.environ["HINDSIGHT_HOME"]).rglob("ledger.duckdb"))
    assert cli("search", "stored database", "--json", store=False).stdout.count('"content"') == 1


def test_hnsw_serves_wide_searches_and_narrow_scopes_stay_exact(
    postgres_url: str, tmp_path: Path
) -> None:
    store = Store(postgres_store_dir(tmp_path / "s", postgres_url), embedder=FakeEmbedder())
    store.import_records(
        [
            {"content": f"deployment log line {i} for service alpha", "agent_id": "busy"}
            for i in range(400)
        ]
    )
    few = [
        store.record(f"deployment log line {i} for service beta", agent_id="quiet").memory.id
        for i in range(3)
    ]
    with store.ledger.read() as session:
        plan = "\n".join(
            r[0]
            for r in session.conn.execute(
                "EXPLAIN SELECT id FROM memories ORDER BY embedding <=> ?::vector LIMIT 10",
                [vector_text([0.1] * FakeEmbedder.dim)],
            ).fetchall()
        )
    # the HNSW index, not a scan
    assert "memories_embedding" in plan
    from hindsight_cli import Filters

    hits = store.search(
        "deployment log line", filters=Filters(agent_ids=("quiet",)), k=5, mode="vector"
    ).hits
    # HNSW alone would filter them away
    assert sorted(h.memory.id for h in hits) == sorted(few)


# pgvector 0.6, 0.8 (a second server, started for this test alone)
@pytest.mark.parametrize("server", ["postgres_url", "postgres18_url"])
def test_a_scoped_vector_search_stays_on_the_index(
    server: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    from hindsight_cli import Filters
    from hindsight_cli.timeutil import now as utcnow

    store = Store(
        postgres_store_dir(tmp_path / "s", request.getfixturevalue(server)), embedder=FakeEmbedder()
    )
    store.import_records(
        [
            {
                "content": f"build {i} of component {i % 37} failed on runner {i % 11}",
                "task_id": "scope" if i % 6 == 0 else f"task {i % 5}",
            }
            for i in range(720)
        ]
    )
    from hindsight_cli.storage.sql.common import render

    conditions = Filters(task_id="scope").conditions(utcnow())
    vector = FakeEmbedder().embed(["component 5 failed on runner 3"])[0].tolist()
    executed: list[str] = []
    with store.ledger.read() as session:
        conn = session.conn
        where, params = render(conditions, session.dialect)
        # as autovacuum would
        conn.execute("ANALYZE memories")
        # plan as for a big table: through the HNSW index
        for setting in ("seqscan", "bitmapscan", "sort"):
            conn.execute(f"SET enable_{setting} = off")
        exact = {r[0] for r in session.exact_nearest(vector_text(vector), where, params, 100)}
        version = session._pgvector()
        original = conn.execute
        conn.execute = lambda sql, params=None: executed.append(sql) or original(sql, params)
        found = session.nearest(vector, conditions, 100)
        searches = [sql for sql in executed if "ORDER BY m.embedding <=>" in sql]
        plan = "\n".join(
            r[0]
            for r in original(
                f"EXPLAIN {searches[0]}", [vector_text(vector), *params, vector_text(vector), 100]
            ).fetchall()
        )
        for setting in ("seqscan", "bitmapscan", "sort"):
            original(f"RESET enable_{setting}")
    # the planner chose the HNSW index, not a scan of the task's rows
    assert "memories_embedding" in plan
    # a sixth of the rows are in scope: HNSW's first 200 candidates hold about 33 of them
    assert len(found) == 100 and len({m for m, _ in found} & exact) >= 95
    assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)
    # no exact scan was needed
    assert not any("+ 0" in sql for sql in executed)
    # an iterative scan, or one wider pass
    assert len(searches) == (1 if version >= (0, 8) else 2)


def _keyword_statistics(store: Store) -> tuple[dict, dict]:
    """What the triggers keep, and the same computed from the rows."""
    with store.ledger.read() as session:
        conn = session.conn
        kept = (
            {
                (r[0], r[1]): (r[2], r[3])
                for r in conn.execute(
                    "SELECT term, agent_id, df, max_tf FROM keyword_stats"
                ).fetchall()
            },
            {
                r[0]: (r[1], r[2])
                for r in conn.execute("SELECT agent_id, docs, total_len FROM corpus").fetchall()
            },
        )
        counted = (
            {
                (r[0], r[1]): (r[2], r[3])
                for r in conn.execute(
                    "SELECT t.term, m.agent_id, count(*), max(t.tf) FROM terms t JOIN memories m "
                    "ON m.id = t.id "
                    "GROUP BY 1, 2"
                ).fetchall()
            },
            {
                r[0]: (r[1], r[2])
                for r in conn.execute(
                    "SELECT agent_id, count(*), sum(doc_len) FROM memories GROUP BY 1"
                ).fetchall()
            },
        )
    return kept, counted


def test_keyword_statistics_follow_every_kind_of_write(postgres_url: str, tmp_path: Path) -> None:
    store = Store(postgres_store_dir(tmp_path / "s", postgres_url), embedder=FakeEmbedder())

    def consistent() -> None:
        (kept_terms, kept_corpus), (terms, corpus) = _keyword_statistics(store)
        assert kept_corpus == corpus and len(corpus) >= 2
        assert {t: df for t, (df, _) in kept_terms.items()} == {
            t: df for t, (df, _) in terms.items()
        }
        # an upper bound
        assert all(kept_terms[t][1] >= max_tf for t, (_, max_tf) in terms.items())

    store.import_records(
        [
            {
                "content": f"rollout {i} of the billing service " + "canary " * (i % 3),
                "task_id": "t1",
                "agent_id": ("deployer", "reviewer")[i % 2],
            }
            for i in range(30)
        ]
    )
    consistent()
    first = store.record("the quokkasaurus cache needs a warm-up", task_id="t1").memory
    store.record("cache warm-up replaced by a preload", supersedes=first.id)
    consistent()
    store.summarize(task_id="t1")
    store.record("one more rollout of the billing service", task_id="t1")
    # rewritten in place: its length changed
    assert store.summarize(task_id="t1").updated
    consistent()
    gone = store.list(limit=5)
    store.forget([m.id for m in gone[:2]])
    store.restore(gone[0].id)
    consistent()
    store.forget([first.id], hard=True)
    consistent()
    (kept_terms, _), _ = _keyword_statistics(store)
    # a hard-forgotten word leaves no trace
    assert not [t for t, _ in kept_terms if t == "quokkasaurus"]


def test_pruned_keyword_search_equals_scoring_every_memory(
    postgres_url: str, tmp_path: Path
) -> None:
    import math
    import random

    from hindsight_cli import Filters
    from hindsight_cli.text import terms as text_terms
    from hindsight_cli.timeutil import now as utcnow

    store = Store(postgres_store_dir(tmp_path / "s", postgres_url), embedder=FakeEmbedder())
    rng = random.Random(3)
    common, middle = ["deploy", "service", "error", "retry"], [f"module{i}" for i in range(20)]
    store.import_records(
        [
            {
                "content": " ".join(
                    [
                        *rng.sample(common, rng.randint(1, 4)),
                        *rng.sample(middle, 2),
                        f"ticket{i % 97}",
                        "timeout" * (i % 50 == 0),
                    ]
                ),
                "agent_id": f"agent-{i % 3}",
            }
            for i in range(600)
        ]
    )
    executed: list[str] = []
    with store.ledger.read() as session:
        conn = session.conn
        postings = conn.execute(
            "SELECT t.id, t.term, t.tf, m.doc_len, m.agent_id FROM terms t "
            "JOIN memories m ON m.id = t.id"
        ).fetchall()
        original = conn.execute
        conn.execute = lambda sql, params=None: executed.append(sql) or original(sql, params)

        def every_memory(query: list[str], agent: str | None) -> dict[str, float]:
            # BM25 with the statistics of the agent searched (all agents' without a scope)
            scope = [p for p in postings if agent in (None, p[4])]
            docs = len({p[0] for p in scope})
            avgdl = sum({p[0]: p[3] for p in scope}.values()) / docs
            df: dict[str, int] = {}
            for _, term, *_ in scope:
                df[term] = df.get(term, 0) + 1
            scores: dict[str, float] = {}
            for mid, term, tf, dl, _owner in scope:
                if term in query:
                    idf = math.log(1 + (docs - df[term] + 0.5) / (df[term] + 0.5))
                    scores[mid] = scores.get(mid, 0.0) + idf * tf * 2.2 / (
                        tf + 1.2 * (0.25 + 0.75 * dl / avgdl)
                    )
            return scores

        pruned = 0
        for text in (
            "ticket7 deploy error",
            "timeout retry service",
            "module3 module4 deploy",
            "ticket12 ticket13 service retry error deploy",
            "deploy service",
        ):
            query = sorted(set(text_terms(text)))
            for agent, limit in ((None, 10), ("agent-1", 5), (None, 40)):
                conditions = Filters(agent_ids=(agent,) if agent else None).conditions(utcnow())
                executed.clear()
                found = session.keyword(
                    query, conditions, limit, 1.2, 0.75, agents=(agent,) if agent else None
                )
                truth = every_memory(query, agent)
                best = sorted(truth.values(), reverse=True)[:limit]
                # the same scores as scoring every memory, and the best ones (equal scores may swap)
                assert [round(s, 9) for _, s in found] == [round(s, 9) for s in best], (
                    text,
                    agent,
                    limit,
                )
                assert all(math.isclose(truth[m], s) for m, s in found)
                pruned += "WITH held" in executed[-1]
    # most of these answers came without reading every posting
    assert pruned >= 5


def test_migrate_to_postgres_and_back_is_idempotent(postgres_url: str, tmp_path: Path, cli) -> None:
    local = tmp_path / "local"
    first = json.loads(
        cli(
            "record",
            "the weather API returned 401",
            "--outcome",
            "failure",
            "--json",
            "--store",
            str(local),
        ).stdout
    )["id"]
    cli(
        "record",
        "the weather API wants an X-Api-Key header now",
        "--supersedes",
        first,
        "--store",
        str(local),
    )
    cli("record", "a note to forget", "--task", "t1", "--store", str(local))
    cli("forget", "--task", "t1", "--store", str(local))
    url = postgres_url
    up = cli("migrate", "--to", url, "--schema", "moved", "--json", "--store", str(local))
    assert up.exit_code == 0, up.output
    history = len(Store(local).log(limit=None))
    assert json.loads(up.stdout) | {"source": None, "target": None} == {
        "source": None,
        "target": None,
        "added": 3,
        "skipped": 0,
        "audit_entries": history,
    }
    again = json.loads(
        cli("migrate", "--to", url, "--schema", "moved", "--json", "--store", str(local)).stdout
    )
    assert (again["added"], again["skipped"], again["audit_entries"]) == (0, 3, 0)
    team = postgres_store_dir(tmp_path / "team", url)
    (team / "config.toml").write_text(
        (team / "config.toml").read_text().replace(_schema(team), "moved")
    )
    # an approval names its schema: the user approves the one they pointed it at
    assert cli("allow", str(team), store=False).exit_code == 0
    shown = cli("show", first, "--json", "--store", str(team))
    assert json.loads(shown.stdout)["status"] == "superseded"
    found = json.loads(cli("search", "weather API header", "--json", "--store", str(team)).stdout)
    assert [h["content"] for h in found] == ["the weather API wants an X-Api-Key header now"]
    actions = [e["action"] for e in json.loads(cli("log", "--json", "--store", str(team)).stdout)]
    assert actions == ["migrate"] + [e.action for e in Store(local).log(limit=None)]
    back = tmp_path / "back"
    down = json.loads(cli("migrate", "--to", str(back), "--json", "--store", str(team)).stdout)
    assert down["added"] == 3 and (back / "ledger.duckdb").exists()
    assert (
        json.loads(cli("migrate", "--to", str(back), "--json", "--store", str(team)).stdout)[
            "added"
        ]
        == 0
    )
    originals = {
        m["id"]: m
        for m in map(json.loads, cli("export", "--store", str(local)).stdout.splitlines())
    }
    copies = {
        m["id"]: m for m in map(json.loads, cli("export", "--store", str(back)).stdout.splitlines())
    }
    assert copies == originals
    same = cli("migrate", "--to", str(local), "--store", str(local))
    assert same.exit_code == 1 and "give another target" in same.stderr


def test_init_refuses_what_would_strand_or_half_write_a_store(
    postgres_url: str, tmp_path: Path, cli
) -> None:
    bad = cli(
        "init",
        "--backend",
        "postgres",
        "--url",
        postgres_url,
        "--schema",
        "Robert'); DROP",
        "--store",
        str(tmp_path / "bad"),
    )
    assert bad.exit_code == 1 and "not a plain lower-case SQL name" in bad.stderr
    # nothing written
    assert not (tmp_path / "bad").exists()
    wrong = cli(
        "init", "--backend", "postgres", "--url", "mysql://db/x", "--store", str(tmp_path / "bad")
    )
    assert wrong.exit_code == 1 and "not a PostgreSQL URL" in wrong.stderr
    local = tmp_path / "local"
    assert cli("record", "a local memory", "--store", str(local)).exit_code == 0
    moved = cli("init", "--backend", "postgres", "--url", postgres_url, "--store", str(local))
    assert moved.exit_code == 1 and "hindsight migrate" in moved.stderr
    assert "backend" not in (local / "config.toml").read_text().replace("# backend", "")
    team = tmp_path / "team"
    assert (
        cli(
            "init",
            "--backend",
            "postgres",
            "--url",
            postgres_url,
            "--schema",
            "init_a",
            "--store",
            str(team),
        ).exit_code
        == 0
    )
    assert cli("record", "a team memory", "--store", str(team)).exit_code == 0
    again = cli(
        "init",
        "--backend",
        "postgres",
        "--url",
        postgres_url,
        "--schema",
        "init_a",
        "--store",
        str(team),
    )
    assert again.exit_code == 0 and "Already a store" in again.stderr
    other = cli(
        "init",
        "--backend",
        "postgres",
        "--url",
        postgres_url,
        "--schema",
        "init_b",
        "--store",
        str(team),
    )
    assert other.exit_code == 1 and "already holds a postgres store" in other.stderr
    assert 'schema = "init_a"' in (team / "config.toml").read_text()
