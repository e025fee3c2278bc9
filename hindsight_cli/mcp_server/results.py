"""What each tool answers: the text the model reads, within the call's token budget, and the compact
structured result beside it.

The SDK would otherwise send the JSON of the structured result as the text: for a search, every
field of every hit (hashes, idempotency keys) at about ten times the context block's size. Here the
text of a search is the context block the core builds and one line of the hits' ids, which the core
fitted inside ``budget_tokens`` together (``SearchQuery.listed``, ``search.budget``); a write
answers with a one-line confirmation. Tokens are counted the way the product counts them everywhere
(``text.estimate_tokens``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import fields as dataclass_fields
from typing import Any

from ..models import ForgetResult, Memory, SearchResult, SummaryResult, WriteResult
from ..search.budget import listed
from ..text import estimate_tokens

# tokens, when a search names no budget_tokens (what the instructions suggest)
SEARCH_BUDGET = 400
# memory_summarize and memory_consolidate
TEXT_BUDGET = 400
# memory_get: one memory, and one may hold 16 KiB
GET_BUDGET = 1000
# the recent-memories resource: the JSON of the newest memories
RECENT_BUDGET = 2000
INTERNAL_FIELDS = ("content_hash", "idempotency_key")
MEMORY_FIELDS = tuple(f.name for f in dataclass_fields(Memory))
HIT_FIELDS = (*MEMORY_FIELDS, "score", "matched")
_CUT = " … [cut at budget_tokens]"


def clip(text: str, budget: int, marker: str | None = None) -> str:
    """``text``, cut at the end (with a note saying so, ``marker``) to fit ``budget`` tokens."""
    if estimate_tokens(text) <= budget:
        return text
    if marker is None:
        marker = _CUT if estimate_tokens(_CUT) < budget else ""
    low, high = 0, len(text)
    # the longest prefix that fits with the marker
    while low < high:
        middle = (low + high + 1) // 2
        if estimate_tokens(text[:middle] + marker) <= budget:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + marker


def hit_fields(
    data: dict[str, object], fields: Sequence[str] | None, verbose: bool
) -> dict[str, object]:
    """A hit's structured fields: everything (``verbose``), the ones asked for (id and content
    always), or by default every field but the internal ones."""
    if verbose:
        return data
    if fields:
        return {k: v for k, v in data.items() if k in ("id", "content") or k in fields}
    return {k: v for k, v in data.items() if k not in INTERNAL_FIELDS}


def search(
    result: SearchResult, fields: Sequence[str] | None = None, verbose: bool = False
) -> tuple[str, dict[str, object]]:
    """A search's text and its structured hits. The core fitted the hits to the budget together
    with their ids (``SearchQuery.listed``); when none fits, the text is the block's header, cut to
    the budget if even that is over it."""
    hits = [hit_fields(hit.to_dict(), fields, verbose) for hit in result.hits]
    ids = [hit.memory.id for hit in result.hits]
    if ids:
        text = listed(result.context, ids, result.dropped_for_budget)
    else:
        text = clip(result.context, result.budget) if result.budget else result.context
    return text, {
        "hits": hits,
        "context": result.context,
        "tokens": result.tokens,
        "dropped_for_budget": result.dropped_for_budget,
    }


def write(result: WriteResult, verbose: bool = False) -> tuple[str, dict[str, object]]:
    """One line: what was stored under which id, what it replaced (and what changed), what was
    redacted."""
    memory = result.memory
    superseded = list(result.superseded)
    text = (
        f"Already stored as {memory.id} (deduplicated)."
        if result.deduplicated
        else f"Recorded {memory.id}."
    )
    if result.updated:
        text = (
            f"Updated: {result.change}. {memory.id} is the new version of "
            f"{', '.join(superseded)}, which stays as history."
        )
    elif superseded:
        text += f" It replaces {', '.join(superseded)}" + (
            f' ({result.change}; [write] on_change = "keep_both" keeps both).'
            if result.change
            else "."
        )
    elif result.beside:
        text += (
            f" Kept both ({result.change}): write it with supersedes={result.beside} if it "
            f"replaces {result.beside}."
        )
    if result.parts:
        text += (
            f" The text is over the size limit: stored in {len(result.parts)} linked parts "
            f"({', '.join(result.parts)}), in order; memory_get reads each."
        )
    if result.redactions:
        text += f" {result.redactions} secret(s) redacted."
    structured: dict[str, object] = {
        "id": memory.id,
        "deduplicated": result.deduplicated,
        "superseded": superseded,
        "redactions": result.redactions,
    }
    if result.change:
        structured["change"] = result.change
    if result.updated:
        structured["updated"] = True
    if result.beside:
        structured["kept_beside"] = result.beside
    if result.parts:
        structured["parts"] = list(result.parts)
    if verbose:
        structured["memory"] = memory.to_dict()
    return text, structured


def _facts(memory: Memory) -> str:
    """The memory's identifying fields on one line, the empty ones left out."""
    shown: list[str] = [
        memory.id,
        memory.type,
        memory.outcome,
        (memory.event_at or memory.created_at)[:19],
    ]
    for name in (
        "agent_id",
        "task_id",
        "step",
        "trigger",
        "source",
        "status",
        "supersedes",
        "superseded_by",
        "valid_until",
        "expires_at",
    ):
        value = getattr(memory, name)
        if value not in (None, ""):
            shown.append(f"{name} {value}")
    for name in ("tags", "source_ids"):
        if getattr(memory, name):
            shown.append(f"{name} {', '.join(getattr(memory, name))}")
    return " · ".join(shown)


def _label(memory: Memory) -> str:
    """The trust label an untrusted (or quarantined) memory carries wherever a model reads it, as
    in a search's block (``[from web, untrusted]``), and a space; "" for a trusted one."""
    return _label_of(memory.source, memory.tags, memory.metadata)


def _label_of(source: object, tags: object, metadata: object) -> str:
    from ..poisoning import is_quarantined, trust_label

    label = trust_label(
        source if isinstance(source, str) else None,
        is_quarantined(
            tags if isinstance(tags, list) else None,
            metadata if isinstance(metadata, dict) else None,
        ),
    )
    return f"{label} " if label else ""


def memory_text(memory: Memory) -> str:
    """A memory for reading: its trust label and facts, then its content and fix as they were
    written."""
    text = f"{_label(memory)}{_facts(memory)}\n{memory.content}"
    return text + (f"\nfix: {memory.resolution}" if memory.resolution else "")


def get(memory: Memory, budget: int) -> str:
    """The memory's trust label, facts, content and fix within ``budget``. When they do not fit,
    the content is what counts: the facts line gives way first (to the id alone, then its last 8
    characters), so a small budget still reads the start of the text, never only a header. The
    label never gives way (a few tokens over the tightest budget): another principal's or a web
    page's text is never read as if nothing said where it came from."""
    text = memory_text(memory)
    if estimate_tokens(text) <= budget:
        return text
    label = _label(memory)
    body = memory.content + (f"\nfix: {memory.resolution}" if memory.resolution else "")
    room = budget - estimate_tokens(label) if label else budget
    head = label + next(
        (
            line
            for line, share in ((_facts(memory), 3), (memory.id, 2), (memory.id[-8:], 1))
            if estimate_tokens(line) * share <= room
        ),
        "",
    )
    head = head.rstrip()
    room = budget - (estimate_tokens(head + "\n") if head else 0)
    # the long note would take what little room there is from the text itself
    marker = None if room >= 4 * estimate_tokens(_CUT) else " …"
    return (head + "\n" if head else "") + clip(body, max(room, 0), marker)


def memory_json(memory: Memory, budget: int) -> dict[str, object]:
    """The memory's fields (and an untrusted one's ``label``), its content and resolution cut so
    that its JSON fits ``budget`` tokens when it can."""
    # an untrusted memory says so, as in a search's block (a trusted one adds nothing)
    label = _label(memory).strip()
    data = {**memory.to_dict(), **({"label": label} if label else {})}
    for name in ("content", "resolution"):
        value = data.get(name)
        over = estimate_tokens(json.dumps(data, ensure_ascii=False)) - budget
        # JSON escapes make the text's share a little more than its own count
        while over > 0 and isinstance(value, str) and len(value) > 4:
            value = clip(value, max(estimate_tokens(value) - over, 4), " …")
            data[name] = value
            over = estimate_tokens(json.dumps(data, ensure_ascii=False)) - budget
            if estimate_tokens(value) <= 4:
                break
    return data


def recent_json(memories: Sequence[Memory], budget: int) -> list[dict[str, object]]:
    """The newest memories first, as many as fit ``budget`` tokens of JSON, each cut to a fair
    share of it (a long one never crowds out the rest); at least the newest one."""
    shown: list[dict[str, object]] = []
    for count in range(len(memories), 0, -1):
        share = budget // count
        shown = [memory_json(m, share) for m in memories[:count]]
        if estimate_tokens(json.dumps(shown, ensure_ascii=False)) <= budget:
            return shown
    return shown


def summary(result: SummaryResult, method: str, budget: int) -> str:
    state = "updated" if result.updated else "written"
    parts = f"; parts {' '.join(result.parts)}" if result.parts else ""
    noun = "memory" if result.sources == 1 else "memories"
    head = (
        f"{_label(result.memory)}Summary {result.memory.id} of {result.sources} {noun} {state} "
        f"({method}){parts}:"
    )
    return clip(f"{head}\n{result.memory.content}", budget)


def consolidation(result: dict[str, Any], budget: int) -> str:
    """Counts first, then one line per pattern, cut at the budget."""
    plan = " (dry run: nothing written)" if result["dry_run"] else ""
    lines = [
        f"Scanned {result['scanned']} episodes: {result['created']} new, {result['updated']} "
        f"updated, "
        f"{result['unchanged']} unchanged patterns{plan}."
    ]
    for pattern in result["patterns"]:
        fix = f" — fix: {pattern['resolution']}" if pattern.get("resolution") else ""
        label = _label_of(pattern.get("source"), pattern.get("tags"), pattern.get("metadata"))
        lines.append(
            f"- {pattern['action']} {pattern['id'] or '(new)'}: {label}{pattern['content']}{fix} "
            f"({len(pattern['evidence_ids'])} episodes)"
        )
    return clip("\n".join(lines), budget)


def forget(result: ForgetResult) -> str:
    how = (
        "archived (search with include_archived=true)"
        if result.archived
        else "deleted for good"
        if result.hard
        else "hidden from search (restorable)"
    )
    noun = "memory" if result.forgotten == 1 else "memories"
    return (
        f"Forgot {result.forgotten} {noun}: {how}."
        if result.forgotten
        else "Nothing matched; nothing forgotten."
    )
