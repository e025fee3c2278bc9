"""LanceDB vector search, flat against approximate indexes, on the bench's own memories. Not a test
(pytest does not collect it); run it by hand:

    python benchmarks/bench_vector_index.py --sizes 5000,10000,20000,50000,100000
    python benchmarks/bench_vector_index.py --sizes 100000 --types IVF_SQ,IVF_FLAT,IVF_PQ

The vectors are the bundled model's embeddings of ``hindsight_cli.benchmark.synthetic(max size)``
(each distinct text embedded once; ``--cache FILE.npz`` keeps them for the next run), in a LanceDB
table with the index's filter columns. Queries: 300 memories from the same generator with another
seed. For each size and index type: build time, flat and approximate top-100 p50/p95 under the
default search filter, and recall@10/@100 against flat search (a hit whose distance ties the k-th
exact one counts).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hindsight_cli.evals.benchmark import synthetic  # noqa: E402
from hindsight_cli.storage.index import NPROBES, REFINE_FACTOR  # noqa: E402
from hindsight_cli.storage.rows import MemoryRow, embedding_text  # noqa: E402

WHERE = (
    "type IN ('episodic', 'semantic', 'procedural') AND status IN ('active') AND expires_at IS NULL"
)
SEARCH = {"IVF_SQ": {"refine": REFINE_FACTOR}, "IVF_PQ": {"refine": 4}, "IVF_FLAT": {}}


def vectors(size: int, cache: Path | None) -> tuple[np.ndarray, np.ndarray]:
    if cache and cache.exists():
        data = np.load(cache)
        if len(data["rows"]) >= size:
            return data["rows"][:size], data["queries"]
    from hindsight_cli.embedding import load_embedder

    model = load_embedder()
    texts = [
        embedding_text(MemoryRow("", r["content"], resolution=r.get("resolution")))
        for r in synthetic(size)
    ]
    distinct = sorted(set(texts), key=len)
    embedded = np.concatenate(
        [model.embed(distinct[i : i + 256]) for i in range(0, len(distinct), 256)]
    )
    position = {text: i for i, text in enumerate(distinct)}
    rows = embedded[[position[t] for t in texts]].astype(np.float32)
    queries = model.embed(
        [
            embedding_text(MemoryRow("", r["content"], resolution=r.get("resolution")))
            for r in synthetic(300, seed=99)
        ]
    )
    if cache:
        np.savez(cache, rows=rows, queries=queries)
    return rows, queries


def table(path: Path, rows: np.ndarray) -> Any:
    import lancedb
    import pyarrow as pa

    n, dim = rows.shape
    db = lancedb.connect(str(path), read_consistency_interval=timedelta(0))
    return db.create_table(
        "t",
        pa.table(
            {
                "id": [f"m{i:06d}" for i in range(n)],
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(rows.ravel()), dim),
                "type": ["episodic"] * n,
                "status": ["active"] * n,
                "expires_at": pa.array([None] * n, pa.int64()),
            }
        ),
    )


def search(tb: Any, query: np.ndarray, kind: str | None) -> list[dict[str, Any]]:
    q = tb.search(query.tolist()).distance_type("cosine").where(WHERE, prefilter=True)
    if kind is None:
        q = q.bypass_vector_index()
    else:
        q = q.maximum_nprobes(0).minimum_nprobes(NPROBES)
        if SEARCH[kind].get("refine"):
            q = q.refine_factor(SEARCH[kind]["refine"])
    return q.limit(100).select(["id", "_distance"]).to_list()


def timed(tb: Any, queries: np.ndarray, kind: str | None) -> tuple[float, float]:
    search(tb, queries[0], kind)
    times = []
    for query in queries[:60]:
        started = time.perf_counter()
        search(tb, query, kind)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return round(statistics.median(times), 1), round(times[int(len(times) * 0.95) - 1], 1)


def recall(tb: Any, queries: np.ndarray, kind: str, k: int) -> float:
    found = 0
    for query in queries[:100]:
        exact, approximate = search(tb, query, None)[:k], search(tb, query, kind)[:k]
        kth = exact[-1]["_distance"] + 1e-6
        ids = {r["id"] for r in exact}
        found += sum(1 for r in approximate if r["id"] in ids or r["_distance"] <= kth)
    return round(found / (k * 100), 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,10000,20000,50000,100000")
    parser.add_argument(
        "--types", default="IVF_SQ", help="comma-separated: IVF_SQ, IVF_PQ, IVF_FLAT"
    )
    parser.add_argument("--cache", type=Path, help="an .npz file to keep the embeddings in")
    args = parser.parse_args()
    from lancedb.index import IvfFlat, IvfPq, IvfSq

    configs = {"IVF_SQ": IvfSq, "IVF_PQ": IvfPq, "IVF_FLAT": IvfFlat}
    sizes = [int(s) for s in args.sizes.split(",")]
    rows, queries = vectors(max(sizes), args.cache)
    root = Path(tempfile.mkdtemp(prefix="hindsight-vector-bench-"))
    try:
        for size in sizes:
            for kind in args.types.split(","):
                shutil.rmtree(root / "db", ignore_errors=True)
                tb = table(root / "db", rows[:size])
                flat = timed(tb, queries, None)
                started = time.perf_counter()
                tb.create_index("vector", config=configs[kind](distance_type="cosine"))
                built = round(time.perf_counter() - started, 1)
                indexed = sum(
                    p.stat().st_size
                    for p in (root / "db" / "t.lance" / "_indices").rglob("*")
                    if p.is_file()
                )
                print(
                    f"{size:>7,} {kind:<8} build {built:>5} s, index {indexed / 1e6:6.1f} MB, "
                    f"flat p50/p95 {flat} ms, "
                    f"indexed {timed(tb, queries, kind)} ms, recall@10 "
                    f"{recall(tb, queries, kind, 10)}, "
                    f"recall@100 {recall(tb, queries, kind, 100)}",
                    flush=True,
                )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
