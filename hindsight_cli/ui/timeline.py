"""The timeline: days, then the tasks and sessions of a day (a hook records a session as its task),
then their memories in the order they happened."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from ..models import Filters, Memory
from ..store import Store
from .browse import memory_link, snippet
from .html import H, Html, join, link, url

# days listed on the timeline's first page, newest first
DAYS_SHOWN = 90
# memories shown for one day
DAY_LIMIT = 2000


def injections(store: Store, session: str) -> list[tuple[str, str, int]]:
    """What the hooks injected into ``session``: (when, the context block as sent, its tokens).

    The store keeps no record of injections yet (issue 36 adds one); until then a session shows
    what the hooks recorded, and this returns nothing."""
    return []


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
    sent = injections(store, task) if task else []
    injected = join(
        H("<details><summary>injected {} · {} tokens</summary><pre>{}</pre></details>", at, n, b)
        for at, b, n in sent
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
