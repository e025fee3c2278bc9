"""Fast in-process replay of LoCoMo searches, for tuning the ranking defaults on the shipping
pipeline.

Not a test. ``hindsight eval locomo`` is the measurement; this is a harness to try many settings in
seconds instead of minutes. It reads the turns once from a store that ``hindsight eval locomo FILE
--store-dir DIR`` built and serves candidates from memory (BM25 with the ledger's formula, cosine in
numpy) through the search pipeline's ``Source`` protocol; ranking is the product's own
``search.pipeline.rank`` (signals, quarantine, troubleshoot, MMR), so what is tuned here is what
ships.
Run:

    python benchmarks/tune_locomo.py DIR ../shared/bench/locomo/dev.json [NAME=VALUE ...]

Check it agrees with ``hindsight eval`` at the defaults before trusting it.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from hindsight_cli.config import DEFAULT_MODEL, Config, Ranking
from hindsight_cli.evals import locomo as evaluation
from hindsight_cli.search.candidates import gather
from hindsight_cli.search.neighbours import Step
from hindsight_cli.search.pipeline import rank
from hindsight_cli.search.query import keyword_terms as query_terms, vector_floor
from hindsight_cli.search.signals import Context, is_troubleshooting
from hindsight_cli.storage.base import Condition
from hindsight_cli.storage.rows import MemoryRow, row_term_counts
from hindsight_cli.store import Store


class Corpus:
    """One conversation's turns as a candidate source: unit vectors, term counts, BM25
    statistics."""

    def __init__(self, rows: list[MemoryRow]) -> None:
        # numpy vectors up front: MMR stacks them for every question
        rows = [replace(r, embedding=np.asarray(r.embedding, dtype=np.float32)) for r in rows]
        self.memories = rows
        self.by_id = {r.id: r for r in rows}
        self.by_step = {(r.agent_id, r.task_id, r.step): r for r in rows if r.task_id is not None}
        self.ids = [r.id for r in rows]
        self.vectors = np.stack([np.asarray(r.embedding, dtype=np.float32) for r in rows])
        self.tf = [Counter(row_term_counts(r)) for r in rows]
        self.doc_len = np.array([sum(t.values()) for t in self.tf], dtype=np.float64)
        self.postings: dict[str, list[int]] = {}
        for i, t in enumerate(self.tf):
            for term in t:
                self.postings.setdefault(term, []).append(i)

    def _top(self, scores: np.ndarray, limit: int) -> list[int]:
        return list(np.lexsort((self.ids, -scores))[:limit])

    def keyword(
        self, query: Sequence[str], where: Sequence[Condition], limit: int, weights: Ranking
    ) -> list[tuple[str, float]]:
        n, avgdl, k1, b = (
            len(self.memories),
            max(self.doc_len.mean(), 1.0),
            weights.bm25_k1,
            weights.bm25_b,
        )
        out = np.zeros(n)
        for term in sorted(set(query)):
            docs = self.postings.get(term)
            if not docs:
                continue
            idf = np.log(1 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
            tf = np.array([self.tf[i][term] for i in docs], dtype=np.float64)
            out[docs] += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * self.doc_len[docs] / avgdl))
        return [(self.ids[i], float(out[i])) for i in self._top(out, limit) if out[i] > 0]

    def nearest(
        self, vector: Sequence[float], where: Sequence[Condition], limit: int
    ) -> list[tuple[str, float]]:
        cos = self.vectors @ np.asarray(vector, dtype=np.float32)
        return [(self.ids[i], float(cos[i])) for i in self._top(cos, limit)]

    def rows(self, ids: Sequence[str], where: Sequence[Condition]) -> list[MemoryRow]:
        return [self.by_id[m] for m in ids]

    def at_steps(self, steps: Sequence[Step], where: Sequence[Condition]) -> list[MemoryRow]:
        return [self.by_step[s] for s in steps if s in self.by_step]

    def read_ahead(self, ids: Sequence[str], where: Sequence[Condition]) -> None:
        """Its rows are in memory."""


def search(
    corpus: Corpus,
    query: str,
    qvec: np.ndarray,
    weights: Ranking,
    ctx: Context,
    mode: str,
    k: int = 25,
) -> list[str]:
    """One question through the shipping pipeline; returns dia_ids in rank order."""
    limit = max(weights.candidates, k * 4)
    weights = replace(
        weights,
        min_vector_similarity=vector_floor(
            query, DEFAULT_MODEL, weights.min_vector_similarity, mode
        ),
    )
    vector = (lambda: qvec.tolist()) if mode != "keyword" else None
    rows, candidates = gather(
        corpus, query_terms(query, weights.derived_forms), vector, [], limit, weights, mode
    )
    ranked = rank(rows, candidates, ctx, weights, k, 2 if mode == "hybrid" else 1)
    return [r.row.metadata["dia_id"] for r in ranked]


def load(store_dir: Path, data: Path) -> tuple[list[Any], dict[str, Corpus], dict[str, np.ndarray]]:
    conversations = evaluation.load_locomo(data)
    store = Store(store_dir, config=Config())
    corpora: dict[str, Corpus] = {}
    with store.ledger.read() as session:
        for conv in conversations:
            corpora[conv.agent] = Corpus(
                session.select([("agent_id", "in", [conv.agent])], order="id", vectors=True)
            )
    cache = store_dir.parent / (store_dir.name + "-questions.npy")
    texts = [q.text for c in conversations for q in [*c.questions, *c.session_only]]
    if cache.exists():
        matrix = np.load(cache)
    else:
        matrix = np.asarray(store.embedder.embed(texts), dtype=np.float32)
        np.save(cache, matrix)
    return conversations, corpora, dict(zip(texts, matrix))


def found(
    conversations: list[Any],
    corpora: dict[str, Corpus],
    qvecs: dict[str, np.ndarray],
    mode: str = "hybrid",
    **overrides: Any,
) -> dict[str, list[tuple[Any, list[str]]]]:
    """Every question's hits (dia_ids in rank order), by conversation agent."""
    weights = replace(Config().ranking, **overrides)
    out: dict[str, list[tuple[Any, list[str]]]] = {}
    for conv in conversations:
        rows = out.setdefault(conv.agent, [])
        for q in [*conv.questions, *conv.session_only]:
            ctx = Context(now=conv.now, troubleshooting=is_troubleshooting(q.text), query=q.text)
            hits = (
                search(corpora[conv.agent], q.text, qvecs[q.text], weights, ctx, mode)
                if q.evidence or q.sessions
                else []
            )
            rows.append((q, hits))
    return out


def summary(hits: list[tuple[Any, list[str]]]) -> dict[str, Any]:
    """What ``hindsight eval locomo`` reports for these questions' hits."""
    per = [(q.category, evaluation._scores(q.evidence, h)) for q, h in hits if q.evidence]
    out: dict[str, Any] = evaluation._mean([s for _, s in per])
    out["by_category"] = {
        name: evaluation._mean([s for c, s in per if c == num])
        for num, name in evaluation.CATEGORIES.items()
    }
    out["sessions"] = evaluation.session_figures(hits)
    return out


def run(
    conversations: list[Any],
    corpora: dict[str, Corpus],
    qvecs: dict[str, np.ndarray],
    mode: str = "hybrid",
    **overrides: Any,
) -> dict[str, Any]:
    by_agent = found(conversations, corpora, qvecs, mode, **overrides)
    return summary([pair for rows in by_agent.values() for pair in rows])


def line(result: dict[str, Any]) -> str:
    cats = " ".join(f"{name[:5]} {c['recall@10']:.3f}" for name, c in result["by_category"].items())
    return (
        f"@5 {result['recall@5']:.4f} @10 {result['recall@10']:.4f} @25 {result['recall@25']:.4f} "
        f"session@10 {result['sessions']['recall@10']:.4f} | {cats}"
    )


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
