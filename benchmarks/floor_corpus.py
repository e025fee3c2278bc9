"""The relevance floor, measured: how often a query with no answer in the store gets nothing back,
and how often a query with an answer loses it to the floor. Not a test; run it by hand:

    python benchmarks/floor_corpus.py                      # the bundled model, the floors swept
    python benchmarks/floor_corpus.py --model multilingual
    python benchmarks/floor_corpus.py --errors             # and each query decided wrongly at the
    default

The labelled queries are tests/data/floor_queries.json (30 memories in English, Chinese, German,
Spanish and French; 60 answerable queries naming the memories that answer them, 32 with no answer).
Every query goes through ``Store.search`` (k = 5) with ``min_vector_similarity`` set to each floor;
"cut" means no memory that answers it is among the hits.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hindsight_cli.config import Config  # noqa: E402
from hindsight_cli.embedding import load_embedder  # noqa: E402
from hindsight_cli.store import Store  # noqa: E402

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "floor_queries.json"
FLOORS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35)


def measure(
    path: Path, embedder: Any, corpus: dict[str, Any], ids: list[str], floor: float, mode: str
) -> dict[str, Any]:
    config = replace(Config(), embedding_model=embedder.name)
    store = Store(
        path,
        embedder=embedder,
        config=replace(config, ranking=replace(config.ranking, min_vector_similarity=floor)),
    )
    wrong: list[str] = []
    tally: dict[str, list[int]] = {}
    for item in [*corpus["answerable"], *corpus["no_answer"]]:
        query, targets = item["query"], item.get("answers", [])
        hits = {h.memory.id for h in store.search(query, k=5, mode=mode).hits}
        ok = bool(hits & {ids[t] for t in targets}) if targets else not hits
        key = ("answerable" if targets else "no_answer") + "/" + item["language"]
        tally.setdefault(key, [0, 0])
        tally[key][0] += ok
        tally[key][1] += 1
        if not ok:
            wrong.append(f"{'cut' if targets else 'answered'}: {query}")
    return {"tally": tally, "wrong": wrong}


def line(result: dict[str, Any]) -> str:
    tally = result["tally"]

    def share(prefix: str, good: bool) -> str:
        rows = [v for k, v in tally.items() if k.startswith(prefix)]
        n, total = sum(v[0] for v in rows), sum(v[1] for v in rows)
        return f"{(n if good else total - n) / total:.2f} ({n if good else total - n}/{total})"

    per = " ".join(
        f"{k.replace('answerable', 'found').replace('no_answer', 'empty')} {v[0]}/{v[1]}"
        for k, v in sorted(tally.items())
    )
    return (
        f"no-answer left empty {share('no_answer', True)} · answerable cut "
        f"{share('answerable', False)} · {per}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="default")
    parser.add_argument("--errors", action="store_true")
    args = parser.parse_args()
    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
    embedder = load_embedder(args.model)
    default = Config().ranking.min_vector_similarity
    with tempfile.TemporaryDirectory() as scratch:
        store = Store(
            Path(scratch) / "s",
            embedder=embedder,
            config=replace(Config(), embedding_model=embedder.name),
        )
        store.init()
        ids = [store.record(text, merge=False).memory.id for text in corpus["memories"]]
        for mode in ("hybrid", "vector"):
            for floor in FLOORS:
                result = measure(Path(scratch) / "s", embedder, corpus, ids, floor, mode)
                print(f"{embedder.name} {mode:6} floor {floor:.2f}: {line(result)}")
                if args.errors and floor == default:
                    print("   " + "\n   ".join(result["wrong"]))


if __name__ == "__main__":
    main()
