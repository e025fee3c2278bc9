"""The timeline: days, then the tasks and sessions of a day (a hook records a session as its task),
then their memories in the order they happened."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from ..errors import MemoryNotFound
from ..models import Filters, Memory
from ..search.budget import context_line
from ..store import Store
from .browse import memory_link, snippet
from .html import H, Html, join, link, url
from .memory_page import memory_ref

# days listed on the timeline's first page, newest first
DAYS_SHOWN = 90
# memories shown for one day
DAY_LIMIT = 2000


def injections(store: Store, session: str) -> list[tuple[str, str, list[str], int, str, str]]:
    """What was injected into ``session`` (the hooks, an MCP search, the recall prompt), from the
    store's injection record: (time, event, memory ids, tokens, what a cap skipped or the budget
    left out, the block's lines). The record keeps ids, never text: the lines are the memories' as
    the store holds them now (one purged since is gone from the record too)."""
    entries, _ = store.injections(session=session)
    out = []
    for entry in entries:
        note = (
            f"skipped: {entry.skipped}"
            if entry.skipped
            else f"{entry.left_out} left out for the budget"
            if entry.left_out
            else ""
        )
        lines = []
        for memory_id in entry.ids:
            try:
                lines.append(context_line(store.get(memory_id), store=store.origin))
            except MemoryNotFound:
                continue
        out.append((entry.at[11:19], entry.event, entry.ids, entry.tokens, note, "\n".join(lines)))
    return out


def _count(n: int) -> str:
    return "1 memory" if n == 1 else f"{n:,} memories"


def render(store: Store, params: Mapping[str, str]) -> tuple[str, Html]:
    day = params.get("day", "")
    try:
        start = datetime.strptime(day, "%Y-%m-%d") if day else None
    except ValueError:
        start = None
    if start is None:
        return "Timeline", _days(store)
    return f"Timeline · {day}", _day(store, start)


def _days(store: Store) -> Html:
    days = list(reversed(store.per_day()))[:DAYS_SHOWN]
    if not days:
        return H('<p class="muted">No memories yet.</p>')
    return H(
        '<ul class="days" id="days">{}</ul>',
        join(
            H("<li>{} · {}</li>", link(url("/timeline", {"day": d}), d), _count(n)) for d, n in days
        ),
    )


def _day(store: Store, start: datetime) -> Html:
    memories = store.list(
        Filters(
            since=start,
            until=start + timedelta(days=1) - timedelta(microseconds=1),
            statuses=None,
            include_expired=True,
        ),
        limit=DAY_LIMIT,
        oldest_first=True,
    )
    groups: dict[str, list[Memory]] = {}
    for memory in sorted(memories, key=lambda m: (m.event_at, m.id)):
        groups.setdefault(memory.task_id or "", []).append(memory)
    back = link("/timeline", "← every day")
    if not groups:
        return H('<p>{}</p><p class="muted">Nothing happened that day.</p>', back)
    return H("<p>{}</p>{}", back, join(_group(store, task, ms) for task, ms in groups.items()))


def _group(store: Store, task: str, memories: list[Memory]) -> Html:
    title = H("task / session {}", task) if task else H("without a task")
    sent = injections(store, task) if task and not store.scope.agent else []
    injected = join(
        H(
            '<details class="injected"><summary><time>{}</time> injected ({}) {} · {} tokens {}'
            "</summary><pre>{}</pre></details>",
            at,
            event,
            join(H("{} ", memory_ref(i)) for i in ids) if ids else H("nothing"),
            n,
            H('<span class="muted">{}</span>', note) if note else Html(""),
            block,
        )
        for at, event, ids, n, note, block in sent
    )
    rows = join(
        H(
            '<li><time>{}</time> {} <span class="muted">{} · {} · {}</span> {}</li>',
            m.event_at[11:19],
            memory_link(m),
            m.trigger or m.type,
            m.outcome,
            m.source,
            snippet(m.content, 120),
        )
        for m in memories
    )
    browse = link(url("/", {"task": task}), "browse") if task else Html("")
    return H(
        '<section class="session"><h2>{} <small>{} memories {}</small></h2>{}<ol>{}</ol></section>',
        title,
        len(memories),
        browse,
        injected,
        rows,
    )
