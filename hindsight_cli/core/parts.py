"""Content over the size limit, stored as linked parts (issue 17, point 3).

A text longer than ``[limits] max_content_bytes`` is not refused: it is cut at the largest boundary
that fits (a blank line, a line end, a sentence end, a space; between characters only when a run has
none) into parts that are each an ordinary memory. The parts share a task (the caller's, or one
named after the text), each names the others in ``source_ids`` (so ``show ID --sources`` shows the
whole text one step away) and says where it sits in ``metadata.part`` (``{"index": 2, "of": 5}``).
Search returns the part that matched.

The parts are one memory to every rule that changes a memory's status: forgetting, archiving,
expiring or restoring one part does the same to all of them (``whole``), so no half of a text stays
behind. Secrets are redacted and instructions looked for in the whole text before it is cut, so no
secret or injection is cut in two and missed; a part of an untrusted text that carries an injection
makes every part untrusted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, NoReturn

from ..errors import InvalidInput
from ..models import PART, part_position
from ..poisoning import QUARANTINE_CONFIDENCE, QUARANTINE_TAG, assess
from ..redact import redact_field
from ..storage.base import Reader
from ..storage.rows import MemoryRow
from ..text import clean
from .prepare import FAR_OVER, Limits, Prepared, content_hash, derived_key, label, prepare

# 1 MiB at the default 16 KiB: past that a text is a document, not a memory
MAX_PARTS = 64

# Where a cut may fall, best first; a cut is only taken past half the room, so no part is a sliver.
_BOUNDARIES = (
    re.compile(r"\n[ \t]*\n\s*"),
    re.compile(r"\n\s*"),
    re.compile(r"(?<=[.!?;:])\s+|(?<=[。！？；：])\s*"),
    re.compile(r"\s+"),
)
# the blanks a cut drops: a run of them is never a part of its own
_BLANKS = re.compile(r"\s*")


def _past_blanks(text: str, at: int) -> int:
    """Where the blanks from ``at`` on end."""
    found = _BLANKS.match(text, at)
    return found.end() if found else at


def pieces(text: str, max_bytes: int) -> list[str]:
    """``text`` in pieces of at most ``max_bytes`` UTF-8 bytes, none empty or blank, in order; what
    is cut away between two pieces is only the whitespace of the boundary (all of it: a run of
    blanks longer than a part once made parts of blanks alone, which a memory cannot be, so the
    whole text was refused; review AH)."""
    out: list[str] = []
    rest = text[_past_blanks(text, 0) :]
    while len(encoded := rest.encode("utf-8")) > max_bytes:
        # characters that fit
        room = len(encoded[:max_bytes].decode("utf-8", "ignore"))
        head_end, next_start = _cut(rest, room)
        out.append(rest[:head_end])
        rest = rest[next_start:]
    if rest:
        out.append(rest)
    return out


def _cut(text: str, room: int) -> tuple[int, int]:
    """Where the first piece ends and the next begins: the last boundary in ``text[:room]`` of the
    best kind that has one past half the room; the next piece begins past the blanks there (those
    of a run that goes on past the room too)."""
    # a boundary's whitespace may begin right at the limit
    window = text[: room + 1]
    for boundary in _BOUNDARIES:
        cuts = [m for m in boundary.finditer(window) if room // 2 < m.start() <= room]
        if cuts:
            return cuts[-1].start(), _past_blanks(text, cuts[-1].end())
    return room, _past_blanks(text, room)


def _too_long(size: str, max_bytes: int) -> NoReturn:
    raise InvalidInput(
        f"content is {size}, more than {MAX_PARTS} parts of {max_bytes} bytes: store it as "
        "several memories, summarise it, or raise [limits] max_content_bytes in config.toml."
    )


def split(fields: Mapping[str, Any], max_bytes: int) -> tuple[list[dict[str, Any]], int]:
    """The fields of each part of an over-long memory, and how many secrets came out of its whole
    text; ``[fields]`` and 0 when it fits (``prepare`` then judges it as usual)."""
    raw = fields.get("content")
    # cleaned below
    if not isinstance(raw, str) or len(raw.encode("utf-8", "surrogatepass")) <= max_bytes:
        return [dict(fields)], 0
    most = MAX_PARTS * max_bytes
    # more bytes than MAX_PARTS parts can hold is refused before the whole is cleaned and redacted
    # (cleaning only drops characters; redaction hardly shortens a text)
    if len(raw) > FAR_OVER * most:
        _too_long(f"over {FAR_OVER * most} characters", max_bytes)
    text = clean(raw)
    size = len(text.encode("utf-8"))
    if size <= max_bytes:
        return [dict(fields)], 0
    if size > most:
        _too_long(f"{size} bytes", max_bytes)
    text, redactions = redact_field(text, "content")
    texts = pieces(text, max_bytes)
    if len(texts) > MAX_PARTS:
        _too_long(f"{len(text.encode('utf-8'))} bytes", max_bytes)
    key = label(fields.get("idempotency_key") or fields.get("key"), "key") or derived_key(
        "parts",
        fields.get("agent_id"),
        fields.get("task_id"),
        fields.get("step"),
        content_hash(text),
    )
    task = fields.get("task_id") or f"parts-{content_hash(text)[:12]}"
    metadata = fields.get("metadata") or {}
    out = []
    for index, piece in enumerate(texts, 1):
        part = {
            **fields,
            "content": piece,
            "task_id": task,
            "idempotency_key": f"{key}#{index}",
            "key": None,
            "metadata": {**metadata, PART: {"index": index, "of": len(texts)}}
            if isinstance(metadata, Mapping)
            else metadata,
        }
        # the first part stands for the whole: its id (an import's), its supersede
        if index > 1:
            part.update(id=None, supersedes=None)
        out.append(part)
    return out, redactions


def key_taken(key: str) -> InvalidInput:
    """A part's key (``KEY#N``) that another memory holds: the whole is refused, never written in
    part (a whole missing a part would read as a damaged ledger)."""
    return InvalidInput(
        f"key {key!r} is another memory's, and a text over the size limit keeps its parts under "
        "KEY#1, KEY#2, …: give this one another idempotency key (or none)."
    )


def wholes(rows: Sequence[MemoryRow]) -> list[range]:
    """The positions of each text in ``rows``: one for a whole memory, N for its linked parts."""
    out: list[range] = []
    for position, row in enumerate(rows):
        place = part_position(row.metadata)
        if place is None or place[0] == 1 or not out:
            out.append(range(position, position + 1))
        else:
            out[-1] = range(out[-1].start, position + 1)
    return out


def prepared(
    fields: Mapping[str, Any], limits: Limits, now: datetime, keep_identity: bool = False
) -> list[Prepared]:
    """One memory, or the linked parts of one over the size limit, validated (core/prepare.py)."""
    pieces, redactions = split(fields, limits.max_bytes)
    if len(pieces) == 1:
        return [prepare(pieces[0], limits, now, keep_identity)]
    out = [prepare(piece, limits, now, keep_identity) for piece in pieces]
    link([p.row for p in out])
    out[0].redactions += redactions
    return out


def link(rows: Sequence[MemoryRow]) -> None:
    """Each part names the others, in order; an injection found in the whole text, or in any part,
    marks every part (an instruction cut in two is still one instruction)."""
    ids = [r.id for r in rows]
    for row in rows:
        row.source_ids = [*row.source_ids, *(i for i in ids if i != row.id)]
    whole = " ".join(r.content for r in rows)
    found = assess({"content": whole}, rows[0].source) or next(
        (r.metadata["quarantine"] for r in rows if r.metadata.get("quarantine")), None
    )
    if found:
        for row in rows:
            row.confidence = min(row.confidence, QUARANTINE_CONFIDENCE)
            row.metadata = {**row.metadata, "quarantine": row.metadata.get("quarantine") or found}
            if QUARANTINE_TAG not in row.tags:
                row.tags.append(QUARANTINE_TAG)


def is_part(row: MemoryRow) -> bool:
    return part_position(row.metadata) is not None


def ids(first: MemoryRow) -> list[str]:
    """The ids of every part of the text whose first part is ``first`` ([] for a whole memory)."""
    position = part_position(first.metadata)
    return (
        [first.id, *first.source_ids[-(position[1] - 1) :]] if position and position[0] == 1 else []
    )


def whole(session: Reader, targets: Sequence[str]) -> list[str]:
    """``targets`` with the other parts of every part among them: a memory's status changes as one.
    Two reads whatever the number of targets: the targets, then every row their parts name."""
    out = list(dict.fromkeys(targets))
    # a set to test against: a list's ``in`` grew with targets × their parts' links (review AC)
    asked = set(out)
    named = {r.id: r for r in session.by_ids(out) if is_part(r)}
    linked = list(dict.fromkeys(s for r in named.values() for s in r.source_ids if s not in asked))
    found = {r.id: r for r in session.by_ids(linked)} if linked else {}
    # a part that names one of the target parts that name it (each target's links a set: testing
    # every target's list for every sibling grew with the square of the parts, review AC)
    names = {t: set(r.source_ids) for t, r in named.items()}
    for sibling in linked:
        row = found.get(sibling)
        if (
            row is not None
            and is_part(row)
            # a text's parts are one agent's (``derived_from``)
            and any(
                sibling in names[t] and named[t].agent_id == row.agent_id
                for t in dict.fromkeys(row.source_ids)
                if t in names
            )
        ):
            out.append(sibling)
    return out
