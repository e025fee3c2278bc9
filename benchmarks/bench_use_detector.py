"""Precision and recall of the use detector (``hindsight_cli.lessons.usage``) on hand-labelled cases
from real sessions (issue 36).

    python benchmarks/bench_use_detector.py [--split test|tune|all] [--json] [--show-errors]

The cases (``benchmarks/use_detector/cases.json``, built by ``build_cases.py`` from mini-swe-agent
trajectories and labelled by reading each one) pair a failure of a session with a memory that could
have been injected for it (another session's fix of the same error or the same command family, or
the session's own earlier fix of it) and the session's commands before and after. The detector was
tuned on the ``tune`` projects only; ``test`` is the figure to report. Precision and recall are those
of the ``used`` verdict (``misleading`` counts as a positive detection of application, reported
apart).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hindsight_cli.lessons.usage import USED, judge  # noqa: E402

CASES = ROOT / "benchmarks" / "use_detector" / "cases.json"


def verdict(case: dict) -> str:
    later = [(step["command"], bool(step["same_error"])) for step in case["later"]]
    return judge(case["fix"], later, case["earlier"])


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
        "agreement": round(agree / len(cases), 3) if cases else None,
        "confusion": {f"{label}->{got}": n for (label, got), n in sorted(pairs.items())},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=("test", "tune", "all"), default="test")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show-errors", action="store_true")
    args = parser.parse_args()
    data = json.loads(CASES.read_text(encoding="utf-8"))
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
