"""Extractive summaries without an LLM: the most central, non-redundant sentences of the sources,
plus a structured roll-up of their outcomes and of the errors met and how each was fixed."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..storage.rows import MemoryRow

if TYPE_CHECKING:
    from ..storage.rows import Vectors

_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])|\n+")
_MAX_ITEM = 160
# sentences a summary embeds to find the central ones: a long session's are sampled evenly (its
# centre does not move; a session of an autonomous agent has hundreds of lines, each a model call)
MAX_POOL = 64


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if len(s.strip()) >= 8]


def clip(text: str, limit: int = _MAX_ITEM) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def key_sentences(
    texts: Sequence[str],
    embed: Callable[[list[str]], Vectors],
    limit: int = 3,
    redundancy: float = 0.85,
) -> list[str]:
    """The sentences closest to all the others (centrality), skipping near-repeats of ones already
    picked."""
    # kept unique in a dict: a list's `in` test made each sentence cost as much as all before it (a
    # session of 40 tool outputs of 1,500 sentences took 25 s to summarise, 500 an hour; review Q9)
    pool = list(dict.fromkeys(s for text in texts for s in sentences(text)))
    if len(pool) <= limit:
        return pool
    if len(pool) > MAX_POOL:
        step = len(pool) / MAX_POOL
        pool = [pool[int(i * step)] for i in range(MAX_POOL)]
    vectors = embed(pool)
    similarity = vectors @ vectors.T
    centrality = similarity.mean(axis=1)
    picked: list[int] = []
    for index in sorted(range(len(pool)), key=lambda i: (-centrality[i], i)):
        if all(similarity[index, j] < redundancy for j in picked):
            picked.append(index)
        if len(picked) == limit:
            break
    # in the order things happened
    return [pool[i] for i in sorted(picked)]


def roll_up(rows: Sequence[MemoryRow]) -> tuple[str, list[str]]:
    """One line of outcome counts, and one line per failure with its fix (or 'unresolved')."""
    counts = {"success": 0, "failure": 0, "fixed": 0, "other": 0}
    errors: list[str] = []
    for row in rows:
        outcome = row.outcome
        if outcome == "failure":
            counts["failure"] += 1
            fix = row.resolution
            counts["fixed"] += 1 if fix else 0
            errors.append(f"- {clip(row.content)} → {'fix: ' + clip(fix) if fix else 'unresolved'}")
        elif outcome == "success":
            counts["success"] += 1
        else:
            counts["other"] += 1
    parts = [f"{counts['success']} succeeded"] if counts["success"] else []
    if counts["failure"]:
        parts.append(f"{counts['failure']} failed ({counts['fixed']} fixed)")
    if counts["other"]:
        parts.append(f"{counts['other']} other")
    return ", ".join(parts) or "no outcomes recorded", errors


def compose(
    title: str, rows: Sequence[MemoryRow], embed: Callable[[list[str]], Vectors], max_bytes: int
) -> str:
    """The summary text: title with counts and dates, key points, then errors and fixes."""
    outcomes, errors = roll_up(rows)
    first, last = rows[0].event_at, rows[-1].event_at
    span = (
        f"{first:%Y-%m-%d}"
        if f"{first:%Y-%m-%d}" == f"{last:%Y-%m-%d}"
        else f"{first:%Y-%m-%d} → {last:%Y-%m-%d}"
    )
    noun = "memory" if len(rows) == 1 else "memories"
    lines = [f"{title} ({len(rows)} {noun}, {span}): {outcomes}."]
    points = key_sentences([r.content for r in rows], embed)
    if points:
        lines.append("Key points:")
        lines.extend(f"- {clip(point)}" for point in points)
    if errors:
        lines.append("Errors and fixes:")
        lines.extend(errors)
    text = "\n".join(lines)
    while len(text.encode("utf-8")) > max_bytes and len(lines) > 2:
        # drop the last error lines first; the counts above still report them
        lines.pop()
        text = "\n".join(lines) + "\n- …"
    return text


SAMPLING_SYSTEM = (
    "You write the long-term memory of a software agent. Be exact and brief; never invent facts; "
    "keep tool "
    "names, error messages, versions and commands exactly as given; answer in the memories' "
    "language."
)


def sampling_prompt(
    title: str, rows: Sequence[MemoryRow], max_chars: int = 8000
) -> tuple[str, str]:
    """The (system prompt, prompt) asking a client's LLM for the summary ``compose`` writes without
    one."""
    head = (
        f"{title}. Write it for an agent that reads it before similar work, in at most 8 short "
        f"lines: "
        "what was done, each failure and how it was fixed (or that it is still unresolved), and "
        "what to "
        "do next time. Plain text, no preamble.\n\nMemories, oldest first:"
    )
    lines: list[str] = []
    used = len(head)
    for row in rows:
        outcome = row.outcome if row.outcome != "unknown" else ""
        line = (
            f"- {row.event_at:%Y-%m-%d %H:%M}"
            + (f" [{outcome}]" if outcome else "")
            + f" {clip(row.content, 300)}"
        )
        if row.resolution:
            line += f" (fix: {clip(row.resolution, 160)})"
        if used + len(line) > max_chars:
            lines.append(f"- … and {len(rows) - len(lines)} more")
            break
        lines.append(line)
        used += len(line) + 1
    return SAMPLING_SYSTEM, "\n".join([head, *lines])
