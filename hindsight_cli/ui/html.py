"""HTML for the web UI, built from templates whose every value is escaped.

Memory text is untrusted (an agent or a web page wrote it), so nothing reaches a page unescaped:
``H(template, *values)`` fills ``{}`` with each value escaped, unless the value is already ``Html``
(a fragment built the same way). URLs are built here from quoted parts, never from stored text.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from urllib.parse import quote, urlencode


class Html(str):
    """A fragment that is safe to insert as it is (built by ``H`` or ``join``)."""

    __slots__ = ()


def esc(value: object) -> str:
    """``value`` as text an HTML page shows literally (quotes too, for attributes)."""
    if isinstance(value, Html):
        return value
    return html.escape("" if value is None else str(value), quote=True)


def H(template: str, *values: object) -> Html:  # noqa: N802 (reads as a tag)
    """``template`` with each ``{}`` filled by a value, escaped unless it is ``Html``."""
    return Html(template.format(*(esc(v) for v in values)))


def join(parts: Iterable[Html], sep: str = "") -> Html:
    return Html(sep.join(esc(p) for p in parts))


def url(path: str, params: Mapping[str, object] | None = None) -> str:
    """A same-site URL: ``path`` (its segments quoted by the caller with ``segment``) and the
    non-empty ``params``."""
    kept = {k: str(v) for k, v in (params or {}).items() if v not in (None, "", False)}
    return path + ("?" + urlencode(kept) if kept else "")


def segment(value: str) -> str:
    """One path segment (a memory id), quoted so it cannot leave its place in the path."""
    return quote(value, safe="")


def link(href: str, text: object, cls: str = "") -> Html:
    return H('<a href="{}"{}>{}</a>', href, Html(f' class="{esc(cls)}"' if cls else ""), text)


def csrf_field(token: str) -> Html:
    return H('<input type="hidden" name="csrf" value="{}">', token)


NAV = (("/", "Browse"), ("/search", "Search"), ("/timeline", "Timeline"), ("/stats", "Stats"))


def page(title: str, body: Html, *, here: str, store: Html, status: int = 200) -> tuple[str, int]:
    """A whole page: the header (store switcher, navigation), ``body``, the script file."""
    nav = join(
        H('<a href="{}"{}>{}</a>', href, Html(' aria-current="page"' if href == here else ""), name)
        for href, name in NAV
    )
    text = H(
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<title>{} · hindsight</title><link rel="stylesheet" href="/static/ui.css">'
        '<script src="/static/ui.js" defer></script></head><body>'
        '<header><strong class="brand">hindsight</strong><nav>{}</nav>{}</header>'
        "<main><h1>{}</h1>{}</main></body></html>",
        title,
        nav,
        store,
        title,
        body,
    )
    return text, status


def table(head: Iterable[object], rows: Iterable[Iterable[object]], cls: str = "") -> Html:
    """A table whose cells are escaped values (or ``Html``)."""
    head_html = join(H("<th>{}</th>", h) for h in head)
    body = join(H("<tr>{}</tr>", join(H("<td>{}</td>", c) for c in row)) for row in rows)
    return H(
        '<div class="scroll"><table class="{}"><thead><tr>{}</tr></thead><tbody>{}</tbody>'
        "</table></div>",
        cls,
        head_html,
        body,
    )


def options(values: Iterable[str], chosen: str | None, blank: str | None = "any") -> Html:
    items = [H('<option value="">{}</option>', blank)] if blank is not None else []
    items += [
        H('<option value="{}"{}>{}</option>', v, Html(" selected" if v == chosen else ""), v)
        for v in values
    ]
    return join(items)


def bars(values: Mapping[str, float], width: int = 240) -> Html:
    """Horizontal bars as inline SVG (no script, no style attribute): one row per value, negative
    values drawn to the left of the axis."""
    if not values:
        return Html("")
    top = max(abs(v) for v in values.values()) or 1.0
    half, row = width // 2, 18
    rects = []
    for i, (name, value) in enumerate(values.items()):
        size = abs(value) / top * (half - 4)
        x = half if value >= 0 else half - size
        rects.append(
            H(
                '<g><title>{}: {}</title><rect class="{}" x="{}" y="{}" width="{}" height="12"/>'
                '<text x="{}" y="{}">{} {}</text></g>',
                name,
                f"{value:+.4f}",
                "pos" if value >= 0 else "neg",
                f"{x:.1f}",
                i * row + 3,
                f"{size:.1f}",
                width + 6,
                i * row + 13,
                name,
                f"{value:+.3f}",
            )
        )
    return H(
        '<svg class="bars" role="img" viewBox="0 0 {} {}" width="{}" height="{}">'
        '<line x1="{}" x2="{}" y1="0" y2="{}"/>{}</svg>',
        width + 200,
        len(values) * row + 4,
        width + 200,
        len(values) * row + 4,
        half,
        half,
        len(values) * row + 4,
        join(rects),
    )


def columns(points: list[tuple[str, int]], height: int = 80) -> Html:
    """A small column chart as inline SVG: one column per (label, count), oldest first."""
    if not points:
        return Html('<p class="muted">Nothing yet.</p>')
    top = max(n for _, n in points) or 1
    step = max(4, min(24, 600 // len(points)))
    cols = join(
        H(
            '<g><title>{}: {}</title><rect x="{}" y="{}" width="{}" height="{}"/></g>',
            day,
            n,
            i * step,
            f"{height - n / top * height:.1f}",
            step - 1,
            f"{n / top * height:.1f}",
        )
        for i, (day, n) in enumerate(points)
    )
    return H(
        '<svg class="cols" role="img" viewBox="0 0 {} {}" width="{}" height="{}">{}</svg>'
        '<p class="muted">{} to {}, most in a day: {}</p>',
        len(points) * step,
        height,
        len(points) * step,
        height,
        cols,
        points[0][0],
        points[-1][0],
        top,
    )
