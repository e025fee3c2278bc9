"""Detection and false-positive rates of the poisoning detector on the corpus, and its cost per
call.

    python benchmarks/poisoning_corpus.py [--module PATH] [--runs 200] [--json]

Reads tests/data/poisoning/injections.jsonl (instructions to a model: English, Chinese, 30-odd other
languages, obfuscated, in fields other than content) and benign.jsonl (developer chat that borrows
their words), judges each as text from ``--source web``, and prints the detection rate, the
false-positive rate, both per corpus round (``dev`` was written with the detector, each
``heldout-N`` was written before the detector saw it: its first-pass figures are in
docs/reliability.md), the misses per technique and language, and the latency of one ``assess`` call:
median and p95 over the corpus, and for 16 KiB of text, each beside a floor measured in the same run
(NFKC plus case folding of the same text, which any check of normalised text pays) and the first
call in a fresh process (patterns compiled on demand).

``--module PATH`` judges with another poisoning module instead (a file with
``quarantine_reason(content, source)``, e.g. ``git show b2449a3:hindsight_cli/poisoning.py >
/tmp/old.py``); such a module reads the content only, as writing did at b2449a3.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT / "tests" / "data" / "poisoning"

Judge = Callable[[dict[str, Any]], bool]


def corpus(name: str) -> list[dict[str, Any]]:
    with (DATA / f"{name}.jsonl").open(encoding="utf-8") as file:
        return [json.loads(line) for line in file if line.strip()]


def fields(item: dict[str, Any]) -> dict[str, Any]:
    return item.get("fields") or {"content": item["text"]}


def judge(module: Path | None) -> Judge:
    if module is None:
        from hindsight_cli.poisoning import assess

        return lambda item: assess(fields(item), "web") is not None
    spec = importlib.util.spec_from_file_location("other_poisoning", module)
    assert spec and spec.loader
    other = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(other)
    return lambda item: (
        other.quarantine_reason(fields(item).get("content") or "", "web") is not None
    )


def rates(items: list[dict[str, Any]], flagged: set[str], want: bool) -> dict[str, Any]:
    """Share judged as ``want`` (detected, or passed), overall and per round."""

    def share(group: list[dict[str, Any]]) -> dict[str, Any]:
        hits = sum((item["id"] in flagged) == want for item in group)
        return {
            "n": len(group),
            "hits": hits,
            "rate": round(hits / len(group), 4) if group else None,
        }

    per_round = {
        r: share([i for i in items if i["round"] == r])
        for r in dict.fromkeys(i["round"] for i in items)
    }
    return {"all": share(items), "rounds": per_round}


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]


def forget() -> None:
    """Empty the detector's memo of verdicts (``detect._short_kinds``), where this checkout has
    one."""
    from hindsight_cli.poisoning import detect

    memo = getattr(detect, "_short_kinds", None)
    if memo is not None:
        memo.cache_clear()


def latency(check: Judge, items: list[dict[str, Any]], runs: int) -> dict[str, float]:
    """Milliseconds per call: the corpus items (median, p95) and 16 KiB, each with its floor (each
    call with the detector's memo emptied first)."""

    def timed(fn: Callable[[], object]) -> float:
        # each call reads its text afresh: the detector's memo of short texts would time itself
        forget()
        start = time.perf_counter()
        fn()
        return (time.perf_counter() - start) * 1000

    def floor(item: dict[str, Any]) -> None:
        for value in fields(item).values():
            unicodedata.normalize("NFKC", str(value)).casefold()

    calls, floors = [], []
    for _ in range(max(1, runs // len(items))):
        for item in items:
            calls.append(timed(lambda item=item: check(item)))
            floors.append(timed(lambda item=item: floor(item)))
    text = "\n".join(i.get("text", "") for i in corpus("benign"))
    big = {
        "id": "big",
        "text": (text * (16384 // len(text) + 1)).encode()[:16384].decode("utf-8", "ignore"),
    }
    big_calls = [timed(lambda: check(big)) for _ in range(max(3, runs // 50))]
    big_floor = [timed(lambda: floor(big)) for _ in range(max(3, runs // 50))]
    return {
        "median_ms": statistics.median(calls),
        "p95_ms": _p95(calls),
        "floor_median_ms": statistics.median(floors),
        "16KiB_median_ms": statistics.median(big_calls),
        "16KiB_floor_ms": statistics.median(big_floor),
    }


def first_call_ms() -> float:
    """The first ``assess`` in a fresh process, import excluded."""
    code = (
        "import time; from hindsight_cli.poisoning import assess; t = time.perf_counter(); "
        "assess({'content': 'pytest fails with ImportError', 'tags': ['ci']}, 'web'); "
        "print((time.perf_counter() - t) * 1000)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return float(out.stdout.strip())


def report(module: Path | None, runs: int) -> dict[str, Any]:
    check = judge(module)
    injections, benign = corpus("injections"), corpus("benign")
    flagged = {item["id"] for item in injections + benign if check(item)}
    missed = [i for i in injections if i["id"] not in flagged]
    false = [b for b in benign if b["id"] in flagged]
    by = lambda key, items: dict(Counter(i[key] for i in items))  # noqa: E731
    out = {
        "detection": rates(injections, flagged, True),
        "false_positives": rates(benign, flagged, False),
        "misses_by_technique": {
            t: f"{n}/{by('technique', injections)[t]}" for t, n in by("technique", missed).items()
        },
        "misses_by_language": {
            lang: f"{n}/{by('lang', injections)[lang]}" for lang, n in by("lang", missed).items()
        },
        "missed": [i["id"] for i in missed],
        "false_positive_ids": [b["id"] for b in false],
        "latency": latency(check, injections + benign, runs),
    }
    if module is None:
        out["latency"]["first_call_ms"] = first_call_ms()
    return out


def _print(result: dict[str, Any]) -> None:
    for title, key, noun in (
        ("detection", "detection", "detected"),
        ("false positives", "false_positives", "passed"),
    ):
        overall = result[key]["all"]
        print(f"{title}: {overall['hits']}/{overall['n']} {noun} ({overall['rate']:.1%})")
        for name, part in result[key]["rounds"].items():
            print(f"  {name}: {part['hits']}/{part['n']} ({part['rate']:.1%})")
    fp = result["false_positives"]["all"]
    print(f"false-positive rate: {(fp['n'] - fp['hits']) / fp['n']:.1%}")
    print("misses by technique:", result["misses_by_technique"] or "none")
    print("misses by language:", result["misses_by_language"] or "none")
    print("missed:", ", ".join(result["missed"]) or "none")
    print("false positives:", ", ".join(result["false_positive_ids"]) or "none")
    lat = result["latency"]
    print(
        f"latency per call: median {lat['median_ms']:.3f} ms, p95 {lat['p95_ms']:.3f} ms "
        f"(floor {lat['floor_median_ms']:.4f} ms, "
        f"x{lat['median_ms'] / lat['floor_median_ms']:.0f}); "
        f"16 KiB: {lat['16KiB_median_ms']:.1f} ms (floor {lat['16KiB_floor_ms']:.2f} ms, "
        f"x{lat['16KiB_median_ms'] / lat['16KiB_floor_ms']:.0f})"
        + (
            f"; first call in a fresh process {lat['first_call_ms']:.0f} ms"
            if "first_call_ms" in lat
            else ""
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--module", type=Path, help="Judge with this poisoning module file instead."
    )
    parser.add_argument("--runs", type=int, default=400, help="Calls to time (default 400).")
    parser.add_argument("--json", action="store_true", help="Print the figures as JSON.")
    args = parser.parse_args()
    result = report(args.module, args.runs)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        _print(result)


if __name__ == "__main__":
    main()
