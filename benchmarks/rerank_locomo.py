"""A re-ranker learned on five LoCoMo conversations and measured on the sixth (issue 21).

Not a test. No cross-encoder installs offline with its weights, so this asks what the signals
hindsight already has can do when they are weighed per candidate rather than fused by hand. Every
question is ranked through the shipping pipeline (``tune_locomo``); each of its top ``TOP``
candidates is described by ``FEATURES`` (its place and score in that order, its cosine and BM25
score, splade-tiny's and WordLlama's scores when their caches exist, its neighbours' and its
session's best, its length, whether it names a speaker the question names); a logistic regression
(numpy, L2) learns from five conversations whether a candidate is an evidence turn, and re-orders
the sixth's top ``TOP`` by its score, the rest unchanged.
Run:

    python benchmarks/rerank_locomo.py DIR ../shared/bench/locomo/dev.json [--without NAME,NAME]

``DIR`` is a store ``hindsight eval locomo FILE --store-dir DIR`` built; ``directions_locomo.py DIR
FILE splade wordllama`` caches the optional signals beside it. The feature rows are cached beside
``DIR`` too (``DIR-rerank.pkl``; delete it when a signal's cache changes); ``--without`` leaves
features out.
"""

from __future__ import annotations

import pickle
import statistics
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import folds_locomo  # noqa: E402
import tune_locomo  # noqa: E402

from hindsight_cli.config import DEFAULT_MODEL, Config  # noqa: E402
from hindsight_cli.search.candidates import gather  # noqa: E402
from hindsight_cli.search.pipeline import rank  # noqa: E402
from hindsight_cli.search.query import keyword_terms, vector_floor  # noqa: E402
from hindsight_cli.search.signals import Context, is_troubleshooting  # noqa: E402

TOP = 50
FEATURES = (
    "log place",
    "score",
    "cosine",
    "bm25",
    "splade",
    "wordllama",
    "prev cosine",
    "next cosine",
    "session best",
    "log length",
    "speaker named",
    "asks",
)


def cached(store_dir: Path, name: str) -> Any:
    path = store_dir.parent / f"{store_dir.name}-{name}.npz"
    return np.load(path) if path.exists() else None


def features(
    corpus: tune_locomo.Corpus, conv: Any, question: Any, qvec: np.ndarray, extra: dict[str, Any]
) -> tuple[list[str], np.ndarray]:
    """The pipeline's order of one question's candidates, and the top ``TOP``'s feature rows."""
    weights = Config().ranking
    weights = replace(
        weights,
        min_vector_similarity=vector_floor(
            question.text, DEFAULT_MODEL, weights.min_vector_similarity
        ),
    )
    rows, candidates = gather(
        corpus,
        keyword_terms(question.text, weights.derived_forms),
        lambda: qvec.tolist(),
        [],
        weights.candidates,
        weights,
        "hybrid",
    )
    ctx = Context(
        now=conv.now, troubleshooting=is_troubleshooting(question.text), query=question.text
    )
    ranked = rank(rows, candidates, ctx, weights, len(rows), 2)
    order = [r.row.metadata["dia_id"] for r in ranked]
    place = {r.metadata["dia_id"]: i for i, r in enumerate(corpus.memories)}
    cos = corpus.vectors @ qvec
    bm25 = np.zeros(len(corpus.ids))
    at = {m: i for i, m in enumerate(corpus.ids)}
    for mid, value in corpus.keyword(keyword_terms(question.text), [], len(corpus.ids), weights):
        bm25[at[mid]] = value
    bm25 /= bm25.max() or 1.0
    learned = (
        extra["splade"](question.text, corpus) if "splade" in extra else np.zeros(len(corpus.ids))
    )
    other = (
        extra["wordllama"](question.text, corpus)
        if "wordllama" in extra
        else np.zeros(len(corpus.ids))
    )
    named = {w.strip("?,.'s").lower() for w in question.text.split()}
    session_best: dict[str, float] = {}
    for r in ranked:
        session = r.row.metadata["dia_id"].partition(":")[0]
        session_best[session] = max(session_best.get(session, 0.0), r.score)
    out = []
    for position, r in enumerate(ranked[:TOP], 1):
        dia = r.row.metadata["dia_id"]
        i = place[dia]
        session, _, turn = dia.partition(":")
        prev, after = (
            place.get(f"{session}:{int(turn) + d}") if turn.isdigit() else None for d in (-1, 1)
        )
        out.append(
            [
                np.log(position),
                r.score,
                cos[i],
                bm25[i],
                learned[i],
                other[i],
                cos[prev] if prev is not None else 0.0,
                cos[after] if after is not None else 0.0,
                session_best[session] / (ranked[0].score or 1.0),
                np.log1p(len(r.row.content.split())),
                float(r.row.content.partition(":")[0].strip().lower() in named),
                float("?" in r.row.content),
            ]
        )
    return order, np.array(out, dtype=np.float64)


def optional_signals(store_dir: Path) -> dict[str, Any]:
    """Per-question score arrays over a conversation's turns, for the signals whose caches exist."""
    out: dict[str, Any] = {}
    splade = cached(store_dir, "splade")
    if splade is not None:
        import splade_tiny

        turns = {k: i for i, k in enumerate(splade["keys"].tolist())}
        questions = {q: i for i, q in enumerate(splade["qs"].tolist())}

        def splade_scores(text: str, corpus: tune_locomo.Corpus) -> np.ndarray:
            rows = [turns[f"turn:{r.agent_id}:{r.metadata['dia_id']}"] for r in corpus.memories]
            at = questions[text]
            values = splade_tiny.scores(
                (splade["qi"][at], splade["qv"][at]), (splade["ti"][rows], splade["tv"][rows])
            )
            return values / (values.max() or 1.0)

        out["splade"] = splade_scores
    vectors = cached(store_dir, "wordllama")
    if vectors is not None:
        found = dict(vectors)

        def wordllama_scores(text: str, corpus: tune_locomo.Corpus) -> np.ndarray:
            matrix = np.stack(
                [found[f"turn:{r.agent_id}:{r.metadata['dia_id']}"] for r in corpus.memories]
            )
            return matrix @ found[f"q:{text}"]

        out["wordllama"] = wordllama_scores
    return out


def rows_of(store_dir: Path, data: Path) -> dict[str, list[tuple[Any, list[str], np.ndarray]]]:
    """Per conversation, every question with turn evidence: (question, pipeline order, feature
    rows); cached."""
    cache = store_dir.parent / f"{store_dir.name}-rerank.pkl"
    if cache.exists():
        return pickle.loads(cache.read_bytes())
    conversations, corpora, qvecs = tune_locomo.load(store_dir, data)
    extra = optional_signals(store_dir)
    print(f"optional signals: {', '.join(extra) or 'none'}", flush=True)
    table = {
        conv.agent: [
            (q, *features(corpora[conv.agent], conv, q, qvecs[q.text], extra))
            for q in conv.questions
            if q.evidence
        ]
        for conv in conversations
    }
    cache.write_bytes(pickle.dumps(table))
    return table


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 500) -> np.ndarray:
    """Logistic regression weights (bias last) by gradient descent on standardised features."""
    x = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-x @ w))
        w -= 0.5 * (x.T @ (p - y) / len(y) + l2 * np.append(w[:-1], 0.0) / len(y))
    return w


def main() -> None:
    store_dir, data = Path(sys.argv[1]), Path(sys.argv[2])
    without = (
        sys.argv[sys.argv.index("--without") + 1].split(",") if "--without" in sys.argv else []
    )
    keep = [i for i, name in enumerate(FEATURES) if name not in without]
    table = rows_of(store_dir, data)
    print(f"features: {', '.join(FEATURES[i] for i in keep)}", flush=True)
    table = {a: [(q, order, x[:, keep]) for q, order, x in rows] for a, rows in table.items()}
    folds = []
    for agent in table:
        train = [
            (x, np.array([o in q.evidence for o in order[:TOP]], dtype=float))
            for other in table
            if other != agent
            for q, order, x in table[other]
        ]
        x, y = np.vstack([a for a, _ in train]), np.concatenate([b for _, b in train])
        mean, sd = x.mean(0), x.std(0) + 1e-9
        w = fit((x - mean) / sd, y)
        hits = []
        for q, order, xq in table[agent]:
            score = np.hstack([(xq - mean) / sd, np.ones((len(xq), 1))]) @ w
            hits.append((q, [order[i] for i in np.argsort(-score, kind="stable")] + order[TOP:]))
        base = folds_locomo.recall10([(q, order) for q, order, _ in table[agent]])
        folds.append((agent, base, folds_locomo.recall10(hits)))
        weights = ", ".join(f"{FEATURES[i]} {v:+.2f}" for i, v in zip(keep, w))
        print(
            f"held out {agent}: pipeline {base:.4f} -> re-ranked {folds[-1][2]:.4f} | {weights}",
            flush=True,
        )
    before, after = [f[1] for f in folds], [f[2] for f in folds]
    print(
        f"held-out fold mean @10: pipeline {statistics.mean(before):.4f} (sd "
        f"{statistics.pstdev(before):.4f}) -> "
        f"re-ranked {statistics.mean(after):.4f} (sd {statistics.pstdev(after):.4f}, min "
        f"{min(after):.4f}, "
        f"max {max(after):.4f})"
    )


if __name__ == "__main__":
    main()
