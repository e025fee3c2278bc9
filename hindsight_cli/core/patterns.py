"""Consolidation without an LLM: groups of similar episodes become one semantic "pattern" memory.

Pure functions over ledger rows: ``groups`` finds the groups (star clustering on the stored vectors:
every member is similar to the group's centre, so a chain of loosely related episodes never forms
one group), ``pattern`` writes the pattern's text, outcome, fix and a confidence from the evidence.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ..errors import InvalidInput
from ..storage.rows import MemoryRow
from .extractive import clip

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# pairs of similar episodes ``groups`` holds at most (4 bytes each: 256 MiB), about 8,000 episodes
# that are all alike; a store's usual episodes are alike in small groups, far below it
MAX_PAIRS = 1 << 26


@dataclass
class Pattern:
    """What one group of episodes says, ready to be written as a semantic memory."""

    content: str
    outcome: str
    resolution: str | None
    confidence: float
    # occurrences, counting merged repeats (seen_count)
    evidence: int
    # share of the episodes that agree with the pattern's outcome (and fix)
    agreement: float
    outcomes: dict[str, int]
    source_ids: list[str]
    # when the latest episode happened
    last_at: datetime | None = None


def groups(
    rows: Sequence[MemoryRow], similarity: float, block: int = 1024, pairs: int | None = None
) -> list[list[int]]:
    """Indices of ``rows`` grouped by cosine similarity of their vectors (each group's first index
    is its centre). Rows without a vector, and rows like nothing else, are left out.

    Raises:
        InvalidInput: more than ``pairs`` (``MAX_PAIRS``) pairs of the rows are that similar:
            what would be held to group them grows with the square of the rows (6,000
            near-identical episodes held 4.4 GB in sets, 12,000 four times that; anyone who can
            write memories can write those, and ``memory_consolidate`` runs in a shared server).
    """
    import numpy as np

    budget = MAX_PAIRS if pairs is None else pairs
    usable = [i for i, r in enumerate(rows) if r.embedding is not None]
    if len(usable) < 2:
        return []
    matrix = np.stack([np.asarray(rows[i].embedding, dtype=np.float32) for i in usable])
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    # each row's neighbours as 4-byte indices (a set held about 50 bytes an entry)
    neighbours: list[Any] = [None] * len(usable)
    held = 0
    # blocks keep the similarities' memory flat at any store size
    for start in range(0, len(usable), block):
        sims = matrix[start : start + block] @ matrix.T
        for offset, row in enumerate(sims):
            here = start + offset
            near = np.nonzero(row >= similarity)[0].astype(np.int32)
            neighbours[here] = near[near != here]
            held += len(neighbours[here])
            if held > budget:
                raise InvalidInput(
                    f"{len(usable):,} episodes are too alike to group at once: more than "
                    f"{budget:,} pairs of them are at least {similarity} similar. Consolidate "
                    "with a higher --similarity, or per agent (--agent)."
                )
    import heapq

    assigned = np.zeros(len(usable), dtype=bool)
    out: list[list[int]] = []
    # Lazy greedy: the candidate centre with the most unassigned neighbours goes first. A heap holds
    # each memory's last known count; a popped entry is recounted and goes back if it has gone
    # stale.
    heap = [(-len(near), i) for i, near in enumerate(neighbours) if len(near)]
    heapq.heapify(heap)
    while heap:
        _, best = heapq.heappop(heap)
        if assigned[best]:
            continue
        near = neighbours[best]
        members = near[~assigned[near]]
        if not len(members):
            continue
        # counts only fall: the stale keys are upper bounds
        if heap and len(members) < -heap[0][0]:
            heapq.heappush(heap, (-len(members), best))
            continue
        assigned[best] = True
        assigned[members] = True
        out.append(
            [usable[best]]
            + sorted((usable[int(j)] for j in members), key=lambda k: rows[k].event_at)
        )
    return out


def _norm(text: str | None) -> str:
    return " ".join((text or "").lower().split()).rstrip(".")


def pattern(rows: Sequence[MemoryRow], max_chars: int = 600) -> Pattern:
    """The pattern a group of episodes shows. ``rows[0]`` is the group's centre.

    Confidence grows with the evidence (0.6 for two occurrences, +0.1 each, at most 0.95) and is
    scaled by agreement: conflicting outcomes, or failures fixed different ways, lower it.
    """

    # Every count is of occurrences (a merged repeat counts as often as it was seen), so the figures
    # in the text agree with each other and with "seen N times".
    def seen(row: MemoryRow) -> int:
        return int(row.seen_count or 1)

    evidence = sum(seen(r) for r in rows)
    outcomes: Counter[str] = Counter()
    fixes: Counter[str] = Counter()
    for row in rows:
        outcomes[row.outcome] += seen(row)
    failures = [r for r in rows if r.outcome == "failure"]
    for row in failures:
        if row.resolution:
            fixes[_norm(row.resolution)] += seen(row)
    fix_text = None
    if fixes:
        top = fixes.most_common(1)[0][0]
        fix_text = next(r.resolution for r in failures if _norm(r.resolution) == top)
    majority = outcomes.most_common(1)[0][0]
    if majority == "failure" and fix_text:
        # the fix worked on a later try
        agreeing = fixes[_norm(fix_text)] + outcomes.get("success", 0)
    else:
        agreeing = outcomes[majority]
    agreement = agreeing / evidence
    confidence = round(min(0.95, 0.5 + 0.1 * (evidence - 1)) * agreement, 3)
    first, last = min(r.event_at for r in rows), max(r.event_at for r in rows)
    span = first.strftime("%Y-%m-%d") + (
        "" if last.date() == first.date() else f" to {last.strftime('%Y-%m-%d')}"
    )
    kind = "Recurring failure" if majority == "failure" else "Recurring"
    lines = [f"{kind} (seen {evidence} times, {span}): {clip(rows[0].content, 300)}"]
    if fix_text:
        worked = fixes.most_common(1)[0][1]
        lines.append(
            f"What fixed it ({worked} of {outcomes['failure']} failures): {clip(fix_text, 200)}"
        )
    others = [f for f, _ in fixes.most_common()[1:3]]
    if others:
        lines.append(
            "Also tried: "
            + "; ".join(
                clip(next(str(r.resolution) for r in failures if _norm(r.resolution) == f), 80)
                for f in others
            )
        )
    if len(outcomes) > 1:
        lines.append("Outcomes: " + ", ".join(f"{n} {o}" for o, n in outcomes.most_common()))
    tasks = sorted({r.task_id for r in rows if r.task_id})
    if tasks:
        lines.append(
            "Tasks: "
            + ", ".join(tasks[:5])
            + (f" and {len(tasks) - 5} more" if len(tasks) > 5 else "")
        )
    content = "\n".join(lines)
    if len(content) > max_chars:
        content = content[: max_chars - 1] + "…"
    return Pattern(
        content,
        majority,
        fix_text if majority == "failure" else None,
        confidence,
        evidence,
        round(agreement, 3),
        dict(outcomes),
        [r.id for r in rows],
        last,
    )
