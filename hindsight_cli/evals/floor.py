"""The figures of ``hindsight bench`` that are read against a floor measured in the same run (DESIGN
§8): warm search in process and over MCP against "embed the query + numpy top-k over the same
vectors + BM25 over the same postings", and import against the model's own batch rate and a stand-in
embedder.

Machines here are shared, so a figure alone says little; its ratio to the floor taken minutes apart
on the same machine is what the targets are about.
"""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING

from .measure import Figures, hwm_mb, median_wall, percentiles

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ..embedding import Embedder
    from ..models import JSONObject
    from ..storage.hot import HotIndex

    Vectors = npt.NDArray[np.float32]

QUERIES = [
    "weather API 401",
    "kubectl timed out",
    "how was the redis connection fixed",
    "用户希望回答简短",
    "rate limit on stripe",
    "terraform schema mismatch",
    "docker ran out of memory",
    "npm lockfile",
]


def new_query(i: int) -> str:
    """The ``i``-th query of a timed run, never one asked before in it: search remembers the vectors
    of recent queries (agents repeat theirs), and a benchmark times the search of a new one."""
    base = QUERIES[i % len(QUERIES)]
    return base if i < len(QUERIES) else f"{base} {i // len(QUERIES)}"


class Timed:
    """An embedder that keeps the time its last ``embed`` took, so a search's own time can be told
    apart from its query's embedding."""

    def __init__(self, model: Embedder) -> None:
        self.model, self.name, self.dim = model, model.name, getattr(model, "dim", 0)
        self.last = 0.0

    def warm(self) -> None:
        warm = getattr(self.model, "warm", None)
        if warm is not None:
            warm()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        started = time.perf_counter()
        try:
            return self.model.embed(texts)
        finally:
            self.last = time.perf_counter() - started


class StandIn:
    """An embedder that costs nothing (a vector from the text's hash): import without the model."""

    name, dim = "bench/stand-in", 384

    def embed(self, texts: Sequence[str]) -> Vectors:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row, hash(text) % self.dim] = 1.0
        return out


class Seeded:
    """Stand-in vectors under a real model's name: a random unit vector seeded by each text, so a
    store of 100,000 memories is built in minutes instead of the model's half hour here. Searches of
    such a store still embed their queries with the real model (it has the same name and dimension).
    """

    def __init__(self, model: Embedder) -> None:
        self.name, self.dim = model.name, model.dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        import hashlib

        import numpy as np

        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            out[row] = np.random.default_rng(seed).standard_normal(self.dim)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def warm_figures(path: Path, model: Embedder, searches: int) -> Figures:
    """Warm search in process (the in-memory index), the part after the query's embedding, and the
    floor, interleaved query by query so that load changes hit both alike."""
    from ..store import Store

    timed = Timed(model)
    store = Store(path, embedder=timed, warm=True)
    started = time.perf_counter()
    store.warm_up()
    figures: Figures = {"warm_up_s": round(time.perf_counter() - started, 2)}
    hot = store._rt.hot
    index = hot.index if hot is not None else None
    total, after, embed, topk, bm25 = [], [], [], [], []
    for i in range(searches):
        query = new_query(i)
        started = time.perf_counter()
        store.search(query)
        total.append((time.perf_counter() - started) * 1000)
        after.append(total[-1] - timed.last * 1000)
        started = time.perf_counter()
        vector = model.embed([query])[0]
        embed.append((time.perf_counter() - started) * 1000)
        if index is not None:
            topk.append(_numpy_topk(index.matrix.view, vector, 100))
            bm25.append(_plain_bm25(index, query, 100))
    warm_p50, warm_p95 = percentiles(total)
    figures["warm_search_p50_ms"], figures["warm_search_p95_ms"] = warm_p50, warm_p95
    figures["warm_after_embedding_p50_ms"], figures["warm_after_embedding_p95_ms"] = percentiles(
        after
    )
    embed_p50 = figures["floor_embed_p50_ms"] = percentiles(embed)[0]
    topk_p50 = figures["floor_topk_p50_ms"] = percentiles(topk)[0] if topk else None
    bm25_p50 = figures["floor_bm25_p50_ms"] = percentiles(bm25)[0] if bm25 else None
    floor = embed_p50 + (topk_p50 or 0) + (bm25_p50 or 0)
    figures["floor_p50_ms"] = round(floor, 2)
    figures["warm_ratio_to_floor"] = round(warm_p50 / floor, 2) if floor else None
    # the floor of each query (its embedding, top-k and BM25 together), for the p95
    floors = [e + (topk[i] if topk else 0) + (bm25[i] if bm25 else 0) for i, e in enumerate(embed)]
    floor_p95 = figures["floor_p95_ms"] = percentiles(floors)[1]
    figures["warm_p95_ratio_to_floor_p95"] = round(warm_p95 / floor_p95, 2) if floor_p95 else None
    figures["hot_index_mb"] = round(index.nbytes / 1e6, 1) if index is not None else None
    figures["hot_bytes_per_memory"] = (
        round(index.nbytes / max(index.live, 1)) if index is not None else None
    )
    return figures


def _numpy_topk(matrix: Vectors, vector: Vectors, k: int) -> float:
    """The vector floor: one product over every row and an unordered top k, sorted (ms)."""
    import numpy as np

    started = time.perf_counter()
    scores = matrix @ vector
    top = np.argpartition(-scores, min(k, len(scores) - 1))[:k]
    top[np.argsort(-scores[top])]
    return (time.perf_counter() - started) * 1000


def _plain_bm25(index: HotIndex, query: str, k: int) -> float:
    """The keyword floor: BM25 over the same postings with no filters, statistics or tie rules
    (ms)."""
    import numpy as np

    from ..text import terms

    started = time.perf_counter()
    doc_len = index.doc_len.view
    n, avgdl = len(doc_len), max(float(doc_len.mean()), 1.0)
    scores = np.zeros(n)
    for term in set(terms(query)):
        lists = index.postings.get(term)
        if lists is None:
            continue
        slots, tf = np.frombuffer(lists[0], dtype=np.int32), np.frombuffer(lists[1], dtype=np.int32)
        idf = math.log(1 + (n - len(slots) + 0.5) / (len(slots) + 0.5))
        scores[slots] += idf * tf * 1.9 / (tf + 0.9 * (0.6 + 0.4 * doc_len[slots] / avgdl))
    np.argpartition(-scores, min(k, n - 1))[:k]
    return (time.perf_counter() - started) * 1000


def embed_rate(model: Embedder, records: Sequence[dict[str, object]]) -> float:
    """The model's own batch rate on the import's texts, embedded as import embeds them: every
    record's text, in blocks of ``IMPORT_BATCH`` sorted by length, ``embedding_jobs.BATCH`` texts
    per call, and nothing else. (A sample is not the same work: the first 2,000 of the bench's
    10,000 records are 5 % shorter than the rest and embed 5 % faster.)"""
    from ..core.embedding_jobs import BATCH
    from ..core.transfer import IMPORT_BATCH
    from ..storage.rows import MemoryRow, embedding_text

    texts = [
        embedding_text(MemoryRow("", str(r["content"]), resolution=_text(r.get("resolution"))))
        for r in records
    ]
    started = time.perf_counter()
    for block in range(0, len(texts), IMPORT_BATCH):
        chunk = sorted(texts[block : block + IMPORT_BATCH], key=len)
        for start in range(0, len(chunk), BATCH):
            model.embed(chunk[start : start + BATCH])
    return round(len(texts) / (time.perf_counter() - started), 1)


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def storage_rate(root: Path, records: Sequence[dict[str, object]]) -> float:
    """Import with the stand-in embedder: what the store itself costs per memory."""
    from ..store import Store

    store = Store(root / "stand-in", embedder=StandIn())
    started = time.perf_counter()
    store.import_records(records)
    return round(len(records) / (time.perf_counter() - started), 1)


def _pipes(proc: subprocess.Popen[str]) -> tuple[IO[str], IO[str]]:
    """The server's stdin and stdout (``_server`` opens both as pipes)."""
    assert proc.stdin is not None and proc.stdout is not None
    return proc.stdin, proc.stdout


def rpc(
    proc: subprocess.Popen[str], message_id: int, method: str, params: Mapping[str, object]
) -> JSONObject:
    """Send one JSON-RPC request to a server on ``proc``'s stdio and return its answer (the whole
    message), skipping notifications and other answers; a server that ends first is an error, not a
    hang."""
    stdin, stdout = _pipes(proc)
    stdin.write(
        json.dumps({"jsonrpc": "2.0", "id": message_id, "method": method, "params": params}) + "\n"
    )
    stdin.flush()
    while True:
        line = stdout.readline()
        if not line:
            raise RuntimeError(f"the MCP server ended before answering {method}")
        message: JSONObject = json.loads(line)
        if message.get("id") == message_id:
            return message


# the MCP SDK's server, imported by a new interpreter for the floor
_SDK = "mcp.server.mcpserver"
INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "bench", "version": "0"},
}


def _server(cmd: Sequence[str], env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        list(cmd),
        env=env,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def mcp_figures(cmd: Sequence[str], env: dict[str, str], runs: int, searches: int) -> Figures:
    """``hindsight mcp`` over stdio: start to a completed ``initialize`` and ``tools/list`` (median
    of ``runs``), the first ``memory_search`` after ``initialize``, warm round trips, the server's
    peak RSS."""
    starts, lists, firsts, sdk = [], [], [], []
    for _ in range(runs):
        # in turns
        sdk.append(median_wall([sys.executable, "-c", f"import {_SDK}"], env, 1)[0])
        started = time.perf_counter()
        proc = _server(cmd, env)
        try:
            rpc(proc, 1, "initialize", INITIALIZE)
            starts.append(time.perf_counter() - started)
            _pipes(proc)[0].write(
                json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n"
            )
            listed = time.perf_counter()
            rpc(proc, 2, "tools/list", {})
            lists.append(time.perf_counter() - listed)
            arguments: dict[str, str | int] = {"query": "warm up", "budget_tokens": 400}
            call = {"name": "memory_search", "arguments": arguments}
            rpc(proc, 3, "tools/call", call)
            firsts.append(time.perf_counter() - started)
            times = []
            for i in range(searches if len(firsts) == 1 else 0):
                arguments["query"] = new_query(i)
                began = time.perf_counter()
                reply = rpc(proc, 4 + i, "tools/call", call)
                times.append((time.perf_counter() - began) * 1000)
                result = reply.get("result")
                if isinstance(result, dict) and result.get("isError"):
                    raise RuntimeError(f"memory_search failed during the benchmark: {reply}")
            if times:
                p50, p95 = percentiles(times)
                peak = hwm_mb(proc.pid)
        finally:
            proc.kill()
            proc.wait()
    return {
        "mcp_initialize_s": round(statistics.median(starts), 3),
        "floor_mcp_sdk_import_s": round(statistics.median(sdk), 3),
        "mcp_tools_list_ms": round(statistics.median(lists) * 1000, 1),
        "mcp_first_search_s": round(statistics.median(firsts), 3),
        "mcp_search_p50_ms": p50,
        "mcp_search_p95_ms": p95,
        "mcp_peak_memory_mb": peak,
    }
