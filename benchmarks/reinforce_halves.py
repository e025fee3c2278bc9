"""Does reinforcement help on the replay of real sessions? First half of each project's sessions
against the second half, reinforcement off against on (issue 36).

    hindsight eval replay DIRS... --systems hooks --json > off.json
    hindsight eval replay DIRS... --systems hooks --reinforce --json > on.json
    python benchmarks/reinforce_halves.py off.json on.json DIRS...

Each project's sessions are split by start order (``probes.ordered``) into a first and a second
half; the first half is its own control (few verdicts exist yet), the second half is where
reinforcement can act. Per half and run: positive probes and the share whose earlier fix is in the
hooks' block, the mean tokens of the blocks shown, negative probes and the share that showed
anything (false recall).
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hindsight_cli.evals import probes, sessions  # noqa: E402


def halves(paths: list[Path]) -> dict[str, str]:
    """Each session's half ("first" or "second") within its project."""
    by_project: dict[str, list[probes.Session]] = defaultdict(list)
    for session in sessions.load(paths):
        by_project[session.project].append(session)
    out = {}
    for group in by_project.values():
        ordered = probes.ordered(group)
        for n, session in enumerate(ordered):
            out[session.id] = "first" if n < len(ordered) / 2 else "second"
    return out


def figures(report: dict[str, Any], half_of: dict[str, str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for half in ("first", "second"):
        chosen = [p for p in report["probes"] if half_of.get(p["id"].rsplit("#", 1)[0]) == half]
        positives = [p for p in chosen if p["kind"] == "positive"]
        negatives = [p for p in chosen if p["kind"] == "negative"]
        answers = [p["systems"]["hooks"] for p in chosen]
        shown = [a for a in answers if a["block"]]
        out[half] = {
            "positives": len(positives),
            "in_block": round(
                sum(p["systems"]["hooks"]["hit"] for p in positives) / len(positives), 3
            )
            if positives
            else None,
            "blocks": len(shown),
            "mean_block_tokens": round(sum(_tokens(a["block"]) for a in shown) / len(shown), 1)
            if shown
            else None,
            "negatives": len(negatives),
            "false_recall": round(
                sum(bool(p["systems"]["hooks"]["block"]) for p in negatives) / len(negatives), 3
            )
            if negatives
            else None,
        }
    return out


def _tokens(block: str) -> int:
    from hindsight_cli.text import estimate_tokens

    return estimate_tokens(block)


def main() -> None:
    off, on, *dirs = sys.argv[1:]
    half_of = halves([Path(d) for d in dirs])
    result = {
        name: figures(json.loads(Path(path).read_text()), half_of)
        for name, path in (("off", off), ("on", on))
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
