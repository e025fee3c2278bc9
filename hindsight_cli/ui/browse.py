"""The browse page: every memory in a table, filtered, sorted and paged on the server; the URL holds
the filters, so a view can be shared and the back button works."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from ..core.selection import when
from ..models import MEMORY_TYPES, OUTCOMES, STATUSES, Filters, Memory, short_id
from ..poisoning import is_quarantined
from ..safefs.reading import whole_number
from ..storage.base import SORTS
from ..store import Store
from .html import H, Html, join, link, options, segment, table, url

# the filter fields of the form and the URL, in the form's order
FIELDS = ("type", "outcome", "status", "agent", "task", "source", "tag", "since", "until")
PAGE_SIZES = (25, 50, 100, 200)
COLUMNS = (
    ("id", None),
    ("memory", None),
    ("type", "type"),
    ("outcome", "outcome"),
    ("age", "created_at"),
    ("agent", "agent_id"),
    ("task", "task_id"),
    ("source", "source"),
    ("trust", "confidence"),
    ("status", "status"),
)


def filters_from(params: Mapping[str, str]) -> Filters:
    """The hard filters a browse URL names (every status unless one is chosen)."""

    def one(name: str) -> tuple[str, ...] | None:
        value = params.get(name, "").strip()
        return (value,) if value else None

    return Filters(
        agent_ids=one("agent"),
        task_id=params.get("task", "").strip() or None,
        types=one("type"),
        outcomes=one("outcome"),
        tags=one("tag") or (),
        since=when(params.get("since", "").strip() or None, "since"),
        until=when(params.get("until", "").strip() or None, "until"),
        statuses=one("status"),
        include_expired=True,
        sources=one("source"),
    )


def age(stamp: str, now: datetime) -> str:
    """How long ago an ISO time was, in the largest whole unit (``3 d``)."""
    try:
        then = datetime.fromisoformat(stamp.replace("Z", "+00:00")).replace(tzinfo=None)
    except ValueError:
        return stamp
    seconds = max(0, int((now - then).total_seconds()))
    for size, unit in ((86400 * 365, "y"), (86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{seconds // size} {unit}"
    return f"{seconds} s"


def trust(memory: Memory) -> Html:
    mark = H(' <span class="tag warn">quarantined</span>') if quarantined(memory) else Html("")
    return H("{}{}", f"{memory.confidence:.2f}", mark)


def quarantined(memory: Memory) -> bool:
    return is_quarantined(memory.tags, memory.metadata)


def snippet(text: str, size: int = 110) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else flat[: size - 1] + "…"


def memory_link(memory: Memory, text: object | None = None) -> Html:
    return link(f"/m/{segment(memory.id)}", short_id(memory.id) if text is None else text)


def memory_row(memory: Memory, now: datetime, params: Mapping[str, str]) -> list[object]:
    task = (
        link(url("/", {**params, "task": memory.task_id, "o": ""}), memory.task_id)
        if memory.task_id
        else ""
    )
    return [
        memory_link(memory),
        memory_link(memory, snippet(memory.content)),
        memory.type,
        memory.outcome,
        H('<time datetime="{}">{}</time>', memory.created_at, age(memory.created_at, now)),
        memory.agent_id,
        task,
        memory.source,
        trust(memory),
        H('<span class="status {}">{}</span>', memory.status, memory.status),
    ]


def sort_of(params: Mapping[str, str]) -> tuple[str, bool]:
    sort = params.get("sort", "created_at")
    return (sort if sort in SORTS else "created_at"), params.get("dir", "desc") != "asc"


def number(params: Mapping[str, str], name: str, default: int, top: int) -> int:
    value = whole_number(params.get(name, ""))
    return default if value is None else min(value, top)


def render(store: Store, params: Mapping[str, str]) -> Html:
    """The filter form, the table of one page and the links to the others."""
    params = {k: v for k, v in params.items() if k in (*FIELDS, "sort", "dir", "n", "o")}
    sort, descending = sort_of(params)
    size = number(params, "n", 50, PAGE_SIZES[-1]) or 50
    offset = number(params, "o", 0, 10**9)
    page = store.page(
        filters_from(params), sort=sort, descending=descending, limit=size, offset=offset
    )
    now = store.clock()
    heads = [_head(name, column, params, sort, descending) for name, column in COLUMNS]
    rows = [memory_row(m, now, params) for m in page.memories]
    shown = (
        f"{offset + 1}–{offset + len(page.memories)} of {page.total:,}"
        if page.memories
        else f"none of {page.total:,}"
        if offset
        else "No memory matches these filters."
    )
    return H(
        '{}<p class="count" id="count">{}</p>{}{}',
        form(params),
        shown,
        table(heads, rows, "memories") if rows else Html(""),
        _pager(params, offset, size, page.total),
    )


def _head(
    name: str, column: str | None, params: Mapping[str, str], sort: str, descending: bool
) -> Html:
    if column is None:
        return H("{}", name)
    way = "asc" if column == sort and descending else "desc"
    arrow = (" ▼" if descending else " ▲") if column == sort else ""
    return link(url("/", {**params, "sort": column, "dir": way, "o": ""}), name + arrow, "sort")


def _pager(params: Mapping[str, str], offset: int, size: int, total: int) -> Html:
    links = []
    if offset > 0:
        links.append(link(url("/", {**params, "o": max(0, offset - size) or ""}), "← newer page"))
    if offset + size < total:
        links.append(link(url("/", {**params, "o": offset + size}), "next page →"))
    return H('<nav class="pager">{}</nav>', join(links, " "))


def form(params: Mapping[str, str]) -> Html:
    """The filters as a GET form: submitting it is a new URL."""
    choices = {"type": MEMORY_TYPES, "outcome": OUTCOMES, "status": STATUSES}
    fields = []
    for name in FIELDS:
        value = params.get(name, "")
        if name in choices:
            control = H(
                '<select name="{}" id="f-{}">{}</select>',
                name,
                name,
                options(choices[name], value),
            )
        else:
            hint = "YYYY-MM-DD or 7d" if name in ("since", "until") else ""
            control = H(
                '<input name="{}" id="f-{}" value="{}" placeholder="{}">', name, name, value, hint
            )
        fields.append(
            H('<span class="field"><label for="f-{}">{}</label>{}</span>', name, name, control)
        )
    kept = join(
        H('<input type="hidden" name="{}" value="{}">', k, params[k])
        for k in ("sort", "dir", "n")
        if params.get(k)
    )
    return H(
        '<form class="filters" method="get" action="/" id="filters"><div class="fields">{}</div>'
        '{}<button type="submit">Filter</button> {}</form>',
        join(fields),
        kept,
        link("/", "clear"),
    )
