"""Precision and recall of the use detector (``hindsight_cli.lessons.usage``) on hand-labelled cases
from real sessions (issue 36).

    python benchmarks/bench_use_detector.py [--split test|tune|all] [--cases repeats|pairs]
        [--json] [--show-errors]

The cases are built by ``benchmarks/use_detector/build_cases.py`` from mini-swe-agent trajectories
and labelled by reading each one. ``repeats`` (``repeats.json``, the default): a failure whose kind
was fixed before, paired with the fix of an earlier occurrence (one the agent could really apply
again) or, as a decoy, with the fix of another error of the project. ``pairs`` (``cases.json``,
the first set): a session's first failure of a kind paired with another session's fix. The
detector is tuned on the ``tune`` projects only; ``test`` is the figure to report. Precision and
recall are those of the ``used`` verdict; ``applied_*`` are those of *applied* (``used`` or
``misleading``: the fix was carried out, whether or not the error came back).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hindsight_cli.lessons.usage import IGNORED, USED, judge  # noqa: E402

CASES = {
    "repeats": ROOT / "benchmarks" / "use_detector" / "repeats.json",
    "pairs": ROOT / "benchmarks" / "use_detector" / "cases.json",
}


def verdict(case: dict) -> str:
    later = [(step["command"], bool(step["same_error"])) for step in case["later"]]
    return judge(case["fix"], later, case["failed"])


def _share(pairs: Counter, among: str) -> float | None:
    """Precision (``among="got"``) or recall (``"label"``) of *applied* (used or misleading)."""
    both = sum(n for (label, got), n in pairs.items() if label != IGNORED and got != IGNORED)
    side = 1 if among == "got" else 0
    total = sum(n for pair, n in pairs.items() if pair[side] != IGNORED)
    return round(both / total, 3) if total else None


def score(cases: list[dict]) -> dict:
    pairs = Counter((case["label"], verdict(case)) for case in cases)
    tp = pairs[(USED, USED)]
    predicted = sum(n for (_, got), n in pairs.items() if got == USED)
    actual = sum(n for (label, _), n in pairs.items() if label == USED)
    agree = sum(n for (label, got), n in pairs.items() if label == got)
    return {
        "cases": len(cases),
        "labels": dict(Counter(case["label"] for case in cases)),
        "verdicts": dict(Counter(got for (_, got), n in pairs.items() for _ in range(n))),
        "used_precision": round(tp / predicted, 3) if predicted else None,
        "used_recall": round(tp / actual, 3) if actual else None,
        "true_positives": tp,
        "false_positives": predicted - tp,
        "false_negatives": actual - tp,
        "applied_precision": _share(pairs, "got"),
        "applied_recall": _share(pairs, "label"),
        "agreement": round(agree / len(cases), 3) if cases else None,
        "confusion": {f"{label}->{got}": n for (label, got), n in sorted(pairs.items())},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("test", "tune", "all"), default="test")
    parser.add_argument("--cases", choices=tuple(CASES), default="repeats")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show-errors", action="store_true")
    args = parser.parse_args()
    data = json.loads(CASES[args.cases].read_text(encoding="utf-8"))
    cases = [c for c in data["cases"] if args.split in ("all", c["split"])]
    result = score(cases)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    if args.show_errors:
        for case in cases:
            got = verdict(case)
            if got != case["label"]:
                print(f"{case['id']} label={case['label']} got={got}")


if __name__ == "__main__":
    main()
