"""The context block an agent pastes into its prompt, and the token budget it must fit (DESIGN §5.5):

    [hindsight: 1 memory, 44 tokens]
    - 2026-11-30 (failure→fixed) [episodic] 调用天气API时返回401 — fix: 刷新token后重试成功

Every face and the hooks build it here, so the block reads the same wherever an agent meets it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models import Memory
from ..poisoning import is_quarantined, safe_line, trust_label
from ..text import estimate_tokens


def outcome_label(outcome: str, resolution: str | None) -> str:
    if outcome == "failure":
        return "failure→fixed" if resolution else "failure"
    return outcome if outcome in ("success", "neutral") else ""


def context_line(memory: Memory) -> str:
    """One memory as a line of the context block: date, outcome, type, where it came from when that is not
    trusted, the text and the fix. The text is made one line and cannot forge the block's own structure
    (a header, an entry, a label or a fix), so it reads as data, not as instructions."""
    label = outcome_label(memory.outcome, memory.resolution)
    head = f"- {memory.event_at[:10]}" + (f" ({label})" if label else "") + f" [{memory.type}]"
    trust = trust_label(memory.source, is_quarantined(memory.tags, memory.metadata))
    if trust:  # every untrusted memory says so where an agent reads it, quarantined or not
        head += f" {trust}"
    line = f"{head} {safe_line(memory.content)}"
    if memory.resolution:
        line += f" — fix: {safe_line(memory.resolution)}"
    return line


def context_block(lines: Sequence[str], tokens: int) -> str:
    noun = "memory" if len(lines) == 1 else "memories"
    return "\n".join([f"[hindsight: {len(lines)} {noun}, {tokens} tokens]", *lines])


def fit_budget(memories: Sequence[Memory], budget: int | None) -> tuple[list[int], str, int]:
    """Pick memories in rank order while the whole formatted block stays within ``budget`` tokens.

    Returns the kept positions, the block, and its token count (header included).
    """
    kept: list[int] = []
    lines: list[str] = []
    for position, memory in enumerate(memories):
        line = context_line(memory)
        cost = estimate_tokens(context_block([*lines, line], 0)) + 2  # the header's count grows a digit or two
        if budget is not None and cost > budget:
            continue
        kept.append(position)
        lines.append(line)
    tokens = estimate_tokens(context_block(lines, 0))
    tokens = estimate_tokens(context_block(lines, tokens))
    return kept, context_block(lines, tokens), tokens
