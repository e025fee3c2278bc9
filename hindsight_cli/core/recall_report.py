"""What recall cost and bought (``hindsight stats --recall``), read from the injection record:
injections and tokens by event, what the caps skipped, the use verdicts' shares, the memories that
helped most and those flagged as misleading."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..timeutil import iso
from .injections import Injection, Verdict

# memories listed as having helped most
TOP = 5


# misleading verdicts (with no use since) that flag a memory: the detector's precision is modest
# (docs/benchmarks.md), so one verdict is a hint, two are a pattern
FLAG_AFTER = 2


def flagged(verdicts: Sequence[Verdict]) -> list[str]:
    """Memories judged ``misleading`` (applied, and the same error came back) ``FLAG_AFTER`` times
    since they were last used: out of automatic injection until a use clears them or the record
    forgets the verdicts."""
    misled: Counter[str] = Counter()
    for verdict in verdicts:
        if verdict.verdict == "misleading":
            misled[verdict.memory] += 1
        elif verdict.verdict == "used":
            misled.pop(verdict.memory, None)
    return sorted(m for m, n in misled.items() if n >= FLAG_AFTER)


def report(
    entries: tuple[Sequence[Injection], Sequence[Verdict]], since: datetime | None
) -> dict[str, Any]:
    """What recall cost and bought, from the injection record's ``entries`` (injections and
    verdicts) since ``since``."""
    injections, verdicts = entries
    done = [i for i in injections if not i.skipped]
    skipped = [i for i in injections if i.skipped]
    judged = Counter(v.verdict for v in verdicts)
    total = sum(judged.values())
    used = Counter(v.memory for v in verdicts if v.verdict == "used")
    by_event: dict[str, dict[str, int]] = {}
    for entry in done:
        row = by_event.setdefault(entry.event, {"injections": 0, "tokens": 0, "memories": 0})
        row["injections"] += 1
        row["tokens"] += entry.tokens
        row["memories"] += len(entry.ids)
    latencies = sorted(i.ms for i in done)
    return {
        "since": iso(since),
        "injections": len(done),
        "tokens": sum(i.tokens for i in done),
        "memories_injected": sum(len(i.ids) for i in done),
        "dropped_for_budget": sum(i.left_out for i in done),
        "skipped": len(skipped),
        "skipped_by_reason": dict(Counter(str(i.skipped) for i in skipped)),
        "latency_ms_p50": latencies[len(latencies) // 2] if latencies else None,
        "by_event": by_event,
        "judged": total,
        "verdicts": {name: judged.get(name, 0) for name in ("used", "ignored", "misleading")},
        "shares": {
            name: round(judged.get(name, 0) / total, 3) if total else None
            for name in ("used", "ignored", "misleading")
        },
        "helped_most": [{"id": m, "used": n} for m, n in used.most_common(TOP)],
        "flagged": flagged(verdicts),
    }
