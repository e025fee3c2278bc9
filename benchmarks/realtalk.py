"""A second long-conversation benchmark: REALTALK (Lee et al., 2025), 10 real 21-day chats between
two people with questions whose evidence turns are labelled, in LoCoMo's scheme.

Not a test, and never tuned on: it checks that what was tuned on LoCoMo holds on conversations people
really had. The data stays outside the repository; it is read at run time from a checkout of
https://github.com/danny911kr/REALTALK (its ``data/Chat_*.json``). Each chat is turned into one
LoCoMo-format conversation (the turn's ``clean_text`` as its text, the session's first time as its
date-time) and measured by ``hindsight eval locomo``'s own harness, beside a plain BM25 over the same
turns (``hindsight_cli.evals.bm25``, the replay's floor: one document per turn, no ranking signals).
Run:

    python benchmarks/realtalk.py REALTALK_DIR [--json] [--floor-only] [--write FILE]
    python benchmarks/realtalk.py --locomo FILE     # the same BM25 floor on LoCoMo-format data

``--write FILE`` keeps the converted conversations, so ``hindsight eval locomo FILE`` reads them too.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from hindsight_cli.evals import locomo as evaluation
from hindsight_cli.evals.bm25 import BM25

_SESSION = re.compile(r"session_(\d+)")
_STAMP = "%d.%m.%Y, %H:%M:%S"


def _turn(raw: Mapping[str, Any]) -> dict[str, str]:
    return {
        "speaker": str(raw.get("speaker") or "?"),
        "dia_id": str(raw.get("dia_id") or ""),
        "text": str(raw.get("clean_text") or raw.get("text") or ""),
    }


def convert(chat: Mapping[str, Any], sample_id: str) -> dict[str, Any]:
    """One REALTALK chat as a LoCoMo-format conversation (sessions without turns are left out)."""
    conversation: dict[str, Any] = {}
    for key, turns in chat.items():
        if not _SESSION.fullmatch(key) or not isinstance(turns, list) or not turns:
            continue
        stamp = chat.get(f"{key}_date_time") or turns[0].get("date_time")
        when = datetime.strptime(" ".join(str(stamp).split()), _STAMP)
        conversation[f"{key}_date_time"] = when.strftime("%I:%M %p on %d %B, %Y")
        conversation[key] = [_turn(t) for t in turns if isinstance(t, Mapping)]
    names = chat.get("name") or {}
    conversation["speaker_a"] = names.get("speaker_1", "")
    conversation["speaker_b"] = names.get("speaker_2", "")
    return {"sample_id": sample_id, "conversation": conversation, "qa": chat.get("qa") or []}


def load_realtalk(root: Path) -> list[dict[str, Any]]:
    """Every ``Chat_*.json`` of a REALTALK checkout's ``data`` directory (or of ``root`` itself)."""
    folder = root / "data" if (root / "data").is_dir() else root
    files = sorted(folder.glob("Chat_*.json"), key=lambda p: int(p.stem.split("_")[1]))
    if not files:
        sys.exit(f"No Chat_*.json under {folder}: is this a REALTALK checkout?")
    return [convert(json.loads(f.read_text(encoding="utf-8")), f.stem) for f in files]


def bm25_floor(conversations: Sequence[evaluation.Conversation]) -> dict[str, float]:
    """Plain BM25 over each conversation's turns (speaker and text), every question against its own
    conversation: mean evidence recall@k, as ``hindsight eval locomo`` counts it."""
    scores = []
    for conv in conversations:
        index = BM25()
        ids = [str(r["metadata"]["dia_id"]) for r in conv.records]  # type: ignore[index]
        for record in conv.records:
            index.add(str(record["content"]))
        for question in conv.questions:
            hits = [ids[i] for i, _ in index.top(question.text, max(evaluation.KS))]
            scores.append(evaluation._scores(question.evidence, hits))
    return evaluation._mean(scores)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", type=Path, help="a REALTALK checkout")
    parser.add_argument("--locomo", type=Path, help="a LoCoMo-format file instead")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--floor-only", action="store_true")
    parser.add_argument("--write", type=Path)
    args = parser.parse_args(argv)
    if args.locomo:
        conversations = evaluation.load_locomo(args.locomo)
    else:
        if args.root is None:
            parser.error("give a REALTALK checkout or --locomo FILE")
        data = load_realtalk(args.root)
        path = args.write or Path("/tmp/realtalk-locomo.json")
        path.write_text(json.dumps(data), encoding="utf-8")
        conversations = evaluation.load_locomo(path)
    out: dict[str, Any] = {"bm25": bm25_floor(conversations)}
    if not args.floor_only:
        report = evaluation.evaluate(conversations)
        out["hindsight"] = {**report.overall, "by_category": report.by_category}
    out["questions"] = sum(len(c.questions) for c in conversations)
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"{out['questions']} questions")
    for name in ("bm25", "hindsight"):
        if name in out:
            row = out[name]
            print(f"{name:10} " + "  ".join(f"@{k} {row[f'recall@{k}']:.4f}" for k in (5, 10, 25)))


if __name__ == "__main__":
    main()
