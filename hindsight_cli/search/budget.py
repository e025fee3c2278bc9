"""The context block an agent pastes into its prompt, and the token budget it must fit (DESIGN
§5.5):

    [hindsight: 1 memory, 44 tokens]
    - 2026-11-30 (failure→fixed) [episodic] 调用天气API时返回401 — fix: 刷新token后重试成功

Every face and the hooks build it here, so the block reads the same wherever an agent meets it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..models import Memory, part_position
from ..poisoning import is_quarantined, safe_line, trust_label
from ..text import estimate_tokens


def outcome_label(outcome: str, resolution: str | None) -> str:
    if outcome == "failure":
        return "failure→fixed" if resolution else "failure"
    return outcome if outcome in ("success", "neutral") else ""


def context_line(memory: Memory) -> str:
    """One memory as a line of the context block: date, outcome, type, where it came from when that
    is not trusted, the text and the fix. The text is made one line and cannot forge the block's own
    structure (a header, an entry, a label or a fix), so it reads as data, not as instructions."""
    label = outcome_label(memory.outcome, memory.resolution)
    head = f"- {memory.event_at[:10]}" + (f" ({label})" if label else "") + f" [{memory.type}]"
    trust = trust_label(memory.source, is_quarantined(memory.tags, memory.metadata))
    # every untrusted memory says so where an agent reads it, quarantined or not
    if trust:
        head += f" {trust}"
    position = part_position(memory.metadata)
    # a piece of a longer text: the reader knows there is more
    if position:
        head += f" (part {position[0]} of {position[1]})"
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
        if budget is not None and _cost(lines, line) > budget:
            # The best hit is never dropped for its length (a long memory, a part of a longer text):
            # it is shown cut to what the budget leaves; a later one too long to fit is left out.
            cut = None if kept else _cut(memory, lines, budget)
            if cut is None:
                continue
            line = cut
        kept.append(position)
        lines.append(line)
    tokens = estimate_tokens(context_block(lines, 0))
    tokens = estimate_tokens(context_block(lines, tokens))
    return kept, context_block(lines, tokens), tokens


def listed(block: str, ids: Sequence[str], dropped: int) -> str:
    """The block, then a line of the ids of its memories in order, and how many more the budget
    left out: what an MCP client reads of a search."""
    line = "ids in order: " + " ".join(ids)
    return f"{block}\n{line}" + (f" ({dropped} more left out for the budget)" if dropped else "")


def fit_listed(memories: Sequence[Memory], budget: int) -> tuple[list[int], str, int]:
    """As ``fit_budget``, for a block that is followed by its ids (``listed``): the two together
    stay within ``budget``.

    The block gets the budget minus what the ids line costs; that cost only grows between rounds,
    so the kept memories shrink until block and ids fit. When not even one fits, none is kept.
    """
    reserve = 0
    for _ in range(len(memories) + 2):
        kept, block, tokens = fit_budget(memories, max(budget - reserve, 1))
        if not kept:
            break
        text = listed(block, [memories[i].id for i in kept], len(memories) - len(kept))
        if estimate_tokens(text) <= budget:
            return kept, block, tokens
        reserve = max(reserve + 1, estimate_tokens(text) - tokens)
    return fit_budget([], budget)


# tokens: a cut shorter than this says too little to be worth its place
_MIN_CUT = 40


def _cost(lines: Sequence[str], line: str) -> int:
    # the header's count grows a digit or two
    return estimate_tokens(context_block([*lines, line], 0)) + 2


def _cut(memory: Memory, lines: Sequence[str], budget: int) -> str | None:
    """The memory's line with its text cut (at a word) to what is left of ``budget``, or None when
    under ``_MIN_CUT`` tokens are left for it."""
    if budget - _cost(lines, context_line(replace(memory, content=""))) < _MIN_CUT:
        return None
    low, high = 0, len(memory.content)
    # the longest cut that fits
    while low < high:
        middle = (low + high + 1) // 2
        if (
            _cost(lines, context_line(replace(memory, content=memory.content[:middle] + " …")))
            <= budget
        ):
            low = middle
        else:
            high = middle - 1
    head = memory.content[:low]
    head = head[: head.rfind(" ")] if " " in head[len(head) // 2 :] else head
    return context_line(replace(memory, content=head.rstrip() + " …"))
