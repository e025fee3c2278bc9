"""Fast in-process replay of the ledger engine's search on LoCoMo, for tuning the ranking defaults.

Not a test. ``hindsight eval locomo`` is the measurement; this is a harness to try many settings in
seconds instead of minutes. It reads the turns once from a store that ``hindsight eval locomo FILE
--store-dir DIR`` built, scores BM25 with the ledger's formula and the cosine in numpy, then ranks with
the product's own ``ranking.score`` and ``ranking.mmr``. Run:

    python tests/bench/tune_locomo.py DIR ../shared/bench/locomo/dev.json [NAME=VALUE ...]

Check it agrees with ``hindsight eval`` at the defaults before trusting it.
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from hindsight_cli import evaluation, ranking
from hindsight_cli.config import Config
from hindsight_cli.store import Store
from hindsight_cli.text import terms
from hindsight_cli.writing import keyword_terms


class Corpus:
    """One conversation's turns: rows, unit vectors, term counts and BM25 statistics."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows
        self.ids = [r["id"] for r in rows]
        self.vectors = np.stack([np.asarray(r["embedding"], dtype=np.float32) for r in rows])
        self.tf = [Counter(keyword_terms(r)) for r in rows]
        self.doc_len = np.array([sum(t.values()) for t in self.tf], dtype=np.float64)
        self.df: Counter[str] = Counter(term for t in self.tf for term in t)
        self.postings: dict[str, list[int]] = {}
        for i, t in enumerate(self.tf):
            for term in t:
                self.postings.setdefault(term, []).append(i)

    def bm25(self, query_terms: list[str], k1: float = 1.2, b: float = 0.75) -> np.ndarray:
        n, avgdl = len(self.rows), max(self.doc_len.mean(), 1.0)
        out = np.zeros(n)
        for term in sorted(set(query_terms)):
            docs = self.postings.get(term)
            if not docs:
                continue
            idf = np.log(1 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
            tf = np.array([self.tf[i][term] for i in docs], dtype=np.float64)
            out[docs] += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * self.doc_len[docs] / avgdl))
        return out


def search(corpus: Corpus, query: str, qvec: np.ndarray, weights: Any, ctx: ranking.Context, mode: str,
           k: int = 25) -> list[str]:
    """The ledger engine's search and Store._rank, in memory; returns dia_ids in rank order."""
    n = max(weights.candidates, k * 4)
    words: list[tuple[str, float]] = []
    if mode != "vector":
        scores = corpus.bm25(terms(query), weights.bm25_k1, weights.bm25_b)
        top = [i for i in np.lexsort((corpus.ids, -scores))[:n] if scores[i] > 0]
        words = [(corpus.ids[i], float(scores[i])) for i in top]
    near: list[tuple[str, float]] = []
    if mode != "keyword":
        cos = corpus.vectors @ qvec
        top = np.lexsort((corpus.ids, -cos))[:n]
        near = [(corpus.ids[i], float(cos[i])) for i in top]
    by_keyword = {m for m, _ in words}
    near = [(m, s) for m, s in near if s >= weights.min_vector_similarity or m in by_keyword]
    candidates = ranking.fuse(near, words)
    by_id = {r["id"]: r for r in corpus.rows if r["id"] in candidates}
    lists = 2 if mode == "hybrid" else 1
    best = max((c.keyword_score or 0.0 for c in candidates.values()), default=0.0)
    rel = ranking.relevances(by_id, candidates, weights, lists, best)
    scored = {m: ranking.score(row, candidates[m], ctx, weights, lists, best, rel[m])[0] for m, row in by_id.items()}
    order = sorted(scored, key=lambda m: (-scored[m], m))
    index = {m: i for i, m in enumerate(corpus.ids)}
    vectors = {m: corpus.vectors[index[m]] for m in order}
    picked = ranking.mmr(order, scored, vectors, weights.mmr_lambda, k)
    return [by_id[m]["metadata"]["dia_id"] for m in picked]


def load(store_dir: Path, data: Path) -> tuple[list[Any], dict[str, Corpus], dict[str, np.ndarray]]:
    conversations = evaluation.load_locomo(data)
    store = Store(store_dir, config=Config())
    corpora: dict[str, Corpus] = {}
    with store.ledger.connect(read_only=True) as conn:
        for conv in conversations:
            rows = store.ledger.select(conn, "m.agent_id = ?", [conv.agent], order="m.id", with_vectors=True)
            corpora[conv.agent] = Corpus(rows)
    cache = store_dir.parent / (store_dir.name + "-questions.npy")
    texts = [q.text for c in conversations for q in c.questions]
    if cache.exists():
        matrix = np.load(cache)
    else:
        matrix = np.asarray(store.embedder.embed(texts), dtype=np.float32)
        np.save(cache, matrix)
    return conversations, corpora, dict(zip(texts, matrix))


def run(conversations: list[Any], corpora: dict[str, Corpus], qvecs: dict[str, np.ndarray], mode: str = "hybrid",
        **overrides: Any) -> dict[str, Any]:
    weights = replace(Config().ranking, **overrides)
    found = []
    for conv in conversations:
        ctx_base = ranking.Context(now=conv.now)
        for q in conv.questions:
            ctx = replace(ctx_base, troubleshooting=ranking.is_troubleshooting(q.text))
            found.append((q, search(corpora[conv.agent], q.text, qvecs[q.text], weights, ctx, mode)))
    per = [(q.category, evaluation._scores(q.evidence, hits)) for q, hits in found]
    out = evaluation._mean([s for _, s in per])
    out["by_category"] = {name: evaluation._mean([s for c, s in per if c == num])
                          for num, name in evaluation.CATEGORIES.items()}
    return out


def line(result: dict[str, Any]) -> str:
    cats = " ".join(f"{name[:5]} {c['recall@10']:.3f}" for name, c in result["by_category"].items())
    return f"@5 {result['recall@5']:.4f} @10 {result['recall@10']:.4f} @25 {result['recall@25']:.4f} | {cats}"


def main() -> None:
    store_dir, data, *pairs = sys.argv[1:]
    mode = "hybrid"
    if pairs and pairs[0] in ("hybrid", "vector", "keyword"):
        mode = pairs.pop(0)
    conversations, corpora, qvecs = load(Path(store_dir), Path(data))
    overrides = evaluation.ranking_overrides(pairs)
    print(mode, overrides, line(run(conversations, corpora, qvecs, mode, **overrides)))


if __name__ == "__main__":
    main()
