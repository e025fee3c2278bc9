"""The postgres backend at scale: ingest rate, search p50/p95 with 1 and 8 concurrent clients, and
the HNSW index's recall against exact search.

    python tests/bench/bench_postgres.py --sizes 100000 [--url postgresql://...] [--json]

Without --url it starts a throwaway PostgreSQL with pgvector (pgserver) in a temporary directory.

Embedding 100k texts with the bundled model takes half an hour on a small machine and measures the
model, not the database (the local backend's `hindsight bench` shows that rate), so the memories'
vectors come from a pool: 1,000 distinct synthetic texts are embedded with the real model, and each
memory gets the vector of its text's pool entry plus a little noise, renormalised. The vectors are
thus clustered like real ones (HNSW's recall on uniform random vectors would say little). Contents,
keyword terms and fields are those of `hindsight bench`'s synthetic memories; the rows go through the
same batched insert that `hindsight import` uses (2,000 per transaction, with the HNSW index in place).
Searches go through `Store.search`, query embedding included, as the MCP server runs them.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from hindsight_cli.benchmark import QUERIES, synthetic  # noqa: E402
from hindsight_cli.store import IMPORT_BATCH, Store  # noqa: E402
from hindsight_cli.writing import embedding_text, keyword_terms  # noqa: E402

POOL = 1000


def _store(url: str, schema: str, root: Path) -> Store:
    path = root / schema
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.toml").write_text(f'[storage]\nbackend = "postgres"\nurl = "{url}"\nschema = "{schema}"\n')
    return Store(path)


def _percentiles(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {"p50_ms": round(statistics.median(ordered) * 1000, 1),
            "p95_ms": round(ordered[max(0, int(len(ordered) * 0.95) - 1)] * 1000, 1)}


def _client(args: tuple[str, int, int]) -> list[float]:
    """One search client in its own process: ``count`` searches, their wall times."""
    path, count, seed = args
    store = Store(Path(path), warm=True)
    store.search("warm up the model")
    rng = np.random.default_rng(seed)
    times = []
    for i in range(count):
        query = f"{QUERIES[int(rng.integers(len(QUERIES)))]} step {int(rng.integers(40))}"
        start = time.perf_counter()
        store.search(query, k=5)
        times.append(time.perf_counter() - start)
    return times


def load(store: Store, n: int, rng: np.random.Generator) -> dict[str, float]:
    """Write ``n`` memories with pool vectors; returns the rate and the pool's embedding time."""
    records = synthetic(n)
    prepared = [store._prepare({**r, "source": r.get("source") or "import"}) for r in records]
    texts = [embedding_text(p.row) for p in prepared[:POOL]]
    started = time.perf_counter()
    pool = store.embedder.embed(texts)
    embed_s = time.perf_counter() - started
    dim = pool.shape[1]
    started = time.perf_counter()
    for begin in range(0, n, IMPORT_BATCH):
        chunk = prepared[begin : begin + IMPORT_BATCH]
        base = pool[np.arange(begin, begin + len(chunk)) % len(pool)]
        noisy = base + rng.normal(0, 0.02, size=base.shape).astype(np.float32)
        noisy /= np.linalg.norm(noisy, axis=1, keepdims=True)
        with store.ledger.transaction() as conn:
            store.ledger.insert_many(conn, [(p.row, v.tolist(), keyword_terms(p.row)) for p, v in zip(chunk, noisy)])
        done = begin + len(chunk)
        if done % 20000 == 0 or done == n:
            print(f"  inserted {done}/{n} ({done / (time.perf_counter() - started):.0f}/s)", file=sys.stderr)
    insert_s = time.perf_counter() - started
    return {"memories": n, "dim": dim, "insert_per_s": round(n / insert_s, 1), "insert_s": round(insert_s, 1),
            "pool_embed_s": round(embed_s, 1)}


def recall(store: Store, rng: np.random.Generator, queries: int = 200) -> dict[str, float]:
    """HNSW top-10 against exact top-10 for query vectors near stored ones."""
    ledger = store.ledger
    with ledger.connect(read_only=True) as conn:
        sample = [r[0] for r in conn.execute(
            "SELECT embedding::real[] FROM memories TABLESAMPLE SYSTEM (5) LIMIT ?", [queries]).fetchall()]
        out: dict[str, float] = {}
        exact_times, ann_times = [], []
        queries = []
        for vector in sample:
            query = np.asarray(vector) + rng.normal(0, 0.05, size=len(vector))
            query = (query / np.linalg.norm(query)).tolist()
            started = time.perf_counter()
            truth = {r[0] for r in ledger.exact_nearest(conn, ledger.vector_value(query), "TRUE", [], 10)}
            exact_times.append(time.perf_counter() - started)
            queries.append((query, truth))
        # pgvector's default candidate list (40), then what a search asks for: 100 candidates, so
        # ef_search = ledger.ef_search(100); the same top-10 is compared each time.
        for ef in (40, 100, ledger.ef_search(100)):
            found = 0
            for query, truth in queries:
                with conn.raw.transaction():
                    conn.execute(f"SET LOCAL hnsw.ef_search = {ef}")
                    started = time.perf_counter()
                    ann = [r[0] for r in conn.execute(
                        "SELECT id FROM memories ORDER BY embedding <=> ?::vector LIMIT 10",
                        [ledger.vector_value(query)]).fetchall()]
                    ann_times.append(time.perf_counter() - started)
                found += len(truth & set(ann))
            out[f"hnsw_recall@10_ef{ef}"] = round(found / (10 * len(queries)), 4)
        out["exact_top10_p50_ms"] = _percentiles(exact_times)["p50_ms"]
        out["hnsw_top10_p50_ms"] = _percentiles(ann_times)["p50_ms"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100000", help="comma-separated store sizes")
    parser.add_argument("--url", help="a PostgreSQL URL (default: a throwaway pgserver)")
    parser.add_argument("--searches", type=int, default=200, help="searches per client")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hindsight-pgbench-"))
    server = None
    url = args.url
    if url is None:
        import pgserver

        server = pgserver.get_server(root / "pgdata", cleanup_mode="stop")
        url = server.get_uri()
    results = []
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            rng = np.random.default_rng(size)
            store = _store(url, f"bench_{size}", root)
            store.init()
            print(f"size {size}: loading", file=sys.stderr)
            row = load(store, size, rng)
            with store.ledger.connect(read_only=True) as conn:
                conn.execute("ANALYZE memories")
            row["database_bytes"] = store.ledger.size_bytes()
            print(f"size {size}: searching", file=sys.stderr)
            row["search_1_client"] = _percentiles(_client((str(store.path), args.searches, 1)))
            with multiprocessing.get_context("spawn").Pool(8) as pool:
                per_client = pool.map(_client, [(str(store.path), args.searches // 4, s) for s in range(8)])
            times = [t for client in per_client for t in client]
            busiest = max(sum(client) for client in per_client)  # the clients search at the same time
            row["search_8_clients"] = {**_percentiles(times), "searches_per_s": round(len(times) / busiest, 1)}
            print(f"size {size}: recall", file=sys.stderr)
            row.update(recall(store, rng))
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
