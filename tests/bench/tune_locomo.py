"""Fast in-process replay of LoCoMo searches, for tuning the ranking defaults on the shipping pipeline.

Not a test. ``hindsight eval locomo`` is the measurement; this is a harness to try many settings in
seconds instead of minutes. It loads the store that ``hindsight eval locomo FILE --store-dir DIR`` built
into the product's in-memory index (``storage.hot``, the ledger engine's candidates from memory) and
ranks with the product's own ``search.pipeline.rank`` (signals, quarantine, troubleshoot, MMR), with
the filters ``hindsight eval`` searches with, so what is tuned here is what ships.
Run:

    python tests/bench/tune_locomo.py DIR ../shared/bench/locomo/dev.json [NAME=VALUE ...]

Check it agrees with ``hindsight eval`` at the defaults before trusting it.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from hindsight_cli import evaluation
from hindsight_cli.config import Config, Ranking
from hindsight_cli.models import Filters
from hindsight_cli.search.candidates import HotSource, gather
from hindsight_cli.search.pipeline import rank
from hindsight_cli.search.query import SearchQuery
from hindsight_cli.search.signals import Context, is_troubleshooting
from hindsight_cli.storage.base import Condition
from hindsight_cli.storage.hot import HotIndex
from hindsight_cli.store import Store
from hindsight_cli.text import terms


def search(index: HotIndex, query: str, qvec: np.ndarray, weights: Ranking, ctx: Context, mode: str,
           where: list[Condition], k: int = 25) -> list[str]:
    """One question through the shipping pipeline; returns dia_ids in rank order."""
    limit = max(weights.candidates, k * 4)
    vector = (lambda: qvec.tolist()) if mode != "keyword" else None
    rows, candidates = gather(HotSource(index), terms(query), vector, where, limit, weights, mode)
    ranked = rank(rows, candidates, ctx, weights, k, 2 if mode == "hybrid" else 1)
    return [r.row.metadata["dia_id"] for r in ranked]


def load(store_dir: Path, data: Path) -> tuple[list[Any], HotIndex, dict[str, np.ndarray]]:
    conversations = evaluation.load_locomo(data)
    store = Store(store_dir, config=Config(), warm=True)
    index = store._rt.hot.ready() if store._rt.hot is not None else None
    if index is None:
        raise SystemExit("the store has no in-memory index (a postgres store, or [search] hot_index_mb = 0)")
    cache = store_dir.parent / (store_dir.name + "-questions.npy")
    texts = [q.text for c in conversations for q in c.questions]
    if cache.exists():
        matrix = np.load(cache)
    else:
        matrix = np.asarray(store.embedder.embed(texts), dtype=np.float32)
        np.save(cache, matrix)
    return conversations, index, dict(zip(texts, matrix))


def run(conversations: list[Any], index: HotIndex, qvecs: dict[str, np.ndarray], mode: str = "hybrid",
        **overrides: Any) -> dict[str, Any]:
    weights = replace(Config().ranking, **overrides)
    found = []
    for conv in conversations:
        # The filters `hindsight eval` searches with: this conversation's scope, the default types, active.
        filters = SearchQuery("q", Filters(agent_ids=(conv.agent,))).checked().filters
        assert filters is not None
        for q in conv.questions:
            ctx = Context(now=conv.now, troubleshooting=is_troubleshooting(q.text))
            where = filters.conditions(conv.now)
            found.append((q, search(index, q.text, qvecs[q.text], weights, ctx, mode, where)))
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
    conversations, index, qvecs = load(Path(store_dir), Path(data))
    overrides = evaluation.ranking_overrides(pairs)
    print(mode, overrides, line(run(conversations, index, qvecs, mode, **overrides)))


if __name__ == "__main__":
    main()
