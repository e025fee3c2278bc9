"""Measure long-memory recall (issue 17, point 3) through the shipping store: every LoCoMo session
is recorded as one long memory, and each question is searched; a hit is an evidence session in the
top 3. The same run measures the store searching only a memory's first window (as before chunks), so
the two figures share the machine, the model and the data. Not a test (pytest does not collect it):

    python benchmarks/bench_long_memories.py [--data ../shared/bench/locomo/dev.json] [--json]

"Late" questions are those whose evidence all sits after the model's first window of its session:
the part of a long memory the vectors never saw before.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hindsight_cli.core import chunks  # noqa: E402
from hindsight_cli.embedding import BundledEmbedder  # noqa: E402
from hindsight_cli.evals.locomo import load_locomo  # noqa: E402
from hindsight_cli.store import Store  # noqa: E402

# from the repository's top (its licence: never copy it)
DEFAULT_DATA = Path("../shared/bench/locomo/dev.json")


class Cached:
    """The bundled model, each text embedded once for both runs."""

    def __init__(self) -> None:
        self.model = BundledEmbedder()
        self.name, self.dim = self.model.name, self.model.dim
        self.seen: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        fresh = [t for t in dict.fromkeys(texts) if t not in self.seen]
        if fresh:
            self.seen.update(zip(fresh, self.model.embed(fresh)))
        return np.stack([self.seen[t] for t in texts])


def _sessions(conversation: Any) -> tuple[dict[str, str], dict[str, tuple[str, int]]]:
    """Each session's text, and where each dialogue turn sits: (session, word pieces before it)."""
    tokenizer = chunks._tokenizer()
    texts: dict[str, list[str]] = {}
    where: dict[str, tuple[str, int]] = {}
    for record in conversation.records:
        lines = texts.setdefault(record["task_id"], [])
        before = (
            len(tokenizer.encode("\n".join(lines), add_special_tokens=False).ids) if lines else 0
        )
        where[record["metadata"]["dia_id"]] = (record["task_id"], before)
        lines.append(record["content"])
    return {name: "\n".join(lines) for name, lines in texts.items()}, where


def run(data: Path, embedder: Cached, first_window_only: bool) -> dict[str, Any]:
    split = chunks.split
    if first_window_only:
        # the model truncates: its first window
        chunks.split = lambda text, model: [text]
    try:
        found: dict[str, list[float]] = {
            "vector": [],
            "hybrid": [],
            "vector_late": [],
            "hybrid_late": [],
        }
        lengths: list[int] = []
        for conversation in load_locomo(data):
            texts, where = _sessions(conversation)
            with tempfile.TemporaryDirectory() as directory:
                store = Store(directory, embedder=embedder)
                for name, text in texts.items():
                    store.record(text, task_id=name, type="episodic", merge=False)
                    lengths.append(
                        len(chunks._tokenizer().encode(text, add_special_tokens=False).ids)
                    )
                for question in conversation.questions:
                    targets = {where[d][0] for d in question.evidence if d in where}
                    if not targets:
                        continue
                    late = all(where[d][1] > chunks.WINDOW for d in question.evidence if d in where)
                    for mode in ("vector", "hybrid"):
                        hits = store.search(question.text, k=3, mode=mode).hits
                        hit = float(bool(targets & {h.memory.task_id for h in hits}))
                        found[mode].append(hit)
                        if late:
                            found[mode + "_late"].append(hit)
    finally:
        chunks.split = split
    return {
        "questions": len(found["vector"]),
        "late_questions": len(found["vector_late"]),
        "sessions": len(lengths),
        "longer_than_window": sum(n > chunks.WINDOW for n in lengths) / len(lengths),
        **{f"hit@3_{name}": round(float(np.mean(values)), 3) for name, values in found.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    embedder = Cached()
    results = {
        "first_window": run(args.data, embedder, True),
        "best_chunk": run(args.data, embedder, False),
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"{'':14}{'vector':>8}{'late':>8}{'hybrid':>8}{'late':>8}")
    for name, r in results.items():
        print(
            f"{name:14}{r['hit@3_vector']:8.3f}{r['hit@3_vector_late']:8.3f}{r['hit@3_hybrid']:8.3f}"
            f"{r['hit@3_hybrid_late']:8.3f}"
        )
    r = results["best_chunk"]
    print(
        f"{r['questions']} questions ({r['late_questions']} late), {r['sessions']} sessions, "
        f"{r['longer_than_window']:.0%} longer than the model's window"
    )


if __name__ == "__main__":
    main()
