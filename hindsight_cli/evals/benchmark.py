"""Speed and scale (``hindsight bench``): synthetic but realistic memories at several sizes.

For each size, in a temporary directory that is removed afterwards: bulk import rate beside the
model's own batch rate and the store's rate with a stand-in embedder, single ``record`` latency,
warm search in process (the in-memory index, with the part after the query's embedding) beside its
floor measured in the same run (``floor``), warm search through the LanceDB index (before and
after compaction) and the exact ledger engine, cold ``hindsight search``, ``record`` and ``--help``
in new processes (median) beside the interpreter's start and the imports they need, ``hindsight
mcp`` over stdio (``initialize``, the first search, warm round trips, its peak memory, beside the
import of the MCP SDK alone), the store's size on disk and peak memory.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from . import floor
from .floor import new_query
from .measure import Figures, executable, machine, median_walls, peak_mb, percentiles

if TYPE_CHECKING:
    from ..store import Store

Progress = Callable[[str, int, int], None]

TOOLS = [
    "weather-api",
    "github",
    "postgres",
    "redis",
    "docker",
    "kubectl",
    "npm",
    "pip",
    "s3",
    "stripe",
    "slack",
    "jira",
    "terraform",
    "nginx",
    "kafka",
]
ERRORS = [
    "returned 401 Unauthorized",
    "timed out after 30s",
    "returned 502 Bad Gateway",
    "refused the connection",
    "ran out of memory",
    "reported a schema mismatch",
    "hit the rate limit",
    "failed with exit code 1",
    "could not resolve the host",
    "rejected the payload as too large",
]
FIXES = [
    "refreshed the token and retried",
    "raised the timeout to 120s",
    "restarted the upstream service",
    "pinned the previous version",
    "added exponential backoff",
    "split the batch in two",
    "fixed the DNS entry",
    "regenerated the lockfile",
    "rotated the credentials",
    "increased the memory limit",
]
PREFS = [
    "User prefers short answers",
    "User wants code without comments",
    "User picks the CLI over the GUI",
    "User works in Chinese and English",
    "User asks for tests before refactors",
]
ZH = [
    "调用{tool}时返回401，原因是token过期",
    "{tool}连接超时，重试三次后成功",
    "部署到{tool}失败，回滚到上一个版本",
    "用户希望回答简短",
    "{tool}的配置文件缺少必填字段",
]
FILLER = (
    "The agent read the logs, compared the failing request with the last good one, and noted the "
    "difference in headers and payload size before trying again. "
)


def synthetic(n: int, seed: int = 7) -> list[dict[str, object]]:
    """``n`` memories like an agent's: 5 agents, tasks of 40 steps, tool errors (most with a fix),
    successes of varied length, Chinese notes, user preferences."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        tool = rng.choice(TOOLS)
        kind = rng.random()
        record: dict[str, object] = {
            "agent_id": f"agent-{i % 5}",
            "task_id": f"task-{i // 40:05d}",
            "step": i % 40,
            "event_at": f"2026-{1 + i % 11:02d}-{1 + i % 28:02d}T{i % 24:02d}:00:00Z",
        }
        if kind < 0.45:
            record.update(
                content=f"Calling {tool} {rng.choice(ERRORS)} during step {i % 40}",
                outcome="failure",
                trigger="tool_error",
                resolution=rng.choice(FIXES) if rng.random() < 0.7 else None,
                env={"tool_version": f"{tool}-v{rng.randint(1, 4)}"},
            )
        elif kind < 0.75:
            record.update(
                content=f"Finished {tool} step {i % 40}: " + FILLER * rng.randint(0, 3),
                outcome="success",
                trigger="task_end",
            )
        elif kind < 0.9:
            record.update(
                content=rng.choice(ZH).format(tool=tool), outcome=rng.choice(["failure", "success"])
            )
        else:
            record.update(
                content=f"{rng.choice(PREFS)} (noted {i})", type="semantic", source="user"
            )
        out.append(record)
    return out


def _warm_search(store: Store, searches: int, engine: str | None = None) -> tuple[float, float]:
    store.search("warm up", engine=engine)
    times = []
    for i in range(searches):
        started = time.perf_counter()
        store.search(new_query(i), engine=engine)
        times.append((time.perf_counter() - started) * 1000)
    return percentiles(times)


def measure(
    size: int,
    *,
    runs: int = 5,
    searches: int = 60,
    progress: Progress | None = None,
    stand_in: bool = False,
) -> Figures:
    """Every figure for one store of ``size`` synthetic memories; with ``stand_in``, the memories'
    vectors are ``floor.Seeded`` ones (queries are still embedded by the model) and the import
    rate is not compared with the model's."""
    from ..store import Store

    def step(name: str, done: int) -> None:
        if progress:
            progress(f"{size:,} memories: {name}", done, 9)

    root = Path(tempfile.mkdtemp(prefix="hindsight-bench-"))
    env = {**os.environ, "HINDSIGHT_HOME": str(root / "home")}
    path = root / "store"
    figures: Figures = {"size": size, "vectors": "stand-in" if stand_in else "model"}
    try:
        records = synthetic(size)
        step("import", 0)
        store = Store(path)
        importer = Store(path, embedder=floor.Seeded(store.embedder)) if stand_in else store
        figures.update(_import_figures(importer, records, root, progress, compare=not stand_in))
        # approved where the measured processes look (their own HINDSIGHT_HOME), as a user who
        # made it elsewhere would: the MCP server leaves an unapproved store alone
        subprocess.run(
            [*executable(), "allow", str(path)], env=env, check=True, capture_output=True
        )
        step("record", 1)
        times = []
        for i in range(10):
            started = time.perf_counter()
            store.record(f"bench note {i}: kafka consumer lag spiked after the deploy", merge=False)
            times.append((time.perf_counter() - started) * 1000)
        figures["record_p50_ms"], _ = percentiles(times)
        step("warm search", 2)
        figures.update(floor.warm_figures(path, store.embedder, searches))
        step("index search", 3)
        figures.update(_index_figures(path, searches, step))
        step("exact search", 6)
        figures["ledger_search_p50_ms"], figures["ledger_search_p95_ms"] = _warm_search(
            Store(path), max(10, searches // 3), engine="ledger"
        )
        figures["peak_memory_mb"] = peak_mb()
        step("cold commands", 7)
        figures.update(cold_figures(path, env, runs))
        step("MCP server", 8)
        figures.update(
            floor.mcp_figures([*executable(), "mcp", "--store", str(path)], env, runs, searches)
        )
        step("done", 9)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return figures


def _import_figures(
    store: Store,
    records: list[dict[str, object]],
    root: Path,
    progress: Progress | None,
    compare: bool = True,
) -> Figures:
    """The import rate, the model's own batch rate on the same texts (unless not ``compare``:
    stand-in vectors), and the stand-in (storage alone) rate."""
    size = len(records)
    started = time.perf_counter()
    store.import_records(
        records,
        progress=(lambda d, t: progress(f"{size:,} memories: import", d, t)) if progress else None,
    )
    elapsed = time.perf_counter() - started
    embed = floor.embed_rate(store.embedder, records) if compare else None
    return {
        "import_s": round(elapsed, 2),
        "import_per_s": round(size / elapsed, 1),
        "embed_batch_per_s": embed,
        "import_share_of_embed": round(size / elapsed / embed, 3) if embed else None,
        "storage_alone_per_s": floor.storage_rate(root, records),
    }


def _index_figures(path: Path, searches: int, step: Callable[[str, int], None]) -> Figures:
    """Warm search through the LanceDB index (what a process past ``[search] hot_index_mb`` does),
    before and after compaction, and the vector index against flat search."""
    from ..store import Store

    warm = Store(path, warm=True)
    figures: Figures = {}
    figures["index_search_p50_ms"], figures["index_search_p95_ms"] = _warm_search(
        warm, searches, engine="index"
    )
    figures["index_fragments_before_compaction"] = warm.index().fragments()
    figures["store_mb_before_compaction"] = round(_size(path) / 1e6, 1)
    step("compaction", 4)
    warm.index().compact(purge=True)
    figures["index_fragments_after_compaction"] = warm.index().fragments()
    figures["store_mb"] = round(_size(path) / 1e6, 1)
    compacted = Store(path, warm=True)
    figures["index_search_compacted_p50_ms"], figures["index_search_compacted_p95_ms"] = (
        _warm_search(compacted, searches, engine="index")
    )
    step("vector index", 5)
    figures.update(vector_figures(compacted, searches))
    return figures


# what a cold search cannot do without, imported by a new interpreter for the floor (not by this
# module)
COLD_IMPORTS = ("typer", "duckdb", "numpy", "onnxruntime", "tokenizers")


def cold_figures(path: Path, env: dict[str, str], runs: int) -> Figures:
    """Cold ``search``, ``record`` and ``--help`` in new processes (median), beside their floors:
    the interpreter's start, the imports a cold search cannot do without, and the query's embedding
    in a new process (those imports, the model's load, one text). Taken in turns, so load changes
    hit all alike."""
    exe = executable()
    embed = (
        "from hindsight_cli.embedding import OnnxEmbedder, bundled_model_dir; "
        "OnnxEmbedder(bundled_model_dir()).embed(['why did the weather API return 401'])"
    )
    taken = median_walls(
        {
            "cold_search_median_s": [
                *exe,
                "search",
                "why did the weather API return 401",
                "--store",
                str(path),
            ],
            "cold_record_median_s": [
                *exe,
                "record",
                "bench note: kafka consumer lag spiked after the deploy",
                "--no-merge",
                "--store",
                str(path),
            ],
            "cold_help_median_s": [*exe, "--help"],
            "floor_python_s": [sys.executable, "-c", "pass"],
            "floor_imports_s": [sys.executable, "-c", "import " + ", ".join(COLD_IMPORTS)],
            "floor_query_embedding_s": [sys.executable, "-c", embed],
        },
        env,
        runs,
    )
    figures: Figures = {name: median for name, (median, _) in taken.items()}
    figures["cold_search_peak_memory_mb"] = taken["cold_search_median_s"][1]
    return figures


VECTOR_FIGURES = (
    "vector_index",
    "vector_index_build_s",
    "vector_recall_at_10",
    "vector_recall_at_100",
    "vector_query_p50_ms",
    "vector_query_flat_p50_ms",
    "index_search_flat_p50_ms",
    "index_search_flat_p95_ms",
)


def vector_figures(store: Store, searches: int, queries: int = 200) -> Figures:
    """The vector index of a warm ``store``, measured against flat search (None where it has none).

    Recall@k: the share of flat search's top k that the index's top k holds, over ``queries``
    memories from the same generator with another seed (not in the store), with the default search
    filters. A hit whose exact cosine ties the k-th flat one counts as found: the synthetic memories
    repeat, and which of several equal vectors comes back is arbitrary.
    """
    from dataclasses import replace

    from ..models import Filters
    from ..search.query import SEARCH_TYPES
    from ..storage.index import Index, where_clause
    from ..store import Store
    from ..timeutil import now

    index = store.index()
    if index.vector_index() is None:
        return dict.fromkeys(VECTOR_FIGURES)
    started = time.perf_counter()
    index.build_vector_index()
    built = index.vector_index()
    figures: Figures = {
        "vector_index": built["type"] if built is not None else None,
        "vector_index_build_s": round(time.perf_counter() - started, 3),
    }
    # 0: the index is bypassed
    flat = Index(index.path, index.dim, vector_index_rows=0)
    where = where_clause(Filters(types=SEARCH_TYPES).conditions(now()))
    texts = [
        f"{r['content']}" + (f"\nFix: {r['resolution']}" if r.get("resolution") else "")
        for r in synthetic(queries, seed=99)
    ]
    found = {10: 0, 100: 0}
    times: dict[str, list[float]] = {"ann": [], "flat": []}
    for vector in store.embedder.embed(texts):
        results = {}
        for name, engine in (("ann", index), ("flat", flat)):
            started = time.perf_counter()
            results[name] = engine.nearest(vector.tolist(), where, 100)
            times[name].append((time.perf_counter() - started) * 1000)
        for k in found:
            exact = results["flat"][:k]
            kth = exact[-1][1] - 1e-6 if exact else 1.0
            ids = {m for m, _ in exact}
            found[k] += min(
                k, sum(1 for m, score in results["ann"][:k] if m in ids or score >= kth)
            )
    figures.update(
        vector_recall_at_10=round(found[10] / (10 * queries), 4),
        vector_recall_at_100=round(found[100] / (100 * queries), 4),
        vector_query_p50_ms=percentiles(times["ann"])[0],
        vector_query_flat_p50_ms=percentiles(times["flat"])[0],
    )
    exact_store = Store(
        store.path, store.embedder, replace(store.config, vector_index_rows=0), warm=True
    )
    figures["index_search_flat_p50_ms"], figures["index_search_flat_p95_ms"] = _warm_search(
        exact_store, searches, engine="index"
    )
    return figures


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


class Benchmark(TypedDict):
    """``hindsight bench --json``: what it ran on, and each size's figures."""

    machine: dict[str, str | int | None]
    model: str
    runs: int
    sizes: list[Figures]
    elapsed_s: float


def run(
    sizes: Sequence[int],
    *,
    runs: int = 5,
    searches: int = 60,
    progress: Progress | None = None,
    stand_in_above: int | None = None,
) -> Benchmark:
    """Measure each size in turn; returns ``{"machine": …, "sizes": [figures, …]}``. Sizes above
    ``stand_in_above`` are stored with stand-in vectors (``measure``)."""
    from ..config import DEFAULT_MODEL

    started = time.perf_counter()
    results = [
        measure(
            size,
            runs=runs,
            searches=searches,
            progress=progress,
            stand_in=stand_in_above is not None and size > stand_in_above,
        )
        for size in sizes
    ]
    return {
        "machine": machine(),
        "model": DEFAULT_MODEL,
        "runs": runs,
        "sizes": results,
        "elapsed_s": round(time.perf_counter() - started, 1),
    }
