"""The stats page: counts by type, outcome, source, status and agent, memories per day, the
store's size and model; and what ``hindsight doctor store`` says, on a page of its own (it checks
files and the model, which takes a moment)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from ..store import Store
from .html import H, Html, columns, join, link, table


def _counts(title: str, counts: Mapping[str, int]) -> Html:
    rows = [(name, f"{n:,}") for name, n in counts.items()]
    return H(
        '<section class="counts"><h2>{}</h2>{}</section>',
        title,
        table(("", "memories"), rows) if rows else H('<p class="muted">none</p>'),
    )


def _size(n: object) -> str:
    value = float(n) if isinstance(n, (int, float)) else 0.0
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:,.0f} {unit}" if unit == "B" else f"{value:,.1f} {unit}"
        value /= 1024
    return f"{value:,.1f} GB"


def scoped(store: Store, agent: str) -> Html:
    """What one agent's session sees: its own memories per day and their number. The store's
    counts name every agent, and its files and checks are its owner's business."""
    total = store.page(limit=1).total
    return H(
        '<p>{} of {}.</p><h2>Memories per day</h2><div id="per-day">{}</div>'
        '<p class="muted">The whole store\'s counts and checks are shown to its owner, who '
        "starts hindsight ui on its machine.</p>",
        "1 memory" if total == 1 else f"{total:,} memories",
        agent,
        columns(store.per_day()),
    )


def recalls_per_day(store: Store) -> list[tuple[str, int]]:
    """(UTC day, recalls: hook injections, MCP searches, recall prompts) from the injection
    record, oldest day first; caps' skips are not recalls."""
    entries, _ = store.injections()
    days = Counter(e.at[:10] for e in entries if not e.skipped)
    return sorted(days.items())


def render(store: Store) -> Html:
    stats = store.stats()
    facts = [
        ("store", stats.get("store")),
        ("backend", stats.get("backend")),
        ("database", stats.get("database")),
        ("memories", f"{stats.get('memories', 0):,}"),
        ("oldest · newest", f"{stats.get('oldest') or '—'} · {stats.get('newest') or '—'}"),
        ("embedding model", f"{stats.get('embedding_model')} ({stats.get('embedding_dim')}-d)"),
        ("ledger size", _size(stats.get("ledger_bytes"))),
        ("index size", _size(stats.get("index_bytes"))),
        ("audit entries", f"{stats.get('audit_entries', 0):,}"),
    ]
    groups = join(
        _counts(title, stats.get(key) or {})
        for title, key in (
            ("By type", "by_type"),
            ("By outcome", "by_outcome"),
            ("By source", "by_source"),
            ("By status", "by_status"),
            ("By agent", "by_agent"),
        )
    )
    return H(
        '{}<h2>Memories per day</h2><div id="per-day">{}</div>'
        '<h2>Recalls per day</h2><div id="recalls-per-day">{}</div>'
        '<div class="grid2">{}</div><p>{}</p>',
        table(("", ""), facts, "facts"),
        columns(store.per_day()),
        columns(recalls_per_day(store)),
        groups,
        link("/doctor", "What hindsight doctor store says →"),
    )


def doctor(store: Store) -> Html:
    from ..doctor.store_checks import run

    checks = run(store.path)
    rows = [
        (
            H('<span class="check {}">{}</span>', c.status, c.status),
            c.id,
            c.summary,
            c.evidence,
            c.fix,
        )
        for c in checks
    ]
    return table(("", "check", "summary", "evidence", "fix"), rows, "doctor")
