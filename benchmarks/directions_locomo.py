"""Cheap recall directions on LoCoMo, each measured on conversations it was not chosen on (issue
21).

Not a test. Each direction is a change to the query or to the turns' vectors, tried through the
shipping ranking (``tune_locomo``'s in-memory source, ``search.pipeline.rank``). For each direction,
every variant (its strengths, and "off") ranks every question; then leave-one-conversation-out picks
the variant best on five conversations (recall@10) and measures it on the sixth. A direction helps
only if the mean of those held-out folds beats "off" measured the same way. Run:

    python benchmarks/directions_locomo.py DIR ../shared/bench/locomo/dev.json [DIRECTION ...]

``DIR`` is a store ``hindsight eval locomo FILE --store-dir DIR`` built. Directions: qwords,
names_off, entities, temporal, neighbours, prf, prf_weighted, session_prior, windows (embeds each
turn with the one before it once, cached beside ``DIR``), splade (``splade_tiny``; cached likewise),
wordllama and static64 (that model's cosine blended with MiniLM's; ``models_locomo``'s vectors,
cached likewise).
"""

from __future__ import annotations

import re
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import folds_locomo  # noqa: E402
import models_locomo  # noqa: E402
import tune_locomo  # noqa: E402

from hindsight_cli.config import DEFAULT_MODEL, Config, Ranking  # noqa: E402
from hindsight_cli.search import pipeline, relevance  # noqa: E402
from hindsight_cli.search.candidates import gather  # noqa: E402
from hindsight_cli.search.pipeline import rank  # noqa: E402
from hindsight_cli.search.query import keyword_terms, vector_floor  # noqa: E402
from hindsight_cli.search.signals import Context, is_troubleshooting  # noqa: E402
from hindsight_cli.text import STOPWORDS, stem  # noqa: E402

# Words that frame a question rather than say what it is about ("What kind of ...", "Would X likely
# ...").
QUESTION_WORDS = frozenset(
    stem(w)
    for w in """kind type likely ever many much would could might probably
    think describe mention mentioned according considered something anything way ways thing things""".split()
)
TEMPORAL = [
    stem(w)
    for w in "yesterday ago last week weekend month year tomorrow today next recently".split()
]
_PROPER = re.compile(r"(?<!^)(?<![.?!] )\b([A-Z][a-z]{2,})\b")


@dataclass
class Variant:
    """How one variant changes a question: its keyword terms, its extra identifiers, the corpus
    vectors."""

    name: str
    terms: Callable[[str, set[str], Any], list[str]] = lambda q, speakers, corpus: keyword_terms(q)
    entities: Callable[[str, set[str]], tuple[str, ...]] | None = None
    neighbours: float = 0.0
    # (weight, how many of a session's best candidates)
    session_prior: tuple[float, int] | None = None
    # "prev", "next" or "both": a turn's cosine is its best over its own and its pairs'
    windows: str = ""
    # keyword score = BM25 + this × splade-tiny's (negative: splade-tiny alone)
    splade: float | None = None
    # (model, share): cosine = (1 − share) × MiniLM's + share × the model's
    blend: tuple[str, float] | None = None


def speakers_of(corpus: tune_locomo.Corpus) -> set[str]:
    return {r.content.partition(":")[0].strip().lower() for r in corpus.memories}


def with_neighbours(corpus: tune_locomo.Corpus, share: float) -> tune_locomo.Corpus:
    """The corpus with each turn's vector mixed with the turns before and after it in its
    session."""
    if not share:
        return corpus
    place = {r.metadata["dia_id"]: i for i, r in enumerate(corpus.memories)}
    mixed = corpus.vectors.copy()
    for i, row in enumerate(corpus.memories):
        session, _, turn = row.metadata["dia_id"].partition(":")
        for step in (-1, 1):
            j = place.get(f"{session}:{int(turn) + step}") if turn.isdigit() else None
            if j is not None:
                mixed[i] += share * corpus.vectors[j]
    mixed /= np.linalg.norm(mixed, axis=1, keepdims=True)
    out = tune_locomo.Corpus.__new__(tune_locomo.Corpus)
    out.__dict__.update(corpus.__dict__)
    out.vectors = mixed
    return out


def prf_terms(count: int) -> Callable[[str, set[str], Any], list[str]]:
    """RM3-style feedback: the ``count`` terms weighing most (tf·idf) in the top 5 BM25 turns,
    added."""

    def expand(query: str, speakers: set[str], corpus: Any) -> list[str]:
        base = keyword_terms(query)
        top = corpus.keyword(base, [], 5, Config().ranking)
        n = len(corpus.memories)
        weight: Counter[str] = Counter()
        for mid, _ in top:
            tf = corpus.tf[corpus.ids.index(mid)]
            for term, c in tf.items():
                if term in base or term in STOPWORDS or term in speakers or len(term) < 3:
                    continue
                weight[term] += c * float(np.log(n / len(corpus.postings[term])))
        return base + [t for t, _ in weight.most_common(count)]

    return expand


class WeightedCorpus(tune_locomo.Corpus):
    """BM25 where a term written ``~term`` counts ``EXPANSION_WEIGHT`` times: RM3's interpolation,
    which the storage engines' BM25 (one weight per term) cannot express yet."""

    def keyword(
        self, query: Sequence[str], where: Sequence[Any], limit: int, weights: Ranking
    ) -> list[tuple[str, float]]:
        plain = [t for t in query if not t.startswith("~")]
        out = dict(super().keyword(plain, where, len(self.ids), weights))
        for term in {t[1:] for t in query if t.startswith("~")} - set(plain):
            for mid, value in super().keyword([term], where, len(self.ids), weights):
                out[mid] = out.get(mid, 0.0) + EXPANSION_WEIGHT * value
        return sorted(out.items(), key=lambda item: (-item[1], item[0]))[:limit]


EXPANSION_WEIGHT = 0.3


def weighted(corpus: tune_locomo.Corpus) -> WeightedCorpus:
    out = WeightedCorpus.__new__(WeightedCorpus)
    out.__dict__.update(corpus.__dict__)
    return out


def weighted_prf(count: int) -> Callable[[str, set[str], Any], list[str]]:
    expand = prf_terms(count)

    def terms_(query: str, speakers: set[str], corpus: Any) -> list[str]:
        base = keyword_terms(query)
        return base + ["~" + t for t in expand(query, speakers, corpus)[len(base) :]]

    return terms_


def with_session_prior(weight: float, top: int) -> Callable[..., dict[str, float]]:
    """``relevances`` plus a share of the candidate's session (task) score: the mean of the ``top``
    best base relevances among that session's candidates (missing ones count 0), relative to the
    best session's. Two-stage retrieval in one pass: turns of the sessions that match best rise
    together."""

    def patched(
        rows: Any, candidates: Any, weights: Ranking, lists: int, best_keyword: float
    ) -> dict[str, float]:
        out = relevance.relevances(rows, candidates, weights, lists, best_keyword)
        base = relevance._base(rows, candidates, weights, lists, best_keyword)
        groups: dict[Any, list[float]] = {}
        for mid, row in rows.items():
            groups.setdefault((row.agent_id, row.task_id), []).append(base[mid])
        session = {g: sum(sorted(v, reverse=True)[:top]) / top for g, v in groups.items()}
        best = max(session.values(), default=0.0) or 1.0
        mixed = {
            m: out[m] + weight * session[(r.agent_id, r.task_id)] / best for m, r in rows.items()
        }
        peak = max(mixed.values(), default=0.0)
        return {m: v / peak for m, v in mixed.items()} if peak > 1.0 else mixed

    return patched


def pair_vectors(
    store_dir: Path, corpora: Mapping[str, tune_locomo.Corpus]
) -> dict[str, np.ndarray]:
    """Per conversation, row i: the vector of turn i-1's text and turn i's together (0 for a
    session's first turn), embedded with the store's model once and cached beside the store."""
    cache = store_dir.parent / (store_dir.name + "-pairs.npz")
    if cache.exists():
        return dict(np.load(cache))
    from hindsight_cli.store import Store

    embedder = Store(store_dir, config=Config()).embedder
    out = {}
    for agent, corpus in corpora.items():
        rows = corpus.memories
        texts = [
            f"{rows[i - 1].content}\n{r.content}"
            for i, r in enumerate(rows)
            if i and rows[i - 1].task_id == r.task_id and rows[i - 1].step == (r.step or 0) - 1
        ]
        matrix = (
            np.asarray(embedder.embed(texts), dtype=np.float32)
            if texts
            else np.zeros((0, corpus.vectors.shape[1]))
        )
        full = np.zeros_like(corpus.vectors)
        j = 0
        for i, r in enumerate(rows):
            if i and rows[i - 1].task_id == r.task_id and rows[i - 1].step == (r.step or 0) - 1:
                full[i] = matrix[j]
                j += 1
        out[agent] = full
    np.savez(cache, **out)
    return out


def splade_vectors(store_dir: Path, conversations: Sequence[Any]) -> dict[str, Any]:
    """splade-tiny's kept entries for every turn (``turn:<agent>:<dia_id>``) and question, cached
    beside ``DIR``."""
    import splade_tiny

    cache = store_dir.parent / (store_dir.name + "-splade.npz")
    if not cache.exists():
        keys = [
            f"turn:{c.agent}:{r['metadata']['dia_id']}" for c in conversations for r in c.records
        ]
        ti, tv = splade_tiny.encode_all([r["content"] for c in conversations for r in c.records])
        qs = list(
            dict.fromkeys(q.text for c in conversations for q in [*c.questions, *c.session_only])
        )
        qi, qv = splade_tiny.encode_all(qs)
        np.savez(cache, keys=np.array(keys), ti=ti, tv=tv, qs=np.array(qs), qi=qi, qv=qv)
    data = np.load(cache)
    turns = {k: i for i, k in enumerate(data["keys"].tolist())}
    questions = {q: i for i, q in enumerate(data["qs"].tolist())}
    return {
        "turns": turns,
        "ti": data["ti"],
        "tv": data["tv"],
        "questions": questions,
        "qi": data["qi"],
        "qv": data["qv"],
    }


class VariantCorpus(WeightedCorpus):
    """A cosine that is a turn's best over its own vector and its windows' (with the turn before,
    after); a keyword score that adds ``alpha`` × splade-tiny's (``alpha`` < 0: splade-tiny's
    alone)."""

    windows: str = ""
    pairs: np.ndarray
    share: float = 0.0
    # another model's turn vectors, for ``share``
    other: np.ndarray
    other_query: np.ndarray
    alpha: float | None = None
    sparse: tuple[np.ndarray, np.ndarray]
    question: tuple[np.ndarray, np.ndarray]

    def nearest(
        self, vector: Sequence[float], where: Sequence[Any], limit: int
    ) -> list[tuple[str, float]]:
        q = np.asarray(vector, dtype=np.float32)
        cos = self.vectors @ q
        if self.share:
            cos = (1 - self.share) * cos + self.share * (self.other @ self.other_query)
        # row i: turns i-1 and i; 0 where there is no such pair
        pair = self.pairs @ q if self.windows else cos
        if self.windows in ("prev", "both"):
            cos = np.maximum(cos, pair)
        if self.windows in ("next", "both"):
            cos = np.maximum(cos, np.append(pair[1:], 0.0))
        return [(self.ids[i], float(cos[i])) for i in self._top(cos, limit)]

    def keyword(
        self, query: Sequence[str], where: Sequence[Any], limit: int, weights: Ranking
    ) -> list[tuple[str, float]]:
        if self.alpha is None:
            return super().keyword(query, where, limit, weights)
        import splade_tiny

        learned = splade_tiny.scores(self.question, self.sparse)
        if self.alpha < 0:
            total = learned.astype(np.float64)
        else:
            bm25 = dict(super().keyword(query, where, len(self.ids), weights))
            total = np.array([bm25.get(m, 0.0) for m in self.ids]) + self.alpha * learned
        return [(self.ids[i], float(total[i])) for i in self._top(total, limit) if total[i] > 0]


PAIRS: dict[str, np.ndarray] = {}
SPLADE: dict[str, Any] = {}
# model -> models_locomo's vectors
OTHER: dict[str, dict[str, np.ndarray]] = {}


def variant_corpus(corpus: tune_locomo.Corpus, agent: str, variant: Variant) -> VariantCorpus:
    out = VariantCorpus.__new__(VariantCorpus)
    out.__dict__.update(weighted(with_neighbours(corpus, variant.neighbours)).__dict__)
    out.windows = variant.windows
    if variant.windows:
        out.pairs = PAIRS[agent]
    if variant.splade is not None:
        rows = [SPLADE["turns"][f"turn:{agent}:{r.metadata['dia_id']}"] for r in corpus.memories]
        out.alpha, out.sparse = variant.splade, (SPLADE["ti"][rows], SPLADE["tv"][rows])
    if variant.blend:
        found = OTHER[variant.blend[0]]
        out.share, out.other = (
            variant.blend[1],
            np.stack([found[f"turn:{agent}:{r.metadata['dia_id']}"] for r in corpus.memories]),
        )
    return out


def directions() -> dict[str, list[Variant]]:
    off = Variant("off")
    return {
        "qwords": [
            off,
            Variant(
                "stripped", lambda q, s, c: [t for t in keyword_terms(q) if t not in QUESTION_WORDS]
            ),
        ],
        "names_off": [
            off,
            Variant(
                "speakers dropped", lambda q, s, c: [t for t in keyword_terms(q) if t not in s]
            ),
        ],
        "entities": [
            off,
            Variant(
                "names exact", entities=lambda q, s: tuple(w.lower() for w in _PROPER.findall(q))
            ),
        ],
        "temporal": [
            off,
            Variant(
                "when: time words",
                lambda q, s, c: (
                    keyword_terms(q) + (TEMPORAL if q.lower().startswith("when") else [])
                ),
            ),
        ],
        "neighbours": [off, *[Variant(f"neighbours {a}", neighbours=a) for a in (0.15, 0.3, 0.5)]],
        "prf": [off, *[Variant(f"prf {n} terms", prf_terms(n)) for n in (3, 6)]],
        "prf_weighted": [
            off,
            *[Variant(f"prf {n} terms x {EXPANSION_WEIGHT}", weighted_prf(n)) for n in (5, 10)],
        ],
        "session_prior": [
            off,
            *[
                Variant(f"session prior {w} top {t}", session_prior=(w, t))
                for w, t in ((0.1, 1), (0.15, 1), (0.2, 1), (0.3, 1), (0.15, 2), (0.3, 3))
            ],
        ],
        "windows": [off, *[Variant(f"best window {w}", windows=w) for w in ("prev", "both")]],
        "splade": [
            off,
            *[
                Variant(
                    f"BM25 + {a} splade-tiny" if a >= 0 else "splade-tiny instead of BM25", splade=a
                )
                for a in (0.3, -1.0)
            ],
        ],
        **{
            name: [
                off,
                *[Variant(f"MiniLM + {a} {name}", blend=(name, a)) for a in (0.2, 0.35, 0.5)],
            ]
            for name in ("wordllama", "static64")
        },
    }


def search(
    corpus: tune_locomo.Corpus,
    question: Any,
    qvec: np.ndarray,
    conv: Any,
    variant: Variant,
    weights: Ranking,
    k: int = 25,
) -> list[str]:
    speakers = speakers_of(corpus)
    ctx = Context(
        now=conv.now, troubleshooting=is_troubleshooting(question.text), query=question.text
    )
    # cached_property: set it before the ranking reads it
    if variant.entities is not None:
        ctx.__dict__["identifiers"] = tuple(
            dict.fromkeys([*ctx.identifiers, *variant.entities(question.text, speakers)])
        )
    weights = replace(
        weights,
        min_vector_similarity=vector_floor(
            question.text, DEFAULT_MODEL, weights.min_vector_similarity
        ),
    )
    words = variant.terms(question.text, speakers, corpus)
    rows, candidates = gather(
        corpus, words, lambda: qvec.tolist(), [], max(weights.candidates, k * 4), weights, "hybrid"
    )
    return [r.row.metadata["dia_id"] for r in rank(rows, candidates, ctx, weights, k, 2)]


def hits_of(
    conversations: Sequence[Any],
    corpora: Mapping[str, tune_locomo.Corpus],
    qvecs: Mapping[str, Any],
    variant: Variant,
) -> dict[str, list[tuple[Any, list[str]]]]:
    weights = Config().ranking
    out: dict[str, list[tuple[Any, list[str]]]] = {}
    original = pipeline.relevances
    if variant.session_prior:
        pipeline.relevances = with_session_prior(*variant.session_prior)  # type: ignore[assignment]
    try:
        for conv in conversations:
            corpus = variant_corpus(corpora[conv.agent], conv.agent, variant)
            rows = out.setdefault(conv.agent, [])
            for q in [*conv.questions, *conv.session_only]:
                if variant.splade is not None:
                    at = SPLADE["questions"][q.text]
                    corpus.question = (SPLADE["qi"][at], SPLADE["qv"][at])
                if variant.blend:
                    corpus.other_query = OTHER[variant.blend[0]][f"q:{q.text}"]
                rows.append(
                    (
                        q,
                        search(corpus, q, qvecs[q.text], conv, variant, weights)
                        if q.evidence or q.sessions
                        else [],
                    )
                )
    finally:
        pipeline.relevances = original  # type: ignore[assignment]
    return out


def main() -> None:
    store_dir, data, *wanted = sys.argv[1:]
    conversations, corpora, qvecs = tune_locomo.load(Path(store_dir), Path(data))
    chosen = {name: v for name, v in directions().items() if not wanted or name in wanted}
    needed = [v for variants in chosen.values() for v in variants]
    if any(v.windows for v in needed):
        PAIRS.update(pair_vectors(Path(store_dir), corpora))
    if any(v.splade is not None for v in needed):
        SPLADE.update(splade_vectors(Path(store_dir), conversations))
    for model in {v.blend[0] for v in needed if v.blend}:
        OTHER[model] = models_locomo.vectors(Path(store_dir), Path(data), model)
    for name, variants in chosen.items():
        results = [hits_of(conversations, corpora, qvecs, v) for v in variants]
        for v, r in zip(variants, results):
            print(f"  {name} [{v.name}] {folds_locomo.per_conversation(r)}", flush=True)
        report = folds_locomo.held_out(results)
        baseline = statistics.mean(folds_locomo.recall10(h) for h in results[0].values())
        chosen = [variants[f["chosen"]].name for f in report["folds"]]
        print(
            f"{name}: held-out mean @10 {report['mean@10']:.4f} (sd {report['stdev@10']:.4f}) vs "
            f"off "
            f"{baseline:.4f}: {report['mean@10'] - baseline:+.4f}; session@10 "
            f"{report['session_mean@10']:.4f}; "
            f"chosen {Counter(chosen)}; held-out "
            + ", ".join(f"{k} {m:.4f}" for k, (m, _) in report["by_k"].items()),
            flush=True,
        )


if __name__ == "__main__":
    main()
