"""Cheap recall directions on LoCoMo, each measured on conversations it was not chosen on (issue 21).

Not a test. Each direction is a change to the query or to the turns' vectors, tried through the shipping
ranking (``tune_locomo``'s in-memory source, ``search.pipeline.rank``). For each direction, every variant
(its strengths, and "off") ranks every question; then leave-one-conversation-out picks the variant best
on five conversations (recall@10) and measures it on the sixth. A direction helps only if the mean of
those held-out folds beats "off" measured the same way. Run:

    python tests/bench/directions_locomo.py DIR ../shared/bench/locomo/dev.json [DIRECTION ...]

``DIR`` is a store ``hindsight eval locomo FILE --store-dir DIR`` built. Directions: qwords, names_off,
entities, temporal, neighbours, prf, prf_weighted.
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
import tune_locomo  # noqa: E402

from hindsight_cli.config import DEFAULT_MODEL, Config, Ranking  # noqa: E402
from hindsight_cli.search.candidates import gather  # noqa: E402
from hindsight_cli.search.pipeline import rank  # noqa: E402
from hindsight_cli.search.query import keyword_terms, vector_floor  # noqa: E402
from hindsight_cli.search.signals import Context, is_troubleshooting  # noqa: E402
from hindsight_cli.text import STOPWORDS, stem  # noqa: E402

# Words that frame a question rather than say what it is about ("What kind of ...", "Would X likely ...").
QUESTION_WORDS = frozenset(stem(w) for w in """kind type likely ever many much would could might probably
    think describe mention mentioned according considered something anything way ways thing things""".split())
TEMPORAL = [stem(w) for w in "yesterday ago last week weekend month year tomorrow today next recently".split()]
_PROPER = re.compile(r"(?<!^)(?<![.?!] )\b([A-Z][a-z]{2,})\b")


@dataclass
class Variant:
    """How one variant changes a question: its keyword terms, its extra identifiers, the corpus vectors."""

    name: str
    terms: Callable[[str, set[str], Any], list[str]] = lambda q, speakers, corpus: keyword_terms(q)
    entities: Callable[[str, set[str]], tuple[str, ...]] | None = None
    neighbours: float = 0.0


def speakers_of(corpus: tune_locomo.Corpus) -> set[str]:
    return {r.content.partition(":")[0].strip().lower() for r in corpus.memories}


def with_neighbours(corpus: tune_locomo.Corpus, share: float) -> tune_locomo.Corpus:
    """The corpus with each turn's vector mixed with the turns before and after it in its session."""
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
    """RM3-style feedback: the ``count`` terms weighing most (tf·idf) in the top 5 BM25 turns, added."""
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
    """BM25 where a term written ``~term`` counts ``EXPANSION_WEIGHT`` times: RM3's interpolation, which the
    storage engines' BM25 (one weight per term) cannot express yet."""

    def keyword(self, query: Sequence[str], where: Sequence[Any], limit: int,
                weights: Ranking) -> list[tuple[str, float]]:
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
        return base + ["~" + t for t in expand(query, speakers, corpus)[len(base):]]
    return terms_


def directions() -> dict[str, list[Variant]]:
    off = Variant("off")
    return {
        "qwords": [off, Variant("stripped", lambda q, s, c: [t for t in keyword_terms(q) if t not in QUESTION_WORDS])],
        "names_off": [off, Variant("speakers dropped", lambda q, s, c: [t for t in keyword_terms(q) if t not in s])],
        "entities": [off, Variant("names exact", entities=lambda q, s: tuple(
            w.lower() for w in _PROPER.findall(q)))],
        "temporal": [off, Variant("when: time words", lambda q, s, c: keyword_terms(q) + (
            TEMPORAL if q.lower().startswith("when") else []))],
        "neighbours": [off, *[Variant(f"neighbours {a}", neighbours=a) for a in (0.15, 0.3, 0.5)]],
        "prf": [off, *[Variant(f"prf {n} terms", prf_terms(n)) for n in (3, 6)]],
        "prf_weighted": [off, *[Variant(f"prf {n} terms x {EXPANSION_WEIGHT}", weighted_prf(n)) for n in (5, 10)]],
    }


def search(corpus: tune_locomo.Corpus, question: Any, qvec: np.ndarray, conv: Any, variant: Variant,
           weights: Ranking, k: int = 25) -> list[str]:
    speakers = speakers_of(corpus)
    ctx = Context(now=conv.now, troubleshooting=is_troubleshooting(question.text), query=question.text)
    if variant.entities is not None:  # cached_property: set it before the ranking reads it
        ctx.__dict__["identifiers"] = tuple(dict.fromkeys([*ctx.identifiers, *variant.entities(question.text,
                                                                                              speakers)]))
    weights = replace(weights, min_vector_similarity=vector_floor(question.text, DEFAULT_MODEL,
                                                                  weights.min_vector_similarity))
    words = variant.terms(question.text, speakers, corpus)
    rows, candidates = gather(corpus, words, lambda: qvec.tolist(), [], max(weights.candidates, k * 4), weights,
                              "hybrid")
    return [r.row.metadata["dia_id"] for r in rank(rows, candidates, ctx, weights, k, 2)]


def hits_of(conversations: Sequence[Any], corpora: Mapping[str, tune_locomo.Corpus], qvecs: Mapping[str, Any],
            variant: Variant) -> dict[str, list[tuple[Any, list[str]]]]:
    weights = Config().ranking
    out: dict[str, list[tuple[Any, list[str]]]] = {}
    for conv in conversations:
        corpus = weighted(with_neighbours(corpora[conv.agent], variant.neighbours))
        out[conv.agent] = [(q, search(corpus, q, qvecs[q.text], conv, variant, weights) if q.evidence or q.sessions
                            else []) for q in [*conv.questions, *conv.session_only]]
    return out


def main() -> None:
    store_dir, data, *wanted = sys.argv[1:]
    conversations, corpora, qvecs = tune_locomo.load(Path(store_dir), Path(data))
    for name, variants in directions().items():
        if wanted and name not in wanted:
            continue
        results = [hits_of(conversations, corpora, qvecs, v) for v in variants]
        for v, r in zip(variants, results):
            print(f"  {name} [{v.name}] {folds_locomo.per_conversation(r)}", flush=True)
        report = folds_locomo.held_out(results)
        baseline = statistics.mean(folds_locomo.recall10(h) for h in results[0].values())
        chosen = [variants[f["chosen"]].name for f in report["folds"]]
        print(f"{name}: held-out mean @10 {report['mean@10']:.4f} (sd {report['stdev@10']:.4f}) vs off "
              f"{baseline:.4f}: {report['mean@10'] - baseline:+.4f}; session@10 {report['session_mean@10']:.4f}; "
              f"chosen {Counter(chosen)}", flush=True)


if __name__ == "__main__":
    main()
