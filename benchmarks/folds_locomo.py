"""Leave-one-conversation-out tuning on LoCoMo: a ranking change counts only if it helps
conversations it was not chosen on.

Not a test. For every combination of the settings given (a grid), every conversation's questions are
ranked through the shipping pipeline (``tune_locomo``); then, for each conversation in turn, the
combination with the best recall@10 on the *other* conversations is chosen and measured on the one
left out. The figure is the mean of those held-out folds (and their spread); each combination's own
per-conversation figures are printed too, so a fixed setting can be read off. Run:

    python benchmarks/folds_locomo.py DIR ../shared/bench/locomo/dev.json [NAME=V1,V2,... ...]
    [--mode M]

``DIR`` is a store ``hindsight eval locomo FILE --store-dir DIR`` built. Example:

    python benchmarks/folds_locomo.py /tmp/locomo-store dev.json w_prev_step=0.4,0.6,0.8
    w_recency=0.05,0.1
"""

from __future__ import annotations

import itertools
import statistics
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import tune_locomo  # noqa: E402

from hindsight_cli.evals import locomo as evaluation  # noqa: E402

Hits = list[tuple[Any, list[str]]]


def grid(pairs: Sequence[str]) -> list[dict[str, Any]]:
    """``NAME=V1,V2`` strings as every combination of Ranking overrides (typed like their
    defaults)."""
    axes = []
    for pair in pairs:
        name, _, values = pair.partition("=")
        axes.append([evaluation.ranking_overrides([f"{name}={v}"]) for v in values.split(",")])
    return [
        {k: v for part in combo for k, v in part.items()} for combo in itertools.product(*axes)
    ] or [{}]


def recall10(hits: Hits) -> float:
    """Mean evidence recall@10 over the questions that have turn evidence (micro: each question
    counts once)."""
    scores = [evaluation._scores(q.evidence, h)["recall@10"] for q, h in hits if q.evidence]
    return sum(scores) / len(scores) if scores else 0.0


def sessions10(hits: Hits) -> float:
    return float(evaluation.session_figures(hits)["recall@10"])


def at_ks(hits: Hits) -> dict[str, float]:
    """Evidence recall@5/@10/@25 of these hits, as ``hindsight eval locomo`` counts them."""
    mean = evaluation._mean([evaluation._scores(q.evidence, h) for q, h in hits if q.evidence])
    return {f"recall@{k}": mean[f"recall@{k}"] for k in evaluation.KS}


def held_out(results: Sequence[Mapping[str, Hits]]) -> dict[str, Any]:
    """For each conversation: the combination best on the others (by recall@10), measured on it."""
    agents = list(results[0])
    folds = []
    for agent in agents:
        train = [
            recall10([pair for other in agents if other != agent for pair in hits[other]])
            for hits in results
        ]
        # ties: the earlier (the default first)
        best = max(range(len(results)), key=lambda i: (train[i], -i))
        folds.append(
            {
                "held_out": agent,
                "chosen": best,
                "train@10": train[best],
                **at_ks(results[best][agent]),
                "session@10": sessions10(results[best][agent]),
            }
        )
    values = [f["recall@10"] for f in folds]
    spread = {
        f"@{k}": (
            statistics.mean(f[f"recall@{k}"] for f in folds),
            statistics.pstdev(f[f"recall@{k}"] for f in folds),
        )
        for k in evaluation.KS
    }
    return {
        "folds": folds,
        "mean@10": statistics.mean(values),
        "min@10": min(values),
        "max@10": max(values),
        "stdev@10": statistics.pstdev(values),
        "by_k": spread,
        "session_mean@10": statistics.mean(f["session@10"] for f in folds),
    }


def per_conversation(hits: Mapping[str, Hits]) -> str:
    values = [recall10(h) for h in hits.values()]
    micro = recall10([pair for h in hits.values() for pair in h])
    return (
        f"micro {micro:.4f} | fold mean {statistics.mean(values):.4f} (min {min(values):.4f} max "
        f"{max(values):.4f}) | " + " ".join(f"{a[-2:]} {v:.3f}" for a, v in zip(hits, values))
    )


def main() -> None:
    store_dir, data, *rest = sys.argv[1:]
    mode = "hybrid"
    if "--mode" in rest:
        at = rest.index("--mode")
        mode = rest[at + 1]
        del rest[at : at + 2]
    conversations, corpora, qvecs = tune_locomo.load(Path(store_dir), Path(data))
    combos = grid(rest)
    results = []
    for number, overrides in enumerate(combos):
        results.append(tune_locomo.found(conversations, corpora, qvecs, mode, **overrides))
        print(f"[{number}] {overrides or 'defaults'}: {per_conversation(results[-1])}", flush=True)
    report = held_out(results)
    for fold in report["folds"]:
        print(
            f"held out {fold['held_out']}: chose [{fold['chosen']}] (train {fold['train@10']:.4f}) "
            f"-> @10 {fold['recall@10']:.4f}, session@10 {fold['session@10']:.4f}"
        )
    print(
        f"held-out fold mean @10 {report['mean@10']:.4f} (min {report['min@10']:.4f}, max "
        f"{report['max@10']:.4f}, "
        f"sd {report['stdev@10']:.4f}); session@10 {report['session_mean@10']:.4f}"
    )
    print(
        "held-out fold mean (sd): "
        + ", ".join(f"{k} {m:.4f} ({sd:.4f})" for k, (m, sd) in report["by_k"].items())
    )


if __name__ == "__main__":
    main()
