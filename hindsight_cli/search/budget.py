"""The context block an agent pastes into its prompt, and the token budget it must fit (DESIGN
§5.5):

    [hindsight: 2 memories, 71 tokens; 1 more did not fit]
    - 2026-11-30 (failure→fixed) [episodic] 调用天气API时返回401 — fix: 刷新token后重试成功
    - fixed 3 times: [from tool, untrusted] ModuleNotFoundError: No module named 'app' — fix: …

A *lesson* (a failure of a known kind with its fix, ``lessons.signatures``) is one compact line:
the error's line, then the fix; several lessons of the same kind and the same label (``[from tool,
untrusted]``, or none) are one line, "fixed N times", with the best-ranked one's fix. Memories are
taken in rank order while they fit; one that does not fit is cut (never dropped for its length): to
half of what is left while hits wait after it, and the block goes on, so one long memory (a whole
session's prompt) never starves the hits after it; otherwise to what is left, and it ends the
block. A lower hit never takes a higher one's place. The header counts the hits the budget left out
("N more did not fit"), so a block that could show none still says there were some. Every face and
the hooks build it here, so the block reads the same wherever an agent meets it.

A hit's neighbour (the answer after a question, the turn before that says what "it" is) is an
indented line under it, and the two are one entry: kept whole while they fit, else the hit alone
(or with those of its neighbours that fit, the most valuable first):

    [hindsight: 2 memories, 38 tokens]
    - 2026-11-30 [episodic] Which glacier did you hike on the Iceland trip?
      next: Solheimajokull, with crampons and a guide
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..models import Memory, part_position
from ..poisoning import is_quarantined, safe_line, trust_label
from ..text import estimate_tokens


def outcome_label(outcome: str, resolution: str | None) -> str:
    if outcome == "failure":
        return "failure→fixed" if resolution else "failure"
    return outcome if outcome in ("success", "neutral") else ""


def is_lesson(memory: Memory) -> bool:
    """A fixed failure of a known kind (``metadata.signature``)."""
    return (
        memory.outcome == "failure"
        and bool(memory.resolution)
        and bool(memory.metadata.get("signature"))
    )


def lesson_kind(memory: Memory) -> str | None:
    """What groups lessons in a block: the same family and signature, from writers of the same
    label (``trust_label``), of one agent. The line shows the best-ranked lesson's fix under its
    label and counts the rest: a lesson of another provenance grouped into it would lend its count
    to that fix and leave its own fix out of the block (a token principal's, or a page's, lesson of
    the kind of the user's, ranked above it, stood for it: "fixed 3 times: [from token:alice,
    untrusted] … — fix: <hers>", the user's own fix gone)."""
    if not is_lesson(memory):
        return None
    label = trust_label(memory.source, is_quarantined(memory.tags, memory.metadata)) or ""
    # and of one agent: a lesson stands for its own agent's only, as a summary does (review BR)
    kind = f"{memory.metadata.get('family') or ''} | {memory.metadata.get('signature')}"
    return f"{kind} | {label} | {memory.agent_id}"


def lesson_line(memory: Memory, times: int = 1, store: str | None = None) -> str:
    """A lesson as one line: how often it was fixed, where it came from when that is not trusted,
    the error's line, the fix."""
    meta = memory.metadata
    error = str(meta.get("error_line") or meta.get("signature") or "").strip()
    # pytest's "E   " before an assertion's lines
    error = error[2:].lstrip() if error.startswith("E ") else error
    head = "- " + (f"fixed {times} times: " if times > 1 else "")
    trust = trust_label(memory.source, is_quarantined(memory.tags, memory.metadata), store)
    if trust:
        head += f"{trust} "
    return f"{head}{safe_line(error)} — fix: {safe_line(memory.resolution or '')}"


def context_line(memory: Memory, compact: bool = False, store: str | None = None) -> str:
    """One memory as a line of the context block: date, outcome, type, where it came from when that
    is not trusted, the text and the fix. The text is made one line and cannot forge the block's own
    structure (a header, an entry, a label or a fix), so it reads as data, not as instructions.
    ``compact``: without the date and type (a best hit cut to a small budget keeps its words).
    ``store``: a store of unknown origin the memory was read from (``trust_label``)."""
    if is_lesson(memory):
        return lesson_line(memory, store=store)
    return _head(memory, compact, store) + " " + _body(memory)


def _head(memory: Memory, compact: bool = False, store: str | None = None) -> str:
    label = outcome_label(memory.outcome, memory.resolution)
    head = "-" if compact else f"- {memory.event_at[:10]}"
    head += f" ({label})" if label else ""
    head += "" if compact else f" [{memory.type}]"
    trust = trust_label(memory.source, is_quarantined(memory.tags, memory.metadata), store)
    # every untrusted memory says so where an agent reads it, quarantined or not
    if trust:
        head += f" {trust}"
    position = part_position(memory.metadata)
    # a piece of a longer text: the reader knows there is more
    if position:
        head += f" (part {position[0]} of {position[1]})"
    return head


def _body(memory: Memory) -> str:
    line = safe_line(memory.content)
    if memory.resolution:
        line += f" — fix: {safe_line(memory.resolution)}"
    return line


def context_block(lines: Sequence[str], tokens: int, unfit: int = 0) -> str:
    """The header, then the lines; ``unfit``: how many more hits the budget left out, which the
    header says (an agent reading only the block knows there is more)."""
    noun = "memory" if len(lines) == 1 else "memories"
    more = f"; {unfit} more did not fit" if unfit else ""
    return "\n".join([f"[hindsight: {len(lines)} {noun}, {tokens} tokens{more}]", *lines])


def neighbour_line(memory: Memory, side: str, store: str | None = None) -> str:
    """A neighbour as an indented line under the hit it sits beside: ``side`` is "before" (the
    step before the hit) or "next" (the step after), then its outcome and labels and its text; the
    date and type are its hit's."""
    # the entry's own "-" belongs to the hit
    labels = _head(memory, compact=True, store=store)[1:]
    return f"  {side}:{labels} {_body(memory)}"


def _kinds(memories: Sequence[Memory]) -> dict[str, list[int]]:
    kinds: dict[str, list[int]] = {}
    for position, memory in enumerate(memories):
        kind = lesson_kind(memory)
        if kind is not None:
            kinds.setdefault(kind, []).append(position)
    return kinds


def fit_budget(
    memories: Sequence[Memory],
    budget: int | None,
    store: str | None = None,
    groups: Mapping[int, Sequence[tuple[int, str]]] | None = None,
) -> tuple[list[int], str, int]:
    """Pick memories in rank order while the whole formatted block stays within ``budget`` tokens.
    ``store``: a store of unknown origin they were read from, said in every line's label.

    Lessons of one kind make one line (at the first one's place); a memory that does not fit is
    cut: while hits wait after it, to half of what the budget leaves, and the block goes on; else
    (or when half leaves too little for a useful cut) to all it leaves, ending the block; when too
    little is left for a useful cut, it is left out with everything after it. ``groups``: a hit's
    position → its neighbours' positions and sides (``pipeline.grouped``), the most valuable
    first: each neighbour is a line under its hit (``neighbour_line``), its tokens counted with the
    hit's, and the group keeps those that fit with the hit, best first (when the budget is tight,
    the hit alone); a neighbour never shows without its hit. Returns the kept positions (a lesson
    grouped into another's line counts as kept), the
    block, and its token count (header included).
    """
    groups = groups or {}
    kept: list[int] = []
    lines: list[str] = []
    kinds = _kinds(memories)
    # a neighbour shows only in its hit's group
    grouped = {p for members in groups.values() for p, _ in members}
    for position, memory in enumerate(memories):
        if position in grouped:
            continue
        kind = lesson_kind(memory)
        group = kinds.get(kind, [position]) if kind is not None else [position]
        line = (
            lesson_line(memory, len(group), store)
            if kind is not None
            else context_line(memory, store=store)
        )
        chosen = _beside_that_fit(
            line, groups.get(position, ()), memories, lines, {*kept, *group}, budget, store
        )
        if chosen:
            kept.extend([*group, *(p for p, _ in chosen)])
            grouped.update(group)
            lines.extend([line, *(neighbour_line(memories[p], side, store) for p, side in chosen)])
            continue
        # the header's "N more did not fit": the hits after this line, at most
        unfit = len(memories) - len({*kept, *group})
        if budget is not None and _cost(lines, line, unfit) > budget:
            # with hits waiting after it, a cut takes at most half of what is left and the block
            # goes on: one long memory (a whole session's prompt) never starves the hits after it
            waiting = any(
                p not in grouped and p not in group for p in range(position + 1, len(memories))
            )
            room = budget - _cost(lines, "", unfit)
            for limit in ([budget - room // 2] if waiting else []) + [budget]:
                cut = _last(memory, line, lines, limit, bool(kept), kind is not None, unfit, store)
                if cut is not None:
                    break
            if cut is None:
                break
            kept.extend(group)
            grouped.update(group)
            lines.append(cut)
            if limit == budget:
                break
            continue
        kept.extend(group)
        grouped.update(group)
        lines.append(line)
    left = len(memories) - len(set(kept)) if budget is not None else 0
    tokens = estimate_tokens(context_block(lines, 0, left))
    tokens = estimate_tokens(context_block(lines, tokens, left))
    return sorted(kept), context_block(lines, tokens, left), tokens


def _beside_that_fit(
    line: str,
    near: Sequence[tuple[int, str]],
    memories: Sequence[Memory],
    lines: Sequence[str],
    kept: set[int],
    budget: int | None,
    store: str | None,
) -> list[tuple[int, str]]:
    """The neighbours (``near``, the most valuable first) that fit under the hit's ``line`` after
    ``lines``, each tried in turn, in the block's order (by position)."""
    chosen: list[tuple[int, str]] = []
    for member in near:
        trial = sorted([*chosen, member])
        entry = [line, *(neighbour_line(memories[p], side, store) for p, side in trial)]
        # the header's "N more did not fit": the hits after this entry, at most
        unfit = len(memories) - len({*kept, *(p for p, _ in trial)})
        if budget is None or _cost([*lines, *entry[:-1]], entry[-1], unfit) <= budget:
            chosen = trial
    return chosen


def _last(
    memory: Memory,
    line: str,
    lines: Sequence[str],
    budget: int,
    after_others: bool,
    lesson: bool,
    unfit: int,
    store: str | None,
) -> str | None:
    """The line of a memory that does not fit, cut to what ``budget`` leaves, or None."""
    # the best hit is always shown, cut to fit; a later one only if a useful cut fits
    cut = _cut(line, lines, budget, _MIN_CUT if after_others else 0, unfit)
    if (
        not after_others
        and not lesson
        and _words_kept(cut, _head(memory, store=store)) < _MIN_WORDS
    ):
        # too small a budget for the date and type and the words too: the words win
        compact = context_line(memory, compact=True, store=store)
        cut = _cut(compact, lines, budget, 0, unfit) or cut
    return cut


def listed(block: str, ids: Sequence[str], dropped: int) -> str:
    """The block, then a line of the ids of its memories in order: what an MCP client reads of a
    search. (How many more the budget left out, ``dropped``, the block's header says.)"""
    return f"{block}\nids in order: " + " ".join(ids)


def fit_listed(
    memories: Sequence[Memory],
    budget: int,
    store: str | None = None,
    groups: Mapping[int, Sequence[tuple[int, str]]] | None = None,
) -> tuple[list[int], str, int]:
    """As ``fit_budget``, for a block that is followed by its ids (``listed``): the two together
    stay within ``budget``.

    The block gets the budget minus what the ids line costs; that cost only grows between rounds,
    so the kept memories shrink until block and ids fit. When not even one fits, none is kept.
    """
    reserve = 0
    for _ in range(len(memories) + 2):
        kept, block, tokens = fit_budget(memories, max(budget - reserve, 1), store, groups)
        if not kept:
            break
        text = listed(block, [memories[i].id for i in kept], len(memories) - len(kept))
        if estimate_tokens(text) <= budget:
            return kept, block, tokens
        reserve = max(reserve + 1, estimate_tokens(text) - tokens)
    # none fits: the header says how many did not
    tokens = estimate_tokens(context_block([], 0, len(memories)))
    return [], context_block([], tokens, len(memories)), tokens


# tokens of its text a cut best hit keeps, or it drops its date and type for more of them
_MIN_WORDS = 8
# tokens: a cut of a later hit shorter than this says too little to be worth its place
_MIN_CUT = 25
# characters of a cut line always kept (its head: the date and labels, or "- ")
_KEEP_HEAD = 2


def _words_kept(cut: str | None, head: str) -> int:
    return 0 if cut is None else estimate_tokens(cut[len(head) :].removesuffix(" …").strip())


def _cost(lines: Sequence[str], line: str, unfit: int = 0) -> int:
    # the header's count grows a digit or two
    return estimate_tokens(context_block([*lines, line], 0, unfit)) + 2


def _cut(line: str, lines: Sequence[str], budget: int, least: int, unfit: int = 0) -> str | None:
    """``line`` cut (at a word, marked " …") to the longest that fits ``budget`` after ``lines``, or
    None when that leaves under ``least`` tokens of it."""
    room = budget - _cost(lines, "", unfit)
    if room < max(least, 1):
        return None
    low, high = _KEEP_HEAD, len(line)
    while low < high:
        middle = (low + high + 1) // 2
        if _cost(lines, line[:middle] + " …", unfit) <= budget:
            low = middle
        else:
            high = middle - 1
    head = line[:low]
    space = head.rfind(" ")
    if space > max(_KEEP_HEAD, len(head) // 2):
        head = head[:space]
    if estimate_tokens(head) < least:
        return None
    return head.rstrip() + " …"
