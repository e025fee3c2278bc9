"""One memory whole: every field, its versions, its audit entries, its supersede chain both ways, its
summary chain (up and down), its parts, its quarantine reason and provenance label; and the forms
that curate it."""

from __future__ import annotations

import json

from ..models import OUTCOMES, Memory, part_position, short_id
from ..poisoning import quarantine_record, trust_label
from ..store import Store
from .browse import memory_link, quarantined, snippet
from .html import H, Html, csrf_field, join, options, segment, table

# what a finished action says on the page it returns to (a fixed set: nothing from the request)
# audit entries a memory's page lists, newest first: each repeat of a memory (a merge) adds one, so
# a writer repeating hers made a page of as many rows (review AV)
AUDIT_SHOWN = 100
# memories a summary chain's side lists, and source ids the fields show: a principal making many
# summaries (or patterns) of one memory made its page list every one (review BB)
CHAIN_SHOWN = 100

DONE = {
    "forget": "Forgotten: out of search. Restore brings it back.",
    "archive": "Archived: out of default search. Restore brings it back.",
    "restore": "Restored: active again.",
    "edit": "Saved as a new version; the old one is kept as history.",
    "release": "Released from quarantine as a new version; the old one is kept as history.",
    "confirm": "Confirmed as an attack and forgotten. Restore brings it back.",
    "supersede": "Superseded: out of search, kept as history, linked to the memory that replaces "
    "it (see Fields). Forget that one, then Restore, to bring it back.",
    "unchanged": "Nothing changed.",
}


def render(store: Store, memory_id: str, done: str | None, csrf: str) -> tuple[str, Html]:
    memory = store.get(memory_id)
    notice = H('<p class="notice" role="status">{}</p>', DONE[done]) if done in DONE else Html("")
    return f"Memory {short_id(memory.id)}", H(
        '{}<blockquote class="content" id="content">{}</blockquote>{}{}{}{}{}{}',
        notice,
        memory.content,
        _trust(store, memory),
        curate(memory, csrf),
        _fields(memory),
        _chains(store, memory),
        _versions(store, memory),
        _audit(store, memory),
    )


def _trust(store: Store, memory: Memory) -> Html:
    label = trust_label(memory.source, quarantined(memory), store.origin)
    reason = memory.metadata.get("quarantine")
    parts = []
    if label:
        parts.append(H('<p class="label">Label an agent sees: <code>{}</code></p>', label))
    if isinstance(reason, dict):
        parts.append(
            H(
                '<p class="warn" id="quarantine">Quarantined: {} (matched: {})</p>',
                reason.get("reason", ""),
                # a stated one of another shape, stored before review BR
                ", ".join((quarantine_record(reason) or {}).get("matched", [])),
            )
        )
    return join(parts)


def _value(name: str, value: object) -> object:
    if name in ("superseded_by", "supersedes") and value:
        return memory_ref(str(value))
    if name == "source_ids" and isinstance(value, list) and value:
        shown = join((memory_ref(str(v)) for v in value[:CHAIN_SHOWN]), " ")
        more = len(value) - CHAIN_SHOWN
        return H('{} <span class="muted">and {} more</span>', shown, more) if more > 0 else shown
    if isinstance(value, (dict, list)):
        return H("<code>{}</code>", json.dumps(value, ensure_ascii=False)) if value else ""
    return "" if value is None else value


def memory_ref(memory_id: str) -> Html:
    return H('<a href="/m/{}">{}</a>', segment(memory_id), short_id(memory_id))


def _fields(memory: Memory) -> Html:
    # the content is shown whole above
    rows = [
        (name, _value(name, value)) for name, value in memory.to_dict().items() if name != "content"
    ]
    position = part_position(memory.metadata)
    if position:
        rows.insert(2, ("part", f"{position[0]} of {position[1]}"))
    return H("<h2>Fields</h2>{}", table(("field", "value"), rows, "fields"))


def _listing(memories: list[Memory], empty: str, more: str) -> Html:
    if not memories:
        return H('<p class="muted">{}</p>', empty)
    return H(
        "<ul>{}</ul>{}",
        join(
            H("<li>{} {} · {} · {}</li>", memory_link(m), snippet(m.content, 90), m.type, m.status)
            for m in memories[:CHAIN_SHOWN]
        ),
        H('<p class="muted">{}</p>', more) if len(memories) > CHAIN_SHOWN else "",
    )


def _chains(store: Store, memory: Memory) -> Html:
    above = store.built_on(memory.id, limit=CHAIN_SHOWN + 1)
    below = [
        m for depth, m in store.sources(memory.id, depth=1, limit=CHAIN_SHOWN + 1) if depth == 1
    ]
    return H(
        '<h2>Summary chain</h2><div class="chain"><h3>Built on this one (up)</h3>'
        '<div id="up">{}</div><h3>Its sources (down)</h3><div id="down">{}</div></div>',
        _listing(above, "Nothing is built on this memory.", f"The oldest {CHAIN_SHOWN} shown."),
        _listing(
            below,
            "It has no sources: it is an original memory.",
            f"The first {CHAIN_SHOWN} shown; every one: hindsight show {memory.id} --sources",
        ),
    )


def _versions(store: Store, memory: Memory) -> Html:
    chain = store.history(memory.id)
    rows = [
        [
            memory_ref(m.id) if m.id != memory.id else H("<strong>{}</strong>", short_id(m.id)),
            m.version,
            m.status,
            m.created_at,
            snippet(m.content, 80),
        ]
        for m in chain
    ]
    return H(
        "<h2>Supersede chain (oldest first)</h2>{}",
        table(("id", "version", "status", "recorded", "memory"), rows, "history"),
    )


def _audit(store: Store, memory: Memory) -> Html:
    entries = store.log(limit=AUDIT_SHOWN + 1, memory_id=memory.id)
    rows = [(e.at, e.action, e.actor or "", e.reason or "", len(e.ids)) for e in entries]
    more = (
        H(
            '<p class="muted">The newest {} shown; every one: <code>hindsight log --id {} '
            "--limit 0</code>.</p>",
            AUDIT_SHOWN,
            memory.id,
        )
        if len(rows) > AUDIT_SHOWN
        else Html("")
    )
    return H(
        "<h2>Audit log</h2>{}{}",
        table(("at", "action", "by", "reason", "memories"), rows[:AUDIT_SHOWN], "audit")
        if rows
        else H('<p class="muted">No entries.</p>'),
        more,
    )


def _action(memory: Memory, csrf: str, verb: str, label: str, confirm: str, extra: Html) -> Html:
    return H(
        '<form method="post" action="/m/{}/{}" data-confirm="{}" class="action">{}{}'
        '<button type="submit" name="do" value="{}" id="do-{}">{}</button></form>',
        segment(memory.id),
        verb,
        confirm,
        csrf_field(csrf),
        extra,
        verb,
        verb,
        label,
    )


def curate(memory: Memory, csrf: str) -> Html:
    """The actions this memory's status allows; each asks for confirmation, hard forget for its
    short id typed out."""
    reason = H('<input name="reason" placeholder="reason (kept in the audit log)">')
    actions = []
    if memory.status == "active":
        actions.append(_action(memory, csrf, "forget", "Forget", "Forget this memory?", reason))
        actions.append(_action(memory, csrf, "archive", "Archive", "Archive this memory?", reason))
        by = H(
            '<label for="supersede-by">Superseded by:</label><input id="supersede-by" name="by" '
            'placeholder="id of the memory that replaces it" autocomplete="off" required>{}',
            reason,
        )
        actions.append(
            _action(
                memory,
                csrf,
                "supersede",
                "Mark superseded",
                "Mark this memory superseded by that one? It leaves search and stays as history.",
                by,
            )
        )
    if memory.status == "active" and quarantined(memory):
        actions.append(
            _action(
                memory,
                csrf,
                "release",
                "Release from quarantine",
                "You read it and it is harmless: release it from quarantine?",
                reason,
            )
        )
        actions.append(
            _action(
                memory,
                csrf,
                "confirm",
                "Confirm as an attack",
                "Confirm it as an attack and forget it?",
                reason,
            )
        )
    if memory.status in ("invalidated", "archived"):
        actions.append(
            _action(memory, csrf, "restore", "Restore", "Restore this memory?", Html(""))
        )
    typed = H(
        '<label for="purge-confirm">Type <code>{}</code> to purge it for good:</label>'
        '<input id="purge-confirm" name="confirm" autocomplete="off" required>{}',
        short_id(memory.id),
        reason,
    )
    actions.append(
        _action(
            memory,
            csrf,
            "purge",
            "Hard forget",
            "Purge this memory for good? Nothing of it stays.",
            typed,
        )
    )
    edit = _edit_form(memory, csrf) if memory.status == "active" else Html("")
    return H('<h2>Curate</h2><div class="actions">{}</div>{}', join(actions), edit)


def _edit_form(memory: Memory, csrf: str) -> Html:
    return H(
        '<form method="post" action="/m/{}/edit" data-confirm="Save these changes as a new '
        'version?" class="edit" id="edit">{}'
        '<label for="e-resolution">resolution</label><textarea id="e-resolution" '
        'name="resolution">{}</textarea>'
        '<label for="e-outcome">outcome</label><select id="e-outcome" name="outcome">{}</select>'
        '<label for="e-confidence">confidence</label><input id="e-confidence" name="confidence" '
        'value="{}" inputmode="decimal">'
        '<label for="e-importance">importance</label><input id="e-importance" '
        'name="importance" value="{}" inputmode="decimal">'
        '<label for="e-tags">add tags</label><input id="e-tags" name="tags" '
        'placeholder="comma-separated">'
        '<button type="submit" id="do-edit">Save as a new version</button></form>',
        segment(memory.id),
        csrf_field(csrf),
        memory.resolution or "",
        options(OUTCOMES, memory.outcome, blank="(unchanged)"),
        f"{memory.confidence:g}",
        f"{memory.importance:g}",
    )
