"""How much of a context block is relevant: the labelled store (tests/data/labelled_store.json, 46
memories in English, Chinese, German and Spanish, 27 questions naming every memory that answers
them, 5 troubleshooting queries with no answer), searched with ``--budget`` as an agent would. Not
a test; run it by hand (tests/test_relevance_floor.py checks the same through the CLI):

    python benchmarks/block_relevance.py                            # budget 250, the default floors
    python benchmarks/block_relevance.py --set min_relevance=0 --set min_vector_only=0.2
    python benchmarks/block_relevance.py --errors                   # each irrelevant line

Every memory is recorded (a day apart), then the tasks billing-db and k8s and the whole range are
summarised, as a user who ran ``summarize`` would have. A summary counts as relevant when it covers a
relevant memory. Reported: the share of block lines that are relevant (all blocks together), the
blocks whose first hit answers, and the lines the no-answer queries got.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import fields, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hindsight_cli.config import Config  # noqa: E402
from hindsight_cli.embedding import load_embedder  # noqa: E402
from hindsight_cli.store import Store  # noqa: E402

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "labelled_store.json"
START = datetime(2026, 11, 16, 9, 0, tzinfo=UTC)


def build(store: Store, corpus: dict[str, Any]) -> dict[str, str]:
    """Record the corpus; returns each stored id's label (summaries: "summary:<labels covered>")."""
    label: dict[str, str] = {}
    for n, item in enumerate(corpus["memories"]):
        memory = store.record(
            item["content"],
            merge=False,
            type=item.get("type", "episodic"),
            outcome=item.get("outcome", "neutral"),
            resolution=item.get("resolution"),
            source=item.get("source", "agent"),
            confidence=item.get("confidence"),
            task_id=item.get("task"),
            event_at=START + timedelta(hours=7 * n),
        ).memory
        label[memory.id] = item["id"]
    return label


def summarise(store: Store, label: dict[str, str]) -> None:
    runs = [
        store.summarize(task_id="billing-db"),
        store.summarize(task_id="k8s"),
        store.summarize(since=START, until=START + timedelta(days=15)),
    ]
    for run in runs:
        for mid in [run.memory.id, *run.parts]:
            label[mid] = "summary:" + ",".join(sorted(covered(store, mid, label)))


def covered(store: Store, mid: str, label: dict[str, str]) -> set[str]:
    out: set[str] = set()
    for source in store.get(mid).source_ids:
        out |= (
            {label[source]}
            if source in label and not label[source].startswith("summary")
            else (covered(store, source, label))
        )
    return out


def relevant(name: str, wanted: set[str]) -> bool:
    if name.startswith("summary:"):
        return bool(set(name[8:].split(",")) & wanted)
    return name in wanted


def measure(
    store: Store, corpus: dict[str, Any], label: dict[str, str], budget: int
) -> dict[str, Any]:
    lines = good = first = 0
    errors: list[str] = []
    firsts: list[str] = []
    for item in corpus["questions"]:
        wanted = set(item["relevant"])
        hits = store.search(
            item["query"], budget=budget, troubleshoot=item.get("troubleshoot", False)
        ).hits
        names = [label.get(h.memory.id, "?") for h in hits]
        firsts.append(names[0] if names else "-")
        lines += len(names)
        good += sum(relevant(n, wanted) for n in names)
        first += bool(names) and relevant(names[0], wanted)
        errors += [
            f"{item['query']!r}: {n} ({h.score:.3f})"
            for n, h in zip(names, hits)
            if not relevant(n, wanted)
        ]
    empty = [
        [
            label.get(h.memory.id, "?")
            for h in store.search(
                q["query"], budget=budget, troubleshoot=q.get("troubleshoot", False)
            ).hits
        ]
        for q in corpus["no_match"]
    ]
    return {
        "relevant_share": round(good / max(lines, 1), 4),
        "lines": lines,
        "relevant_lines": good,
        "first_hit_answers": f"{first}/{len(corpus['questions'])}",
        "no_match_lines": sum(map(len, empty)),
        "no_match": empty,
        "errors": errors,
        "first_hits": " ".join(firsts),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--budget", type=int, default=250)
    parser.add_argument(
        "--set", action="append", default=[], help="a [ranking] setting, name=value"
    )
    parser.add_argument("--errors", action="store_true")
    args = parser.parse_args()
    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
    embedder = load_embedder("default")
    config = replace(Config(), embedding_model=embedder.name)
    kinds = {f.name: f.type for f in fields(config.ranking)}
    for pair in args.set:
        name, value = pair.split("=", 1)
        cast = float if "float" in str(kinds[name]) else int if "int" in str(kinds[name]) else str
        config = replace(config, ranking=replace(config.ranking, **{name: cast(value)}))
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "store", embedder=embedder, config=config)
        store.init()
        label = build(store, corpus)
        summarise(store, label)
        result = measure(store, corpus, label, args.budget)
    if not args.errors:
        result.pop("errors")
    print(json.dumps(result, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
