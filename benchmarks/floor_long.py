"""The vector floor on long memories: how many hits vector-mode search returns when every memory is
a whole LoCoMo session (most are longer than the model's window, so they are embedded in chunks and
scored by their best one), and how often an evidence session is among them. Not a test; run it by
hand:

    python benchmarks/floor_long.py [--data ../shared/bench/locomo/dev.json] [--k 10]

For each floor (``min_vector_similarity``): the mean number of hits at k, the share of questions
with fewer than two, and hit@k (an evidence session among the hits).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_long_memories import DEFAULT_DATA, Cached, _sessions  # noqa: E402

from hindsight_cli.config import Config  # noqa: E402
from hindsight_cli.evals.locomo import load_locomo  # noqa: E402
from hindsight_cli.store import Store  # noqa: E402

FLOORS = (0.1, 0.15, 0.2, 0.25, 0.3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args()
    embedder = Cached()
    counts: dict[float, list[int]] = {f: [] for f in FLOORS}
    found: dict[float, list[float]] = {f: [] for f in FLOORS}
    with tempfile.TemporaryDirectory() as scratch:
        for number, conversation in enumerate(load_locomo(args.data)):
            texts, where = _sessions(conversation)
            path = Path(scratch) / f"s{number}"
            store = Store(path, embedder=embedder)
            for name, text in texts.items():
                store.record(text, task_id=name, type="episodic", merge=False)
            for floor in FLOORS:
                config = replace(
                    Config(), ranking=replace(Config().ranking, min_vector_similarity=floor)
                )
                floored = Store(path, embedder=embedder, config=config)
                for question in conversation.questions:
                    targets = {where[d][0] for d in question.evidence if d in where}
                    hits = floored.search(question.text, k=args.k, mode="vector").hits
                    counts[floor].append(len(hits))
                    found[floor].append(float(bool(targets & {h.memory.task_id for h in hits})))
    for floor in FLOORS:
        c = np.array(counts[floor])
        print(
            f"floor {floor:.2f}: vector mode mean hits@{args.k} {c.mean():.2f}, under two "
            f"{np.mean(c < 2):.3f}, "
            f"none {np.mean(c == 0):.3f}, evidence session hit@{args.k} "
            f"{np.mean(found[floor]):.3f} "
            f"({len(c)} questions)"
        )


if __name__ == "__main__":
    main()
