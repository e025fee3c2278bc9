"""The memory an exchange makes: one episodic record per exchange, in the shape ``import_records``
takes."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NotRequired, TypeAlias, TypedDict

from ..models import JSONObject, JSONValue
from ..text import MAX_LABEL
from .exchange import SHOWN_CALLS, Call, Exchange, clip, key, memory_id

if TYPE_CHECKING:
    from ..models import ImportResult
    from ..store import Store

# A memory's fields, as ``Store.import_records`` takes them (and ``hindsight export`` writes them).
Record: TypeAlias = JSONObject


class ExchangeRecord(TypedDict):
    """The record an exchange makes (``to_record``)."""

    id: str
    key: str
    content: str
    type: str
    task_id: str
    step: int
    event_at: JSONValue
    trigger: str
    outcome: str
    source: str
    tags: list[str]
    metadata: JSONObject
    agent_id: NotRequired[str]
    # a failure's fix, found later in the session
    resolution: NotRequired[str]


# bytes kept free under the store's limit: cleaning may not shrink text, redaction may grow it
_MARGIN = 256


def call_line(made: Call) -> str:
    """``tool: args → status``, with the error (or the fetched content) as a digest."""
    status = {True: "ok", False: "error", None: "no result"}[made.ok]
    line = f"- {made.tool}: {made.args or '(no arguments)'} → {status}"
    if made.error:
        line += f": {made.error}"
    elif made.web:
        line += f": {made.web}"
    return " ".join(line.split()) if len(line) < 2000 else clip(" ".join(line.split()), 2000)


def content(exchange: Exchange, max_bytes: int) -> str:
    """The memory text: the prompt, the answer and the tool calls, within ``max_bytes`` of UTF-8."""
    shown = [c for c in exchange.calls if c.ok is False or c.web][:SHOWN_CALLS]
    shown += [c for c in exchange.calls if c not in shown][: max(0, SHOWN_CALLS - len(shown))]
    order = {id(c): i for i, c in enumerate(exchange.calls)}
    tools = [call_line(c) for c in sorted(shown, key=lambda c: order[id(c)])]
    if len(exchange.calls) > len(shown):
        tools.append(f"- … and {len(exchange.calls) - len(shown)} more calls")
    prompt, answer = exchange.prompt, exchange.answer
    budget = max(1024, max_bytes - _MARGIN)
    while True:
        # Not "User:"/"Assistant:": in text holding tool output those lines read as a forged
        # conversation.
        parts = [f"Prompt: {prompt}"]
        if answer:
            parts.append(f"Answer: {answer}")
        if tools:
            parts.append(f"Tools ({len(exchange.calls)}):\n" + "\n".join(tools))
        text = "\n\n".join(parts)
        size = len(text.encode("utf-8"))
        if size <= budget:
            return text
        # Over the limit: give up tool lines first, then halve the longest text, until it fits.
        if len(tools) > 4:
            tools = tools[: len(tools) // 2] + [
                f"- … and {len(exchange.calls) - len(tools) // 2} more calls"
            ]
        elif len(answer) >= len(prompt) and answer:
            # "" when it is one unbroken run: never cut inside one
            answer = clip(answer, len(answer) // 2)
        elif prompt:
            prompt = clip(prompt, len(prompt) // 2)
        else:
            tools = [clip(t, len(t) // 2) for t in tools[:1]]


def source(exchange: Exchange) -> str:
    """Who the text is from, for trust: fetched web content and tool output are untrusted."""
    if any(c.web for c in exchange.calls):
        return "web"
    if any(c.error for c in exchange.calls):
        return "tool"
    return "agent"


def _labelled(value: object) -> JSONValue:
    """A session's value (its title, model, branch) as each of its exchanges' memories holds it: at
    most a label's length, and no list or object. A conversation's title of a megabyte was stored,
    redacted and read back with each of its thousands of exchanges (a 291 KB ChatGPT export took
    65 s; review Q9)."""
    if isinstance(value, str):
        return clip(value, MAX_LABEL) if len(value) > MAX_LABEL else value
    return value if isinstance(value, (int, float, bool)) else None


def exchange_key(client: str, exchange: Exchange) -> str:
    return key(client, exchange.session, exchange.anchor)


def to_record(
    exchange: Exchange,
    *,
    client: str,
    agent: str | None,
    max_bytes: int,
    tag: str = "mined",
    meta: JSONObject | None = None,
) -> ExchangeRecord:
    """The record for ``import_records``: deterministic ``id`` and ``key``, so a rerun adds
    nothing."""
    failed = [c for c in exchange.calls if c.ok is False]
    record_key = exchange_key(client, exchange)
    ctx = exchange.ctx
    metadata: JSONObject = {
        "client": client,
        "session": _labelled(exchange.session),
        "project": _labelled(ctx.get("project")),
        "branch": _labelled(ctx.get("branch")) or None,
        "model": _labelled(ctx.get("model")) or None,
        "file": ctx.get("file"),
        "title": _labelled(ctx.get("title")),
        "turn": exchange.anchor,
        "tools": len(exchange.calls),
        "failed": [{"tool": c.tool, "args": c.args, "error": c.error} for c in failed[:10]],
        **(meta or {}),
    }
    record: ExchangeRecord = {
        "id": memory_id(record_key),
        "key": record_key,
        "content": content(exchange, max_bytes),
        "type": "episodic",
        "task_id": task_of(exchange.session),
        "step": exchange.position,
        "event_at": time_of(exchange.at),
        "trigger": "tool_error" if failed else "exchange",
        "outcome": "failure" if failed else ("success" if exchange.calls else "neutral"),
        "source": source(exchange),
        "tags": [tag, client],
        "metadata": {k: v for k, v in metadata.items() if v not in (None, [], "")},
    }
    if agent:
        record["agent_id"] = agent
    return record


def time_of(value: object) -> str | None:
    """The exchange's time if the store reads it as one (an ISO string, not in the future); anything
    else (an object, a number past any date, text, a time ahead of this clock) is left out rather
    than refusing the exchange."""
    from ..errors import InvalidInput
    from ..timeutil import check_past, now, parse_time

    if not isinstance(value, str) or not value:
        return None
    try:
        check_past(parse_time(value, "event_at"), "event_at", now())
    except (InvalidInput, ValueError, OverflowError):
        return None
    return value


def task_of(session: str) -> str:
    """The session id as a task id, or, when it cannot be one (over 200 characters, several lines),
    a stable name made from it."""
    from ..core.prepare import label
    from ..errors import InvalidInput

    try:
        return label(session, "task") or session
    except InvalidInput:
        return "session-" + hashlib.sha256(session.encode("utf-8", "replace")).hexdigest()[:16]


def import_each(
    store: Store,
    records: Sequence[ExchangeRecord | Record],
    skipped: Callable[[object, str], None],
) -> tuple[ImportResult, int]:
    """A batch into the store, in one write: a record the store refuses (an exchange with an odd
    field) is skipped (``skipped(step, reason)`` says so) and the rest go in together. Returns the
    counts and how many were refused."""
    refused = 0

    def refuse(number: int, reason: str) -> None:
        nonlocal refused
        refused += 1
        skipped(records[number - 1].get("step"), reason)

    return store.import_records(records, refused=refuse), refused
