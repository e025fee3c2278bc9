"""How far re-ordering could take LoCoMo recall@10: the candidate pool's ceiling, by category (issue
21).

Not a test. Every question is ranked through the shipping pipeline (``tune_locomo``'s in-memory
source), with the whole candidate pool put in order rather than its top 25. Then, per question: the
recall@10 an oracle re-ranker would reach if it could only move the pipeline's top N to the front (N
= 10 is today's figure, N = the pool is a perfect re-ranker of today's candidates), and the share of
evidence turns that are not candidates at all, for today's pool (``candidates`` from each list) and
for wider ones. Run:

    python benchmarks/ceiling_locomo.py DIR ../shared/bench/locomo/dev.json [NAME=VALUE ...]

``DIR`` is a store ``hindsight eval locomo FILE --store-dir DIR`` built; ``NAME=VALUE`` sets the
ranking as ``hindsight eval --set`` does.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import tune_locomo  # noqa: E402

from hindsight_cli.config import DEFAULT_MODEL, Config, Ranking  # noqa: E402
from hindsight_cli.evals import locomo as evaluation  # noqa: E402
from hindsight_cli.search.candidates import gather  # noqa: E402
from hindsight_cli.search.pipeline import rank  # noqa: E402
from hindsight_cli.search.query import keyword_terms, vector_floor  # noqa: E402
from hindsight_cli.search.signals import Context, is_troubleshooting  # noqa: E402

# the pipeline's top N an oracle may re-order; then the whole pool
TOPS = (10, 25, 50, 100)
# candidates per list, for the pool's reach
WIDER = (200, 400)


def dia(corpus: tune_locomo.Corpus, ids: Any) -> set[str]:
    return {corpus.by_id[m].metadata["dia_id"] for m in ids}


def question_figures(
    corpus: tune_locomo.Corpus, conv: Any, question: Any, qvec: Any, weights: Ranking
) -> dict[str, float]:
    """One question's oracle recall@10 for each top N and the pool, and its evidence's reach at each
    pool size."""
    weights = replace(
        weights,
        min_vector_similarity=vector_floor(
            question.text, DEFAULT_MODEL, weights.min_vector_similarity
        ),
    )
    words = keyword_terms(question.text, weights.derived_forms)
    vector = qvec.tolist()
    evidence = set(question.evidence)
    out: dict[str, float] = {}
    for limit in (weights.candidates, *WIDER):
        rows, candidates = gather(corpus, words, lambda: vector, [], limit, weights, "hybrid")
        out[f"pool {limit}"] = len(evidence & dia(corpus, rows)) / len(evidence)
        if limit == weights.candidates:
            ctx = Context(
                now=conv.now, troubleshooting=is_troubleshooting(question.text), query=question.text
            )
            order = [
                r.row.metadata["dia_id"] for r in rank(rows, candidates, ctx, weights, len(rows), 2)
            ]
            for name, n in [*((f"top {n}", n) for n in TOPS), ("pool", len(order))]:
                out[name] = min(len(evidence & set(order[:n])), 10) / len(evidence)
            out["pool size"] = len(order)
            out["vector list"] = len(
                evidence & dia(corpus, [m for m, c in candidates.items() if c.vector_rank])
            )
            out["keyword list"] = len(
                evidence & dia(corpus, [m for m, c in candidates.items() if c.keyword_rank])
            )
            out["vector list"] /= len(evidence)
            out["keyword list"] /= len(evidence)
    return out


def table(per: list[tuple[int, dict[str, float]]]) -> str:
    """Mean of each figure, overall and by category, as a Markdown table."""
    pools = [c for c in per[0][1] if c.startswith("pool ") and c != "pool size"]
    columns = [
        *(f"top {n}" for n in TOPS),
        "pool",
        "vector list",
        "keyword list",
        *pools,
        "pool size",
    ]
    lines = ["| questions | n | " + " | ".join(columns) + " |", "|---" * (len(columns) + 2) + "|"]
    groups = [("all", [f for _, f in per])] + [
        (name, [f for c, f in per if c == num]) for num, name in evaluation.CATEGORIES.items()
    ]
    for name, figures in groups:
        cells = [
            f"{statistics.mean(f[c] for f in figures):.4f}"
            if c != "pool size"
            else f"{statistics.mean(f[c] for f in figures):.0f}"
            for c in columns
        ]
        lines.append(f"| {name} | {len(figures)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    store_dir, data, *pairs = sys.argv[1:]
    conversations, corpora, qvecs = tune_locomo.load(Path(store_dir), Path(data))
    weights = replace(Config().ranking, **evaluation.ranking_overrides(pairs))
    per = [
        (q.category, question_figures(corpora[c.agent], c, q, qvecs[q.text], weights))
        for c in conversations
        for q in c.questions
        if q.evidence
    ]
    print(table(per))


if __name__ == "__main__":
    main()
